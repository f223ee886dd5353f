//! The executor: every termination rule, history, observers, reports.

// Helpers outside `#[test]` functions unwrap too: a failure there is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{ScriptedEngine, SphereEngine, temp_path};
use evo_core::{
    Engine, Error, Executor, Observer, Progress, ProgressBarObserver, Report, Summary, Termination,
    TerminationReason, TracingObserver,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn run<E: Engine>(engine: E, termination: Termination) -> Report<E::Solution> {
    Executor::new(engine)
        .with_termination(termination)
        .unwrap()
        .run()
        .unwrap()
}

#[test]
fn max_generations_stops_exactly_there() {
    let report = run(
        SphereEngine::new(4, 1),
        Termination::new().with_max_generations(17),
    );
    assert_eq!(report.termination, TerminationReason::MaxGenerations);
    assert_eq!(report.generations, 17);
    assert_eq!(report.evaluations, 1 + 17 * 10);
    assert_eq!(report.algorithm, "sphere-toy");
}

#[test]
fn zero_generations_takes_no_step() {
    let report = run(
        SphereEngine::new(4, 1),
        Termination::new().with_max_generations(0),
    );
    assert_eq!(report.generations, 0);
    assert_eq!(report.evaluations, 1);
    assert_eq!(report.history.len(), 1);
}

#[test]
fn max_evaluations_finishes_the_crossing_generation() {
    let report = run(
        SphereEngine::new(4, 1),
        Termination::new().with_max_evaluations(95),
    );
    assert_eq!(report.termination, TerminationReason::MaxEvaluations);
    // 1 + 10 g >= 95 first holds at g = 10.
    assert_eq!(report.generations, 10);
    assert_eq!(report.evaluations, 101);
}

#[test]
fn target_fitness_stops_when_best_reaches_it() {
    let script = [10.0, 5.0, 2.0, 1.0, 0.5, 0.1];
    let termination = Termination::new()
        .with_max_generations(100)
        .with_target_fitness(1.0)
        .unwrap();
    let report = run(ScriptedEngine::new(&script), termination);
    assert_eq!(report.termination, TerminationReason::TargetFitness);
    assert_eq!(report.generations, 3);
    assert_eq!(report.best_fitness, 1.0);
}

#[test]
fn target_fitness_wins_over_other_rules_that_hold_at_once() {
    let termination = Termination::new()
        .with_max_generations(3)
        .with_target_fitness(1.0)
        .unwrap();
    let report = run(ScriptedEngine::new(&[10.0, 5.0, 2.0, 1.0]), termination);
    assert_eq!(report.termination, TerminationReason::TargetFitness);
}

#[test]
fn wall_time_stops_a_slow_run() {
    let mut engine = SphereEngine::new(4, 1);
    engine.sleep = Duration::from_millis(5);
    let termination = Termination::new()
        .with_max_generations(10_000)
        .with_max_wall_time(Duration::from_millis(40))
        .unwrap();
    let report = run(engine, termination);
    assert_eq!(report.termination, TerminationReason::WallTime);
    assert!(report.wall_time_s >= 0.04, "{}", report.wall_time_s);
    assert!(report.generations >= 1 && report.generations < 10_000);
}

#[test]
fn stagnation_counts_generations_without_enough_improvement() {
    // Improvements of 0.5 count against min_improvement 0.1; the tiny ones (0.01) do not, so from the best
    // 7.0 at generation 3, generations 4..=7 are stagnant and the fourth of them ends the run.
    let script = [10.0, 9.5, 9.0, 7.0, 6.99, 6.98, 6.97, 6.96, 6.95, 6.94];
    let termination = Termination::new()
        .with_max_generations(100)
        .with_stagnation(4, 0.1)
        .unwrap();
    let report = run(ScriptedEngine::new(&script), termination);
    assert_eq!(report.termination, TerminationReason::Stagnation);
    assert_eq!(report.generations, 7);
}

#[test]
fn stagnation_with_zero_threshold_counts_any_improvement() {
    let mut engine = SphereEngine::new(4, 1);
    engine.frozen = true;
    let termination = Termination::new()
        .with_max_generations(100)
        .with_stagnation(5, 0.0)
        .unwrap();
    let report = run(engine, termination);
    assert_eq!(report.termination, TerminationReason::Stagnation);
    assert_eq!(report.generations, 5);
}

#[test]
fn a_run_without_termination_is_refused() {
    let error = Executor::new(SphereEngine::new(2, 1)).run().unwrap_err();
    assert!(matches!(
        error,
        Error::InvalidParameter {
            algorithm: "Executor",
            name: "termination",
            ..
        }
    ));
    let error = Executor::new(SphereEngine::new(2, 1))
        .with_termination(Termination::new().with_ctrl_c(true))
        .err()
        .unwrap();
    assert!(
        matches!(
            error,
            Error::InvalidParameter {
                algorithm: "Termination",
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("at least one of"), "{error}");
}

#[test]
fn termination_setters_reject_bad_values() {
    let bad = [
        Termination::new().with_target_fitness(f64::NAN).err(),
        Termination::new()
            .with_target_fitness(f64::NEG_INFINITY)
            .err(),
        Termination::new().with_max_wall_time(Duration::ZERO).err(),
        Termination::new().with_stagnation(0, 0.1).err(),
        Termination::new().with_stagnation(5, -1.0).err(),
        Termination::new().with_stagnation(5, f64::INFINITY).err(),
    ];
    for error in bad {
        assert!(
            matches!(
                error,
                Some(Error::InvalidParameter {
                    algorithm: "Termination",
                    ..
                })
            ),
            "{error:?}"
        );
    }
}

#[test]
fn history_holds_initial_every_nth_and_final_points() {
    let report = Executor::new(SphereEngine::new(4, 1))
        .with_termination(Termination::new().with_max_generations(10))
        .unwrap()
        .with_history_every(4)
        .unwrap()
        .run()
        .unwrap();
    let generations: Vec<u64> = report.history.iter().map(|p| p.generation).collect();
    assert_eq!(generations, [0, 4, 8, 10]);
    let last = report.history.last().unwrap();
    assert_eq!(
        (last.evaluations, last.best_fitness),
        (report.evaluations, report.best_fitness)
    );
    assert!(
        report
            .history
            .windows(2)
            .all(|w| w[1].best_fitness <= w[0].best_fitness)
    );
    let error = Executor::new(SphereEngine::new(4, 1))
        .with_history_every(0)
        .err()
        .unwrap();
    assert!(matches!(
        error,
        Error::InvalidParameter {
            algorithm: "Executor",
            name: "history_every",
            ..
        }
    ));
}

/// Records every call, shared with the test through an `Arc`.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Observer for Recorder {
    fn on_start(&mut self, algorithm: &str, progress: &Progress, _termination: &Termination) {
        self.0
            .lock()
            .unwrap()
            .push(format!("start {algorithm} {}", progress.generation));
    }
    fn on_step(&mut self, progress: &Progress, _elapsed: Duration) {
        self.0
            .lock()
            .unwrap()
            .push(format!("step {}", progress.generation));
    }
    fn on_finish(&mut self, summary: &Summary) {
        self.0.lock().unwrap().push(format!(
            "finish {} {:?}",
            summary.generations, summary.termination
        ));
    }
}

#[test]
fn observers_see_start_each_step_and_finish() {
    let recorder = Recorder::default();
    let boxed: Box<dyn Observer + Send> = Box::new(TracingObserver::new().with_every(2).unwrap());
    Executor::new(SphereEngine::new(4, 1))
        .with_termination(Termination::new().with_max_generations(3))
        .unwrap()
        .with_observer(recorder.clone())
        .with_observer(ProgressBarObserver::hidden())
        .with_observer(boxed)
        .run()
        .unwrap();
    let calls = recorder.0.lock().unwrap().clone();
    assert_eq!(
        calls,
        [
            "start sphere-toy 0",
            "step 1",
            "step 2",
            "step 3",
            "finish 3 MaxGenerations"
        ]
    );
    assert!(TracingObserver::new().with_every(0).is_err());
    assert!(!ProgressBarObserver::hidden().is_visible());
}

#[test]
fn a_failing_step_returns_its_error() {
    let error = Executor::new(SphereEngine::new(4, 1).failing_at(3))
        .with_termination(Termination::new().with_max_generations(10))
        .unwrap()
        .run()
        .unwrap_err();
    assert!(
        matches!(error, Error::NonFiniteFitness { individual: 3, .. }),
        "{error}"
    );
}

#[test]
fn report_carries_metadata_and_round_trips_through_json() {
    let report = Executor::new(SphereEngine::new(3, 9))
        .with_termination(Termination::new().with_max_generations(5))
        .unwrap()
        .with_metadata("backend", evo_core::Backend::cpu())
        .with_metadata("seed", 9)
        .run()
        .unwrap();
    assert_eq!(report.metadata["backend"], "cpu");
    assert_eq!(report.metadata["seed"], "9");
    let json = report.to_json_pretty().unwrap();
    let back: Report<Vec<f32>> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);
    let path = temp_path("report.json");
    report.write_json(&path).unwrap();
    let read: Report<Vec<f32>> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(read, report);
}

#[test]
fn running_again_continues_the_same_run() {
    let mut executor = Executor::new(SphereEngine::new(4, 2))
        .with_termination(Termination::new().with_max_generations(6))
        .unwrap();
    let first = executor.run().unwrap();
    let second = executor.run().unwrap();
    assert_eq!(second.generations, first.generations);
    assert_eq!(second.best, first.best);
    assert_eq!(executor.engine().progress().generation, 6);
}
