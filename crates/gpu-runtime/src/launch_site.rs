//! The checks a typed launch function makes before it launches, in one vocabulary: a buffer's length against
//! what the parameters need and a size as the `u32` a kernel takes, each error naming the component, the
//! kernel and the buffer; and the kernel itself, looked up by its registered [`EntryPoint`].

use evo_core::{Error, Result};
use evo_kernels::EntryPoint;

use crate::device::Gpu;
use crate::modules::Kernel;
use crate::nvrtc::Profile;

/// Checks that the buffer `buffer` of `kernel` holds exactly `want` elements (`got`).
///
/// # Errors
/// [`Error::InvalidParameter`] from `component` naming the buffer, its length with the kernel, and `want`.
pub fn check_len(
    component: &'static str,
    kernel: &str,
    buffer: &'static str,
    got: usize,
    want: usize,
) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            component,
            buffer,
            format!("{got} (in {kernel})"),
            want,
        ))
    }
}

/// Checks that the buffer `buffer` of `kernel` holds at least `least` elements (`got`).
///
/// # Errors
/// [`Error::InvalidParameter`] from `component` naming the buffer, its length with the kernel, and `least`.
pub fn check_len_at_least(
    component: &'static str,
    kernel: &str,
    buffer: &'static str,
    got: usize,
    least: usize,
) -> Result<()> {
    if got >= least {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            component,
            buffer,
            format!("{got} (in {kernel})"),
            format!("at least {least}"),
        ))
    }
}

/// One typed launch function's kernel and the component its errors come from: the checks above with both
/// names filled in, and the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchSite {
    component: &'static str,
    entry: EntryPoint,
}

impl LaunchSite {
    /// The launch of `entry` by `component` ("GA", "evo-sort").
    pub const fn new(component: &'static str, entry: EntryPoint) -> Self {
        Self { component, entry }
    }

    /// The entry point launched.
    pub const fn entry(self) -> EntryPoint {
        self.entry
    }

    /// [`check_len`] for this kernel.
    ///
    /// # Errors
    /// As [`check_len`].
    pub fn check_len(self, buffer: &'static str, got: usize, want: usize) -> Result<()> {
        check_len(self.component, self.entry.name(), buffer, got, want)
    }

    /// [`check_len_at_least`] for this kernel.
    ///
    /// # Errors
    /// As [`check_len_at_least`].
    pub fn check_len_at_least(self, buffer: &'static str, got: usize, least: usize) -> Result<()> {
        check_len_at_least(self.component, self.entry.name(), buffer, got, least)
    }

    /// `value` as the `u32` the kernel takes for `what`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `what`, the value with the kernel, and `u32::MAX`.
    pub fn to_u32(self, what: &'static str, value: usize) -> Result<u32> {
        u32::try_from(value).map_err(|_| {
            Error::invalid_parameter(
                self.component,
                what,
                format!("{value} (in {})", self.entry),
                format!("at most {}", u32::MAX),
            )
        })
    }

    /// The kernel, compiled under `profile`.
    ///
    /// # Errors
    /// As [`Gpu::kernel`].
    pub fn kernel(self, gpu: &Gpu, profile: Profile) -> Result<Kernel> {
        gpu.entry_point(self.entry, profile)
    }
}

impl Gpu {
    /// The kernel `entry` of its registered module, compiled under `profile` (as [`Gpu::kernel`] with the
    /// entry's module and name).
    ///
    /// # Errors
    /// As [`Gpu::kernel`].
    pub fn entry_point(&self, entry: EntryPoint, profile: Profile) -> Result<Kernel> {
        self.kernel(entry.module(), entry.name(), profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evo_kernels::entry::ga;

    fn message(result: Result<impl std::fmt::Debug>) -> String {
        result.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn an_exact_length_passes_and_any_other_names_kernel_and_buffer() {
        let site = LaunchSite::new("GA", ga::INIT_U32);
        assert!(site.check_len("population length", 64, 64).is_ok());
        for got in [63, 65] {
            let text = message(site.check_len("population length", got, 64));
            assert!(
                text.contains("GA")
                    && text.contains("population length")
                    && text.contains(&format!("{got} (in ga_init_u32)"))
                    && text.contains("64"),
                "{text}"
            );
        }
    }

    #[test]
    fn a_minimum_length_accepts_longer_buffers_only() {
        let site = LaunchSite::new("GA", ga::DECODE_F32);
        assert!(site.check_len_at_least("decoded length", 10, 10).is_ok());
        assert!(site.check_len_at_least("decoded length", 11, 10).is_ok());
        let text = message(site.check_len_at_least("decoded length", 9, 10));
        assert!(
            text.contains("9 (in ga_decode_f32)") && text.contains("at least 10"),
            "{text}"
        );
    }

    #[test]
    fn sizes_beyond_u32_are_refused_with_the_kernel() {
        let site = LaunchSite::new("evo-sort", ga::COPY_U32);
        assert_eq!(site.to_u32("rows", 7).ok(), Some(7));
        let too_big = u32::MAX as usize + 1;
        let text = message(site.to_u32("rows", too_big));
        assert!(
            text.contains("rows")
                && text.contains(&format!("{too_big} (in ga_copy_u32)"))
                && text.contains("at most 4294967295"),
            "{text}"
        );
    }

    #[test]
    fn the_free_checks_take_any_kernel_name() {
        assert!(check_len("DE", "user", "x", 3, 3).is_ok());
        let text = message(check_len_at_least("DE", "a user kernel", "x", 2, 3));
        assert!(text.contains("2 (in a user kernel)"), "{text}");
    }
}
