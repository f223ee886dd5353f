//! evo-de: CPU and CUDA engines hold identical snapshots at every generation (Exact profile), for every
//! strategy on Rastrigin and on a 512 × 16 ETC instance (500 generations), for the crossover, jDE and
//! selection variants, for a host-evaluated closure, and across a snapshot restored on the other backend.
//! Block sizes 64 and 256 split the 512 tasks into 8 and 2 chunks of the ETC kernel's reduction. Also with the
//! opt-in local search of ETC schedules, of the best vector and of every vector, and of the best vector with
//! kicks (every 5 generations; each strategy, batches, restore, 64 machines).

use evo_equivalence::equivalence_test;
use evo_equivalence::suite::de::{
    ProblemCase, RunCase, check_cross_restore, check_large, check_run,
};

fn check_problem(gpu: &evo_equivalence::Gpu, problem: ProblemCase, block: u32) {
    for case in RunCase::all().into_iter().filter(|c| c.problem == problem) {
        check_run(gpu, case, block).assert_passed();
    }
}

equivalence_test!(
    de_rastrigin_runs_should_match_cpu,
    [64, 256],
    |gpu, block| {
        check_problem(gpu, ProblemCase::Rastrigin, block);
    }
);

equivalence_test!(
    de_scheduling_runs_should_match_cpu,
    [64, 256],
    |gpu, block| {
        check_problem(gpu, ProblemCase::Scheduling, block);
    }
);

equivalence_test!(
    de_host_closure_runs_should_match_cpu,
    [64, 256],
    |gpu, block| {
        check_problem(gpu, ProblemCase::HostClosure, block);
    }
);

equivalence_test!(
    de_cross_backend_restore_should_match_cpu,
    [64, 256],
    |gpu, block| {
        check_cross_restore(gpu, block).assert_passed();
    }
);

equivalence_test!(
    de_fused_batches_should_match_cpu,
    [64, 256],
    |gpu, block| {
        evo_equivalence::suite::de::check_batched(gpu, block).assert_passed();
    }
);

equivalence_test!(
    de_local_search_runs_should_match_cpu,
    [64, 256],
    |gpu, block| {
        for scope in [evo_de::Scope::Best, evo_de::Scope::All] {
            evo_equivalence::suite::de::check_local_search(gpu, block, false, scope)
                .assert_passed();
        }
        evo_equivalence::suite::de::check_kicked_local_search(gpu, block, false).assert_passed();
    }
);

// Ten generations of each strategy with a search every 5, of the best vector, of every vector (M = 16) and of
// the best vector with kicks: the case `compute-sanitizer --tool racecheck` finishes.
equivalence_test!(
    de_local_search_short_runs_should_match_cpu,
    [256],
    |gpu, block| {
        for scope in [evo_de::Scope::Best, evo_de::Scope::All] {
            evo_equivalence::suite::de::check_local_search(gpu, block, true, scope).assert_passed();
        }
        evo_equivalence::suite::de::check_kicked_local_search(gpu, block, true).assert_passed();
    }
);

equivalence_test!(
    de_ten_million_coordinates_should_match_cpu,
    [1024],
    |gpu, block| {
        check_large(gpu, block).assert_passed();
    }
);

// Five generations of two strategies: the cases `compute-sanitizer --tool racecheck` finishes.
equivalence_test!(de_short_runs_should_match_cpu, [64, 256], |gpu, block| {
    use evo_equivalence::suite::de::{RunCase, check_run};
    for case in RunCase::all().into_iter().take(4) {
        check_run(
            gpu,
            RunCase {
                generations: 5,
                ..case
            },
            block,
        )
        .assert_passed();
    }
});
