//! The dimension split of MA-SW-Chains: every individual's `D` variables are cut into slices, each slice on a
//! GPU (several slices may share one), so that a run holds more variables than one GPU's memory
//! ([`MaDimensionSplit`]). Under the Exact profile its snapshots after every cycle are bit for bit those of the
//! unsplit [`MaCuda`](evo_ma_sw_chains::MaCuda) and of [`MaCpu`](evo_ma_sw_chains::MaCpu), for any number
//! and placement of slices.
//!
//! # What is split
//!
//! A [`SliceLayout`] cuts `0..D` into consecutive runs of whole **blocks** of `B` variables (`B` a power of two,
//! `1024 ≤ B ≤ max(1024, next_power_of_two(D))`; the last block may be partial). Slice `s` holds variables
//! `first_s .. first_s + len_s` of the population (N rows), the children area (K rows), the chain biases (N rows),
//! the LS point and bias, the Solis–Wets probe rows, the bounds and the shift vector, each as rows of `len_s`
//! values on its GPU. The host keeps what [`MaCuda`](evo_ma_sw_chains::MaCuda)'s host keeps: the N fitness
//! values, the chain scalars, the counters, and it runs the same cycle (`evo_ma_sw_chains::cycle`) over a
//! workspace whose every operation runs on all slices.
//!
//! # Why the bits do not change
//!
//! 1. **Per-variable work.** Initialisation, BLX-α, BGA mutation, the Solis–Wets moves, probes and bias
//!    updates, row copies: each touches variable `i` alone, with random numbers addressed by
//!    (stream, step, individual, variable): word `i` (lane `⌊i/4⌋`) of a Philox sequence. A slice runs the
//!    engine's own kernels (`kernels/cuda/ma.cu`) on its rows with `lane_offset = first_s/4`
//!    ([`MaKernelParams::lane_offset`](evo_ma_sw_chains::cuda::launch::MaKernelParams::lane_offset)), so it
//!    draws exactly the numbers of its own variables, and the mutated gene is compared with the whole
//!    vector's index. `first_s` is a multiple of `B ≥ 1024`, so lanes never straddle slices.
//! 2. **Trees.** A fitness accepted here is one or two canonical trees over per-variable leaves (or the
//!    segment summaries of point 4), then the problem's own final formula on their roots, then the bias
//!    ([`SliceFitness`]): a sum `Σ_i term(i, z_i)`,
//!    Salomon's `Σ z_i²`, Ackley's `Σ z_i²` and `Σ cos(2πz_i)`, Griewank's `Σ z_i²` and product
//!    `Π cos(z_i/√(i+1))`; a squared distance is `Σ_i (x_i − y_i)²`. A sum is the canonical tree of
//!    `evo_core::reduce` over `D` leaves padded with `+0.0` to `P = next_power_of_two(D)`; Griewank's
//!    product is the same tree with `×` and padding `1.0` (`evo_benchmarks::tree`; its CPU evaluation takes
//!    the factors eight at a time, aligned subtrees of the same tree). Block `j` (leaves `jB .. (j+1)B`,
//!    `B ≤ P`, `B | P`) is an aligned subtree, the node of level `log2 B` at index `j`; the nodes
//!    `j ≥ ⌈D/B⌉` are all-padding, `+0.0` (`1.0`). (Below 1024 variables the single block is one tile of
//!    1024 leaves, more than `P`: the extra padding only adds `+0.0` or multiplies by `1.0`, as the unsplit
//!    engine's own tiles do.)
//!    Each slice computes its blocks' nodes of each tree: tiles of 1024 leaves (`ma_slice_terms_f64`,
//!    `ma_slice_distance_tiles_f64`: 4 leaves per thread, then the block tree), then the tree over each
//!    block's `B/1024` tiles (`ma_block_sums_f64`), leaves past `D` being the padding as in the canonical
//!    tree. The host gathers the `⌈D/B⌉` block nodes of a row and tree in coordinate order and joins them
//!    with [`pairwise_sum_f64`](evo_core::reduce::pairwise_sum_f64) (or `evo_benchmarks::tree`'s
//!    `pairwise_product_by`), which pads them to `next_power_of_two(⌈D/B⌉) = P/B` nodes: the top
//!    `log2(P/B)` levels of the same tree ([`combine_block_nodes`], [`combine_block_sums`]). Every operation
//!    of the canonical tree is made once, on the same operands, in the same order, so each root is the same
//!    number whatever the slices; the final formula (`salomon_combine`, `ackley_combine(D, s₁, s₂)`,
//!    `griewank_combine(s, p)` of `evo_benchmarks::functions`, called on the host) and the bias follow, as
//!    in the problem's own evaluation. The terms are the twins of `evo_benchmarks::functions` in
//!    `kernels/common/problems/functions.cuh`, evaluated at the whole vector's index `i`.
//! 3. **Neighbours.** Rosenbrock's leaf `i < D − 1` is `100 (z_i² − z_{i+1})² + (z_i − 1)²`, and leaf `D − 1`
//!    is `+0.0` (its tree is that of the `D − 1` terms padded with `+0.0`; at `D − 1` a power of two the
//!    padding to `next_power_of_two(D)` adds one level of `+ 0.0` to a root that is never `−0.0`). Every slice
//!    but the last holds one more value per row, the **halo**: variable `first_s + len_s`, the next slice's
//!    first variable. The per-variable kernels of point 1 run over it too, with the same inputs (its bounds,
//!    its parents' values, its chain bias, its Philox word, lane `(first_s + len_s)/4`, the next slice's first
//!    lane), so the halo is the same bits as the next slice's variable after every operation, without a
//!    transfer; the reductions stop before it (the distance kernel and the trees count `len_s` variables).
//! 4. **Prefix sums.** Ridge and Schwefel 1.2 are `Σ_i S_i²`, `S_i = z_0 + … + z_i`, evaluated as the tree
//!    of segment summaries `(N, A, B, C)` of `evo_benchmarks::prefix_squares`: leaves are the aligned groups
//!    of 4 variables (summarised in order from the empty segment), joined by the pairwise tree over
//!    `next_power_of_two(⌈D/4⌉)` leaves with [`PrefixSquares::then`](evo_benchmarks::prefix_squares::PrefixSquares::then),
//!    which is associative and returns the other operand unchanged for an empty segment (the padding).
//!    `first_s` and `B` are multiples of 1024, so block `j` (groups `jB/4 .. (j+1)B/4`) is an aligned
//!    subtree of that tree; each slice computes its blocks' summaries, four values per node, with the same
//!    kernels (`ma_slice_terms_f64`: a thread's 4 variables are one leaf, the block tree joins a tile's 256
//!    leaves; `ma_block_sums_f64` joins a block's tiles), reusing the CUDA twin of the join
//!    (`kernels/common/problems/prefix_squares.cuh`); the host joins the blocks' summaries with the top of the
//!    same tree (padding empty segments, which change nothing) and takes the root's `C`, then the bias.
//! 5. **Decisions.** The host makes the cycle's decisions from the joined fitness and distances, as
//!    `MaCuda` does. Inside a Solis–Wets application the decisions are made on the device by
//!    `ma_sw_step_f32`: each group's probe fitness is joined on the host and uploaded to every slice, which
//!    then decides the same outcomes from the same numbers and state, and applies them to its variables. The
//!    engine reads every slice's state after each batch of groups and fails if they differ.
//!
//! No NCCL all-reduce is used: its order of additions is not the tree's. The block sums travel through the
//! host (a few hundred numbers per row: 64 to 128 blocks per slice with [`SliceLayout::even`], fewer at
//! small D).
//!
//! # Problems
//!
//! [`SeparableProblem`] lists what the split accepts ([`SliceFitness`] gives the math of each form):
//!
//! | problem | fitness |
//! | --- | --- |
//! | shifted Rastrigin, Discus, Sum Squares (`evo_benchmarks::ShiftedProblem`, up to its 10^8 variables); GA Hypersphere, Step, Schwefel, Rastrigin (`GaProblem`, any D); DE Rastrigin (`DeRastrigin`, any D) | `Σ_i term(i, z_i) (+ bias)` |
//! | shifted Salomon | `salomon_combine(Σ z_i²) + bias` |
//! | GA Ackley | `ackley_combine(D, Σ z_i², Σ cos(2πz_i))` |
//! | shifted Griewank, GA Griewank | `griewank_combine(Σ z_i², Π cos(z_i/√(i+1))) (+ bias)` |
//! | GA Rosenbrock | `Σ_{i<D−1} 100 (z_i² − z_{i+1})² + (z_i − 1)²`, with the halo |
//! | shifted Schwefel 1.2, GA Ridge | `Σ_i (Σ_{j≤i} z_j)² (+ bias)`, the root's `C` of the segment summaries |
//!
//! Every function of `ShiftedProblem` and `GaProblem` is accepted; CEC 2010 problems (permuted groups across
//! slices) and user problems do not implement the trait.
//!
//! # Cost
//!
//! Per evaluation call (a crossover step's K children, a Solis–Wets group of 2 or 8 probe rows, the N rows of
//! an initialisation or restart, a step's distances) the host waits for every slice once and moves
//! `rows × ⌈D/B⌉` doubles per tree (four per block for the segment summaries) down and, in Solis–Wets, the rows' fitness up (a two-tree fitness reads
//! every row twice on the device, one pass per tree): a round trip of tens of µs per group,
//! against a group's ~0.3–0.6 ms of device work per 5·10^7 variables on a slice. The evaluation kernel is the
//! simple tile kernel above, not evo-benchmarks' tuned ones (float4 loads, row groups). The slices of
//! one GPU share its stream and run one after the other; the slices of different GPUs run side by side.
//!
//! # Memory
//!
//! [`memory::slice_bytes`] gives a slice's buffers (for any accepted problem: the halo column and nodes of
//! four values are always counted), [`memory::gpu_bytes`] each GPU's total with one context's headroom; [`MaDimensionSplit::with_profile`] checks every GPU's need against its free memory before it
//! allocates anything and names the first GPU that does not fit ([`Error::GpuOutOfMemory`](evo_core::Error::GpuOutOfMemory)).
//!
//! # Files
//!
//! | file | what |
//! | --- | --- |
//! | `layout.rs` | [`SliceLayout`], [`Slice`] |
//! | `problem.rs` | [`SeparableProblem`], [`Separable`], [`SliceFitness`] |
//! | `combine.rs` | the host's join: [`combine_block_nodes`], [`combine_block_sums`] |
//! | `memory.rs` | the memory need per slice and per GPU |
//! | `slice.rs` | one slice's buffers and kernels |
//! | `workspace.rs` | the cycle's vector work over the slices |
//! | `engine.rs` | [`MaDimensionSplit`] |

mod combine;
mod engine;
mod layout;
pub mod memory;
mod problem;
mod slice;
mod workspace;

pub use combine::{combine_block_nodes, combine_block_sums};
pub use engine::MaDimensionSplit;
pub use layout::{EVEN_BLOCKS_PER_SLICE, MIN_BLOCK, Slice, SliceLayout, max_block};
pub use problem::{Separable, SeparableProblem, SliceFitness};

/// The component named by the split's errors.
const COMPONENT: &str = "MA-SW-Chains dimension split";
