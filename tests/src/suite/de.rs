//! evo-de: the CPU and CUDA engines, from the same seed, hold identical snapshots (population, fitness, `F_i`,
//! `CR_i`, counters) at every generation under the Exact profile.
//!
//! Runs: DE/rand/1, DE/best/1 and DE/current-to-best/1 (binomial crossover) for 500 generations on the DE
//! paper's Rastrigin (D = 128, M = 64) and on a generated 512 × 16 ETC instance of class u_i_hihi (M = 64);
//! the exponential and paper-literal crossovers, jDE and better-or-equal selection for 100 generations; a
//! host-evaluated closure (the CUDA engine copies the trials to the host); and a CPU snapshot restored on the
//! GPU (and back) continuing identically; and 3 generations at 10^7 coordinates per vector. With the opt-in
//! local search of ETC schedules (an extension beyond the paper, every 5 generations), of the best vector
//! and of every vector: each strategy for 500 generations, `step_many` batches, a cross-backend restore, and
//! a 256 × 64 instance (the four-launch path).

use evo_benchmarks::DeRastrigin;
use evo_benchmarks::scheduling::{Consistency, EtcClass, EtcInstance, EtcProblem, Heterogeneity};
use evo_core::{Bounds, Engine, Result};
use evo_de::{
    Adaptation, Crossover, DeCpu, DeCuda, DeParams, DeSnapshot, DeviceProblem, FnProblem,
    LocalSearch, Scope, Selection, Strategy,
};
use evo_gpu_runtime::Gpu;

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::{Comparison, compare_slices};
use crate::tolerance::Tolerance;

/// The seed of every run.
pub const SEED: u64 = 2011;
/// Generations of the strategy runs.
pub const LONG_RUN: u64 = 500;
/// Generations of the variant runs.
pub const SHORT_RUN: u64 = 100;

/// The problem of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemCase {
    /// The DE paper's Rastrigin, D = 128.
    Rastrigin,
    /// A generated u_i_hihi instance, 512 tasks × 16 machines (λ = 0.75).
    Scheduling,
    /// A sphere written as a Rust closure, D = 40, evaluated on the host.
    HostClosure,
}

/// One run of the suite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunCase {
    /// The problem.
    pub problem: ProblemCase,
    /// The mutation.
    pub strategy: Strategy,
    /// The crossover.
    pub crossover: Crossover,
    /// Fixed or jDE.
    pub adaptation: Adaptation,
    /// The selection rule.
    pub selection: Selection,
    /// Generations compared.
    pub generations: u64,
}

impl RunCase {
    fn new(problem: ProblemCase, strategy: Strategy, generations: u64) -> Self {
        Self {
            problem,
            strategy,
            crossover: Crossover::Binomial,
            adaptation: Adaptation::Fixed,
            selection: Selection::StrictlyBetter,
            generations,
        }
    }

    /// Every run of the suite.
    pub fn all() -> Vec<RunCase> {
        let mut cases = Vec::new();
        for problem in [ProblemCase::Rastrigin, ProblemCase::Scheduling] {
            for strategy in [Strategy::Rand1, Strategy::Best1, Strategy::CurrentToBest1] {
                cases.push(Self::new(problem, strategy, LONG_RUN));
            }
            let short = Self::new(problem, Strategy::Rand1, SHORT_RUN);
            cases.push(RunCase {
                crossover: Crossover::Exponential,
                adaptation: Adaptation::Jde,
                ..short
            });
            cases.push(RunCase {
                crossover: Crossover::PaperLiteral,
                selection: Selection::BetterOrEqual,
                strategy: Strategy::CurrentToBest1,
                ..short
            });
        }
        cases.push(RunCase {
            adaptation: Adaptation::Jde,
            ..Self::new(ProblemCase::HostClosure, Strategy::Best1, SHORT_RUN)
        });
        cases
    }

    fn params(&self, block: u32) -> Result<DeParams> {
        DeParams::default()
            .with_population(64)?
            .with_strategy(self.strategy)
            .with_crossover(self.crossover)
            .with_adaptation(self.adaptation)
            .with_selection(self.selection)
            .with_block_size(block)
    }

    fn name(&self, block: u32) -> String {
        format!(
            "{:?} {:?} {:?} {:?} {:?}, {} generations, block {block}",
            self.problem,
            self.strategy,
            self.crossover,
            self.adaptation,
            self.selection,
            self.generations
        )
    }
}

/// The generated ETC problem of the suite.
pub fn scheduling_problem() -> Result<EtcProblem> {
    let class = EtcClass {
        consistency: Consistency::Inconsistent,
        tasks: Heterogeneity::High,
        machines: Heterogeneity::High,
    };
    EtcProblem::new(EtcInstance::generate(class, 512, 16, SEED)?, 0.75)
}

fn sphere(x: &[f32]) -> f64 {
    x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
}

/// Compares two snapshots field by field; `None` when they are identical.
pub fn compare_snapshots(what: &str, cpu: &DeSnapshot, gpu: &DeSnapshot) -> Option<Comparison> {
    let generation = cpu.generation;
    let context = |_| format!("{what}, seed {SEED}");
    let counters = |name: &str, c: u64, g: u64| {
        compare_slices(
            name,
            generation,
            1,
            &[c as f64],
            &[g as f64],
            Tolerance::Exact,
            context,
        )
    };
    let comparisons = [
        counters("generation", cpu.generation, gpu.generation),
        counters("evaluations", cpu.evaluations, gpu.evaluations),
        compare_slices(
            "population",
            generation,
            cpu.dimension,
            &cpu.population,
            &gpu.population,
            Tolerance::Exact,
            context,
        ),
        compare_slices(
            "fitness",
            generation,
            1,
            &cpu.fitness,
            &gpu.fitness,
            Tolerance::Exact,
            context,
        ),
        compare_slices(
            "F_i",
            generation,
            1,
            &cpu.differential_weights,
            &gpu.differential_weights,
            Tolerance::Exact,
            context,
        ),
        compare_slices(
            "CR_i",
            generation,
            1,
            &cpu.crossover_rates,
            &gpu.crossover_rates,
            Tolerance::Exact,
            context,
        ),
    ];
    comparisons.into_iter().find(|c| !c.passed())
}

/// Compares the engines' best fitness and best vector (so that they agree on the best index too; ties: the
/// lower index); `None` when they are identical.
fn compare_best<P: DeviceProblem>(
    what: &str,
    generation: u64,
    cpu: &DeCpu<P>,
    gpu: &DeCuda<P>,
) -> Result<Option<Comparison>> {
    let ((vc, fc), (vg, fg)) = (cpu.best()?, gpu.best()?);
    let (pc, pg) = (cpu.progress().best_fitness, gpu.progress().best_fitness);
    let comparisons = [
        compare_slices(
            "best fitness",
            generation,
            1,
            &[pc, fc],
            &[pg, fg],
            Tolerance::Exact,
            |_| what.to_string(),
        ),
        compare_slices(
            "best vector",
            generation,
            vc.len(),
            &vc,
            &vg,
            Tolerance::Exact,
            |_| what.to_string(),
        ),
    ];
    Ok(comparisons.into_iter().find(|c| !c.passed()))
}

/// Steps both engines `generations` times, comparing snapshots, the best fitness and the best vector after
/// every generation (and before the first); returns the number of elements compared or the first difference.
fn lockstep<P: DeviceProblem>(
    what: &str,
    cpu: &mut DeCpu<P>,
    gpu: &mut DeCuda<P>,
    generations: u64,
) -> Result<std::result::Result<u64, Comparison>> {
    let mut cases = 0;
    for generation in 0..=generations {
        if generation > 0 {
            cpu.step()?;
            gpu.step()?;
        }
        let (c, g) = (cpu.snapshot()?, gpu.snapshot()?);
        if let Some(mismatch) = compare_snapshots(what, &c, &g) {
            return Ok(Err(mismatch));
        }
        if let Some(mismatch) = compare_best(what, generation, cpu, gpu)? {
            return Ok(Err(mismatch));
        }
        cases += (c.population.len() + 3 * c.fitness.len()) as u64;
    }
    Ok(Ok(cases))
}

fn check_with<P: DeviceProblem + Clone>(
    gpu: &Gpu,
    case: RunCase,
    block: u32,
    problem: P,
) -> CheckReport {
    let check = case.name(block);
    let kernel = "de_*";
    let outcome = (|| {
        let mut cpu = DeCpu::new(case.params(block)?, problem.clone(), SEED, 0)?;
        let mut on_gpu = DeCuda::new(case.params(block)?, problem, SEED, gpu)?;
        lockstep(&check, &mut cpu, &mut on_gpu, case.generations)
    })();
    CheckReport::from_lockstep(check, kernel, outcome)
}

/// One run of the suite at `block`.
pub fn check_run(gpu: &Gpu, case: RunCase, block: u32) -> CheckReport {
    match case.problem {
        ProblemCase::Rastrigin => match DeRastrigin::new(128) {
            Ok(problem) => check_with(gpu, case, block, problem),
            Err(error) => CheckReport::from_error(case.name(block), "de_*", &error),
        },
        ProblemCase::Scheduling => match scheduling_problem() {
            Ok(problem) => check_with(gpu, case, block, problem),
            Err(error) => CheckReport::from_error(case.name(block), "de_*", &error),
        },
        ProblemCase::HostClosure => match Bounds::uniform(40, -10.0, 10.0) {
            Ok(bounds) => {
                let problem = FnProblem::new("sphere closure", bounds, sphere as fn(&[f32]) -> f64);
                check_with(gpu, case, block, problem)
            }
            Err(error) => CheckReport::from_error(case.name(block), "de_*", &error),
        },
    }
}

/// A CPU snapshot taken at generation 50 restores on the GPU, a GPU snapshot at 100 restores on the CPU, and
/// both continue identically to generation 150 (ETC, jDE, exponential crossover).
pub fn check_cross_restore(gpu: &Gpu, block: u32) -> CheckReport {
    let check = format!("cross-backend restore (ETC, jDE, exponential), block {block}");
    let kernel = "de_*";
    let outcome = (|| {
        let params = DeParams::default()
            .with_population(32)?
            .with_adaptation(Adaptation::Jde)
            .with_crossover(Crossover::Exponential)
            .with_block_size(block)?;
        let problem = scheduling_problem()?;
        let mut cpu = DeCpu::new(params.clone(), problem.clone(), SEED, 0)?;
        let mut on_gpu = DeCuda::new(params.clone(), problem.clone(), SEED, gpu)?;
        for _ in 0..50 {
            cpu.step()?;
        }
        on_gpu.restore(&cpu.snapshot()?)?;
        let first = lockstep(&check, &mut cpu, &mut on_gpu, 50)?;
        if first.is_err() {
            return Ok(first);
        }
        let mut fresh_cpu = DeCpu::new(params, problem, SEED, 1)?;
        fresh_cpu.restore(&on_gpu.snapshot()?)?;
        lockstep(&check, &mut fresh_cpu, &mut on_gpu, 50)
    })();
    CheckReport::from_lockstep(check, kernel, outcome)
}

/// Coordinates per vector of the large case.
pub const LARGE_DIMENSION: usize = 10_000_000;

/// The large case: Rastrigin with 10^7 coordinates per vector, M = 4, 3 generations (every strategy's
/// kernels loop over the coordinates; the block-stride loop and 64-bit row offsets are what it checks).
pub fn check_large(gpu: &Gpu, block: u32) -> CheckReport {
    let case = RunCase::new(ProblemCase::Rastrigin, Strategy::Rand1, 3);
    let check = format!("Rastrigin D = 10^7, M = 4, 3 generations, block {block}");
    let kernel = "de_*";
    let outcome = (|| {
        let params = case.params(block)?.with_population(4)?;
        let problem = DeRastrigin::new(LARGE_DIMENSION)?;
        let mut cpu = DeCpu::new(params.clone(), problem.clone(), SEED, 0)?;
        let mut on_gpu = DeCuda::new(params, problem, SEED, gpu)?;
        lockstep(&check, &mut cpu, &mut on_gpu, case.generations)
    })();
    CheckReport::from_lockstep(check, kernel, outcome)
}

/// Generations of the batched runs, and generations per batch.
pub const BATCHED_RUN: (u64, u64) = (300, 75);

/// Coordinates per vector of the batched run whose vectors are split over several blocks.
pub const CHUNKED_DIMENSION: usize = 100_000;

/// The one-launch generation without host reads in between: `DeCuda::step_many` in batches against the
/// CPU's single steps, snapshots compared after every batch, on Rastrigin with D = 300 (tiles of 2B
/// coordinates, the last one padded) and on the ETC instance (M = 100), and on Rastrigin with D = 10^5 and
/// M = 8 (vectors split into chunks of blocks, the last chunk partial); DE/best/1 (the best index kept on the
/// device) and jDE with the exponential crossover.
pub fn check_batched(gpu: &Gpu, block: u32) -> CheckReport {
    let check =
        format!("step_many batches (Rastrigin D = 300 and 10^5, ETC; best/1, jDE), block {block}");
    let kernel = "de_generation_f32";
    let (generations, batch) = BATCHED_RUN;
    let outcome = (|| {
        let mut cases = 0;
        let variants = [
            (Strategy::Best1, Crossover::Binomial, Adaptation::Fixed),
            (Strategy::Rand1, Crossover::Exponential, Adaptation::Jde),
        ];
        for (strategy, crossover, adaptation) in variants {
            let params = DeParams::default()
                .with_population(100)?
                .with_crossover_rate(0.2)?
                .with_strategy(strategy)
                .with_crossover(crossover)
                .with_adaptation(adaptation)
                .with_block_size(block)?;
            let what = format!("{check}: {strategy:?} {crossover:?} {adaptation:?}");
            let rastrigin = DeRastrigin::new(300)?;
            let outcome = batches(&what, gpu, params.clone(), rastrigin, generations, batch)?;
            match outcome {
                Ok(n) => cases += n,
                Err(mismatch) => return Ok(Err(mismatch)),
            }
            let etc = scheduling_problem()?;
            match batches(&what, gpu, params.clone(), etc, generations, batch)? {
                Ok(n) => cases += n,
                Err(mismatch) => return Ok(Err(mismatch)),
            }
            // Few long vectors: each is split over several blocks (chunks), the last one partial.
            let long = DeRastrigin::new(CHUNKED_DIMENSION)?;
            let few = params.with_population(8)?;
            match batches(&what, gpu, few, long, generations, batch)? {
                Ok(n) => cases += n,
                Err(mismatch) => return Ok(Err(mismatch)),
            }
        }
        Ok(Ok(cases))
    })();
    CheckReport::from_lockstep(check, kernel, outcome)
}

/// CPU single steps against `DeCuda::step_many(batch)`, compared after every batch; the GPU engine must be
/// on the fused path.
fn batches<P: DeviceProblem + Clone>(
    what: &str,
    gpu: &Gpu,
    params: DeParams,
    problem: P,
    generations: u64,
    batch: u64,
) -> Result<std::result::Result<u64, Comparison>> {
    let mut cpu = DeCpu::new(params.clone(), problem.clone(), SEED, 0)?;
    let mut on_gpu = DeCuda::new(params, problem, SEED, gpu)?;
    if !on_gpu.is_fused() {
        return Err(evo_core::Error::invalid_parameter(
            "DE equivalence",
            "CUDA engine path",
            "four launches",
            "the fused one-launch generation",
        ));
    }
    let mut cases = 0;
    for _ in 0..generations / batch {
        for _ in 0..batch {
            cpu.step()?;
        }
        on_gpu.step_many(batch)?;
        let (c, g) = (cpu.snapshot()?, on_gpu.snapshot()?);
        if let Some(mismatch) = compare_snapshots(what, &c, &g) {
            return Ok(Err(mismatch));
        }
        let (pc, pg) = (cpu.progress(), on_gpu.progress());
        if pc.best_fitness.to_bits() != pg.best_fitness.to_bits() {
            return Ok(Err(compare_slices(
                "best fitness",
                pc.generation,
                1,
                &[pc.best_fitness],
                &[pg.best_fitness],
                Tolerance::Exact,
                |_| what.to_string(),
            )));
        }
        cases += (c.population.len() + 3 * c.fitness.len()) as u64;
    }
    Ok(Ok(cases))
}

/// Generations between two local searches in the local search checks (small, so that 500 generations hold
/// 100 searches).
pub const SEARCH_PERIOD: u32 = 5;
/// The most moves of one search in the local search checks.
pub const SEARCH_MOVES: u32 = 16;

/// Kicks per search and random moves per kick in the kicked local search checks (an iterated local search
/// of the best vector, [`LocalSearch::with_kicks`]).
pub const SEARCH_KICKS: (u32, u32) = (8, 4);

/// The population of the short case with [`Scope::All`] (16 blocks per search instead of 64, so that
/// `compute-sanitizer --tool racecheck` finishes it too).
pub const SHORT_ALL_POPULATION: usize = 16;

/// The local search (an extension beyond the paper) of the vectors of `scope` on both engines, every
/// [`SEARCH_PERIOD`] generations: each strategy for [`LONG_RUN`] generations on the suite's ETC instance
/// (M = 64, CR = 0.01, the fused generation), compared after every generation; DE/rand/1 in `step_many`
/// batches of 75 (searches inside a batch, no host read); a CPU snapshot at generation 52 restored on the
/// GPU, continuing 100 generations; and 100 generations of DE/best/1 on a generated 256 × 64 instance,
/// which takes the four-launch generation (more than 32 machines). `short`: 10 generations of each
/// strategy only (no batches, no restore, no 256 × 64 instance; two searches per run; with [`Scope::All`]
/// at M = [`SHORT_ALL_POPULATION`]): the case that `compute-sanitizer --tool racecheck` finishes.
pub fn check_local_search(gpu: &Gpu, block: u32, short: bool, scope: Scope) -> CheckReport {
    check_search_variant(gpu, block, short, scope, None)
}

/// [`check_local_search`] of the best vector with [`SEARCH_KICKS`] kicks per search (step 4 of
/// `evo_de::local_search`: the kicks' search launch of `K + 1` blocks and the pick launch).
pub fn check_kicked_local_search(gpu: &Gpu, block: u32, short: bool) -> CheckReport {
    check_search_variant(gpu, block, short, Scope::Best, Some(SEARCH_KICKS))
}

/// The local search checks, with `kicks` (kicks, moves per kick) when given.
fn check_search_variant(
    gpu: &Gpu,
    block: u32,
    short: bool,
    scope: Scope,
    kicks: Option<(u32, u32)>,
) -> CheckReport {
    let long_run = if short { 10 } else { LONG_RUN };
    let population = if short && scope == Scope::All {
        SHORT_ALL_POPULATION
    } else {
        64
    };
    let kicked = match kicks {
        Some((k, moves)) => format!(", {k} kicks of {moves} moves"),
        None => String::new(),
    };
    let check = format!(
        "local search of {scope:?}{kicked} every {SEARCH_PERIOD} generations (ETC; strategies{}), block {block}",
        if short {
            format!(", {long_run} generations, M = {population}")
        } else {
            ", batches, restore, 64 machines".to_string()
        }
    );
    let kernel = "de_local_search_etc_f32";
    let outcome = (|| {
        let search = LocalSearch::new(SEARCH_PERIOD, SEARCH_MOVES)?.with_scope(scope);
        let search = match kicks {
            Some((k, moves)) => search.with_kicks(k, moves)?,
            None => search,
        };
        let params = |strategy| -> Result<DeParams> {
            DeParams::default()
                .with_population(population)?
                .with_crossover_rate(0.01)?
                .with_differential_weight(0.1)?
                .with_strategy(strategy)
                .with_block_size(block)
        };
        let engines = |params: DeParams, problem: EtcProblem| -> Result<_> {
            let cpu =
                DeCpu::new(params.clone(), problem.clone(), SEED, 0)?.with_local_search(search)?;
            let on_gpu = DeCuda::new(params, problem, SEED, gpu)?.with_local_search(search)?;
            Ok((cpu, on_gpu))
        };
        let mut cases = 0;
        let problem = scheduling_problem()?;
        for strategy in [Strategy::Rand1, Strategy::Best1, Strategy::CurrentToBest1] {
            let what = format!("{check}: {strategy:?}");
            let (mut cpu, mut on_gpu) = engines(params(strategy)?, problem.clone())?;
            match lockstep(&what, &mut cpu, &mut on_gpu, long_run)? {
                Ok(n) => cases += n,
                Err(mismatch) => return Ok(Err(mismatch)),
            }
        }
        if short {
            return Ok(Ok(cases));
        }
        let what = format!("{check}: step_many");
        let (mut cpu, mut on_gpu) = engines(params(Strategy::Rand1)?, problem.clone())?;
        for _ in 0..4 {
            for _ in 0..75 {
                cpu.step()?;
            }
            on_gpu.step_many(75)?;
            if let Some(mismatch) = compare_snapshots(&what, &cpu.snapshot()?, &on_gpu.snapshot()?)
            {
                return Ok(Err(mismatch));
            }
            if let Some(mismatch) = compare_best(&what, cpu.progress().generation, &cpu, &on_gpu)? {
                return Ok(Err(mismatch));
            }
            cases += 1;
        }
        let what = format!("{check}: restore");
        let (mut cpu, mut on_gpu) = engines(params(Strategy::Best1)?, problem)?;
        for _ in 0..52 {
            cpu.step()?;
        }
        on_gpu.restore(&cpu.snapshot()?)?;
        match lockstep(&what, &mut cpu, &mut on_gpu, SHORT_RUN)? {
            Ok(n) => cases += n,
            Err(mismatch) => return Ok(Err(mismatch)),
        }
        let what = format!("{check}: 256 x 64");
        let class = EtcClass {
            consistency: Consistency::Consistent,
            tasks: Heterogeneity::Low,
            machines: Heterogeneity::Low,
        };
        let wide = EtcProblem::new(EtcInstance::generate(class, 256, 64, SEED)?, 0.75)?;
        let (mut cpu, mut on_gpu) = engines(params(Strategy::Best1)?, wide)?;
        if on_gpu.is_fused() {
            return Err(evo_core::Error::invalid_parameter(
                "DE equivalence",
                "CUDA engine path",
                "the fused one-launch generation",
                "four launches (more than 32 machines)",
            ));
        }
        match lockstep(&what, &mut cpu, &mut on_gpu, SHORT_RUN)? {
            Ok(n) => cases += n,
            Err(mismatch) => return Ok(Err(mismatch)),
        }
        Ok(Ok(cases))
    })();
    CheckReport::from_lockstep(check, kernel, outcome)
}

/// Every run at every block size, then the cross-backend restore.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for &block in &BLOCK_SIZES {
        for case in RunCase::all() {
            reports.push(check_run(gpu, case, block));
        }
        reports.push(check_cross_restore(gpu, block));
        reports.push(check_batched(gpu, block));
        for scope in [Scope::Best, Scope::All] {
            reports.push(check_local_search(gpu, block, false, scope));
        }
        reports.push(check_kicked_local_search(gpu, block, false));
    }
    reports.push(check_large(gpu, BLOCK_SIZES[1]));
    reports
}
