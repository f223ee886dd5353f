//! ETC scheduling beyond the DE paper: the makespan objective and the Min-Min / Sufferage seeds. The CPU and
//! CUDA engines hold identical snapshots (population, fitness, `F_i`, `CR_i`, counters) and the same best
//! vector at every one of 200 generations (Exact profile), on a generated 512 × 16 u_s_hilo instance (the
//! one-launch generation) and a 256 × 64 one (the four-launch path through evo-benchmarks' ETC kernel),
//! with the makespan objective, with the seeds, with both, and with both under the opt-in local search; and
//! the GPU evaluator gives the makespan's bits for the heuristics' schedules.

use evo_benchmarks::scheduling::{EtcObjective, EtcProblem, min_min, sufferage};
use evo_core::Result;
use evo_de::{DeCpu, DeCuda, Heuristic, LocalSearch};
use evo_equivalence::Gpu;
use evo_equivalence::compare::{assert_matches, compare_slices};
use evo_equivalence::equivalence_test;
use evo_equivalence::scheduling::{SEED, assert_lockstep, instance, params};
use evo_equivalence::tolerance::Tolerance;
use evo_gpu_runtime::Profile;

/// One run: the objective, the seeds and whether the local search is on.
struct Case {
    objective: EtcObjective,
    seeds: &'static [Heuristic],
    local_search: bool,
}

const CASES: [Case; 4] = [
    Case {
        objective: EtcObjective::Makespan,
        seeds: &[],
        local_search: false,
    },
    Case {
        objective: EtcObjective::PaperFitness { lambda: 0.75 },
        seeds: &Heuristic::ALL,
        local_search: false,
    },
    Case {
        objective: EtcObjective::Makespan,
        seeds: &Heuristic::ALL,
        local_search: false,
    },
    Case {
        objective: EtcObjective::Makespan,
        seeds: &Heuristic::ALL,
        local_search: true,
    },
];

/// Builds both engines from the same seeded start and steps them in [`assert_lockstep`], which compares
/// snapshots and the best vector before the first generation and after every one.
fn lockstep(gpu: &Gpu, block: u32, problem: &EtcProblem, case: &Case) -> Result<()> {
    let what = format!(
        "{} {:?} seeds {:?} local search {} block {block}",
        evo_core::ContinuousProblem::name(problem),
        case.objective,
        case.seeds,
        case.local_search
    );
    let params = params(block)?;
    let mut cpu =
        DeCpu::new(params.clone(), problem.clone(), SEED, 0)?.with_heuristic_seeds(case.seeds)?;
    let mut on_gpu =
        DeCuda::new(params, problem.clone(), SEED, gpu)?.with_heuristic_seeds(case.seeds)?;
    if case.local_search {
        let search = LocalSearch::new(5, 16)?;
        cpu = cpu.with_local_search(search)?;
        on_gpu = on_gpu.with_local_search(search)?;
    }
    assert_lockstep(&what, &mut cpu, &mut on_gpu)
}

equivalence_test!(
    de_makespan_and_seeded_runs_should_match_cpu,
    [64, 256],
    |gpu, block| {
        for (tasks, machines) in [(512, 16), (256, 64)] {
            let instance = instance(tasks, machines).expect("a valid generated instance");
            for case in &CASES {
                let problem = EtcProblem::with_objective(instance.clone(), case.objective)
                    .expect("a valid problem");
                lockstep(gpu, block, &problem, case).expect("both engines run");
            }
        }
    }
);

equivalence_test!(
    etc_makespan_objective_evaluation_should_match_cpu,
    [64, 256],
    |gpu, block| {
        let instance = instance(512, 16).expect("a valid generated instance");
        let problem = EtcProblem::with_objective(instance.clone(), EtcObjective::Makespan)
            .expect("a valid problem");
        let schedules = [min_min(&instance).schedule, sufferage(&instance).schedule].concat();
        let evaluator = problem.cuda_evaluator(gpu).expect("an evaluator");
        let [makespan, _, value] = evaluator
            .evaluate_schedules_host(&schedules, Profile::Exact, block)
            .expect("a GPU evaluation");
        let cpu: Vec<f64> = schedules
            .chunks(instance.tasks())
            .map(|s| instance.makespan(s).expect("a valid schedule"))
            .collect();
        for gpu_values in [&makespan, &value] {
            assert_matches(&compare_slices(
                "makespan objective",
                0,
                1,
                &cpu,
                gpu_values,
                Tolerance::Exact,
                |i| format!("heuristic schedule {i}, block {block}"),
            ));
        }
    }
);
