//! The functions the g's use, named as in C so that the CUDA twin reads the same: the portable `evo_core::math`
//! versions of sin, cos, exp, ln and pow (bit-identical to `kernels/common/math.cuh`), and IEEE `sqrt`/`fabs`.

pub(super) use std::f64::consts::PI;

pub(super) fn sin(x: f64) -> f64 {
    evo_core::math::sin_f64(x)
}

pub(super) fn cos(x: f64) -> f64 {
    evo_core::math::cos_f64(x)
}

pub(super) fn exp(x: f64) -> f64 {
    evo_core::math::exp_f64(x)
}

/// The natural logarithm.
pub(super) fn log(x: f64) -> f64 {
    evo_core::math::log_f64(x)
}

pub(super) fn pow(x: f64, y: f64) -> f64 {
    evo_core::math::pow_f64(x, y)
}

/// Correctly rounded on both sides.
pub(super) fn sqrt(x: f64) -> f64 {
    x.sqrt()
}

pub(super) fn fabs(x: f64) -> f64 {
    x.abs()
}
