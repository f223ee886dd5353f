//! GPU evaluation of the continuous test problems equals the CPU reference bit for bit (Exact profile), at
//! two block sizes; `suite::benchmarks_continuous` lists the sizes.

use evo_benchmarks::{GaFunction, ShiftedFunction};
use evo_equivalence::equivalence_test;
use evo_equivalence::suite::benchmarks_continuous::{CEC_FUNCTIONS, Case, check_case, check_large};

fn assert_all(reports: Vec<evo_equivalence::suite::CheckReport>) {
    for report in reports {
        report.assert_passed();
    }
}

equivalence_test!(ga_functions_should_match_cpu, [128, 256], |gpu, block| {
    for function in GaFunction::ALL {
        assert_all(check_case(gpu, Case::Ga(function), block));
    }
});

equivalence_test!(de_rastrigin_should_match_cpu, [128, 256], |gpu, block| {
    assert_all(check_case(gpu, Case::DeRastrigin, block));
});

equivalence_test!(
    shifted_functions_should_match_cpu,
    [128, 256],
    |gpu, block| {
        for function in ShiftedFunction::ALL {
            assert_all(check_case(gpu, Case::Shifted(function), block));
        }
    }
);

equivalence_test!(cec2010_should_match_cpu, [128, 256], |gpu, block| {
    for number in CEC_FUNCTIONS {
        assert_all(check_case(gpu, Case::Cec(number), block));
    }
});

equivalence_test!(large_dimensions_should_match_cpu, [256], |gpu, block| {
    assert_all(check_large(gpu, block));
});
