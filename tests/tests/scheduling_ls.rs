//! The stronger local search of ETC schedules (issue #33): the any-pair and balance neighbourhoods
//! ([`Neighbourhood::AnyPair`], [`Neighbourhood::Balance`], [`Neighbourhood::MakespanBalance`]) and the
//! perturb-and-descend iterations ([`LocalSearch::with_iterations`]), alone and with the kicks, under the
//! makespan objective and the paper's fitness. The CPU and CUDA engines hold identical snapshots
//! (population, fitness, `F_i`, `CR_i`, counters) and the same best vector at every one of 200 generations
//! (Exact profile), on a generated 192 × 16 instance (the one-launch generation) and a 128 × 64 one (the
//! four-launch path), with the search every 10 generations from the Min-Min and Sufferage seeds.

use evo_benchmarks::scheduling::{EtcObjective, EtcProblem};
use evo_core::Result;
use evo_de::{DeCpu, DeCuda, Heuristic, LocalSearch, Neighbourhood, Scope};
use evo_equivalence::Gpu;
use evo_equivalence::equivalence_test;
use evo_equivalence::scheduling::{SEED, assert_lockstep, instance, params};

/// Generations between two searches.
const PERIOD: u32 = 10;

/// One run's objective and search settings.
struct Case {
    objective: EtcObjective,
    neighbourhood: Neighbourhood,
    scope: Scope,
    /// Kicks and their moves.
    kicks: (u32, u32),
    /// Iterations and their moves.
    iterations: (u32, u32),
}

impl Case {
    fn search(&self) -> Result<LocalSearch> {
        LocalSearch::new(PERIOD, 8)?
            .with_scope(self.scope)
            .with_neighbourhood(self.neighbourhood)
            .with_kicks(self.kicks.0, self.kicks.1)?
            .with_iterations(self.iterations.0, self.iterations.1)
    }
}

const CASES: [Case; 8] = [
    // The any-pair descent alone (the search phase, one block).
    Case {
        objective: EtcObjective::Makespan,
        neighbourhood: Neighbourhood::AnyPair,
        scope: Scope::Best,
        kicks: (0, 0),
        iterations: (0, 0),
    },
    // The any-pair descent of every vector (one block per vector).
    Case {
        objective: EtcObjective::Makespan,
        neighbourhood: Neighbourhood::AnyPair,
        scope: Scope::All,
        kicks: (0, 0),
        iterations: (0, 0),
    },
    // Iterations without kicks (the kicks launch with one block), the default neighbourhood.
    Case {
        objective: EtcObjective::Makespan,
        neighbourhood: Neighbourhood::MakespanMachine,
        scope: Scope::Best,
        kicks: (0, 0),
        iterations: (4, 3),
    },
    // Everything at once.
    Case {
        objective: EtcObjective::Makespan,
        neighbourhood: Neighbourhood::AnyPair,
        scope: Scope::Best,
        kicks: (3, 4),
        iterations: (3, 2),
    },
    // The balance descent (second key the change of the squared loads), kicked and iterated.
    Case {
        objective: EtcObjective::Makespan,
        neighbourhood: Neighbourhood::Balance,
        scope: Scope::Best,
        kicks: (3, 4),
        iterations: (3, 2),
    },
    // The cheaper balance descent (the makespan machine's swaps), kicked and iterated.
    Case {
        objective: EtcObjective::Makespan,
        neighbourhood: Neighbourhood::MakespanBalance,
        scope: Scope::Best,
        kicks: (3, 4),
        iterations: (3, 2),
    },
    // The balance descent of every vector under the paper's fitness (one block per vector).
    Case {
        objective: EtcObjective::PaperFitness { lambda: 0.75 },
        neighbourhood: Neighbourhood::Balance,
        scope: Scope::All,
        kicks: (0, 0),
        iterations: (0, 0),
    },
    // The paper's fitness, where the flowtime is in the value as well as in the second key.
    Case {
        objective: EtcObjective::PaperFitness { lambda: 0.75 },
        neighbourhood: Neighbourhood::AnyPair,
        scope: Scope::Best,
        kicks: (2, 4),
        iterations: (2, 2),
    },
];

/// Builds both engines from the same seeded start and steps them in [`assert_lockstep`], which compares
/// snapshots and the best vector before the first generation and after every one.
fn lockstep(gpu: &Gpu, block: u32, problem: &EtcProblem, case: &Case) -> Result<()> {
    let search = case.search()?;
    let what = format!(
        "{} {:?} {search:?} block {block}",
        evo_core::ContinuousProblem::name(problem),
        case.objective,
    );
    let params = params(block)?;
    let mut cpu = DeCpu::new(params.clone(), problem.clone(), SEED, 0)?
        .with_heuristic_seeds(&Heuristic::ALL)?
        .with_local_search(search)?;
    let mut on_gpu = DeCuda::new(params, problem.clone(), SEED, gpu)?
        .with_heuristic_seeds(&Heuristic::ALL)?
        .with_local_search(search)?;
    assert_lockstep(&what, &mut cpu, &mut on_gpu)
}

equivalence_test!(
    de_any_pair_and_iterated_local_search_should_match_cpu,
    [64, 256],
    |gpu, block| {
        for (tasks, machines) in [(192, 16), (128, 64)] {
            let instance = instance(tasks, machines).expect("a valid generated instance");
            for case in &CASES {
                let problem = EtcProblem::with_objective(instance.clone(), case.objective)
                    .expect("a valid problem");
                lockstep(gpu, block, &problem, case).expect("both engines run");
            }
        }
    }
);
