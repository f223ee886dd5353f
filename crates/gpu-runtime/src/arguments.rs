//! A launch's arguments checked against the kernel's parameter list as the driver reports it
//! (`cuFuncGetParamInfo`): a launch that passes fewer, more or differently sized arguments than the kernel
//! declares is a typed error before the driver, which would read past the argument array, sees it.

use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaFunction, DriverError, sys};
use evo_core::{Error, Result};

/// The bytes of one buffer argument: a device pointer.
pub(crate) const POINTER_BYTES: usize = size_of::<sys::CUdeviceptr>();

/// One argument of a launch, as the check sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Argument {
    /// A device buffer, passed as one pointer.
    Buffer,
    /// A parameter struct of this many bytes (its `size_of`, not the launch's larger storage), by value.
    Params(usize),
}

impl Argument {
    /// The bytes the argument occupies in the kernel's parameter list.
    fn bytes(self) -> usize {
        match self {
            Self::Buffer => POINTER_BYTES,
            Self::Params(bytes) => bytes,
        }
    }

    fn describe(self) -> String {
        match self {
            Self::Buffer => format!("a buffer ({POINTER_BYTES}-byte pointer)"),
            Self::Params(bytes) => format!("a params struct of {bytes} bytes"),
        }
    }
}

/// Checks `arguments` against the kernel's `parameters` (their sizes in bytes, in order): the counts must be
/// equal and each argument the size of its parameter. The error names `kernel`, both lists and the first
/// difference.
pub(crate) fn check_arguments(
    kernel: &str,
    parameters: &[usize],
    arguments: &[Argument],
) -> Result<()> {
    let matching = parameters.len() == arguments.len()
        && parameters
            .iter()
            .zip(arguments)
            .all(|(&parameter, argument)| parameter == argument.bytes());
    if matching {
        return Ok(());
    }
    Err(Error::KernelArguments {
        kernel: kernel.to_string(),
        expected: describe_parameters(parameters),
        given: describe_arguments(parameters, arguments),
    })
}

fn describe_parameters(parameters: &[usize]) -> String {
    match parameters {
        [] => "no parameters".to_string(),
        [one] => format!("1 parameter of {one} bytes"),
        many => {
            let sizes: Vec<String> = many.iter().map(usize::to_string).collect();
            format!("{} parameters of {} bytes", many.len(), sizes.join(", "))
        }
    }
}

fn describe_arguments(parameters: &[usize], arguments: &[Argument]) -> String {
    let list = match arguments {
        [] => "no arguments".to_string(),
        [one] => format!("1 argument: {}", one.describe()),
        many => {
            let each: Vec<String> = many.iter().map(|argument| argument.describe()).collect();
            format!("{} arguments: {}", many.len(), each.join(", "))
        }
    };
    let first_difference = parameters
        .iter()
        .zip(arguments)
        .position(|(&parameter, argument)| parameter != argument.bytes());
    match first_difference {
        Some(index) => format!(
            "{list} (argument {} is {} bytes where the kernel's parameter is {} bytes)",
            index + 1,
            arguments[index].bytes(),
            parameters[index]
        ),
        None => list,
    }
}

/// The sizes in bytes of `function`'s parameters, in order, read from the driver; `None` when the driver
/// predates `cuFuncGetParamInfo` (CUDA 12.4), so the list is unknown and launches go unchecked.
///
/// The function's context must be current on the calling thread.
pub(crate) fn parameter_sizes(
    function: &CudaFunction,
) -> std::result::Result<Option<Arc<[usize]>>, DriverError> {
    if !param_info_present() {
        return Ok(None);
    }
    let mut sizes = Vec::new();
    loop {
        let mut offset = 0usize;
        let mut size = 0usize;
        // SAFETY: the function handle is alive (borrowed), the symbol exists (checked above), and both
        // out-pointers point at locals that outlive the call.
        let result = unsafe {
            sys::cuFuncGetParamInfo(
                function.cu_function(),
                sizes.len(),
                &raw mut offset,
                &raw mut size,
            )
        }
        .result();
        match result {
            Ok(()) => sizes.push(size),
            // The driver's answer for an index past the last parameter: the list is complete.
            Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)) => {
                return Ok(Some(sizes.into()));
            }
            Err(error) => return Err(error),
        }
    }
}

/// Whether the loaded driver library exports `cuFuncGetParamInfo`; cudarc would panic on calling a missing
/// symbol, so its presence is looked up once first.
fn param_info_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only called once a function has been loaded, so the driver library is open; looking a symbol up
    // by name neither calls it nor changes the library.
    *PRESENT.get_or_init(|| unsafe {
        sys::culib()
            .get::<unsafe extern "C" fn()>(b"cuFuncGetParamInfo")
            .is_ok()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;

    fn refusal(parameters: &[usize], arguments: &[Argument]) -> (String, String, String) {
        match check_arguments("probe", parameters, arguments) {
            Err(Error::KernelArguments {
                kernel,
                expected,
                given,
            }) => (kernel, expected, given),
            other => panic!("expected KernelArguments, got {other:?}"),
        }
    }

    #[test]
    fn matching_lists_pass() {
        check_arguments("probe", &[], &[]).unwrap();
        check_arguments(
            "probe",
            &[8, 8, 24],
            &[Argument::Buffer, Argument::Buffer, Argument::Params(24)],
        )
        .unwrap();
        // A params struct of pointer size fills an 8-byte parameter as a buffer does.
        check_arguments("probe", &[8], &[Argument::Params(8)]).unwrap();
    }

    #[test]
    fn two_scalars_passed_as_one_struct_are_refused() {
        let (kernel, expected, given) = refusal(
            &[8, 8, 8, 8],
            &[Argument::Buffer, Argument::Buffer, Argument::Params(16)],
        );
        assert_eq!(kernel, "probe");
        assert_eq!(expected, "4 parameters of 8, 8, 8, 8 bytes");
        assert_eq!(
            given,
            "3 arguments: a buffer (8-byte pointer), a buffer (8-byte pointer), a params struct of 16 \
             bytes (argument 3 is 16 bytes where the kernel's parameter is 8 bytes)"
        );
    }

    #[test]
    fn too_few_and_too_many_arguments_are_refused() {
        let (_, expected, given) = refusal(&[8, 8, 16], &[Argument::Buffer, Argument::Params(16)]);
        assert_eq!(expected, "3 parameters of 8, 8, 16 bytes");
        assert_eq!(
            given,
            "2 arguments: a buffer (8-byte pointer), a params struct of 16 bytes (argument 2 is 16 bytes \
             where the kernel's parameter is 8 bytes)"
        );
        let (_, expected, given) = refusal(&[8], &[Argument::Buffer, Argument::Buffer]);
        assert_eq!(expected, "1 parameter of 8 bytes");
        assert_eq!(
            given,
            "2 arguments: a buffer (8-byte pointer), a buffer (8-byte pointer)"
        );
        let (_, expected, given) = refusal(&[], &[Argument::Params(4)]);
        assert_eq!(expected, "no parameters");
        assert_eq!(given, "1 argument: a params struct of 4 bytes");
        let (_, _, given) = refusal(&[8], &[]);
        assert_eq!(given, "no arguments");
    }

    #[test]
    fn a_struct_of_the_wrong_size_is_refused() {
        let (_, expected, given) = refusal(&[8, 16], &[Argument::Buffer, Argument::Params(12)]);
        assert_eq!(expected, "2 parameters of 8, 16 bytes");
        assert!(
            given.ends_with("(argument 2 is 12 bytes where the kernel's parameter is 16 bytes)"),
            "{given}"
        );
    }

    #[test]
    fn the_message_reminds_of_the_one_struct_rule() {
        let error = check_arguments("squares", &[8, 8], &[Argument::Params(16)]).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("kernel `squares` takes 2 parameters of 8, 8 bytes"),
            "{message}"
        );
        assert!(message.contains("ONE #[repr(C)] struct"), "{message}");
        assert!(message.contains(".params(&p)"), "{message}");
    }
}
