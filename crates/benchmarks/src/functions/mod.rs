//! The base functions every family is built from, one file each, as functions of a coordinate accessor
//! `z(i)` (already shifted, permuted or rotated by the caller) so that the GA, MA-SW-Chains, CEC 2010 and DE
//! problems share one definition of each formula.
//!
//! Every function is a sum (or product) of per-coordinate terms combined by the canonical tree of
//! [`evo_core::reduce`] (or [`crate::tree`]); each `*_term` function is the scalar the CUDA twin in
//! `kernels/common/problems/*.cuh` computes per coordinate, with the same operations in the same order, and
//! transcendental functions come from [`evo_core::math`] (except the Rastrigin and Griewank cosines,
//! [`rastrigin::rastrigin_wave`] and [`griewank::griewank_cos`], minimax polynomials with explicit fused
//! multiply-adds), so the GPU's Exact profile gives the same bits.

/// Defines `pub fn $name` running `$portable`, compiled with the `fma` target feature when the build does not
/// enable it and the x86-64 CPU has it (checked at run time), so that `mul_add` is one instruction instead of
/// a call to the C library's `fma`; both are correctly rounded, so the bits do not depend on the path.
macro_rules! with_fma {
    ($(#[$meta:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $portable:ident;) => {
        $(#[$meta])*
        #[inline]
        pub fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
            {
                /// The portable function compiled with the `fma` target feature.
                ///
                /// # Safety
                /// The CPU must support the FMA instructions.
                #[target_feature(enable = "fma")]
                unsafe fn compiled_with_fma($($arg: $ty),*) $(-> $ret)? {
                    $portable($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("fma") {
                    // SAFETY: the CPU supports the FMA instructions (checked just above).
                    return unsafe { compiled_with_fma($($arg),*) };
                }
            }
            $portable($($arg),*)
        }
    };
}

pub mod ackley;
pub mod discus;
pub mod elliptic;
pub mod griewank;
pub mod rastrigin;
pub mod rosenbrock;
pub mod salomon;
pub mod schwefel;
pub mod schwefel_1_2;
pub mod sphere;
pub mod step;
pub mod sum_squares;

/// 2π as a double (`0x401921FB54442D18`); the CUDA twin writes the same value as a hexadecimal literal.
pub const TWO_PI: f64 = f64::from_bits(0x4019_21FB_5444_2D18);
/// Euler's number e as a double (`0x4005BF0A8B145769`).
pub const E: f64 = f64::from_bits(0x4005_BF0A_8B14_5769);
