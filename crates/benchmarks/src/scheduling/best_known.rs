//! The best known schedules shipped beside Braun et al.'s instances (chgogos/hcsp): files named
//! `<instance>_[<METHOD>_]<makespan>.sol` in the instance's folder, `METHOD` the solver's label (`MS`
//! mathematical solver, `CPR` column pricing; `u_s_hilo.0_95553,3.sol` has none) and the makespan written
//! with a decimal comma. The content is a schedule file ([`EtcInstance::load_schedule`]).
//!
//! The makespan of each schedule is recomputed from the ETC matrix ([`EtcInstance::makespan`]); a file whose
//! recomputed makespan differs from its name's by more than one unit of the name's last digit is refused (a
//! schedule of another instance, or a damaged file). The names are not always rounded to nearest
//! (`u_s_hihi.0_MS_4080153,5.sol` holds 4 080 153.449), hence one unit rather than half of one.

use super::EtcInstance;
use crate::data::read_text;
use evo_core::{Error, Result};
use std::path::{Path, PathBuf};

/// A shipped schedule of an instance.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownSchedule {
    /// The file.
    pub file: PathBuf,
    /// The solver's label in the name (`MS`, `CPR`), if any.
    pub method: Option<String>,
    /// The makespan written in the name.
    pub stated_makespan: f64,
    /// The machine of every task.
    pub schedule: Vec<u32>,
    /// The makespan recomputed from the ETC matrix.
    pub makespan: f64,
}

/// The method label and the makespan (with the number of decimals written) of a schedule file name
/// `<instance>_[<METHOD>_]<makespan>.sol`, or `None` when the name is not of that form.
fn parse_name(instance: &str, file: &str) -> Option<(Option<String>, f64, i32)> {
    let rest = file.strip_prefix(instance)?.strip_prefix('_')?;
    let rest = rest.strip_suffix(".sol")?;
    let (method, number) = match rest.split_once('_') {
        Some((method, number)) => (Some(method), number),
        None => (None, rest),
    };
    if method.is_some_and(|m| m.is_empty() || !m.chars().all(|c| c.is_ascii_alphabetic())) {
        return None;
    }
    let (whole, decimals) = number.split_once(',').unwrap_or((number, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(decimals) {
        return None;
    }
    let value: f64 = format!("{whole}.{decimals}0").parse().ok()?;
    let places = i32::try_from(decimals.len()).ok()?;
    Some((method.map(str::to_string), value, places))
}

impl EtcInstance {
    /// The schedule files of this instance in `dir` (see the module docs), sorted by recomputed makespan,
    /// then by file name. Files of other instances are skipped; none found gives an empty list.
    ///
    /// # Errors
    /// [`Error::Io`] when `dir` cannot be listed; [`Error::BadInputFile`] for a `.sol` file of this instance
    /// whose name is not `<instance>_[<METHOD>_]<makespan>.sol`, whose content is not a schedule of this
    /// instance, or whose recomputed makespan is not its name's.
    pub fn known_schedules(&self, dir: impl AsRef<Path>) -> Result<Vec<KnownSchedule>> {
        let dir = dir.as_ref();
        let io = |source| Error::Io {
            path: dir.to_path_buf(),
            source,
        };
        let prefix = format!("{}_", self.name());
        let mut known = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) && name.ends_with(".sol") {
                known.push(self.known_schedule(&entry.path(), &name)?);
            }
        }
        known.sort_by(|a, b| a.makespan.total_cmp(&b.makespan).then(a.file.cmp(&b.file)));
        Ok(known)
    }

    /// The shipped schedule of lowest makespan in `dir` ([`known_schedules`](Self::known_schedules)).
    ///
    /// # Errors
    /// As [`known_schedules`](Self::known_schedules), and [`Error::Io`] (not found) when `dir` holds no
    /// schedule file of this instance.
    pub fn best_known(&self, dir: impl AsRef<Path>) -> Result<KnownSchedule> {
        let dir = dir.as_ref();
        self.known_schedules(dir)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::Io {
                path: dir.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("no schedule file `{}_[METHOD_]<makespan>.sol`", self.name()),
                ),
            })
    }

    /// Loads one schedule file named `name` and checks its makespan against the name's.
    fn known_schedule(&self, path: &Path, name: &str) -> Result<KnownSchedule> {
        let bad_name = |expected: String, found: String| Error::BadInputFile {
            path: path.to_path_buf(),
            line: 0,
            expected,
            found,
        };
        let Some((method, stated_makespan, places)) = parse_name(self.name(), name) else {
            return Err(bad_name(
                format!(
                    "a name `{}_[METHOD_]<makespan>.sol` (METHOD letters, the makespan with a decimal comma)",
                    self.name()
                ),
                format!("`{name}`"),
            ));
        };
        let schedule = self.parse_schedule(path, &read_text(path)?)?;
        let makespan = self.makespan(&schedule)?;
        let unit = 10f64.powi(-places);
        if (makespan - stated_makespan).abs() > unit {
            return Err(bad_name(
                format!(
                    "a schedule of makespan {stated_makespan} on {} (its name's, to {unit})",
                    self.name()
                ),
                format!("makespan {makespan}"),
            ));
        }
        Ok(KnownSchedule {
            file: path.to_path_buf(),
            method,
            stated_makespan,
            schedule,
            makespan,
        })
    }
}
