//! Quality of MA-SW-Chains' variants on the CPU at a reduced dimension with a proportional budget (the
//! paper's 5 evaluations per variable at 10^5 variables): the default, the librealea initial step
//! (`HalfNearest`), restart off, the sequential SSGA (1 child per step), and I_str / ρ0 changes.
//!
//! `cargo run --release -p evo-ma-sw-chains --example variants [function] [variables] [evaluations] [seeds]`
//! (defaults: shifted-rastrigin, 10 000, 5 per variable, 2 seeds).

use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
use evo_core::Engine;
use evo_ma_sw_chains::{MaCpu, MaParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let name = args
        .next()
        .unwrap_or_else(|| "shifted-rastrigin".to_string());
    let function = ShiftedFunction::ALL
        .iter()
        .copied()
        .find(|f| f.name() == name)
        .ok_or_else(|| format!("unknown function {name}"))?;
    let variables: usize = args.next().map_or(Ok(10_000), |t| t.parse())?;
    let evaluations: u64 = args
        .next()
        .map_or(Ok(5 * variables as u64), |t| t.parse())?;
    let seeds: u64 = args.next().map_or(Ok(2), |t| t.parse())?;
    let problem = ShiftedProblem::new(function, variables)?;
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
    println!("{name}, D = {variables}, {evaluations} evaluations, {seeds} seeds");
    for (label, params) in variants {
        let mut bests = Vec::new();
        for seed in 0..seeds {
            let mut engine = MaCpu::new(params.clone(), &problem, seed + 1, 1)?;
            while engine.progress().evaluations < evaluations {
                engine.step()?;
            }
            bests.push(engine.progress().best_fitness);
        }
        let mean = bests.iter().sum::<f64>() / bests.len() as f64;
        let each: Vec<String> = bests.iter().map(|b| format!("{b:.4e}")).collect();
        println!("{label:>18}: mean best {mean:.4e}  ({})", each.join(", "));
    }
    Ok(())
}
