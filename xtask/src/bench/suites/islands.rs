//! Suite `islands`: how DE islands (evo-distributed's island model) scale over the devices of this machine,
//! and where the time goes when they do not.
//!
//! DE/rand/1/bin on Rastrigin (`DeParams` defaults, Exact profile) at M × D = 64 × 128 (the `de` suite's
//! size) and 1024 × 512, migration every 50 generations with the model's other defaults (one migrant along
//! the ring), seed 2032. On `n = 1 … N` of the `N` visible GPUs (`cuda:0,…,cuda:n−1`; narrow them with
//! `CUDA_VISIBLE_DEVICES`):
//!
//! - weak scaling: 8 islands per GPU (`K = 8n`);
//! - strong scaling: `K = 8N` islands in all, whatever `n` (only when `N ≥ 2`).
//!
//! Each configuration is timed four ways ([`Run`]), one after the other:
//!
//! 1. the model (`step_many(G)`, migration every 50): the headline rows;
//! 2. the model with migration off (an interval no run reaches), stepped 50 generations at a time: the
//!    host threads still spawned and joined and the bests still read back every 50, no migrant;
//! 3. the model with migration off in one `step_many(G)`: one join per sample;
//! 4. the same engines without the model: one host thread per GPU for the whole sample, each stepping its
//!    islands 50 generations at a time in the model's order (one thread on one GPU: the raw, launch-bound
//!    rate of the islands; `n` threads on `n` GPUs: what the threads of one process cost each other).
//!
//! So 1 against 2 is the migrations' cost, 2 against 4 the model's spawn and join every 50 generations, and
//! the efficiency of 4 what remains without any model (the driver's launch path and the host shared by the
//! threads of one process); the `mpi_islands_scaling` example of evo-distributed times one process per GPU,
//! which shares none of it.
//!
//! Each run builds its islands, runs `G` generations for the bench's warm-up count, then times `G`
//! generations with the wall clock for its sample count (`G` = 1000, 200 with `--quick`, a multiple of 50 so
//! that every sample of the model ends with a migration); the median gives generations · islands per
//! second (`K · G / median`). The wall clock is the right clock across GPUs, and a sample waits for its
//! GPUs: each DE island reads its best back after each stretch of generations, and the model's closing
//! migration reads every island's fitness and migrants back.
//! Speed-up is the throughput over the same run's one-GPU throughput in the same scaling; efficiency is
//! speed-up / `n` (target ≥ 0.9).
//!
//! The islands are logical, so every model on `n > 1` GPUs must end with the best (vector and fitness, bit
//! for bit) of the same `K` islands on one GPU after the same generations; the one-GPU model is the
//! measured one when there is one (strong scaling) and an untimed run otherwise. Runs without migration
//! are checked the same way against the one-GPU model without migration, and so are the engines alone (on
//! one GPU too): they must do exactly the model's work. A mismatch fails the command.
//!
//! The CPU side does the same with pools of one thread (`cpu:1` × `n`, `n` up to the machine's cores, at most
//! 4), 64 × 128 only, 4 islands per pool and 200 generations per sample (100 with `--quick`), so that
//! `--backend cpu --quick` ends within a minute or two on a two-core machine.
//!
//! How the model runs its islands (crates/distributed `parallel.rs`, `island.rs`): one host thread per
//! placement entry (one per GPU, spawned for each stretch of generations between migrations); the islands
//! of an entry queue their generations in turn on that GPU's main stream, then read their bests back (one
//! wait per GPU and stretch); a migration reads each island's fitness and its migrants and writes the
//! arrivals into its worst slots (range copies, not the population). The engines alone (4) read each
//! island's best back after its own stretch.

mod check;
mod run;

use anyhow::Context;
use evo_benchmarks::DeRastrigin;
use evo_de::DeParams;
use evo_distributed::Placement;

use self::run::{Run, Subject};
use crate::bench::markdown::{fixed, significant, times};
use crate::bench::{Backend, BenchContext, Plot, Reference, Row, Series, Suite, SuiteResult};

/// The suite.
pub struct Islands;

/// The models' seed (island `i` starts from `SEED + i`).
const SEED: u64 = 2032;
/// Generations between migrations.
const MIGRATION_INTERVAL: u64 = 50;
/// The scaling efficiency the model should reach (issue 32).
const EFFICIENCY_TARGET: f64 = 0.9;
/// The throughput's unit.
const UNIT: &str = "gen·islands/s";
/// The most CPU pools measured: more would only measure a shared machine's other work.
const MAX_CPU_POOLS: usize = 4;

impl Suite for Islands {
    fn name(&self) -> &'static str {
        "islands"
    }

    fn description(&self) -> &'static str {
        "DE island model: weak and strong scaling over 1..N GPUs (and CPU pools) in generations·islands/s, with and without migration and without the model"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let mut result = SuiteResult::default();
        let mut sides = Vec::new();
        if ctx.cpu() {
            sides.push(Side::cpu(ctx)?);
        }
        if ctx.gpu().is_some() {
            sides.push(Side::cuda(ctx)?);
        }
        let mut tables = Tables::default();
        for side in &sides {
            side.measure(ctx, &mut result, &mut tables)?;
        }
        let runs: Vec<String> = Run::ALL
            .iter()
            .map(|run| run.name(MIGRATION_INTERVAL))
            .collect();
        result.notes.push(format!(
            "DE/rand/1/bin on Rastrigin (DeParams defaults), migration every {MIGRATION_INTERVAL} generations, \
             one migrant, seed {SEED}. Each configuration: its islands built, warm-up, then G generations \
             timed with the wall clock; median of the samples (generations · islands per second = K · G / \
             median). Speed-up: over the same run's one-device throughput in the same scaling; efficiency: \
             speed-up / devices (target ≥ {EFFICIENCY_TARGET}). Weak scaling keeps K per device, strong \
             scaling keeps K in all. Best: the run's best vector and fitness after all its generations, \
             compared bit for bit with the same K islands on one device (runs without migration: with the \
             one-device model without migration).\n\nRuns: `{}` is the island model as users run it (one host \
             thread per device, spawned for each stretch of {MIGRATION_INTERVAL} generations, each device's \
             islands queued in turn, then read back; at each migration every island's fitness and migrants \
             to the host and its arrivals back); `{}` the same without migration (interval never reached), stepped {MIGRATION_INTERVAL} generations at a \
             time; `{}` the same in one step_many(G); `{}` the model's engines driven without the model, \
             one host thread per device for the whole sample, each island read back after its own stretch. \
             Model vs joins: the migrations' cost; joins vs engines alone: the model's spawn and join every \
             {MIGRATION_INTERVAL} generations against the engines' read-back per island; the \
             engines' efficiency: what the threads of one process cost each other with no model at all.\
             \n\n{}\n\nEfficiency by run (n > 1 devices):\n\n{}",
            runs[0],
            runs[1],
            runs[2],
            runs[3],
            tables.rows.join("\n"),
            tables.summary.join("\n"),
        ));
        Ok(result)
    }
}

/// The two markdown tables of the notes: every measurement, and the efficiencies side by side.
struct Tables {
    rows: Vec<String>,
    summary: Vec<String>,
}

impl Default for Tables {
    fn default() -> Self {
        let runs: Vec<String> = Run::ALL
            .iter()
            .map(|run| run.name(MIGRATION_INTERVAL))
            .collect();
        Self {
            rows: vec![
                "| side | scaling | run | M × D | devices | K | G per sample | median ms | gen·islands/s | speed-up | efficiency | ≥ 0.9 | best = 1 device's |"
                    .to_string(),
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
            ],
            summary: vec![
                format!("| side | scaling | M × D | devices | K | {} |", runs.join(" | ")),
                format!("| --- | --- | --- | --- | --- |{}", " --- |".repeat(runs.len())),
            ],
        }
    }
}

/// Weak scaling (islands per device fixed) or strong scaling (islands in all fixed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scaling {
    Weak,
    Strong,
}

impl Scaling {
    fn name(self) -> &'static str {
        match self {
            Scaling::Weak => "weak",
            Scaling::Strong => "strong",
        }
    }
}

/// One backend's devices and what runs on them.
struct Side {
    backend: Backend,
    /// What a device is called in rows ("GPU", "CPU pool").
    unit: &'static str,
    /// The devices, in placement order; `n` devices are the first `n`.
    devices: Vec<evo_core::Backend>,
    /// (population M, dimension D).
    sizes: Vec<(usize, usize)>,
    islands_per_device: usize,
    /// Generations per timed sample, a multiple of the migration interval.
    generations: u64,
}

/// One measured configuration.
struct Measured {
    run: Run,
    size: (usize, usize),
    islands: usize,
    devices: usize,
    median_ms: f64,
    samples: usize,
    throughput: f64,
    /// The run's best vector and fitness after `total_generations`.
    best: (Vec<f32>, f64),
    total_generations: u64,
}

impl Side {
    /// Every visible GPU, at both sizes, 8 islands per GPU.
    fn cuda(ctx: &BenchContext) -> anyhow::Result<Self> {
        let count = evo_gpu_runtime::device_count().context("counting the CUDA devices")?;
        Ok(Self {
            backend: Backend::Cuda,
            unit: "GPU",
            devices: (0..count)
                .map(|device| evo_core::Backend::Cuda { device })
                .collect(),
            sizes: vec![(64, 128), (1024, 512)],
            islands_per_device: 8,
            generations: if ctx.quick() { 200 } else { 1000 },
        })
    }

    /// Pools of one thread, one per core up to [`MAX_CPU_POOLS`], at 64 × 128.
    fn cpu(ctx: &BenchContext) -> anyhow::Result<Self> {
        let cores = std::thread::available_parallelism()
            .context("counting the CPU cores")?
            .get();
        Ok(Self {
            backend: Backend::Cpu,
            unit: "CPU pool",
            devices: vec![evo_core::Backend::Cpu { threads: 1 }; cores.clamp(1, MAX_CPU_POOLS)],
            sizes: vec![(64, 128)],
            islands_per_device: 4,
            generations: if ctx.quick() { 100 } else { 200 },
        })
    }

    /// The placement on the first `n` devices.
    fn placement(&self, n: usize) -> anyhow::Result<Placement> {
        Ok(Placement::new(self.devices[..n].iter().copied())?)
    }

    /// `n` devices, as row cases say it ("2 GPUs").
    fn devices_name(&self, n: usize) -> String {
        format!("{n} {}{}", self.unit, if n > 1 { "s" } else { "" })
    }

    /// Measures weak and strong scaling at every size, every run, and appends rows, plots and table lines.
    fn measure(
        &self,
        ctx: &BenchContext,
        result: &mut SuiteResult,
        tables: &mut Tables,
    ) -> anyhow::Result<()> {
        let most = self.devices.len();
        // Strong scaling first: its one-device runs of `K = 8N` islands are also the references of weak
        // scaling's `N` devices, which then need no untimed run.
        let scalings: &[Scaling] = if most >= 2 {
            &[Scaling::Strong, Scaling::Weak]
        } else {
            result.notes.push(format!(
                "{}: one {} only, so no strong scaling (it needs two or more).",
                self.backend.name(),
                self.unit
            ));
            &[Scaling::Weak]
        };
        let bar = ctx.progress(
            (self.sizes.len() * scalings.len() * most * Run::ALL.len()) as u64,
            &format!("islands {}", self.backend.name()),
        );
        for &size in &self.sizes {
            let mut measured: Vec<Measured> = Vec::new();
            for &scaling in scalings {
                let mut one_device = [f64::NAN; Run::ALL.len()];
                let mut efficiencies = vec![Vec::new(); Run::ALL.len()];
                for n in 1..=most {
                    let islands = match scaling {
                        Scaling::Weak => self.islands_per_device * n,
                        Scaling::Strong => self.islands_per_device * most,
                    };
                    let mut summary = Vec::new();
                    for (r, &run) in Run::ALL.iter().enumerate() {
                        bar.set_message(format!(
                            "{} p{} d{} K{islands} on {n}, {}",
                            scaling.name(),
                            size.0,
                            size.1,
                            run.name(MIGRATION_INTERVAL)
                        ));
                        let index = match measured.iter().position(|m| {
                            (m.run, m.size, m.islands, m.devices) == (run, size, islands, n)
                        }) {
                            Some(index) => index,
                            None => {
                                measured.push(self.time(ctx, run, size, islands, n)?);
                                measured.len() - 1
                            }
                        };
                        let check = self.check(&measured, index)?;
                        let m = &measured[index];
                        if n == 1 {
                            one_device[r] = m.throughput;
                        }
                        let speedup = m.throughput / one_device[r];
                        let efficiency = speedup / n as f64;
                        efficiencies[r].push((n as f64, efficiency));
                        summary.push(fixed(efficiency, 3));
                        if let Err(mismatch) = &check {
                            result.failures.push(mismatch.clone());
                        }
                        self.push_row(result, tables, scaling, m, (speedup, efficiency), &check)?;
                        bar.inc(1);
                    }
                    if n > 1 {
                        tables.summary.push(format!(
                            "| {} | {} | {} × {} | {} | {islands} | {} |",
                            self.backend.name(),
                            scaling.name(),
                            size.0,
                            size.1,
                            self.placement(n)?,
                            summary.join(" | ")
                        ));
                    }
                }
                result.plots.push(Plot {
                    title: format!(
                        "{} scaling efficiency, DE islands p{} d{} ({})",
                        scaling.name(),
                        size.0,
                        size.1,
                        self.backend.name()
                    ),
                    x_label: format!("{}s", self.unit),
                    y_label: "efficiency".to_string(),
                    log_x: false,
                    categories: None,
                    series: Run::ALL
                        .iter()
                        .zip(efficiencies)
                        .map(|(run, points)| Series {
                            name: run.name(MIGRATION_INTERVAL),
                            points,
                        })
                        .collect(),
                });
            }
        }
        bar.finish_and_clear();
        Ok(())
    }

    /// Builds `run`'s `islands` islands on `n` devices, warms them up and times `G` generations per sample.
    fn time(
        &self,
        ctx: &BenchContext,
        run: Run,
        (population, dimension): (usize, usize),
        islands: usize,
        n: usize,
    ) -> anyhow::Result<Measured> {
        let mut subject = self.subject(run, (population, dimension), islands, n)?;
        let generations = self.generations;
        let (timing, ()) = ctx.time_cpu(|| Ok(subject.advance(generations)?))?;
        let median_ms = timing.median_ms();
        Ok(Measured {
            run,
            size: (population, dimension),
            islands,
            devices: n,
            median_ms,
            samples: timing.count(),
            throughput: (islands as u64 * generations) as f64 / (median_ms * 1e-3),
            best: subject.best()?,
            total_generations: subject.generation(),
        })
    }

    /// Fresh islands of `run`: `islands` DE islands on the first `n` devices.
    fn subject(
        &self,
        run: Run,
        (population, dimension): (usize, usize),
        islands: usize,
        n: usize,
    ) -> anyhow::Result<Subject> {
        let params = DeParams::default().with_population(population)?;
        Ok(Subject::new(
            run,
            &params,
            &DeRastrigin::new(dimension)?,
            SEED,
            (islands, MIGRATION_INTERVAL),
            self.placement(n)?,
        )?)
    }

    /// Appends the row and the table line of one measurement.
    fn push_row(
        &self,
        result: &mut SuiteResult,
        tables: &mut Tables,
        scaling: Scaling,
        m: &Measured,
        (speedup, efficiency): (f64, f64),
        check: &Result<String, String>,
    ) -> anyhow::Result<()> {
        let (population, dimension) = m.size;
        let placement = self.placement(m.devices)?.to_string();
        let met = if efficiency >= EFFICIENCY_TARGET {
            "yes"
        } else {
            "no"
        };
        let same = match check {
            Ok(what) => what.clone(),
            Err(_) => "MISMATCH".to_string(),
        };
        let run = m.run.name(MIGRATION_INTERVAL);
        tables.rows.push(format!(
            "| {} | {} | {run} | {population} × {dimension} | {placement} | {} | {} | {} | {} | {} | {} | {met} | {same} |",
            self.backend.name(),
            scaling.name(),
            m.islands,
            self.generations,
            fixed(m.median_ms, 2),
            significant(m.throughput),
            times(speedup),
            fixed(efficiency, 3),
        ));
        // The model's rows keep the case names they had before the other runs were added.
        let suffix = match m.run {
            Run::Model => String::new(),
            _ => format!(", {run}"),
        };
        result.rows.push(Row {
            case: format!(
                "{} p{population} d{dimension} K{} on {}{suffix}",
                scaling.name(),
                m.islands,
                self.devices_name(m.devices),
            ),
            backend: self.backend,
            device: placement,
            size: m.islands as u64,
            median_ms: m.median_ms,
            samples: m.samples,
            throughput: m.throughput,
            unit: UNIT.to_string(),
            reference: (m.devices > 1).then(|| {
                Reference::new(
                    format!("1 {}, same run", self.unit),
                    m.throughput / speedup,
                    m.throughput,
                )
            }),
            check: Some(format!(
                "efficiency {} (target {EFFICIENCY_TARGET}: {met}); best = 1 {}'s: {same}",
                fixed(efficiency, 3),
                self.unit
            )),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quick CPU context for the suite's tests.
    fn cpu_context() -> BenchContext {
        BenchContext::new(
            true,
            true,
            None,
            "test cpu".into(),
            crate::flags::SuiteFlags::default(),
        )
    }

    /// `pools` one-thread CPU pools, 2 islands each, of 8 × 4 DE, one migration interval per sample.
    fn cpu_side(pools: usize) -> Side {
        Side {
            backend: Backend::Cpu,
            unit: "CPU pool",
            devices: vec![evo_core::Backend::Cpu { threads: 1 }; pools],
            sizes: vec![(8, 4)],
            islands_per_device: 2,
            generations: MIGRATION_INTERVAL,
        }
    }

    #[test]
    fn two_cpu_pools_measure_every_run_of_both_scalings_and_match_one_pool() {
        let (context, side) = (cpu_context(), cpu_side(2));
        let mut result = SuiteResult::default();
        let mut tables = Tables::default();
        side.measure(&context, &mut result, &mut tables)
            .expect("measured");
        assert!(result.failures.is_empty(), "{:?}", result.failures);
        let cases: Vec<&str> = result.rows.iter().map(|row| row.case.as_str()).collect();
        let runs = |case: &str| {
            [
                case.to_string(),
                format!("{case}, no migration, joins every 50"),
                format!("{case}, no migration, one join"),
                format!("{case}, engines alone, steps of 50"),
            ]
        };
        let expected: Vec<String> = [
            "strong p8 d4 K4 on 1 CPU pool",
            "strong p8 d4 K4 on 2 CPU pools",
            "weak p8 d4 K2 on 1 CPU pool",
            "weak p8 d4 K4 on 2 CPU pools",
        ]
        .into_iter()
        .flat_map(runs)
        .collect();
        assert_eq!(cases, expected);
        let checks: Vec<&str> = result
            .rows
            .iter()
            .map(|row| row.check.as_deref().unwrap_or_default())
            .collect();
        // On one pool the first model run of each migration is the reference; every other run is compared.
        for (i, check) in checks.iter().enumerate() {
            let reference = matches!(i, 0 | 1 | 8 | 9);
            let wanted = match reference {
                true => "best = 1 CPU pool's: reference",
                false => "best = 1 CPU pool's: yes (bits)",
            };
            assert!(check.ends_with(wanted), "row {i} ({}): {check}", cases[i]);
        }
        assert_eq!(tables.rows.len(), 2 + 16);
        // One line per scaling on two pools, with the four runs' efficiencies.
        assert_eq!(tables.summary.len(), 2 + 2);
        assert_eq!(tables.summary[2].matches(" | ").count(), 5 + 3);
        assert_eq!(result.plots.len(), 2);
        assert!(result.plots.iter().all(|plot| plot.series.len() == 4));
    }

    #[test]
    fn islands_never_measured_on_one_pool_are_checked_against_an_untimed_run() {
        // Weak scaling's K = 4 on 2 of 3 pools: strong scaling measured K = 6 on one pool, not K = 4.
        let (context, side) = (cpu_context(), cpu_side(3));
        let mut result = SuiteResult::default();
        side.measure(&context, &mut result, &mut Tables::default())
            .expect("measured");
        assert!(result.failures.is_empty(), "{:?}", result.failures);
        let unmatched: Vec<&Row> = result
            .rows
            .iter()
            .filter(|row| row.case.starts_with("weak p8 d4 K4 on 2 CPU pools"))
            .collect();
        assert_eq!(unmatched.len(), 4);
        for row in unmatched {
            let check = row.check.as_deref().unwrap_or_default();
            assert!(
                check.ends_with("best = 1 CPU pool's: yes (bits)"),
                "{}: {check}",
                row.case
            );
        }
    }
}
