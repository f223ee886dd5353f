//! Which cases of the suite run (`--ma-cases`, `--ma-runs`, `--ma-first-run`), so that a full run can be split
//! into calls of a few minutes.
//!
//! A case selector is `part[:name[:D]]`; each part has its own functions and sizes, and a selector naming
//! one that the part does not measure is an error listing what it does, so a typo never selects nothing.

use std::fmt;
use std::str::FromStr;

use super::{DIMS, HUNDRED_MILLION, PAPER_CEC, PAPER_TIME};

/// A part of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The six shifted functions on their default domains.
    Shifted,
    /// The six shifted functions on `[−1.22, 1.22]^D` (opt-in).
    Small,
    /// The CEC 2010 subset.
    Cec,
    /// The 10^7 and 10^8 scale runs of shifted Rastrigin.
    Scale,
    /// The CPU engine at 10^5.
    Cpu,
}

impl Part {
    /// Every part, in the order the suite runs them.
    const ALL: [Self; 5] = [
        Self::Shifted,
        Self::Small,
        Self::Cec,
        Self::Scale,
        Self::Cpu,
    ];

    /// The name in a selector.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Shifted => "shifted",
            Self::Small => "small",
            Self::Cec => "cec",
            Self::Scale => "scale",
            Self::Cpu => "cpu",
        }
    }

    /// The function names a selector of this part may give (without the `shifted-` prefix, which is also
    /// accepted).
    fn names(self) -> Vec<String> {
        let short = |name: &'static str| name.trim_start_matches("shifted-").to_string();
        match self {
            Self::Shifted | Self::Small | Self::Cpu => {
                PAPER_TIME.iter().map(|(f, _)| short(f.name())).collect()
            }
            Self::Cec => PAPER_CEC.iter().map(|c| format!("f{}", c.0)).collect(),
            Self::Scale => vec!["rastrigin".to_string()],
        }
    }

    /// The numbers of variables this part measures (in some mode).
    fn dimensions(self) -> Vec<usize> {
        match self {
            Self::Shifted | Self::Small => DIMS.to_vec(),
            Self::Cec => vec![DIMS[0], 1_000_000],
            Self::Scale => vec![10_000_000, HUNDRED_MILLION],
            Self::Cpu => vec![DIMS[0]],
        }
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One case selector, `part[:name[:D]]` (`None` = any; `*` also reads as any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    part: Part,
    /// The function's name without the `shifted-` prefix.
    name: Option<String>,
    dimension: Option<usize>,
}

impl FromStr for Selector {
    type Err = String;

    fn from_str(item: &str) -> Result<Self, String> {
        let fields: Vec<&str> = item.trim().split(':').map(str::trim).collect();
        if fields.len() > 3 {
            return Err(format!("`{item}` has more fields than part:name:D"));
        }
        let mut fields = fields.into_iter();
        let part_text = fields.next().unwrap_or_default().to_ascii_lowercase();
        let part = Part::ALL
            .into_iter()
            .find(|p| p.name() == part_text)
            .ok_or_else(|| {
                format!(
                    "unknown part `{part_text}` in `{item}`; allowed: {}",
                    Part::ALL.map(Part::name).join(", ")
                )
            })?;
        let any = |field: &&str| !field.is_empty() && *field != "*";
        let name = match fields.next().filter(any) {
            None => None,
            Some(text) => {
                let text = text.to_ascii_lowercase();
                let short = text.strip_prefix("shifted-").unwrap_or(&text).to_string();
                let names = part.names();
                if !names.contains(&short) {
                    return Err(format!(
                        "part `{part}` has no function `{text}`; allowed: {}, or *",
                        names.join(", ")
                    ));
                }
                Some(short)
            }
        };
        let dimension = match fields.next().filter(any) {
            None => None,
            Some(text) => {
                let dimensions = part.dimensions();
                let allowed = dimensions
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                let d = text.parse::<usize>().map_err(|_| {
                    format!("`{text}` in `{item}` is not a number of variables; allowed: {allowed}, or *")
                })?;
                if !dimensions.contains(&d) {
                    return Err(format!(
                        "part `{part}` does not run D = {d}; allowed: {allowed}, or *"
                    ));
                }
                Some(d)
            }
        };
        Ok(Self {
            part,
            name,
            dimension,
        })
    }
}

/// The cases to run: every case of the mode except the opt-in ones when no selector is given.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    selectors: Vec<Selector>,
    /// Runs per case of the shifted and CEC parts, replacing the mode's count.
    pub runs: Option<usize>,
    /// The index of the first run (its seed is `SEED + first_run`), so that the runs of one case can be
    /// split over several calls.
    pub first_run: u64,
}

impl Selection {
    /// The selection of these flags' values.
    pub fn new(selectors: &[Selector], runs: Option<usize>, first_run: u64) -> Self {
        Self {
            selectors: selectors.to_vec(),
            runs,
            first_run,
        }
    }

    /// Whether case (`part`, `name`, `d`) runs; `name` matches with or without its `shifted-` prefix. The
    /// 10^8 case needs a selector that names its dimension, the `small` part a selector that names it.
    pub fn wants(&self, part: Part, name: &str, d: usize) -> bool {
        let short = name.strip_prefix("shifted-").unwrap_or(name);
        if self.selectors.is_empty() {
            return d != HUNDRED_MILLION && part != Part::Small;
        }
        self.selectors.iter().any(|s| {
            s.part == part
                && s.name.as_deref().is_none_or(|n| n == short)
                && match s.dimension {
                    Some(want) => want == d,
                    None => d != HUNDRED_MILLION,
                }
        })
    }

    /// Whether any case of `part` may run.
    pub fn wants_part(&self, part: Part) -> bool {
        self.selectors.is_empty() || self.selectors.iter().any(|s| s.part == part)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selection(items: &[&str]) -> Selection {
        let selectors: Vec<Selector> = items
            .iter()
            .map(|item| item.parse().expect("valid selector"))
            .collect();
        Selection::new(&selectors, None, 0)
    }

    #[test]
    fn selectors_pick_parts_functions_and_sizes() {
        let all = selection(&[]);
        assert!(all.wants(Part::Shifted, "shifted-rastrigin", 100_000));
        assert!(!all.wants(Part::Scale, "rastrigin", HUNDRED_MILLION));
        let some = selection(&["shifted:rastrigin:3000000", " cec:f8"]);
        assert!(some.wants(Part::Shifted, "shifted-rastrigin", 3_000_000));
        assert!(!some.wants(Part::Shifted, "shifted-rastrigin", 100_000));
        assert!(!some.wants(Part::Shifted, "shifted-griewank", 3_000_000));
        assert!(some.wants(Part::Cec, "f8", 1_000_000));
        assert!(!some.wants(Part::Cec, "f1", 100_000));
        assert!(some.wants_part(Part::Cec) && !some.wants_part(Part::Cpu));
        assert!(!all.wants(Part::Small, "shifted-rastrigin", 100_000));
        assert!(selection(&["small"]).wants(Part::Small, "rastrigin", 100_000));
        assert!(selection(&["shifted:Shifted-Schwefel-1.2:*"]).wants(
            Part::Shifted,
            "shifted-schwefel-1.2",
            500_000
        ));
        let big = selection(&["scale:*:100000000"]);
        assert!(big.wants(Part::Scale, "rastrigin", HUNDRED_MILLION));
        assert!(!big.wants(Part::Scale, "rastrigin", 10_000_000));
        assert!(!selection(&["scale"]).wants(Part::Scale, "rastrigin", HUNDRED_MILLION));
    }

    #[test]
    fn bad_selectors_say_what_is_allowed() {
        let error = |text: &str| text.parse::<Selector>().expect_err("invalid selector");
        let part = error("gpu:rastrigin");
        assert!(
            part.contains("`gpu`") && part.contains("shifted, small, cec, scale, cpu"),
            "{part}"
        );
        let name = error("shifted:rastrign");
        assert!(
            name.contains("`rastrign`") && name.contains("sum-squares"),
            "{name}"
        );
        let cec = error("cec:f5");
        assert!(
            cec.contains("f1, f2, f3, f4, f6, f8, f13, f18, f20"),
            "{cec}"
        );
        let number = error("shifted:rastrigin:lots");
        assert!(number.contains("not a number of variables"), "{number}");
        let size = error("shifted:rastrigin:300000");
        assert!(
            size.contains("D = 300000") && size.contains("3000000"),
            "{size}"
        );
        assert!(error("cpu:*:1000000").contains("allowed: 100000,"));
        assert!(error("shifted:rastrigin:1000:extra").contains("more fields"));
    }
}
