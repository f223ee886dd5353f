//! Separable user terms (evo-benchmarks' `UserFunction`, `evo_user_term(i, z)`) in DE's one-launch generation
//! (issue 29): the built-in Rastrigin's path with the user's term, in a DE module of the user's own
//! (`evo_de::TermFusion`). CPU-side checks (NVRTC compiles the modules, the fused path is selected) run
//! anywhere; GPU checks skip without a device and fail under `EVO_REQUIRE_GPU=1`.

use evo_benchmarks::cuda::UserFunction;
use evo_core::{Bounds, ContinuousProblem, Engine};
use evo_de::{DeCpu, DeCuda, DeParams, DeviceEvaluated, DeviceProblem, FusedEvaluation};
use evo_equivalence::equivalence_test;
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_equivalence::suite::user_real::{
    self, LARGE_DIMENSION, SPLIT_DIMENSION, SPLIT_GENERATIONS, TermCase, TermTwin, check_de_term,
    check_de_term_for, quartic_term, quartic_term_twin, rastrigin_term, rastrigin_term_twin,
};
use evo_gpu_runtime::{Profile, compile_to_ptx};
use evo_kernels::entry::de;

#[test]
fn user_term_modules_should_compile_with_nvrtc() {
    if !nvrtc_or_skip("user_term_modules_should_compile_with_nvrtc") {
        return;
    }
    for problem in [rastrigin_term(30).unwrap(), quartic_term(30).unwrap()] {
        let Some(FusedEvaluation::Term(fusion)) = problem.fused_evaluation() else {
            panic!("{}: not fused as a term", problem.name());
        };
        for profile in [Profile::Exact, Profile::Fast] {
            let ptx = compile_to_ptx(&fusion.module, &fusion.source, profile, "sm_80")
                .unwrap_or_else(|e| panic!("{} {profile:?}: {e}", problem.name()));
            assert!(ptx.contains(de::GENERATION_F32.name()));
        }
    }
}

#[test]
fn a_user_function_should_be_fused_as_a_term_and_wrapped_it_should_not() {
    let problem = rastrigin_term(30).unwrap();
    match problem.fused_evaluation() {
        Some(FusedEvaluation::Term(fusion)) => {
            assert_eq!(fusion.problem, "rastrigin_term");
            assert_eq!(fusion.module, "de_term_user_rastrigin_term");
            assert!(fusion.source.contains("#define EVO_DE_USER_TERM 1"));
            assert!(fusion.source.contains(user_real::RASTRIGIN_TERM_SOURCE));
        }
        other => panic!("expected a term fusion, got {other:?}"),
    }
    // DeviceEvaluated keeps the four-launch path (the user's own choice).
    assert_eq!(DeviceEvaluated(problem).fused_evaluation(), None);
}

/// The CPU engine evaluates a `UserFunction` as the canonical tree of `cpu_term` (the tree the fused
/// generation computes): its snapshots equal those of the same term written as a closure summed by the tree.
#[test]
fn the_cpu_engine_should_sum_a_user_term_with_the_canonical_tree() {
    let d = 3000;
    let params = DeParams::default().with_population(16).unwrap();
    let bounds = Bounds::uniform(d, -2.0, 2.0).unwrap();
    let closure = evo_de::FnProblem::new("tree", bounds, |x: &[f32]| {
        evo_core::reduce::pairwise_sum_by(x.len(), |i| quartic_term_twin(i, f64::from(x[i])))
    });
    let mut term = DeCpu::new(params.clone(), quartic_term(d).unwrap(), 5, 1).unwrap();
    let mut tree = DeCpu::new(params, closure, 5, 1).unwrap();
    for _ in 0..20 {
        term.step().unwrap();
        tree.step().unwrap();
    }
    let (a, b) = (term.snapshot().unwrap(), tree.snapshot().unwrap());
    let bits = |f: &[f64]| f.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a.fitness), bits(&b.fitness));
    assert_eq!(a.population, b.population);
}

equivalence_test!(
    de_user_term_rastrigin_with_cos_pi_should_match_cpu,
    [64, 256],
    |gpu, block| {
        check_de_term(gpu, TermCase::RastriginCosPi, user_real::DIMENSION, block).assert_passed();
        if block == 256 {
            check_de_term(gpu, TermCase::RastriginCosPi, LARGE_DIMENSION, block).assert_passed();
        }
    }
);

equivalence_test!(
    de_user_term_weighted_quartic_should_match_cpu,
    [64, 256],
    |gpu, block| {
        check_de_term(gpu, TermCase::WeightedQuartic, user_real::DIMENSION, block).assert_passed();
        if block == 256 {
            check_de_term(gpu, TermCase::WeightedQuartic, LARGE_DIMENSION, block).assert_passed();
        }
    }
);

equivalence_test!(
    de_user_term_split_over_blocks_should_match_cpu,
    [256],
    |gpu, block| {
        check_de_term_for(
            gpu,
            TermCase::RastriginCosPi,
            SPLIT_DIMENSION,
            block,
            SPLIT_GENERATIONS,
        )
        .assert_passed();
    }
);

/// `step_many` on the fused term path ends where the steps end, and the fused path is taken.
#[test]
fn de_user_term_step_many_should_match_the_steps() {
    let Some(gpu) = gpu_or_skip("de_user_term_step_many_should_match_the_steps") else {
        return;
    };
    let problem: UserFunction<TermTwin> = UserFunction::new(
        "rastrigin_term_batch",
        Bounds::uniform(500, -5.12, 5.12).unwrap(),
        user_real::RASTRIGIN_TERM_SOURCE,
        rastrigin_term_twin as TermTwin,
    )
    .unwrap();
    let params = DeParams::default().with_population(32).unwrap();
    let mut stepped = DeCuda::new(params.clone(), problem.clone(), 3, &gpu).unwrap();
    let mut batched = DeCuda::new(params, problem, 3, &gpu).unwrap();
    assert!(stepped.is_fused() && batched.is_fused());
    for _ in 0..50 {
        stepped.step().unwrap();
    }
    batched.step_many(50).unwrap();
    let (a, b) = (stepped.snapshot().unwrap(), batched.snapshot().unwrap());
    if let Some(mismatch) = evo_equivalence::suite::de::compare_snapshots("step_many", &a, &b) {
        panic!("{mismatch:?}");
    }
}
