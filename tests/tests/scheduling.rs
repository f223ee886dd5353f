//! ETC scheduling beyond the DE paper: the makespan objective and the Min-Min / Sufferage seeds. The CPU and
//! CUDA engines hold identical snapshots (population, fitness, `F_i`, `CR_i`, counters) and the same best
//! vector at every one of 200 generations (Exact profile), on a generated 512 × 16 u_s_hilo instance (the
//! one-launch generation) and a 256 × 64 one (the four-launch path through evo-benchmarks' ETC kernel),
//! with the makespan objective, with the seeds, with both, and with both under the opt-in local search; and
//! the GPU evaluator gives the makespan's bits for the heuristics' schedules.

use evo_benchmarks::scheduling::{
    Consistency, EtcClass, EtcInstance, EtcObjective, EtcProblem, Heterogeneity, min_min, sufferage,
};
use evo_core::{Engine, Result};
use evo_de::{DeCpu, DeCuda, DeParams, Heuristic, LocalSearch};
use evo_equivalence::Gpu;
use evo_equivalence::compare::{assert_matches, compare_slices};
use evo_equivalence::equivalence_test;
use evo_equivalence::suite::de::compare_snapshots;
use evo_equivalence::tolerance::Tolerance;
use evo_gpu_runtime::Profile;

/// The seed of every run.
const SEED: u64 = 2011;
/// Generations compared.
const GENERATIONS: u64 = 200;

/// A generated semi-consistent instance of `tasks × machines`, high task and low machine heterogeneity.
fn instance(tasks: usize, machines: usize) -> EtcInstance {
    let class = EtcClass {
        consistency: Consistency::SemiConsistent,
        tasks: Heterogeneity::High,
        machines: Heterogeneity::Low,
    };
    EtcInstance::generate(class, tasks, machines, SEED).expect("a valid generated instance")
}

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

/// Steps both engines [`GENERATIONS`] times from the same seeded start, comparing snapshots and the best
/// vector before the first generation and after every one.
fn lockstep(gpu: &Gpu, block: u32, problem: &EtcProblem, case: &Case) -> Result<()> {
    let what = format!(
        "{} {:?} seeds {:?} local search {} block {block}",
        evo_core::ContinuousProblem::name(problem),
        case.objective,
        case.seeds,
        case.local_search
    );
    let params = DeParams::default()
        .with_population(64)?
        .with_differential_weight(0.1)?
        .with_crossover_rate(0.01)?
        .with_block_size(block)?;
    let mut cpu =
        DeCpu::new(params.clone(), problem.clone(), SEED, 0)?.with_heuristic_seeds(case.seeds)?;
    let mut on_gpu =
        DeCuda::new(params, problem.clone(), SEED, gpu)?.with_heuristic_seeds(case.seeds)?;
    if case.local_search {
        let search = LocalSearch::new(5, 16)?;
        cpu = cpu.with_local_search(search)?;
        on_gpu = on_gpu.with_local_search(search)?;
    }
    for generation in 0..=GENERATIONS {
        if generation > 0 {
            cpu.step()?;
            on_gpu.step()?;
        }
        let (c, g) = (cpu.snapshot()?, on_gpu.snapshot()?);
        if let Some(mismatch) = compare_snapshots(&what, &c, &g) {
            assert_matches(&mismatch);
        }
        let ((vc, fc), (vg, fg)) = (cpu.best()?, on_gpu.best()?);
        assert_matches(&compare_slices(
            "best",
            generation,
            vc.len() + 1,
            &[vc.iter().map(|&v| f64::from(v)).collect(), vec![fc]].concat(),
            &[vg.iter().map(|&v| f64::from(v)).collect(), vec![fg]].concat(),
            Tolerance::Exact,
            |_| what.clone(),
        ));
    }
    Ok(())
}

equivalence_test!(
    de_makespan_and_seeded_runs_should_match_cpu,
    [64, 256],
    |gpu, block| {
        for (tasks, machines) in [(512, 16), (256, 64)] {
            let instance = instance(tasks, machines);
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
        let instance = instance(512, 16);
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
