//! [`RunBuilder`]: the `Run` builder of every algorithm crate, written once; [`RunAlgorithm`] is what each
//! crate adds (whether the CUDA engine evaluates a problem, how each engine is built, the default stopping
//! rules); [`backend_choice`] is the rule that picks the backend and the reason the report records.

mod backend_choice;

pub use backend_choice::{
    BACKEND_REASON, BackendChoice, DeviceSupport, GpuPresence, choose_backend,
};

use crate::backend::Backend;
use crate::checkpoint::Checkpointing;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::observers::Observer;
use crate::report::Report;
use crate::run_options::RunOptions;
use crate::termination::{StopToken, Termination};

/// What an algorithm crate tells [`RunBuilder`]: whether its CUDA engine evaluates a problem, what the
/// driver offers, how to build its CPU and CUDA engines, and which stopping rules a run takes.
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

    /// Whether the CUDA engine evaluates `problem`. The default, [`DeviceSupport::Evaluated`], is for an
    /// algorithm whose problem bound already asks for a device evaluation; an algorithm that also accepts
    /// CPU-only problems returns [`DeviceSupport::Missing`] for them, naming what to implement, so that
    /// `Backend::Auto` says why it took the CPU and `Backend::Cuda` is refused
    /// ([`Error::NoDeviceEvaluation`]).
    fn device_support(problem: &Self::Problem) -> DeviceSupport {
        let _ = problem;
        DeviceSupport::Evaluated
    }

    /// What this machine offers `Backend::Auto`, asked only when the problem has a device evaluation:
    /// `GpuPresence::from_device_count(evo_gpu_runtime::device_count())` in every algorithm crate.
    ///
    /// # Errors
    /// A driver that is present but fails.
    fn gpu_presence() -> Result<GpuPresence>;

    /// The problem's name, which the report's metadata records as `problem`.
    fn problem_name(problem: &Self::Problem) -> String;

    /// Further facts about the problem the report's metadata records (none by default).
    fn problem_metadata(problem: &Self::Problem) -> Vec<(&'static str, String)> {
        let _ = problem;
        Vec::new()
    }

    /// The CPU engine for `backend` (a `Backend::Cpu`, as asked or as `Backend::Auto` chose it).
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
    /// Parameter and problem errors; GPU errors ([`Error::NoGpu`], [`Error::NoSuchDevice`] when `device`
    /// cannot be opened).
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
/// "Batching"): each history point needs the host, so the history defaults to
/// [`default_history_every`](crate::default_history_every) (about 100 points over a generation budget, at
/// most 100 generations apart); with a target, wall-time, stagnation rule, evaluation limit or checkpoints,
/// set [`check_every`](Self::check_every) too for runs at the engine's speed.
///
/// The report's metadata records the backend as chosen (`backend`), why ([`BACKEND_REASON`]), the seed and
/// the problem's name; a CUDA run also records the device's name (and the profile where the algorithm
/// records one).
///
/// # The backend
/// The run never falls back silently. `Backend::Cpu` and `Backend::Cuda` run as asked, except that
/// `Backend::Cuda` for a problem the CUDA engine cannot evaluate ([`RunAlgorithm::device_support`]) is
/// refused with [`Error::NoDeviceEvaluation`], naming the problem and what to implement. `Backend::Auto`
/// takes CUDA device 0 when the driver has a device and the problem has a device evaluation, the CPU on
/// all cores otherwise, and the report's `backend_reason` says which held: "Backend::Auto: CUDA device 0
/// is present and the CUDA engine evaluates the problem", "Backend::Auto: no CUDA device (the CUDA driver
/// library (libcuda) was not found)", or, for an algorithm that also accepts problems without a device
/// evaluation, "Backend::Auto: the problem `knapsack` has no device evaluation for … (to run it on the GPU,
/// implement …)". A driver that is present but fails is an error, not a CPU run.
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

    /// The backend (default `Backend::Auto`; see "The backend" above).
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

    /// A history point every `every` steps (default [`default_history_every`](crate::default_history_every)
    /// of the generation budget; 0 is refused when the run starts). The history needs the host at every
    /// point, so a larger value lets the executor batch more steps.
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

    /// Stops gracefully once `token` is stopped, this run alone ([`Termination::with_stop_token`]).
    pub fn stop_token(mut self, token: StopToken) -> Self {
        self.options.stop_token = Some(token);
        self
    }

    /// Builds the algorithm's engine on the backend and runs it.
    ///
    /// # Errors
    /// The errors of [`RunAlgorithm::termination`] (no termination where the algorithm needs one);
    /// [`Error::NoDeviceEvaluation`] for `Backend::Cuda` with a problem the CUDA engine cannot evaluate;
    /// the errors of [`RunAlgorithm::gpu_presence`] (for `Backend::Auto`), [`RunAlgorithm::cpu_engine`]
    /// and [`RunAlgorithm::cuda_engine`];
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
        let name = A::problem_name(&problem);
        let choice = backend_choice::choose_backend(
            A::NAME,
            backend,
            &name,
            A::device_support(&problem),
            A::gpu_presence,
        )?;
        let mut metadata = vec![
            ("backend", choice.backend.to_string()),
            (BACKEND_REASON, choice.reason),
            ("seed", seed.to_string()),
            ("problem", name),
        ];
        metadata.extend(A::problem_metadata(&problem));
        match choice.backend {
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
                let engine = A::cpu_engine(params, problem, seed, choice.backend)?;
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

    /// An algorithm that needs a termination, sees CUDA device 2 on this machine, evaluates every problem on
    /// the device but [`CPU_ONLY`], and records the problem's dimension.
    struct Toy;

    /// The problem [`Toy`]'s CUDA engine cannot evaluate.
    const CPU_ONLY: &str = "cpu-only problem";

    impl RunAlgorithm for Toy {
        const NAME: &'static str = "toy::Run";
        type Params = ();
        type Problem = &'static str;
        type Solution = String;
        type CpuEngine = Count;
        type CudaEngine = Count;

        fn device_support(problem: &&'static str) -> DeviceSupport {
            if *problem == CPU_ONLY {
                DeviceSupport::Missing {
                    remedy: "implement `toy::DeviceToy`",
                }
            } else {
                DeviceSupport::Evaluated
            }
        }
        fn gpu_presence() -> Result<GpuPresence> {
            Ok(GpuPresence::Device(2))
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
            ("backend_reason", "cpu:1 was asked for"),
            ("seed", "9"),
            ("problem", "toy problem"),
            ("dimension", "3"),
        ];
        assert_eq!(report.metadata, metadata(&expected));
    }

    #[test]
    fn an_auto_run_takes_the_present_device_and_records_why_with_device_and_profile() {
        let report = toy().termination(five_generations()).run().unwrap();
        assert_eq!(report.best, "cuda engine on 2");
        let expected = [
            ("backend", "cuda:2"),
            (
                "backend_reason",
                "Backend::Auto: CUDA device 2 is present and the CUDA engine evaluates the problem",
            ),
            ("seed", "9"),
            ("problem", "toy problem"),
            ("dimension", "3"),
            ("device", "Toy GPU"),
            ("profile", "exact"),
        ];
        assert_eq!(report.metadata, metadata(&expected));
    }

    #[test]
    fn an_auto_run_of_a_problem_without_a_device_evaluation_runs_on_every_core_and_says_why() {
        let report = RunBuilder::<Toy>::new((), CPU_ONLY, 9)
            .termination(five_generations())
            .run()
            .unwrap();
        assert_eq!(report.best, "cpu engine for cpu");
        assert_eq!(report.metadata["backend"], "cpu");
        assert_eq!(
            report.metadata["backend_reason"],
            "Backend::Auto: the problem `cpu-only problem` has no device evaluation for toy::Run \
             (to run it on the GPU, implement `toy::DeviceToy`)"
        );
    }

    #[test]
    fn a_cuda_run_of_a_problem_without_a_device_evaluation_is_refused_naming_problem_and_trait() {
        let error = RunBuilder::<Toy>::new((), CPU_ONLY, 9)
            .backend(Backend::cuda(0))
            .termination(five_generations())
            .run()
            .unwrap_err();
        assert!(
            matches!(
                &error,
                Error::NoDeviceEvaluation {
                    algorithm: "toy::Run",
                    problem,
                    remedy: "implement `toy::DeviceToy`",
                } if problem == CPU_ONLY
            ),
            "{error}"
        );
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
