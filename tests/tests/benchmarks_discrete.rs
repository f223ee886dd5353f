//! GPU evaluation of the discrete and constrained test problems (knapsack, ETC scheduling, CEC 2006) equals
//! the CPU reference bit for bit (Exact profile), at two block sizes; `suite::benchmarks_discrete` lists the
//! instances.

use evo_equivalence::equivalence_test;
use evo_equivalence::suite::benchmarks_discrete::{
    check_cec2006, check_etc_real, check_etc_schedules, check_knapsack, etc_instances,
    knapsack_instances,
};

equivalence_test!(knapsack_should_match_cpu, [128, 256], |gpu, block| {
    for problem in knapsack_instances() {
        check_knapsack(gpu, &problem, block).assert_passed();
    }
});

equivalence_test!(etc_should_match_cpu, [128, 256], |gpu, block| {
    for instance in etc_instances() {
        check_etc_schedules(gpu, &instance, block).assert_passed();
        check_etc_real(gpu, &instance, block).assert_passed();
    }
});

equivalence_test!(cec2006_should_match_cpu, [128, 256], |gpu, block| {
    for number in 1..=24 {
        check_cec2006(gpu, number, block).assert_passed();
    }
});
