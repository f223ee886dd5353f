//! The discrete and constrained test problems of evo-benchmarks: the GPU evaluation against the CPU
//! reference, bit for bit under the Exact profile, on 64 random individuals per problem.
//!
//! - knapsack: generated instances of 250 and 1000 items (and knapsack-250 when the data folder is present):
//!   random packed rows, repaired on both sides; the repaired rows, the fitness and the weights must agree.
//! - ETC: generated instances of 512 × 16 and 1000 × 7 tasks × machines (1000 tasks span several tiles at
//!   either block size; and u_c_hihi.0 when the data folder is present): random schedules (makespan,
//!   flowtime, fitness) and random real-coded rows, some outside `[0, m]` (fitness of `EtcProblem`).
//! - CEC 2006: every g01–g24, random points of the box: objective, total violation and every constraint.

use evo_benchmarks::cec2006::Cec2006Problem;
use evo_benchmarks::data::shared_data_dir;
use evo_benchmarks::knapsack::Knapsack;
use evo_benchmarks::scheduling::{DEFAULT_LAMBDA, EtcClass, EtcInstance, EtcProblem};
use evo_core::{Bits, ConstrainedProblem, ConstrainedValue, ContinuousProblem, Result};
use evo_gpu_runtime::{Gpu, Profile};

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::{Comparison, compare_slices};
use crate::inputs::SplitMix64;
use crate::tolerance::Tolerance;

/// Individuals per check.
pub const INDIVIDUALS: usize = 64;
const KERNEL: &str = "benchmarks_discrete";

/// Merges comparisons of several outputs into one (the first mismatch wins).
fn merge(parts: Vec<Comparison>) -> Comparison {
    let mut all = Comparison {
        cases: 0,
        max_ulps: 0,
        mismatches: 0,
        first_mismatch: None,
    };
    for part in parts {
        all.cases += part.cases;
        all.max_ulps = all.max_ulps.max(part.max_ulps);
        all.mismatches += part.mismatches;
        if all.first_mismatch.is_none() {
            all.first_mismatch = part.first_mismatch;
        }
    }
    all
}

fn exact(what: &str, genes: usize, cpu: &[f64], gpu: &[f64]) -> Comparison {
    compare_slices(what, 0, genes, cpu, gpu, Tolerance::Exact, |i| {
        format!("element {i}")
    })
}

fn to_report(check: String, result: Result<Comparison>) -> CheckReport {
    match result {
        Ok(comparison) => CheckReport::from_comparison(check, KERNEL, &comparison),
        Err(error) => CheckReport::from_error(check, KERNEL, &error),
    }
}

/// The knapsack instances of the suite.
pub fn knapsack_instances() -> Vec<Knapsack> {
    let mut instances: Vec<Knapsack> = [(250, 11), (1000, 12)]
        .iter()
        .filter_map(|&(items, seed)| Knapsack::generate(items, seed).ok())
        .collect();
    if let Some(dir) = shared_data_dir() {
        instances.extend(Knapsack::from_file(dir.join("knapsack/knapsack-250.txt")).ok());
    }
    instances
}

/// Repairs 64 random rows of `problem` on both sides at `block`.
pub fn check_knapsack(gpu: &Gpu, problem: &Knapsack, block: u32) -> CheckReport {
    let check = format!(
        "knapsack {} x{INDIVIDUALS}, block {block}",
        problem.instance_name()
    );
    let words = Bits::word_count(problem.len());
    let mut rng = SplitMix64::new(problem.len() as u64 ^ 0x6b6e);
    // Rows of every density: all ones, all zeros, then random words ANDed to vary the fill.
    let mut rows: Vec<u32> = Vec::with_capacity(INDIVIDUALS * words);
    for i in 0..INDIVIDUALS {
        for _ in 0..words {
            let word = match i {
                0 => u32::MAX,
                1 => 0,
                _ => {
                    let mut w = rng.next_u64() as u32;
                    for _ in 0..(i % 4) {
                        w &= rng.next_u64() as u32;
                    }
                    w
                }
            };
            rows.push(word);
        }
    }
    let result = (|| {
        let mut cpu_rows = rows.clone();
        let mut cpu_fitness = vec![0.0; INDIVIDUALS];
        problem.repair_batch(&mut cpu_rows, &mut cpu_fitness)?;
        let cpu_weight: Vec<f64> = cpu_rows
            .chunks(words)
            .map(|row| {
                let mut row = row.to_vec();
                problem.repair_row(&mut row).weight
            })
            .collect();
        let mut gpu_rows = rows.clone();
        let mut gpu_fitness = vec![0.0; INDIVIDUALS];
        let gpu_weight = problem.cuda_evaluator(gpu)?.repair_evaluate_host(
            &mut gpu_rows,
            &mut gpu_fitness,
            Profile::Exact,
            block,
        )?;
        let as_f64 = |v: &[u32]| v.iter().map(|&w| f64::from(w)).collect::<Vec<f64>>();
        Ok(merge(vec![
            exact(
                "repaired rows",
                words,
                &as_f64(&cpu_rows),
                &as_f64(&gpu_rows),
            ),
            exact("fitness", 1, &cpu_fitness, &gpu_fitness),
            exact("weight", 1, &cpu_weight, &gpu_weight),
        ]))
    })();
    to_report(check, result)
}

/// The ETC instances of the suite.
pub fn etc_instances() -> Vec<EtcInstance> {
    let classes = EtcClass::all();
    let mut instances: Vec<EtcInstance> = [(classes[0], 512, 16, 21), (classes[9], 1000, 7, 22)]
        .iter()
        .filter_map(|&(class, n, m, seed)| EtcInstance::generate(class, n, m, seed).ok())
        .collect();
    if let Some(dir) = shared_data_dir() {
        instances.extend(EtcInstance::from_file(dir.join("hcsp-512x16/u_c_hihi.0")).ok());
    }
    instances
}

/// 64 random schedules of `instance` on both sides at `block`.
pub fn check_etc_schedules(gpu: &Gpu, instance: &EtcInstance, block: u32) -> CheckReport {
    let check = format!(
        "etc schedules {} x{INDIVIDUALS}, block {block}",
        instance.name()
    );
    let n = instance.tasks();
    let m = instance.machines() as u64;
    let mut rng = SplitMix64::new(n as u64 ^ 0x65_7463);
    let schedules: Vec<u32> = (0..INDIVIDUALS * n)
        .map(|k| {
            // Row 0 puts everything on machine 0; the others are uniform.
            if k < n {
                0
            } else {
                (rng.next_u64() % m) as u32
            }
        })
        .collect();
    let result = (|| {
        let mut cpu = [Vec::new(), Vec::new(), Vec::new()];
        for row in schedules.chunks(n) {
            let objectives = instance.objectives(row)?;
            cpu[0].push(objectives.makespan);
            cpu[1].push(objectives.flowtime);
            cpu[2].push(objectives.fitness(DEFAULT_LAMBDA, instance.machines()));
        }
        let on_gpu = instance
            .cuda_evaluator(gpu, DEFAULT_LAMBDA)?
            .evaluate_schedules_host(&schedules, Profile::Exact, block)?;
        Ok(merge(vec![
            exact("makespan", 1, &cpu[0], &on_gpu[0]),
            exact("flowtime", 1, &cpu[1], &on_gpu[1]),
            exact("fitness", 1, &cpu[2], &on_gpu[2]),
        ]))
    })();
    to_report(check, result)
}

/// 64 random real-coded rows of `instance` (about 1 in 16 coordinates outside `[0, m]`, and some exactly
/// `m`) on both sides at `block`, λ = 0.6.
pub fn check_etc_real(gpu: &Gpu, instance: &EtcInstance, block: u32) -> CheckReport {
    let check = format!(
        "etc real-coded {} x{INDIVIDUALS}, block {block}",
        instance.name()
    );
    let n = instance.tasks();
    let m = instance.machines() as f64;
    let mut rng = SplitMix64::new(n as u64 ^ 0x7265_616c);
    let population: Vec<f32> = (0..INDIVIDUALS * n)
        .map(|_| match rng.next_u64() % 32 {
            0 => rng.uniform(-2.0, 0.0) as f32,
            1 => rng.uniform(m, m + 2.0) as f32,
            2 => m as f32,
            _ => rng.uniform(0.0, m) as f32,
        })
        .collect();
    let result = (|| {
        let problem = EtcProblem::new(instance.clone(), 0.6)?;
        let mut cpu = vec![0.0; INDIVIDUALS];
        problem.evaluate_batch(&population, &mut cpu);
        let on_gpu =
            problem
                .cuda_evaluator(gpu)?
                .evaluate_real_host(&population, Profile::Exact, block)?;
        Ok(exact("fitness", 1, &cpu, &on_gpu[2]))
    })();
    to_report(check, result)
}

/// 64 random points of g`number`'s box on both sides at `block`.
pub fn check_cec2006(gpu: &Gpu, number: u32, block: u32) -> CheckReport {
    let check = format!("cec2006 g{number:02} x{INDIVIDUALS}, block {block}");
    let result = (|| {
        let problem = Cec2006Problem::new(number)?;
        let d = problem.dimension();
        let (lower, upper) = (problem.bounds().lower(), problem.bounds().upper());
        let mut rng = SplitMix64::new(u64::from(number) ^ 0x2006);
        let population: Vec<f32> = (0..INDIVIDUALS * d)
            .map(|k| rng.uniform(f64::from(lower[k % d]), f64::from(upper[k % d])) as f32)
            .collect();
        let constraints = problem.inequality_count() + problem.equality_count();
        let mut cpu_constraints = Vec::with_capacity(INDIVIDUALS * constraints);
        let mut cpu_values = Vec::with_capacity(INDIVIDUALS);
        for x in population.chunks(d) {
            let mut g = vec![0.0; problem.inequality_count()];
            let mut h = vec![0.0; problem.equality_count()];
            let f = problem.evaluate(x, &mut g, &mut h);
            cpu_values.push(ConstrainedValue::new(
                f,
                &g,
                &h,
                problem.equality_tolerance(),
            ));
            cpu_constraints.extend(g);
            cpu_constraints.extend(h);
        }
        let mut gpu_values = vec![
            ConstrainedValue {
                objective: 0.0,
                violation: 0.0
            };
            INDIVIDUALS
        ];
        let gpu_constraints = problem.cuda_evaluator(gpu).evaluate_host(
            &population,
            &mut gpu_values,
            Profile::Exact,
            block,
        )?;
        let objective = |v: &[ConstrainedValue]| v.iter().map(|c| c.objective).collect::<Vec<_>>();
        let violation = |v: &[ConstrainedValue]| v.iter().map(|c| c.violation).collect::<Vec<_>>();
        Ok(merge(vec![
            exact(
                "objective",
                1,
                &objective(&cpu_values),
                &objective(&gpu_values),
            ),
            exact(
                "violation",
                1,
                &violation(&cpu_values),
                &violation(&gpu_values),
            ),
            exact(
                "constraints",
                constraints,
                &cpu_constraints,
                &gpu_constraints,
            ),
        ]))
    })();
    to_report(check, result)
}

/// Every check at `block`.
pub fn run_at(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for problem in knapsack_instances() {
        reports.push(check_knapsack(gpu, &problem, block));
    }
    for instance in etc_instances() {
        reports.push(check_etc_schedules(gpu, &instance, block));
        reports.push(check_etc_real(gpu, &instance, block));
    }
    for number in 1..=24 {
        reports.push(check_cec2006(gpu, number, block));
    }
    reports
}

/// Every check at every block size.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    BLOCK_SIZES
        .iter()
        .flat_map(|&block| run_at(gpu, block))
        .collect()
}
