//! MA-SW-Chains with the variables split over GPUs (`evo_distributed::dimension`): one run, one JSON line.
//!
//! ```text
//! cargo run --release -p evo-distributed --example ma_dimension_split -- VARIABLES EVALUATIONS GPUS [PROBLEM]
//! ```
//!
//! - `VARIABLES`: D (e.g. 100000000);
//! - `EVALUATIONS`: the budget (e.g. 50000, the `ma` bench's 10^8 run);
//! - `GPUS`: one entry per slice, e.g. `0` (one slice), `0,0` (two slices on GPU 0), `0,1` (two GPUs), or
//!   `unsplit` for the plain `MaCuda` engine on GPU 0 (the reference);
//! - `PROBLEM`: `shifted-rastrigin` (default, at most 10^8 variables: evo-benchmarks' shift vectors) or
//!   `rastrigin` (the DE paper's unshifted Rastrigin, any D: 2·10^8 on two GPUs).
//!
//! The line: `variables`, `problem`, `gpus`, `slices_per_gpu` (`{gpu: slices}`), `block`, `evaluations`,
//! `cycles`, `wall_time_s` (construction, which uploads and evaluates the initial population, plus the run),
//! `best_fitness`, and per GPU `model_bytes` (the memory model checked before allocating) and
//! `peak_used_bytes` (device memory in use, `cudaMemGetInfo` total − free, after construction and at the end,
//! the larger, minus what was in use before).

use std::collections::BTreeMap;
use std::time::Instant;

use evo_benchmarks::cuda::DeviceRealProblem;
use evo_benchmarks::{DeRastrigin, ShiftedFunction, ShiftedProblem};
use evo_core::{Engine, Error, Result};
use evo_distributed::dimension::{MaDimensionSplit, SeparableProblem, SliceLayout, memory};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::{MaCuda, MaParams};

const SEED: u64 = 2015;

fn usage(what: &'static str, value: impl std::fmt::Display, allowed: &'static str) -> Error {
    Error::invalid_parameter("ma_dimension_split", what, value, allowed)
}

/// Device memory in use on each GPU (total − free).
fn used(gpus: &BTreeMap<usize, Gpu>) -> Result<BTreeMap<usize, u64>> {
    gpus.iter()
        .map(|(&i, gpu)| gpu.memory().map(|(free, total)| (i, total - free)))
        .collect()
}

struct Outcome {
    evaluations: u64,
    cycles: u64,
    best: f64,
}

fn drive(engine: &mut impl Engine, budget: u64) -> Result<Outcome> {
    while engine.progress().evaluations < budget {
        engine.step()?;
    }
    let progress = engine.progress();
    Ok(Outcome {
        evaluations: progress.evaluations,
        cycles: progress.generation,
        best: progress.best_fitness,
    })
}

fn json_map(map: &BTreeMap<usize, u64>) -> String {
    let entries: Vec<String> = map.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", entries.join(","))
}

fn run<P: SeparableProblem + DeviceRealProblem>(
    problem: &P,
    name: &str,
    budget: u64,
    entries: Option<Vec<usize>>,
) -> Result<()> {
    let d = problem.dimension();
    let params = MaParams::new().with_max_evaluations(budget)?;
    let layout = entries
        .as_ref()
        .map(|e| SliceLayout::even(d, e))
        .transpose()?;
    let indices = layout.as_ref().map_or(vec![0], SliceLayout::gpus);
    let gpus = indices
        .iter()
        .map(|&i| Gpu::open(i).map(|gpu| (i, gpu)))
        .collect::<Result<BTreeMap<_, _>>>()?;
    let before = used(&gpus)?;
    let start = Instant::now();
    let (outcome, after_build, model) = match &layout {
        Some(layout) => {
            let mut engine = MaDimensionSplit::new(params.clone(), problem, SEED, layout)?;
            let built = used(&gpus)?;
            let model: BTreeMap<usize, u64> =
                memory::gpu_bytes(&params, layout).into_iter().collect();
            (drive(&mut engine, budget)?, built, model)
        }
        None => {
            let mut engine = MaCuda::new(params.clone(), problem, SEED, &gpus[&0])?;
            let built = used(&gpus)?;
            let model = BTreeMap::from([(0, evo_ma_sw_chains::memory::device_bytes(&params, d))]);
            (drive(&mut engine, budget)?, built, model)
        }
    };
    let wall = start.elapsed().as_secs_f64();
    let after_run = used(&gpus)?;
    let peak: BTreeMap<usize, u64> = before
        .iter()
        .map(|(&i, &b)| (i, after_build[&i].max(after_run[&i]).saturating_sub(b)))
        .collect();
    let slices: BTreeMap<usize, u64> = match &layout {
        Some(layout) => layout
            .slices_per_gpu()
            .into_iter()
            .map(|(g, s)| (g, s as u64))
            .collect(),
        None => BTreeMap::from([(0, 1)]),
    };
    let gpus_json: Vec<String> = match &entries {
        Some(e) => e.iter().map(usize::to_string).collect(),
        None => vec!["0".to_string()],
    };
    println!(
        "{{\"variables\":{d},\"problem\":\"{name}\",\"engine\":\"{}\",\"gpus\":[{}],\"slices_per_gpu\":{},\"block\":{},\
         \"evaluations\":{},\"cycles\":{},\"wall_time_s\":{wall:.3},\"best_fitness\":{:e},\"model_bytes\":{},\
         \"peak_used_bytes\":{}}}",
        if layout.is_some() {
            "MaDimensionSplit"
        } else {
            "MaCuda"
        },
        gpus_json.join(","),
        json_map(&slices),
        layout.as_ref().map_or(0, SliceLayout::block),
        outcome.evaluations,
        outcome.cycles,
        outcome.best,
        json_map(&model),
        json_map(&peak),
    );
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 || args.len() > 4 {
        return Err(usage(
            "arguments",
            args.join(" "),
            "VARIABLES EVALUATIONS GPUS [shifted-rastrigin|rastrigin], GPUS like 0 or 0,0 or 0,1 or unsplit",
        ));
    }
    let d: usize = args[0]
        .parse()
        .map_err(|_| usage("VARIABLES", &args[0], "a positive integer"))?;
    let budget: u64 = args[1]
        .parse()
        .map_err(|_| usage("EVALUATIONS", &args[1], "a positive integer"))?;
    let entries = if args[2] == "unsplit" {
        None
    } else {
        Some(
            args[2]
                .split(',')
                .map(|g| g.trim().parse::<usize>())
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|_| {
                    usage(
                        "GPUS",
                        &args[2],
                        "device indices separated by commas, or unsplit",
                    )
                })?,
        )
    };
    match args.get(3).map_or("shifted-rastrigin", String::as_str) {
        "shifted-rastrigin" => {
            let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, d)?;
            run(&problem, "shifted-rastrigin", budget, entries)
        }
        "rastrigin" => run(&DeRastrigin::new(d)?, "rastrigin", budget, entries),
        other => Err(usage("PROBLEM", other, "shifted-rastrigin or rastrigin")),
    }
}
