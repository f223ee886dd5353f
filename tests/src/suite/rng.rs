//! evo-rng's fill kernels against its CPU fills, bit for bit: every generator (addressed Philox, xor128,
//! cuRAND XORWOW, cuRAND Philox) and every conversion (words, uniform f32, uniform f64, bounded integers,
//! normals), over a grid of seeds, addresses, subsequences and offsets. [`run_all`] compares more than 10^8
//! draws per block size.

use evo_gpu_runtime::{DeviceBuffer, DeviceCopy, Gpu};
use evo_rng::cuda::{self, DeviceJumpTables, PaperFill};
use evo_rng::{CurandPhilox, CurandXorwow, Philox, Sequence, Stream, Xor128, fill};

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::compare_slices;
use crate::tolerance::{Float, Tolerance};

/// Draws per addressed-Philox check: 2^23 + 3, so the last lane is partial.
pub const ADDRESSED_DRAWS: usize = (1 << 23) + 3;

/// The addresses of the addressed-Philox checks: (seed, stream, step, individual).
pub const ADDRESSES: [(u64, Stream, u32, u32); 3] = [
    (0, Stream::Fill, 0, 0),
    (0x0123_4567_89ab_cdef, Stream::DeCross, 500, 1023),
    (u64::MAX, Stream::MaSwNoise, u32::MAX, u32::MAX),
];

/// The (seed, first subsequence, offset) grid of the paper-generator checks: the origin, the published
/// subsequence 99999 with an offset that is not a multiple of 4, and large values in every field.
pub const PAPER_GRID: [(u64, u64, u64); 3] = [
    (0, 0, 0),
    (1234, 99_999, 5),
    (u64::MAX, (1 << 40) + 7, (1 << 33) + 3),
];

/// Generator threads and draws per thread of the paper-generator checks.
pub const PAPER_THREADS: u32 = 4096;
/// Draws per thread of the paper-generator checks.
pub const PAPER_DRAWS_PER_THREAD: u32 = 512;

/// u32 outputs compare through f64 (exact for every u32, never NaN).
fn widen(words: &[u32]) -> Vec<f64> {
    words.iter().map(|&w| f64::from(w)).collect()
}

fn compare<T: Float>(
    check: String,
    kernel: &str,
    cpu: &[T],
    gpu: evo_core::Result<Vec<T>>,
) -> CheckReport {
    match gpu {
        Ok(values) => {
            let comparison = compare_slices(&check, 0, 1, cpu, &values, Tolerance::Exact, |i| {
                format!("draw {i}")
            });
            CheckReport::from_comparison(check, kernel, &comparison)
        }
        Err(error) => CheckReport::from_error(check, kernel, &error),
    }
}

fn run_on_gpu<T: DeviceCopy + Default>(
    gpu: &Gpu,
    len: usize,
    launch: impl FnOnce(&mut DeviceBuffer<T>) -> evo_core::Result<()>,
) -> evo_core::Result<Vec<T>> {
    let mut out = gpu.alloc::<T>(len)?;
    launch(&mut out)?;
    out.to_vec()
}

fn sequence_of(address: (u64, Stream, u32, u32)) -> Sequence {
    let (seed, stream, step, individual) = address;
    Philox::new(seed).sequence(stream, step, individual)
}

/// The addressed Philox at one address and block size, all five conversions.
pub fn check_addressed(
    gpu: &Gpu,
    address: (u64, Stream, u32, u32),
    n: usize,
    block: u32,
) -> Vec<CheckReport> {
    let s = sequence_of(address);
    let name = |what: &str| {
        format!(
            "philox {what} seed={:#x} {:?} step={} ind={}, block {block}",
            address.0, address.1, address.2, address.3
        )
    };
    let mut reports = Vec::new();

    let mut cpu = vec![0u32; n];
    fill::philox_u32(&s, &mut cpu);
    let on_gpu = run_on_gpu(gpu, n, |out| cuda::philox_fill_u32(gpu, &s, out, block));
    reports.push(compare(
        name("u32"),
        "rng_philox_fill_u32",
        &widen(&cpu),
        on_gpu.map(|w| widen(&w)),
    ));

    let mut cpu = vec![0f32; n];
    fill::philox_uniform_f32(&s, &mut cpu);
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::philox_fill_uniform_f32(gpu, &s, out, block)
    });
    reports.push(compare(
        name("uniform_f32"),
        "rng_philox_fill_uniform_f32",
        &cpu,
        on_gpu,
    ));

    let mut cpu = vec![0f64; n / 2];
    fill::philox_uniform_f64(&s, &mut cpu);
    let on_gpu = run_on_gpu(gpu, n / 2, |out| {
        cuda::philox_fill_uniform_f64(gpu, &s, out, block)
    });
    reports.push(compare(
        name("uniform_f64"),
        "rng_philox_fill_uniform_f64",
        &cpu,
        on_gpu,
    ));

    for bound in [1, 7, 1000, u32::MAX] {
        let mut cpu = vec![0u32; n / 4];
        fill::philox_below(&s, bound, &mut cpu);
        let on_gpu = run_on_gpu(gpu, n / 4, |out| {
            cuda::philox_fill_below(gpu, &s, bound, out, block)
        });
        reports.push(compare(
            name(&format!("below {bound}")),
            "rng_philox_fill_below",
            &widen(&cpu),
            on_gpu.map(|w| widen(&w)),
        ));
    }

    let mut cpu = vec![0f32; n];
    fill::philox_normal_f32(&s, &mut cpu);
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::philox_fill_normal_f32(gpu, &s, out, block)
    });
    reports.push(compare(
        name("normal_f32"),
        "rng_philox_fill_normal_f32",
        &cpu,
        on_gpu,
    ));
    reports
}

fn paper_fill(
    seed: u64,
    subsequence: u64,
    offset: u64,
    threads: u32,
    per_thread: u32,
) -> PaperFill {
    PaperFill {
        seed,
        subsequence,
        offset,
        threads,
        per_thread,
    }
}

/// xor128 from per-thread states derived from `seed` (Philox words, as the GA paper mode seeds them), all
/// three conversions; the final states must match too.
pub fn check_xor128(
    gpu: &Gpu,
    seed: u64,
    threads: u32,
    per_thread: u32,
    block: u32,
) -> Vec<CheckReport> {
    let seeds = Philox::new(seed).sequence(Stream::GaXor128Seed, 0, 0);
    let starts: Vec<Xor128> = (0..threads)
        .map(|t| Xor128::from_words_or_standard(seeds.block(t)))
        .collect();
    let flat_states: Vec<u32> = starts.iter().flat_map(Xor128::state).collect();
    let fill = paper_fill(seed, 0, 0, threads, per_thread);
    let n = threads as usize * per_thread as usize;
    let name = |what: &str| format!("xor128 {what} seed={seed:#x}, block {block}");
    let mut reports = Vec::new();

    macro_rules! one {
        ($what:literal, $t:ty, $kernel:literal, $launch:path, $draw:expr) => {{
            let mut generators = starts.clone();
            let mut cpu = vec![<$t>::default(); n];
            let cpu_result = fill::strided(&mut generators, per_thread as usize, &mut cpu, $draw);
            let on_gpu = gpu.upload(&flat_states).and_then(|mut states| {
                let values =
                    run_on_gpu(gpu, n, |out| $launch(gpu, &mut states, &fill, out, block))?;
                Ok((values, states.to_vec()?))
            });
            let final_states: Vec<u32> = generators.iter().flat_map(Xor128::state).collect();
            let (values, states_ok) = match (cpu_result, on_gpu) {
                (Ok(()), Ok((values, states))) => (Ok(values), states == final_states),
                (Err(e), _) | (_, Err(e)) => (Err(e), true),
            };
            let mut report = compare(name($what), $kernel, &cpu, values);
            if !states_ok {
                report.passed = false;
                report.detail = "final xor128 states differ".into();
            }
            reports.push(report);
        }};
    }
    one!(
        "u32",
        f64,
        "rng_xor128_fill_u32",
        launch_xor128_u32_widened,
        |g: &mut Xor128| f64::from(g.next_word())
    );
    one!(
        "uniform_f32",
        f32,
        "rng_xor128_fill_uniform_f32",
        cuda::xor128_fill_uniform_f32,
        |g: &mut Xor128| { evo_rng::convert::uniform_f32(g.next_word()) }
    );
    one!(
        "uniform_f64",
        f64,
        "rng_xor128_fill_uniform_f64",
        cuda::xor128_fill_uniform_f64,
        |g: &mut Xor128| {
            let first = g.next_word();
            evo_rng::convert::uniform_f64(first, g.next_word())
        }
    );
    reports
}

/// `xor128_fill_u32` with its words widened to f64 for the comparison.
fn launch_xor128_u32_widened(
    gpu: &Gpu,
    states: &mut DeviceBuffer<u32>,
    fill: &PaperFill,
    out: &mut DeviceBuffer<f64>,
    block: u32,
) -> evo_core::Result<()> {
    let mut words = gpu.alloc::<u32>(out.len())?;
    cuda::xor128_fill_u32(gpu, states, fill, &mut words, block)?;
    out.copy_from_host(&widen(&words.to_vec()?))
}

/// cuRAND XORWOW: thread t = curand_init(seed, subsequence + t, offset), all four conversions.
pub fn check_xorwow(
    gpu: &Gpu,
    tables: &DeviceJumpTables,
    point: (u64, u64, u64),
    threads: u32,
    per_thread: u32,
    block: u32,
) -> Vec<CheckReport> {
    let (seed, subsequence, offset) = point;
    let fill = paper_fill(seed, subsequence, offset, threads, per_thread);
    let n = threads as usize * per_thread as usize;
    let starts: Vec<CurandXorwow> = {
        use rayon::prelude::*;
        (0..u64::from(threads))
            .into_par_iter()
            .map(|t| CurandXorwow::new(seed, subsequence + t, offset))
            .collect()
    };
    let name = |what: &str| {
        format!("xorwow {what} init({seed:#x}, {subsequence}+t, {offset}), block {block}")
    };
    let mut reports = Vec::new();
    let cpu_fill = |draw: &(dyn Fn(&mut CurandXorwow) -> f64 + Sync)| -> Vec<f64> {
        let mut generators = starts.clone();
        let mut cpu = vec![0f64; n];
        // The lengths agree by construction.
        let _ = fill::strided(&mut generators, per_thread as usize, &mut cpu, draw);
        cpu
    };
    let cpu = cpu_fill(&|g| f64::from(g.next_word()));
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::curand_xorwow_fill_u32(gpu, tables, &fill, out, block)
    })
    .map(|w| widen(&w));
    reports.push(compare(
        name("u32"),
        "rng_curand_xorwow_fill_u32",
        &cpu,
        on_gpu,
    ));
    let cpu: Vec<f32> = cpu_fill(&|g| f64::from(g.uniform_f32()))
        .into_iter()
        .map(|x| x as f32)
        .collect();
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::curand_xorwow_fill_uniform_f32(gpu, tables, &fill, out, block)
    });
    reports.push(compare(
        name("uniform_f32"),
        "rng_curand_xorwow_fill_uniform_f32",
        &cpu,
        on_gpu,
    ));
    let cpu = cpu_fill(&|g| g.uniform_f64());
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::curand_xorwow_fill_uniform_f64(gpu, tables, &fill, out, block)
    });
    reports.push(compare(
        name("uniform_f64"),
        "rng_curand_xorwow_fill_uniform_f64",
        &cpu,
        on_gpu,
    ));
    let cpu: Vec<f32> = cpu_fill(&|g| f64::from(g.normal_f32()))
        .into_iter()
        .map(|x| x as f32)
        .collect();
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::curand_xorwow_fill_normal_f32(gpu, tables, &fill, out, block)
    });
    reports.push(compare(
        name("normal_f32"),
        "rng_curand_xorwow_fill_normal_f32",
        &cpu,
        on_gpu,
    ));
    reports
}

/// cuRAND Philox: thread t = curand_init(seed, subsequence + t, offset), all four conversions.
pub fn check_curand_philox(
    gpu: &Gpu,
    point: (u64, u64, u64),
    threads: u32,
    per_thread: u32,
    block: u32,
) -> Vec<CheckReport> {
    let (seed, subsequence, offset) = point;
    let fill = paper_fill(seed, subsequence, offset, threads, per_thread);
    let n = threads as usize * per_thread as usize;
    let starts: Vec<CurandPhilox> = (0..u64::from(threads))
        .map(|t| CurandPhilox::new(seed, subsequence + t, offset))
        .collect();
    let name = |what: &str| {
        format!("curand philox {what} init({seed:#x}, {subsequence}+t, {offset}), block {block}")
    };
    let mut reports = Vec::new();
    let cpu_fill = |draw: &(dyn Fn(&mut CurandPhilox) -> f64 + Sync)| -> Vec<f64> {
        let mut generators = starts.clone();
        let mut cpu = vec![0f64; n];
        // The lengths agree by construction.
        let _ = fill::strided(&mut generators, per_thread as usize, &mut cpu, draw);
        cpu
    };
    let cpu = cpu_fill(&|g| f64::from(g.next_word()));
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::curand_philox_fill_u32(gpu, &fill, out, block)
    })
    .map(|w| widen(&w));
    reports.push(compare(
        name("u32"),
        "rng_curand_philox_fill_u32",
        &cpu,
        on_gpu,
    ));
    let cpu: Vec<f32> = cpu_fill(&|g| f64::from(g.uniform_f32()))
        .into_iter()
        .map(|x| x as f32)
        .collect();
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::curand_philox_fill_uniform_f32(gpu, &fill, out, block)
    });
    reports.push(compare(
        name("uniform_f32"),
        "rng_curand_philox_fill_uniform_f32",
        &cpu,
        on_gpu,
    ));
    let cpu = cpu_fill(&|g| g.uniform_f64());
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::curand_philox_fill_uniform_f64(gpu, &fill, out, block)
    });
    reports.push(compare(
        name("uniform_f64"),
        "rng_curand_philox_fill_uniform_f64",
        &cpu,
        on_gpu,
    ));
    let cpu: Vec<f32> = cpu_fill(&|g| f64::from(g.normal_f32()))
        .into_iter()
        .map(|x| x as f32)
        .collect();
    let on_gpu = run_on_gpu(gpu, n, |out| {
        cuda::curand_philox_fill_normal_f32(gpu, &fill, out, block)
    });
    reports.push(compare(
        name("normal_f32"),
        "rng_curand_philox_fill_normal_f32",
        &cpu,
        on_gpu,
    ));
    reports
}

/// Every rng check at one block size.
pub fn run_at(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for address in ADDRESSES {
        reports.extend(check_addressed(gpu, address, ADDRESSED_DRAWS, block));
    }
    for seed in [0, 42, u64::MAX] {
        reports.extend(check_xor128(
            gpu,
            seed,
            PAPER_THREADS,
            PAPER_DRAWS_PER_THREAD,
            block,
        ));
    }
    match DeviceJumpTables::upload(gpu) {
        Ok(tables) => {
            for point in PAPER_GRID {
                reports.extend(check_xorwow(
                    gpu,
                    &tables,
                    point,
                    PAPER_THREADS,
                    PAPER_DRAWS_PER_THREAD,
                    block,
                ));
            }
        }
        Err(error) => reports.push(CheckReport::from_error(
            format!("xorwow tables, block {block}"),
            "rng_curand_xorwow_fill_u32",
            &error,
        )),
    }
    for point in PAPER_GRID {
        reports.extend(check_curand_philox(
            gpu,
            point,
            PAPER_THREADS,
            PAPER_DRAWS_PER_THREAD,
            block,
        ));
    }
    reports
}

/// Every rng check at every block size.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    BLOCK_SIZES
        .iter()
        .flat_map(|&block| run_at(gpu, block))
        .collect()
}
