//! evo-ma-sw-chains: the CPU and CUDA engines, from the same seed, hold identical snapshots (population,
//! fitness, non-improved counters, chains with their bias vectors, RNG counters) after every memetic cycle
//! under the Exact profile, on the paper's six shifted functions at D = 1000 and D = 100 000 for 20 000
//! evaluations; the ρ0 and sequential-SSGA variants; and a snapshot crosses backends (CPU → GPU → CPU) and both continue identically.

use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
use evo_core::{Engine, Result};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::{MaCpu, MaCuda, MaParams, MaSnapshot};

use super::CheckReport;
use crate::compare::{Comparison, compare_slices};
use crate::tolerance::Tolerance;

/// The seed of every run.
pub const SEED: u64 = 2015;
/// The evaluation budget of every run.
pub const EVALUATIONS: u64 = 20_000;
/// The dimensions of the suite.
pub const DIMENSIONS: [usize; 2] = [1_000, 100_000];

fn exact_f64(what: &str, cycle: u64, genes: usize, cpu: &[f64], gpu: &[f64]) -> Comparison {
    compare_slices(what, cycle, genes, cpu, gpu, Tolerance::Exact, |_| {
        format!("MA-SW-Chains, seed {SEED}")
    })
}

fn exact_f32(what: &str, cycle: u64, genes: usize, cpu: &[f32], gpu: &[f32]) -> Comparison {
    compare_slices(what, cycle, genes, cpu, gpu, Tolerance::Exact, |_| {
        format!("MA-SW-Chains, seed {SEED}")
    })
}

/// Compares two snapshots field by field; `None` when they are identical.
pub fn compare_snapshots(cpu: &MaSnapshot, gpu: &MaSnapshot) -> Option<Comparison> {
    let cycle = cpu.cycles;
    let counters = |s: &MaSnapshot| {
        vec![
            s.evaluations as f64,
            s.cycles as f64,
            f64::from(s.children),
            f64::from(s.ls_iterations),
            f64::from(s.restarts),
        ]
    };
    let chain_scalars = |s: &MaSnapshot| {
        s.chains
            .iter()
            .flat_map(|c| match c {
                Some(c) => [
                    1.0,
                    f64::from(c.rho),
                    f64::from(c.successes),
                    f64::from(c.failures),
                ],
                None => [0.0; 4],
            })
            .collect::<Vec<f64>>()
    };
    let biases = |s: &MaSnapshot| {
        s.chains
            .iter()
            .flat_map(|c| c.as_ref().map_or(&[][..], |c| &c.bias[..]).iter().copied())
            .collect::<Vec<f32>>()
    };
    let non_improved = |s: &MaSnapshot| {
        s.non_improved
            .iter()
            .map(|&c| f64::from(c))
            .collect::<Vec<f64>>()
    };
    [
        exact_f64(
            "counters (evaluations, cycles, children, LS iterations, restarts)",
            cycle,
            1,
            &counters(cpu),
            &counters(gpu),
        ),
        exact_f32(
            "population",
            cycle,
            cpu.dimension,
            &cpu.population,
            &gpu.population,
        ),
        exact_f64("fitness", cycle, 1, &cpu.fitness, &gpu.fitness),
        exact_f64(
            "non-improved counters",
            cycle,
            1,
            &non_improved(cpu),
            &non_improved(gpu),
        ),
        exact_f64(
            "chains (present, rho, successes, failures)",
            cycle,
            4,
            &chain_scalars(cpu),
            &chain_scalars(gpu),
        ),
        exact_f32(
            "chain biases",
            cycle,
            cpu.dimension,
            &biases(cpu),
            &biases(gpu),
        ),
    ]
    .into_iter()
    .find(|c| !c.passed())
}

/// Steps both engines to the budget, comparing snapshots after initialisation and every cycle; returns the
/// number of values compared, or the first mismatch.
fn lockstep(
    cpu: &mut impl Engine<Snapshot = MaSnapshot>,
    gpu: &mut impl Engine<Snapshot = MaSnapshot>,
    budget: u64,
) -> Result<std::result::Result<u64, Comparison>> {
    let mut cases = 0u64;
    loop {
        let (c, g) = (cpu.snapshot()?, gpu.snapshot()?);
        if let Some(mismatch) = compare_snapshots(&c, &g) {
            return Ok(Err(mismatch));
        }
        cases += (c.population.len() + c.fitness.len()) as u64;
        if c.evaluations >= budget {
            return Ok(Ok(cases));
        }
        cpu.step()?;
        gpu.step()?;
    }
}

fn report(check: String, outcome: Result<std::result::Result<u64, Comparison>>) -> CheckReport {
    let kernel = "ma_*";
    CheckReport::from_lockstep(check, kernel, outcome)
}

fn params() -> Result<MaParams> {
    MaParams::new().with_max_evaluations(EVALUATIONS)
}

/// One function at one dimension, every cycle of a run of `evaluations` evaluations (small runs are the cases
/// `compute-sanitizer --tool racecheck` can finish).
pub fn check_short_run(
    gpu: &Gpu,
    function: ShiftedFunction,
    dimension: usize,
    evaluations: u64,
) -> CheckReport {
    let check = format!(
        "{}, D = {dimension}, {evaluations} evaluations, every cycle",
        function.name()
    );
    let outcome = (|| {
        let problem = ShiftedProblem::new(function, dimension)?;
        let params = MaParams::new().with_max_evaluations(evaluations)?;
        let mut cpu = MaCpu::new(params.clone(), &problem, SEED, 0)?;
        let mut on_gpu = MaCuda::new(params, &problem, SEED, gpu)?;
        lockstep(&mut cpu, &mut on_gpu, evaluations)
    })();
    report(check, outcome)
}

/// One function at one dimension, every cycle of a 20 000-evaluation run.
pub fn check_run(gpu: &Gpu, function: ShiftedFunction, dimension: usize) -> CheckReport {
    let check = format!(
        "{}, D = {dimension}, {EVALUATIONS} evaluations, every cycle",
        function.name()
    );
    let outcome = (|| {
        let problem = ShiftedProblem::new(function, dimension)?;
        let mut cpu = MaCpu::new(params()?, &problem, SEED, 0)?;
        let mut on_gpu = MaCuda::new(params()?, &problem, SEED, gpu)?;
        lockstep(&mut cpu, &mut on_gpu, EVALUATIONS)
    })();
    report(check, outcome)
}

/// Builds the parameters of one variant.
type ParamsMaker = fn() -> Result<MaParams>;

/// The variants: ρ0 capped by half the nearest distance, the sequential SSGA (1 child per step) without
/// restart, and short Solis–Wets applications (I_str = 37, so the device loop's batches and its tail of one
/// iteration per evaluation alternate) with other success/failure limits and ρ factors and a budget that ends
/// inside an application (shifted Griewank, D = 1000).
pub fn check_variants(gpu: &Gpu) -> Vec<CheckReport> {
    let variants: [(&str, ParamsMaker); 3] = [
        ("rho0 half nearest", || {
            Ok(params()?.with_rho_half_nearest(true))
        }),
        ("sequential SSGA, no restart", || {
            Ok(params()?.with_children_per_step(1)?.with_restart(false))
        }),
        (
            "I_str 37, limits 2/2, factors 1.5/0.25, budget ends inside an LS",
            || {
                MaParams::new()
                    .with_ls_intensity(37)?
                    .with_sw_limits(2, 2)?
                    .with_rho_factors(1.5, 0.25)?
                    .with_max_evaluations(EVALUATIONS - 137)
            },
        ),
    ];
    variants
        .iter()
        .map(|(name, make)| {
            let check = format!("shifted-griewank, D = 1000, {name}, every cycle");
            let outcome = (|| {
                let problem = ShiftedProblem::new(ShiftedFunction::Griewank, 1_000)?;
                let budget = make()?.max_evaluations();
                let mut cpu = MaCpu::new(make()?, &problem, SEED, 0)?;
                let mut on_gpu = MaCuda::new(make()?, &problem, SEED, gpu)?;
                lockstep(&mut cpu, &mut on_gpu, budget)
            })();
            report(check, outcome)
        })
        .collect()
}

/// The Solis–Wets loop with look-ahead 1 (the default above 500 000 variables) at D = 1000, where the default
/// is 2: every cycle of shifted Rastrigin, and the two look-aheads against each other.
pub fn check_lookahead_one(gpu: &Gpu) -> CheckReport {
    let check = "shifted-rastrigin, D = 1000, Solis–Wets look-ahead 1, every cycle".to_string();
    let outcome = (|| {
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 1_000)?;
        let mut cpu = MaCpu::new(params()?, &problem, SEED, 0)?;
        let mut on_gpu = MaCuda::new(params()?, &problem, SEED, gpu)?;
        on_gpu.set_sw_lookahead(1)?;
        lockstep(&mut cpu, &mut on_gpu, EVALUATIONS)
    })();
    report(check, outcome)
}

/// A CPU snapshot after 3 cycles restores on the GPU; a GPU snapshot 3 cycles later restores on a fresh CPU
/// engine; each pair then runs identically to the budget (Rastrigin, D = 1000).
pub fn check_cross_restore(gpu: &Gpu) -> CheckReport {
    let check = "cross-backend restore, shifted Rastrigin, D = 1000".to_string();
    let outcome = (|| {
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 1_000)?;
        let mut cpu = MaCpu::new(params()?, &problem, SEED, 0)?;
        let mut on_gpu = MaCuda::new(params()?, &problem, SEED, gpu)?;
        for _ in 0..3 {
            cpu.step()?;
        }
        on_gpu.restore(&cpu.snapshot()?)?;
        for _ in 0..3 {
            cpu.step()?;
            on_gpu.step()?;
        }
        let mut fresh = MaCpu::new(params()?, &problem, SEED, 1)?;
        fresh.restore(&on_gpu.snapshot()?)?;
        lockstep(&mut fresh, &mut on_gpu, EVALUATIONS)
    })();
    report(check, outcome)
}

/// Every function at every dimension, then the cross-backend restore.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for dimension in DIMENSIONS {
        for function in ShiftedFunction::ALL {
            reports.push(check_run(gpu, function, dimension));
        }
    }
    reports.extend(check_variants(gpu));
    reports.push(check_lookahead_one(gpu));
    reports.push(check_cross_restore(gpu));
    reports
}
