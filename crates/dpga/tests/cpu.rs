//! The CPU engine on CEC 2006 problems: feasibility, improvement, determinism, checkpoints, errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::Cec2006Problem;
use evo_core::{Checkpointing, ConstrainedProblem, Engine, Error, Executor, Termination};
use evo_dpga::{
    ConstraintHandling, Crossover, DpgaCpu, DpgaParams, DpgaSnapshot, Encoding, Initialisation,
};

fn small_params() -> DpgaParams {
    DpgaParams::default()
        .with_main_size(32)
        .unwrap()
        .with_reserve_size(32)
        .unwrap()
        .with_crossbreed_rate(0.25)
        .unwrap()
        .with_init_max_draws(5_000)
        .unwrap()
}

fn engine(g: u32, params: DpgaParams, seed: u64, threads: usize) -> DpgaCpu<Cec2006Problem> {
    DpgaCpu::new(params, Cec2006Problem::new(g).unwrap(), seed, threads).unwrap()
}

fn run_steps<E: Engine>(engine: &mut E, steps: usize) {
    for _ in 0..steps {
        engine.step().unwrap();
    }
}

#[test]
fn g01_g04_g07_reach_feasibility_and_improve() {
    for (g, handling) in [
        (1, ConstraintHandling::Mcsm),
        (4, ConstraintHandling::Mcsm),
        (7, ConstraintHandling::Deb),
        (7, ConstraintHandling::Mcsm),
    ] {
        let mut e = engine(g, small_params().with_constraint_handling(handling), 11, 2);
        let start = e.progress().best_fitness;
        run_steps(&mut e, 150);
        let end = e.progress();
        assert!(
            e.best_evaluation().feasible,
            "g{g:02} {handling:?}: no feasible point"
        );
        assert!(
            end.best_fitness < start,
            "g{g:02} {handling:?}: {start} → {}",
            end.best_fitness
        );
        let (x, f) = e.best().unwrap();
        let check = e.problem().evaluate_value(&x);
        assert!(check.is_feasible());
        assert_eq!(check.objective.to_bits(), f.to_bits());
        let optimum = e.problem().optimum().unwrap();
        assert!(
            f >= optimum - 1e-6,
            "g{g:02}: {f} below the optimum {optimum}"
        );
        println!(
            "g{g:02} {handling:?}: {start} -> {f} (f* = {optimum}, δ = {})",
            e.target_distance()
        );
    }
}

#[test]
fn evaluations_count_the_initial_draws_and_m_plus_c_per_generation() {
    let params = small_params().with_initialisation(Initialisation::Random);
    let mut e = engine(1, params.clone(), 3, 1);
    assert_eq!(e.progress().evaluations, 32);
    run_steps(&mut e, 5);
    let per_generation = (params.main_size() + params.crossbreed_size()) as u64;
    assert_eq!(params.crossbreed_size(), 8);
    assert_eq!(e.progress().evaluations, 32 + 5 * per_generation);
    assert_eq!(e.progress().generation, 5);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let mut one = engine(4, small_params(), 5, 1);
    let mut two = engine(4, small_params(), 5, 2);
    let mut three = engine(4, small_params(), 5, 3);
    run_steps(&mut one, 20);
    run_steps(&mut two, 20);
    run_steps(&mut three, 20);
    let s = one.snapshot().unwrap();
    assert_eq!(s, two.snapshot().unwrap());
    assert_eq!(s, three.snapshot().unwrap());
    let other_seed = {
        let mut e = engine(4, small_params(), 6, 1);
        run_steps(&mut e, 20);
        e.snapshot().unwrap()
    };
    assert_ne!(s, other_seed);
}

#[test]
fn a_checkpointed_run_resumes_bit_for_bit() {
    let dir = std::env::temp_dir().join(format!("evo-dpga-checkpoint-{}", std::process::id()));
    let path = dir.join("dpga.json");
    let straight = Executor::new(engine(1, small_params(), 9, 2))
        .with_termination(Termination::new().with_max_generations(30))
        .unwrap()
        .run()
        .unwrap();
    Executor::new(engine(1, small_params(), 9, 2))
        .with_termination(Termination::new().with_max_generations(17))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 5).unwrap())
        .run()
        .unwrap();
    let mut resumed = Executor::new(engine(1, small_params(), 9, 1))
        .with_termination(Termination::new().with_max_generations(30))
        .unwrap()
        .resume_from(&path)
        .unwrap();
    let report = resumed.run().unwrap();
    assert_eq!(report.best, straight.best);
    assert_eq!(
        report.best_fitness.to_bits(),
        straight.best_fitness.to_bits()
    );
    let mut direct = engine(1, small_params(), 9, 1);
    run_steps(&mut direct, 30);
    assert_eq!(
        resumed.engine().snapshot().unwrap(),
        direct.snapshot().unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_snapshot_restores_through_json_and_mismatched_shapes_are_rejected() {
    let mut a = engine(7, small_params(), 2, 1);
    run_steps(&mut a, 3);
    let json = serde_json::to_string(&a.snapshot().unwrap()).unwrap();
    let mut b = engine(7, small_params(), 2, 1);
    b.restore(&serde_json::from_str(&json).unwrap()).unwrap();
    run_steps(&mut a, 4);
    run_steps(&mut b, 4);
    assert_eq!(a.snapshot().unwrap(), b.snapshot().unwrap());
    let mut wrong = engine(7, small_params().with_main_size(16).unwrap(), 2, 1);
    assert!(matches!(
        wrong.restore(&a.snapshot().unwrap()),
        Err(Error::InvalidParameter { .. })
    ));
    // The same shape under the other encoding: the stored evaluations would not match the decoded bits.
    let mut binary = engine(7, small_params().with_encoding(Encoding::Binary), 2, 1);
    let error = binary.restore(&a.snapshot().unwrap()).unwrap_err();
    assert!(error.to_string().contains("snapshot encoding"), "{error}");
    // A snapshot written before the encoding existed reads as binary.
    let mut old = serde_json::to_value(binary.snapshot().unwrap()).unwrap();
    old.as_object_mut().unwrap().remove("encoding");
    binary
        .restore(&serde_json::from_value(old).unwrap())
        .unwrap();
}

/// The evo-equivalence case `dpga_restore_across_backends` on the CPU alone (g04, MCSM, Table II sizes): a
/// snapshot taken after 40 generations goes through JSON into a fresh engine of the same seed (another thread
/// count), and again after 40 more; every generation after each restore must equal the uninterrupted run, δ
/// included, while δ adapts. An engine of another seed refuses the snapshot, naming the seed (the one seed
/// rule of every engine; DPGA used to adopt the snapshot's seed silently).
#[test]
fn a_snapshot_restored_into_an_engine_of_the_same_seed_continues_the_run_bit_for_bit() {
    let params = DpgaParams::default().with_init_max_draws(5_000).unwrap();
    let through_json = |e: &DpgaCpu<Cec2006Problem>| -> DpgaSnapshot {
        serde_json::from_str(&serde_json::to_string(&e.snapshot().unwrap()).unwrap()).unwrap()
    };
    let mut direct = engine(4, params.clone(), 5, 2);
    run_steps(&mut direct, 40);
    let mut resumed = engine(4, params.clone(), 5, 1);
    resumed.restore(&through_json(&direct)).unwrap();
    assert_eq!(resumed.snapshot().unwrap().seed, 5);
    let mut deltas = vec![direct.target_distance()];
    for _ in 0..40 {
        direct.step().unwrap();
        resumed.step().unwrap();
        assert_eq!(direct.snapshot().unwrap(), resumed.snapshot().unwrap());
        deltas.push(direct.target_distance());
    }
    let mut again = engine(4, params.clone(), 5, 2);
    again.restore(&through_json(&resumed)).unwrap();
    for _ in 0..40 {
        direct.step().unwrap();
        again.step().unwrap();
        assert_eq!(direct.snapshot().unwrap(), again.snapshot().unwrap());
        assert_eq!(
            direct.target_distance().to_bits(),
            again.target_distance().to_bits()
        );
        deltas.push(direct.target_distance());
    }
    assert!(
        deltas.windows(2).filter(|w| w[0] != w[1]).count() >= 10,
        "δ barely adapted: {deltas:?}"
    );
    // An engine of another seed refuses the state and keeps its own.
    let mut other = engine(4, params, 6, 1);
    let own = other.snapshot().unwrap();
    let error = other.restore(&through_json(&direct)).unwrap_err();
    assert!(
        matches!(error, Error::InvalidSnapshot { ref field, ref value, .. } if field == "seed" && value == "5"),
        "{error}"
    );
    assert_eq!(other.snapshot().unwrap(), own);
}

#[test]
fn bad_parameters_give_typed_errors() {
    let e = DpgaParams::default().with_crossover_rate(1.5).unwrap_err();
    assert_eq!(
        e.to_string(),
        "DPGA: crossover rate must be in [0, 1], got 1.5"
    );
    let too_few_draws = small_params().with_init_max_draws(8).unwrap();
    let result = DpgaCpu::new(too_few_draws, Cec2006Problem::new(1).unwrap(), 1, 1);
    assert!(matches!(result, Err(Error::InvalidParameter { .. })));
    let gpu = DpgaCpu::for_backend(
        small_params(),
        Cec2006Problem::new(1).unwrap(),
        1,
        evo_core::Backend::Cuda { device: 0 },
    );
    assert!(matches!(gpu, Err(Error::InvalidParameter { .. })));
}

#[test]
fn feasible_initialisation_stops_once_m_feasible_candidates_are_found() {
    let e = engine(4, small_params(), 1, 2);
    let s = e.snapshot().unwrap();
    assert!(s.main_values.iter().all(|v| v.feasible));
    assert_eq!(s.evaluations % 32, 0);
    assert!(s.evaluations < 5_000, "{} draws", s.evaluations);
    // g01 has no feasible point among 5000 uniform draws: the slots are filled with the best drawn ones.
    let g01 = engine(1, small_params(), 1, 2);
    assert_eq!(g01.progress().evaluations, 5_000);
    assert!(!g01.best_evaluation().feasible);
    assert_eq!(g01.progress().best_fitness, f64::INFINITY);
}

#[test]
fn the_best_so_far_never_gets_worse_and_elitism_keeps_it_in_the_main_population() {
    let mut e = engine(7, small_params(), 4, 2);
    let mut previous = e.best_evaluation();
    for _ in 0..60 {
        e.step().unwrap();
        let best = e.best_evaluation();
        assert!(best.satisfied >= previous.satisfied);
        if previous.feasible {
            assert!(best.feasible && best.objective <= previous.objective);
        }
        let s = e.snapshot().unwrap();
        assert!(s.main_values.contains(&best));
        previous = best;
    }
}

#[test]
fn the_target_distance_adapts_within_its_range_and_only_with_crossbreeding() {
    let adaptive = small_params()
        .with_target_distance(0.5, 0.2, 0.1, 0.9)
        .unwrap();
    let mut e = engine(4, adaptive, 8, 1);
    let mut seen = Vec::new();
    for _ in 0..30 {
        e.step().unwrap();
        seen.push(e.target_distance());
    }
    assert!(seen.iter().all(|d| (0.1..=0.9).contains(d)));
    assert!(seen.iter().any(|&d| d != 0.5));
    let no_crossbreeding = small_params().with_crossbreed_rate(0.0).unwrap();
    let mut fixed = engine(4, no_crossbreeding, 8, 1);
    run_steps(&mut fixed, 10);
    assert_eq!(fixed.target_distance(), 0.5);
    let initial = engine(4, small_params(), 8, 1).progress().evaluations;
    assert_eq!(fixed.progress().evaluations, initial + 10 * 32);
}

#[test]
fn every_crossover_improves_g04() {
    for crossover in [Crossover::OnePoint, Crossover::TwoPoint, Crossover::Uniform] {
        let mut e = engine(4, small_params().with_crossover(crossover), 12, 2);
        let start = e.progress().best_fitness;
        run_steps(&mut e, 40);
        assert!(e.progress().best_fitness < start, "{crossover:?}");
    }
}

#[test]
fn mcsm_and_deb_rules_steer_the_search_differently() {
    let mut mcsm = engine(7, small_params(), 11, 2);
    let mut deb = engine(
        7,
        small_params().with_constraint_handling(ConstraintHandling::Deb),
        11,
        2,
    );
    run_steps(&mut mcsm, 20);
    run_steps(&mut deb, 20);
    assert_ne!(mcsm.snapshot().unwrap().main, deb.snapshot().unwrap().main);
}
