// The dimension split's kernels of the `ma` module (kernels/cuda/ma.cu includes it last; not a header of its
// own: it uses ma.cu's distance tile). Split out of ma.cu so that each file holds one kind of work;
// one module, the same entry points.
//
// A slice holds variables first .. first + dimension - 1 of every vector (first and the block below multiples of
// 1024), so the kernels of ma.cu run on it unchanged with p.lane_offset = first / 4 and slice-local bounds. A
// fitness or a distance over the whole vector is made of canonical trees over its variables (sums; Griewank's
// product; the segment summaries of the squared prefix sums); the slice computes the nodes of each tree over its
// aligned blocks of 2^k variables (the tiles of 1024 variables, then ma_block_sums_f64), and the host joins all
// slices' block nodes with the top of the same tree (evo_core::reduce, evo_benchmarks::tree,
// evo_benchmarks::prefix_squares), so the bits do not depend on the slices. For a term of two neighbours
// (Rosenbrock) a slice's rows hold one more value, the halo: variable first + dimension, which the kernels of
// ma.cu compute exactly as the next slice computes its first variable (same inputs, same Philox word).
#pragma once

#include "common/problems/prefix_squares.cuh"

// Scalar arguments of the slice kernels; mirrored by `SliceParams` in crates/ma-sw-chains/src/cuda/slice.rs.
struct MaSliceParams {
    unsigned long long dimension;        // variables of the slice whose terms (leaves) are counted
    unsigned long long stride;           // values per row in memory: dimension, or dimension + 1 with the halo
    unsigned long long first;            // the whole vector's index of the slice's variable 0
    unsigned long long tiles;            // tile nodes per row: ceil(dimension / 1024)
    unsigned long long tiles_per_block;  // ma_block_sums_f64: tiles per block, a power of two
    unsigned int term;                   // ma_slice_terms_f64: the term code (ma_slice_term, MA_TERM_ROSENBROCK)
    unsigned int shifted;                // ma_slice_terms_f64: 1: z = x - (double)shift[j] (the slice's part of the shift)
    unsigned int tree;                   // MA_TREE_SUM, MA_TREE_PRODUCT or MA_TREE_PREFIX: how the nodes are joined
    unsigned int pad;
};
static_assert(sizeof(MaSliceParams) == 56, "MaSliceParams must match its Rust mirror (56 bytes)");

// The term code of Rosenbrock's 100 (z_i^2 - z_{i+1})^2 + (z_i - 1)^2 (Rust: SliceTerm::Rosenbrock).
#define MA_TERM_ROSENBROCK 8u

// The trees (Rust: SliceTree): one double per node, added (padding +0.0) or multiplied (padding 1.0, Griewank's
// factors); or the segment summary (N, A, B, C) of the squared prefix sums, 4 doubles per node, joined by
// evo_prefix_squares_then (padding: the empty segment, which joins without arithmetic).
#define MA_TREE_SUM 0u
#define MA_TREE_PRODUCT 1u
#define MA_TREE_PREFIX 2u

// The term of variable i (whole-vector index) at z: the built-ins of common/problems/functions.cuh, the twins of
// evo_benchmarks::functions (codes: Rust's SliceTerm).
__device__ __forceinline__ double ma_slice_term(unsigned int term, unsigned long long i, double z)
{
    switch (term) {
    case 0u:
        return evo_sphere_term(z);
    case 1u:
        return evo_rastrigin_term(z);
    case 2u:
        return evo_step_term(z);
    case 3u:
        return evo_schwefel_term(z);
    case 4u:
        return evo_discus_term(i, z);
    case 5u:
        return evo_sum_squares_term(i, z);
    case 6u:
        return evo_ackley_cos_term(z);
    default:
        return evo_griewank_factor(i, z);
    }
}

// The joins of the trees' nodes, left operand first.
struct MaAdd {
    __device__ __forceinline__ double operator()(double l, double r) const { return l + r; }
};
struct MaMultiply {
    __device__ __forceinline__ double operator()(double l, double r) const { return l * r; }
};
struct MaThen {
    __device__ __forceinline__ EvoPrefixSquares operator()(const EvoPrefixSquares& l, const EvoPrefixSquares& r) const
    {
        return evo_prefix_squares_then(l, r);
    }
};

// The adjacent-pair tree over one node per thread (blockDim.x a power of two), level by level in `scratch`
// (blockDim.x nodes of shared memory): the tree of evo_core::reduce with `join` (with MaAdd,
// evo_block_pairwise_sum_f64; twins:
// evo_benchmarks::tree::pairwise_product_by, evo_benchmarks::prefix_squares). Every thread must call it; the
// result is in every thread.
template <typename Node, typename Join>
__device__ __forceinline__ Node ma_pair_tree(Node value, Node* scratch, Join join)
{
    const unsigned int t = threadIdx.x;
    scratch[t] = value;
    __syncthreads();
    for (unsigned int active = blockDim.x >> 1; active > 0; active >>= 1) {
        Node node = value;
        if (t < active) {
            node = join(scratch[2 * t], scratch[2 * t + 1]);
        }
        __syncthreads();
        if (t < active) {
            scratch[t] = node;
        }
        __syncthreads();
    }
    const Node result = scratch[0];
    __syncthreads();
    return result;
}

// The subtree of `per` nodes from `base` (an aligned run; nodes at and past `count` are `padding`), on the stack
// of completed subtrees of evo_core::reduce.
template <typename Node, typename Join>
__device__ __forceinline__ Node ma_run_tree(const Node* nodes, unsigned long long base, unsigned long long per, unsigned long long count, Node padding, Join join)
{
    Node stack[40];
    unsigned int depth = 0;
    for (unsigned long long j = 0; j < per; ++j) {
        Node value = base + j < count ? nodes[base + j] : padding;
        for (unsigned long long closed = j; closed & 1ull; closed >>= 1) {
            depth -= 1;
            value = join(stack[depth], value);
        }
        stack[depth] = value;
        depth += 1;
    }
    return stack[0];
}

// The prefix-squares path of ma_slice_terms_f64: thread t's 4 variables are one leaf of the canonical tree
// (evo_benchmarks::prefix_squares: group (first + 4 t') / 4, aligned since first is a multiple of 1024),
// summarised in order from the empty segment; variables past the slice are not pushed (the last slice's
// padding: empty leaves). The block tree joins the 256 leaves, an aligned subtree.
__device__ __forceinline__ void ma_slice_prefix_tile(const float* row, const float* shift, EvoPrefixSquares* partials, const MaSliceParams& p, EvoPrefixSquares* scratch)
{
    const unsigned long long first = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * EVO_PREFIX_GROUP;
    EvoPrefixSquares leaf = evo_prefix_squares_empty();
    for (unsigned int q = 0; q < EVO_PREFIX_GROUP && first + q < p.dimension; ++q) {
        double z = (double)row[first + q];
        if (p.shifted == 1u) {
            z = z - (double)shift[first + q];
        }
        evo_prefix_squares_push(leaf, z);
    }
    const EvoPrefixSquares node = ma_pair_tree(leaf, scratch, MaThen());
    if (threadIdx.x == 0u) {
        partials[(unsigned long long)blockIdx.y * p.tiles + blockIdx.x] = node;
    }
}

// Tile blockIdx.x (4 blockDim.x = 1024 variables) of row blockIdx.y of a slice (rows of p.stride values): the
// tile's node of the tree p.tree, written to partials[row tiles + tile] (4 doubles per node for MA_TREE_PREFIX,
// the launcher sizing the shared memory to blockDim.x nodes). Sums and products: each thread joins its lane's 4
// leaves as the aligned subtree they are, the block tree joins the lanes; leaves past the slice are the padding
// (+0.0, or 1.0 for a product; only the last slice of a vector has them: the others are whole blocks).
// Rosenbrock's leaf j reads variables j and j + 1 (the halo for the slice's last variable); the vector's last
// variable, with no j + 1 in the row (stride = dimension), has no term: +0.0, as the canonical tree's padding of
// the D - 1 terms.
extern "C" __global__ void ma_slice_terms_f64(const float* x, const float* shift, double* partials, MaSliceParams p)
{
    extern __shared__ double ma_scratch[];
    const float* row = x + (unsigned long long)blockIdx.y * p.stride;
    if (p.tree == MA_TREE_PREFIX) {
        ma_slice_prefix_tile(row, shift, (EvoPrefixSquares*)partials, p, (EvoPrefixSquares*)ma_scratch);
        return;
    }
    const unsigned long long first = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * 4ull;
    const bool product = p.tree == MA_TREE_PRODUCT;
    double t[4];
    for (unsigned int q = 0; q < 4u; ++q) {
        const unsigned long long j = first + q;
        t[q] = product ? 1.0 : 0.0;
        if (j < p.dimension) {
            double z = (double)row[j];
            if (p.shifted == 1u) {
                z = z - (double)shift[j];
            }
            if (p.term != MA_TERM_ROSENBROCK) {
                t[q] = ma_slice_term(p.term, p.first + j, z);
            } else if (j + 1ull < p.stride) {
                double next = (double)row[j + 1ull];
                if (p.shifted == 1u) {
                    next = next - (double)shift[j + 1ull];
                }
                t[q] = evo_rosenbrock_term(z, next);
            }
        }
    }
    const double lane = product ? (t[0] * t[1]) * (t[2] * t[3]) : (t[0] + t[1]) + (t[2] + t[3]);
    const double node = product ? ma_pair_tree(lane, ma_scratch, MaMultiply()) : ma_pair_tree(lane, ma_scratch, MaAdd());
    if (threadIdx.x == 0u) {
        partials[(unsigned long long)blockIdx.y * p.tiles + blockIdx.x] = node;
    }
}

// Tile blockIdx.x of the squared distance of pair blockIdx.y (slots pairs[2k], pairs[2k+1]) of a slice's
// population: ma.cu's ma_distance_pair_tile over rows of p.stride values, the first p.dimension counted (never
// the halo).
extern "C" __global__ void ma_slice_distance_tiles_f64(const float* population, const unsigned int* pairs, double* partials, MaSliceParams p)
{
    extern __shared__ double ma_scratch[];
    ma_distance_pair_tile(population, pairs, partials, p.stride, p.dimension, p.tiles, ma_scratch);
}

// Block blockIdx.x of row blockIdx.y of `partials` (p.tiles nodes per row): each thread joins its aligned run of
// p.tiles_per_block / blockDim.x nodes on a stack (nodes past p.tiles being `padding`), then the block tree joins
// the runs. Written to sums[row gridDim.x + block].
template <typename Node, typename Join>
__device__ __forceinline__ void ma_block_nodes(const Node* partials, Node* sums, const MaSliceParams& p, Node padding, Node* scratch, Join join)
{
    const Node* nodes = partials + (unsigned long long)blockIdx.y * p.tiles;
    const unsigned long long per = p.tiles_per_block / blockDim.x;
    const unsigned long long base = (unsigned long long)blockIdx.x * p.tiles_per_block + threadIdx.x * per;
    const Node value = ma_run_tree(nodes, base, per, p.tiles, padding, join);
    const Node node = ma_pair_tree(value, scratch, join);
    if (threadIdx.x == 0u) {
        sums[(unsigned long long)blockIdx.y * gridDim.x + blockIdx.x] = node;
    }
}

// Block blockIdx.x (p.tiles_per_block tiles, a power of two) of row blockIdx.y of the tile nodes (of
// ma_slice_terms_f64 or ma_slice_distance_tiles_f64): the canonical subtree of the tree p.tree over its tiles,
// tiles past the row's p.tiles being the padding; blockDim.x is a power of two dividing p.tiles_per_block, the
// shared memory blockDim.x nodes.
extern "C" __global__ void ma_block_sums_f64(const double* partials, double* sums, MaSliceParams p)
{
    extern __shared__ double ma_scratch[];
    switch (p.tree) {
    case MA_TREE_PREFIX:
        ma_block_nodes((const EvoPrefixSquares*)partials, (EvoPrefixSquares*)sums, p, evo_prefix_squares_empty(),
                       (EvoPrefixSquares*)ma_scratch, MaThen());
        break;
    case MA_TREE_PRODUCT:
        ma_block_nodes(partials, sums, p, 1.0, ma_scratch, MaMultiply());
        break;
    default:
        ma_block_nodes(partials, sums, p, 0.0, ma_scratch, MaAdd());
        break;
    }
}
