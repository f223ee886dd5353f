//! The GA at the `ga` suite's sizes (N = 256, n = 32 and 128 variables of 16 bits): f1 (Hypersphere) built
//! in, written as user CUDA source ([`UserBits`]) and as a Rust closure over the whole population evaluated
//! on the host ([`HostEvaluated`] of a [`BatchFn`]).
//!
//! On the GPU: the paper-faithful engine ([`GaCuda`]), GPU events around `advance(g)` after warm-up, the
//! median divided by `g`, as the `ga` suite times it. On the CPU: the CPU engine (rayon) on the built-in and
//! on the user problem's Rust twin.

use evo_benchmarks::ga_functions::{BITS_PER_VARIABLE, GaFunction, decode_variable};
use evo_core::{Bits, Engine};
use evo_ga::{BatchFn, GaCpu, GaCuda, GaParams, HostEvaluated, PaperFunction, UserBits};
use evo_gpu_runtime::Gpu;
use rayon::prelude::*;

use super::{PerStep, SEED, cell, no_gpu_note, ratio, step_row};
use crate::bench::{Backend, BenchContext, SuiteResult};

/// The `ga` suite's numbers of variables.
const VARIABLES: [usize; 2] = [32, 128];
/// f1's range, the paper's: `[−5.12, 5.12]`.
const LOWER: f64 = -5.12;
const UPPER: f64 = 5.12;

/// f1 as a new user writes it for the GPU: decode each variable's 16 bits (first bit most significant) onto
/// `[−5.12, 5.12]` as the paper does, and sum the squares in order.
const HYPERSPHERE_SOURCE: &str = r#"// f1, Hypersphere, on 16 bits per variable.
__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits)
{
    const unsigned long long n = n_bits / 16;
    double sum = 0.0;
    for (unsigned long long i = 0; i < n; ++i) {
        unsigned int k = 0;
        for (unsigned long long b = 0; b < 16; ++b) {
            const unsigned long long j = i * 16 + b;
            k = (k << 1) | ((bits[j / 32] >> (j % 32)) & 1u);
        }
        const double x = (double)(float)(-5.12 + 10.24 * (double)k / 65535.0);
        sum += x * x;
    }
    return sum;
}
"#;

/// f1 of a packed row of `n` variables, as [`HYPERSPHERE_SOURCE`] computes it.
fn hypersphere(words: &[u32], n: usize) -> f64 {
    (0..n)
        .map(|i| f64::from(decode_variable(words, i, LOWER, UPPER)))
        .fold(0.0, |sum, x| sum + x * x)
}

/// f1 of `n` variables as user CUDA source with its Rust twin.
pub(super) fn user_hypersphere(
    n: usize,
) -> anyhow::Result<UserBits<impl Fn(&Bits) -> f64 + Clone + Sync + Send>> {
    Ok(UserBits::new(
        "hypersphere",
        BITS_PER_VARIABLE * n,
        HYPERSPHERE_SOURCE,
        move |bits: &Bits| hypersphere(bits.words(), n),
    )?)
}

/// f1 of `n` variables as a closure over the whole population, evaluated on the host (rayon over the rows).
fn host_hypersphere(n: usize) -> anyhow::Result<HostEvaluated<BatchFn<impl BatchClosure>>> {
    let words = Bits::word_count(BITS_PER_VARIABLE * n);
    let batch = move |rows: &[u32], fitness: &mut [f64]| {
        rows.par_chunks(words)
            .zip(fitness.par_iter_mut())
            .for_each(|(row, f)| *f = hypersphere(row, n));
    };
    Ok(HostEvaluated::new(BatchFn::new(
        "hypersphere-closure",
        BITS_PER_VARIABLE * n,
        batch,
    )?))
}

/// The closure of [`host_hypersphere`]: the population's rows in, their fitness out.
trait BatchClosure: Fn(&[u32], &mut [f64]) + Sync + Send + 'static {}

impl<F: Fn(&[u32], &mut [f64]) + Sync + Send + 'static> BatchClosure for F {}

/// Generations per sample: 50 (`--quick`: 5), the `ga` suite's.
fn generations(quick: bool) -> u64 {
    if quick { 5 } else { 50 }
}

/// The bytes the host path copies per generation: the population down (N·⌈L/32⌉·4) and the fitness up (N·8).
fn host_bytes(population: usize, bits: usize) -> (u64, u64) {
    (
        (population * Bits::word_count(bits) * 4) as u64,
        8 * population as u64,
    )
}

/// The GA rows and table.
pub(super) fn run(ctx: &BenchContext, result: &mut SuiteResult) -> anyhow::Result<()> {
    let params = GaParams::new();
    let population = params.population();
    let generations = generations(ctx.quick());
    let mut table = vec![
        "| n | bits | built-in f1 µs/gen | user source µs/gen | user / built-in | host closure µs/gen | host / built-in | bytes down + up per gen | CPU built-in µs/gen | CPU user twin µs/gen |"
            .to_string(),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    for n in VARIABLES {
        let bits = BITS_PER_VARIABLE * n;
        let builtin_problem = PaperFunction::new(GaFunction::Hypersphere, n)?;
        let user_problem = user_hypersphere(n)?;
        let (builtin, user, host) = match ctx.gpu() {
            Some(gpu) => (
                gpu_time(
                    ctx,
                    gpu,
                    GaCuda::new(params.clone(), &builtin_problem, SEED, gpu)?,
                    generations,
                )?,
                gpu_time(
                    ctx,
                    gpu,
                    GaCuda::new(params.clone(), &user_problem, SEED, gpu)?,
                    generations,
                )?,
                gpu_time(
                    ctx,
                    gpu,
                    GaCuda::new(params.clone(), &host_hypersphere(n)?, SEED, gpu)?,
                    generations,
                )?,
            ),
            None => (PerStep::missing(), PerStep::missing(), PerStep::missing()),
        };
        let (cpu_builtin, cpu_user) = if ctx.cpu() {
            (
                cpu_time(
                    ctx,
                    GaCpu::with_threads(params.clone(), builtin_problem, SEED, 0)?,
                    generations,
                )?,
                cpu_time(
                    ctx,
                    GaCpu::with_threads(params.clone(), user_problem, SEED, 0)?,
                    generations,
                )?,
            )
        } else {
            (PerStep::missing(), PerStep::missing())
        };
        let (down, up) = host_bytes(population, bits);
        table.push(format!(
            "| {n} | {bits} | {} | {} | {} | {} | {} | {down} + {up} | {} | {} |",
            cell(builtin.us()),
            cell(user.us()),
            ratio(user.us(), builtin.us()),
            cell(host.us()),
            ratio(host.us(), builtin.us()),
            cell(cpu_builtin.us()),
            cell(cpu_user.us()),
        ));
        let unit = "µs/generation";
        let size = n as u64;
        let gpu = || (Backend::Cuda, ctx.gpu_device());
        let cpu = || (Backend::Cpu, ctx.cpu_device().to_string());
        let case = |what: &str| (format!("GA {what} n={n} N={population}"), unit);
        let built_in = Some(("built-in f1", builtin.us()));
        let not_measured = ctx
            .gpu()
            .is_none()
            .then(|| "not measured (no GPU)".to_string());
        result.rows.extend([
            step_row(
                case("built-in f1"),
                gpu(),
                size,
                &builtin,
                None,
                not_measured.clone(),
            ),
            step_row(
                case("user source f1"),
                gpu(),
                size,
                &user,
                built_in,
                not_measured,
            ),
            step_row(
                case("host closure f1"),
                gpu(),
                size,
                &host,
                built_in,
                Some(format!("{down} B down + {up} B up per generation")),
            ),
            step_row(
                case("CPU built-in f1"),
                cpu(),
                size,
                &cpu_builtin,
                None,
                None,
            ),
            step_row(
                case("CPU user twin f1"),
                cpu(),
                size,
                &cpu_user,
                Some(("CPU built-in f1", cpu_builtin.us())),
                None,
            ),
        ]);
    }
    let mut note = format!(
        "GA per generation (Table 2 settings, N = {population}, seed {SEED}, {generations} generations per \
         sample): f1 (Hypersphere, 16 bits per variable on [−5.12, 5.12]) built in (`PaperFunction`), as \
         user CUDA source (`UserBits`, one thread per individual, Exact profile) and as a Rust closure over \
         the population on the host (`HostEvaluated(BatchFn)`, rayon over the rows; N·⌈L/32⌉·4 bytes down, \
         N·8 up per generation). GPU: the paper-faithful engine (`GaCuda::advance`), CUDA events; CPU: the \
         CPU engine (rayon) on the built-in and on the user problem's twin, wall clock."
    );
    if ctx.gpu().is_none() {
        note.push(' ');
        note.push_str(&no_gpu_note("GA"));
    }
    result.notes.push(format!("{note}\n\n{}", table.join("\n")));
    Ok(())
}

/// GPU events around `advance(generations)`.
fn gpu_time(
    ctx: &BenchContext,
    gpu: &Gpu,
    mut engine: GaCuda,
    generations: u64,
) -> anyhow::Result<PerStep> {
    let count = u32::try_from(generations)?;
    let (timing, ()) = ctx.time_gpu(gpu, || Ok(engine.advance(count)?))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use evo_core::BinaryProblem;

    #[test]
    fn the_user_twin_and_the_closure_are_the_built_in_f1() {
        let n = 4;
        let builtin = PaperFunction::new(GaFunction::Hypersphere, n).expect("valid");
        let user = user_hypersphere(n).expect("valid");
        let host = host_hypersphere(n).expect("valid");
        let words: Vec<u32> = vec![0x1234_abcd, 0xffff_0000];
        let bits = Bits::from_words(words.clone(), BITS_PER_VARIABLE * n).expect("valid");
        let expected = builtin.evaluate(&bits);
        assert!((user.evaluate(&bits) - expected).abs() < 1e-9 * expected.max(1.0));
        let mut fitness = [0.0];
        host.evaluate_batch(&words, &mut fitness);
        assert_eq!(fitness[0], user.evaluate(&bits));
    }

    #[test]
    fn host_bytes_are_the_rows_down_and_the_fitness_up() {
        assert_eq!(host_bytes(256, 512), (256 * 16 * 4, 256 * 8));
        assert_eq!(host_bytes(256, 500), (256 * 16 * 4, 256 * 8));
    }
}
