//! Portable math: every function of `evo_core::math` equals its `common/math.cuh` twin bit for bit over
//! 10^7 inputs per function and precision (subnormals, huge arguments, NaN and ±inf included), at two block
//! sizes.

use evo_core::math::MathFunction;
use evo_equivalence::equivalence_test;
use evo_equivalence::suite::math::{INPUTS_PER_FUNCTION, check_f32, check_f64};

macro_rules! math_test {
    ($name:ident, $check:ident, $function:expr) => {
        equivalence_test!($name, [128, 256], |gpu, block| {
            for report in $check(gpu, $function, INPUTS_PER_FUNCTION, &[block]) {
                report.assert_passed();
            }
        });
    };
}

math_test!(sin_f32_should_match_cpu, check_f32, MathFunction::Sin);
math_test!(cos_f32_should_match_cpu, check_f32, MathFunction::Cos);
math_test!(exp_f32_should_match_cpu, check_f32, MathFunction::Exp);
math_test!(log_f32_should_match_cpu, check_f32, MathFunction::Log);
math_test!(pow_f32_should_match_cpu, check_f32, MathFunction::Pow);
math_test!(sin_f64_should_match_cpu, check_f64, MathFunction::Sin);
math_test!(cos_f64_should_match_cpu, check_f64, MathFunction::Cos);
math_test!(exp_f64_should_match_cpu, check_f64, MathFunction::Exp);
math_test!(log_f64_should_match_cpu, check_f64, MathFunction::Log);
math_test!(pow_f64_should_match_cpu, check_f64, MathFunction::Pow);

equivalence_test!(
    fast_profile_math_should_stay_within_the_cuda_bounds,
    [128, 256],
    |gpu, block| {
        for report in evo_equivalence::suite::fast_math::check_at(gpu, block) {
            report.assert_passed();
        }
    }
);
