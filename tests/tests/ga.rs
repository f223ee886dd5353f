//! evo-ga on the GPU equals evo-ga on the CPU: snapshots after every generation (suite::ga).

use evo_benchmarks::ga_functions::GaFunction;
use evo_equivalence::equivalence_test;
use evo_equivalence::suite::ga::{GENERATIONS, check_batch, check_engine};

equivalence_test!(ga_cuda_engine_should_match_cpu, [128, 256], |gpu, block| {
    for function in GaFunction::ALL {
        check_engine(gpu, function, 32, GENERATIONS, block).assert_passed();
    }
});

equivalence_test!(
    ga_batched_runs_should_match_cpu,
    [128, 256],
    |gpu, block| {
        check_batch(gpu, GaFunction::Rastrigin, 32, 3, 60, block).assert_passed();
        check_batch(gpu, GaFunction::Ridge, 128, 3, 30, block).assert_passed();
    }
);

// Five generations of the pipeline and of a 4-run batch: the cases `compute-sanitizer --tool racecheck`
// finishes.
equivalence_test!(ga_short_runs_should_match_cpu, [128], |gpu, block| {
    use evo_benchmarks::ga_functions::GaFunction;
    use evo_equivalence::suite::ga::{check_batch, check_engine};
    check_engine(gpu, GaFunction::Griewank, 32, 5, block).assert_passed();
    check_batch(gpu, GaFunction::Rastrigin, 32, 4, 5, block).assert_passed();
});
