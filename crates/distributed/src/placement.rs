//! [`Placement`]: the backends the islands run on, and which island runs where.

use crate::params::MODEL;
use evo_core::{Backend, Error, Result};
use std::fmt;
use std::str::FromStr;

/// The backends an island model runs on, in one process: CPU thread pools (`cpu:<threads>`) and CUDA
/// devices (`cuda:<device>`). Island `i` runs on backend `i mod P` of the `P` listed; the backends run
/// side by side (one host thread each) and the islands of one backend run in turn, in index order.
///
/// Placement never changes a result: the islands are logical (see the crate docs), so a model on
/// `cpu:1` and one on `cuda:0,cuda:1` give the same report. It is therefore not part of a checkpoint's
/// fingerprint, and a run may resume on another placement.
///
/// Written and parsed as the backends' texts joined by commas (`cpu:2,cpu:2`, `cuda:0,cuda:1`).
///
/// ```
/// use evo_core::Backend;
/// use evo_distributed::Placement;
///
/// let placement: Placement = "cpu:2, cpu:2".parse()?;
/// assert_eq!(placement.backends(), [Backend::Cpu { threads: 2 }; 2]);
/// assert_eq!(placement.backend_of(3), Backend::Cpu { threads: 2 });
/// assert!("cuda:0,cuda:0".parse::<Placement>().is_err());
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    backends: Vec<Backend>,
}

impl Placement {
    /// The placement on `backends`, each `Cpu { threads }` or `Cuda { device }`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty list, [`Backend::Auto`] (which would let the machine choose
    /// the placement; resolve it first with `evo_gpu_runtime::resolve_backend`), a CUDA device listed twice
    /// (its islands run in turn: list it once), or a CPU thread count over the machine's limit
    /// ([`Backend::validate`]).
    pub fn new(backends: impl IntoIterator<Item = Backend>) -> Result<Self> {
        let backends: Vec<Backend> = backends.into_iter().collect();
        if backends.is_empty() {
            return Err(Error::invalid_parameter(
                MODEL,
                "placement",
                "an empty list of backends",
                "at least one backend (`cpu:<threads>` or `cuda:<device>`)",
            ));
        }
        for (i, backend) in backends.iter().enumerate() {
            match backend {
                Backend::Auto => {
                    return Err(Error::invalid_parameter(
                        MODEL,
                        "placement backend",
                        format!("`auto` (entry {i})"),
                        "`cpu:<threads>` or `cuda:<device>` (resolve `auto` before placing islands)",
                    ));
                }
                Backend::Cuda { device } if backends[..i].contains(backend) => {
                    return Err(Error::invalid_parameter(
                        MODEL,
                        "placement backend",
                        format!("`cuda:{device}` listed twice (entry {i})"),
                        "each CUDA device once (the islands placed on a device run in turn)",
                    ));
                }
                Backend::Cuda { .. } => {}
                Backend::Cpu { .. } => backend.validate()?,
            }
        }
        Ok(Self { backends })
    }

    /// The backends, in order.
    pub fn backends(&self) -> &[Backend] {
        &self.backends
    }

    /// The number of backends `P`.
    pub fn len(&self) -> usize {
        self.backends.len()
    }

    /// Always false: a placement has at least one backend.
    pub fn is_empty(&self) -> bool {
        self.backends.is_empty()
    }

    /// The backend of island `island`: entry `island mod P`.
    pub fn backend_of(&self, island: usize) -> Backend {
        self.backends[island % self.backends.len()]
    }

    /// Checks that every backend gets an island: `P ≤ K`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming both counts.
    pub(crate) fn check_islands(&self, islands: usize) -> Result<()> {
        if self.backends.len() > islands {
            return Err(Error::invalid_parameter(
                MODEL,
                "placement",
                format!("{} backends ({self})", self.backends.len()),
                format!(
                    "at most the island count K = {islands} (a backend without an island would idle)"
                ),
            ));
        }
        Ok(())
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, backend) in self.backends.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{backend}")?;
        }
        Ok(())
    }
}

impl FromStr for Placement {
    type Err = Error;

    /// Parses backends separated by commas, each as [`Backend::from_str`], then checks them as
    /// [`Placement::new`].
    fn from_str(text: &str) -> Result<Self> {
        let backends = text
            .split(',')
            .filter(|entry| !entry.trim().is_empty())
            .map(str::parse)
            .collect::<Result<Vec<Backend>>>()?;
        Self::new(backends)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_empty_placement_auto_and_a_repeated_device_are_refused() {
        let empty = Placement::new([]).unwrap_err().to_string();
        assert!(
            empty.contains("placement must be at least one backend"),
            "{empty}"
        );
        let parsed_empty = "".parse::<Placement>().unwrap_err().to_string();
        assert_eq!(parsed_empty, empty);
        let auto = "cpu,auto".parse::<Placement>().unwrap_err().to_string();
        assert!(auto.contains("`auto` (entry 1)"), "{auto}");
        let twice = "cuda:1,cuda:0,cuda:1".parse::<Placement>().unwrap_err();
        assert!(
            twice
                .to_string()
                .contains("`cuda:1` listed twice (entry 2)"),
            "{twice}"
        );
        let threads = Placement::new([Backend::Cpu { threads: 1 << 20 }]).unwrap_err();
        assert!(
            threads.to_string().contains("CPU thread count"),
            "{threads}"
        );
    }

    #[test]
    fn islands_go_round_robin_and_every_backend_needs_one() {
        let placement: Placement = "cpu:1,cuda:0,cuda:1".parse().unwrap();
        let backends: Vec<String> = (0..5)
            .map(|i| placement.backend_of(i).to_string())
            .collect();
        assert_eq!(backends, ["cpu:1", "cuda:0", "cuda:1", "cpu:1", "cuda:0"]);
        assert_eq!(placement.to_string(), "cpu:1,cuda:0,cuda:1");
        assert!(placement.check_islands(3).is_ok());
        let error = placement.check_islands(2).unwrap_err().to_string();
        assert!(
            error.contains("3 backends (cpu:1,cuda:0,cuda:1)"),
            "{error}"
        );
        assert!(error.contains("at most the island count K = 2"), "{error}");
    }
}
