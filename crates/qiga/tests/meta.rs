//! The meta-optimisation: deterministic, fitness = mean final best of its runs, angles inside the range,
//! elitism keeps the best.

use evo_benchmarks::Knapsack;
use evo_core::Engine;
use evo_qiga::meta::{CpuEvaluator, MetaParams, meta_optimise};
use evo_qiga::{MAX_ANGLE, QigaCpu, QigaParams, RunConfig};

#[allow(clippy::unwrap_used, reason = "fixed, valid test parameters")]
fn small() -> MetaParams {
    MetaParams::default()
        .with_population(4)
        .and_then(|p| p.with_generations(3))
        .and_then(|p| p.with_runs_per_candidate(3))
        .and_then(|p| p.with_inner_generations(15))
        .unwrap()
}

#[test]
fn meta_optimisation_is_deterministic_and_its_fitness_is_the_mean_of_its_runs() {
    let problem = Knapsack::generate(40, 9).unwrap();
    let params = small();
    let first = meta_optimise(&params, &problem, 17, &CpuEvaluator::new(2)).unwrap();
    let again = meta_optimise(&params, &problem, 17, &CpuEvaluator::new(1)).unwrap();
    assert_eq!(first, again);
    assert_eq!(first.history.len(), 4);
    for generation in &first.history {
        for (angles, _) in &generation.population {
            assert!(
                angles
                    .angles()
                    .iter()
                    .all(|a| (0.0..=MAX_ANGLE).contains(a))
            );
        }
    }
    // Generation 0, genome 0: the mean of runs with seeds seed + 1 + 0..3.
    let (angles, fitness) = first.history[0].population[0];
    let inner = QigaParams::default().with_generations(15).unwrap();
    let runs: Vec<RunConfig> = (0..3)
        .map(|k| RunConfig {
            seed: 18 + k,
            angles,
        })
        .collect();
    let mut engine = QigaCpu::batch(&inner, &problem, runs, 1).unwrap();
    for _ in 0..15 {
        engine.step().unwrap();
    }
    let mean = engine.state().best_profits().iter().sum::<f64>() / 3.0;
    assert_eq!(mean.to_bits(), fitness.to_bits());
    // Elitism: a generation's best never falls below the previous one's.
    for pair in first.history.windows(2) {
        assert!(pair[1].best >= pair[0].best);
    }
    assert!(first.best_fitness >= first.history[0].best);
}

#[test]
fn meta_parameters_are_validated() {
    assert!(MetaParams::default().with_population(1).is_err());
    assert!(MetaParams::default().with_crossover_rate(1.5).is_err());
    assert!(MetaParams::default().with_sigma(0.5).is_err());
    assert!(MetaParams::default().with_runs_per_candidate(0).is_err());
    let error = MetaParams::default().with_mutation_rate(-0.1).unwrap_err();
    assert_eq!(
        error.to_string(),
        "QIGA meta-optimisation: mutation probability must be in [0, 1], got -0.1"
    );
}
