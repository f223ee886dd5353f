//! The MA-SW-Chains dimension split. CPU (CI): the slice layout (alignment, coverage, refusals), the join of
//! block sums against the problems' own evaluation on emulated slices, the accepted problems and
//! the memory model. GPU (skipped without a device, failing under `EVO_REQUIRE_GPU=1`): 1 slice, 2 slices on
//! GPU 0, uneven slices, 2 GPUs (skipped with fewer) and a resume from a snapshot, each with identical
//! snapshots after every cycle to the unsplit `MaCuda` and to `MaCpu`. The problems of more than one tree, of
//! neighbour terms or of segment summaries: `dimension_split_problems.rs`.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;
mod dimension_common;

use common::devices_or_skip;
use dimension_common::{
    SEED, assert_same, emulated_block_sums, gpu0_layouts, layouts, params, run_against_references,
    two_gpus_or_skip,
};
use evo_benchmarks::functions::{discus, rastrigin, sum_squares};
use evo_benchmarks::{DeRastrigin, GaFunction, GaProblem, ShiftedFunction, ShiftedProblem};
use evo_core::{ContinuousProblem, Engine, Error};
use evo_distributed::dimension::{
    MIN_BLOCK, MaDimensionSplit, SeparableProblem, SliceLayout, combine_block_sums, max_block,
    memory,
};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::memory::HEADROOM_BYTES;
use evo_ma_sw_chains::{MaCuda, MaParams};

// ---- layout (CPU) ----

fn check_layout(layout: &SliceLayout) {
    let d = layout.dimension();
    let b = layout.block();
    assert!(
        b.is_power_of_two() && b >= MIN_BLOCK && b <= max_block(d),
        "block {b} at D = {d}"
    );
    let mut next = 0;
    for (s, slice) in layout.slices().iter().enumerate() {
        assert_eq!(
            slice.first, next,
            "slice {s} starts where the previous ended"
        );
        assert_eq!(slice.first % b, 0, "slice {s} is block-aligned");
        assert!(slice.len > 0);
        if s + 1 < layout.slices().len() {
            assert_eq!(slice.len % b, 0, "slice {s} is whole blocks");
        }
        next += slice.len;
    }
    assert_eq!(next, d, "the slices cover 0..D once");
}

#[test]
fn even_layouts_cover_every_variable_in_aligned_balanced_slices() {
    for d in [
        1,
        1000,
        1024,
        1025,
        4096,
        100_000,
        600_000,
        1 << 20,
        100_000_000,
        200_000_000,
    ] {
        for gpus in [&[0][..], &[0, 0], &[0, 1], &[1, 0, 1], &[0, 1, 2, 3]] {
            let layout = match SliceLayout::even(d, gpus) {
                Ok(layout) => layout,
                Err(Error::InvalidParameter { .. }) if d.div_ceil(MIN_BLOCK) < gpus.len() => {
                    continue;
                }
                Err(other) => panic!("D = {d}, {gpus:?}: {other}"),
            };
            check_layout(&layout);
            assert_eq!(layout.slices().len(), gpus.len());
            let gpus_of: Vec<usize> = layout.slices().iter().map(|s| s.gpu).collect();
            assert_eq!(gpus_of, gpus, "slice s on entry s's GPU");
            let blocks: Vec<usize> = layout
                .slices()
                .iter()
                .map(|s| layout.blocks_of(s))
                .collect();
            let (most, least) = (blocks.iter().max().unwrap(), blocks.iter().min().unwrap());
            assert!(most - least <= 1, "D = {d}, {gpus:?}: blocks {blocks:?}");
        }
    }
    // 10^8 on two GPUs: blocks of 2^19, 96 and 95 of them.
    let layout = SliceLayout::even(100_000_000, &[0, 1]).unwrap();
    assert_eq!(layout.block(), 1 << 19);
    assert_eq!(layout.slices()[1].first, 96 << 19);
}

#[test]
fn two_slices_may_share_a_gpu() {
    let layout = SliceLayout::even(100_000, &[0, 0]).unwrap();
    assert_eq!(layout.gpus(), vec![0]);
    assert_eq!(layout.slices_per_gpu(), vec![(0, 2)]);
    let layout = SliceLayout::with_blocks(100_000, 4096, &[(1, 3), (0, 10), (1, 12)]).unwrap();
    check_layout(&layout);
    assert_eq!(layout.gpus(), vec![0, 1]);
    assert_eq!(layout.slices_per_gpu(), vec![(0, 1), (1, 2)]);
    assert_eq!(layout.slices()[2].first, 13 * 4096);
    assert_eq!(layout.slices()[2].len, 100_000 - 13 * 4096);
}

fn refused(result: evo_core::Result<SliceLayout>, name: &str) {
    match result {
        Err(Error::InvalidParameter { name: got, .. }) => assert_eq!(got, name),
        other => panic!("expected InvalidParameter({name}), got {other:?}"),
    }
}

#[test]
fn bad_layouts_are_refused_with_what_is_allowed() {
    refused(SliceLayout::even(0, &[0]), "dimension D");
    refused(SliceLayout::even(100, &[]), "slices");
    refused(SliceLayout::even(2048, &[0, 0, 0]), "slices");
    refused(SliceLayout::with_blocks(0, 1024, &[(0, 1)]), "dimension D");
    refused(SliceLayout::with_blocks(100_000, 3000, &[(0, 34)]), "block");
    refused(SliceLayout::with_blocks(100_000, 512, &[(0, 196)]), "block");
    // Above next_power_of_two(D) = 2^17 the block would pad the tree beyond the canonical one.
    refused(
        SliceLayout::with_blocks(100_000, 1 << 18, &[(0, 1)]),
        "block",
    );
    assert!(SliceLayout::with_blocks(100_000, 1 << 17, &[(0, 1)]).is_ok());
    assert!(SliceLayout::with_blocks(10, 1024, &[(0, 1)]).is_ok());
    refused(SliceLayout::with_blocks(100_000, 4096, &[]), "slices");
    refused(
        SliceLayout::with_blocks(100_000, 4096, &[(0, 0), (0, 25)]),
        "blocks of a slice",
    );
    refused(
        SliceLayout::with_blocks(100_000, 4096, &[(0, 10), (0, 14)]),
        "blocks of the slices",
    );
    refused(
        SliceLayout::with_blocks(100_000, 4096, &[(0, 10), (0, 16)]),
        "blocks of the slices",
    );
}

// ---- the join of block sums (CPU emulation of the slices) ----

#[test]
fn joined_block_sums_equal_the_problems_own_fitness_bit_for_bit() {
    let d = 100_003;
    let x: Vec<f32> = (0..d)
        .map(|i| ((i as f64 * 0.618_033_988_749_894_9).fract() * 10.0 - 5.0) as f32)
        .collect();
    for function in [
        ShiftedFunction::Rastrigin,
        ShiftedFunction::Discus,
        ShiftedFunction::SumSquares,
    ] {
        let problem = ShiftedProblem::new(function, d).unwrap();
        let o = problem.shift();
        let z = |i: usize| f64::from(x[i]) - f64::from(o[i]);
        let expected = problem.evaluate(&x);
        for layout in layouts(d) {
            let sums = match function {
                ShiftedFunction::Rastrigin => {
                    emulated_block_sums(&layout, |i| rastrigin::rastrigin_term(z(i)))
                }
                ShiftedFunction::Discus => {
                    emulated_block_sums(&layout, |i| discus::discus_term(i, z(i)))
                }
                _ => emulated_block_sums(&layout, |i| sum_squares::sum_squares_term(i, z(i))),
            };
            let blocks: Vec<usize> = sums.iter().map(Vec::len).collect();
            let bias = problem.separable().unwrap().bias;
            let joined = combine_block_sums(&sums, &blocks, 1, bias).unwrap();
            assert_eq!(
                joined[0].to_bits(),
                expected.to_bits(),
                "{function:?}, block {}, {} slices",
                layout.block(),
                layout.slices().len()
            );
        }
    }
}

#[test]
fn joined_block_sums_keep_rows_apart_and_refuse_short_input() {
    let sums = vec![vec![1.0, 2.0, 10.0, 20.0], vec![3.0, 30.0]];
    let joined = combine_block_sums(&sums, &[2, 1], 2, None).unwrap();
    assert_eq!(
        joined,
        vec![(1.0 + 2.0) + (3.0 + 0.0), (10.0 + 20.0) + (30.0 + 0.0)]
    );
    assert!(combine_block_sums(&sums, &[2, 2], 2, None).is_err());
    assert!(combine_block_sums(&sums, &[2], 2, None).is_err());
}

// ---- problems and memory (CPU) ----

/// Every function of the shifted and GA sets is taken (the squared prefix sums as segment summaries), and DE's
/// Rastrigin.
#[test]
fn the_split_takes_every_shifted_and_ga_function() {
    for function in ShiftedFunction::ALL {
        let problem = ShiftedProblem::new(function, 2048).unwrap();
        assert!(problem.separable().is_ok(), "{function:?}");
    }
    for function in GaFunction::ALL {
        let problem = GaProblem::new(function, 10).unwrap();
        assert!(problem.separable().is_ok(), "{function:?}");
    }
    assert!(DeRastrigin::new(10).unwrap().separable().is_ok());
}

#[test]
fn a_layout_of_another_dimension_is_refused() {
    let problem = DeRastrigin::new(5000).unwrap();
    let layout = SliceLayout::even(4096, &[0]).unwrap();
    let result = MaDimensionSplit::new(MaParams::new(), &problem, SEED, &layout);
    assert!(matches!(
        result,
        Err(Error::InvalidParameter {
            name: "layout dimension",
            ..
        })
    ));
}

#[test]
fn each_gpu_needs_its_slices_and_one_headroom() {
    let params = MaParams::new();
    let d = 100_000_000;
    let one = SliceLayout::even(d, &[0]).unwrap();
    let shared = SliceLayout::even(d, &[0, 0]).unwrap();
    let two = SliceLayout::even(d, &[0, 1]).unwrap();
    let whole = memory::gpu_bytes(&params, &one)[0].1;
    // 10^8 variables fit an 80 GB card; two slices on one GPU need about the same.
    assert!(whole > 57_000_000_000 && whole < 80_000_000_000, "{whole}");
    let on_one = memory::gpu_bytes(&params, &shared);
    assert_eq!(on_one.len(), 1);
    let slices: u64 = shared
        .slices()
        .iter()
        .map(|s| memory::slice_bytes(&params, &shared, s))
        .sum();
    assert_eq!(on_one[0].1, slices + HEADROOM_BYTES);
    let per_gpu = memory::gpu_bytes(&params, &two);
    assert_eq!(
        per_gpu.iter().map(|&(g, _)| g).collect::<Vec<_>>(),
        vec![0, 1]
    );
    for &(_, bytes) in &per_gpu {
        assert!(
            bytes < whole / 2 + HEADROOM_BYTES + 1_000_000_000,
            "{bytes} vs {whole}"
        );
    }
}

// ---- GPU ----

/// 10^5 variables (98 tiles, look-ahead 2): 1 slice, 2 even slices on GPU 0, and an uneven split into
/// blocks of 4 tiles, against `MaCuda` and `MaCpu`, with ρ0 from the nearest neighbour's distance.
#[test]
fn slices_on_gpu_0_give_the_unsplit_snapshots() {
    if devices_or_skip("slices_on_gpu_0_give_the_unsplit_snapshots").is_none() {
        return;
    }
    let d = 100_000;
    let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, d).unwrap();
    let layouts = gpu0_layouts(d, 4096, &[(0, 5), (0, 1), (0, 19)], false);
    run_against_references(&problem, &params(), &layouts, true, 3);
    let nearest = params().with_rho_half_nearest(true);
    let discus = ShiftedProblem::new(ShiftedFunction::Discus, d).unwrap();
    run_against_references(&discus, &nearest, &layouts[1..2], true, 2);
}

/// 6·10^5 variables (look-ahead 1) in two blocks of 2^19 on GPU 0 (512 tiles per block: the block kernel's
/// stack path), against `MaCuda`.
#[test]
fn large_blocks_give_the_unsplit_snapshots() {
    if devices_or_skip("large_blocks_give_the_unsplit_snapshots").is_none() {
        return;
    }
    let d = 600_000;
    let problem = ShiftedProblem::new(ShiftedFunction::SumSquares, d).unwrap();
    let layouts = [SliceLayout::with_blocks(d, 1 << 19, &[(0, 1), (0, 1)]).unwrap()];
    run_against_references(&problem, &params(), &layouts, false, 2);
}

/// Two GPUs (skipped with fewer): one slice each, and three slices over them, against `MaCuda` and `MaCpu`.
#[test]
fn slices_on_two_gpus_give_the_unsplit_snapshots() {
    if !two_gpus_or_skip("slices_on_two_gpus_give_the_unsplit_snapshots") {
        return;
    }
    let d = 100_000;
    let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, d).unwrap();
    let layouts = [
        SliceLayout::even(d, &[0, 1]).unwrap(),
        SliceLayout::even(d, &[1, 0, 1]).unwrap(),
    ];
    run_against_references(&problem, &params(), &layouts, true, 3);
}

/// A split run snapshotted after 2 cycles resumes on another layout (and from `MaCuda`'s snapshot) and
/// gives `MaCuda`'s third cycle.
#[test]
fn a_split_run_resumes_from_a_snapshot_on_another_layout() {
    if devices_or_skip("a_split_run_resumes_from_a_snapshot_on_another_layout").is_none() {
        return;
    }
    let d = 100_000;
    let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, d).unwrap();
    let gpu = Gpu::open(0).unwrap();
    let mut cuda = MaCuda::new(params(), &problem, SEED, &gpu).unwrap();
    let mut first = MaDimensionSplit::new(
        params(),
        &problem,
        SEED,
        &SliceLayout::even(d, &[0, 0]).unwrap(),
    )
    .unwrap();
    for _ in 0..2 {
        cuda.step().unwrap();
        first.step().unwrap();
    }
    let saved = first.snapshot().unwrap();
    assert_same("before the resume", &saved, &cuda.snapshot().unwrap());
    assert_eq!(first.fingerprint().unwrap(), cuda.fingerprint().unwrap());
    let other = SliceLayout::with_blocks(d, 4096, &[(0, 7), (0, 18)]).unwrap();
    let mut resumed = MaDimensionSplit::new(params(), &problem, SEED, &other).unwrap();
    resumed.restore(&saved).unwrap();
    assert_same("restored", &resumed.snapshot().unwrap(), &saved);
    let mut from_cuda = MaDimensionSplit::new(
        params(),
        &problem,
        SEED,
        &SliceLayout::even(d, &[0]).unwrap(),
    )
    .unwrap();
    from_cuda.restore(&cuda.snapshot().unwrap()).unwrap();
    cuda.step().unwrap();
    resumed.step().unwrap();
    from_cuda.step().unwrap();
    let reference = cuda.snapshot().unwrap();
    assert_same(
        "resumed on another layout",
        &resumed.snapshot().unwrap(),
        &reference,
    );
    assert_same(
        "resumed from MaCuda's snapshot",
        &from_cuda.snapshot().unwrap(),
        &reference,
    );
}

/// A run that does not fit is refused before allocating, naming the GPU.
#[test]
fn a_run_larger_than_the_gpu_is_refused_naming_it() {
    if devices_or_skip("a_run_larger_than_the_gpu_is_refused_naming_it").is_none() {
        return;
    }
    let d = 1_000_000;
    let problem = DeRastrigin::new(d).unwrap();
    // 50 000 individuals of 10^6 variables: 400 GB of population and biases.
    let params = MaParams::new().with_population(50_000).unwrap();
    let layout = SliceLayout::even(d, &[0, 0]).unwrap();
    match MaDimensionSplit::new(params, &problem, SEED, &layout) {
        Err(Error::GpuOutOfMemory {
            device,
            requested,
            free,
            ..
        }) => {
            assert_eq!(device, 0);
            assert!(requested > free);
        }
        Err(other) => panic!("expected GpuOutOfMemory, got {other}"),
        Ok(_) => panic!("expected GpuOutOfMemory, got an engine"),
    }
}
