//! evo-dpga: the CUDA engine's snapshot equals the CPU engine's at every generation, bit for bit (Exact
//! profile): both populations' bits, the main population's objective, violation and satisfied count, δ, the
//! best so far, the seed and the counters.
//!
//! Cases (issue "evo-dpga"):
//! - one run, 300 generations, on g01, g04 and g07, under MCSM and under Deb's rules (Table II sizes,
//!   `init_max_draws` 5 000, the default Gray-coded variables);
//! - a batch of K runs (seeds `seed + r`) against K separate CPU runs, every generation, with the other
//!   crossovers, the random initialisation and the paper's binary encoding; g14 with 2 bits per variable,
//!   whose grid puts x_i = 0 (0·ln 0 = NaN) on many draws: non-finite values give the worst evaluation on
//!   both backends;
//! - a snapshot moved CPU → CUDA and CUDA → CPU mid-run (into fresh engines of the same seed), then both
//!   continued; CPU snapshots restored into a fresh batch;
//! - a short case for compute-sanitizer (every kernel of the initialisation and of a generation, a few
//!   generations).

use evo_benchmarks::Cec2006Problem;
use evo_core::{Engine, Result};
use evo_dpga::{
    ConstraintHandling, Crossover, DpgaBatchCuda, DpgaCpu, DpgaCuda, DpgaParams, DpgaSnapshot,
    Encoding, Initialisation,
};
use evo_gpu_runtime::Gpu;

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::{Comparison, Mismatch, Position, compare_slices};
use crate::tolerance::Tolerance;

/// The kernel every check exercises (the generation is a pipeline of dpga kernels).
pub const KERNEL: &str = "dpga_* (one generation)";

/// Generations of the single-run cases.
pub const GENERATIONS: u64 = 300;

/// Generations of the batch case.
pub const BATCH_GENERATIONS: u64 = 100;

/// Runs of the batch case.
pub const BATCH_RUNS: usize = 6;

/// CPU worker threads of the reference engines.
const CPU_THREADS: usize = 0;

/// Table II with a smaller initial draw budget (keeps the infeasible-start problems fast).
///
/// # Errors
/// Never for these constants; parameter errors otherwise.
pub fn test_params(handling: ConstraintHandling) -> Result<DpgaParams> {
    Ok(DpgaParams::default()
        .with_init_max_draws(5_000)?
        .with_constraint_handling(handling))
}

fn merge(a: Comparison, b: Comparison) -> Comparison {
    Comparison {
        cases: a.cases + b.cases,
        max_ulps: a.max_ulps.max(b.max_ulps),
        mismatches: a.mismatches + b.mismatches,
        first_mismatch: a.first_mismatch.or(b.first_mismatch),
    }
}

fn widen_bits(bits: &[u8]) -> Vec<f64> {
    bits.iter().map(|&b| f64::from(b)).collect()
}

/// Compares two snapshots field by field (bits and counts widened to exact `f64`s).
pub fn compare_snapshots(cpu: &DpgaSnapshot, gpu: &DpgaSnapshot, label: &str) -> Comparison {
    let generation = cpu.generation;
    let context = |i: usize| format!("{label}, element {i}");
    // The seed as two exact 32-bit halves (the key of every later draw).
    let counters = |s: &DpgaSnapshot| {
        vec![
            (s.seed >> 32) as f64,
            (s.seed & 0xffff_ffff) as f64,
            s.generation as f64,
            s.evaluations as f64,
            s.length as f64,
            s.target_distance,
            f64::from(u8::from(s.encoding == Encoding::Gray)),
        ]
    };
    let values = |s: &DpgaSnapshot| {
        s.main_values
            .iter()
            .chain(std::iter::once(&s.best_value))
            .flat_map(|v| {
                [
                    v.objective,
                    v.violation,
                    f64::from(v.satisfied),
                    f64::from(u8::from(v.feasible)),
                ]
            })
            .collect::<Vec<_>>()
    };
    [
        compare_slices(
            "seed (high, low), generation, evaluations, L, δ, encoding (1: Gray)",
            generation,
            1,
            &counters(cpu),
            &counters(gpu),
            Tolerance::Exact,
            context,
        ),
        compare_slices(
            "main bits",
            generation,
            cpu.length,
            &widen_bits(&cpu.main),
            &widen_bits(&gpu.main),
            Tolerance::Exact,
            context,
        ),
        compare_slices(
            "main (objective, violation, satisfied, feasible), then the best's",
            generation,
            4,
            &values(cpu),
            &values(gpu),
            Tolerance::Exact,
            context,
        ),
        compare_slices(
            "reserve bits",
            generation,
            cpu.length,
            &widen_bits(&cpu.reserve),
            &widen_bits(&gpu.reserve),
            Tolerance::Exact,
            context,
        ),
        compare_slices(
            "best bits",
            generation,
            cpu.length,
            &widen_bits(&cpu.best),
            &widen_bits(&gpu.best),
            Tolerance::Exact,
            context,
        ),
    ]
    .into_iter()
    .fold(
        Comparison {
            cases: 0,
            max_ulps: 0,
            mismatches: 0,
            first_mismatch: None,
        },
        merge,
    )
}

fn report(check: String, outcome: Result<Comparison>) -> CheckReport {
    match outcome {
        Ok(comparison) => CheckReport::from_comparison(check, KERNEL, &comparison),
        Err(error) => CheckReport::from_error(check, KERNEL, &error),
    }
}

/// One run of `g` on both backends, snapshots compared after every generation (generation 0 included).
pub fn check_single(
    gpu: &Gpu,
    g: u32,
    handling: ConstraintHandling,
    generations: u64,
    block: u32,
) -> CheckReport {
    let check = format!("g{g:02} {handling:?}, one run, {generations} generations, block {block}");
    let outcome = (|| -> Result<Comparison> {
        let problem = Cec2006Problem::new(g)?;
        let params = test_params(handling)?;
        let seed = 2006 + u64::from(g);
        let mut cpu = DpgaCpu::new(params.clone(), problem.clone(), seed, CPU_THREADS)?;
        let mut cuda = DpgaCuda::with_block(params, &problem, seed, gpu, block)?;
        let mut total = compare_snapshots(&cpu.snapshot()?, &cuda.snapshot()?, &check);
        for _ in 0..generations {
            if !total.passed() {
                break;
            }
            cpu.step()?;
            cuda.step()?;
            total = merge(
                total,
                compare_snapshots(&cpu.snapshot()?, &cuda.snapshot()?, &check),
            );
            if cpu.progress() != cuda.progress() {
                total.mismatches += 1;
            }
        }
        Ok(total)
    })();
    report(check, outcome)
}

/// A batch of [`BATCH_RUNS`] runs against as many separate CPU runs (seeds `seed + r`), every generation.
pub fn check_batch(gpu: &Gpu, g: u32, params: DpgaParams, label: &str, block: u32) -> CheckReport {
    check_batch_of(gpu, g, params, label, block, BATCH_RUNS, BATCH_GENERATIONS)
}

/// A batch of `runs` runs against as many separate CPU runs (seeds `77 + r`), `generations` generations,
/// compared after every one (generation 0 included).
pub fn check_batch_of(
    gpu: &Gpu,
    g: u32,
    params: DpgaParams,
    label: &str,
    block: u32,
    runs: usize,
    generations: u64,
) -> CheckReport {
    let check = format!(
        "g{g:02} {label}, batch of {runs} runs vs separate CPU runs, {generations} generations, block {block}"
    );
    let outcome = (|| -> Result<Comparison> {
        let problem = Cec2006Problem::new(g)?;
        let seed = 77;
        let mut cpus = (0..runs)
            .map(|r| {
                DpgaCpu::new(
                    params.clone(),
                    problem.clone(),
                    seed + r as u64,
                    CPU_THREADS,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let mut batch = DpgaBatchCuda::with_block(params, &problem, seed, runs, gpu, block)?;
        let compare_all = |cpus: &[DpgaCpu<Cec2006Problem>], batch: &DpgaBatchCuda| {
            let snapshots = batch.snapshots()?;
            let mut total = Comparison {
                cases: 0,
                max_ulps: 0,
                mismatches: 0,
                first_mismatch: None,
            };
            for (r, (cpu, gpu)) in cpus.iter().zip(&snapshots).enumerate() {
                let run_label = format!("{check}, run {r}");
                total = merge(total, compare_snapshots(&cpu.snapshot()?, gpu, &run_label));
                if cpu.progress() != batch.progress(r) {
                    total.mismatches += 1;
                }
            }
            Ok::<_, evo_core::Error>(total)
        };
        let mut total = compare_all(&cpus, &batch)?;
        for _ in 0..generations {
            if !total.passed() {
                break;
            }
            for cpu in &mut cpus {
                cpu.step()?;
            }
            batch.step()?;
            total = merge(total, compare_all(&cpus, &batch)?);
        }
        Ok(total)
    })();
    report(check, outcome)
}

/// The batch cases: g07 with two-point crossover (MCSM, Gray), g01 with uniform crossover, Deb's rules, the
/// random initialisation and binary encoding, g14 with 2 bits per variable (MCSM, Gray: singular points).
pub fn check_batches(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    let two_point =
        test_params(ConstraintHandling::Mcsm).map(|p| p.with_crossover(Crossover::TwoPoint));
    let uniform = test_params(ConstraintHandling::Deb).map(|p| {
        p.with_crossover(Crossover::Uniform)
            .with_initialisation(Initialisation::Random)
            .with_encoding(Encoding::Binary)
    });
    let singular = test_params(ConstraintHandling::Mcsm).and_then(|p| p.with_bits_per_variable(2));
    let mut reports = Vec::new();
    for (g, params, label) in [
        (7, two_point, "MCSM two-point"),
        (1, uniform, "Deb uniform random-init binary"),
        (14, singular, "MCSM 2 bits per variable (x_i = 0: NaN)"),
    ] {
        reports.push(match params {
            Ok(params) => check_batch(gpu, g, params, label, block),
            Err(error) => CheckReport::from_error(label.to_string(), KERNEL, &error),
        });
    }
    reports
}

/// A snapshot moves CPU → CUDA after 40 generations and CUDA → CPU after 40 more; both continue 40 more
/// generations and must agree at the end (g04, MCSM).
pub fn check_restore_across_backends(gpu: &Gpu) -> CheckReport {
    let check = "g04 snapshot CPU → CUDA → CPU, 120 generations".to_string();
    let outcome = (|| -> Result<Comparison> {
        let problem = Cec2006Problem::new(4)?;
        let params = test_params(ConstraintHandling::Mcsm)?;
        let mut cpu = DpgaCpu::new(params.clone(), problem.clone(), 5, CPU_THREADS)?;
        for _ in 0..40 {
            cpu.step()?;
        }
        // A CUDA engine of the same run (restore refuses another seed), overwritten by the CPU's state.
        let mut cuda = DpgaCuda::new(params.clone(), &problem, 5, gpu)?;
        cuda.restore(&cpu.snapshot()?)?;
        for _ in 0..40 {
            cpu.step()?;
            cuda.step()?;
        }
        let mut total = compare_snapshots(&cpu.snapshot()?, &cuda.snapshot()?, &check);
        let mut cpu_again = DpgaCpu::new(params, problem, 5, CPU_THREADS)?;
        cpu_again.restore(&cuda.snapshot()?)?;
        for _ in 0..40 {
            cpu.step()?;
            cuda.step()?;
            cpu_again.step()?;
        }
        total = merge(
            total,
            compare_snapshots(&cpu.snapshot()?, &cuda.snapshot()?, &check),
        );
        total = merge(
            total,
            compare_snapshots(&cpu.snapshot()?, &cpu_again.snapshot()?, &check),
        );
        Ok(total)
    })();
    report(check, outcome)
}

/// Runs of [`check_batch_restore`].
pub const RESTORE_RUNS: usize = 3;

/// [`RESTORE_RUNS`] CPU runs (seeds `40 + r`, g07, MCSM, two-point crossover) stepped 30 generations, their
/// snapshots restored into a fresh batch of the same seeds (40 + r), then both continued 30 generations and
/// compared after every one; the batch must refuse snapshots whose seeds are not run 0's plus `r`.
pub fn check_batch_restore(gpu: &Gpu, block: u32) -> CheckReport {
    let check = format!(
        "g07 CPU snapshots → fresh batch of {RESTORE_RUNS} runs, 60 generations, block {block}"
    );
    let outcome = (|| -> Result<Comparison> {
        let problem = Cec2006Problem::new(7)?;
        let params = test_params(ConstraintHandling::Mcsm)?.with_crossover(Crossover::TwoPoint);
        let mut cpus = (0..RESTORE_RUNS)
            .map(|r| DpgaCpu::new(params.clone(), problem.clone(), 40 + r as u64, CPU_THREADS))
            .collect::<Result<Vec<_>>>()?;
        for cpu in &mut cpus {
            for _ in 0..30 {
                cpu.step()?;
            }
        }
        let snapshots = cpus
            .iter()
            .map(Engine::snapshot)
            .collect::<Result<Vec<_>>>()?;
        let mut batch = DpgaBatchCuda::with_block(params, &problem, 40, RESTORE_RUNS, gpu, block)?;
        let mut total = Comparison {
            cases: 0,
            max_ulps: 0,
            mismatches: 0,
            first_mismatch: None,
        };
        let mut swapped = snapshots.clone();
        swapped.swap(0, 1);
        if batch.restore_all(&swapped).is_ok() {
            total.mismatches += 1;
            total.first_mismatch = Some(Mismatch {
                what: "restore_all of snapshots with seeds 41, 40, 42".to_string(),
                position: Position::default(),
                cpu: "refused".to_string(),
                gpu: "accepted".to_string(),
                ulps: u64::MAX,
                tolerance: Tolerance::Exact,
                context: check.clone(),
            });
        }
        batch.restore_all(&snapshots)?;
        for _ in 0..30 {
            for cpu in &mut cpus {
                cpu.step()?;
            }
            batch.step()?;
            for (r, (cpu, gpu_snapshot)) in cpus.iter().zip(batch.snapshots()?).enumerate() {
                let run_label = format!("{check}, run {r}");
                total = merge(
                    total,
                    compare_snapshots(&cpu.snapshot()?, &gpu_snapshot, &run_label),
                );
                if cpu.progress() != batch.progress(r) {
                    total.mismatches += 1;
                }
            }
            if !total.passed() {
                break;
            }
        }
        Ok(total)
    })();
    report(check, outcome)
}

/// A short case for compute-sanitizer (memcheck, racecheck): the feasible initialisation and 4 generations
/// of g04 (MCSM, Gray), and a batch of 2 runs of g01 (Deb, uniform crossover, random initialisation, binary)
/// for 3 generations: every dpga kernel, compared with the CPU after every generation.
pub fn check_short(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    let uniform = test_params(ConstraintHandling::Deb).map(|p| {
        p.with_crossover(Crossover::Uniform)
            .with_initialisation(Initialisation::Random)
            .with_encoding(Encoding::Binary)
    });
    vec![
        check_single(gpu, 4, ConstraintHandling::Mcsm, 4, block),
        match uniform {
            Ok(params) => check_batch_of(gpu, 1, params, "Deb uniform random-init", block, 2, 3),
            Err(error) => CheckReport::from_error("short batch".to_string(), KERNEL, &error),
        },
    ]
}

/// The single-run cases at one block size.
pub fn run_singles(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for g in [1, 4, 7] {
        for handling in [ConstraintHandling::Mcsm, ConstraintHandling::Deb] {
            reports.push(check_single(gpu, g, handling, GENERATIONS, block));
        }
    }
    reports
}

/// Every case: the single runs and batches at both block sizes, and the restores.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for &block in &BLOCK_SIZES {
        reports.extend(run_singles(gpu, block));
        reports.extend(check_batches(gpu, block));
    }
    reports.push(check_restore_across_backends(gpu));
    reports.push(check_batch_restore(gpu, BLOCK_SIZES[0]));
    reports
}
