//! Portable transcendental functions: the same bits on the CPU and on the GPU.
//!
//! The benchmark problems (Rastrigin's and Griewank's cosines, Ackley's exponentials, Schwefel's
//! sin(sqrt|x|), CEC 2006's x^0.6, ...) and Box-Muller normal deviates (sqrt(-2 ln u) with sin and cos) need
//! sin, cos, exp, log and pow. Rust's `std` and CUDA's libdevice compute them with different algorithms, so
//! the same population would get different fitness on the two backends. This module and its CUDA twin,
//! `kernels/common/math.cuh`, implement them once, with the same sequence of operations on both sides.
//!
//! | Rust | CUDA twin | max error (measured) |
//! | --- | --- | --- |
//! | [`sin_f32`], [`cos_f32`] | `evo_sin_f32`, `evo_cos_f32` | 0.501 ulp (every `f32` input) |
//! | [`exp_f32`] | `evo_exp_f32` | 0.504 ulp (every `f32` input) |
//! | [`log_f32`] | `evo_log_f32` | 0.501 ulp (every `f32` input) |
//! | [`pow_f32`] | `evo_pow_f32` | 0.503 ulp (sampled) |
//! | [`sin_f64`], [`cos_f64`] | `evo_sin_f64`, `evo_cos_f64` | 0.74 ulp (sampled) |
//! | [`exp_f64`] | `evo_exp_f64` | 0.84 ulp (sampled) |
//! | [`log_f64`] | `evo_log_f64` | 0.65 ulp (sampled) |
//! | [`pow_f64`] | `evo_pow_f64` | 0.81 ulp (sampled) |
//! | [`MathFunction::apply_f32`], [`MathFunction::apply_f64`] | `evo_math_function_apply_f32`, `_f64` | |
//!
//! ```
//! use evo_core::math::{MathFunction, NAN_F32, cos_f32, pow_f64, sin_f32};
//!
//! // Box-Muller with the portable functions gives the same deviate on both backends.
//! let (u1, u2) = (0.25_f32, 0.75_f32);
//! let radius = (-2.0 * evo_core::math::log_f32(u1)).sqrt();
//! let angle = 2.0 * std::f32::consts::PI * u2;
//! let (z0, z1) = (radius * cos_f32(angle), radius * sin_f32(angle));
//! assert!(z0.abs() < 1e-5 && (z1 + 1.665_109_2).abs() < 1e-5);
//!
//! // NaN results are one canonical NaN, whatever the input NaN was.
//! assert_eq!(sin_f32(f32::from_bits(0xffc0_1234)).to_bits(), NAN_F32.to_bits());
//! assert_eq!(pow_f64(-8.0, 1.0 / 3.0).to_bits(), pow_f64(f64::NAN, 2.0).to_bits());
//! assert_eq!(MathFunction::Pow.apply_f64(2.0, 10.0), 1024.0);
//! ```
//!
//! # The contract
//!
//! For every input, NaNs, infinities, signed zeros and subnormals included, the CUDA function compiled with
//! the Exact profile (`--fmad=false --prec-div=true --prec-sqrt=true --ftz=false`, no fast math) returns the
//! same bits as the Rust function. This holds by construction:
//!
//! - Both sides use only IEEE-754 operations that are correctly rounded (`+ - * /`, `sqrt`) or exact (`rint`
//!   = `round_ties_even`, `floor`, comparisons, negation, `fabs`, bit casts, integer arithmetic), in the same
//!   order. Rust never contracts `a * b + c` into a fused multiply-add, and `--fmad=false` stops NVRTC from
//!   doing it; no function here calls `mul_add`/`fma` or any library transcendental.
//! - Conversions are exact or correctly rounded on both sides: `f32 -> f64`, `f64 -> f32` (round to nearest,
//!   subnormals kept since `--ftz=false`), integers below 2^53 to `f64`, and `f64 -> i32` only of values
//!   already proven integral and in range (Rust's `as` saturates and maps NaN to 0 while CUDA's cast is
//!   undefined out of range, so a conversion is never reached by an unchecked value).
//! - Constants are written as bit patterns: `f64::from_bits` here, hexadecimal floating literals of the
//!   same value in CUDA, so no decimal parsing is involved.
//! - A NaN result is always the canonical quiet NaN, [`NAN_F32`] (`0x7fc00000`) or [`NAN_F64`]
//!   (`0x7ff8000000000000`), returned as a constant after an explicit test, never a NaN produced by
//!   arithmetic: x86 propagates an input NaN's payload and sign while the GPU returns its own canonical NaN,
//!   so `x + x` would differ. Operations that could create a NaN inside an algorithm (inf - inf, 0 * inf)
//!   are excluded by the special-case tests that run first, in the same order on both sides.
//!
//! The equivalence suite checks the contract on a GPU (kernel module `math`, entry points
//! `math_eval_f32` and `math_eval_f64`, indexed by [`MathFunction`]).
//!
//! # Algorithms
//!
//! The `f64` functions are Sun's fdlibm (1993-2004, the code behind FreeBSD's, musl's and Java's
//! `StrictMath` libraries), written for machines without fused multiply-add; the `f32` functions compute in
//! `f64` with short polynomials and round once to `f32`.
//!
//! - **sin, cos (`f64`).** |x| <= pi/4 goes straight to the kernels. Below 2^20 pi/2 (about 1.6e6), fdlibm's
//!   Cody-Waite reduction: n = rint(x 2/pi), r = x - n P1 - n P2 - n P3 with pi/2 split into 33-bit parts so
//!   each product is exact; the second and third parts are subtracted only when the previous step cancelled
//!   more than 16 and 49 bits, which keeps 151 bits of pi/2, enough for the doubles closest to multiples of
//!   pi/2. Above, a Payne-Hanek reduction in integer arithmetic (`reduce_pio2.rs`: 53-bit mantissa times a
//!   256-bit window of 2/pi, 128 fraction bits, then an exact Dekker product by pi/2), good to 2^-60
//!   relative for every finite double. The result r = y0 + y1 feeds fdlibm's kernels: odd degree-13 and
//!   even degree-14 Remez polynomials with error below 2^-58, corrected for the tail y1.
//! - **exp (`f64`).** x = k ln2 + r, |r| <= ln2/2, with ln2 in two parts (k ln2_hi exact); e^r =
//!   1 + r + r c / (2 - c) where c = r - r^2 R(r^2) and R is a degree-5 Remez polynomial (error 2^-59);
//!   scaling by 2^k in the exponent field, in two steps (one rounding) for subnormal results.
//!   x > 709.78 gives +inf, x < -745.13 gives +0.
//! - **log (`f64`).** x = 2^k (1 + f) with sqrt(2)/2 <= 1 + f < sqrt(2) (subnormals first scaled by 2^54);
//!   s = f / (2 + f), log(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2))) with a degree-14 Remez polynomial
//!   (error 2^-58.45); k ln2 added in two parts.
//! - **pow (`f64`).** The special values of C99 Annex F first (see [`pow_f64`]), then fdlibm's `e_pow.c`:
//!   log2|x| to about 2^-64 relative as a sum t1 + t2 (t1 with 32 low bits zero, a rational series in
//!   s = (x - b)/(x + b) with b in {1, 1.5} and split products that are exact), y log2|x| as p_h + p_l by
//!   splitting y, overflow and underflow decided on p_h + p_l, and 2^(p_h + p_l) by the exp kernel above.
//!   fdlibm's short series for |y| > 2^31 and |x| within 2^-20 of 1 is replaced by the general path: it
//!   rounds ivln2_h * (x - 1) and was measured 625 ulps off.
//! - **sin, cos (`f32`).** Reduction in `f64`: n = rint(x 2/pi), r = x - n P1 - n P1t with a 25-bit P1
//!   (exact for |n| < 2^28) for |x| < 2^28 pi/2, the `f64` Payne-Hanek reduction above that. Kernels:
//!   FreeBSD's `__kernel_sindf` / `__kernel_cosdf`, degree-9 / degree-8 Remez polynomials in `f64` with
//!   error below 2^-37.5 and 2^-34.1, rounded once to `f32`.
//! - **exp (`f32`).** In `f64`: k = rint(x / ln2), r = x - k ln2 (error below 2^-45), e^r by its degree-8
//!   Taylor polynomial (truncation below 2^-31.7 relative on |r| <= ln2/2), times 2^k, rounded once to `f32`
//!   (which also yields overflow to inf and subnormal results). Arguments above 89 or below -104 are cut
//!   off first: their results round to +inf and +0 anyway.
//! - **log (`f32`).** x = 2^k m with sqrt(2)/2 <= m < sqrt(2) from the bits (subnormals scaled by 2^25);
//!   in `f64`, s = (m - 1)/(m + 1), log m = 2 (s + s^3/3 + ... + s^11/11) (the rest is below 2^-34
//!   relative), plus k ln2, rounded once to `f32`.
//! - **pow (`f32`).** The same Annex F special values as `f64`, then e^(y log|x|) with [`log_f64`] and the
//!   `f64` exponential of [`exp_f32`]: y log|x| is good to about 2^-45 absolute where the result is finite
//!   and nonzero, so the result is within one rounding.
//!
//! Everywhere, y = 2 in pow is `x * x` and y = 0.5 is `sqrt(x)` (both correctly rounded), and integer
//! powers of integers that are representable are exact.
//!
//! # Accuracy
//!
//! The errors in the table are in ulps of the exact result. The unary `f32` functions were run on all 2^32
//! inputs and compared with glibc's `f64` function of the widened argument (itself within about half an
//! `f64` ulp, so the measure is good to 2^-28 `f32` ulp). `pow_f32` and the `f64` functions were compared
//! with mpmath at 1200 bits on 10^4 random arguments per range: sin and cos on [-100, 100], next to
//! multiples of pi/2 and over all huge values; exp over its whole range and over subnormal results; log
//! over all positive bit patterns and near 1; pow for x in (0, 100) and y in (-10, 10), x^0.6, negative
//! bases with integer exponents, bases near 1 with exponents up to 10^10, and x in (1e-5, 1e5) with
//! |y| < 80.
//!
//! The unit tests assert on about 10^5 arguments per function that the `f32` functions stay within 0.51
//! ulp of the `f64` std function of the widened argument and that the `f64` functions stay within one ulp of
//! std. Huge trigonometric arguments are checked against correctly rounded references instead: glibc 2.36's
//! cos of 6381956970095103 * 2^797, the double closest to a multiple of pi/2, is 8 ulps off.
//!
//! The twins were checked twice. `math.cuh` compiled as host C++ (`g++ -ffp-contract=off`, the CUDA
//! intrinsics replaced by bit casts) gave the same bits as this module on all 2^32 inputs of the unary
//! `f32` functions and on 8 * 10^6 argument pairs per precision for all ten functions, special values
//! included. On an H100, the `math` module compiled by NVRTC with the Exact options gave the same bits on
//! all 2^32 inputs of the unary `f32` functions (compared through per-range hashes) and on 6 * 10^5 `f32`
//! and 3 * 10^5 `f64` argument pairs for all ten functions, under two launch shapes. Compiled with
//! `-ftz=true` (which CuPy adds by default), `exp_f32`, `log_f32` and `pow_f32` differ on subnormals: the
//! contract needs `--ftz=false`.

//! # Cost
//!
//! No loop depends on the data. The common path of each function is a few branches on the exponent, one
//! division (sin and cos have none) and a polynomial; the Payne-Hanek reduction (|x| > 1.6e6, or > 4.2e8 for
//! `f32`) is kept out of line on the GPU (`__noinline__`). The `f32` functions compute in `f64`, which runs
//! at half the `f32` rate on the data-center GPUs this project targets (H100, H200) but at 1/32 to 1/64 of
//! it on consumer GPUs; the Fast compile profile (CUDA intrinsics, not bit-identical) exists for those.
//!
//! # Sources
//!
//! The `f64` functions and the `f32` kernels are ported from fdlibm and FreeBSD msun, whose notice is kept
//! in the files that carry the ports: "Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//! Developed at SunSoft, a Sun Microsystems, Inc. business. Permission to use, copy, modify, and distribute
//! this software is freely granted, provided that this notice is preserved."

mod double;
mod function;
mod pow;
mod reduce_pio2;
mod single;
#[cfg(test)]
mod tests;

pub use double::{cos_f64, exp_f64, log_f64, sin_f64};
pub use function::MathFunction;
pub use pow::pow_f64;
pub use single::{cos_f32, exp_f32, log_f32, pow_f32, sin_f32};

/// The NaN every `f32` function returns for a NaN result: the canonical quiet NaN `0x7fc00000`.
/// CUDA twin: `evo_math::NAN_F32`.
pub const NAN_F32: f32 = f32::from_bits(0x7fc0_0000);

/// The NaN every `f64` function returns for a NaN result: the canonical quiet NaN `0x7ff8000000000000`.
/// CUDA twin: `evo_math::NAN_F64`.
pub const NAN_F64: f64 = f64::from_bits(0x7ff8_0000_0000_0000);

/// The high 32 bits of `x`, as a signed integer. CUDA twin: `__double2hiint`.
fn hi_word(x: f64) -> i32 {
    (x.to_bits() >> 32) as u32 as i32
}

/// The low 32 bits of `x`. CUDA twin: `(unsigned int)__double2loint`.
fn lo_word(x: f64) -> u32 {
    x.to_bits() as u32
}

/// The double with high word `hi` and low word `lo`. CUDA twin: `__hiloint2double`.
fn from_words(hi: i32, lo: u32) -> f64 {
    f64::from_bits((u64::from(hi as u32) << 32) | u64::from(lo))
}

/// `x` with its low 32 bits cleared (fdlibm's `SET_LOW_WORD(x, 0)`). CUDA twin: `evo_math::clear_lo`.
fn clear_lo(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & 0xFFFF_FFFF_0000_0000)
}

/// 2^k for -1022 <= k <= 1023, built from its exponent field. CUDA twin: `evo_math::pow2`.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}
