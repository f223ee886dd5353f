//! Which hardware runs an engine.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The forms [`Backend::from_str`] accepts, quoted in its error.
const ALLOWED_FORMS: &str =
    "one of `auto`, `cpu`, `cpu:<threads>` (0 = all cores), `cuda`, `cuda:<device>`";

/// Where an engine runs.
///
/// Written and parsed as `auto`, `cpu`, `cpu:<threads>`, `cuda` or `cuda:<device>` (case-insensitive);
/// serde uses the same strings, so a report or a configuration file says `"backend": "cuda:1"`.
///
/// evo-core has no GPU access, so it cannot decide what [`Backend::Auto`] means on this machine:
/// `evo_gpu_runtime::resolve_backend` turns it into `Cuda { device: 0 }` when a driver and a device exist and
/// into `Cpu { threads: 0 }` otherwise. Algorithm crates resolve before building an engine.
///
/// ```
/// use evo_core::Backend;
/// assert_eq!("cpu:4".parse::<Backend>()?, Backend::Cpu { threads: 4 });
/// assert_eq!("cuda".parse::<Backend>()?, Backend::Cuda { device: 0 });
/// assert_eq!(Backend::Cuda { device: 1 }.to_string(), "cuda:1");
/// assert!("gpu".parse::<Backend>().is_err());
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Backend {
    /// The rayon CPU engine.
    Cpu {
        /// Worker threads; 0 means one per core (rayon's default, which honours `RAYON_NUM_THREADS`).
        threads: usize,
    },
    /// The CUDA engine on one device.
    Cuda {
        /// The device index, as the driver numbers devices (after `CUDA_VISIBLE_DEVICES`).
        device: usize,
    },
    /// The first CUDA device when there is one, the CPU otherwise; resolved by
    /// `evo_gpu_runtime::resolve_backend`.
    #[default]
    Auto,
}

impl Backend {
    /// [`Backend::Auto`]: the GPU when one is available, the CPU otherwise.
    pub const fn auto() -> Self {
        Self::Auto
    }

    /// The CPU on all cores, `Cpu { threads: 0 }`.
    pub const fn cpu() -> Self {
        Self::Cpu { threads: 0 }
    }

    /// CUDA device `device`.
    pub const fn cuda(device: usize) -> Self {
        Self::Cuda { device }
    }

    /// The worker threads of a `Cpu` backend (0: one per core); 0 for the others, so that an engine's CPU
    /// fallback for an `Auto` or `Cuda` backend runs on every core.
    ///
    /// ```
    /// use evo_core::Backend;
    ///
    /// assert_eq!(Backend::Cpu { threads: 4 }.cpu_threads(), 4);
    /// assert_eq!(Backend::cuda(0).cpu_threads(), 0);
    /// ```
    pub const fn cpu_threads(&self) -> usize {
        match *self {
            Self::Cpu { threads } => threads,
            Self::Cuda { .. } | Self::Auto => 0,
        }
    }

    /// Builds the rayon pool a `Cpu` backend runs on; `None` for the other backends.
    ///
    /// # Errors
    /// [`Error::ThreadPool`] when the operating system refuses to start the threads.
    pub fn cpu_thread_pool(&self) -> Result<Option<rayon::ThreadPool>> {
        match *self {
            Self::Cpu { threads } => thread_pool(threads).map(Some),
            Self::Cuda { .. } | Self::Auto => Ok(None),
        }
    }
}

/// Builds a rayon pool of `threads` workers (0 = one per core), named `evo-cpu-<i>` so they are easy to
/// spot in a profiler. Engines run their parallel work inside [`rayon::ThreadPool::install`], which keeps a
/// run's thread count independent of the global pool.
///
/// # Errors
/// [`Error::ThreadPool`] when the operating system refuses to start the threads.
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|index| format!("evo-cpu-{index}"))
        .build()
        .map_err(|error| Error::ThreadPool {
            threads,
            reason: error.to_string(),
        })
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cpu { threads: 0 } => f.write_str("cpu"),
            Self::Cpu { threads } => write!(f, "cpu:{threads}"),
            Self::Cuda { device } => write!(f, "cuda:{device}"),
            Self::Auto => f.write_str("auto"),
        }
    }
}

impl FromStr for Backend {
    type Err = Error;

    /// Parses `auto`, `cpu`, `cpu:<threads>`, `cuda` or `cuda:<device>`, ignoring case and surrounding
    /// spaces.
    fn from_str(text: &str) -> Result<Self> {
        let invalid =
            || Error::invalid_parameter("Backend", "backend", format!("`{text}`"), ALLOWED_FORMS);
        let lower = text.trim().to_ascii_lowercase();
        let (kind, index) = match lower.split_once(':') {
            Some((kind, index)) => {
                let index = index.trim().parse::<usize>().map_err(|_| invalid())?;
                (kind.trim(), Some(index))
            }
            None => (lower.as_str(), None),
        };
        match (kind, index) {
            ("auto", None) => Ok(Self::Auto),
            ("cpu", threads) => Ok(Self::Cpu {
                threads: threads.unwrap_or(0),
            }),
            ("cuda", device) => Ok(Self::Cuda {
                device: device.unwrap_or(0),
            }),
            _ => Err(invalid()),
        }
    }
}

impl From<Backend> for String {
    fn from(backend: Backend) -> Self {
        backend.to_string()
    }
}

impl TryFrom<String> for Backend {
    type Error = Error;

    fn try_from(text: String) -> Result<Self> {
        text.parse()
    }
}
