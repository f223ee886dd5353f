//! MA-SW-Chains: the CUDA engine's snapshots equal the CPU engine's after every cycle (Exact profile) on the
//! paper's six shifted functions, and snapshots cross backends. The kernels use one block size (256 threads;
//! each thread one lane of 4 variables), so each test runs at that size only.

use evo_benchmarks::ShiftedFunction;
use evo_equivalence::equivalence_test;
use evo_equivalence::suite::ma::{
    check_cross_restore, check_lookahead_one, check_run, check_variants,
};

equivalence_test!(ma_runs_d1000_should_match_cpu, [256], |gpu, _block| {
    for function in ShiftedFunction::ALL {
        check_run(gpu, function, 1_000).assert_passed();
    }
});

equivalence_test!(ma_runs_d100000_should_match_cpu, [256], |gpu, _block| {
    for function in ShiftedFunction::ALL {
        check_run(gpu, function, 100_000).assert_passed();
    }
});

equivalence_test!(ma_variants_should_match_cpu, [256], |gpu, _block| {
    for report in check_variants(gpu) {
        report.assert_passed();
    }
});

equivalence_test!(ma_lookahead_one_should_match_cpu, [256], |gpu, _block| {
    check_lookahead_one(gpu).assert_passed();
});

equivalence_test!(ma_snapshots_should_cross_backends, [256], |gpu, _block| {
    check_cross_restore(gpu).assert_passed();
});

equivalence_test!(
    ma_too_large_for_the_device_is_refused_before_any_work,
    [256],
    |gpu, _block| {
        use evo_benchmarks::ShiftedProblem;
        use evo_core::Error;
        use evo_ma_sw_chains::{MaCuda, MaParams};
        // 2000 individuals of 10^7 variables: 2·2000·10^7·4 bytes = 160 GB for the population and the chains.
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 10_000_000).unwrap();
        let params = MaParams::new()
            .with_max_evaluations(10_000)
            .unwrap()
            .with_population(2_000)
            .unwrap();
        let before = gpu.buffer_pool_stats().device_allocations;
        let error = MaCuda::new(params, &problem, 1, gpu).err().unwrap();
        assert!(matches!(error, Error::GpuOutOfMemory { .. }), "{error}");
        assert_eq!(
            gpu.buffer_pool_stats().device_allocations,
            before,
            "nothing was allocated"
        );
    }
);

// A two-cycle run at D = 256: the case `compute-sanitizer --tool racecheck` finishes (the runs above outlast it).
equivalence_test!(ma_short_run_should_match_cpu, [256], |gpu, _block| {
    evo_equivalence::suite::ma::check_short_run(
        gpu,
        evo_benchmarks::ShiftedFunction::Rastrigin,
        256,
        2_000,
    )
    .assert_passed();
});
