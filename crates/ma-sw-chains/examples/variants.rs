//! Quality of MA-SW-Chains' variants on the CPU at a reduced dimension with a proportional budget (the
//! paper's 5 evaluations per variable at 10^5 variables): the default, the librealea initial step
//! (`HalfNearest`), restart off, the sequential SSGA (1 child per step), and I_str / ρ0 changes.
//!
//! `cargo run --release -p evo-ma-sw-chains --example variants [function] [variables] [evaluations] [seeds]
//! [half-width] [variant]` (defaults: shifted-rastrigin, 10 000, 5 per variable, 2 seeds, the function's
//! default domain, every variant). A half-width `a` > 0 runs on `[−a, a]^D` instead; `variant` keeps the
//! variants whose label contains it. Each line also gives the RMS distance per variable of the best to the
//! optimum (distance/√D, the paper's Tables 2–12 distances divided by √D) and the initial best.

use clap::Parser;
use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
use evo_core::{ContinuousProblem, Engine};
use evo_ma_sw_chains::{MaCpu, MaParams};

/// MA-SW-Chains' variants on the CPU at a reduced dimension.
#[derive(Parser)]
struct Args {
    /// The shifted function's name.
    #[arg(default_value = "shifted-rastrigin")]
    function: String,
    /// Variables.
    #[arg(default_value_t = 10_000)]
    variables: usize,
    /// Evaluations per run (default: 5 per variable).
    evaluations: Option<u64>,
    /// Seeds per variant.
    #[arg(default_value_t = 2)]
    seeds: u64,
    /// A half-width `a` > 0 runs on `[−a, a]^D` instead of the function's default domain.
    #[arg(default_value_t = 0.0)]
    half_width: f64,
    /// Keeps the variants whose label contains it (default: every variant).
    #[arg(default_value = "")]
    only: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Args {
        function: name,
        variables,
        evaluations,
        seeds,
        half_width,
        only,
    } = Args::parse();
    let function = ShiftedFunction::ALL
        .iter()
        .copied()
        .find(|f| f.name() == name)
        .ok_or_else(|| format!("unknown function {name}"))?;
    let evaluations = evaluations.unwrap_or(5 * variables as u64);
    let problem = if half_width > 0.0 {
        ShiftedProblem::with_domain(function, variables, -half_width, half_width)?
    } else {
        ShiftedProblem::new(function, variables)?
    };
    let shift = problem.shift().to_vec();
    let base = MaParams::new().with_max_evaluations(evaluations)?;
    let variants: Vec<(&str, MaParams)> = vec![
        ("default", base.clone()),
        ("rho half-nearest", base.clone().with_rho_half_nearest(true)),
        ("restart off", base.clone().with_restart(false)),
        ("sequential SSGA", base.clone().with_children_per_step(1)?),
        ("rho0 0.02", base.clone().with_rho_init(0.02)?),
        ("rho0 1.0", base.clone().with_rho_init(1.0)?),
        ("I_str 100", base.clone().with_ls_intensity(100)?),
        ("LS ratio 0.8", base.clone().with_ls_ratio(0.8)?),
    ];
    println!(
        "{name}, D = {variables}, {evaluations} evaluations, {seeds} seeds, domain {:?}",
        problem
            .bounds()
            .lower()
            .first()
            .zip(problem.bounds().upper().first())
    );
    for (label, params) in variants
        .into_iter()
        .filter(|(l, _)| l.contains(only.as_str()))
    {
        let mut bests = Vec::new();
        let mut rms = 0.0;
        let mut initial = 0.0;
        for seed in 0..seeds {
            let mut engine = MaCpu::new(params.clone(), &problem, seed + 1, 1)?;
            initial += engine.progress().best_fitness / seeds as f64;
            while engine.progress().evaluations < evaluations {
                engine.step()?;
            }
            let (best, fitness) = engine.best()?;
            let squared: f64 = best
                .iter()
                .zip(&shift)
                .map(|(&x, &o)| (f64::from(x) - f64::from(o)).powi(2))
                .sum();
            rms += (squared / variables as f64).sqrt() / seeds as f64;
            bests.push(fitness);
        }
        let mean = bests.iter().sum::<f64>() / bests.len() as f64;
        let each: Vec<String> = bests.iter().map(|b| format!("{b:.4e}")).collect();
        println!(
            "{label:>18}: mean best {mean:.4e} ({}), initial {initial:.4e}, distance/√D {rms:.3}",
            each.join(", ")
        );
    }
    Ok(())
}
