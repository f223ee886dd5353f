//! Braun et al.'s ETC files and the near-optimal schedule files of chgogos/hcsp.
//!
//! ETC file: an optional header line of three integers `tasks machines 0` (chgogos/hcsp writes `512 16 0`),
//! then `tasks · machines` values, one per line, task-major (value `k = t·m + j` is `ETC[t][j]`); empty lines
//! are skipped. Without the header the shape must be known: [`EtcInstance::from_file`] assumes Braun et al.'s
//! 512 × 16, [`EtcInstance::from_file_with_shape`] takes it. Values are read as `f32` and must be finite
//! and positive.
//!
//! Schedule file (`*.sol`): `tasks` machine indices (`0..m`) in task order, separated by white space.

use super::{EtcInstance, check_schedule};
use crate::data::{bad_line, parse_finite, quoted, read_text};
use evo_core::Result;
use std::path::Path;

/// Braun et al.'s instance shape, assumed for header-less files.
pub const BRAUN_SHAPE: (usize, usize) = (512, 16);

/// A header `tasks machines 0`: three tokens that all parse as unsigned integers.
fn header_tokens(content: &str) -> Option<[u64; 3]> {
    let tokens: Vec<&str> = content.split_whitespace().collect();
    if tokens.len() != 3 {
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
    /// an unreadable file, a malformed header (not `tasks machines 0` with positive counts), a line that is
    /// not one number, a value that is not finite and positive, too few or too many values.
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
                let Some([tasks, machines, zero]) = header_tokens(content) else {
                    return Err(bad_line(
                        path,
                        line,
                        "a header `tasks machines 0` (three integers) or one ETC value",
                        quoted(content),
                    ));
                };
                if tasks == 0 || machines == 0 || zero != 0 {
                    return Err(bad_line(
                        path,
                        line,
                        "a header `tasks machines 0` with tasks >= 1 and machines >= 1",
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
                        format!("a header `{t} {m} 0` (the shape asked for)"),
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
            if value <= 0.0 {
                return Err(bad_line(path, line, "an ETC value > 0", quoted(content)));
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
