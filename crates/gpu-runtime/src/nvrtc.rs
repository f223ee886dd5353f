//! NVRTC: compiling a kernel module to PTX with the workspace's header table and compile profiles.

use std::ffi::{CString, c_char, c_int};
use std::sync::OnceLock;

use cudarc::nvrtc::{result, sys};
use evo_core::{Error, Result};

/// How a module is compiled. Every result computed under [`Profile::Fast`] must say so.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Profile {
    /// IEEE arithmetic with no contraction: `--fmad=false --prec-div=true --prec-sqrt=true --ftz=false`.
    /// The default, and the only profile the equivalence suite accepts: with the portable math of
    /// `common/math.cuh`, results are bit-identical to the CPU engines.
    #[default]
    Exact,
    /// `--use_fast_math`: contraction, flush-to-zero, approximate division and square root, and the CUDA
    /// intrinsics (`__cosf`, ...) that the GA paper used. Faster; not bit-identical to the CPU.
    Fast,
}

impl Profile {
    /// The profile's name as written in reports ("exact", "fast").
    pub fn name(self) -> &'static str {
        match self {
            Profile::Exact => "exact",
            Profile::Fast => "fast",
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether the NVRTC library can be loaded on this machine.
pub fn nvrtc_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to dlopen the library's candidate names and closes them again.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

fn require_nvrtc() -> Result<()> {
    if nvrtc_present() {
        Ok(())
    } else {
        Err(Error::Driver {
            call: "load the NVRTC library".into(),
            message: "libnvrtc was not found on the library path; install the CUDA toolkit, or \
                      `pip install nvidia-cuda-nvrtc-cu12` and add its nvidia/cuda_nvrtc/lib to LD_LIBRARY_PATH"
                .into(),
        })
    }
}

/// NVRTC's version (major, minor).
pub fn nvrtc_version() -> Result<(i32, i32)> {
    require_nvrtc()?;
    static VERSION: OnceLock<std::result::Result<(i32, i32), String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let (mut major, mut minor) = (0 as c_int, 0 as c_int);
            // SAFETY: both out-pointers are valid for the duration of the call.
            unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
                .result()
                .map(|()| (major, minor))
                .map_err(|e| format!("{e:?}"))
        })
        .clone()
        .map_err(|message| Error::Driver {
            call: "nvrtcVersion".into(),
            message,
        })
}

/// The virtual architecture NVRTC compiles PTX for, from `sm_90`, `compute_90` or `90`.
pub fn virtual_arch(arch: &str) -> Result<String> {
    let digits = arch
        .strip_prefix("sm_")
        .or_else(|| arch.strip_prefix("compute_"))
        .unwrap_or(arch);
    let valid = digits.len() >= 2 && digits.chars().all(|c| c.is_ascii_digit());
    if !valid {
        return Err(Error::invalid_parameter(
            "NVRTC",
            "architecture",
            arch,
            "of the form sm_XY, compute_XY or XY (for example sm_90)",
        ));
    }
    Ok(format!("compute_{digits}"))
}

/// The NVRTC options of `profile` for `arch`.
pub fn compile_options(profile: Profile, arch: &str) -> Result<Vec<String>> {
    let mut options = vec![
        format!("--gpu-architecture={}", virtual_arch(arch)?),
        "-std=c++17".to_string(),
    ];
    match profile {
        Profile::Exact => options.extend(
            [
                "--fmad=false",
                "--prec-div=true",
                "--prec-sqrt=true",
                "--ftz=false",
                "-DEVO_PROFILE_EXACT=1",
            ]
            .map(String::from),
        ),
        Profile::Fast => {
            options.extend(["--use_fast_math", "-DEVO_PROFILE_FAST=1"].map(String::from))
        }
    }
    Ok(options)
}

/// Compiles `source` (named `name` in errors) to PTX, with every header of `evo_kernels::HEADERS` available to
/// `#include "..."`. A rejected source gives [`Error::KernelCompile`] carrying NVRTC's log.
pub fn compile_to_ptx(name: &str, source: &str, profile: Profile, arch: &str) -> Result<String> {
    require_nvrtc()?;
    let options = compile_options(profile, arch)?;
    let compile_error = |log: String| Error::KernelCompile {
        kernel: name.to_string(),
        arch: arch.to_string(),
        options: options.join(" "),
        log,
    };
    let c_source =
        CString::new(source).map_err(|_| compile_error("the source contains a NUL byte".into()))?;
    let c_name = CString::new(format!("{name}.cu"))
        .map_err(|_| compile_error("the name contains a NUL byte".into()))?;
    let headers: Vec<CString> = evo_kernels::HEADERS
        .iter()
        .map(|h| CString::new(h.source))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| compile_error("a header contains a NUL byte".into()))?;
    let include_names: Vec<CString> = evo_kernels::HEADERS
        .iter()
        .map(|h| CString::new(h.name))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| compile_error("a header name contains a NUL byte".into()))?;
    let header_ptrs: Vec<*const c_char> = headers.iter().map(|h| h.as_ptr()).collect();
    let include_ptrs: Vec<*const c_char> = include_names.iter().map(|h| h.as_ptr()).collect();
    let header_count = c_int::try_from(header_ptrs.len()).map_err(|_| {
        compile_error(format!(
            "{} headers; NVRTC accepts at most {}",
            header_ptrs.len(),
            c_int::MAX
        ))
    })?;

    let mut program = std::mem::MaybeUninit::uninit();
    // SAFETY: every pointer refers to a NUL-terminated string that outlives the program (they live until the
    // end of this function, after `destroy_program`); the two arrays have `HEADERS.len()` entries each.
    unsafe {
        sys::nvrtcCreateProgram(
            program.as_mut_ptr(),
            c_source.as_ptr(),
            c_name.as_ptr(),
            header_count,
            header_ptrs.as_ptr(),
            include_ptrs.as_ptr(),
        )
    }
    .result()
    .map_err(|e| Error::Driver {
        call: format!("nvrtcCreateProgram for `{name}`"),
        message: format!("{e:?}"),
    })?;
    // SAFETY: nvrtcCreateProgram succeeded, so the program is initialised.
    let program = unsafe { program.assume_init() };

    // SAFETY: `program` was created above and is destroyed only at the end of this function.
    let compiled = unsafe { result::compile_program(program, &options) };
    // SAFETY: as above; the log exists whether or not the compilation succeeded.
    let log = unsafe { result::get_program_log(program) }
        .map(|chars| c_chars_to_string(&chars))
        .unwrap_or_default();
    let ptx = match compiled {
        // SAFETY: as above; the program compiled, so it has PTX.
        Ok(()) => unsafe { result::get_ptx(program) }
            .map(|chars| c_chars_to_string(&chars))
            .map_err(|e| compile_error(format!("nvrtcGetPTX failed: {e:?}"))),
        Err(_) => Err(compile_error(if log.is_empty() {
            "(NVRTC gave no log)".into()
        } else {
            log.clone()
        })),
    };
    // SAFETY: `program` is valid and not used after this call.
    let destroyed = unsafe { result::destroy_program(program) };
    if let Err(e) = destroyed {
        tracing::warn!(module = name, "nvrtcDestroyProgram failed: {e:?}");
    }
    if ptx.is_ok() && log.contains("warning") {
        tracing::warn!(module = name, "NVRTC warnings:\n{log}");
    }
    ptx
}

fn c_chars_to_string(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architectures_are_normalised_to_virtual_ones() {
        assert_eq!(virtual_arch("sm_90").unwrap(), "compute_90");
        assert_eq!(virtual_arch("compute_80").unwrap(), "compute_80");
        assert_eq!(virtual_arch("70").unwrap(), "compute_70");
    }

    #[test]
    fn malformed_architecture_is_a_typed_error() {
        let error = virtual_arch("hopper").unwrap_err();
        assert!(error.to_string().contains("sm_XY"), "{error}");
    }

    #[test]
    fn exact_profile_disables_contraction_and_approximations() {
        let options = compile_options(Profile::Exact, "sm_90").unwrap();
        for expected in [
            "--fmad=false",
            "--prec-div=true",
            "--prec-sqrt=true",
            "--ftz=false",
        ] {
            assert!(options.iter().any(|o| o == expected), "missing {expected}");
        }
        assert!(!options.iter().any(|o| o.contains("fast")));
    }
}
