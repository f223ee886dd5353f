//! The canonical reduction: the `reduce_sum_*` kernels equal `evo_core::reduce` bit for bit at every size of
//! `suite::reduce::SIZES`, at two block sizes.

use evo_equivalence::equivalence_test;
use evo_equivalence::suite::reduce::{SIZES, check_sum_f32, check_sum_f64};

equivalence_test!(sum_f64_should_match_cpu, [128, 256], |gpu, block| {
    for n in SIZES {
        check_sum_f64(gpu, n, block).assert_passed();
    }
});

equivalence_test!(sum_f32_to_f64_should_match_cpu, [128, 256], |gpu, block| {
    for n in SIZES {
        check_sum_f32(gpu, n, block).assert_passed();
    }
});
