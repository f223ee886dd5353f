//! The dimension split on the problems of more than one tree (Salomon, Ackley, Griewank), of neighbour
//! terms (Rosenbrock, with the halo) and of segment summaries (Ridge, Schwefel 1.2, the squared prefix sums).
//! CPU (CI): the host's join of emulated block nodes equals the problems' own evaluation bit for bit on
//! random inputs, the join's refusals, the halo in the memory model. GPU (skipped without a device, failing
//! under `EVO_REQUIRE_GPU=1`): 1, 2 and 3 slices on GPU 0 and 2 GPUs (skipped with fewer), and a Rosenbrock
//! resume, with identical snapshots after every cycle to the unsplit `MaCuda` and to `MaCpu`.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;
mod dimension_common;

use common::devices_or_skip;
use dimension_common::{
    SEED, assert_same, emulated_nodes, emulated_prefix_nodes, gpu0_layouts, layouts, params,
    run_against_references, two_gpus_or_skip,
};
use evo_benchmarks::functions::{ackley, griewank, rosenbrock, salomon};
use evo_benchmarks::prefix_squares::PrefixSquares;
use evo_benchmarks::{GaFunction, GaProblem, ShiftedFunction, ShiftedProblem};
use evo_core::{Bounds, ContinuousProblem, Engine, Error};
use evo_distributed::dimension::{
    MaDimensionSplit, Separable, SeparableProblem, SliceFitness, SliceLayout, combine_block_nodes,
    max_block, memory,
};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::MaCuda;
use evo_ma_sw_chains::cuda::slice::{SliceTerm, SliceTree};

/// The shifted functions this file covers.
const SHIFTED: [ShiftedFunction; 3] = [
    ShiftedFunction::Salomon,
    ShiftedFunction::Griewank,
    ShiftedFunction::Schwefel12,
];

/// The GA functions this file covers.
const GA: [GaFunction; 4] = [
    GaFunction::Ackley,
    GaFunction::Griewank,
    GaFunction::Rosenbrock,
    GaFunction::Ridge,
];

/// The problems this file covers at `d` variables.
fn problems(d: usize) -> Vec<Box<dyn SeparableProblem>> {
    let shifted = SHIFTED
        .into_iter()
        .map(|f| Box::new(ShiftedProblem::new(f, d).unwrap()) as Box<dyn SeparableProblem>);
    let ga = GA
        .into_iter()
        .map(|f| Box::new(GaProblem::new(f, d).unwrap()) as Box<dyn SeparableProblem>);
    shifted.chain(ga).collect()
}

/// A point drawn uniformly in the problem's bounds from `state` (a 64-bit LCG).
fn random_point(problem: &dyn SeparableProblem, state: &mut u64) -> Vec<f32> {
    let bounds = problem.bounds();
    (0..problem.dimension())
        .map(|i| {
            *state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let u = (*state >> 11) as f64 / (1u64 << 53) as f64;
            let (lo, hi) = (f64::from(bounds.lower()[i]), f64::from(bounds.upper()[i]));
            (lo + (hi - lo) * u) as f32
        })
        .collect()
}

/// Leaf `i` of a tree of `term` at `z` (`d` variables), as `ma_slice_terms_f64` computes it.
fn leaf(term: SliceTerm, d: usize, z: &dyn Fn(usize) -> f64, i: usize) -> f64 {
    match term {
        SliceTerm::Sphere => z(i) * z(i),
        SliceTerm::AckleyCos => ackley::ackley_cos_term(z(i)),
        SliceTerm::GriewankFactor => griewank::griewank_factor(i, z(i)),
        SliceTerm::Rosenbrock if i + 1 < d => rosenbrock::rosenbrock_term(z(i), z(i + 1)),
        SliceTerm::Rosenbrock => 0.0,
        other => panic!("no leaf of {other:?} in this test"),
    }
}

/// The joined fitness of `rows` (each a point) on `layout`: every slice's emulated block nodes of every tree,
/// rows one after the other, through [`combine_block_nodes`].
fn joined(problem: &dyn SeparableProblem, layout: &SliceLayout, rows: &[Vec<f32>]) -> Vec<f64> {
    let d = layout.dimension();
    let separable = problem.separable().unwrap();
    let trees = separable.fitness.trees();
    let slices = layout.slices().len();
    let mut per_slice = vec![vec![Vec::new(); trees.len()]; slices];
    for x in rows {
        let z = |i: usize| f64::from(x[i]) - separable.shift.map_or(0.0, |o| f64::from(o[i]));
        for (c, &term) in trees.iter().enumerate() {
            let nodes = match term.tree() {
                SliceTree::PrefixSquares => emulated_prefix_nodes(layout, z),
                tree => {
                    emulated_nodes(layout, tree == SliceTree::Product, |i| leaf(term, d, &z, i))
                }
            };
            for (s, slice_nodes) in nodes.into_iter().enumerate() {
                per_slice[s][c].extend(slice_nodes);
            }
        }
    }
    let blocks: Vec<usize> = layout
        .slices()
        .iter()
        .map(|s| layout.blocks_of(s))
        .collect();
    combine_block_nodes(
        separable.fitness,
        d,
        &per_slice,
        &blocks,
        rows.len(),
        separable.bias,
    )
    .unwrap()
}

/// Layouts of small `d`: one slice (a tile of 1024 leaves past `next_power_of_two(d)` below 1024), and from
/// 1025 variables two slices and one slice of the largest block.
fn small_layouts(d: usize) -> Vec<SliceLayout> {
    let mut all = vec![SliceLayout::even(d, &[0]).unwrap()];
    if d > 1024 {
        all.push(SliceLayout::even(d, &[0, 0]).unwrap());
        let largest = max_block(d);
        all.push(SliceLayout::with_blocks(d, largest, &[(0, d.div_ceil(largest))]).unwrap());
    }
    all
}

// ---- the host's join (CPU) ----

/// Random rows of 100 003 variables, of 16 385 (Rosenbrock's D − 1 terms a power of two: the slices' tree of
/// D leaves has one level more) and of a few small D, on every layout: the joined fitness of each row is
/// the problem's own evaluation, bit for bit.
#[test]
fn joined_trees_equal_the_problems_own_fitness_bit_for_bit() {
    let mut state = 0x2015_0bad_cafe_f00d;
    for d in [1, 10, 1000, 1025, 16_385, 100_003] {
        let all = if d > 4096 {
            layouts(d)
        } else {
            small_layouts(d)
        };
        for problem in problems(d) {
            let rows: Vec<Vec<f32>> = (0..3)
                .map(|_| random_point(problem.as_ref(), &mut state))
                .collect();
            let expected: Vec<u64> = rows.iter().map(|x| problem.evaluate(x).to_bits()).collect();
            for layout in &all {
                let got: Vec<u64> = joined(problem.as_ref(), layout, &rows)
                    .iter()
                    .map(|f| f.to_bits())
                    .collect();
                assert_eq!(
                    got,
                    expected,
                    "{} at D = {d}, block {}, {} slices",
                    problem.name(),
                    layout.block(),
                    layout.slices().len()
                );
            }
        }
    }
}

/// Two slices of 2 and 1 block nodes (padded to 4 by the top of each tree): the sum pads with +0.0, the
/// product with 1.0, and each formula takes its roots in the order of `SliceFitness::trees`.
#[test]
fn the_join_takes_each_tree_with_its_padding_and_order() {
    let per_slice = vec![
        vec![vec![1.0, 2.0], vec![0.5, 0.25]],
        vec![vec![3.0], vec![-2.0]],
    ];
    let blocks = [2, 1];
    let (s, p) = ((1.0 + 2.0) + (3.0 + 0.0), (0.5 * 0.25) * (-2.0 * 1.0));
    let griewank = combine_block_nodes(SliceFitness::Griewank, 5000, &per_slice, &blocks, 1, None);
    assert_eq!(
        griewank.unwrap()[0].to_bits(),
        griewank::griewank_combine(s, p).to_bits()
    );
    let ackley = combine_block_nodes(
        SliceFitness::Ackley,
        5000,
        &per_slice,
        &blocks,
        1,
        Some(7.0),
    );
    let s2 = (0.5 + 0.25) + (-2.0 + 0.0);
    assert_eq!(
        ackley.unwrap()[0].to_bits(),
        (ackley::ackley_combine(5000, s, s2) + 7.0).to_bits()
    );
    let squares: Vec<Vec<Vec<f64>>> = per_slice.iter().map(|t| vec![t[0].clone()]).collect();
    let salomon = combine_block_nodes(SliceFitness::Salomon, 5000, &squares, &blocks, 1, None);
    assert_eq!(
        salomon.unwrap()[0].to_bits(),
        salomon::salomon_combine(s).to_bits()
    );
    let sum = combine_block_nodes(
        SliceFitness::Sum(SliceTerm::Rosenbrock),
        5000,
        &squares,
        &blocks,
        1,
        None,
    );
    assert_eq!(sum.unwrap(), vec![s]);
}

/// Three block summaries over two slices (padded to 4 by an empty segment): the join is the tree of
/// `PrefixSquares::then` over them, its root's `C` plus the bias; a node is four values.
#[test]
fn the_join_of_segment_summaries_is_the_prefix_squares_tree() {
    let z = [3.0, -1.5, 0.25, 2.0, 7.0, -4.0, 0.5, 1.0, -2.0, 6.0];
    let node = |range: std::ops::Range<usize>| PrefixSquares::leaf(z[range].iter().copied());
    let (a, b, c) = (node(0..4), node(4..8), node(8..10));
    let values = |n: PrefixSquares| [n.count as f64, n.total, n.prefix_sum, n.square_sum];
    let per_slice = vec![
        vec![[values(a), values(b)].concat()],
        vec![values(c).to_vec()],
    ];
    let expected = a.then(b).then(c.then(PrefixSquares::EMPTY)).square_sum + 100.0;
    let got = combine_block_nodes(
        SliceFitness::PrefixSquares,
        10,
        &per_slice,
        &[2, 1],
        1,
        Some(100.0),
    )
    .unwrap();
    assert_eq!(got[0].to_bits(), expected.to_bits());
    let sequential: f64 = z
        .iter()
        .scan(0.0, |p, &v| {
            *p += v;
            Some(*p * *p)
        })
        .sum();
    assert_eq!(got[0], sequential + 100.0, "small exact inputs");
}

#[test]
fn the_join_refuses_nodes_of_the_wrong_shape() {
    let two = vec![vec![vec![1.0], vec![1.0]]];
    let one = vec![vec![vec![1.0]]];
    let name = |result: evo_core::Result<Vec<f64>>| match result {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    // One tree where Ackley has two, and two where Salomon has one.
    assert_eq!(
        name(combine_block_nodes(
            SliceFitness::Ackley,
            10,
            &one,
            &[1],
            1,
            None
        )),
        "trees of a slice"
    );
    assert_eq!(
        name(combine_block_nodes(
            SliceFitness::Salomon,
            10,
            &two,
            &[1],
            1,
            None
        )),
        "trees of a slice"
    );
    // Two rows asked of one row of nodes; a block count per slice missing.
    assert_eq!(
        name(combine_block_nodes(
            SliceFitness::Griewank,
            10,
            &two,
            &[1],
            2,
            None
        )),
        "block sums of a slice"
    );
    assert_eq!(
        name(combine_block_nodes(
            SliceFitness::Griewank,
            10,
            &two,
            &[],
            1,
            None
        )),
        "slices of block sums"
    );
    // A segment summary is four values: one value per block is too few.
    assert_eq!(
        name(combine_block_nodes(
            SliceFitness::PrefixSquares,
            10,
            &one,
            &[1],
            1,
            None
        )),
        "block sums of a slice"
    );
    assert!(SliceFitness::Griewank.finish(10, &[1.0]).is_err());
    assert!(
        SliceFitness::Sum(SliceTerm::Sphere)
            .finish(10, &[])
            .is_err()
    );
}

#[test]
fn each_fitness_names_its_trees_and_halo() {
    assert_eq!(
        SliceFitness::Ackley.trees(),
        &[SliceTerm::Sphere, SliceTerm::AckleyCos]
    );
    assert_eq!(
        SliceFitness::Griewank.trees(),
        &[SliceTerm::Sphere, SliceTerm::GriewankFactor]
    );
    assert_eq!(SliceFitness::Salomon.trees(), &[SliceTerm::Sphere]);
    assert_eq!(
        SliceFitness::PrefixSquares.trees(),
        &[SliceTerm::PrefixSquares]
    );
    assert_eq!(SliceTerm::PrefixSquares.tree().node_values(), 4);
    assert_eq!(SliceFitness::Sum(SliceTerm::Rosenbrock).halo(), 1);
    for fitness in [
        SliceFitness::Ackley,
        SliceFitness::Griewank,
        SliceFitness::Salomon,
        SliceFitness::PrefixSquares,
        SliceFitness::Sum(SliceTerm::Rastrigin),
    ] {
        assert_eq!(fitness.halo(), 0, "{fitness:?}");
    }
    let rosenbrock = GaProblem::new(GaFunction::Rosenbrock, 10).unwrap();
    assert_eq!(
        rosenbrock.separable().unwrap().fitness,
        SliceFitness::Sum(SliceTerm::Rosenbrock)
    );
    let ridge = GaProblem::new(GaFunction::Ridge, 10).unwrap();
    assert_eq!(
        ridge.separable().unwrap().fitness,
        SliceFitness::PrefixSquares
    );
    let schwefel = ShiftedProblem::new(ShiftedFunction::Schwefel12, 10).unwrap();
    let separable = schwefel.separable().unwrap();
    assert_eq!(separable.fitness, SliceFitness::PrefixSquares);
    assert!(separable.shift.is_some() && separable.bias.is_some());
}

/// A problem whose fitness claims to be a sum of leaves of another tree (Griewank factors, which the slices
/// would multiply; prefix-squares terms, which they would summarise).
struct SumOfFactors(GaProblem, SliceTerm);

impl ContinuousProblem for SumOfFactors {
    fn name(&self) -> &str {
        "sum-of-factors"
    }
    fn dimension(&self) -> usize {
        self.0.dimension()
    }
    fn bounds(&self) -> &Bounds {
        self.0.bounds()
    }
    fn evaluate(&self, x: &[f32]) -> f64 {
        self.0.evaluate(x)
    }
}

impl SeparableProblem for SumOfFactors {
    fn separable(&self) -> evo_core::Result<Separable<'_>> {
        Ok(Separable {
            fitness: SliceFitness::Sum(self.1),
            shift: None,
            bias: None,
        })
    }
}

#[test]
fn a_sum_of_leaves_of_another_tree_is_refused_before_any_gpu() {
    for term in [SliceTerm::GriewankFactor, SliceTerm::PrefixSquares] {
        let problem = SumOfFactors(GaProblem::new(GaFunction::Griewank, 2048).unwrap(), term);
        let layout = SliceLayout::even(2048, &[0]).unwrap();
        match MaDimensionSplit::new(params(), &problem, SEED, &layout) {
            Err(Error::InvalidParameter { name, .. }) => assert_eq!(name, "fitness"),
            Err(other) => panic!("expected InvalidParameter(fitness), got {other}"),
            Ok(_) => panic!("expected InvalidParameter(fitness) for {term:?}, got an engine"),
        }
    }
}

/// Two slices of equal length: the first holds the halo column in every row, the last does not.
#[test]
fn the_memory_model_counts_the_halo_column() {
    let layout = SliceLayout::with_blocks(8192, 4096, &[(0, 1), (1, 1)]).unwrap();
    let (first, last) = (&layout.slices()[0], &layout.slices()[1]);
    assert_eq!(first.len, last.len);
    let params = params();
    let difference =
        memory::slice_bytes(&params, &layout, first) - memory::slice_bytes(&params, &layout, last);
    // N + N + K + 5 + probe rows values of 4 bytes, each buffer rounded up by at most 1/8.
    let rows = 2 * params.population() + params.children_per_step() + 5 + 8;
    assert!(
        difference >= 4 * rows as u64 && difference <= 5 * rows as u64,
        "{difference}"
    );
}

// ---- GPU ----

/// 20 003 variables (20 blocks of 1024, the last partial, and a last group of 3 for the segment summaries;
/// look-ahead 2): every problem of this file but Rosenbrock on 1 slice, 2 even slices, 3 uneven slices of GPU 0
/// and one slice of one block of 2^15, against `MaCuda` and `MaCpu`.
#[test]
fn tree_problems_on_gpu_0_give_the_unsplit_snapshots() {
    if devices_or_skip("tree_problems_on_gpu_0_give_the_unsplit_snapshots").is_none() {
        return;
    }
    let d = 20_003;
    let layouts = gpu0_layouts(d, 1024, &[(0, 3), (0, 5), (0, 12)], true);
    for function in SHIFTED {
        let problem = ShiftedProblem::new(function, d).unwrap();
        run_against_references(&problem, &params(), &layouts, true, 2);
    }
    for function in GA.into_iter().filter(|&f| f != GaFunction::Rosenbrock) {
        let problem = GaProblem::new(function, d).unwrap();
        run_against_references(&problem, &params(), &layouts, true, 2);
    }
}

/// Every slice kernel of this file (the trees of Salomon, Ackley and Griewank, Rosenbrock's halo, the segment
/// summaries of Ridge and Schwefel 1.2) in one short cycle (I_str = 20) on two slices of GPU 0 at 2 051
/// variables (3 blocks of 1024, the last partial), against `MaCuda`: small enough that compute-sanitizer's
/// racecheck, which the longer tests outrun, finishes.
#[test]
fn every_slice_kernel_in_a_short_run_for_the_sanitizers() {
    if devices_or_skip("every_slice_kernel_in_a_short_run_for_the_sanitizers").is_none() {
        return;
    }
    let d = 2051;
    let params = params().with_ls_intensity(20).unwrap();
    let layouts = [SliceLayout::with_blocks(d, 1024, &[(0, 1), (0, 2)]).unwrap()];
    for function in SHIFTED {
        let problem = ShiftedProblem::new(function, d).unwrap();
        run_against_references(&problem, &params, &layouts, false, 1);
    }
    for function in GA {
        let problem = GaProblem::new(function, d).unwrap();
        run_against_references(&problem, &params, &layouts, false, 1);
    }
}

/// Rosenbrock at 16 385 variables (D − 1 = 2^14): 1 slice, 2 even slices, 3 uneven slices (two halos) and
/// one slice of one block of 2^15, against `MaCuda` and `MaCpu`.
#[test]
fn rosenbrock_slices_on_gpu_0_hold_the_halo_and_give_the_unsplit_snapshots() {
    let test = "rosenbrock_slices_on_gpu_0_hold_the_halo_and_give_the_unsplit_snapshots";
    if devices_or_skip(test).is_none() {
        return;
    }
    let d = 16_385;
    let problem = GaProblem::new(GaFunction::Rosenbrock, d).unwrap();
    let layouts = gpu0_layouts(d, 1024, &[(0, 1), (0, 7), (0, 9)], true);
    run_against_references(&problem, &params(), &layouts, true, 3);
}

/// `MaCuda`'s snapshot after 2 cycles restored into 3 Rosenbrock slices (the halo filled from the next
/// slice's variables) gives `MaCuda`'s third cycle.
#[test]
fn rosenbrock_resumes_from_a_snapshot_with_the_halo() {
    if devices_or_skip("rosenbrock_resumes_from_a_snapshot_with_the_halo").is_none() {
        return;
    }
    let d = 16_385;
    let problem = GaProblem::new(GaFunction::Rosenbrock, d).unwrap();
    let gpu = Gpu::open(0).unwrap();
    let mut cuda = MaCuda::new(params(), &problem, SEED, &gpu).unwrap();
    for _ in 0..2 {
        cuda.step().unwrap();
    }
    let layout = SliceLayout::with_blocks(d, 1024, &[(0, 4), (0, 4), (0, 9)]).unwrap();
    let mut split = MaDimensionSplit::new(params(), &problem, SEED, &layout).unwrap();
    split.restore(&cuda.snapshot().unwrap()).unwrap();
    assert_same(
        "restored",
        &split.snapshot().unwrap(),
        &cuda.snapshot().unwrap(),
    );
    cuda.step().unwrap();
    split.step().unwrap();
    assert_same(
        "resumed",
        &split.snapshot().unwrap(),
        &cuda.snapshot().unwrap(),
    );
}

/// Two GPUs (skipped with fewer): one slice each, and three slices over them, for every problem of this
/// file at 20 000 variables, against `MaCuda` and `MaCpu`.
#[test]
fn new_problems_on_two_gpus_give_the_unsplit_snapshots() {
    if !two_gpus_or_skip("new_problems_on_two_gpus_give_the_unsplit_snapshots") {
        return;
    }
    let d = 20_000;
    let layouts = [
        SliceLayout::even(d, &[0, 1]).unwrap(),
        SliceLayout::even(d, &[1, 0, 1]).unwrap(),
    ];
    for function in SHIFTED {
        let problem = ShiftedProblem::new(function, d).unwrap();
        run_against_references(&problem, &params(), &layouts, true, 2);
    }
    for function in GA {
        let problem = GaProblem::new(function, d).unwrap();
        run_against_references(&problem, &params(), &layouts, true, 2);
    }
}
