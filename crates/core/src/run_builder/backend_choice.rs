//! Which backend a [`RunBuilder`](super::RunBuilder) run takes and why: the rule `Backend::Auto` follows and
//! the refusal of a CUDA backend for a problem the CUDA engine cannot evaluate. The choice never falls back
//! silently: the report records the reason under the metadata key [`BACKEND_REASON`]. [`choose_backend`] is
//! public so that a front end driving the engines itself (the `evo` command) follows the same rule.

use crate::backend::Backend;
use crate::error::{Error, Result};

/// The report's metadata key holding why the run took its backend (beside `backend`, the backend itself).
pub const BACKEND_REASON: &str = "backend_reason";

/// Whether an algorithm's CUDA engine can evaluate a problem
/// ([`RunAlgorithm::device_support`](super::RunAlgorithm::device_support)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceSupport {
    /// The CUDA engine evaluates the problem: on the device, or through the host callback the problem chose.
    Evaluated,
    /// It cannot; `remedy` says what would give the problem a device evaluation, as
    /// [`Error::NoDeviceEvaluation`] quotes it ("implement `evo_benchmarks::cuda::DeviceBitProblem`").
    Missing {
        /// The trait to implement or the built-in problem type to use.
        remedy: &'static str,
    },
}

/// What this machine offers `Backend::Auto`, from the driver
/// ([`RunAlgorithm::gpu_presence`](super::RunAlgorithm::gpu_presence)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuPresence {
    /// A CUDA device to run on.
    Device(usize),
    /// None, and why (no driver library, zero devices).
    Absent {
        /// The driver's or the probe's words.
        reason: String,
    },
}

impl GpuPresence {
    /// From the driver's device count (`evo_gpu_runtime::device_count()`): device 0 when there is at least
    /// one; absent, with the reason, for zero devices or [`Error::NoGpu`].
    ///
    /// # Errors
    /// Any other error of the count (a driver that is present but fails) passes through: a broken driver is
    /// reported, never taken for a machine without a GPU.
    pub fn from_device_count(count: Result<usize>) -> Result<Self> {
        match count {
            Ok(0) => Ok(Self::Absent {
                reason: "the CUDA driver reports no device".to_string(),
            }),
            Ok(_) => Ok(Self::Device(0)),
            Err(Error::NoGpu { reason }) => Ok(Self::Absent { reason }),
            Err(other) => Err(other),
        }
    }
}

/// The backend a run takes (`Backend::Cpu` or `Backend::Cuda`, never `Auto`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendChoice {
    /// The backend.
    pub backend: Backend,
    /// Why, in a sentence the report records under [`BACKEND_REASON`].
    pub reason: String,
}

/// The backend `algorithm` (the name [`Error::NoDeviceEvaluation`] quotes) takes for `requested` on the
/// problem named `problem` with `support`:
///
/// - `Cpu` and `Cuda` are taken as asked, except that `Cuda` for a problem without a device evaluation is
///   refused before any device is opened (the same error on every machine);
/// - `Auto` takes the CPU for a problem without a device evaluation (the driver is not asked), otherwise
///   the device `presence` finds, or the CPU on all cores when it finds none.
///
/// # Errors
/// [`Error::NoDeviceEvaluation`] for `Cuda` with [`DeviceSupport::Missing`]; the errors of `presence` (a
/// driver that fails).
pub fn choose_backend(
    algorithm: &'static str,
    requested: Backend,
    problem: &str,
    support: DeviceSupport,
    presence: impl FnOnce() -> Result<GpuPresence>,
) -> Result<BackendChoice> {
    let chosen = |backend| BackendChoice {
        backend,
        reason: format!("{backend} was asked for"),
    };
    match (requested, support) {
        (Backend::Cpu { .. }, _) | (Backend::Cuda { .. }, DeviceSupport::Evaluated) => {
            Ok(chosen(requested))
        }
        (Backend::Cuda { .. }, DeviceSupport::Missing { remedy }) => {
            Err(Error::NoDeviceEvaluation {
                algorithm,
                problem: problem.to_string(),
                remedy,
            })
        }
        (Backend::Auto, DeviceSupport::Missing { remedy }) => Ok(BackendChoice {
            backend: Backend::cpu(),
            reason: format!(
                "Backend::Auto: the problem `{problem}` has no device evaluation for {algorithm} \
                 (to run it on the GPU, {remedy})"
            ),
        }),
        (Backend::Auto, DeviceSupport::Evaluated) => Ok(match presence()? {
            GpuPresence::Device(device) => BackendChoice {
                backend: Backend::cuda(device),
                reason: format!(
                    "Backend::Auto: CUDA device {device} is present and the CUDA engine evaluates the problem"
                ),
            },
            GpuPresence::Absent { reason } => BackendChoice {
                backend: Backend::cpu(),
                reason: format!("Backend::Auto: no CUDA device ({reason})"),
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const MISSING: DeviceSupport = DeviceSupport::Missing {
        remedy: "implement `toy::DeviceToy`",
    };

    fn device_zero() -> Result<GpuPresence> {
        Ok(GpuPresence::Device(0))
    }

    fn no_driver() -> Result<GpuPresence> {
        Ok(GpuPresence::Absent {
            reason: "libcuda was not found".to_string(),
        })
    }

    fn never_asked() -> Result<GpuPresence> {
        Err(Error::Driver {
            call: "the driver must not be asked".to_string(),
            message: String::new(),
        })
    }

    fn choose(
        requested: Backend,
        support: DeviceSupport,
        presence: fn() -> Result<GpuPresence>,
    ) -> Result<BackendChoice> {
        choose_backend("toy::Run", requested, "toy", support, presence)
    }

    #[test]
    fn auto_takes_the_present_device_for_a_problem_with_a_device_evaluation_and_says_so() {
        let choice = choose(Backend::Auto, DeviceSupport::Evaluated, device_zero).unwrap();
        assert_eq!(choice.backend, Backend::cuda(0));
        assert_eq!(
            choice.reason,
            "Backend::Auto: CUDA device 0 is present and the CUDA engine evaluates the problem"
        );
    }

    #[test]
    fn auto_without_a_device_takes_every_core_and_gives_the_drivers_reason() {
        let choice = choose(Backend::Auto, DeviceSupport::Evaluated, no_driver).unwrap();
        assert_eq!(choice.backend, Backend::cpu());
        assert_eq!(
            choice.reason,
            "Backend::Auto: no CUDA device (libcuda was not found)"
        );
    }

    #[test]
    fn auto_for_a_problem_without_a_device_evaluation_takes_the_cpu_and_names_the_trait() {
        let choice = choose(Backend::Auto, MISSING, never_asked).unwrap();
        assert_eq!(choice.backend, Backend::cpu());
        assert_eq!(
            choice.reason,
            "Backend::Auto: the problem `toy` has no device evaluation for toy::Run \
             (to run it on the GPU, implement `toy::DeviceToy`)"
        );
    }

    #[test]
    fn a_broken_driver_is_an_error_not_a_cpu_run() {
        let error = choose(Backend::Auto, DeviceSupport::Evaluated, never_asked).unwrap_err();
        assert!(matches!(error, Error::Driver { .. }), "{error}");
    }

    #[test]
    fn cuda_for_a_problem_without_a_device_evaluation_is_refused_naming_problem_and_trait() {
        let error = choose(Backend::cuda(1), MISSING, never_asked).unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(
                &error,
                Error::NoDeviceEvaluation {
                    algorithm: "toy::Run",
                    problem,
                    remedy: "implement `toy::DeviceToy`",
                } if problem == "toy"
            ),
            "{message}"
        );
        assert!(
            message.contains("to run it on the GPU, implement `toy::DeviceToy`"),
            "{message}"
        );
    }

    #[test]
    fn an_explicit_backend_is_taken_as_asked_without_asking_the_driver() {
        for (requested, support) in [
            (Backend::Cpu { threads: 3 }, MISSING),
            (Backend::Cpu { threads: 0 }, DeviceSupport::Evaluated),
            (Backend::cuda(2), DeviceSupport::Evaluated),
        ] {
            let choice = choose(requested, support, never_asked).unwrap();
            assert_eq!(choice.backend, requested);
            assert_eq!(choice.reason, format!("{requested} was asked for"));
        }
    }

    #[test]
    fn the_device_count_maps_to_presence_and_keeps_driver_failures() {
        assert_eq!(
            GpuPresence::from_device_count(Ok(2)).unwrap(),
            GpuPresence::Device(0)
        );
        assert!(matches!(
            GpuPresence::from_device_count(Ok(0)).unwrap(),
            GpuPresence::Absent { .. }
        ));
        let absent = GpuPresence::from_device_count(Err(Error::NoGpu {
            reason: "libcuda was not found".to_string(),
        }))
        .unwrap();
        assert_eq!(
            absent,
            GpuPresence::Absent {
                reason: "libcuda was not found".to_string()
            }
        );
        let failed = GpuPresence::from_device_count(Err(Error::Driver {
            call: "cuDeviceGetCount".to_string(),
            message: "unknown".to_string(),
        }));
        assert!(matches!(failed, Err(Error::Driver { .. })));
    }
}
