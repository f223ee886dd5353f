// Portable math: the CUDA twin of `evo_core::math` (crates/core/src/math/).
//
// evo_sin_f32, evo_cos_f32, evo_exp_f32, evo_log_f32, evo_pow_f32 and their _f64 versions give the same bits
// as the Rust functions of the same names (without the `evo_` prefix) for every input, NaN, infinities,
// signed zeros and subnormals included, when the module is compiled with the Exact profile
// (--fmad=false --prec-div=true --prec-sqrt=true --ftz=false, no fast math). That holds because both sides
// run the same sequence of IEEE-754 correctly rounded operations (+ - * / sqrt), exact operations (rint,
// floor, comparisons, bit casts, integer arithmetic) and conversions that are exact or correctly rounded
// (int <-> double in range, float <-> double), and because NaN results are always the canonical constants
// of common/math/constants.cuh rather than whatever NaN the arithmetic would propagate. The algorithms,
// their sources and their measured accuracy are documented once, in crates/core/src/math/mod.rs; the
// comments name the Rust twin of each function. Never call sinf, __expf, fma and friends here: they
// differ from the CPU.
//
// Under the Fast profile (-DEVO_PROFILE_FAST=1, opt-in, never used by the equivalence suite) every evo_*_f32
// function is CUDA's intrinsic instead (__sinf, __cosf, __expf, __logf, __powf: a few instructions on the SFU)
// and every evo_*_f64 function is libdevice's (sin, cos, exp, log, pow); results then differ from the CPU by
// the error bounds of the CUDA Programming Guide, and every result computed so says it used the Fast profile.
//
// The functions live in common/math/{constants,double,pow,single}.cuh, one per Rust file; this header
// includes them all and adds the MathFunction dispatch used by the `math` kernel module.
#pragma once

#include "common/math/single.cuh"

// ---- MathFunction (Rust: math/function.rs). Ids: 0 sin, 1 cos, 2 exp, 3 log, 4 pow; any other id gives the
// canonical NaN (the Rust enum cannot hold one).

// Rust twin: evo_core::math::MathFunction::apply_f32.
__device__ inline float evo_math_function_apply_f32(unsigned int function, float x, float y)
{
    switch (function) {
    case 0u: return evo_sin_f32(x);
    case 1u: return evo_cos_f32(x);
    case 2u: return evo_exp_f32(x);
    case 3u: return evo_log_f32(x);
    case 4u: return evo_pow_f32(x, y);
    default: return evo_math::nan_f32();
    }
}

// Rust twin: evo_core::math::MathFunction::apply_f64.
__device__ inline double evo_math_function_apply_f64(unsigned int function, double x, double y)
{
    switch (function) {
    case 0u: return evo_sin_f64(x);
    case 1u: return evo_cos_f64(x);
    case 2u: return evo_exp_f64(x);
    case 3u: return evo_log_f64(x);
    case 4u: return evo_pow_f64(x, y);
    default: return evo_math::nan_f64();
    }
}
