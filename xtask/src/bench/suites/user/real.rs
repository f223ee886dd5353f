//! DE, Rastrigin four ways at the `de` suite's per-generation sizes (module docs of [`super`]).
//!
//! On the GPU, per size: GPU events around `step_many(k)` after warm-up, the median divided by `k`, for the
//! built-in, the user source and the user term (one launch per generation each) and the host closure
//! (trials, the trials copied to the host in page-locked chunks, the closure run with rayon on each chunk as
//! it lands, the fitness copied back, merge and best), beside the host path's copies alone (the same bytes
//! through the same page-locked staging in one chunk, timed the same way) and the closure's own time (wall
//! clock, warm rayon pool) on the population the host path's engine holds after its timing (without a GPU,
//! the initial population: the same random draw), and the host path with a closure that costs nothing (the
//! path's own cost); the host paths and the closure alone again in rayon pools of 1 and 8 threads
//! ([`pools`]), up to 10^6 coordinates. On the CPU, the CPU engine (rayon) on the built-in and on the user
//! problem's Rust twin.

use evo_benchmarks::DeRastrigin;
use evo_core::{Bounds, ContinuousProblem, Engine};
use evo_de::{DeCpu, DeCuda, DeParams, DeviceProblem, FnProblem, HostEvaluated};
use evo_gpu_runtime::{Gpu, HostStaging};
use std::num::NonZeroUsize;

mod pools;

use pools::PoolFigures;

use super::{
    Cosine, PerStep, RASTRIGIN_LIMIT, SEED, cell, no_gpu_note, rastrigin_term, ratio, step_row,
    user_rastrigin, user_rastrigin_term,
};
use crate::bench::{Backend, BenchContext, SuiteResult};

/// The `de` suite's per-generation sizes (M, D).
const SIZES: [(usize, usize); 7] = [
    (64, 128),
    (64, 512),
    (512, 128),
    (512, 512),
    (1024, 128),
    (1024, 512),
    (100, 1_000_000),
];

/// The sizes of a `--quick` run: the smallest and the largest of the small ones.
const QUICK_SIZES: [(usize, usize); 2] = [(64, 128), (1024, 512)];

/// The crossover rate of the timing, the `de` suite's default one.
const CROSSOVER_RATE: f32 = 0.9;

/// A large size: 10^7 coordinates or more.
fn large(population: usize, dimension: usize) -> bool {
    population * dimension >= 10_000_000
}

/// Generations per sample on the GPU, as the `de` suite: 200 (10 at 10^8 coordinates; `--quick`: 20 and 2).
fn gpu_generations(quick: bool, population: usize, dimension: usize) -> u64 {
    match (quick, large(population, dimension)) {
        (false, false) => 200,
        (false, true) => 10,
        (true, false) => 20,
        (true, true) => 2,
    }
}

/// Generations per sample of the CPU engine: 20 (`--quick`: 3).
fn cpu_generations(quick: bool) -> u64 {
    if quick { 3 } else { 20 }
}

/// The parameters of the timing at `population`.
fn params(population: usize) -> anyhow::Result<DeParams> {
    Ok(DeParams::default()
        .with_population(population)?
        .with_crossover_rate(CROSSOVER_RATE)?
        .with_block_size(1024)?)
}

/// The host path's problem: a Rust function of one row, evaluated on the host.
type HostClosure = HostEvaluated<FnProblem<fn(&[f32]) -> f64>>;

/// Rastrigin as a Rust closure over one row, as a user would write it for the host path.
fn host_rastrigin(dimension: usize) -> anyhow::Result<HostClosure> {
    let closure: fn(&[f32]) -> f64 = |x| x.iter().map(|&v| rastrigin_term(v)).sum();
    Ok(HostEvaluated(FnProblem::new(
        "rastrigin-closure",
        Bounds::uniform(dimension, -RASTRIGIN_LIMIT, RASTRIGIN_LIMIT)?,
        closure,
    )))
}

/// A closure that costs nothing (every fitness 0): the host path with it times the path's own work per
/// generation (the trials, the copies, rayon's hand-over and the merge) without the closure's.
fn host_no_op(dimension: usize) -> anyhow::Result<HostClosure> {
    let closure: fn(&[f32]) -> f64 = |_| 0.0;
    Ok(HostEvaluated(FnProblem::new(
        "no-op-closure",
        Bounds::uniform(dimension, -RASTRIGIN_LIMIT, RASTRIGIN_LIMIT)?,
        closure,
    )))
}

/// The bytes the host path copies per generation: the trials down (4·M·D) and the fitness up (8·M).
fn host_bytes(population: usize, dimension: usize) -> (u64, u64) {
    let down = 4 * (population * dimension) as u64;
    let up = 8 * population as u64;
    (down, up)
}

/// One size's figures, µs per generation (NaN where not measured).
struct Figures {
    builtin: PerStep,
    user: PerStep,
    user_cos_pi: PerStep,
    user_term: PerStep,
    host: PerStep,
    copies: PerStep,
    closure: PerStep,
    host_no_op: PerStep,
    cpu_builtin: PerStep,
    cpu_user: PerStep,
    /// The host path in the pools of a few threads (none at 10^8 coordinates).
    pools: Vec<PoolFigures>,
}

/// "yes" when the host path's `host` µs are within `bound` (the copies and the closure alone), "-" when
/// either is missing.
fn within(host: f64, bound: f64) -> &'static str {
    if !(host.is_finite() && bound.is_finite()) {
        "-"
    } else if host <= bound {
        "yes"
    } else {
        "no"
    }
}

/// The DE rows and table.
pub(super) fn run(ctx: &BenchContext, result: &mut SuiteResult) -> anyhow::Result<()> {
    let sizes: &[(usize, usize)] = if ctx.quick() { &QUICK_SIZES } else { &SIZES };
    let mut table = vec![
        "| M | D | built-in µs/gen | user source µs/gen | user / built-in | user source, cos_pi µs/gen | cos_pi / built-in | user term, cos_pi µs/gen | term / built-in | host closure µs/gen | host / built-in | bytes down + up per gen | copies alone µs | closure alone µs | host ≤ copies + closure | host, no-op closure µs/gen | CPU built-in µs/gen | CPU user twin µs/gen |"
            .to_string(),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    let mut pool_table: Vec<String> = pools::TABLE_HEADER.map(str::to_string).to_vec();
    let bar = ctx.progress(sizes.len() as u64, "user de");
    for &(population, dimension) in sizes {
        bar.set_message(format!("M {population} D {dimension}"));
        let figures = measure(ctx, population, dimension)?;
        push_rows(ctx, result, population, dimension, &figures);
        let (down, up) = host_bytes(population, dimension);
        let within = within(
            figures.host.us(),
            figures.copies.us() + figures.closure.us(),
        );
        if !figures.pools.is_empty() {
            pool_table.push(pools::table_line(
                (population, dimension),
                &format!("{} (default)", rayon::current_num_threads()),
                [&figures.host, &figures.host_no_op, &figures.closure],
                &figures.copies,
            ));
        }
        for pool in &figures.pools {
            pool_table.push(pools::table_line(
                (population, dimension),
                &pool.threads.to_string(),
                [&pool.host, &pool.host_no_op, &pool.closure],
                &figures.copies,
            ));
        }
        table.push(format!(
            "| {population} | {dimension} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {down} + {up} | {} | {} | {within} | {} | {} | {} |",
            cell(figures.builtin.us()),
            cell(figures.user.us()),
            ratio(figures.user.us(), figures.builtin.us()),
            cell(figures.user_cos_pi.us()),
            ratio(figures.user_cos_pi.us(), figures.builtin.us()),
            cell(figures.user_term.us()),
            ratio(figures.user_term.us(), figures.builtin.us()),
            cell(figures.host.us()),
            ratio(figures.host.us(), figures.builtin.us()),
            cell(figures.copies.us()),
            cell(figures.closure.us()),
            cell(figures.host_no_op.us()),
            cell(figures.cpu_builtin.us()),
            cell(figures.cpu_user.us()),
        ));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mut note = format!(
        "DE per generation (DE/rand/1/bin, F = 0.5, CR = {CROSSOVER_RATE}, seed {SEED}): built-in \
         `DeRastrigin` (fused into the one-launch generation), the same function as user CUDA source \
         (`UserProblem`, x² + 10 − 10·evo_cos_f64(2πx), Exact profile; fused into the one-launch \
         generation of its own DE module, `evo_de::UserFusion`; \"cos_pi\": the same with \
         evo_cos_pi_f64(2x), the fast cosine of the user docs), as a user's separable term (\"user term\": \
         `UserFunction`, `evo_user_term(i, z)` with evo_cos_pi_f64(2z); fused on the built-in's path in a \
         module of its own, `evo_de::TermFusion`: the terms from the trial's registers, float4 tiles, the \
         same canonical tree) and as a Rust closure on the host \
         (`HostEvaluated(FnProblem)`: the trials copied to page-locked memory in chunks, rayon over pieces \
         of rows as their chunk lands). GPU: CUDA events around `step_many(k)`, k = 200 (10 at 10^8 \
         coordinates; `--quick`: 20 and 2), median of the samples divided by k. Host path bytes per \
         generation: 4·M·D down (the trials), 8·M up (the fitness); \"copies alone\" times the same two \
         copies through the same page-locked staging (`evo_gpu_runtime::HostStaging`, one chunk, nothing \
         computed), \"closure alone\" the closure's `evaluate_batch` on the host engine's population \
         after its timing (wall clock, rayon on the same pool, warm; rows like the trials it evaluates, \
         since the cosine's cost depends on its arguments); the target is host ≤ copies + closure; \"host, no-op closure\" is the host path with a \
         closure that returns 0 (the path's own cost per generation: trials, copies, rayon's hand-over, \
         merge and best). CPU: the CPU engine (rayon) on the built-in and on the user problem's Rust twin, {} generations per \
         sample, up to 10^6 coordinates.",
        cpu_generations(ctx.quick())
    );
    if ctx.gpu().is_none() {
        note.push(' ');
        note.push_str(&no_gpu_note("DE"));
    }
    result.notes.push(format!("{note}\n\n{}", table.join("\n")));
    result.notes.push(format!(
        "DE host path by rayon pool: the host closure, the no-op closure and the closure alone as above, \
         in the default pool and, each inside `ThreadPool::install`, in pools of {} threads (a fresh engine \
         per pool from the same seed; the closure alone on the same rows), up to 10^6 coordinates: how the \
         host path's own cost depends on the threads that evaluate the rows. \"copies alone\" is the \
         default pool's (the copies use no rayon thread).\n\n{}",
        pools::THREADS.map(|t| t.to_string()).join(" and "),
        pool_table.join("\n")
    ));
    Ok(())
}

/// Every figure of one size.
fn measure(ctx: &BenchContext, population: usize, dimension: usize) -> anyhow::Result<Figures> {
    let mut figures = Figures {
        builtin: PerStep::missing(),
        user: PerStep::missing(),
        user_cos_pi: PerStep::missing(),
        user_term: PerStep::missing(),
        host: PerStep::missing(),
        copies: PerStep::missing(),
        closure: PerStep::missing(),
        host_no_op: PerStep::missing(),
        cpu_builtin: PerStep::missing(),
        cpu_user: PerStep::missing(),
        pools: Vec::new(),
    };
    let closure_rows = if let Some(gpu) = ctx.gpu() {
        let generations = gpu_generations(ctx.quick(), population, dimension);
        let mut builtin =
            DeCuda::new(params(population)?, DeRastrigin::new(dimension)?, SEED, gpu)?;
        anyhow::ensure!(
            builtin.is_fused(),
            "the built-in Rastrigin must take the one-launch generation"
        );
        figures.builtin = gpu_time(ctx, gpu, &mut builtin, generations)?;
        for (cosine, figure) in [
            (Cosine::General, &mut figures.user),
            (Cosine::Pi, &mut figures.user_cos_pi),
        ] {
            let problem = user_rastrigin(dimension, cosine)?;
            let mut user = DeCuda::new(params(population)?, problem, SEED, gpu)?;
            anyhow::ensure!(
                user.is_fused(),
                "the user's Rastrigin ({cosine:?}) must take the one-launch generation"
            );
            *figure = gpu_time(ctx, gpu, &mut user, generations)?;
        }
        let mut term = DeCuda::new(
            params(population)?,
            user_rastrigin_term(dimension)?,
            SEED,
            gpu,
        )?;
        anyhow::ensure!(
            term.is_fused(),
            "the user's Rastrigin term must take the one-launch generation"
        );
        figures.user_term = gpu_time(ctx, gpu, &mut term, generations)?;
        let mut host = DeCuda::new(params(population)?, host_rastrigin(dimension)?, SEED, gpu)?;
        figures.host = gpu_time(ctx, gpu, &mut host, generations)?;
        figures.copies = copy_time(ctx, gpu, population, dimension)?;
        let mut no_op = DeCuda::new(params(population)?, host_no_op(dimension)?, SEED, gpu)?;
        figures.host_no_op = gpu_time(ctx, gpu, &mut no_op, generations)?;
        host.snapshot()?.population
    } else {
        initial_population(population, dimension)?
    };
    figures.closure = closure_time(ctx, dimension, &closure_rows)?;
    if !large(population, dimension) {
        figures.pools = pools::measure(ctx, population, dimension, &closure_rows)?;
    }
    if ctx.cpu() && !large(population, dimension) {
        let generations = cpu_generations(ctx.quick());
        let builtin = DeCpu::new(params(population)?, DeRastrigin::new(dimension)?, SEED, 0)?;
        figures.cpu_builtin = cpu_time(ctx, builtin, generations)?;
        let user = DeCpu::new(
            params(population)?,
            user_rastrigin(dimension, Cosine::General)?,
            SEED,
            0,
        )?;
        figures.cpu_user = cpu_time(ctx, user, generations)?;
    }
    Ok(figures)
}

/// GPU events around `step_many(generations)`.
fn gpu_time<P: DeviceProblem>(
    ctx: &BenchContext,
    gpu: &Gpu,
    engine: &mut DeCuda<P>,
    generations: u64,
) -> anyhow::Result<PerStep> {
    let (timing, ()) = ctx.time_gpu(gpu, || Ok(engine.step_many(generations)?))?;
    Ok(PerStep::measured(timing, generations))
}

/// Wall clock around `generations` steps of a CPU engine.
fn cpu_time<E: Engine>(
    ctx: &BenchContext,
    mut engine: E,
    generations: u64,
) -> anyhow::Result<PerStep> {
    let (timing, ()) = ctx.time_cpu(|| {
        for _ in 0..generations {
            engine.step()?;
        }
        Ok(())
    })?;
    Ok(PerStep::measured(timing, generations))
}

/// The host path's copies alone: M·D f32 to the host and M f64 back through page-locked staging in one
/// chunk (the host waits for the rows and writes zeros), timed with events.
fn copy_time(
    ctx: &BenchContext,
    gpu: &Gpu,
    population: usize,
    dimension: usize,
) -> anyhow::Result<PerStep> {
    let trials = gpu.alloc_zeroed::<f32>(population * dimension)?;
    let mut fitness = gpu.alloc_zeroed::<f64>(population)?;
    let mut staging = HostStaging::<f32, f64>::new(gpu, population, dimension, NonZeroUsize::MIN)?;
    let (timing, ()) = ctx.time_gpu(gpu, || {
        staging.run(&trials, &mut fitness, |chunks| {
            for chunk in chunks {
                chunk.wait()?.1.fill(0.0);
            }
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(PerStep::measured(timing, 1))
}

/// The host path's initial population (the CPU and CUDA engines draw the same): the closure's rows when no
/// GPU ran the host path.
fn initial_population(population: usize, dimension: usize) -> anyhow::Result<Vec<f32>> {
    Ok(
        DeCpu::new(params(population)?, host_rastrigin(dimension)?, SEED, 0)?
            .snapshot()?
            .population,
    )
}

/// The closure's own time on `rows` (M rows of D coordinates; wall clock, the problem's `evaluate_batch`:
/// rayon over the rows on the same global pool as the host path, warm from the samples before).
///
/// The rows must be the kind the host path evaluates: the engine's own population. Rastrigin's cosine
/// branches on its argument's quadrant, so rows on a short repeating grid let the branch predictor learn
/// the pattern and run the closure at a fraction of its cost on a DE population's scattered coordinates.
fn closure_time(ctx: &BenchContext, dimension: usize, rows: &[f32]) -> anyhow::Result<PerStep> {
    let problem = host_rastrigin(dimension)?;
    let mut fitness = vec![0.0f64; rows.len() / dimension];
    let (timing, ()) = ctx.time_cpu(|| {
        problem.evaluate_batch(rows, &mut fitness);
        Ok(())
    })?;
    Ok(PerStep::measured(timing, 1))
}

/// The rows of one size.
fn push_rows(
    ctx: &BenchContext,
    result: &mut SuiteResult,
    population: usize,
    dimension: usize,
    figures: &Figures,
) {
    let unit = "µs/generation";
    let size = (population * dimension) as u64;
    let gpu = || (Backend::Cuda, ctx.gpu_device());
    let cpu = || (Backend::Cpu, ctx.cpu_device().to_string());
    let case = |what: &str| (format!("DE {what} p{population} d{dimension}"), unit);
    let builtin = Some(("built-in", figures.builtin.us()));
    let (down, up) = host_bytes(population, dimension);
    let not_measured = ctx
        .gpu()
        .is_none()
        .then(|| "not measured (no GPU)".to_string());
    result.rows.extend([
        step_row(
            case("built-in Rastrigin"),
            gpu(),
            size,
            &figures.builtin,
            None,
            not_measured.clone(),
        ),
        step_row(
            case("user source Rastrigin"),
            gpu(),
            size,
            &figures.user,
            builtin,
            not_measured.clone(),
        ),
        step_row(
            case("user source Rastrigin cos_pi"),
            gpu(),
            size,
            &figures.user_cos_pi,
            builtin,
            not_measured.clone(),
        ),
        step_row(
            case("user term Rastrigin cos_pi"),
            gpu(),
            size,
            &figures.user_term,
            builtin,
            not_measured.clone(),
        ),
        step_row(
            case("host closure Rastrigin"),
            gpu(),
            size,
            &figures.host,
            builtin,
            Some(format!("{down} B down + {up} B up per generation")),
        ),
        step_row(
            (
                format!("DE host copies alone p{population} d{dimension}"),
                "µs",
            ),
            gpu(),
            size,
            &figures.copies,
            None,
            Some(format!("{down} B down + {up} B up")),
        ),
        step_row(
            (
                format!("DE host closure alone p{population} d{dimension}"),
                "µs",
            ),
            cpu(),
            size,
            &figures.closure,
            None,
            Some("evaluate_batch, rayon".to_string()),
        ),
        step_row(
            case("host no-op closure"),
            gpu(),
            size,
            &figures.host_no_op,
            None,
            Some("the host path's own cost: every fitness 0".to_string()),
        ),
    ]);
    pools::push_rows(ctx, result, (population, dimension), &figures.pools);
    if !large(population, dimension) {
        let cpu_builtin = Some(("CPU built-in", figures.cpu_builtin.us()));
        result.rows.extend([
            step_row(
                case("CPU built-in Rastrigin"),
                cpu(),
                size,
                &figures.cpu_builtin,
                None,
                None,
            ),
            step_row(
                case("CPU user twin Rastrigin"),
                cpu(),
                size,
                &figures.cpu_user,
                cpu_builtin,
                None,
            ),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_bytes_are_the_trials_down_and_the_fitness_up() {
        assert_eq!(host_bytes(64, 128), (4 * 64 * 128, 8 * 64));
        assert_eq!(host_bytes(100, 1_000_000), (400_000_000, 800));
    }

    #[test]
    fn the_host_closure_is_rastrigin() {
        let problem = host_rastrigin(4).expect("valid");
        assert_eq!(problem.evaluate(&[0.0; 4]), 0.0);
        let x = [0.5f32, 1.0, -2.0, 3.5];
        let builtin = DeRastrigin::new(4).expect("valid").evaluate(&x);
        assert!((problem.evaluate(&x) - builtin).abs() < 1e-9);
    }

    #[test]
    fn the_closure_alone_is_timed_on_scattered_rows_in_the_domain() {
        // A short repeating grid of coordinates lets the branch predictor learn the cosine's branches and
        // times the closure at a fraction of its cost on the trials the host path evaluates.
        let rows = initial_population(64, 128).expect("valid");
        assert_eq!(rows.len(), 64 * 128);
        assert!(
            rows.iter()
                .all(|x| (-RASTRIGIN_LIMIT..=RASTRIGIN_LIMIT).contains(x))
        );
        let mut distinct: Vec<u32> = rows.iter().map(|x| x.to_bits()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > rows.len() * 9 / 10, "{}", distinct.len());
    }

    #[test]
    fn the_quick_sizes_are_the_de_suites() {
        assert!(QUICK_SIZES.iter().all(|size| SIZES.contains(size)));
        assert_eq!(gpu_generations(false, 100, 1_000_000), 10);
        assert_eq!(gpu_generations(false, 64, 128), 200);
    }
}
