//! evo-sort: each routine's GPU permutation (or selection) against its CPU twin, exactly, on inputs full of
//! duplicates, −0.0 and +0.0, infinities and NaNs of both signs, at sizes that exercise padding, many blocks,
//! many tiles and several scan levels.

use evo_core::Result;
use evo_gpu_runtime::Gpu;
use evo_sort::cpu;
use evo_sort::cuda::{self, DeviceFitness, DevicePermutation};

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::{compare_slices, with_bits};
use crate::inputs::SplitMix64;
use crate::tolerance::{Float, Tolerance};

/// One population per case, padded to a power of two inside the kernel: every awkward length up to 4096.
pub const POPULATION_SIZES: [usize; 12] = [1, 2, 3, 31, 32, 33, 100, 256, 1000, 1024, 4095, 4096];
/// Batched cases: (segments, segment length).
pub const SEGMENT_SHAPES: [(usize, usize); 5] = [
    (1000, 10),
    (3, 4096),
    (100, 1024),
    (2000, 37),
    (10_000, 256),
];
/// Exchange cases: (segments, rows per segment, words per row); (1, 256, 64) is the GA paper's case.
pub const EXCHANGE_SHAPES: [(usize, usize, usize); 4] =
    [(1, 256, 64), (1, 33, 1), (50, 100, 3), (7, 4096, 130)];
/// Argsort / ranks / gather / argmin / argmax sizes: empty, tiny, a tile and one, several scan levels.
pub const ARRAY_SIZES: [usize; 8] = [0, 1, 2, 1000, 4097, 100_003, 1 << 20, 3_000_017];
/// Top-k cases: (n, k).
pub const TOP_K_SHAPES: [(usize, usize); 7] = [
    (1, 1),
    (10, 10),
    (5000, 1),
    (5000, 37),
    (100_003, 1024),
    (1 << 20, 100),
    (3_000_017, 513),
];

/// A fitness type of the checks.
pub trait SortFitness: DeviceFitness + Float {
    /// The nearest value (NaN stays NaN with its sign).
    fn from_f64(value: f64) -> Self;
}

impl SortFitness for f32 {
    fn from_f64(value: f64) -> Self {
        value as f32
    }
}

impl SortFitness for f64 {
    fn from_f64(value: f64) -> Self {
        value
    }
}

/// The values every input draws from often: zeros of both signs, infinities, NaNs of both signs and with a
/// payload, and a few small integers (so that ties are everywhere).
pub const SPECIALS: [f64; 12] = [
    0.0,
    -0.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    -f64::NAN,
    1.0,
    -1.0,
    2.0,
    -3.5,
    1e300,
    -1e-300,
];

/// `n` fitness values from `seed`: a quarter special values, half small integers in -8..8 (duplicates),
/// a quarter log-uniform in magnitude with random sign, and a NaN with a payload now and then.
pub fn awkward_fitness<T: SortFitness>(n: usize, seed: u64) -> Vec<T> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let draw = rng.next_u64();
            let value = match draw % 8 {
                0 | 1 => SPECIALS[(draw >> 8) as usize % SPECIALS.len()],
                2..=5 => ((draw >> 8) % 16) as f64 - 8.0,
                6 => rng.log_uniform(-30.0, 30.0),
                _ if draw & 0x100 == 0 => {
                    f64::from_bits(0x7ff0_0000_dead_beef | ((draw >> 9) << 63))
                }
                _ => -0.0,
            };
            T::from_f64(value)
        })
        .collect()
}

fn describe<T: SortFitness>(fitness: &[T], segment_start: usize, index: Option<u32>) -> String {
    match index.map(|i| segment_start + i as usize) {
        Some(i) if i < fitness.len() => format!("index {i} (value {})", with_bits(fitness[i])),
        Some(i) => format!("index {i} (out of range)"),
        None => "nothing".to_string(),
    }
}

/// Compares two index lists produced over `fitness`; `segment_len` turns local indices into global ones.
fn compare_indices<T: SortFitness>(
    check: String,
    kernel: &str,
    what: &str,
    fitness: &[T],
    segment_len: usize,
    cpu: &[u32],
    gpu: &[u32],
) -> CheckReport {
    let mismatches =
        cpu.iter().zip(gpu).filter(|(c, g)| c != g).count() + cpu.len().abs_diff(gpu.len());
    let detail = if mismatches == 0 {
        String::new()
    } else if cpu.len() != gpu.len() {
        format!("{what}: cpu has {} entries, gpu {}", cpu.len(), gpu.len())
    } else {
        let rank = cpu.iter().zip(gpu).position(|(c, g)| c != g).unwrap_or(0);
        let start = rank / segment_len.max(1) * segment_len.max(1);
        format!(
            "{what} differs at position {rank} (segment {}): cpu {} vs gpu {}",
            rank / segment_len.max(1),
            describe(fitness, start, cpu.get(rank).copied()),
            describe(fitness, start, gpu.get(rank).copied()),
        )
    };
    CheckReport {
        check,
        kernel: kernel.to_string(),
        cases: cpu.len().max(gpu.len()) as u64,
        max_difference: if mismatches == 0 {
            "identical".into()
        } else {
            format!("{mismatches} mismatches")
        },
        passed: mismatches == 0,
        detail,
    }
}

/// Joins two reports of one check: the first failure wins.
fn both(first: CheckReport, second: CheckReport) -> CheckReport {
    if !first.passed {
        return first;
    }
    if !second.passed {
        return second;
    }
    CheckReport {
        cases: first.cases + second.cases,
        ..first
    }
}

fn outcome(check: String, kernel: &str, compared: Result<CheckReport>) -> CheckReport {
    compared.unwrap_or_else(|error| CheckReport::from_error(check, kernel, &error))
}

/// Compares sorted values bit for bit (NaN payloads included) with the harness's mismatch message.
fn compare_values<T: SortFitness>(
    check: String,
    kernel: &str,
    what: &str,
    cpu: &[T],
    gpu: &[T],
) -> CheckReport {
    let comparison = compare_slices(what, 0, 1, cpu, gpu, Tolerance::Exact, |i| {
        format!("rank {i}")
    });
    CheckReport::from_comparison(check, kernel, &comparison)
}

/// `sort_segments` (and `sort_population` when there is one segment): order and sorted values.
pub fn check_segments<T: SortFitness>(
    gpu: &Gpu,
    fitness: &[T],
    segment_len: usize,
    block: u32,
) -> CheckReport {
    let segments = fitness.len() / segment_len.max(1);
    let check = format!(
        "sort_segments {} {segments}x{segment_len}, block {block}",
        T::NAME
    );
    let compared = (|| {
        let expected = cpu::sort_segments(fitness, segment_len)?;
        let on_device = gpu.upload(fitness)?;
        let mut order = DevicePermutation::identity(gpu, segments, segment_len)?;
        let mut sorted = gpu.alloc::<T>(fitness.len())?;
        if segments == 1 {
            cuda::sort_population(gpu, &on_device, &mut order, &mut sorted, block)?;
        } else {
            cuda::sort_segments(gpu, &on_device, &mut order, &mut sorted, block)?;
        }
        let order = order.to_vec()?;
        let sorted = sorted.to_vec()?;
        Ok(both(
            compare_indices(
                check.clone(),
                T::SEGMENTS,
                "order",
                fitness,
                segment_len,
                &expected.order,
                &order,
            ),
            compare_values(
                check.clone(),
                T::SEGMENTS,
                "sorted values",
                &expected.sorted,
                &sorted,
            ),
        ))
    })();
    outcome(check, T::SEGMENTS, compared)
}

/// Compares exchanged genomes word by word, naming the row and word of the first difference.
fn compare_words(
    check: String,
    kernel: &str,
    words_per_row: usize,
    cpu: &[u32],
    gpu: &[u32],
) -> CheckReport {
    let mismatches =
        cpu.iter().zip(gpu).filter(|(c, g)| c != g).count() + cpu.len().abs_diff(gpu.len());
    let detail = match cpu.iter().zip(gpu).position(|(c, g)| c != g) {
        _ if cpu.len() != gpu.len() => format!("cpu has {} words, gpu {}", cpu.len(), gpu.len()),
        Some(i) => format!(
            "population differs at individual {}, word {}: cpu {:#010x} vs gpu {:#010x}",
            i / words_per_row,
            i % words_per_row,
            cpu[i],
            gpu[i]
        ),
        None => String::new(),
    };
    CheckReport {
        check,
        kernel: kernel.to_string(),
        cases: cpu.len() as u64,
        max_difference: if mismatches == 0 {
            "identical".into()
        } else {
            format!("{mismatches} mismatches")
        },
        passed: mismatches == 0,
        detail,
    }
}

/// `exchange_rows` after a GPU segment sort, against `cpu::exchange_rows` with the CPU's order.
pub fn check_exchange(
    gpu: &Gpu,
    segments: usize,
    segment_len: usize,
    words_per_row: usize,
    block: u32,
) -> CheckReport {
    const KERNEL: &str = "sort_exchange_rows_u32";
    let check = format!(
        "exchange_rows {segments}x{segment_len} rows of {words_per_row} words, block {block}"
    );
    let rows = segments * segment_len;
    let fitness: Vec<f64> = awkward_fitness(rows, rows as u64 ^ 0xe8c4);
    let mut rng = SplitMix64::new(words_per_row as u64);
    let genomes: Vec<u32> = (0..rows * words_per_row)
        .map(|_| rng.next_u64() as u32)
        .collect();
    let compared = (|| {
        let order_cpu = cpu::sort_segments(&fitness, segment_len)?.order;
        let expected = cpu::exchange_rows(&genomes, &order_cpu, words_per_row, segment_len)?;
        let mut order = DevicePermutation::identity(gpu, segments, segment_len)?;
        let mut sorted = gpu.alloc::<f64>(rows)?;
        cuda::sort_segments(gpu, &gpu.upload(&fitness)?, &mut order, &mut sorted, block)?;
        let mut moved = gpu.alloc::<u32>(genomes.len())?;
        cuda::exchange_rows(
            gpu,
            &gpu.upload(&genomes)?,
            &order,
            &mut moved,
            words_per_row,
            block,
        )?;
        let moved = moved.to_vec()?;
        Ok(compare_words(
            check.clone(),
            KERNEL,
            words_per_row,
            &expected,
            &moved,
        ))
    })();
    outcome(check, KERNEL, compared)
}

/// `argsort`, `ranks_from_order` and `gather` against `cpu::argsort`, `cpu::ranks_from_order`, `cpu::gather`.
pub fn check_argsort<T: SortFitness>(gpu: &Gpu, fitness: &[T], block: u32) -> CheckReport {
    let n = fitness.len();
    let check = format!("argsort/ranks/gather {} n={n}, block {block}", T::NAME);
    let kernel = "sort_radix_*";
    let compared = (|| {
        let expected = cpu::argsort(fitness)?;
        let expected_ranks = cpu::ranks_from_order(&expected)?;
        let expected_values = cpu::gather(fitness, &expected)?;
        let on_device = gpu.upload(fitness)?;
        let mut order = DevicePermutation::for_array(gpu, n)?;
        cuda::argsort(gpu, &on_device, &mut order, block)?;
        let mut ranks = gpu.alloc::<u32>(n)?;
        cuda::ranks_from_order(gpu, &order, &mut ranks, block)?;
        let mut values = gpu.alloc::<T>(n)?;
        cuda::gather(gpu, &on_device, &order, &mut values, block)?;
        let order = order.to_vec()?;
        let report = compare_indices(
            check.clone(),
            kernel,
            "order",
            fitness,
            n,
            &expected,
            &order,
        );
        let report = both(
            report,
            compare_indices(
                check.clone(),
                "sort_ranks_from_order_u32",
                "ranks",
                fitness,
                n,
                &expected_ranks,
                &ranks.to_vec()?,
            ),
        );
        Ok(both(
            report,
            compare_values(
                check.clone(),
                T::GATHER,
                "gathered values",
                &expected_values,
                &values.to_vec()?,
            ),
        ))
    })();
    outcome(check, kernel, compared)
}

/// `argmin` and `argmax` against their twins.
pub fn check_select<T: SortFitness>(gpu: &Gpu, fitness: &[T], block: u32) -> CheckReport {
    let n = fitness.len();
    let check = format!("argmin/argmax {} n={n}, block {block}", T::NAME);
    let as_list = |index: Option<usize>| index.map(|i| i as u32).into_iter().collect::<Vec<u32>>();
    let compared = (|| {
        let min = compare_indices(
            check.clone(),
            T::SELECT_FIRST,
            "argmin",
            fitness,
            n,
            &as_list(cpu::argmin(fitness)),
            &as_list(cuda::argmin(gpu, &gpu.upload(fitness)?, block)?),
        );
        let max = compare_indices(
            check.clone(),
            T::SELECT_FIRST,
            "argmax",
            fitness,
            n,
            &as_list(cpu::argmax(fitness)),
            &as_list(cuda::argmax(gpu, &gpu.upload(fitness)?, block)?),
        );
        Ok(both(min, max))
    })();
    outcome(check, T::SELECT_FIRST, compared)
}

/// `top_k` against `cpu::top_k`.
pub fn check_top_k<T: SortFitness>(gpu: &Gpu, fitness: &[T], k: usize, block: u32) -> CheckReport {
    let n = fitness.len();
    let check = format!("top_k {} n={n} k={k}, block {block}", T::NAME);
    let compared = (|| {
        let expected = cpu::top_k(fitness, k)?;
        let mut out = gpu.alloc::<u32>(k)?;
        cuda::top_k(gpu, &gpu.upload(fitness)?, &mut out, block)?;
        Ok(compare_indices(
            check.clone(),
            T::TOPK_TILES,
            "top-k indices",
            fitness,
            n,
            &expected,
            &out.to_vec()?,
        ))
    })();
    outcome(check, T::TOPK_TILES, compared)
}

/// Every sort check of one precision at one block size.
pub fn run_precision<T: SortFitness>(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for n in POPULATION_SIZES {
        reports.push(check_segments(
            gpu,
            &awkward_fitness::<T>(n, n as u64),
            n,
            block,
        ));
    }
    for (segments, len) in SEGMENT_SHAPES {
        let fitness = awkward_fitness::<T>(segments * len, (segments * len) as u64 + 1);
        reports.push(check_segments(gpu, &fitness, len, block));
    }
    for n in ARRAY_SIZES {
        let fitness = awkward_fitness::<T>(n, n as u64 + 2);
        reports.push(check_argsort(gpu, &fitness, block));
        reports.push(check_select(gpu, &fitness, block));
    }
    for (n, k) in TOP_K_SHAPES {
        reports.push(check_top_k(
            gpu,
            &awkward_fitness::<T>(n, n as u64 + 3),
            k,
            block,
        ));
    }
    reports
}

/// Every sort check at every block size, both precisions.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for &block in &BLOCK_SIZES {
        reports.extend(run_precision::<f32>(gpu, block));
        reports.extend(run_precision::<f64>(gpu, block));
        for (segments, len, words) in EXCHANGE_SHAPES {
            reports.push(check_exchange(gpu, segments, len, words, block));
        }
    }
    reports
}
