//! Suite `doors`: the time per generation of one run through each door of the library, side by side.
//!
//! The doors, for DE, GA and MA-SW-Chains at their bench sizes (DE: Rastrigin at M × D = 64 × 128 and
//! 1024 × 512, block 1024, as the `de` suite's timing; GA: Hypersphere at n = 32 and 128, N = 256, the `ga`
//! suite's paper-faithful engine; MA-SW-Chains: shifted Rastrigin at 10^5 variables, the `ma` suite's
//! smallest size; on the CPU 10^4, and 10^3 with `--quick`), each run for the same number of generations
//! from the same seed:
//!
//! - `step_many`: the engine built outside the timed region, then one `Engine::step_many(G)` and one
//!   `progress()` (which waits for the device), timed with the wall clock;
//! - `run`: the crate's `Run` builder with a generation limit and no options (what the one-call `run`
//!   does), so a history point every generation; and the same with `history_every(100)`;
//! - `evo run`: the `evo` binary with its defaults (a history point every G/100 generations, at most 100
//!   apart; progress lines every 100 generations on a non-terminal stderr), one process per sample.
//!
//! The doors' times are the executor's own wall time over the generations (`Report::wall_time_s`, for
//! `evo run` the `wall_time_s` of its result.json): the engine's construction, process start and result
//! files are outside it, as they are outside `step_many`'s timed region. Every door must end with the best
//! fitness of `step_many`, bit for bit (the check column); a difference fails the command.
//!
//! The `evo` binary is `$EVO_BIN` when set, else `evo` beside this xtask binary (`cargo build --release -p
//! evo-cli` puts it in `target/release/` with `cargo xtask`). Without it the `evo run` cells are `-` and
//! the command fails after writing the other doors' figures.

use std::time::Instant;

use anyhow::bail;
use evo_benchmarks::{DeRastrigin, GaFunction, ShiftedFunction, ShiftedProblem};
use evo_core::{Backend as RunBackend, Engine, Report, Termination};
use evo_de::{DeCpu, DeCuda, DeParams};
use evo_ga::{GaCpu, GaCuda, GaParams, PaperFunction};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::{MaCpu, MaCuda, MaParams};

use crate::bench::markdown::{fixed, times};
use crate::bench::{Backend, BenchContext, Reference, Row, Suite, SuiteResult, median};

mod evo;

use evo::{evo_binary, evo_door};

/// The runs' seed.
const SEED: u64 = 30;
/// The sparse history cadence measured beside the default (a point every generation).
const SPARSE_HISTORY: u64 = 100;
/// MA-SW-Chains' evaluation budget: high enough that the generation limit ends every run.
const MA_BUDGET: u64 = 4_000_000_000;

/// The `doors` suite.
pub struct Doors;

/// One algorithm at one size.
#[derive(Clone, Copy)]
enum Case {
    De { population: usize, dimension: usize },
    Ga { variables: usize },
    Ma { dimension: usize },
}

/// The cases and their generation counts per sample: (case on the CPU, case on CUDA, CPU generations,
/// CUDA generations). CUDA runs are long enough that a run's fixed costs (the first and last reads) are
/// small beside its generations; CPU samples are kept to about 0.1 s (`--quick`) or 0.5 s on a small
/// machine, with MA-SW-Chains at 10^3 (`--quick`) or 10^4 variables there, since a CPU step at 10^5 takes
/// seconds.
fn cases(quick: bool) -> Vec<(Case, Case, u64, u64)> {
    let scale = |quick_count: u64, full_count: u64| if quick { quick_count } else { full_count };
    let de = |population, dimension| Case::De {
        population,
        dimension,
    };
    let ga = |variables| Case::Ga { variables };
    let ma = |dimension| Case::Ma { dimension };
    vec![
        (
            de(64, 128),
            de(64, 128),
            scale(200, 1000),
            scale(2000, 10_000),
        ),
        (
            de(1024, 512),
            de(1024, 512),
            scale(5, 20),
            scale(1000, 5000),
        ),
        (ga(32), ga(32), scale(100, 500), scale(2000, 10_000)),
        (ga(128), ga(128), scale(30, 150), scale(2000, 10_000)),
        (
            ma(if quick { 1000 } else { 10_000 }),
            ma(100_000),
            scale(3, 2),
            scale(10, 50),
        ),
    ]
}

impl Case {
    fn label(self) -> String {
        match self {
            Self::De {
                population,
                dimension,
            } => format!("DE Rastrigin p{population} d{dimension}"),
            Self::Ga { variables } => format!("GA Hypersphere n={variables} N=256"),
            Self::Ma { dimension } => format!("MA-SW-Chains shifted Rastrigin d{dimension}"),
        }
    }

    fn size(self) -> u64 {
        let size = match self {
            Self::De {
                population,
                dimension,
            } => population * dimension,
            Self::Ga { variables } => variables,
            Self::Ma { dimension } => dimension,
        };
        size as u64
    }

    /// `evo run`'s algorithm, problem and `--set` arguments for this case.
    fn evo_args(self) -> Vec<String> {
        let owned = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        match self {
            Self::De {
                population,
                dimension,
            } => {
                let mut args = owned(&["de", "--problem", &format!("rastrigin:{dimension}")]);
                args.extend(owned(&["--set", &format!("population={population}")]));
                args.extend(owned(&["--set", "block=1024"]));
                args
            }
            Self::Ga { variables } => owned(&["ga", "--problem", &format!("ga:f1:{variables}")]),
            Self::Ma { dimension } => owned(&[
                "ma-sw-chains",
                "--problem",
                &format!("shifted-rastrigin:{dimension}"),
                "--set",
                &format!("max_evaluations={MA_BUDGET}"),
            ]),
        }
    }
}

/// Where a case runs.
#[derive(Clone, Copy)]
enum Target<'a> {
    Cpu,
    Cuda(&'a Gpu),
}

impl Target<'_> {
    fn run_backend(self) -> RunBackend {
        match self {
            Self::Cpu => RunBackend::Cpu { threads: 0 },
            Self::Cuda(gpu) => RunBackend::Cuda {
                device: gpu.index(),
            },
        }
    }

    fn backend(self) -> Backend {
        match self {
            Self::Cpu => Backend::Cpu,
            Self::Cuda(_) => Backend::Cuda,
        }
    }
}

/// What one sample of a door gave: µs per generation and the best fitness at the end.
struct Sample {
    per_generation_us: f64,
    best_fitness: f64,
}

/// A door's samples.
struct Measured {
    per_generation_us: f64,
    samples: usize,
    best_fitness: f64,
}

/// One sample of a door.
type Door<'a> = Box<dyn FnMut() -> anyhow::Result<Sample> + 'a>;

/// Runs every door for the warm-up and the timed samples, one sample of each door per round, so that a
/// change of the machine's load during the measurement touches every door alike; per door the median per
/// generation and the last best fitness.
fn measure(ctx: &BenchContext, doors: &mut [Door<'_>]) -> anyhow::Result<Vec<Measured>> {
    let sampling = ctx.sampling();
    for _ in 0..sampling.warmup {
        for door in doors.iter_mut() {
            door()?;
        }
    }
    let mut times = vec![Vec::with_capacity(sampling.samples); doors.len()];
    let mut best = vec![f64::NAN; doors.len()];
    for _ in 0..sampling.samples {
        for (k, door) in doors.iter_mut().enumerate() {
            let taken = door()?;
            times[k].push(taken.per_generation_us);
            best[k] = taken.best_fitness;
        }
    }
    Ok(times
        .iter()
        .zip(best)
        .map(|(times, best_fitness)| Measured {
            per_generation_us: median(times),
            samples: times.len(),
            best_fitness,
        })
        .collect())
}

/// One `step_many(generations)` of a freshly built engine, the build outside the timed region.
fn step_many_sample<E: Engine>(mut engine: E, generations: u64) -> anyhow::Result<Sample> {
    let start = Instant::now();
    engine.step_many(generations)?;
    let progress = engine.progress();
    let seconds = start.elapsed().as_secs_f64();
    anyhow::ensure!(
        progress.generation == generations,
        "step_many({generations}) left the engine at generation {}",
        progress.generation
    );
    Ok(Sample {
        per_generation_us: seconds * 1e6 / generations as f64,
        best_fitness: progress.best_fitness,
    })
}

/// The door's figures from its report, checked to have run `generations` generations.
fn report_sample<S>(report: &Report<S>, generations: u64) -> anyhow::Result<Sample> {
    anyhow::ensure!(
        report.generations == generations,
        "the run ended at generation {} of {generations} ({})",
        report.generations,
        report.termination
    );
    Ok(Sample {
        per_generation_us: report.wall_time_s * 1e6 / generations as f64,
        best_fitness: report.best_fitness,
    })
}

/// One sample of `step_many`: a fresh engine (built untimed) stepped `generations` times.
fn step_many_door(case: Case, target: Target<'_>, generations: u64) -> anyhow::Result<Sample> {
    match (case, target) {
        (Case::De { .. }, _) => {
            let (params, problem) = de_setup(case)?;
            match target {
                Target::Cpu => step_many_sample(DeCpu::new(params, problem, SEED, 0)?, generations),
                Target::Cuda(gpu) => {
                    step_many_sample(DeCuda::new(params, problem, SEED, gpu)?, generations)
                }
            }
        }
        (Case::Ga { variables }, Target::Cpu) => step_many_sample(
            GaCpu::with_threads(GaParams::new(), ga_problem(variables)?, SEED, 0)?,
            generations,
        ),
        (Case::Ga { variables }, Target::Cuda(gpu)) => step_many_sample(
            GaCuda::new(GaParams::new(), &ga_problem(variables)?, SEED, gpu)?,
            generations,
        ),
        (Case::Ma { dimension }, _) => {
            let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, dimension)?;
            let params = ma_params()?;
            match target {
                Target::Cpu => {
                    step_many_sample(MaCpu::new(params, &problem, SEED, 0)?, generations)
                }
                Target::Cuda(gpu) => {
                    step_many_sample(MaCuda::new(params, &problem, SEED, gpu)?, generations)
                }
            }
        }
    }
}

/// One sample of the crate's `Run` builder with a generation limit and, when given, a history cadence.
fn run_door(
    case: Case,
    target: Target<'_>,
    generations: u64,
    history_every: Option<u64>,
) -> anyhow::Result<Sample> {
    let termination = Termination::new().with_max_generations(generations);
    let backend = target.run_backend();
    match case {
        Case::De { .. } => {
            let (params, problem) = de_setup(case)?;
            let mut run = evo_de::Run::new(params, problem, SEED)
                .backend(backend)
                .termination(termination.clone());
            if let Some(every) = history_every {
                run = run.history_every(every);
            }
            report_sample(&run.run()?, generations)
        }
        Case::Ga { variables } => {
            let mut run = evo_ga::Run::new(GaParams::new(), ga_problem(variables)?, SEED)
                .backend(backend)
                .termination(termination.clone());
            if let Some(every) = history_every {
                run = run.history_every(every);
            }
            report_sample(&run.run()?, generations)
        }
        Case::Ma { dimension } => {
            let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, dimension)?;
            let mut run = evo_ma_sw_chains::Run::new(ma_params()?, &problem, SEED)
                .backend(backend)
                .termination(termination.clone());
            if let Some(every) = history_every {
                run = run.history_every(every);
            }
            report_sample(&run.run()?, generations)
        }
    }
}

fn de_setup(case: Case) -> anyhow::Result<(DeParams, DeRastrigin)> {
    let Case::De {
        population,
        dimension,
    } = case
    else {
        bail!("not a DE case");
    };
    let params = DeParams::default()
        .with_population(population)?
        .with_block_size(1024)?;
    Ok((params, DeRastrigin::new(dimension)?))
}

fn ga_problem(variables: usize) -> anyhow::Result<PaperFunction> {
    Ok(PaperFunction::new(GaFunction::Hypersphere, variables)?)
}

fn ma_params() -> anyhow::Result<MaParams> {
    Ok(MaParams::new().with_max_evaluations(MA_BUDGET)?)
}

/// The doors of one case on one backend, in table order: step_many, run, run with a sparse history, evo.
type Doors4 = [Option<Measured>; 4];

const DOOR_NAMES: [&str; 4] = ["step_many", "run", "run, history every 100", "evo run"];

impl Suite for Doors {
    fn name(&self) -> &'static str {
        "doors"
    }

    fn description(&self) -> &'static str {
        "time per generation through step_many, the Run builders and `evo run`, for DE, GA and MA-SW-Chains"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let mut result = SuiteResult::default();
        let evo = evo_binary();
        if let Err(reason) = &evo {
            result
                .failures
                .push(format!("`evo run` not measured: {reason}"));
        }
        let mut targets = Vec::new();
        if ctx.cpu() {
            targets.push(Target::Cpu);
        }
        if let Some(gpu) = ctx.gpu() {
            targets.push(Target::Cuda(gpu));
        }
        let out = std::env::temp_dir().join(format!("evo-doors-{}", std::process::id()));
        let mut table = vec![
            "| case | backend | generations | step_many µs | run µs | run, history every 100, µs | evo run µs | run / step_many | history 100 / step_many | evo / step_many |".to_string(),
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        let all = cases(ctx.quick());
        let bar = ctx.progress((all.len() * targets.len()) as u64, "doors");
        for target in targets {
            for &(cpu_case, cuda_case, cpu_generations, cuda_generations) in &all {
                let (case, generations) = match target {
                    Target::Cpu => (cpu_case, cpu_generations),
                    Target::Cuda(_) => (cuda_case, cuda_generations),
                };
                bar.set_message(case.label());
                let mut doors: Vec<Door<'_>> = vec![
                    Box::new(move || step_many_door(case, target, generations)),
                    Box::new(move || run_door(case, target, generations, None)),
                    Box::new(move || run_door(case, target, generations, Some(SPARSE_HISTORY))),
                ];
                if let Ok(evo) = &evo {
                    let out = out.as_path();
                    doors.push(Box::new(move || {
                        evo_door(evo, out, case, target, generations)
                    }));
                }
                let mut measured = measure(ctx, &mut doors)?.into_iter();
                let doors: Doors4 = std::array::from_fn(|_| measured.next());
                self.record(ctx, case, target, generations, &doors, &mut result);
                table.push(side_by_side(case, target, generations, &doors));
                bar.inc(1);
            }
        }
        bar.finish_and_clear();
        // The folder is this process's own scratch space; a leftover is harmless.
        let _ = std::fs::remove_dir_all(&out);
        result.notes.push(format!(
            "Time per generation through each door (seed {SEED}; the same generations from the same seed; \
             medians of the samples). step_many: the engine's batched stepping, built outside the timed \
             region. run: the crate's Run builder with only a generation limit (as the one-call `run`: a \
             history point, so a read of the best fitness, every generation); run, history every 100: the \
             same with `history_every(100)`. evo run: the `evo` binary ({}) with its defaults, the \
             executor's wall time from result.json. Ratios are the door's time over step_many's (1.00x: \
             no overhead). MA-SW-Chains' Run builder always adds its evaluation budget, which the executor \
             cannot count ahead (a step's evaluations vary), so it steps one generation at a time whatever \
             the history cadence.\n\n{}",
            match &evo {
                Ok(path) => path.display().to_string(),
                Err(reason) => format!("not measured: {reason}"),
            },
            table.join("\n")
        ));
        Ok(result)
    }
}

impl Doors {
    /// One row per door measured, each compared with step_many's time and best fitness.
    fn record(
        &self,
        ctx: &BenchContext,
        case: Case,
        target: Target<'_>,
        generations: u64,
        doors: &Doors4,
        result: &mut SuiteResult,
    ) {
        let device = match target {
            Target::Cpu => ctx.cpu_device().to_string(),
            Target::Cuda(_) => ctx.gpu_device(),
        };
        let base = doors[0].as_ref();
        for (name, measured) in DOOR_NAMES.iter().zip(doors) {
            let Some(measured) = measured else { continue };
            let (reference, check) = match base {
                Some(base) if *name != DOOR_NAMES[0] => {
                    let same = measured.best_fitness.to_bits() == base.best_fitness.to_bits();
                    if !same {
                        result.failures.push(format!(
                            "{} on {}: `{name}` ended with best fitness {:e}, step_many with {:e} after \
                             {generations} generations",
                            case.label(),
                            target.backend().name(),
                            measured.best_fitness,
                            base.best_fitness
                        ));
                    }
                    (
                        Some(Reference::new(
                            "step_many",
                            base.per_generation_us,
                            measured.per_generation_us,
                        )),
                        Some(if same {
                            "best = step_many's".to_string()
                        } else {
                            "best differs from step_many's".to_string()
                        }),
                    )
                }
                _ => (None, None),
            };
            result.rows.push(Row {
                case: format!("{}: {name}", case.label()),
                backend: target.backend(),
                device: device.clone(),
                size: case.size(),
                median_ms: measured.per_generation_us * 1e-3,
                samples: measured.samples,
                throughput: measured.per_generation_us,
                unit: "µs/generation".to_string(),
                reference,
                check,
            });
        }
    }
}

/// The notes' line for one case: each door's µs per generation and its ratio to step_many.
fn side_by_side(case: Case, target: Target<'_>, generations: u64, doors: &Doors4) -> String {
    let us = |door: &Option<Measured>| door.as_ref().map_or(f64::NAN, |m| m.per_generation_us);
    let base = us(&doors[0]);
    let cells: Vec<String> = doors.iter().map(|door| fixed(us(door), 2)).collect();
    let ratios: Vec<String> = doors[1..]
        .iter()
        .map(|door| times(us(door) / base))
        .collect();
    format!(
        "| {} | {} | {generations} | {} | {} | {} | {} | {} | {} | {} |",
        case.label(),
        target.backend().name(),
        cells[0],
        cells[1],
        cells[2],
        cells[3],
        ratios[0],
        ratios[1],
        ratios[2]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::markdown::NO_VALUE;

    #[test]
    fn a_door_not_measured_prints_a_dash_in_the_side_by_side_line() {
        let measured = |us| {
            Some(Measured {
                per_generation_us: us,
                samples: 1,
                best_fitness: 0.0,
            })
        };
        let doors: Doors4 = [measured(10.0), measured(20.0), measured(11.0), None];
        let line = side_by_side(Case::Ga { variables: 32 }, Target::Cpu, 5, &doors);
        assert_eq!(
            line,
            format!(
                "| GA Hypersphere n=32 N=256 | cpu | 5 | 10.00 | 20.00 | 11.00 | {NO_VALUE} | 2.00x | 1.10x | {NO_VALUE} |"
            )
        );
    }

    #[test]
    fn every_case_gives_evo_an_algorithm_and_a_problem() {
        for (cpu, cuda, _, _) in cases(true).into_iter().chain(cases(false)) {
            for case in [cpu, cuda] {
                let args = case.evo_args();
                assert!(args.len() >= 3 && args[1] == "--problem", "{args:?}");
            }
        }
    }
}
