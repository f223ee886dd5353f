//! Suite `sort`: evo-sort's GPU routines beside their CPU twins (1 thread and rayon).
//!
//! - **Population sort** of 256, 1024 and 4096 f64 keys (`sort_population`, one block, bitonic network).
//! - **The GA paper's population sort**: 256 individuals sorted and exchanged (n = 128 variables × 16 bits =
//!   64 u32 words per individual), against the paper's 295 µs (sort with exchange) on a GTX 280.
//! - **Batched segmented sort** of 10 000 populations × 256 f64 keys (`sort_segments`).
//! - **Ranking** of 10^7 f64 keys (10^6 with `--quick`; `argsort` + `ranks_from_order`, LSD radix), and
//!   argmin / top-100 of the same keys.
//!
//! GPU rows give keys/s; a second row per GPU case gives the bytes the routine must move (its minimal
//! traffic, stated per case) per second, against the copy bandwidth measured here with `exchange_rows` over
//! 256 MiB. Every GPU permutation is compared with the CPU's, element for element; a mismatch fails the
//! command.

use evo_gpu_runtime::{Gpu, GpuTimer};
use evo_sort::{cpu, cuda};
use rayon::prelude::*;

use crate::bench::{Backend, BenchContext, Reference, Row, Suite, SuiteResult, Timing};

/// Threads per block of every kernel here.
const BLOCK: u32 = 128;
/// Words per individual of the GA paper's case: n = 128 variables of 16 bits.
const GA_WORDS: usize = 64;
/// The GA paper's figures on a GTX 280 (§4.4): the sort alone and the sort with the exchange, in µs.
const GA_PAPER_SORT_US: f64 = 37.7;
const GA_PAPER_SORT_EXCHANGE_US: f64 = 295.0;

/// The `sort` suite.
pub struct Sort;

impl Suite for Sort {
    fn name(&self) -> &'static str {
        "sort"
    }

    fn description(&self) -> &'static str {
        "evo-sort: bitonic population sort, GA paper sort+exchange, batched sort, radix ranking (keys/s, GB/s)"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let mut result = SuiteResult::default();
        let bandwidth = match ctx.gpu() {
            Some(gpu) => match copy_bandwidth(ctx, gpu) {
                Ok(gbs) => Some(gbs),
                Err(error) => {
                    result.failures.push(format!("copy bandwidth: {error:#}"));
                    None
                }
            },
            None => None,
        };
        let single = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
        let mut bench = Bench {
            ctx,
            single: &single,
            bandwidth,
            result: &mut result,
        };
        for n in [256usize, 1024, 4096] {
            if let Err(error) = bench.population(n) {
                bench
                    .result
                    .failures
                    .push(format!("population sort of {n}: {error:#}"));
            }
        }
        if let Err(error) = bench.ga_paper() {
            bench
                .result
                .failures
                .push(format!("GA paper sort: {error:#}"));
        }
        if let Err(error) = bench.segments(10_000, 256) {
            bench
                .result
                .failures
                .push(format!("segmented sort: {error:#}"));
        }
        // A quick run ranks a tenth of the keys: at 10^7 the CPU's argsort takes seconds per sample.
        let keys = if bench.ctx.quick() {
            1_000_000
        } else {
            10_000_000
        };
        if let Err(error) = bench.ranking(keys) {
            bench.result.failures.push(format!("ranking: {error:#}"));
        }
        if let Err(error) = bench.selection(keys, 100) {
            bench.result.failures.push(format!("selection: {error:#}"));
        }
        let bandwidth_note = match bandwidth {
            Some(gbs) => format!(
                "measured copy bandwidth: {gbs:.0} GB/s (exchange_rows, 256 MiB read + 256 MiB written)"
            ),
            None => "copy bandwidth not measured (no GPU)".to_string(),
        };
        result.notes.push(format!(
            "f64 keys, uniform in [0, 1) with a tenth of them repeated; blocks of {BLOCK} (single population sorts: n/4 threads, 128 to 1024). GPU times are medians of \
             event-timed runs after warm-up, launches only (inputs already on the device). CPU: evo_sort::cpu in a \
             1-thread rayon pool and in the global pool. {bandwidth_note}. Traffic rows count the bytes each routine \
             must move: sort n·(8 read + 4 + 8 written); exchange 2·rows·words·4; ranking with the radix passes \
             n·(8 + 12 + 8·(8 + 24) + 8); selection n·8."
        ));
        Ok(result)
    }
}

/// Threads per block of a single population sort: a quarter of the keys, at least 128, at most 1024, so that
/// large populations get the warps their register stages need (the kernel takes any power of two).
fn population_block(n: usize) -> u32 {
    (n / 4).clamp(128, 1024) as u32
}

/// SplitMix64's output function: a well-mixed 64-bit value for index `i` of stream `stream`.
fn mix(i: u64, stream: u64) -> u64 {
    let mut z = (i ^ (stream << 56)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `n` fitness values uniform in [0, 1), a tenth of them copies of an earlier value (ties).
fn fitness(n: usize, stream: u64) -> Vec<f64> {
    let mut values: Vec<f64> = (0..n as u64)
        .into_par_iter()
        .map(|i| (mix(i, stream) >> 11) as f64 * (1.0 / (1u64 << 53) as f64))
        .collect();
    for i in (10..n).step_by(10) {
        values[i] = values[(mix(i as u64, stream + 1) % i as u64) as usize];
    }
    values
}

/// Copy bandwidth of this GPU in GB/s: `exchange_rows` with the identity order over 256 MiB.
fn copy_bandwidth(ctx: &BenchContext, gpu: &Gpu) -> anyhow::Result<f64> {
    let words = 1024usize;
    let rows = (256 << 20) / (4 * words);
    let order = cuda::DevicePermutation::for_array(gpu, rows)?;
    let src = gpu.alloc_zeroed::<u32>(rows * words)?;
    let mut dst = gpu.alloc::<u32>(rows * words)?;
    let (timing, ()) = ctx.time_gpu(gpu, || {
        Ok(cuda::exchange_rows(
            gpu, &src, &order, &mut dst, words, 256,
        )?)
    })?;
    Ok(timing.rate(2.0 * (rows * words * 4) as f64, 1e9))
}

struct Bench<'a> {
    ctx: &'a BenchContext,
    single: &'a rayon::ThreadPool,
    bandwidth: Option<f64>,
    result: &'a mut SuiteResult,
}

/// What one case measures.
struct Case<'a> {
    name: &'a str,
    size: u64,
    /// Keys per run (the rate's numerator).
    keys: f64,
    /// Bytes the routine must move per run.
    bytes: f64,
}

impl Bench<'_> {
    fn row(
        &self,
        case: &Case,
        backend: Backend,
        device: String,
        timing: &Timing,
        unit: &str,
    ) -> Row {
        Row {
            case: case.name.to_string(),
            backend,
            device,
            size: case.size,
            median_ms: timing.median_ms(),
            samples: timing.count(),
            throughput: timing.rate(case.keys, 1e6),
            unit: unit.to_string(),
            reference: None,
            check: None,
        }
    }

    /// The CPU rows (1 thread, rayon) of `work`; returns the rayon rate and the last result.
    fn cpu_rows<T: Send>(
        &mut self,
        case: &Case,
        work: impl Fn() -> anyhow::Result<T> + Sync,
    ) -> anyhow::Result<(Option<f64>, T)> {
        if !self.ctx.cpu() {
            return Ok((None, work()?));
        }
        let (timing, _) = self.single.install(|| self.ctx.time_cpu(&work))?;
        let device = format!("{} (1 thread)", self.ctx.cpu_device());
        let row = self.row(case, Backend::Cpu, device, &timing, "Mkeys/s");
        self.result.rows.push(row);
        let (timing, value) = self.ctx.time_cpu(&work)?;
        let device = format!("{} (rayon)", self.ctx.cpu_device());
        let row = self.row(case, Backend::Cpu, device, &timing, "Mkeys/s");
        let rate = row.throughput;
        self.result.rows.push(row);
        Ok((Some(rate), value))
    }

    /// The GPU rows (keys/s beside the CPU's rayon rate, and traffic beside the copy bandwidth).
    fn gpu_rows(&mut self, case: &Case, timing: &Timing, cpu_rate: Option<f64>, check: String) {
        let mut row = self.row(
            case,
            Backend::Cuda,
            self.ctx.gpu_device(),
            timing,
            "Mkeys/s",
        );
        row.reference =
            cpu_rate.map(|rate| Reference::new("CPU twin, rayon", rate, row.throughput));
        row.check = Some(check);
        self.result.rows.push(row);
        let mut traffic = self.row(case, Backend::Cuda, self.ctx.gpu_device(), timing, "GB/s");
        traffic.case = format!("{} (traffic)", case.name);
        traffic.throughput = timing.rate(case.bytes, 1e9);
        traffic.reference = self
            .bandwidth
            .map(|gbs| Reference::new("copy bandwidth", gbs, traffic.throughput));
        self.result.rows.push(traffic);
    }

    /// Records a mismatch as a failure and returns the check text.
    fn verdict(&mut self, what: &str, same: bool) -> String {
        if same {
            "identical to CPU".to_string()
        } else {
            self.result.failures.push(format!(
                "{what}: the GPU permutation differs from the CPU's"
            ));
            "MISMATCH".to_string()
        }
    }

    fn population(&mut self, n: usize) -> anyhow::Result<()> {
        let block = population_block(n);
        let name = format!("sort_population f64 n={n} (block {block})");
        let case = Case {
            name: &name,
            size: n as u64,
            keys: n as f64,
            bytes: 20.0 * n as f64,
        };
        let keys = fitness(n, n as u64);
        let (cpu_rate, expected) =
            self.cpu_rows(&case, || Ok(cpu::sort_population(&keys)?.order))?;
        let Some(gpu) = self.ctx.gpu() else {
            return Ok(());
        };
        let on_device = gpu.upload(&keys)?;
        let mut order = cuda::DevicePermutation::for_array(gpu, n)?;
        let mut sorted = gpu.alloc::<f64>(n)?;
        let (timing, ()) = self.ctx.time_gpu(gpu, || {
            Ok(cuda::sort_population(
                gpu,
                &on_device,
                &mut order,
                &mut sorted,
                block,
            )?)
        })?;
        let check = self.verdict(&name, order.to_vec()? == expected);
        self.gpu_rows(&case, &timing, cpu_rate, check);
        Ok(())
    }

    /// Times `work` on the device alone: each sample first queues `lead` (about 100 µs of other GPU work), then
    /// records the start event, queues `work` and the stop event. The host has queued everything long before the
    /// lead work ends, so the events measure the device's execution of `work` without the host's launch cost.
    fn device_time(
        &self,
        gpu: &Gpu,
        mut lead: impl FnMut() -> anyhow::Result<()>,
        mut work: impl FnMut() -> anyhow::Result<()>,
    ) -> anyhow::Result<Timing> {
        let sampling = self.ctx.sampling();
        for _ in 0..sampling.warmup {
            lead()?;
            work()?;
        }
        let timer = GpuTimer::new(gpu)?;
        let stream = gpu.stream();
        let mut samples_ms = Vec::with_capacity(sampling.samples);
        for _ in 0..sampling.samples {
            gpu.synchronize()?;
            lead()?;
            timer.start(&stream)?;
            work()?;
            timer.stop(&stream)?;
            samples_ms.push(f64::from(timer.elapsed_ms()?));
        }
        gpu.synchronize()?;
        Ok(Timing { samples_ms })
    }

    /// A GA-paper row: populations/s beside the paper's figure in µs.
    fn ga_row(&self, case: &str, timing: &Timing, paper_us: f64, check: String) -> Row {
        let size = 256;
        Row {
            case: case.to_string(),
            backend: Backend::Cuda,
            device: self.ctx.gpu_device(),
            size,
            median_ms: timing.median_ms(),
            samples: timing.count(),
            throughput: 1e3 / timing.median_ms(),
            unit: "populations/s".to_string(),
            reference: Some(Reference::new(
                format!("GA paper, GTX 280: {paper_us} µs"),
                1e6 / paper_us,
                1e3 / timing.median_ms(),
            )),
            check: Some(check),
        }
    }

    fn ga_paper(&mut self) -> anyhow::Result<()> {
        let n = 256usize;
        let name = format!("GA paper: sort {n} + exchange of {GA_WORDS} words");
        let case = Case {
            name: &name,
            size: n as u64,
            keys: n as f64,
            bytes: 20.0 * n as f64 + 2.0 * (n * GA_WORDS * 4) as f64,
        };
        let keys = fitness(n, 7);
        let genomes: Vec<u32> = (0..(n * GA_WORDS) as u64)
            .map(|i| mix(i, 8) as u32)
            .collect();
        let (cpu_rate, expected) = self.cpu_rows(&case, || {
            let order = cpu::sort_population(&keys)?.order;
            Ok(cpu::exchange_rows(&genomes, &order, GA_WORDS, n)?)
        })?;
        let Some(gpu) = self.ctx.gpu() else {
            return Ok(());
        };
        let on_device = gpu.upload(&keys)?;
        let population = gpu.upload(&genomes)?;
        let mut order = cuda::DevicePermutation::for_array(gpu, n)?;
        let mut sorted = gpu.alloc::<f64>(n)?;
        let mut moved = gpu.alloc::<u32>(n * GA_WORDS)?;
        // Lead work for the device-only timings: a batched sort of 2000 × 256 keys.
        let lead_keys = gpu.upload(&fitness(2000 * 256, 9))?;
        let mut lead_order = cuda::DevicePermutation::identity(gpu, 2000, 256)?;
        let mut lead_sorted = gpu.alloc::<f64>(2000 * 256)?;
        let mut lead = || -> anyhow::Result<()> {
            Ok(cuda::sort_segments(
                gpu,
                &lead_keys,
                &mut lead_order,
                &mut lead_sorted,
                BLOCK,
            )?)
        };
        let sort_device = self.device_time(gpu, &mut lead, || {
            Ok(cuda::sort_population(
                gpu,
                &on_device,
                &mut order,
                &mut sorted,
                BLOCK,
            )?)
        })?;
        let both_device = self.device_time(gpu, &mut lead, || {
            cuda::sort_population(gpu, &on_device, &mut order, &mut sorted, BLOCK)?;
            Ok(cuda::exchange_rows(
                gpu,
                &population,
                &order,
                &mut moved,
                GA_WORDS,
                GA_WORDS as u32,
            )?)
        })?;
        let (both_launched, ()) = self.ctx.time_gpu(gpu, || {
            cuda::sort_population(gpu, &on_device, &mut order, &mut sorted, BLOCK)?;
            Ok(cuda::exchange_rows(
                gpu,
                &population,
                &order,
                &mut moved,
                GA_WORDS,
                GA_WORDS as u32,
            )?)
        })?;
        let check = self.verdict(&name, moved.to_vec()? == expected);
        let device_us = both_device.median_ms() * 1e3;
        let target = if device_us < 10.0 {
            "under"
        } else {
            "NOT under"
        };
        let row = self.ga_row(
            &format!("{name}, device time"),
            &both_device,
            GA_PAPER_SORT_EXCHANGE_US,
            format!("{check}; {device_us:.2} µs, {target} the 10 µs target"),
        );
        self.result.rows.push(row);
        let row = self.ga_row(
            &format!("{name}, with host launches"),
            &both_launched,
            GA_PAPER_SORT_EXCHANGE_US,
            format!("{:.2} µs", both_launched.median_ms() * 1e3),
        );
        self.result.rows.push(row);
        let row = self.ga_row(
            &format!("GA paper: sort {n} alone, device time"),
            &sort_device,
            GA_PAPER_SORT_US,
            format!("{:.2} µs", sort_device.median_ms() * 1e3),
        );
        self.result.rows.push(row);
        if let Some(rate) = cpu_rate {
            self.result.notes.push(format!(
                "GA paper case: device time = the two kernels queued behind other GPU work, so the events time \
                 the device alone; with host launches = events around the two launches as issued (this \
                 runtime's host cost per launch is included). CPU (rayon): {:.2} µs per sort + exchange.",
                n as f64 / rate
            ));
        }
        Ok(())
    }

    fn segments(&mut self, segments: usize, len: usize) -> anyhow::Result<()> {
        let n = segments * len;
        let name = format!("sort_segments f64 {segments}x{len}");
        let case = Case {
            name: &name,
            size: n as u64,
            keys: n as f64,
            bytes: 20.0 * n as f64,
        };
        let keys = fitness(n, 3);
        let (cpu_rate, expected) =
            self.cpu_rows(&case, || Ok(cpu::sort_segments(&keys, len)?.order))?;
        let Some(gpu) = self.ctx.gpu() else {
            return Ok(());
        };
        let on_device = gpu.upload(&keys)?;
        let mut order = cuda::DevicePermutation::identity(gpu, segments, len)?;
        let mut sorted = gpu.alloc::<f64>(n)?;
        let (timing, ()) = self.ctx.time_gpu(gpu, || {
            Ok(cuda::sort_segments(
                gpu,
                &on_device,
                &mut order,
                &mut sorted,
                BLOCK,
            )?)
        })?;
        let check = self.verdict(&name, order.to_vec()? == expected);
        self.gpu_rows(&case, &timing, cpu_rate, check);
        Ok(())
    }

    fn ranking(&mut self, n: usize) -> anyhow::Result<()> {
        let name = "argsort + ranks f64".to_string();
        let case = Case {
            name: &name,
            size: n as u64,
            keys: n as f64,
            bytes: (8.0 + 12.0 + 8.0 * (8.0 + 24.0) + 8.0) * n as f64,
        };
        let keys = fitness(n, 5);
        let (cpu_rate, expected) = self.cpu_rows(&case, || Ok(cpu::ranks(&keys)?))?;
        let Some(gpu) = self.ctx.gpu() else {
            return Ok(());
        };
        let on_device = gpu.upload(&keys)?;
        let mut order = cuda::DevicePermutation::for_array(gpu, n)?;
        let mut ranks = gpu.alloc::<u32>(n)?;
        let (timing, ()) = self.ctx.time_gpu(gpu, || {
            cuda::argsort(gpu, &on_device, &mut order, BLOCK)?;
            Ok(cuda::ranks_from_order(gpu, &order, &mut ranks, BLOCK)?)
        })?;
        let check = self.verdict(&name, ranks.to_vec()? == expected);
        self.gpu_rows(&case, &timing, cpu_rate, check);
        Ok(())
    }

    fn selection(&mut self, n: usize, k: usize) -> anyhow::Result<()> {
        let keys = fitness(n, 6);
        let argmin_name = "argmin f64".to_string();
        let case = Case {
            name: &argmin_name,
            size: n as u64,
            keys: n as f64,
            bytes: 8.0 * n as f64,
        };
        let (cpu_rate, expected) = self.cpu_rows(&case, || Ok(cpu::argmin(&keys)))?;
        if let Some(gpu) = self.ctx.gpu() {
            let on_device = gpu.upload(&keys)?;
            let mut out = gpu.alloc::<u32>(1)?;
            let (timing, ()) = self.ctx.time_gpu(gpu, || {
                Ok(cuda::argmin_into(gpu, &on_device, &mut out, BLOCK)?)
            })?;
            let got = out.to_vec()?.first().map(|&i| i as usize);
            let check = self.verdict(&argmin_name, got == expected);
            self.gpu_rows(&case, &timing, cpu_rate, check);
        }
        let top_name = format!("top_k f64 k={k}");
        let case = Case {
            name: &top_name,
            size: n as u64,
            keys: n as f64,
            bytes: 8.0 * n as f64,
        };
        let (cpu_rate, expected) = self.cpu_rows(&case, || Ok(cpu::top_k(&keys, k)?))?;
        if let Some(gpu) = self.ctx.gpu() {
            let on_device = gpu.upload(&keys)?;
            let mut out = gpu.alloc::<u32>(k)?;
            let (timing, ()) = self
                .ctx
                .time_gpu(gpu, || Ok(cuda::top_k(gpu, &on_device, &mut out, BLOCK)?))?;
            let check = self.verdict(&top_name, out.to_vec()? == expected);
            self.gpu_rows(&case, &timing, cpu_rate, check);
        }
        Ok(())
    }
}
