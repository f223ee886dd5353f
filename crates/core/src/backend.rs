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
/// evo-core has no GPU access, so it cannot tell by itself what [`Backend::Auto`] means on this machine:
/// [`choose_backend`](crate::choose_backend) decides it from the driver's answer (given by evo-gpu-runtime)
/// and the problem's device support, and gives the reason the report records (`backend_reason`): CUDA device
/// 0 when a device exists and the problem has a device evaluation, the CPU on all cores otherwise.
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
        /// Worker threads; 0 means one per core (rayon's default, which honours `RAYON_NUM_THREADS`). At most
        /// [`max_cpu_threads`] when a pool is built ([`Backend::validate`]).
        threads: usize,
    },
    /// The CUDA engine on one device.
    Cuda {
        /// The device index, as the driver numbers devices (after `CUDA_VISIBLE_DEVICES`).
        device: usize,
    },
    /// The first CUDA device when there is one and the problem can run there, the CPU otherwise; resolved
    /// by [`choose_backend`](crate::choose_backend), which also says why.
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
    /// As [`thread_pool`].
    pub fn cpu_thread_pool(&self) -> Result<Option<rayon::ThreadPool>> {
        match *self {
            Self::Cpu { threads } => thread_pool(threads).map(Some),
            Self::Cuda { .. } | Self::Auto => Ok(None),
        }
    }

    /// Checks that this backend can run on this machine without building anything: a `Cpu` backend's thread
    /// count must be at most [`max_cpu_threads`] (for `threads: 0`, so must `RAYON_NUM_THREADS` when set).
    /// Every engine runs this check when it builds its pool; call it to fail earlier, when a configuration
    /// is read.
    ///
    /// Parsing does not check it: the limit depends on the machine, and a backend read from another
    /// machine's report must still parse.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the thread count (or the environment variable) and the allowed
    /// range.
    pub fn validate(&self) -> Result<()> {
        match *self {
            Self::Cpu { threads } => check_pool_size(threads, env_var, max_cpu_threads()),
            Self::Cuda { .. } | Self::Auto => Ok(()),
        }
    }
}

/// The least [`max_cpu_threads`] of any machine.
pub const MIN_THREAD_LIMIT: usize = 64;

/// Pool threads allowed per hardware thread by [`max_cpu_threads`].
pub const THREADS_PER_HARDWARE_THREAD: usize = 8;

/// The most worker threads a CPU pool may have on this machine:
/// `max(MIN_THREAD_LIMIT, THREADS_PER_HARDWARE_THREAD × available_parallelism)`, that is
/// `max(64, 8 × hardware threads)` (1 hardware thread when the count is unknown).
///
/// Why a limit: the engines' work is CPU-bound, so threads beyond the hardware threads add contention and no
/// speed, and rayon's cost grows faster than its pool: thousands of workers take minutes to start and make
/// every parallel call slow, which looks like a hang (`cpu:30000` did). Eight per hardware thread leaves
/// room for deliberate oversubscription; the floor of 64 keeps a configuration written for a workstation or
/// a GPU server (16 to 64 threads) valid on a small machine, so a reproduced run or a test of
/// thread-count independence does not depend on where it runs. A count above the limit is an error, never
/// clamped: a clamped pool would run another configuration than the one asked for.
pub fn max_cpu_threads() -> usize {
    let hardware = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    hardware
        .saturating_mul(THREADS_PER_HARDWARE_THREAD)
        .max(MIN_THREAD_LIMIT)
}

/// The environment variables rayon reads for a pool of 0 threads, in its order (the second is deprecated).
const RAYON_THREAD_VARIABLES: [&str; 2] = ["RAYON_NUM_THREADS", "RAYON_RS_NUM_CPUS"];

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The check of [`Backend::validate`] with the environment and the limit passed in. For `threads: 0` it
/// mirrors rayon's choice: the first of [`RAYON_THREAD_VARIABLES`] that holds a positive integer sets the
/// count; an unset, unparsable or zero value means one thread per core, which is within the limit.
fn check_pool_size(
    threads: usize,
    env: impl Fn(&str) -> Option<String>,
    limit: usize,
) -> Result<()> {
    let allowed = || {
        format!(
            "in 0..={limit} (0 = one per core; the limit is max({MIN_THREAD_LIMIT}, \
             {THREADS_PER_HARDWARE_THREAD} x this machine's hardware threads): more threads only slow \
             CPU-bound work down)"
        )
    };
    if threads > limit {
        return Err(Error::invalid_parameter(
            "Backend",
            "CPU thread count",
            threads,
            allowed(),
        ));
    }
    if threads == 0 {
        for name in RAYON_THREAD_VARIABLES {
            match env(name).and_then(|value| value.parse::<usize>().ok()) {
                Some(0) => return Ok(()),
                Some(count) if count > limit => {
                    return Err(Error::invalid_parameter(
                        "Backend",
                        "CPU thread count (from the environment variable read for `cpu`)",
                        format!("{name}={count}"),
                        allowed(),
                    ));
                }
                Some(_) => return Ok(()),
                None => {}
            }
        }
    }
    Ok(())
}

/// Builds a rayon pool of `threads` workers (0 = one per core), named `evo-cpu-<i>` so they are easy to
/// spot in a profiler. Engines run their parallel work inside [`rayon::ThreadPool::install`], which keeps a
/// run's thread count independent of the global pool.
///
/// # Errors
/// [`Error::InvalidParameter`] for more threads than [`max_cpu_threads`] (checked before any thread
/// starts, see [`Backend::validate`]); [`Error::ThreadPool`] when the operating system refuses to start the
/// threads.
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    Backend::Cpu { threads }.validate()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn explicit_counts_above_the_limit_are_refused() {
        assert!(check_pool_size(64, no_env, 64).is_ok());
        let error = check_pool_size(65, no_env, 64).unwrap_err().to_string();
        assert!(
            error.starts_with("Backend: CPU thread count must be in 0..=64 (0 = one per core"),
            "{error}"
        );
        assert!(error.ends_with("got 65"), "{error}");
        // An explicit count wins over the environment, as in rayon.
        let huge = |_: &str| Some("100000".to_string());
        assert!(check_pool_size(4, huge, 64).is_ok());
    }

    #[test]
    fn zero_threads_check_the_variable_rayon_reads() {
        let only = |wanted: &'static str, value: &'static str| {
            move |name: &str| (name == wanted).then(|| value.to_string())
        };
        let error = check_pool_size(0, only("RAYON_NUM_THREADS", "30000"), 64)
            .unwrap_err()
            .to_string();
        assert!(error.contains("RAYON_NUM_THREADS=30000"), "{error}");
        let error = check_pool_size(0, only("RAYON_RS_NUM_CPUS", "65"), 64)
            .unwrap_err()
            .to_string();
        assert!(error.contains("RAYON_RS_NUM_CPUS=65"), "{error}");
        assert!(check_pool_size(0, only("RAYON_NUM_THREADS", "64"), 64).is_ok());
        // 0 or an unparsable value (rayon does not trim) means one per core in rayon; the first variable
        // with a number decides.
        assert!(check_pool_size(0, only("RAYON_NUM_THREADS", "0"), 64).is_ok());
        assert!(check_pool_size(0, only("RAYON_NUM_THREADS", "many"), 64).is_ok());
        assert!(check_pool_size(0, only("RAYON_NUM_THREADS", " 100 "), 64).is_ok());
        let both = |name: &str| {
            Some(
                if name == "RAYON_NUM_THREADS" {
                    "0"
                } else {
                    "1000"
                }
                .to_string(),
            )
        };
        assert!(check_pool_size(0, both, 64).is_ok());
    }
}
