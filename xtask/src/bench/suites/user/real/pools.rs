//! The DE host path in rayon pools of a few threads beside the default pool: how the path's own cost (the
//! no-op closure), the Rastrigin closure's host path and the closure alone depend on the threads that
//! evaluate the rows. Each pool's figures are timed inside `ThreadPool::install`, so the engine (built
//! there, from the same seed as the default pool's) and the closure see that pool as the current one.

use evo_de::DeCuda;
use rayon::ThreadPoolBuilder;

use super::super::{PerStep, SEED, cell};
use super::{
    closure_time, gpu_generations, gpu_time, host_bytes, host_no_op, host_rastrigin, params, within,
};
use crate::bench::{Backend, BenchContext, SuiteResult};

/// The threads of the pools timed beside the default one.
pub(super) const THREADS: [usize; 2] = [1, 8];

/// The host path's figures in one pool, µs per generation (NaN where not measured).
pub(super) struct PoolFigures {
    /// The pool's threads.
    pub(super) threads: usize,
    /// The host path with the Rastrigin closure.
    pub(super) host: PerStep,
    /// The host path with the no-op closure.
    pub(super) host_no_op: PerStep,
    /// The closure's `evaluate_batch` alone on the host engine's population.
    pub(super) closure: PerStep,
}

/// The header of the pools' table.
pub(super) const TABLE_HEADER: [&str; 2] = [
    "| M | D | rayon threads | host closure µs/gen | host, no-op closure µs/gen | closure alone µs | copies alone µs | host ≤ copies + closure |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
];

/// The figures of every pool of [`THREADS`] at one size; `closure_rows` are the rows the closure alone is
/// timed on (the default pool's host engine's population).
pub(super) fn measure(
    ctx: &BenchContext,
    population: usize,
    dimension: usize,
    closure_rows: &[f32],
) -> anyhow::Result<Vec<PoolFigures>> {
    THREADS
        .iter()
        .map(|&threads| {
            let pool = ThreadPoolBuilder::new().num_threads(threads).build()?;
            pool.install(|| measure_in_pool(ctx, threads, population, dimension, closure_rows))
        })
        .collect()
}

/// The figures of the current pool, of `threads` threads.
fn measure_in_pool(
    ctx: &BenchContext,
    threads: usize,
    population: usize,
    dimension: usize,
    closure_rows: &[f32],
) -> anyhow::Result<PoolFigures> {
    let mut figures = PoolFigures {
        threads,
        host: PerStep::missing(),
        host_no_op: PerStep::missing(),
        closure: PerStep::missing(),
    };
    if let Some(gpu) = ctx.gpu() {
        let generations = gpu_generations(ctx.quick(), population, dimension);
        for (problem, figure) in [
            (host_rastrigin(dimension)?, &mut figures.host),
            (host_no_op(dimension)?, &mut figures.host_no_op),
        ] {
            let mut engine = DeCuda::new(params(population)?, problem, SEED, gpu)?;
            *figure = gpu_time(ctx, gpu, &mut engine, generations)?;
        }
    }
    figures.closure = closure_time(ctx, dimension, closure_rows)?;
    Ok(figures)
}

/// One line of the pools' table: `threads` (a label) and the figures, µs.
pub(super) fn table_line(
    (population, dimension): (usize, usize),
    threads: &str,
    [host, no_op, closure]: [&PerStep; 3],
    copies: &PerStep,
) -> String {
    format!(
        "| {population} | {dimension} | {threads} | {} | {} | {} | {} | {} |",
        cell(host.us()),
        cell(no_op.us()),
        cell(closure.us()),
        cell(copies.us()),
        within(host.us(), copies.us() + closure.us()),
    )
}

/// The result rows of the pools at one size.
pub(super) fn push_rows(
    ctx: &BenchContext,
    result: &mut SuiteResult,
    (population, dimension): (usize, usize),
    pools: &[PoolFigures],
) {
    let size = (population * dimension) as u64;
    let (down, up) = host_bytes(population, dimension);
    for pool in pools {
        let threads = match pool.threads {
            1 => "1 rayon thread".to_string(),
            n => format!("{n} rayon threads"),
        };
        let named = |what: &str, unit: &'static str| {
            (
                format!("DE {what}, {threads} p{population} d{dimension}"),
                unit,
            )
        };
        let gpu = || (Backend::Cuda, ctx.gpu_device());
        let check = |what: &str| Some(format!("in a pool of {threads}: {what}"));
        result.rows.extend([
            super::super::step_row(
                named("host closure Rastrigin", "µs/generation"),
                gpu(),
                size,
                &pool.host,
                None,
                check(&format!("{down} B down + {up} B up per generation")),
            ),
            super::super::step_row(
                named("host no-op closure", "µs/generation"),
                gpu(),
                size,
                &pool.host_no_op,
                None,
                check("the host path's own cost: every fitness 0"),
            ),
            super::super::step_row(
                named("host closure alone", "µs"),
                (Backend::Cpu, ctx.cpu_device().to_string()),
                size,
                &pool.closure,
                None,
                check("evaluate_batch"),
            ),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Timing;

    #[test]
    fn a_pools_line_compares_the_host_path_with_its_own_closure_and_the_copies() {
        let missing = PerStep::missing();
        let line = table_line((64, 128), "8", [&missing; 3], &missing);
        assert_eq!(line, "| 64 | 128 | 8 | - | - | - | - | - |");
        assert_eq!(
            TABLE_HEADER[0].matches('|').count(),
            TABLE_HEADER[1].matches('|').count()
        );
        assert_eq!(
            line.matches('|').count(),
            TABLE_HEADER[0].matches('|').count()
        );
        // One sample of one generation each: 0.1 ms on the host path against 0.04 + 0.07 ms.
        let us = |ms: f64| {
            PerStep::measured(
                Timing {
                    samples_ms: vec![ms],
                },
                1,
            )
        };
        let (host, closure, copies) = (us(0.1), us(0.07), us(0.04));
        assert_eq!(
            table_line((1024, 512), "1", [&host, &missing, &closure], &copies),
            "| 1024 | 512 | 1 | 100.00 | - | 70.00 | 40.00 | yes |"
        );
        let slow = us(0.2);
        assert!(
            table_line((1024, 512), "1", [&slow, &missing, &closure], &copies).ends_with("| no |")
        );
    }
}
