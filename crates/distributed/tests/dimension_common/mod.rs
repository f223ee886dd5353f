//! Helpers of the dimension-split tests (`dimension_split.rs`, `dimension_split_problems.rs`): the CPU
//! emulation of the slices' block nodes, layouts, and the GPU comparison of split runs with `MaCuda` and
//! `MaCpu` snapshot by snapshot.

// Each test binary uses a different subset of these helpers; they unwrap: a failure there is a failed test.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use evo_benchmarks::cuda::DeviceRealProblem;
use evo_benchmarks::prefix_squares::prefix_squares_by;
use evo_benchmarks::tree::pairwise_product_by;
use evo_core::Engine;
use evo_core::reduce::pairwise_sum_by;
use evo_distributed::dimension::{MaDimensionSplit, SeparableProblem, SliceLayout, max_block};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::{MaCpu, MaCuda, MaParams, MaSnapshot};

/// The seed of every run.
pub const SEED: u64 = 2015;

/// Each slice's block sums of `term` as the kernels compute them: per block, the canonical subtree of `B`
/// leaves, leaves past D being +0.0.
pub fn emulated_block_sums(
    layout: &SliceLayout,
    term: impl Fn(usize) -> f64 + Sync,
) -> Vec<Vec<f64>> {
    emulated_nodes(layout, false, term)
}

/// Each slice's block nodes of `leaf` as the kernels compute them: per block, the canonical subtree of `B`
/// leaves, a product when `factor` (leaves past D being 1.0) or a sum (leaves past D being +0.0).
pub fn emulated_nodes(
    layout: &SliceLayout,
    factor: bool,
    leaf: impl Fn(usize) -> f64 + Sync,
) -> Vec<Vec<f64>> {
    let b = layout.block();
    per_block(layout, |base, n| {
        let node = if factor {
            pairwise_product_by(b, |i| if i < n { leaf(base + i) } else { 1.0 })
        } else {
            pairwise_sum_by(b, |i| if i < n { leaf(base + i) } else { 0.0 })
        };
        [node]
    })
}

/// Each slice's block nodes of the squared prefix sums of `z` as the kernels compute them: per block, the
/// segment summary `(N, A, B, C)` of its variables below D (leaves of 4, the pairwise tree), four values per
/// node.
pub fn emulated_prefix_nodes(
    layout: &SliceLayout,
    z: impl Fn(usize) -> f64 + Sync,
) -> Vec<Vec<f64>> {
    per_block(layout, |base, n| {
        let node = prefix_squares_by(n, |i| z(base + i));
        [
            node.count as f64,
            node.total,
            node.prefix_sum,
            node.square_sum,
        ]
    })
}

/// Each slice's values of `node(base, n)` for its blocks in order, block `base .. base + B` holding the `n`
/// variables below D.
fn per_block<const W: usize>(
    layout: &SliceLayout,
    node: impl Fn(usize, usize) -> [f64; W],
) -> Vec<Vec<f64>> {
    let (d, b) = (layout.dimension(), layout.block());
    layout
        .slices()
        .iter()
        .map(|slice| {
            (0..layout.blocks_of(slice))
                .flat_map(|j| {
                    let base = slice.first + j * b;
                    node(base, b.min(d - base))
                })
                .collect()
        })
        .collect()
}

/// Five layouts of `d > 4096` variables: 1, 2 and 3 even slices, a slice of one block of 4096 and the rest,
/// one slice of the largest block.
pub fn layouts(d: usize) -> Vec<SliceLayout> {
    let mut all = vec![
        SliceLayout::even(d, &[0]).unwrap(),
        SliceLayout::even(d, &[0, 0]).unwrap(),
        SliceLayout::even(d, &[0, 1, 2]).unwrap(),
    ];
    let blocks = d.div_ceil(4096);
    all.push(SliceLayout::with_blocks(d, 4096, &[(0, 1), (0, blocks - 1)]).unwrap());
    let largest = max_block(d);
    all.push(SliceLayout::with_blocks(d, largest, &[(0, d.div_ceil(largest))]).unwrap());
    all
}

/// Layouts of `d` variables on GPU 0: one slice, two even slices, the slices of `blocks` blocks of `block`
/// (`(0, count)` each), and with `largest` one slice of one block of the largest size.
pub fn gpu0_layouts(
    d: usize,
    block: usize,
    blocks: &[(usize, usize)],
    largest: bool,
) -> Vec<SliceLayout> {
    let mut all = vec![
        SliceLayout::even(d, &[0]).unwrap(),
        SliceLayout::even(d, &[0, 0]).unwrap(),
        SliceLayout::with_blocks(d, block, blocks).unwrap(),
    ];
    if largest {
        all.push(SliceLayout::with_blocks(d, max_block(d), &[(0, 1)]).unwrap());
    }
    all
}

/// Whether this machine has two CUDA devices: `false` (printing SKIPPED) with fewer, panicking without any
/// under `EVO_REQUIRE_GPU=1` (`common::devices_or_skip`).
pub fn two_gpus_or_skip(test: &str) -> bool {
    match crate::common::devices_or_skip(test) {
        Some(n) if n >= 2 => true,
        Some(_) => {
            eprintln!("SKIPPED (fewer than 2 CUDA devices): {test}");
            false
        }
        None => false,
    }
}

/// Enough evaluations that no run ends during a test.
pub fn params() -> MaParams {
    MaParams::new().with_max_evaluations(1_000_000).unwrap()
}

/// Every number of a snapshot, floats as bits.
pub fn assert_same(context: &str, a: &MaSnapshot, b: &MaSnapshot) {
    let bits32 = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let bits64 = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits64(&a.fitness), bits64(&b.fitness), "{context}: fitness");
    assert!(
        bits32(&a.population) == bits32(&b.population),
        "{context}: population"
    );
    assert_eq!(
        a.non_improved, b.non_improved,
        "{context}: non-improved counters"
    );
    assert_eq!(
        (
            a.evaluations,
            a.cycles,
            a.children,
            a.ls_iterations,
            a.restarts
        ),
        (
            b.evaluations,
            b.cycles,
            b.children,
            b.ls_iterations,
            b.restarts
        ),
        "{context}: counters"
    );
    assert_eq!(a.chains.len(), b.chains.len());
    for (slot, (p, q)) in a.chains.iter().zip(&b.chains).enumerate() {
        match (p, q) {
            (None, None) => {}
            (Some(p), Some(q)) => {
                assert_eq!(
                    (p.rho.to_bits(), p.successes, p.failures),
                    (q.rho.to_bits(), q.successes, q.failures),
                    "{context}: chain {slot}"
                );
                assert!(
                    bits32(&p.bias) == bits32(&q.bias),
                    "{context}: chain {slot} bias"
                );
            }
            _ => panic!("{context}: chain {slot} present on one side only"),
        }
    }
}

/// Steps the references and every split engine `cycles` times, comparing after each cycle.
pub fn run_against_references<P: SeparableProblem + DeviceRealProblem>(
    problem: &P,
    params: &MaParams,
    layouts: &[SliceLayout],
    with_cpu: bool,
    cycles: u64,
) {
    let gpu = Gpu::open(0).unwrap();
    let mut cuda = MaCuda::new(params.clone(), problem, SEED, &gpu).unwrap();
    let mut cpu = with_cpu.then(|| MaCpu::new(params.clone(), problem, SEED, 0).unwrap());
    let mut splits: Vec<_> = layouts
        .iter()
        .map(|layout| MaDimensionSplit::new(params.clone(), problem, SEED, layout).unwrap())
        .collect();
    for cycle in 0..=cycles {
        if cycle > 0 {
            cuda.step().unwrap();
            if let Some(cpu) = cpu.as_mut() {
                cpu.step().unwrap();
            }
            for split in &mut splits {
                split.step().unwrap();
            }
        }
        let reference = cuda.snapshot().unwrap();
        if let Some(cpu) = cpu.as_ref() {
            assert_same(
                &format!("MaCpu vs MaCuda, cycle {cycle}"),
                &cpu.snapshot().unwrap(),
                &reference,
            );
        }
        for split in &splits {
            let layout = split.layout();
            let context = format!(
                "cycle {cycle}, {} slices on GPUs {:?}, block {}",
                layout.slices().len(),
                layout.gpus(),
                layout.block()
            );
            assert_same(&context, &split.snapshot().unwrap(), &reference);
            assert_eq!(split.progress(), cuda.progress(), "{context}: progress");
        }
    }
    let (best, fitness) = splits[0].best().unwrap();
    let (cuda_best, cuda_fitness) = cuda.best().unwrap();
    assert_eq!(fitness.to_bits(), cuda_fitness.to_bits());
    assert!(
        best.iter()
            .map(|x| x.to_bits())
            .eq(cuda_best.iter().map(|x| x.to_bits()))
    );
}
