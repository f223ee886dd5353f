//! `EVO_DE_PARTS`: which parts of the suite run, so that a long full-mode run can be split over calls or GPUs
//! (e.g. Table 1 on four GPUs, three instances each with `EVO_DE_TABLE1_INSTANCES`, Table 2 and the timing
//! tables on one of them).
//!
//! A `,`-separated subset of `table1` (Table 1 and the Min-Min tables, or the sweep when
//! `EVO_DE_TABLE1_CONFIGS` is set), `table2` (Rastrigin) and `timing` (the per-generation tables); unset or
//! blank: all three.

use anyhow::Context;

/// The variable naming the parts.
const PARTS_VAR: &str = "EVO_DE_PARTS";
/// The parts' names, in the order the suite runs them.
const NAMES: [&str; 3] = ["table1", "table2", "timing"];

/// The parts to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Parts {
    /// Table 1 and the Min-Min tables (or the sweep).
    pub table1: bool,
    /// Table 2, Rastrigin.
    pub table2: bool,
    /// The per-generation timing tables.
    pub timing: bool,
}

impl Parts {
    /// The parts `EVO_DE_PARTS` names.
    pub(super) fn from_env() -> anyhow::Result<Self> {
        match std::env::var(PARTS_VAR) {
            Ok(list) => Self::parse(&list),
            Err(std::env::VarError::NotPresent) => Ok(Self::ALL),
            Err(error) => Err(error).with_context(|| format!("reading {PARTS_VAR}")),
        }
    }

    /// Every part.
    const ALL: Self = Self {
        table1: true,
        table2: true,
        timing: true,
    };

    /// The parts of a `,`-separated list (blank: all); an unknown name is an error naming the valid ones.
    fn parse(list: &str) -> anyhow::Result<Self> {
        let names: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect();
        if names.is_empty() {
            return Ok(Self::ALL);
        }
        if let Some(unknown) = names.iter().find(|name| !NAMES.contains(name)) {
            anyhow::bail!(
                "{PARTS_VAR}: unknown part `{unknown}`; valid: {}",
                NAMES.join(", ")
            );
        }
        Ok(Self {
            table1: names.contains(&"table1"),
            table2: names.contains(&"table2"),
            timing: names.contains(&"timing"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_select_parts_and_blank_selects_all() {
        assert_eq!(Parts::parse("").expect("blank"), Parts::ALL);
        assert_eq!(
            Parts::parse(" table1 ,timing").expect("valid"),
            Parts {
                table1: true,
                table2: false,
                timing: true
            }
        );
        let unknown = Parts::parse("table1,table3").expect_err("unknown part");
        assert!(format!("{unknown:#}").contains("table3"), "{unknown:#}");
    }
}
