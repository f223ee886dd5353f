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

use evo_core::math::NAN_F64;

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

/// `cos(π u)` for users' problems: Griewank's cosine ([`griewank::griewank_cos`]), within 2.63e-16 of the
/// exact value in absolute terms (not relative: near the zeros `u = k + 1/2` the result is a few 1e-16 off
/// zero), one polynomial whatever the quadrant, and a NaN or infinite `u` gives [`NAN_F64`].
///
/// The twin of `evo_cos_pi_f64`, which user CUDA sources ([`crate::cuda::UserProblem`],
/// [`crate::cuda::UserFunction`]) may call: the same bits on the CPU and on the GPU under the Exact profile.
/// It is cheaper than `evo_cos_f64(π·u)`: 13 f64 operations, a reduction (`u − rint(u)`) that rounds
/// nothing and no branch on the quadrant, where the general cosine reduces by π/2 in up to three steps. Rastrigin's `cos(2πz)` is `cos_pi(2.0 * z)` (the doubling is exact).
///
/// ```
/// use evo_benchmarks::functions::cos_pi;
///
/// assert_eq!(cos_pi(0.0), 1.0);
/// assert_eq!(cos_pi(3.0), -1.0);
/// assert!(cos_pi(0.5).abs() < 3e-16);
/// assert!((cos_pi(1.0 / 3.0) - 0.5).abs() < 3e-16);
/// assert_eq!(cos_pi(f64::INFINITY).to_bits(), evo_core::math::NAN_F64.to_bits());
/// ```
#[inline]
pub fn cos_pi(u: f64) -> f64 {
    if !u.is_finite() {
        return NAN_F64;
    }
    griewank::griewank_cos(u)
}

/// 2π as a double (`0x401921FB54442D18`); the CUDA twin writes the same value as a hexadecimal literal.
pub const TWO_PI: f64 = f64::from_bits(0x4019_21FB_5444_2D18);
/// Euler's number e as a double (`0x4005BF0A8B145769`).
pub const E: f64 = f64::from_bits(0x4005_BF0A_8B14_5769);

#[cfg(test)]
mod tests {
    use super::*;

    /// `cos(π u)` from the exact reduction `r = u − rint(u)` (|r| ≤ 1/2) and std's cosine of `π r`, whose
    /// argument is rounded once (at most 1.1e-16 off, so the reference is within about 2e-16).
    fn reference(u: f64) -> f64 {
        let m = u.round_ties_even();
        let c = (std::f64::consts::PI * (u - m)).cos();
        if m.rem_euclid(2.0) == 1.0 { -c } else { c }
    }

    #[test]
    fn cos_pi_should_be_within_its_absolute_bound_of_the_cosine() {
        // A fixed-seed walk over [−600, 600] and the points next to the quarter periods.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut worst = 0.0f64;
        for _ in 0..100_000 {
            let u = 1200.0 * next() - 600.0;
            worst = worst.max((cos_pi(u) - reference(u)).abs());
        }
        for k in -400..=400 {
            let quarter = f64::from(k) / 4.0;
            for step in -8..=8 {
                let u = quarter + f64::from(step) * 1e-9;
                worst = worst.max((cos_pi(u) - reference(u)).abs());
            }
        }
        // The function's bound (2.63e-16) plus the reference's (about 2e-16).
        assert!(worst < 4.7e-16, "largest absolute error {worst:e}");
    }

    #[test]
    fn cos_pi_should_be_exact_at_integers_and_even() {
        for k in -1000..=1000 {
            let expected = if k % 2 == 0 { 1.0 } else { -1.0 };
            assert_eq!(cos_pi(f64::from(k)), expected, "u = {k}");
        }
        for u in [0.1, 0.37, 2.25, 17.6, 1e6 + 0.3] {
            assert_eq!(cos_pi(u).to_bits(), cos_pi(-u).to_bits(), "u = {u}");
        }
        // Beyond 2^20 the argument is reduced modulo 2 first (exact): 2^40 + 1 is odd.
        assert_eq!(cos_pi(2f64.powi(40) + 1.0), -1.0);
    }

    #[test]
    fn cos_pi_should_give_the_canonical_nan_for_nan_and_infinite_arguments() {
        for u in [
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_dead_beef),
            f64::INFINITY,
            -f64::INFINITY,
        ] {
            assert_eq!(cos_pi(u).to_bits(), NAN_F64.to_bits(), "u = {u:?}");
        }
    }
}
