//! Suite `islands`: how DE islands (evo-distributed's island model) scale over the devices of this machine.
//!
//! DE/rand/1/bin on Rastrigin (`DeParams` defaults, Exact profile) at M × D = 64 × 128 (the `de` suite's
//! size) and 1024 × 512, migration every 50 generations with the model's other defaults (one migrant along
//! the ring), seed 2032. On `n = 1 … N` of the `N` visible GPUs (`cuda:0,…,cuda:n−1`; narrow them with
//! `CUDA_VISIBLE_DEVICES`):
//!
//! - weak scaling: 8 islands per GPU (`K = 8n`);
//! - strong scaling: `K = 8N` islands in all, whatever `n` (only when `N ≥ 2`).
//!
//! Each configuration builds one model, runs `step_many(G)` for the bench's warm-up count, then times
//! `step_many(G)` with the wall clock for its sample count (`G` = 1000 generations, 200 with `--quick`, a
//! multiple of 50 so that every sample ends with a migration); the median gives generations · islands per
//! second (`K · G / median`). The wall clock is the right clock across GPUs, and a sample waits for its
//! GPUs: each DE island reads its best back after its generations, and the closing migration reads every
//! population back.
//! Speed-up is the throughput over the same scaling's one-GPU throughput; efficiency is speed-up / `n`
//! (target ≥ 0.9).
//!
//! The islands are logical, so every model on `n > 1` GPUs must end with the best (vector and fitness, bit
//! for bit) of the same `K` islands on one GPU after the same generations; the one-GPU model is the
//! measured one when there is one (strong scaling) and an untimed run otherwise. A mismatch fails the
//! command.
//!
//! The CPU side does the same with pools of one thread (`cpu:1` × `n`, `n` up to the machine's cores, at most
//! 4), 64 × 128 only, 4 islands per pool and 200 generations per sample (100 with `--quick`), so that
//! `--backend cpu --quick` ends within a minute on a two-core machine.
//!
//! How the model runs its islands (crates/distributed `parallel.rs`): one host thread per placement entry
//! (one per GPU, spawned for each stretch of generations between migrations), the islands of an entry in
//! turn on that GPU's main stream, each queueing its generations and then reading its best back.

use std::time::Instant;

use anyhow::Context;
use evo_benchmarks::DeRastrigin;
use evo_core::Engine;
use evo_de::DeParams;
use evo_distributed::{IslandParams, Placement, de};

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
        "DE island model: weak and strong scaling over 1..N GPUs (and CPU pools) in generations·islands/s"
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
        let mut table = vec![
            "| side | scaling | M × D | devices | K | G per sample | median ms | gen·islands/s | speed-up | efficiency | ≥ 0.9 | best = 1 device's |"
                .to_string(),
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        for side in &sides {
            side.measure(ctx, &mut result, &mut table)?;
        }
        result.notes.push(format!(
            "DE/rand/1/bin on Rastrigin (DeParams defaults), migration every {MIGRATION_INTERVAL} generations, \
             one migrant, seed {SEED}. Each configuration: one model, warm-up, then `step_many(G)` timed with \
             the wall clock; median of the samples (generations · islands per second = K · G / median). \
             Speed-up: over the same scaling's one-device throughput; efficiency: speed-up / devices (target \
             ≥ {EFFICIENCY_TARGET}). Weak scaling keeps K per device, strong scaling keeps K in all. Best: the \
             model's best vector and fitness after all its generations, compared bit for bit with the same K \
             islands on one device. The model runs one host thread per device (each GPU's islands in turn on \
             its main stream).\n\n{}",
            table.join("\n")
        ));
        Ok(result)
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
    size: (usize, usize),
    islands: usize,
    devices: usize,
    median_ms: f64,
    samples: usize,
    throughput: f64,
    /// The model's best vector and fitness after `total_generations`.
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

    /// Measures weak and strong scaling at every size and appends rows, plot lines and table lines.
    fn measure(
        &self,
        ctx: &BenchContext,
        result: &mut SuiteResult,
        table: &mut Vec<String>,
    ) -> anyhow::Result<()> {
        let most = self.devices.len();
        // Strong scaling first: its one-device model of `K = 8N` islands is also the reference of weak
        // scaling's `N` devices, which then needs no untimed run.
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
            (self.sizes.len() * scalings.len() * most) as u64,
            &format!("islands {}", self.backend.name()),
        );
        for &size in &self.sizes {
            let mut measured: Vec<Measured> = Vec::new();
            for &scaling in scalings {
                let mut efficiencies = Vec::new();
                let mut one_device = f64::NAN;
                for n in 1..=most {
                    let islands = match scaling {
                        Scaling::Weak => self.islands_per_device * n,
                        Scaling::Strong => self.islands_per_device * most,
                    };
                    bar.set_message(format!(
                        "{} p{} d{} K{islands} on {n}",
                        scaling.name(),
                        size.0,
                        size.1
                    ));
                    let index = match measured
                        .iter()
                        .position(|m| (m.size, m.islands, m.devices) == (size, islands, n))
                    {
                        Some(index) => index,
                        None => {
                            measured.push(self.time(ctx, size, islands, n)?);
                            measured.len() - 1
                        }
                    };
                    let check = self.check(&measured, index)?;
                    let m = &measured[index];
                    if n == 1 {
                        one_device = m.throughput;
                    }
                    let speedup = m.throughput / one_device;
                    let efficiency = speedup / n as f64;
                    efficiencies.push((n as f64, efficiency));
                    if let Err(mismatch) = &check {
                        result.failures.push(mismatch.clone());
                    }
                    self.push_row(result, table, scaling, m, (speedup, efficiency), &check)?;
                    bar.inc(1);
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
                    series: vec![Series {
                        name: self.backend.name().to_string(),
                        points: efficiencies,
                    }],
                });
            }
        }
        bar.finish_and_clear();
        Ok(())
    }

    /// Builds the model of `islands` islands on `n` devices, warms it up and times `G` generations per sample.
    fn time(
        &self,
        ctx: &BenchContext,
        (population, dimension): (usize, usize),
        islands: usize,
        n: usize,
    ) -> anyhow::Result<Measured> {
        let mut model = self.model((population, dimension), islands, n)?;
        let generations = self.generations;
        let (timing, ()) = ctx.time_cpu(|| Ok(model.step_many(generations)?))?;
        let median_ms = timing.median_ms();
        Ok(Measured {
            size: (population, dimension),
            islands,
            devices: n,
            median_ms,
            samples: timing.count(),
            throughput: (islands as u64 * generations) as f64 / (median_ms * 1e-3),
            best: model.best()?,
            total_generations: model.progress().generation,
        })
    }

    /// A fresh model of `islands` DE islands on the first `n` devices.
    fn model(
        &self,
        (population, dimension): (usize, usize),
        islands: usize,
        n: usize,
    ) -> anyhow::Result<evo_distributed::IslandModel<'static, Vec<f32>, evo_de::DeSnapshot>> {
        let params = DeParams::default().with_population(population)?;
        let island_params = IslandParams::default()
            .with_islands(islands)?
            .with_migration_interval(MIGRATION_INTERVAL)?;
        Ok(de::islands(
            &params,
            &DeRastrigin::new(dimension)?,
            SEED,
            island_params,
            self.placement(n)?,
        )?)
    }

    /// Whether `measured[index]` ends with the best of the same islands on one device: `Ok` with what it was
    /// compared with, `Err` with the mismatch. The one-device model is the measured one when there is one,
    /// otherwise an untimed model run for the same generations.
    fn check(&self, measured: &[Measured], index: usize) -> anyhow::Result<Result<String, String>> {
        let m = &measured[index];
        if m.devices == 1 {
            return Ok(Ok("reference".to_string()));
        }
        let reference = match measured.iter().find(|r| {
            (r.size, r.islands, r.devices, r.total_generations)
                == (m.size, m.islands, 1, m.total_generations)
        }) {
            Some(r) => r.best.clone(),
            None => {
                let start = Instant::now();
                let mut model = self.model(m.size, m.islands, 1)?;
                model.step_many(m.total_generations)?;
                let best = model.best()?;
                eprintln!(
                    "islands: the one-{} reference of K = {} at p{} d{} ran untimed in {:.1} s",
                    self.unit,
                    m.islands,
                    m.size.0,
                    m.size.1,
                    start.elapsed().as_secs_f64()
                );
                best
            }
        };
        Ok(compare_best(&reference, &m.best)
            .map(|()| "same bits".to_string())
            .map_err(|what| {
            format!(
                "{} p{} d{} K{} on {} {}s: {what} after {} generations (islands are logical: the best must \
                 not depend on the placement)",
                self.backend.name(),
                m.size.0,
                m.size.1,
                m.islands,
                m.devices,
                self.unit,
                m.total_generations
            )
        }))
    }

    /// Appends the row and the table line of one measurement.
    fn push_row(
        &self,
        result: &mut SuiteResult,
        table: &mut Vec<String>,
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
            Ok(what) if m.devices == 1 => what.clone(),
            Ok(_) => "yes (bits)".to_string(),
            Err(_) => "MISMATCH".to_string(),
        };
        table.push(format!(
            "| {} | {} | {population} × {dimension} | {placement} | {} | {} | {} | {} | {} | {} | {met} | {same} |",
            self.backend.name(),
            scaling.name(),
            m.islands,
            self.generations,
            fixed(m.median_ms, 2),
            significant(m.throughput),
            times(speedup),
            fixed(efficiency, 3),
        ));
        result.rows.push(Row {
            case: format!(
                "{} p{population} d{dimension} K{} on {} {}{}",
                scaling.name(),
                m.islands,
                m.devices,
                self.unit,
                if m.devices > 1 { "s" } else { "" }
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
                    format!("1 {}", self.unit),
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

/// `Ok` when both bests have the same fitness and vector bits, otherwise what differs.
fn compare_best(reference: &(Vec<f32>, f64), best: &(Vec<f32>, f64)) -> Result<(), String> {
    if reference.1.to_bits() != best.1.to_bits() {
        return Err(format!(
            "best fitness {} ({:#018x}) differs from one device's {} ({:#018x})",
            best.1,
            best.1.to_bits(),
            reference.1,
            reference.1.to_bits()
        ));
    }
    if reference.0.len() != best.0.len() {
        return Err(format!(
            "best vector of {} coordinates, one device's has {}",
            best.0.len(),
            reference.0.len()
        ));
    }
    match reference
        .0
        .iter()
        .zip(&best.0)
        .position(|(a, b)| a.to_bits() != b.to_bits())
    {
        Some(j) => Err(format!(
            "best vector differs at coordinate {j}: {} ({:#010x}), one device's {} ({:#010x})",
            best.0[j],
            best.0[j].to_bits(),
            reference.0[j],
            reference.0[j].to_bits()
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bests_pass_and_a_differing_fitness_or_coordinate_is_named() {
        let reference = (vec![1.0f32, -0.0, 3.5], 2.25);
        assert_eq!(compare_best(&reference, &reference.clone()), Ok(()));
        let fitness = compare_best(&reference, &(reference.0.clone(), 2.5)).expect_err("fitness");
        assert!(
            fitness.contains("best fitness 2.5") && fitness.contains("one device's 2.25"),
            "{fitness}"
        );
        let signed_zero =
            compare_best(&reference, &(vec![1.0, 0.0, 3.5], 2.25)).expect_err("-0.0 vs 0.0");
        assert!(
            signed_zero.contains("coordinate 1") && signed_zero.contains("0x80000000"),
            "{signed_zero}"
        );
        let length = compare_best(&reference, &(vec![1.0], 2.25)).expect_err("length");
        assert!(length.contains("1 coordinates"), "{length}");
    }

    #[test]
    fn two_cpu_pools_measure_both_scalings_and_match_one_pool() {
        let context = BenchContext::new(
            true,
            true,
            None,
            "test cpu".into(),
            crate::flags::SuiteFlags::default(),
        );
        let side = Side {
            backend: Backend::Cpu,
            unit: "CPU pool",
            devices: vec![evo_core::Backend::Cpu { threads: 1 }; 2],
            sizes: vec![(8, 4)],
            islands_per_device: 2,
            generations: MIGRATION_INTERVAL,
        };
        let mut result = SuiteResult::default();
        let mut table = Vec::new();
        side.measure(&context, &mut result, &mut table)
            .expect("measured");
        assert!(result.failures.is_empty(), "{:?}", result.failures);
        let cases: Vec<&str> = result.rows.iter().map(|row| row.case.as_str()).collect();
        assert_eq!(
            cases,
            [
                "strong p8 d4 K4 on 1 CPU pool",
                "strong p8 d4 K4 on 2 CPU pools",
                "weak p8 d4 K2 on 1 CPU pool",
                "weak p8 d4 K4 on 2 CPU pools",
            ]
        );
        for row in [&result.rows[1], &result.rows[3]] {
            let check = row.check.as_deref().unwrap_or_default();
            assert!(
                check.ends_with("best = 1 CPU pool's: yes (bits)"),
                "{check}"
            );
        }
        assert_eq!(table.len(), 4);
        assert_eq!(result.plots.len(), 2);
    }
}
