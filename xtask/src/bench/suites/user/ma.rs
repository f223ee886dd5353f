//! MA-SW-Chains, time per cycle at the `ma` suite's numbers of variables: the built-in Rastrigin, the
//! built-in shifted Rastrigin (the `ma` suite's problem) and Rastrigin as user CUDA source (with
//! `evo_cos_f64`, and with `evo_cos_pi_f64`).
//!
//! GPU events around `k` cycles (`Engine::step`) after warm-up, the median divided by `k`, with the
//! evaluations per cycle. MA-SW-Chains has no host-evaluation path (its CUDA engine takes a
//! `DeviceRealProblem`), so there is no host row. The CPU engine is the `ma` suite's CPU part.

use evo_benchmarks::cuda::DeviceRealProblem;
use evo_benchmarks::{DeRastrigin, ShiftedFunction, ShiftedProblem};
use evo_core::Engine;
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::{MaCuda, MaParams};

use super::{Cosine, PerStep, SEED, cell, no_gpu_note, ratio, step_row, user_rastrigin};
use crate::bench::{Backend, BenchContext, SuiteResult};

/// The `ma` suite's numbers of variables timed here: the smallest (the comparison), 10^6 and the
/// largest.
const DIMENSIONS: [usize; 3] = [100_000, 1_000_000, 3_000_000];

/// Cycles per sample: 20 at 10^5 variables, 10 above (a cycle there takes about a tenth of a second);
/// `--quick`: 3.
fn cycles(quick: bool, dimension: usize) -> u64 {
    match (quick, dimension > 100_000) {
        (true, _) => 3,
        (false, false) => 20,
        (false, true) => 10,
    }
}

/// One engine's time per cycle and evaluations per cycle.
struct Cycle {
    time: PerStep,
    evaluations: f64,
}

/// The MA-SW-Chains rows and table.
pub(super) fn run(ctx: &BenchContext, result: &mut SuiteResult) -> anyhow::Result<()> {
    let dimensions: &[usize] = if ctx.quick() {
        &DIMENSIONS[..1]
    } else {
        &DIMENSIONS
    };
    let mut table = vec![
        "| D | built-in Rastrigin µs/cycle | built-in shifted Rastrigin µs/cycle | user source µs/cycle | user / built-in | user / shifted | user source, cos_pi µs/cycle | cos_pi / built-in | cos_pi / shifted | evaluations/cycle |"
            .to_string(),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    for &dimension in dimensions {
        let cycles = cycles(ctx.quick(), dimension);
        let (builtin, shifted, user, user_pi) = match ctx.gpu() {
            Some(gpu) => (
                time(ctx, gpu, &DeRastrigin::new(dimension)?, cycles)?,
                time(
                    ctx,
                    gpu,
                    &ShiftedProblem::new(ShiftedFunction::Rastrigin, dimension)?,
                    cycles,
                )?,
                time(
                    ctx,
                    gpu,
                    &user_rastrigin(dimension, Cosine::General)?,
                    cycles,
                )?,
                time(ctx, gpu, &user_rastrigin(dimension, Cosine::Pi)?, cycles)?,
            ),
            None => (missing(), missing(), missing(), missing()),
        };
        table.push(format!(
            "| {dimension} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(builtin.time.us()),
            cell(shifted.time.us()),
            cell(user.time.us()),
            ratio(user.time.us(), builtin.time.us()),
            ratio(user.time.us(), shifted.time.us()),
            cell(user_pi.time.us()),
            ratio(user_pi.time.us(), builtin.time.us()),
            ratio(user_pi.time.us(), shifted.time.us()),
            crate::bench::markdown::fixed(user.evaluations, 0),
        ));
        let unit = "µs/cycle";
        let gpu = || (Backend::Cuda, ctx.gpu_device());
        let case = |what: &str| (format!("MA-SW-Chains {what} d{dimension}"), unit);
        let check = |cycle: &Cycle| {
            Some(if cycle.evaluations.is_finite() {
                format!("{:.0} evaluations/cycle", cycle.evaluations)
            } else {
                "not measured (no GPU)".to_string()
            })
        };
        let size = dimension as u64;
        result.rows.extend([
            step_row(
                case("built-in Rastrigin"),
                gpu(),
                size,
                &builtin.time,
                None,
                check(&builtin),
            ),
            step_row(
                case("built-in shifted Rastrigin"),
                gpu(),
                size,
                &shifted.time,
                None,
                check(&shifted),
            ),
            step_row(
                case("user source Rastrigin"),
                gpu(),
                size,
                &user.time,
                Some(("built-in Rastrigin", builtin.time.us())),
                check(&user),
            ),
            step_row(
                case("user source Rastrigin cos_pi"),
                gpu(),
                size,
                &user_pi.time,
                Some(("built-in Rastrigin", builtin.time.us())),
                check(&user_pi),
            ),
        ]);
    }
    let mut note = format!(
        "MA-SW-Chains per cycle (default parameters, seed {SEED}): GPU events around k cycles after \
         warm-up, k = 20 at 10^5 variables and 10 above (`--quick`: 3), median divided by k. Built-in `DeRastrigin` (the same function as the user's, \
         unshifted), built-in shifted Rastrigin (the `ma` suite's problem) and Rastrigin as user CUDA \
         source (`UserProblem`, Exact profile), once with `evo_cos_f64(2πx)` and once with \
         `evo_cos_pi_f64(2x)` (the fast cosine of the user docs, twin `evo_benchmarks::functions::cos_pi`). MA-SW-Chains has no host-evaluation path, so no host row."
    );
    if ctx.gpu().is_none() {
        note.push(' ');
        note.push_str(&no_gpu_note("MA-SW-Chains"));
    }
    result.notes.push(format!("{note}\n\n{}", table.join("\n")));
    Ok(())
}

fn missing() -> Cycle {
    Cycle {
        time: PerStep::missing(),
        evaluations: f64::NAN,
    }
}

/// GPU events around `cycles` steps of the engine on `problem`; the evaluations per cycle over every cycle
/// run (warm-up included), every one of which must have run.
fn time<P: DeviceRealProblem>(
    ctx: &BenchContext,
    gpu: &Gpu,
    problem: &P,
    cycles: u64,
) -> anyhow::Result<Cycle> {
    // The largest budget, so that no timed cycle finds the budget spent (a spent cycle does nothing).
    let params = MaParams::new().with_max_evaluations(u64::from(u32::MAX))?;
    let mut engine = MaCuda::new(params, problem, SEED, gpu)?;
    let start = engine.progress();
    let (timing, ()) = ctx.time_gpu(gpu, || {
        for _ in 0..cycles {
            engine.step()?;
        }
        Ok(())
    })?;
    let end = engine.progress();
    let run = end.generation - start.generation;
    let sampling = ctx.sampling();
    anyhow::ensure!(
        run == (sampling.warmup + sampling.samples) as u64 * cycles,
        "MA-SW-Chains ran {run} cycles where {} were timed or warmed up",
        (sampling.warmup + sampling.samples) as u64 * cycles
    );
    Ok(Cycle {
        time: PerStep::measured(timing, cycles),
        evaluations: (end.evaluations - start.evaluations) as f64 / run as f64,
    })
}
