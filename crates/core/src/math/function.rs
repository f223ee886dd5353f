//! [`MathFunction`]: the portable functions as values, for the equivalence suite and the benches.

use super::{
    cos_f32, cos_f64, exp_f32, exp_f64, log_f32, log_f64, pow_f32, pow_f64, sin_f32, sin_f64,
};

/// One portable math function. The discriminant is the `function` field of the `math` kernel module's
/// `MathEvalParams` (`kernels/cuda/math.cu`), so the CPU and CUDA sides select the same function.
/// CUDA twin: `evo_math_function_apply_f32` / `evo_math_function_apply_f64` in `kernels/common/math.cuh`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MathFunction {
    /// [`sin_f32`] / [`sin_f64`].
    Sin = 0,
    /// [`cos_f32`] / [`cos_f64`].
    Cos = 1,
    /// [`exp_f32`] / [`exp_f64`].
    Exp = 2,
    /// [`log_f32`] / [`log_f64`].
    Log = 3,
    /// [`pow_f32`] / [`pow_f64`]: x^y, the only function that reads its second argument.
    Pow = 4,
}

impl MathFunction {
    /// Every function, in discriminant order.
    pub const ALL: [MathFunction; 5] = [Self::Sin, Self::Cos, Self::Exp, Self::Log, Self::Pow];

    /// The function's short name (`"sin"`), as used in test and bench ids.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Sin => "sin",
            Self::Cos => "cos",
            Self::Exp => "exp",
            Self::Log => "log",
            Self::Pow => "pow",
        }
    }

    /// Whether the function reads its second argument `y` (only [`MathFunction::Pow`] does).
    pub const fn is_binary(self) -> bool {
        matches!(self, Self::Pow)
    }

    /// Applies the `f32` version to x (and y for `Pow`; the unary functions ignore y).
    /// CUDA twin: `evo_math_function_apply_f32`.
    pub fn apply_f32(self, x: f32, y: f32) -> f32 {
        match self {
            Self::Sin => sin_f32(x),
            Self::Cos => cos_f32(x),
            Self::Exp => exp_f32(x),
            Self::Log => log_f32(x),
            Self::Pow => pow_f32(x, y),
        }
    }

    /// Applies the `f64` version to x (and y for `Pow`; the unary functions ignore y).
    /// CUDA twin: `evo_math_function_apply_f64`.
    pub fn apply_f64(self, x: f64, y: f64) -> f64 {
        match self {
            Self::Sin => sin_f64(x),
            Self::Cos => cos_f64(x),
            Self::Exp => exp_f64(x),
            Self::Log => log_f64(x),
            Self::Pow => pow_f64(x, y),
        }
    }
}

impl std::fmt::Display for MathFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
