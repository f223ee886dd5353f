//! The CPU engine: determinism across thread counts, snapshot and resume bit for bit, every strategy,
//! crossover and jDE making progress, the termination rules of the executor, and parameter errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::DeRastrigin;
use evo_benchmarks::scheduling::{
    Consistency, EtcClass, EtcInstance, EtcProblem, Heterogeneity, min_min,
};
use evo_core::{Checkpointing, Engine, Executor, Termination, TerminationReason};
use evo_de::{Adaptation, Crossover, DeCpu, DeParams, Selection, Strategy};
use std::time::Duration;

fn rastrigin_engine(params: DeParams, threads: usize) -> DeCpu<DeRastrigin> {
    DeCpu::new(params, DeRastrigin::new(20).unwrap(), 11, threads).unwrap()
}

fn run_steps<E: Engine>(engine: &mut E, steps: usize) {
    for _ in 0..steps {
        engine.step().unwrap();
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let params = DeParams::default().with_population(16).unwrap();
    let mut one = rastrigin_engine(params.clone(), 1);
    let mut three = rastrigin_engine(params, 3);
    run_steps(&mut one, 30);
    run_steps(&mut three, 30);
    assert_eq!(one.snapshot().unwrap(), three.snapshot().unwrap());
}

#[test]
fn restoring_a_snapshot_continues_bit_for_bit() {
    let params = DeParams::default()
        .with_population(12)
        .unwrap()
        .with_adaptation(Adaptation::Jde)
        .with_crossover(Crossover::Exponential);
    let mut reference = rastrigin_engine(params.clone(), 2);
    run_steps(&mut reference, 10);
    let middle = reference.snapshot().unwrap();
    run_steps(&mut reference, 10);
    let mut resumed = rastrigin_engine(params, 1);
    resumed.restore(&middle).unwrap();
    run_steps(&mut resumed, 10);
    assert_eq!(reference.snapshot().unwrap(), resumed.snapshot().unwrap());
    // A snapshot survives JSON.
    let json = serde_json::to_string(&middle).unwrap();
    assert_eq!(
        serde_json::from_str::<evo_de::DeSnapshot>(&json).unwrap(),
        middle
    );
}

#[test]
fn a_snapshot_of_another_shape_is_rejected() {
    let mut small = rastrigin_engine(DeParams::default().with_population(8).unwrap(), 1);
    let big = rastrigin_engine(DeParams::default().with_population(9).unwrap(), 1);
    let error = small.restore(&big.snapshot().unwrap()).unwrap_err();
    assert!(error.to_string().contains("snapshot shape"), "{error}");
}

#[test]
fn every_variant_improves_rastrigin() {
    let strategies = [Strategy::Rand1, Strategy::Best1, Strategy::CurrentToBest1];
    let crossovers = [
        Crossover::Binomial,
        Crossover::PaperLiteral,
        Crossover::Exponential,
    ];
    for strategy in strategies {
        for crossover in crossovers {
            for adaptation in [Adaptation::Fixed, Adaptation::Jde] {
                let params = DeParams::default()
                    .with_population(32)
                    .unwrap()
                    .with_strategy(strategy)
                    .with_crossover(crossover)
                    .with_adaptation(adaptation)
                    .with_selection(Selection::BetterOrEqual);
                let mut engine = rastrigin_engine(params, 1);
                let start = engine.progress().best_fitness;
                run_steps(&mut engine, 100);
                let end = engine.progress().best_fitness;
                assert!(
                    end < 0.7 * start,
                    "{strategy:?} {crossover:?} {adaptation:?}: {start} -> {end}"
                );
                let (best, fitness) = engine.best().unwrap();
                assert_eq!(best.len(), 20);
                assert!(best.iter().all(|x| x.abs() <= 5.12));
                assert_eq!(fitness.to_bits(), end.to_bits());
            }
        }
    }
}

#[test]
fn jde_adapts_its_parameters() {
    let params = DeParams::default()
        .with_population(16)
        .unwrap()
        .with_adaptation(Adaptation::Jde);
    let mut engine = rastrigin_engine(params, 1);
    run_steps(&mut engine, 50);
    let snapshot = engine.snapshot().unwrap();
    assert!(snapshot.differential_weights.iter().any(|&f| f != 0.5));
    assert!(
        snapshot
            .differential_weights
            .iter()
            .all(|&f| (0.1..=1.0).contains(&f) || f == 0.5)
    );
    assert!(
        snapshot
            .crossover_rates
            .iter()
            .all(|&cr| (0.0..=1.0).contains(&cr))
    );
}

#[test]
fn evaluation_and_generation_budgets_stop_the_run() {
    let params = DeParams::default().with_population(10).unwrap();
    let report = Executor::new(rastrigin_engine(params.clone(), 1))
        .with_termination(Termination::new().with_max_evaluations(105))
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(report.termination, TerminationReason::MaxEvaluations);
    assert_eq!(report.evaluations, 110);
    assert_eq!(report.generations, 10);
    let report = Executor::new(rastrigin_engine(params, 1))
        .with_termination(
            Termination::new()
                .with_max_wall_time(Duration::from_millis(50))
                .unwrap(),
        )
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(report.termination, TerminationReason::WallTime);
}

#[test]
fn a_checkpointed_run_resumes_to_the_same_result() {
    let dir = std::env::temp_dir().join(format!("evo-de-checkpoint-{}", std::process::id()));
    let path = dir.join("de.json");
    let params = DeParams::default().with_population(8).unwrap();
    let straight = Executor::new(rastrigin_engine(params.clone(), 1))
        .with_termination(Termination::new().with_max_generations(40))
        .unwrap()
        .run()
        .unwrap();
    Executor::new(rastrigin_engine(params.clone(), 1))
        .with_termination(Termination::new().with_max_generations(25))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 10).unwrap())
        .run()
        .unwrap();
    let resumed = Executor::new(rastrigin_engine(params, 1))
        .with_termination(Termination::new().with_max_generations(40))
        .unwrap()
        .resume_from(&path)
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(resumed.best, straight.best);
    assert_eq!(
        resumed.best_fitness.to_bits(),
        straight.best_fitness.to_bits()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn min_min_seeding_never_loses_the_seed() {
    let class = EtcClass {
        consistency: Consistency::Inconsistent,
        tasks: Heterogeneity::High,
        machines: Heterogeneity::High,
    };
    let instance = EtcInstance::generate(class, 64, 8, 5).unwrap();
    let seed_schedule = min_min(&instance).schedule;
    let seed_fitness = instance.fitness(&seed_schedule, 0.75).unwrap();
    let problem = EtcProblem::new(instance, 0.75).unwrap();
    let engine = DeCpu::new(DeParams::default(), problem, 3, 1)
        .unwrap()
        .with_initial_vectors(&[evo_de::encode_schedule(&seed_schedule)])
        .unwrap();
    assert_eq!(
        engine.progress().best_fitness.to_bits(),
        seed_fitness.to_bits()
    );
    let mut engine = engine;
    run_steps(&mut engine, 200);
    assert!(engine.progress().best_fitness <= seed_fitness);
}

#[test]
fn scheduling_improves_on_a_random_population() {
    let class = EtcClass {
        consistency: Consistency::SemiConsistent,
        tasks: Heterogeneity::Low,
        machines: Heterogeneity::High,
    };
    let instance = EtcInstance::generate(class, 128, 16, 9).unwrap();
    let problem = EtcProblem::new(instance, 0.75).unwrap();
    let mut engine = DeCpu::new(DeParams::default(), problem, 1, 0).unwrap();
    let start = engine.progress().best_fitness;
    run_steps(&mut engine, 300);
    assert!(engine.progress().best_fitness < 0.8 * start);
}

fn generated_etc(tasks: usize, machines: usize) -> EtcProblem {
    let class = EtcClass {
        consistency: Consistency::SemiConsistent,
        tasks: Heterogeneity::High,
        machines: Heterogeneity::High,
    };
    EtcProblem::new(
        EtcInstance::generate(class, tasks, machines, 5).unwrap(),
        0.75,
    )
    .unwrap()
}

fn scheduling_params() -> DeParams {
    DeParams::default()
        .with_population(16)
        .unwrap()
        .with_crossover_rate(0.01)
        .unwrap()
        .with_differential_weight(0.1)
        .unwrap()
}

/// Two engines of the same seed on `problem`, without and with `search` (whose period must exceed 3), after
/// three generations, checked equal there (no search has run yet).
fn plain_and_searched(
    problem: &EtcProblem,
    search: evo_de::LocalSearch,
) -> (DeCpu<EtcProblem>, DeCpu<EtcProblem>) {
    let mut plain = DeCpu::new(scheduling_params(), problem.clone(), 3, 1).unwrap();
    let mut memetic = DeCpu::new(scheduling_params(), problem.clone(), 3, 1)
        .unwrap()
        .with_local_search(search)
        .unwrap();
    assert_eq!(memetic.local_search(), Some(search));
    run_steps(&mut plain, 3);
    run_steps(&mut memetic, 3);
    assert_eq!(plain.snapshot().unwrap(), memetic.snapshot().unwrap());
    (plain, memetic)
}

/// With the local search on, every stored fitness is a fresh evaluation of its vector after every
/// generation, the best never gets worse, the generations before the first search are the plain run's, and
/// the search improves the best when it runs (a random population's best schedule has improving moves).
#[test]
fn the_local_search_keeps_every_fitness_an_evaluation_of_its_vector() {
    use evo_core::ContinuousProblem;
    let problem = generated_etc(128, 8);
    let search = evo_de::LocalSearch::new(4, 8).unwrap();
    let (mut plain, mut memetic) = plain_and_searched(&problem, search);
    plain.step().unwrap();
    memetic.step().unwrap();
    assert!(memetic.progress().best_fitness < plain.progress().best_fitness);
    let mut best = memetic.progress().best_fitness;
    for _ in 0..40 {
        memetic.step().unwrap();
        let state = memetic.snapshot().unwrap();
        for (i, row) in state.population.chunks(state.dimension).enumerate() {
            assert_eq!(
                state.fitness[i].to_bits(),
                problem.evaluate(row).to_bits(),
                "vector {i} at generation {}",
                state.generation
            );
        }
        let now = memetic.progress().best_fitness;
        assert!(now <= best);
        best = now;
    }
}

/// The search keeps no state: a snapshot restored into a fresh engine with the search continues bit for bit.
#[test]
fn a_run_with_the_local_search_resumes_bit_for_bit() {
    let problem = generated_etc(64, 4);
    let search = evo_de::LocalSearch::new(3, 4).unwrap();
    let engine = || {
        DeCpu::new(scheduling_params(), problem.clone(), 9, 2)
            .unwrap()
            .with_local_search(search)
            .unwrap()
    };
    let mut through = engine();
    run_steps(&mut through, 10);
    let middle = through.snapshot().unwrap();
    run_steps(&mut through, 20);
    let mut resumed = engine();
    resumed.restore(&middle).unwrap();
    run_steps(&mut resumed, 20);
    assert_eq!(through.snapshot().unwrap(), resumed.snapshot().unwrap());
}

#[test]
fn the_local_search_refuses_problems_other_than_etc() {
    let search = evo_de::LocalSearch::new(10, 8).unwrap();
    let error = rastrigin_engine(DeParams::default(), 1)
        .with_local_search(search)
        .err()
        .expect("Rastrigin has no schedules");
    let message = error.to_string();
    assert!(
        message.starts_with("DE: local search problem") && message.contains("ETC"),
        "{message}"
    );
}

/// Scope All: the generations before the first search are the plain run's; at a search every vector's
/// fitness is at most the plain run's and at least one improves; every stored fitness stays an evaluation of
/// its vector; and the engine's best is the population's best by the total order, then the lower index.
#[test]
fn the_search_of_every_vector_improves_each_and_keeps_the_best_consistent() {
    use evo_core::ContinuousProblem;
    use evo_de::{LocalSearch, Scope};
    let problem = generated_etc(128, 8);
    let search = LocalSearch::new(4, 8).unwrap().with_scope(Scope::All);
    let (mut plain, mut memetic) = plain_and_searched(&problem, search);
    plain.step().unwrap();
    memetic.step().unwrap();
    let (before, after) = (plain.snapshot().unwrap(), memetic.snapshot().unwrap());
    let improved = (0..before.population_size)
        .filter(|&i| {
            assert!(after.fitness[i] <= before.fitness[i], "vector {i}");
            after.fitness[i] < before.fitness[i]
        })
        .count();
    assert!(improved > 1, "{improved} vectors improved");
    for _ in 0..20 {
        memetic.step().unwrap();
        let state = memetic.snapshot().unwrap();
        for (i, row) in state.population.chunks(state.dimension).enumerate() {
            assert_eq!(
                state.fitness[i].to_bits(),
                problem.evaluate(row).to_bits(),
                "vector {i} at generation {}",
                state.generation
            );
        }
        let best = (0..state.population_size)
            .min_by(|&a, &b| {
                state.fitness[a]
                    .total_cmp(&state.fitness[b])
                    .then(a.cmp(&b))
            })
            .unwrap();
        let (vector, fitness) = memetic.best().unwrap();
        assert_eq!(fitness.to_bits(), state.fitness[best].to_bits());
        assert_eq!(
            vector,
            state.population[best * state.dimension..(best + 1) * state.dimension]
        );
    }
}

/// Scope All searches the vectors on the rayon pool: the result does not depend on the thread count, and a
/// restored snapshot continues bit for bit.
#[test]
fn the_search_of_every_vector_does_not_depend_on_the_thread_count() {
    use evo_de::{LocalSearch, Scope};
    let problem = generated_etc(64, 4);
    let search = LocalSearch::new(3, 4).unwrap().with_scope(Scope::All);
    let engine = |threads| {
        DeCpu::new(
            scheduling_params().with_strategy(Strategy::Best1),
            problem.clone(),
            9,
            threads,
        )
        .unwrap()
        .with_local_search(search)
        .unwrap()
    };
    let (mut one, mut three) = (engine(1), engine(3));
    run_steps(&mut one, 10);
    run_steps(&mut three, 10);
    let middle = one.snapshot().unwrap();
    assert_eq!(middle, three.snapshot().unwrap());
    run_steps(&mut one, 20);
    run_steps(&mut three, 20);
    assert_eq!(one.snapshot().unwrap(), three.snapshot().unwrap());
    let mut resumed = engine(2);
    resumed.restore(&middle).unwrap();
    run_steps(&mut resumed, 20);
    assert_eq!(one.snapshot().unwrap(), resumed.snapshot().unwrap());
}

/// Scope Best is the default: a search built with it is the search built without a scope.
#[test]
fn the_best_scope_is_the_default() {
    use evo_de::{LocalSearch, Scope};
    let search = LocalSearch::new(7, 3).unwrap();
    assert_eq!(search.scope(), Scope::Best);
    assert_eq!(search.with_scope(Scope::Best), search);
    assert_ne!(search.with_scope(Scope::All), search);
    let written = r#"{"period":7,"max_moves":3}"#;
    let read: LocalSearch = serde_json::from_str(written).unwrap();
    assert_eq!(read, search);
}

/// Kicks (an iterated local search of the best): on the rayon pool, the result does not depend on the thread
/// count, a restored snapshot continues bit for bit (the kicks' words are addressed by the generation), the
/// run differs from the search without kicks, and settings written before kicks existed read as none.
#[test]
fn kicked_searches_do_not_depend_on_the_thread_count_and_resume_bit_for_bit() {
    use evo_core::ContinuousProblem;
    use evo_de::LocalSearch;
    let problem = generated_etc(128, 8);
    let plain = LocalSearch::new(3, 64).unwrap();
    let kicked = plain.with_kicks(6, 3).unwrap();
    let engine = |threads, search| {
        DeCpu::new(scheduling_params(), problem.clone(), 5, threads)
            .unwrap()
            .with_local_search(search)
            .unwrap()
    };
    let (mut one, mut three, mut without) =
        (engine(1, kicked), engine(3, kicked), engine(1, plain));
    run_steps(&mut one, 12);
    run_steps(&mut three, 12);
    run_steps(&mut without, 12);
    let middle = one.snapshot().unwrap();
    assert_eq!(middle, three.snapshot().unwrap());
    assert_ne!(
        middle,
        without.snapshot().unwrap(),
        "the kicks change the run"
    );
    run_steps(&mut one, 30);
    run_steps(&mut three, 30);
    assert_eq!(one.snapshot().unwrap(), three.snapshot().unwrap());
    let mut resumed = engine(2, kicked);
    resumed.restore(&middle).unwrap();
    run_steps(&mut resumed, 30);
    let end = one.snapshot().unwrap();
    assert_eq!(end, resumed.snapshot().unwrap());
    for (i, row) in end.population.chunks(end.dimension).enumerate() {
        assert_eq!(end.fitness[i].to_bits(), problem.evaluate(row).to_bits());
    }
    let written = r#"{"period":3,"max_moves":64,"scope":"Best"}"#;
    let read: LocalSearch = serde_json::from_str(written).unwrap();
    assert_eq!(read, plain);
}
