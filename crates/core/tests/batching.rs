//! Batched stepping: the executor calls `step_many` between the steps where the host is needed, and the
//! reports and checkpoints match a run that steps one generation at a time.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{ScriptedEngine, SphereEngine, temp_path};
use evo_core::{
    Cadence, Checkpointing, Engine, Executor, Observer, Progress, ProgressBarObserver, Report,
    Result, RunFingerprint, Termination, TerminationReason, TracingObserver,
};
use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Wraps an engine and records the length of every `step_many` call and the number of `step` calls.
struct Counting<E> {
    inner: E,
    batches: Vec<u64>,
    single_steps: u64,
    evaluations_per_step: Option<u64>,
}

impl<E> Counting<E> {
    fn new(inner: E) -> Self {
        Self {
            inner,
            batches: Vec::new(),
            single_steps: 0,
            evaluations_per_step: None,
        }
    }
}

impl<E: Engine> Engine for Counting<E> {
    type Solution = E::Solution;
    type Snapshot = E::Snapshot;

    fn algorithm(&self) -> &'static str {
        self.inner.algorithm()
    }
    fn fingerprint(&self) -> Result<RunFingerprint> {
        self.inner.fingerprint()
    }
    fn step(&mut self) -> Result<()> {
        self.single_steps += 1;
        self.inner.step()
    }
    fn step_many(&mut self, steps: u64) -> Result<()> {
        self.batches.push(steps);
        self.inner.step_many(steps)
    }
    fn evaluations_per_step(&self) -> Option<u64> {
        self.evaluations_per_step
    }
    fn progress(&self) -> Progress {
        self.inner.progress()
    }
    fn best(&self) -> Result<(E::Solution, f64)> {
        self.inner.best()
    }
    fn snapshot(&self) -> Result<E::Snapshot> {
        self.inner.snapshot()
    }
    fn restore(&mut self, snapshot: &E::Snapshot) -> Result<()> {
        self.inner.restore(snapshot)
    }
}

/// An observer that wants every step: attaching it makes the executor step one generation at a time,
/// which is the reference the batched runs are compared against.
struct EveryStep;

impl Observer for EveryStep {}

/// Records the generation of every `on_step` call, with a chosen cadence.
#[derive(Clone)]
struct Seen {
    cadence: Cadence,
    generations: Arc<Mutex<Vec<u64>>>,
}

impl Seen {
    fn new(cadence: Cadence) -> Self {
        Self {
            cadence,
            generations: Arc::new(Mutex::new(Vec::new())),
        }
    }
    fn generations(&self) -> Vec<u64> {
        self.generations.lock().unwrap().clone()
    }
}

impl Observer for Seen {
    fn cadence(&self) -> Cadence {
        self.cadence
    }
    fn on_step(&mut self, progress: &Progress, _elapsed: Duration) {
        self.generations.lock().unwrap().push(progress.generation);
    }
}

/// The report without its wall times, which differ between any two runs.
fn timeless<S>(mut report: Report<S>) -> Report<S> {
    report.wall_time_s = 0.0;
    for point in &mut report.history {
        point.elapsed_s = 0.0;
    }
    report
}

/// Runs `engine` as `configure` sets it up, batched and then (with an every-step observer) one step at a
/// time; returns both reports (without wall times) and the batched run's batch lengths.
fn both_ways(
    termination: Termination,
    configure: impl Fn(Executor<Counting<SphereEngine>>) -> Executor<Counting<SphereEngine>>,
) -> (Report<Vec<f32>>, Report<Vec<f32>>, Vec<u64>) {
    let mut batched = configure(Executor::new(Counting::new(SphereEngine::new(6, 3))))
        .with_termination(termination.clone())
        .unwrap();
    let batched_report = timeless(batched.run().unwrap());
    let mut single = configure(Executor::new(Counting::new(SphereEngine::new(6, 3))))
        .with_observer(EveryStep)
        .with_termination(termination)
        .unwrap();
    let single_report = timeless(single.run().unwrap());
    assert!(single.engine().batches.iter().all(|&steps| steps == 1));
    (
        batched_report,
        single_report,
        batched.engine().batches.clone(),
    )
}

#[test]
fn a_generation_limit_alone_is_reached_in_batches_with_the_same_report() {
    let (batched, single, batches) = both_ways(Termination::new().with_max_generations(300), |e| {
        e.with_history_every(1000).unwrap()
    });
    assert_eq!(batched, single);
    assert_eq!(batches.iter().sum::<u64>(), 300);
    assert!(batches.len() < 30, "batches: {batches:?}");
}

#[test]
fn batches_stop_at_every_history_point() {
    let (batched, single, batches) = both_ways(Termination::new().with_max_generations(100), |e| {
        e.with_history_every(7).unwrap()
    });
    assert_eq!(batched, single);
    assert!(batches.iter().all(|&steps| steps <= 7));
    let generations: Vec<u64> = batched.history.iter().map(|p| p.generation).collect();
    let mut expected: Vec<u64> = (0..=100).step_by(7).collect();
    expected.push(100);
    assert_eq!(generations, expected);
}

#[test]
fn an_evaluation_limit_batches_exactly_when_the_engine_counts_evaluations_per_step() {
    // The sphere engine takes 10 evaluations a step and starts at 1: 1001 evaluations need 100 steps.
    let termination = Termination::new().with_max_evaluations(1001);
    let (batched, single, batches) = both_ways(termination.clone(), |_| {
        let engine = Counting {
            evaluations_per_step: Some(10),
            ..Counting::new(SphereEngine::new(6, 3))
        };
        Executor::new(engine).with_history_every(1000).unwrap()
    });
    assert_eq!(batched, single);
    assert_eq!(batched.generations, 100);
    assert!(batches.len() < 20, "batches: {batches:?}");

    // Without the count the limit is checked after every step.
    let mut unknown = Executor::new(Counting::new(SphereEngine::new(6, 3)))
        .with_termination(termination)
        .unwrap();
    assert_eq!(unknown.run().unwrap().generations, 100);
    assert!(unknown.engine().batches.iter().all(|&steps| steps == 1));
}

#[test]
fn rules_that_need_the_best_fitness_keep_single_steps_by_default() {
    for termination in [
        Termination::new()
            .with_target_fitness(1e-3)
            .unwrap()
            .with_max_generations(500),
        Termination::new().with_stagnation(5, 1e-3).unwrap(),
        Termination::new()
            .with_max_wall_time(Duration::from_secs(3600))
            .unwrap()
            .with_max_generations(50),
    ] {
        let (batched, single, batches) =
            both_ways(termination, |e| e.with_history_every(1000).unwrap());
        assert_eq!(batched, single);
        assert!(
            batches.iter().all(|&steps| steps == 1),
            "batches: {batches:?}"
        );
    }
}

#[test]
fn check_every_batches_a_target_and_notices_it_at_the_batch_end() {
    let termination = Termination::new()
        .with_target_fitness(1e-3)
        .unwrap()
        .with_max_generations(10_000);
    let (_, single, _) = both_ways(termination.clone(), |e| e);
    assert_eq!(single.termination, TerminationReason::TargetFitness);
    let mut batched = Executor::new(Counting::new(SphereEngine::new(6, 3)))
        .with_check_every(8)
        .unwrap()
        .with_history_every(8)
        .unwrap()
        .with_termination(termination)
        .unwrap();
    let report = batched.run().unwrap();
    assert_eq!(report.termination, TerminationReason::TargetFitness);
    assert!(report.generations >= single.generations);
    assert!(report.generations < single.generations + 8);
    assert!(batched.engine().batches.iter().all(|&steps| steps <= 8));
    assert!(batched.engine().batches.iter().any(|&steps| steps > 1));
}

#[test]
fn batched_stagnation_never_stops_earlier_than_single_steps() {
    // Improvements at generations 3, 6 and 9, then nothing: per step the run stagnates 4 generations after 9.
    let script = [9.0, 9.0, 9.0, 5.0, 5.0, 5.0, 3.0, 3.0, 3.0, 1.0, 1.0];
    let termination = Termination::new().with_stagnation(4, 0.0).unwrap();
    let single = Executor::new(ScriptedEngine::new(&script))
        .with_observer(EveryStep)
        .with_termination(termination.clone())
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(single.generations, 13);
    let batched = Executor::new(ScriptedEngine::new(&script))
        .with_check_every(4)
        .unwrap()
        .with_history_every(1000)
        .unwrap()
        .with_termination(termination)
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(batched.termination, TerminationReason::Stagnation);
    assert!(batched.generations >= single.generations);
}

#[test]
fn observers_are_called_at_their_cadence() {
    let every_five = Seen::new(Cadence::Steps(NonZeroU64::new(5).unwrap()));
    let per_batch = Seen::new(Cadence::Batches);
    let mut executor = Executor::new(Counting::new(SphereEngine::new(4, 1)))
        .with_observer(every_five.clone())
        .with_observer(per_batch.clone())
        .with_observer(TracingObserver::new().with_every(10).unwrap())
        .with_observer(ProgressBarObserver::hidden())
        .with_history_every(1000)
        .unwrap()
        .with_termination(Termination::new().with_max_generations(42))
        .unwrap();
    executor.run().unwrap();
    assert_eq!(
        every_five.generations(),
        (5..=40).step_by(5).collect::<Vec<_>>()
    );
    let batches = &executor.engine().batches;
    let mut ends = Vec::new();
    let mut generation = 0;
    for steps in batches {
        assert!(*steps <= 5);
        generation += steps;
        ends.push(generation);
    }
    assert_eq!(per_batch.generations(), ends);
    assert!(batches.iter().any(|&steps| steps > 1));
}

#[test]
fn the_default_observer_still_sees_every_step() {
    let every = Seen::new(Cadence::EveryStep);
    let mut executor = Executor::new(Counting::new(SphereEngine::new(4, 1)))
        .with_observer(every.clone())
        .with_termination(Termination::new().with_max_generations(12))
        .unwrap();
    executor.run().unwrap();
    assert_eq!(every.generations(), (1..=12).collect::<Vec<_>>());
}

#[test]
fn checkpoints_of_a_batched_run_resume_to_the_same_report() {
    let termination = Termination::new().with_max_generations(60);
    let reference = timeless(
        Executor::new(SphereEngine::new(5, 9))
            .with_observer(EveryStep)
            .with_history_every(5)
            .unwrap()
            .with_termination(termination.clone())
            .unwrap()
            .run()
            .unwrap(),
    );
    let path = temp_path("batched-checkpoints.ckpt");
    let checkpointing = Checkpointing::new(&path, 10)
        .unwrap()
        .with_last_good_snapshot(false);
    // Stop at 35 generations, batched (checks every 1000 steps), then resume to 60.
    let mut first = Executor::new(Counting::new(SphereEngine::new(5, 9)))
        .with_checkpointing(checkpointing.clone())
        .with_history_every(5)
        .unwrap()
        .with_check_every(1000)
        .unwrap()
        .with_termination(Termination::new().with_max_generations(35))
        .unwrap();
    first.run().unwrap();
    let batches = first.engine().batches.clone();
    assert!(batches.iter().all(|&steps| steps <= 5));
    assert!(batches.iter().any(|&steps| steps > 1));
    drop(first);
    let resumed = Executor::new(SphereEngine::new(5, 9))
        .with_checkpointing(checkpointing)
        .with_history_every(5)
        .unwrap()
        .with_check_every(1000)
        .unwrap()
        .with_termination(termination)
        .unwrap()
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(timeless(resumed), reference);
}

#[test]
fn checkpointing_keeps_single_steps_by_default() {
    let path = temp_path("batched-default-checkpoints.ckpt");
    let checkpointing = Checkpointing::new(&path, 10)
        .unwrap()
        .with_last_good_snapshot(false);
    let mut executor = Executor::new(Counting::new(SphereEngine::new(5, 9)))
        .with_checkpointing(checkpointing)
        .with_termination(Termination::new().with_max_generations(30))
        .unwrap();
    executor.run().unwrap();
    assert!(executor.engine().batches.iter().all(|&steps| steps == 1));
}

#[test]
fn a_failing_batch_returns_the_step_error() {
    let mut executor = Executor::new(Counting::new(SphereEngine::new(4, 1).failing_at(20)))
        .with_history_every(1000)
        .unwrap()
        .with_termination(Termination::new().with_max_generations(100))
        .unwrap();
    assert!(executor.run().is_err());
    assert!(executor.engine().batches.len() > 1);
}

#[test]
fn check_every_zero_is_refused() {
    let error = Executor::new(SphereEngine::new(4, 1))
        .with_check_every(0)
        .err()
        .unwrap();
    assert!(error.to_string().contains("check_every"), "{error}");
}

/// Asks for an interrupt once it sees generation `at` or later.
struct InterruptAt(u64);

impl Observer for InterruptAt {
    fn cadence(&self) -> Cadence {
        Cadence::Batches
    }
    fn on_step(&mut self, progress: &Progress, _elapsed: Duration) {
        if progress.generation >= self.0 {
            evo_core::termination::request_interrupt();
        }
    }
}

#[test]
fn ctrl_c_is_seen_between_batches() {
    // The only test of this binary that watches Ctrl-C, so no other test lowers the flag.
    let mut executor = Executor::new(Counting::new(SphereEngine::new(4, 1)))
        .with_observer(InterruptAt(50))
        .with_history_every(1_000_000)
        .unwrap()
        .with_termination(
            Termination::new()
                .with_max_generations(1_000_000)
                .with_ctrl_c(true),
        )
        .unwrap();
    let report = executor.run().unwrap();
    assert_eq!(report.termination, TerminationReason::Interrupted);
    let batches = &executor.engine().batches;
    assert!(batches.iter().any(|&steps| steps > 1));
    // The run stops after the first batch that reaches generation 50.
    let before_last: u64 = batches[..batches.len() - 1].iter().sum();
    assert!(before_last < 50 && report.generations >= 50);
}

#[test]
fn a_failing_batch_saves_the_state_after_the_last_successful_batch() {
    let path = temp_path("batched-last-good.ckpt");
    let checkpointing = Checkpointing::new(&path, 1_000).unwrap();
    assert!(checkpointing.last_good_snapshot());
    let mut failing = Executor::new(Counting::new(SphereEngine::new(4, 1).failing_at(40)))
        .with_checkpointing(checkpointing.clone())
        .with_check_every(1_000)
        .unwrap()
        .with_history_every(1_000)
        .unwrap()
        .with_termination(Termination::new().with_max_generations(100))
        .unwrap();
    assert!(failing.run().is_err());
    let batches = failing.engine().batches.clone();
    assert!(
        batches.iter().any(|&steps| steps > 1),
        "batches: {batches:?}"
    );
    let good: u64 = batches[..batches.len() - 1].iter().sum();
    assert!(good < 40);
    drop(failing);
    let resumed = Executor::new(SphereEngine::new(4, 1))
        .with_checkpointing(checkpointing)
        .resume_if_present()
        .unwrap();
    assert_eq!(resumed.engine().progress().generation, good);
}

/// The checkpoint at `path` as exported JSON, without the wall time it records.
fn exported_without_time(
    path: &std::path::Path,
    export: fn(&std::path::Path) -> String,
) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_str(&export(path)).unwrap();
    value["executor"]["elapsed"] = serde_json::Value::Null;
    value
}

fn export_sphere(path: &std::path::Path) -> String {
    evo_core::checkpoint::export_json::<common::SphereSnapshot>(path).unwrap()
}

fn export_scripted(path: &std::path::Path) -> String {
    evo_core::checkpoint::export_json::<u64>(path).unwrap()
}

/// The generations at which the batches of `batches` end.
fn batch_ends(batches: &[u64]) -> Vec<u64> {
    batches
        .iter()
        .scan(0, |done, &steps| {
            *done += steps;
            Some(*done)
        })
        .collect()
}

#[test]
fn a_checkpointed_run_that_stopped_improving_steps_from_checkpoint_to_checkpoint() {
    let run = |name: &str, single_steps: bool| {
        let path = temp_path(name);
        let mut engine = SphereEngine::new(5, 9);
        engine.frozen = true;
        let mut executor = Executor::new(Counting::new(engine))
            .with_checkpointing(Checkpointing::new(&path, 10).unwrap())
            .with_history_every(1_000_000)
            .unwrap()
            .with_termination(Termination::new().with_max_generations(1000))
            .unwrap();
        if single_steps {
            executor = executor.with_observer(EveryStep);
        }
        let report = timeless(executor.run().unwrap());
        let batches = executor.engine().batches.clone();
        (report, batches, exported_without_time(&path, export_sphere))
    };
    let (report, batches, checkpoint) = run("frozen-batched.ckpt", false);
    let (reference, single, reference_checkpoint) = run("frozen-single.ckpt", true);
    assert_eq!(single.len(), 1000);
    // A few growing batches up to the first checkpoint, then one batch per checkpoint period.
    assert!(batches.len() <= 1000 / 10 + 4, "batches: {batches:?}");
    let ends = batch_ends(&batches);
    for checkpoint in (10..=1000).step_by(10) {
        assert!(ends.contains(&checkpoint), "no batch ends at {checkpoint}");
    }
    assert!(batches.iter().all(|&steps| steps <= 10));
    assert_eq!(report, reference);
    assert_eq!(checkpoint, reference_checkpoint);
}

#[test]
fn a_batch_that_improved_before_its_last_step_is_replayed_for_an_exact_checkpoint() {
    // The best improves at generation 8, inside the batch 7..10 that a run stepping 1, 2, 4, ... takes.
    let script = [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 9.0];
    for last_good in [true, false] {
        for stop in [10, 20] {
            let run = |name: String, single_steps: bool| {
                let path = temp_path(&name);
                let checkpointing = Checkpointing::new(&path, 10)
                    .unwrap()
                    .with_last_good_snapshot(last_good);
                let mut executor = Executor::new(Counting::new(ScriptedEngine::new(&script)))
                    .with_checkpointing(checkpointing)
                    .with_history_every(1_000_000)
                    .unwrap()
                    .with_termination(Termination::new().with_max_generations(stop))
                    .unwrap();
                if single_steps {
                    executor = executor.with_observer(EveryStep);
                }
                let report = timeless(executor.run().unwrap());
                let batches = executor.engine().batches.clone();
                (
                    report,
                    batches,
                    exported_without_time(&path, export_scripted),
                )
            };
            let (report, batches, checkpoint) =
                run(format!("replayed-{last_good}-{stop}.ckpt"), false);
            let (reference, _, reference_checkpoint) =
                run(format!("replayed-single-{last_good}-{stop}.ckpt"), true);
            assert!(
                batches.iter().any(|&steps| steps > 1),
                "batches: {batches:?}"
            );
            // The replay re-took the improving batch's steps.
            assert!(batches.iter().sum::<u64>() > stop, "batches: {batches:?}");
            assert_eq!(report, reference);
            assert_eq!(checkpoint, reference_checkpoint);
            assert_eq!(
                checkpoint["executor"]["stagnation"]["stagnant_generations"],
                stop - 8
            );
        }
    }
}
