//! [`RunBuilder`]: the `Run` builder of every algorithm crate, written once; [`RunAlgorithm`] is what each
//! crate adds (which backend a problem runs on, how each engine is built, the default stopping rules).

use crate::backend::Backend;
use crate::checkpoint::Checkpointing;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::observers::Observer;
use crate::report::Report;
use crate::run_options::RunOptions;
use crate::termination::Termination;

/// What an algorithm crate tells [`RunBuilder`]: how to choose the backend for a problem, how to build its
/// CPU and CUDA engines there, and which stopping rules a run takes.
///
/// A crate implements it on a marker type (`evo_de::DeRun<P>`, never built) and names the builder
/// `pub type Run<P> = RunBuilder<DeRun<P>>`, so every crate's `Run` offers the same options with the same
/// contract. evo-core has no GPU dependency: the crate opens the device in
/// [`cuda_engine`](Self::cuda_engine).
pub trait RunAlgorithm {
    /// The builder's name as users write it (`"evo_de::Run"`), which its errors name.
    const NAME: &'static str;
    /// The algorithm's parameters.
    type Params;
    /// The problem as the builder holds it (a value, or a reference where the engines borrow it).
    type Problem;
    /// The solution both engines report.
    type Solution;
    /// The engine a `Backend::Cpu` runs.
    type CpuEngine: Engine<Solution = Self::Solution>;
    /// The engine a `Backend::Cuda` runs.
    type CudaEngine: Engine<Solution = Self::Solution>;

    /// The stopping rules of a run from `chosen`, the rules set with [`RunBuilder::termination`] (`None` when
    /// none were). The default takes `chosen` as it is and refuses a run without it; an algorithm whose
    /// parameters carry a budget returns that budget instead.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming [`NAME`](Self::NAME) when the algorithm needs rules and none
    /// were set.
    fn termination(params: &Self::Params, chosen: Option<Termination>) -> Result<Termination> {
        let _ = params;
        chosen.ok_or_else(|| {
            Error::invalid_parameter(
                Self::NAME,
                "termination",
                "none",
                "set with Run::termination",
            )
        })
    }

    /// The backend the run takes for `backend` on `problem`: `Backend::Cpu` or `Backend::Cuda`, never
    /// `Backend::Auto`.
    ///
    /// # Errors
    /// The errors of resolving `Backend::Auto` (a broken driver).
    fn resolve_backend(backend: Backend, problem: &Self::Problem) -> Result<Backend>;

    /// The problem's name, which the report's metadata records as `problem`.
    fn problem_name(problem: &Self::Problem) -> String;

    /// Further facts about the problem the report's metadata records (none by default).
    fn problem_metadata(problem: &Self::Problem) -> Vec<(&'static str, String)> {
        let _ = problem;
        Vec::new()
    }

    /// The CPU engine for `backend` (a `Backend::Cpu` from [`resolve_backend`](Self::resolve_backend)).
    ///
    /// # Errors
    /// Parameter and problem errors; an invalid thread count.
    fn cpu_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        backend: Backend,
    ) -> Result<Self::CpuEngine>;

    /// The CUDA engine on device `device`, with the device's name.
    ///
    /// # Errors
    /// Parameter and problem errors (among them a problem the CUDA engine cannot evaluate); GPU errors.
    fn cuda_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        device: usize,
    ) -> Result<OnDevice<Self::CudaEngine>>;
}

/// A CUDA engine with what the report's metadata records about where it runs: the device's name
/// (`device`) and, when the algorithm records one, the kernel profile (`profile`).
pub struct OnDevice<E> {
    engine: E,
    device: String,
    profile: Option<&'static str>,
}

impl<E> OnDevice<E> {
    /// `engine` on the device named `device`, with no profile recorded.
    pub fn new(engine: E, device: impl Into<String>) -> Self {
        Self {
            engine,
            device: device.into(),
            profile: None,
        }
    }

    /// Records the kernel profile the engine was built under (`"exact"`).
    pub fn with_profile(mut self, profile: &'static str) -> Self {
        self.profile = Some(profile);
        self
    }
}

/// One run of algorithm `A` with options, a thin layer over [`Executor`]: parameters, problem and seed,
/// then the backend (default `Backend::Auto`), the stopping rules ([`RunAlgorithm::termination`] says
/// whether they are required and what they default to), observers, checkpoints, Ctrl-C and the history and
/// check cadences. Without options it runs exactly as the algorithm crate's one-call `run`.
///
/// The executor batches generations between the steps where the host is needed (see [`Executor`]'s
/// "Batching"): a history point every step (the default) needs the host every step, so set
/// [`history_every`](Self::history_every) (and, with a target, wall-time, stagnation rule, evaluation limit
/// or checkpoints, [`check_every`](Self::check_every)) for runs at the engine's speed.
///
/// The report's metadata records the backend as resolved, the seed and the problem's name; a CUDA run
/// also records the device's name (and the profile where the algorithm records one).
pub struct RunBuilder<A: RunAlgorithm> {
    params: A::Params,
    problem: A::Problem,
    seed: u64,
    backend: Backend,
    termination: Option<Termination>,
    options: RunOptions,
}

impl<A: RunAlgorithm> RunBuilder<A> {
    /// The algorithm with `params` on `problem` from `seed`, on `Backend::Auto`, with no termination set.
    pub fn new(params: A::Params, problem: A::Problem, seed: u64) -> Self {
        Self {
            params,
            problem,
            seed,
            backend: Backend::Auto,
            termination: None,
            options: RunOptions::default(),
        }
    }

    /// The backend (default `Backend::Auto`, which [`RunAlgorithm::resolve_backend`] resolves).
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = backend;
        self
    }

    /// The stopping rules, as [`RunAlgorithm::termination`] takes them.
    pub fn termination(mut self, termination: Termination) -> Self {
        self.termination = Some(termination);
        self
    }

    /// Adds an observer ([`Executor::with_observer`]).
    pub fn observer(mut self, observer: impl Observer + Send + 'static) -> Self {
        self.options.observers.push(Box::new(observer));
        self
    }

    /// Saves checkpoints ([`Executor::with_checkpointing`]).
    pub fn checkpoint(mut self, checkpointing: Checkpointing) -> Self {
        self.options.checkpointing = Some(checkpointing);
        self
    }

    /// Continues from the checkpoint file when it exists ([`Executor::resume_if_present`]; needs
    /// [`checkpoint`](Self::checkpoint)).
    pub fn resume_if_present(mut self, resume: bool) -> Self {
        self.options.resume = resume;
        self
    }

    /// A history point every `every` steps (default 1; 0 is refused when the run starts). The history
    /// needs the host at every point, so a larger value lets the executor batch more steps.
    pub fn history_every(mut self, every: u64) -> Self {
        self.options.history_every = Some(every);
        self
    }

    /// Checks the rules that need the host (target, wall time, stagnation, checkpoints' stagnation
    /// counter) every `every` steps ([`Executor::with_check_every`]; default 1; 0 is refused when the run
    /// starts).
    pub fn check_every(mut self, every: u64) -> Self {
        self.options.check_every = Some(every);
        self
    }

    /// Stops gracefully on Ctrl-C ([`Termination::with_ctrl_c`]).
    pub fn ctrl_c(mut self, enabled: bool) -> Self {
        self.options.ctrl_c = enabled;
        self
    }

    /// Builds the algorithm's engine on the backend and runs it.
    ///
    /// # Errors
    /// The errors of [`RunAlgorithm::termination`] (no termination where the algorithm needs one),
    /// [`RunAlgorithm::resolve_backend`], [`RunAlgorithm::cpu_engine`] and [`RunAlgorithm::cuda_engine`];
    /// [`Error::InvalidParameter`] for an option out of range (a 0 cadence, a termination that cannot end
    /// the run, a resume without checkpointing); the errors of [`Executor::resume_if_present`] and
    /// [`Executor::run`].
    pub fn run(self) -> Result<Report<A::Solution>> {
        let Self {
            params,
            problem,
            seed,
            backend,
            termination,
            options,
        } = self;
        let termination = A::termination(&params, termination)?;
        let resolved = A::resolve_backend(backend, &problem)?;
        let mut metadata = vec![
            ("backend", resolved.to_string()),
            ("seed", seed.to_string()),
            ("problem", A::problem_name(&problem)),
        ];
        metadata.extend(A::problem_metadata(&problem));
        match resolved {
            Backend::Cuda { device } => {
                let on_device = A::cuda_engine(params, problem, seed, device)?;
                metadata.push(("device", on_device.device));
                metadata.extend(
                    on_device
                        .profile
                        .map(|profile| ("profile", profile.to_string())),
                );
                run_engine(on_device.engine, metadata, options, termination)
            }
            _ => {
                let engine = A::cpu_engine(params, problem, seed, resolved)?;
                run_engine(engine, metadata, options, termination)
            }
        }
    }
}

/// Runs `engine` under `termination` and `options`, with every `(key, value)` of `metadata` in its report.
fn run_engine<E: Engine>(
    engine: E,
    metadata: Vec<(&'static str, String)>,
    options: RunOptions,
    termination: Termination,
) -> Result<Report<E::Solution>> {
    let executor = metadata
        .into_iter()
        .fold(Executor::new(engine), |executor, (key, value)| {
            executor.with_metadata(key, value)
        });
    options.apply(executor, termination)?.run()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::engine::Progress;
    use crate::fingerprint::{ProblemIdentity, RunFingerprint};
    use crate::observers::Cadence;
    use std::collections::BTreeMap;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    /// Counts generations; its best solution names the engine that was built and for which backend.
    struct Count {
        built: String,
        generation: u64,
    }

    impl Count {
        fn new(built: String) -> Self {
            Self {
                built,
                generation: 0,
            }
        }
    }

    impl Engine for Count {
        type Solution = String;
        type Snapshot = u64;

        fn algorithm(&self) -> &'static str {
            "count"
        }
        fn fingerprint(&self) -> Result<RunFingerprint> {
            RunFingerprint::new(0, &(), ProblemIdentity::new("count", 1))
        }
        fn step(&mut self) -> Result<()> {
            self.generation += 1;
            Ok(())
        }
        fn progress(&self) -> Progress {
            Progress {
                generation: self.generation,
                evaluations: self.generation,
                best_fitness: 1.0 / (1.0 + self.generation as f64),
            }
        }
        fn best(&self) -> Result<(String, f64)> {
            Ok((self.built.clone(), self.progress().best_fitness))
        }
        fn snapshot(&self) -> Result<u64> {
            Ok(self.generation)
        }
        fn restore(&mut self, generation: &u64) -> Result<()> {
            self.generation = *generation;
            Ok(())
        }
    }

    /// An algorithm that needs a termination, resolves `Auto` to CUDA device 2 and records the problem's
    /// dimension.
    struct Toy;

    impl RunAlgorithm for Toy {
        const NAME: &'static str = "toy::Run";
        type Params = ();
        type Problem = &'static str;
        type Solution = String;
        type CpuEngine = Count;
        type CudaEngine = Count;

        fn resolve_backend(backend: Backend, _problem: &&'static str) -> Result<Backend> {
            Ok(match backend {
                Backend::Auto => Backend::cuda(2),
                other => other,
            })
        }
        fn problem_name(problem: &&'static str) -> String {
            (*problem).to_string()
        }
        fn problem_metadata(_problem: &&'static str) -> Vec<(&'static str, String)> {
            vec![("dimension", "3".to_string())]
        }
        fn cpu_engine(_: (), _: &'static str, _: u64, backend: Backend) -> Result<Count> {
            Ok(Count::new(format!("cpu engine for {backend}")))
        }
        fn cuda_engine(_: (), _: &'static str, _: u64, device: usize) -> Result<OnDevice<Count>> {
            Ok(
                OnDevice::new(Count::new(format!("cuda engine on {device}")), "Toy GPU")
                    .with_profile("exact"),
            )
        }
    }

    fn toy() -> RunBuilder<Toy> {
        RunBuilder::new((), "toy problem", 9)
    }

    fn five_generations() -> Termination {
        Termination::new().with_max_generations(5)
    }

    fn metadata(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect()
    }

    #[test]
    fn a_cpu_run_builds_the_cpu_engine_and_records_backend_seed_and_problem() {
        let report = toy()
            .backend(Backend::Cpu { threads: 1 })
            .termination(five_generations())
            .run()
            .unwrap();
        assert_eq!(report.best, "cpu engine for cpu:1");
        assert_eq!(report.generations, 5);
        let expected = [
            ("backend", "cpu:1"),
            ("seed", "9"),
            ("problem", "toy problem"),
            ("dimension", "3"),
        ];
        assert_eq!(report.metadata, metadata(&expected));
    }

    #[test]
    fn an_auto_run_takes_the_resolved_backend_and_records_device_and_profile() {
        let report = toy().termination(five_generations()).run().unwrap();
        assert_eq!(report.best, "cuda engine on 2");
        let expected = [
            ("backend", "cuda:2"),
            ("seed", "9"),
            ("problem", "toy problem"),
            ("dimension", "3"),
            ("device", "Toy GPU"),
            ("profile", "exact"),
        ];
        assert_eq!(report.metadata, metadata(&expected));
    }

    #[test]
    fn a_missing_termination_is_refused_naming_the_builder() {
        let error = toy().run().unwrap_err();
        assert!(
            matches!(
                error,
                Error::InvalidParameter {
                    algorithm: "toy::Run",
                    name: "termination",
                    ..
                }
            ),
            "{error}"
        );
    }

    /// Counts its `on_step` calls.
    struct Calls(Arc<AtomicU64>);

    impl Observer for Calls {
        fn cadence(&self) -> Cadence {
            Cadence::EveryStep
        }
        fn on_step(&mut self, _progress: &Progress, _elapsed: Duration) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn the_options_reach_the_executor() {
        let calls = Arc::new(AtomicU64::new(0));
        let report = toy()
            .termination(five_generations())
            .history_every(2)
            .observer(Calls(Arc::clone(&calls)))
            .run()
            .unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), 5);
        let by_hand = Executor::new(Count::new("cuda engine on 2".to_string()))
            .with_termination(five_generations())
            .unwrap()
            .with_history_every(2)
            .unwrap()
            .run()
            .unwrap();
        let generations = |report: &Report<String>| {
            report
                .history
                .iter()
                .map(|point| point.generation)
                .collect::<Vec<_>>()
        };
        assert_eq!(generations(&report), generations(&by_hand));
        assert_ne!(generations(&report), (0..=5).collect::<Vec<_>>());
    }

    #[test]
    fn options_out_of_range_are_refused_when_the_run_starts() {
        let refused = |builder: RunBuilder<Toy>| {
            builder
                .termination(five_generations())
                .run()
                .unwrap_err()
                .to_string()
        };
        let history = refused(toy().history_every(0));
        assert!(history.contains("history_every"), "{history}");
        let checks = refused(toy().check_every(0));
        assert!(checks.contains("check_every"), "{checks}");
        let resume = refused(toy().resume_if_present(true));
        assert!(resume.contains("checkpoint"), "{resume}");
    }
}
