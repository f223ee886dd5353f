//! Braun et al.'s ETC files and the near-optimal schedule files of chgogos/hcsp.
//!
//! ETC file: an optional header line `tasks machines [class]`, then `tasks · machines` values, one per line,
//! task-major (value `k = t·m + j` is `ETC[t][j]`); empty lines are skipped. Without the header the shape
//! must be known: [`EtcInstance::from_file`] assumes Braun et al.'s 512 × 16,
//! [`EtcInstance::from_file_with_shape`] takes it. Values are read as `f32` and must be finite and `≥ 0`:
//! the published files print two decimals, so a short task on a fast machine reads `0.00`, and a zero time
//! is a valid time (a `-0` is stored as `+0`).
//!
//! The optional third header field is the consistency argument of the HCSP instance generator distributed
//! with the HCSP instances of CECAL (fing.edu.uy/inco/grupos/cecal/hpc/HCSP, Nesmachnow; redistributed by
//! chgogos/hcsp): `0` consistent, `1` semi-consistent, `2` inconsistent. The larger sets write it
//! (`1024x32/B.u_s_lolo` starts `1024 32 1`, `A.u_i_lolo` starts `1024 32 2`), the 4096 × 128 files omit it
//! (`4096 128`). It is checked to be one of those codes and then dropped: Braun et al.'s 512 × 16 files as
//! redistributed write `0` for every class (`u_i_hihi.0` starts `512 16 0` although its matrix is
//! inconsistent), so it cannot be trusted as a label, and the class of a matrix is a property of its values
//! anyway.
//!
//! Schedule file (`*.sol`): `tasks` machine indices (`0..m`) in task order, separated by white space.

use super::{EtcInstance, check_schedule};
use crate::data::{bad_line, parse_finite, quoted, read_text};
use evo_core::Result;
use std::path::Path;

/// Braun et al.'s instance shape, assumed for header-less files.
pub const BRAUN_SHAPE: (usize, usize) = (512, 16);

/// The consistency codes the third header field may hold (see the module docs).
const CLASS_CODES: std::ops::RangeInclusive<u64> = 0..=2;

/// What a header line must look like, quoted in its errors.
const HEADER_FORM: &str = "a header `tasks machines` or `tasks machines class` (class 0, 1 or 2)";

/// A header `tasks machines [class]`: two or three tokens that all parse as unsigned integers; the class is
/// 0 when absent.
fn header_tokens(content: &str) -> Option<[u64; 3]> {
    let tokens: Vec<&str> = content.split_whitespace().collect();
    if !(2..=3).contains(&tokens.len()) {
        return None;
    }
    let mut values = [0u64; 3];
    for (value, token) in values.iter_mut().zip(tokens) {
        *value = token.parse().ok()?;
    }
    Some(values)
}

impl EtcInstance {
    /// Loads an ETC file with or without its header (without: 512 tasks × 16 machines), named after the
    /// file ("u_c_hihi.0").
    ///
    /// # Errors
    /// [`Error::BadInputFile`](evo_core::Error::BadInputFile) naming the file, the line and what was expected:
    /// an unreadable file, a malformed header (not `tasks machines [class]` with positive counts and a class
    /// of 0, 1 or 2), a line that is not one number, a value that is negative or not finite, too few or too
    /// many values.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        Self::load(path.as_ref(), None)
    }

    /// As [`from_file`](Self::from_file), for a file of `tasks × machines` values; a header, when present,
    /// must state the same shape.
    ///
    /// # Errors
    /// As [`from_file`](Self::from_file), and a header of another shape.
    pub fn from_file_with_shape(
        path: impl AsRef<Path>,
        tasks: usize,
        machines: usize,
    ) -> Result<Self> {
        Self::load(path.as_ref(), Some((tasks, machines)))
    }

    fn load(path: &Path, shape: Option<(usize, usize)>) -> Result<Self> {
        let text = read_text(path)?;
        let name = path
            .file_name()
            .map_or_else(|| "etc".to_string(), |s| s.to_string_lossy().into_owned());
        Self::parse(path, &name, &text, shape)
    }

    /// Parses the text of an ETC file; `path` is only used in error messages, `shape` as in
    /// [`from_file_with_shape`](Self::from_file_with_shape) (`None`: the header's, else 512 × 16).
    ///
    /// # Errors
    /// As [`from_file`](Self::from_file).
    pub fn parse(
        path: &Path,
        name: &str,
        text: &str,
        shape: Option<(usize, usize)>,
    ) -> Result<Self> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty())
            .peekable();
        let mut shape_used = shape.unwrap_or(BRAUN_SHAPE);
        if let Some(&(line, content)) = lines.peek() {
            let tokens = content.split_whitespace().count();
            if tokens > 1 {
                let Some([tasks, machines, class]) = header_tokens(content) else {
                    return Err(bad_line(
                        path,
                        line,
                        format!("{HEADER_FORM} or one ETC value"),
                        quoted(content),
                    ));
                };
                if tasks == 0 || machines == 0 || !CLASS_CODES.contains(&class) {
                    return Err(bad_line(
                        path,
                        line,
                        format!("{HEADER_FORM} with tasks >= 1 and machines >= 1"),
                        quoted(content),
                    ));
                }
                let (Ok(tasks), Ok(machines)) = (usize::try_from(tasks), usize::try_from(machines))
                else {
                    return Err(bad_line(
                        path,
                        line,
                        "an addressable shape",
                        quoted(content),
                    ));
                };
                if let Some((t, m)) = shape
                    && (t, m) != (tasks, machines)
                {
                    return Err(bad_line(
                        path,
                        line,
                        format!("a header `{t} {m}` or `{t} {m} class` (the shape asked for)"),
                        quoted(content),
                    ));
                }
                shape_used = (tasks, machines);
                lines.next();
            }
        }
        let (tasks, machines) = shape_used;
        let Some(count) = tasks.checked_mul(machines) else {
            return Err(bad_line(
                path,
                1,
                "an addressable shape",
                format!("{tasks} x {machines}"),
            ));
        };
        // Never reserve more than the text can hold: a header may claim a huge shape.
        let mut etc = Vec::with_capacity(count.min(text.len() / 2 + 1));
        let mut last_line = 0;
        for (line, content) in lines {
            last_line = line;
            if etc.len() == count {
                return Err(bad_line(
                    path,
                    line,
                    format!(
                        "the end of the file after {count} values ({tasks} tasks x {machines} machines)"
                    ),
                    quoted(content),
                ));
            }
            if content.split_whitespace().count() != 1 {
                return Err(bad_line(
                    path,
                    line,
                    "one ETC value per line",
                    quoted(content),
                ));
            }
            let value: f32 = parse_finite(path, line, content, "ETC value")?;
            if value < 0.0 {
                return Err(bad_line(path, line, "an ETC value >= 0", quoted(content)));
            }
            etc.push(value);
        }
        if etc.len() != count {
            return Err(bad_line(
                path,
                last_line,
                format!("{count} ETC values ({tasks} tasks x {machines} machines)"),
                format!("{} values and the end of the file", etc.len()),
            ));
        }
        Self::new(name, tasks, machines, etc)
    }

    /// Loads a schedule file for this instance (see the module docs).
    ///
    /// # Errors
    /// [`Error::BadInputFile`](evo_core::Error::BadInputFile) naming the file, the line and what was expected:
    /// a token that is not a machine index below `m`, too few or too many entries.
    pub fn load_schedule(&self, path: impl AsRef<Path>) -> Result<Vec<u32>> {
        let path = path.as_ref();
        let text = read_text(path)?;
        self.parse_schedule(path, &text)
    }

    /// Parses the text of a schedule file; `path` is only used in error messages.
    ///
    /// # Errors
    /// As [`load_schedule`](Self::load_schedule).
    pub fn parse_schedule(&self, path: &Path, text: &str) -> Result<Vec<u32>> {
        let mut schedule = Vec::with_capacity(self.tasks());
        let mut last_line = 0;
        let expected_machine = || format!("a machine index in 0..{}", self.machines());
        for (index, content) in text.lines().enumerate() {
            let line = index + 1;
            last_line = line;
            for token in content.split_whitespace() {
                if schedule.len() == self.tasks() {
                    return Err(bad_line(
                        path,
                        line,
                        format!("the end of the file after {} machine indices", self.tasks()),
                        quoted(token),
                    ));
                }
                match token.parse::<u32>() {
                    Ok(machine) if (machine as usize) < self.machines() => schedule.push(machine),
                    _ => return Err(bad_line(path, line, expected_machine(), quoted(token))),
                }
            }
        }
        if schedule.len() != self.tasks() {
            return Err(bad_line(
                path,
                last_line,
                format!("{} machine indices (one per task)", self.tasks()),
                format!("{} indices and the end of the file", schedule.len()),
            ));
        }
        check_schedule(self, &schedule)?;
        Ok(schedule)
    }
}
