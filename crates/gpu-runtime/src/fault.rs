//! Sticky faults and the poisoned state of a device.
//!
//! A kernel that reads or writes an illegal address (or traps, or misaligns an access) does not fail its own
//! launch: the launch was queued long before. The fault surfaces at whatever driver call comes next, often a
//! copy to the host, and from then on every call of the context fails the same way. The runtime therefore
//! remembers the last kernel launched on each stream; when a call reports a sticky code it marks the device
//! poisoned, with that kernel's name, and every later call on the device fails fast with the same
//! [`Error::DevicePoisoned`] (instead of a driver error naming `cuMemcpyDtoH`). [`crate::Gpu::reopen`] gives
//! the device a fresh context.
//!
//! The state machine is `Healthy → Poisoned(first fault)`; later faults do not replace the first, and only a
//! reopen (a new device state) leaves `Poisoned`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys::CUresult;
use evo_core::{Error, Result};

/// Whether `code` is one of the driver's sticky errors, after which the context cannot be used again.
pub(crate) fn is_sticky(code: CUresult) -> bool {
    matches!(
        code,
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS
            | CUresult::CUDA_ERROR_LAUNCH_FAILED
            | CUresult::CUDA_ERROR_MISALIGNED_ADDRESS
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUresult::CUDA_ERROR_INVALID_PC
            | CUresult::CUDA_ERROR_ASSERT
            | CUresult::CUDA_ERROR_LAUNCH_TIMEOUT
            | CUresult::CUDA_ERROR_ECC_UNCORRECTABLE
    )
}

/// What the driver reported when the device was poisoned.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Poison {
    kernel: Arc<str>,
    fault: String,
    call: String,
}

/// The last kernels launched on one device, per stream and overall.
#[derive(Debug)]
struct LastKernels {
    overall: Arc<str>,
    by_stream: HashMap<usize, Arc<str>>,
}

/// The fault bookkeeping of one device.
#[derive(Debug)]
pub(crate) struct Faults {
    device: usize,
    last: Mutex<LastKernels>,
    poison: OnceLock<Poison>,
}

/// The name given when no kernel was launched before a fault.
const NO_KERNEL: &str = "(no kernel launched yet)";

impl Faults {
    /// A healthy device `device` that has launched nothing.
    pub(crate) fn new(device: usize) -> Self {
        Self {
            device,
            last: Mutex::new(LastKernels {
                overall: Arc::from(NO_KERNEL),
                by_stream: HashMap::new(),
            }),
            poison: OnceLock::new(),
        }
    }

    /// Records that `kernel` was queued on `stream` (a stream handle as an integer).
    pub(crate) fn launched(&self, stream: usize, kernel: &Arc<str>) {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        last.overall = kernel.clone();
        last.by_stream.insert(stream, kernel.clone());
    }

    /// The last kernel launched on `stream`, or on the device when that stream launched none (or when no
    /// stream is known: a context-wide wait).
    pub(crate) fn last_kernel(&self, stream: Option<usize>) -> Arc<str> {
        let last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        stream
            .and_then(|s| last.by_stream.get(&s))
            .unwrap_or(&last.overall)
            .clone()
    }

    /// `Ok` while healthy; the poisoned error once a sticky fault was seen.
    pub(crate) fn check(&self) -> Result<()> {
        match self.poison.get() {
            None => Ok(()),
            Some(poison) => Err(self.error(poison)),
        }
    }

    /// Whether a sticky fault was seen.
    pub(crate) fn is_poisoned(&self) -> bool {
        self.poison.get().is_some()
    }

    /// The kernel and fault that poisoned the device, once it is poisoned.
    pub(crate) fn poison_parts(&self) -> Option<(String, String)> {
        self.poison
            .get()
            .map(|p| (p.kernel.to_string(), p.fault.clone()))
    }

    /// For a failed `call` that returned `code` (described by `fault`) on `stream`: when the code is sticky,
    /// poisons the device (the first fault is kept) and returns the poisoned error; otherwise `None`.
    pub(crate) fn sticky(
        &self,
        call: &str,
        code: CUresult,
        fault: impl FnOnce() -> String,
        stream: Option<usize>,
    ) -> Option<Error> {
        if !is_sticky(code) {
            return None;
        }
        let poison = self.poison.get_or_init(|| Poison {
            kernel: self.last_kernel(stream),
            fault: fault(),
            call: call.to_string(),
        });
        tracing::error!(device = self.device, kernel = %poison.kernel, "the device is poisoned by a sticky fault");
        Some(self.error(poison))
    }

    fn error(&self, poison: &Poison) -> Error {
        Error::DevicePoisoned {
            device: self.device,
            kernel: poison.kernel.to_string(),
            fault: poison.fault.clone(),
            call: poison.call.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> Arc<str> {
        Arc::from(s)
    }

    #[test]
    fn sticky_codes_are_the_context_killing_ones() {
        for code in [
            CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            CUresult::CUDA_ERROR_LAUNCH_FAILED,
            CUresult::CUDA_ERROR_MISALIGNED_ADDRESS,
            CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
            CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR,
            CUresult::CUDA_ERROR_ASSERT,
        ] {
            assert!(is_sticky(code), "{code:?}");
        }
        for code in [
            CUresult::CUDA_SUCCESS,
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            CUresult::CUDA_ERROR_INVALID_VALUE,
            CUresult::CUDA_ERROR_INVALID_PTX,
            CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
        ] {
            assert!(!is_sticky(code), "{code:?}");
        }
    }

    #[test]
    fn a_healthy_device_passes_and_ordinary_errors_do_not_poison() {
        let faults = Faults::new(0);
        assert!(faults.check().is_ok());
        let ordinary = faults.sticky(
            "cuMemAlloc",
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            || "out of memory".into(),
            None,
        );
        assert!(ordinary.is_none());
        assert!(!faults.is_poisoned());
        assert!(faults.check().is_ok());
    }

    #[test]
    fn a_sticky_fault_names_the_last_kernel_of_its_stream_and_poisons_for_good() {
        let faults = Faults::new(3);
        faults.launched(10, &name("de_generation_f32"));
        faults.launched(20, &name("reduce_sum_f64"));
        let first = faults
            .sticky(
                "cuMemcpyDtoH",
                CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
                || "CUDA_ERROR_ILLEGAL_ADDRESS".into(),
                Some(10),
            )
            .unwrap();
        match &first {
            Error::DevicePoisoned {
                device,
                kernel,
                fault,
                call,
            } => {
                assert_eq!(*device, 3);
                assert_eq!(kernel, "de_generation_f32");
                assert_eq!(fault, "CUDA_ERROR_ILLEGAL_ADDRESS");
                assert_eq!(call, "cuMemcpyDtoH");
            }
            other => panic!("{other:?}"),
        }
        assert!(first.to_string().contains("Gpu::reopen(3)"), "{first}");
        // Every later call fails fast with the same error, whatever happens meanwhile.
        faults.launched(10, &name("later_kernel"));
        let again = faults
            .sticky(
                "cuStreamSynchronize",
                CUresult::CUDA_ERROR_LAUNCH_FAILED,
                || "other".into(),
                Some(20),
            )
            .unwrap();
        assert_eq!(again.to_string(), first.to_string());
        assert_eq!(faults.check().unwrap_err().to_string(), first.to_string());
        assert!(faults.is_poisoned());
    }

    #[test]
    fn a_fault_on_a_quiet_stream_names_the_device_wide_last_kernel() {
        let faults = Faults::new(0);
        assert_eq!(&*faults.last_kernel(Some(1)), NO_KERNEL);
        faults.launched(1, &name("a"));
        faults.launched(2, &name("b"));
        assert_eq!(&*faults.last_kernel(Some(1)), "a");
        assert_eq!(&*faults.last_kernel(Some(7)), "b");
        assert_eq!(&*faults.last_kernel(None), "b");
    }
}
