//! The population split for expensive fitness (cargo feature `nccl`): one population, its evaluation spread
//! over the GPUs of one process.
//!
//! [`SplitProblem`] wraps any [`DeviceRealProblem`] (built-in kernels, a user's CUDA source, a user's own
//! kernels) with a list of GPUs. It is itself a [`DeviceRealProblem`], so DE's and MA-SW-Chains' CUDA
//! engines take it as they take any other (DE through [`evo_de::DeviceEvaluated`] or directly, MA-SW-Chains
//! directly) and need no change: the engine runs on one GPU of the list, and its evaluator is a
//! [`SplitEvaluator`] that holds one evaluator of the problem per GPU.
//!
//! One evaluation of `n` rows of `D` genes on `W` GPUs, rank 0 being the engine's GPU and ranks 1, 2, …
//! the other GPUs in list order:
//!
//! 1. The rows are cut into `W` consecutive blocks in rank order, of `⌊n/W⌋` rows plus one for the first
//!    `n mod W` ranks ([`row_blocks`]), so the engine's GPU gets the first and largest block.
//! 2. Each block's genes go from the engine's population to its rank ([`NcclComm::scatter`]; rank 0's
//!    block is a copy on its own GPU).
//! 3. Each rank evaluates its block with its own evaluator, on its GPU's stream; the ranks run side by
//!    side (the host only queues).
//! 4. Each block's fitness goes back into the engine's fitness buffer, row `i` into slot `i`
//!    ([`NcclComm::gather`]).
//!
//! Every row is evaluated by the same code as on one GPU, the problem's own evaluator, whose value of a row
//! depends only on the row (the contract of [`RealEvaluator`]: under the Exact profile, the CPU twin's bits),
//! so the fitness is bit for bit the one-GPU fitness and the engine's snapshots do not change. With
//! one GPU, or a single row, the engine's buffers go straight to the engine GPU's evaluator: the split is
//! the identity and needs no NCCL.
//!
//! Values are checked as on one GPU: unless the engine checks every fitness itself
//! ([`RealEvaluator::engine_checks_fitness`]), a NaN or an infinity is
//! [`Error::NonFiniteFitness`] naming the engine's row. The per-GPU evaluators are told that the split
//! checks, so that none waits for its device in the middle of the split; the split waits once, after the
//! gather.
//!
//! DE on every GPU of the machine, the engine on GPU 0 (with one GPU, the same run as without the split):
//!
//! ```no_run
//! use evo_benchmarks::DeRastrigin;
//! use evo_core::Engine;
//! use evo_de::{DeCuda, DeParams};
//! use evo_distributed::SplitProblem;
//! use evo_gpu_runtime::Gpu;
//!
//! let gpus = Gpu::all()?;
//! let problem = SplitProblem::new(DeRastrigin::new(1000)?, gpus.clone())?;
//! let params = DeParams::default().with_population(4096)?;
//! let mut engine = DeCuda::new(params, problem, 7, &gpus[0])?;
//! engine.step_many(100)?;
//! let (_, best) = engine.best()?;
//! println!("best {best}");
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! MA-SW-Chains takes it as any problem: `MaCuda::new(params, &problem, seed, &gpus[0])`. Without a
//! loadable libnccl, building the engine on several GPUs is [`Error::LibraryNotFound`] (the crate README
//! says how NCCL is found); `NCCL_NVLS_ENABLE=0` is set unless the variable is set
//! ([`evo_gpu_runtime::nccl`]).
//!
//! ## Cost model
//!
//! Per evaluation of `n` rows, with `n₀ = ⌈n/W⌉` on the engine's GPU: `(n − n₀)·4·D` bytes of genes leave
//! the engine's GPU and `(n − n₀)·8` bytes of fitness come back (rank `r` receives `n_r·4·D` and sends
//! `n_r·8`); the engine's GPU copies `n₀·(4·D + 8)` bytes within its own memory; without the engine's check,
//! `n·8` bytes go to the host. DE evaluates its `M` trials once per generation: about
//! `(W − 1)/W · M · (4·D + 8)` bytes over the links per generation. A broadcast of the population and an
//! all-gather of the fitness would move `(W − 1)·M·4·D` and `(W − 1)·M·8` bytes and hold the whole
//! population on every GPU; the scatter and gather move each row once. The split pays when evaluating a row
//! costs more than moving its `4·D + 8` bytes and a few NCCL launches; MA-SW-Chains' Solis–Wets steps
//! evaluate a few rows at a time, for which the split's fixed cost dominates unless a row is expensive.

use evo_benchmarks::cuda::{DeviceRealProblem, EvalSettings, RealEvaluator};
use evo_core::{Bounds, ContinuousProblem, Error, Result};
use evo_gpu_runtime::nccl::NcclComm;
use evo_gpu_runtime::{DeviceBuffer, Gpu};

const COMPONENT: &str = "SplitProblem";

/// A problem whose device evaluation is spread over several GPUs of this process (module docs).
pub struct SplitProblem<P> {
    problem: P,
    gpus: Vec<Gpu>,
}

impl<P: DeviceRealProblem> SplitProblem<P> {
    /// `problem` evaluated on `gpus`; the engine that uses it must run on one of them.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty list or a device listed twice.
    pub fn new(problem: P, gpus: Vec<Gpu>) -> Result<Self> {
        let devices: Vec<usize> = gpus.iter().map(Gpu::index).collect();
        if devices.is_empty() {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "GPU list",
                "an empty list",
                "at least one GPU",
            ));
        }
        if let Some(i) = (1..devices.len()).find(|&i| devices[..i].contains(&devices[i])) {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "GPU list",
                format!("{devices:?} (device {} twice)", devices[i]),
                "each device at most once",
            ));
        }
        Ok(Self { problem, gpus })
    }

    /// The wrapped problem.
    pub fn problem(&self) -> &P {
        &self.problem
    }

    /// The GPUs, in the order given.
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }
}

impl<P: DeviceRealProblem> std::fmt::Debug for SplitProblem<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitProblem")
            .field("problem", &self.problem.name())
            .field(
                "devices",
                &self.gpus.iter().map(Gpu::index).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// The problem itself is unchanged: only the device evaluation is split.
impl<P: DeviceRealProblem> ContinuousProblem for SplitProblem<P> {
    fn name(&self) -> &str {
        self.problem.name()
    }

    fn dimension(&self) -> usize {
        self.problem.dimension()
    }

    fn bounds(&self) -> &Bounds {
        self.problem.bounds()
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        self.problem.evaluate(x)
    }

    fn evaluate_batch(&self, population: &[f32], fitness: &mut [f64]) {
        self.problem.evaluate_batch(population, fitness);
    }

    fn optimum(&self) -> Option<f64> {
        self.problem.optimum()
    }
}

impl<P: DeviceRealProblem> DeviceRealProblem for SplitProblem<P> {
    /// A [`SplitEvaluator`] with `gpu` (the engine's, one of the list) as rank 0.
    fn real_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn RealEvaluator>> {
        Ok(Box::new(SplitEvaluator::new(
            &self.problem,
            &self.gpus,
            gpu,
        )?))
    }
}

/// DE's CUDA engine takes a split problem as it takes [`evo_de::DeviceEvaluated`] of one: evaluated by its
/// [`SplitEvaluator`], in four launches per generation.
impl<P: DeviceRealProblem> evo_de::DeviceProblem for SplitProblem<P> {
    fn device_evaluation(&self, gpu: &Gpu) -> Result<evo_de::DeviceEvaluation> {
        Ok(evo_de::DeviceEvaluation::Continuous(
            self.real_evaluator(gpu)?,
        ))
    }
}

/// The rows of each rank `r < ranks` (module docs, step 1): `⌊n/W⌋` rows, plus one for `r < n mod W`,
/// consecutive in rank order and covering `0..n`, so the larger blocks come first.
pub fn row_blocks(n: usize, ranks: usize) -> Vec<std::ops::Range<usize>> {
    let ranks_or_one = ranks.max(1);
    let (base, extra) = (n / ranks_or_one, n % ranks_or_one);
    // r·base + min(r, extra) ≤ n for every r ≤ ranks, so nothing overflows.
    let start = |r: usize| r * base + r.min(extra);
    (0..ranks).map(|r| start(r)..start(r + 1)).collect()
}

/// The evaluator of a [`SplitProblem`] on one engine GPU: one evaluator of the problem per GPU and the
/// communicator between them (module docs).
pub struct SplitEvaluator {
    problem: String,
    dimension: usize,
    /// The GPUs in rank order, the engine's first.
    gpus: Vec<Gpu>,
    /// One evaluator per rank, built on that rank's GPU.
    evaluators: Vec<Box<dyn RealEvaluator>>,
    /// `None` with one GPU: nothing moves, no NCCL is needed.
    comm: Option<NcclComm>,
    /// Whether the engine checks every fitness itself ([`RealEvaluator::engine_checks_fitness`]).
    engine_checks: bool,
}

impl std::fmt::Debug for SplitEvaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitEvaluator")
            .field("problem", &self.problem)
            .field(
                "devices",
                &self.gpus.iter().map(Gpu::index).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl SplitEvaluator {
    /// The split of `problem` over `gpus` for an engine on `engine` (one of `gpus`, which becomes rank 0).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `engine` is not in `gpus` or an evaluator's dimension is not the
    /// problem's; the errors of [`DeviceRealProblem::real_evaluator`] on each GPU; with several GPUs, those
    /// of [`NcclComm::from_gpus`] ([`Error::LibraryNotFound`] without libnccl).
    pub fn new<P: DeviceRealProblem + ?Sized>(
        problem: &P,
        gpus: &[Gpu],
        engine: &Gpu,
    ) -> Result<Self> {
        let Some(root) = gpus.iter().position(|g| g.index() == engine.index()) else {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "engine GPU",
                engine.index(),
                format!(
                    "one of the split's GPUs {:?}",
                    gpus.iter().map(Gpu::index).collect::<Vec<_>>()
                ),
            ));
        };
        let mut ordered = vec![gpus[root].clone()];
        ordered.extend(
            gpus.iter()
                .enumerate()
                .filter(|&(i, _)| i != root)
                .map(|(_, g)| g.clone()),
        );
        // The communicator first: without libnccl nothing is compiled or uploaded in vain.
        let comm = if ordered.len() > 1 {
            Some(NcclComm::from_gpus(&ordered)?)
        } else {
            None
        };
        let dimension = problem.dimension();
        let mut evaluators = Vec::with_capacity(ordered.len());
        for gpu in &ordered {
            let mut evaluator = problem.real_evaluator(gpu)?;
            if evaluator.dimension() != dimension {
                return Err(Error::invalid_parameter(
                    COMPONENT,
                    "evaluator dimension",
                    format!("{} on GPU {}", evaluator.dimension(), gpu.index()),
                    format!("the problem's dimension {dimension}"),
                ));
            }
            if ordered.len() > 1 {
                // The split checks the gathered values itself (unless the engine does), so that no rank
                // waits for its device between the scatter and the gather.
                evaluator.engine_checks_fitness();
            }
            evaluators.push(evaluator);
        }
        Ok(Self {
            problem: problem.name().to_string(),
            dimension,
            gpus: ordered,
            evaluators,
            comm,
            engine_checks: false,
        })
    }

    /// The device indices in rank order (the engine's first).
    pub fn devices(&self) -> Vec<usize> {
        self.gpus.iter().map(Gpu::index).collect()
    }

    fn check_shapes(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &DeviceBuffer<f64>,
    ) -> Result<()> {
        let n = fitness.len();
        if n.checked_mul(self.dimension) != Some(population.len()) {
            return Err(Error::invalid_parameter(
                "SplitEvaluator",
                "population length",
                population.len(),
                format!("fitness length × D = {n} × {}", self.dimension),
            ));
        }
        let engine = self.gpus[0].index();
        for (name, device) in [
            ("population GPU", population.gpu().index()),
            ("fitness GPU", fitness.gpu().index()),
        ] {
            if device != engine {
                return Err(Error::invalid_parameter(
                    "SplitEvaluator",
                    name,
                    device,
                    format!("the engine's GPU {engine}, for which the evaluator was built"),
                ));
            }
        }
        Ok(())
    }
}

impl RealEvaluator for SplitEvaluator {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn evaluate(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()> {
        self.check_shapes(population, fitness)?;
        let n = fitness.len();
        let blocks = row_blocks(n, self.gpus.len());
        let Some(comm) = self.comm.as_ref() else {
            // One GPU: the split is the identity, checks included.
            return self.evaluators[0].evaluate(population, fitness, settings);
        };
        if blocks[0].len() == n {
            self.evaluators[0].evaluate(population, fitness, settings)?;
        } else {
            self.split(comm, &blocks, population, fitness, settings)?;
        }
        if self.engine_checks {
            return Ok(());
        }
        first_non_finite(&self.problem, &fitness.to_vec()?)
    }

    fn engine_checks_fitness(&mut self) {
        self.engine_checks = true;
        if self.comm.is_none() {
            self.evaluators[0].engine_checks_fitness();
        }
    }
}

impl SplitEvaluator {
    /// Steps 2–4 of the module docs: scatter the blocks, evaluate each on its rank, gather the fitness.
    fn split(
        &self,
        comm: &NcclComm,
        blocks: &[std::ops::Range<usize>],
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()> {
        let d = self.dimension;
        let mut genes = Vec::with_capacity(blocks.len());
        let mut values = Vec::with_capacity(blocks.len());
        for (gpu, rows) in self.gpus.iter().zip(blocks) {
            genes.push(gpu.alloc::<f32>(rows.len() * d)?);
            values.push(gpu.alloc::<f64>(rows.len())?);
        }
        comm.scatter(0, population, &mut genes)?;
        for (r, rows) in blocks.iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            self.evaluators[r]
                .evaluate(&genes[r], &mut values[r], settings)
                .map_err(|error| in_engine_rows(error, rows.start))?;
        }
        comm.gather(0, &values, fitness)
    }
}

/// A rank's error with its row index moved from the rank's block to the engine's population.
fn in_engine_rows(error: Error, start: usize) -> Error {
    match error {
        Error::NonFiniteFitness {
            problem,
            individual,
            value,
        } => Error::NonFiniteFitness {
            problem,
            individual: individual + start,
            value,
        },
        other => other,
    }
}

/// [`Error::NonFiniteFitness`] for the first NaN or infinity of `fitness`.
fn first_non_finite(problem: &str, fitness: &[f64]) -> Result<()> {
    match fitness.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(individual) => Err(Error::NonFiniteFitness {
            problem: problem.to_string(),
            individual,
            value: fitness[individual],
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_blocks_cover_the_rows_in_order_the_larger_first() {
        for n in 0..40 {
            for ranks in 1..6 {
                let blocks = row_blocks(n, ranks);
                assert_eq!(blocks.len(), ranks);
                assert_eq!(blocks[0].start, 0);
                assert_eq!(blocks[ranks - 1].end, n);
                for pair in blocks.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start, "n {n}, W {ranks}");
                    assert!(
                        pair[0].len() >= pair[1].len(),
                        "n {n}, W {ranks}: {blocks:?}"
                    );
                }
                let (min, max) = blocks.iter().fold((usize::MAX, 0), |(lo, hi), b| {
                    (lo.min(b.len()), hi.max(b.len()))
                });
                assert!(max - min <= 1, "n {n}, W {ranks}: {blocks:?}");
            }
        }
        // One row stays on the engine's GPU, where the evaluation needs no transfer.
        assert_eq!(row_blocks(1, 4), vec![0..1, 1..1, 1..1, 1..1]);
        assert_eq!(row_blocks(10, 4), vec![0..3, 3..6, 6..8, 8..10]);
    }

    #[test]
    fn row_blocks_do_not_overflow_for_huge_populations() {
        let n = usize::MAX / 2;
        let blocks = row_blocks(n, 3);
        assert_eq!(blocks[2].end, n);
        assert_eq!(blocks[0].end, n.div_ceil(3));
    }

    #[test]
    fn a_rank_s_non_finite_row_is_named_by_its_engine_row() {
        let error = Error::NonFiniteFitness {
            problem: "p".into(),
            individual: 2,
            value: f64::NAN,
        };
        match in_engine_rows(error, 40) {
            Error::NonFiniteFitness { individual, .. } => assert_eq!(individual, 42),
            other => panic!("{other:?}"),
        }
        let other = in_engine_rows(Error::invalid_parameter("a", "b", 1, "2"), 40);
        assert!(matches!(other, Error::InvalidParameter { .. }));
    }

    #[test]
    fn the_first_non_finite_value_is_reported() {
        assert!(first_non_finite("p", &[0.0, -1.5, f64::MAX]).is_ok());
        match first_non_finite("p", &[0.0, f64::INFINITY, f64::NAN]) {
            Err(Error::NonFiniteFitness {
                individual, value, ..
            }) => {
                assert_eq!(individual, 1);
                assert_eq!(value.to_bits(), f64::INFINITY.to_bits());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_gpu_list_is_refused() {
        let problem = evo_benchmarks::DeRastrigin::new(4).unwrap();
        let error = SplitProblem::new(problem, Vec::new()).unwrap_err();
        assert!(error.to_string().contains("at least one GPU"), "{error}");
    }
}
