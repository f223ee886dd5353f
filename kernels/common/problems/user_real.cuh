// The two kernels of a user's real-vector problem (evo_benchmarks::cuda::UserProblem, ARCHITECTURE §5 way 1).
// Launchers: crates/benchmarks/src/cuda/user_launch.rs. CPU twin: UserProblem's ContinuousProblem::evaluate.
//
// A user module is this header appended to a prelude and the user's source; the prelude defines
// EVO_USER_SUMS (1..=4), EVO_USER_HAS_COMBINE (0 or 1), the struct EvoUserData (one pointer and one length per
// data array) and evo_user_data(data32, data64), which fills it from the two concatenated data buffers. The
// user's source defines
//   __device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
//                                  const EvoUserData& data, double* t);      // t[0 .. EVO_USER_SUMS)
//   __device__ double evo_user_combine(const double* sums, unsigned long long d,
//                                      const EvoUserData& data);             // when EVO_USER_HAS_COMBINE
// Term i may read any coordinate of the row x (D = d of them) and any data array. Sum k of a row is the
// canonical tree (evo_core::reduce: n terms padded with +0.0 to a power of two, adjacent pairs) of the n terms'
// t[k]; the fitness is evo_user_combine(sums) or, without a combine, sums[0].
//
// Work split (the built-ins' of kernels/cuda/benchmarks_continuous.cu): block (t, g) computes tile t of the
// rows g * segments + s, s < segments, a tile being `leaves * items` consecutive leaves (an aligned subtree) of a
// row. Rows of at least 32 leaves take a block each (segments = 1) and their tile is `items` rounds of whole
// warps: in round k, lane l of warp w takes the tile's leaf 32 * items * w + 32 * k + l (adjacent lanes read
// adjacent terms), the warp's shuffle tree gives the round's aligned 32, the rounds' tree (EvoUserRounds) the warp's
// aligned 32 * items, and after the block's one barrier the first warp's shuffle tree gives the tile. Rows of
// fewer leaves (P < 32: one tile, one round) share a warp, `leaves` lanes each, whose shuffle tree stays within
// each row's lanes. Rows of one tile write the fitness directly; otherwise `evo_user_real_finish` (one block
// per row) sums the tile sums the same way as before (their count padded to a power of two) and writes it.
// Every tile, warp share and round is an aligned subtree of the canonical tree and `leaves * items` never
// exceeds the padded count, so the bits do not depend on the launch shape. A fitness that is not finite
// records its row in `status[0]` (atomicMin), which the launcher reads back unless the engine checks the
// fitness itself.
#pragma once

#include "common/launch.cuh"

// Scalar arguments of both kernels; mirrored by `UserRealParams` in crates/benchmarks/src/cuda/user_launch.rs.
struct EvoUserRealParams {
    unsigned long long dimension;      // D, the row stride
    unsigned long long terms;          // n, terms per row
    unsigned long long rows;           // individuals
    unsigned long long tiles;          // tiles per row
    unsigned long long items;          // rounds per thread of the tiles kernel (a power of two, at most 8)
    unsigned long long leaves;         // threads of one row's tile (a power of two, at most 256)
    unsigned long long segments;       // rows per block of the tiles kernel: 32 / leaves below 32 leaves, else 1
    unsigned long long finish_items;   // tile sums per thread of the finish kernel (a power of two)
    unsigned long long finish_leaves;  // threads (leaves of the block tree) of the finish kernel
};
static_assert(sizeof(EvoUserRealParams) == 72, "EvoUserRealParams must match its Rust mirror");

#define EVO_USER_MAX_THREADS 256u
#define EVO_USER_MAX_WARPS (EVO_USER_MAX_THREADS / 32u)
#define EVO_USER_FULL_MASK 0xffffffffu

// The terms of leaf i of a row (zero beyond the n terms: the padding of the canonical tree).
struct EvoUserTermLeaf {
    const float* row;
    const EvoUserData* data;
    const EvoUserRealParams* p;
    __device__ __forceinline__ void operator()(unsigned long long i, double* t) const
    {
        if (i < p->terms) {
            evo_user_terms(i, row, p->dimension, *data, t);
        } else {
#pragma unroll
            for (int k = 0; k < EVO_USER_SUMS; ++k) {
                t[k] = 0.0;
            }
        }
    }
};

// Tile sum i of a row (zero beyond the tiles: the padding of the tree of tile sums).
struct EvoUserTileLeaf {
    const double* partials;
    unsigned long long row;
    unsigned long long tiles;
    __device__ __forceinline__ void operator()(unsigned long long i, double* t) const
    {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            t[k] = i < tiles ? partials[(row * tiles + i) * EVO_USER_SUMS + k] : 0.0;
        }
    }
};

// The adjacent-pair tree of `count` (a power of two, below 2^DEPTH) leaves from `first`, computed
// sequentially with a stack of completed subtrees. Twin: evo_core::reduce's subtree_sum.
template <unsigned int DEPTH, class Leaf>
__device__ __forceinline__ void evo_user_subtree(const Leaf& leaf, unsigned long long first, unsigned long long count,
                                                 double* out)
{
    double stack[DEPTH + 1][EVO_USER_SUMS];
    unsigned int depth = 0;
    for (unsigned long long i = 0; i < count; ++i) {
        double node[EVO_USER_SUMS];
        leaf(first + i, node);
        // Each trailing one bit of i closes a subtree: its left sibling (on the stack) is the left operand.
        for (unsigned long long closed = i; (closed & 1ull) == 1ull; closed >>= 1) {
            --depth;
#pragma unroll
            for (int k = 0; k < EVO_USER_SUMS; ++k) {
                node[k] = stack[depth][k] + node[k];
            }
        }
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            stack[depth][k] = node[k];
        }
        ++depth;
    }
#pragma unroll
    for (int k = 0; k < EVO_USER_SUMS; ++k) {
        out[k] = stack[0][k];
    }
}

// The adjacent-pair tree over each aligned group of `width` lanes (a power of two, at most 32): the first lane
// of a group ends with its group's tree, the left operand from the lower lanes as in evo_core::reduce (lane j
// adds lane j + off, both aligned subtrees of `off` lanes); the other lanes end with values nobody reads. Every
// lane of the warp calls it.
__device__ __forceinline__ void evo_user_warp_tree(double* value, unsigned int width)
{
    for (unsigned int off = 1u; off < width; off <<= 1) {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            value[k] = value[k] + __shfl_down_sync(EVO_USER_FULL_MASK, value[k], off);
        }
    }
}

// The tree of the first `leaves / 32` warps' shares (leaves a power of two, at most the block; each warp's
// share in its lane 0, as evo_user_warp_tree leaves it): after one barrier the first warp's shuffle tree, which
// ends in thread 0's `sums`. Nothing to do for `leaves <= 32` (thread 0 holds the tree already). Every thread of
// the block calls it.
template <unsigned int WIDTH>
__device__ __forceinline__ void evo_user_warps_tree(double* sums, unsigned int leaves, double (*scratch)[WIDTH])
{
    if (leaves <= 32u) {
        return;
    }
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = leaves >> 5;
    if (lane == 0u && warp < warps) {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            scratch[k][warp] = sums[k];
        }
    }
    __syncthreads();
    if (warp == 0u) {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            sums[k] = lane < warps ? scratch[k][lane] : 0.0;
        }
        evo_user_warp_tree(sums, warps);
    }
}

// The tree over the values of threads 0 .. leaves - 1 (leaves a power of two, at most the block): the warps'
// shuffle trees, then evo_user_warps_tree; every thread of the block calls it. The sums end in scratch[k][0],
// which every thread may read after it.
__device__ __forceinline__ void evo_user_block_tree(const double* value, unsigned long long leaves,
                                                    double (*scratch)[EVO_USER_MAX_THREADS])
{
    const unsigned int n = (unsigned int)leaves;
    double sums[EVO_USER_SUMS];
#pragma unroll
    for (int k = 0; k < EVO_USER_SUMS; ++k) {
        sums[k] = threadIdx.x < n ? value[k] : 0.0;
    }
    evo_user_warp_tree(sums, n < 32u ? n : 32u);
    evo_user_warps_tree(sums, n, scratch);
    if (threadIdx.x == 0u) {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            scratch[k][0] = sums[k];
        }
    }
    __syncthreads();
}

// The adjacent-pair tree of up to 8 adjacent aligned subtrees pushed in order (round i right of round i - 1):
// slot l holds a pending subtree of 2^l rounds, and each trailing one bit of i closes one, as evo_core::reduce's
// subtree_sum keeps its stack. The slots are named, not indexed, so they stay in registers.
struct EvoUserRounds {
    double slot0[EVO_USER_SUMS];
    double slot1[EVO_USER_SUMS];
    double slot2[EVO_USER_SUMS];
    double slot3[EVO_USER_SUMS];

    __device__ __forceinline__ void push(unsigned int i, double* node)
    {
        if ((i & 1u) == 0u) {
            evo_user_copy_sums(node, slot0);
            return;
        }
        evo_user_add_left(slot0, node);
        if ((i & 2u) == 0u) {
            evo_user_copy_sums(node, slot1);
            return;
        }
        evo_user_add_left(slot1, node);
        if ((i & 4u) == 0u) {
            evo_user_copy_sums(node, slot2);
            return;
        }
        evo_user_add_left(slot2, node);
        evo_user_copy_sums(node, slot3);
    }

    // The tree of `count` (1, 2, 4 or 8) pushed rounds.
    __device__ __forceinline__ void result(unsigned long long count, double* out) const
    {
        // Each slot copied by name (a pointer chosen at run time would put the slots in local memory).
        if (count == 1ull) {
            evo_user_copy_sums(slot0, out);
        } else if (count == 2ull) {
            evo_user_copy_sums(slot1, out);
        } else if (count == 4ull) {
            evo_user_copy_sums(slot2, out);
        } else {
            evo_user_copy_sums(slot3, out);
        }
    }

    static __device__ __forceinline__ void evo_user_copy_sums(const double* from, double* to)
    {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            to[k] = from[k];
        }
    }

    // node = left + node, sum by sum.
    static __device__ __forceinline__ void evo_user_add_left(const double* left, double* node)
    {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            node[k] = left[k] + node[k];
        }
    }
};

// The fitness of row r from its sums; a value that is not finite records the row in status[0].
__device__ __forceinline__ void evo_user_write_fitness(const double* sums, unsigned long long r,
                                                       const EvoUserData& data, const EvoUserRealParams& p,
                                                       double* fitness, unsigned int* status)
{
#if EVO_USER_HAS_COMBINE
    const double f = evo_user_combine(sums, p.dimension, data);
#else
    const double f = sums[0];
#endif
    fitness[r] = f;
    if (!isfinite(f)) {
        atomicMin(status, (unsigned int)r);
    }
}

extern "C" __global__ void __launch_bounds__(EVO_USER_MAX_THREADS)
    evo_user_real_tiles(const float* x, const float* data32, const double* data64, double* partials,
                        double* fitness, unsigned int* status, EvoUserRealParams p)
{
    __shared__ double scratch[EVO_USER_SUMS][EVO_USER_MAX_WARPS];
    evo_wait_previous_grid();
    const unsigned long long t = blockIdx.x;
    // 32-bit index arithmetic: a block has at most 256 threads.
    const unsigned int leaves = (unsigned int)p.leaves;
    const unsigned int j = threadIdx.x % leaves;
    const unsigned long long r = blockIdx.y * p.segments + threadIdx.x / leaves;
    // A block's last rows may lie past the population: their lanes add zeros and write nothing.
    const bool active = r < p.rows;
    // Lanes of one round: a warp, or a row's `leaves` lanes below 32.
    const unsigned int width = leaves < 32u ? leaves : 32u;
    const EvoUserData data = evo_user_data(data32, data64);
    const EvoUserTermLeaf leaf = {x + (active ? r : 0ull) * p.dimension, &data, &p};
    const unsigned long long first = t * p.leaves * p.items + (unsigned long long)(j / width) * width * p.items +
                                     j % width;
    EvoUserRounds rounds;
    for (unsigned int i = 0; i < p.items; ++i) {
        double value[EVO_USER_SUMS];
        if (active) {
            leaf(first + i * width, value);
        } else {
#pragma unroll
            for (int k = 0; k < EVO_USER_SUMS; ++k) {
                value[k] = 0.0;
            }
        }
        evo_user_warp_tree(value, width);
        rounds.push(i, value);
    }
    double sums[EVO_USER_SUMS];
    rounds.result(p.items, sums);
    // Rows of more than 32 leaves (one a block): the warps' aligned shares, their tree in thread 0.
    evo_user_warps_tree(sums, leaves, scratch);
    if (j == 0u && active) {
        if (p.tiles == 1ull) {
            evo_user_write_fitness(sums, r, data, p, fitness, status);
        } else {
#pragma unroll
            for (int k = 0; k < EVO_USER_SUMS; ++k) {
                partials[(r * p.tiles + t) * EVO_USER_SUMS + k] = sums[k];
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(EVO_USER_MAX_THREADS)
    evo_user_real_finish(const float* data32, const double* data64, const double* partials, double* fitness,
                         unsigned int* status, EvoUserRealParams p)
{
    __shared__ double scratch[EVO_USER_SUMS][EVO_USER_MAX_THREADS];
    evo_wait_previous_grid();
    const unsigned long long r = blockIdx.x;
    const EvoUserData data = evo_user_data(data32, data64);
    const EvoUserTileLeaf leaf = {partials, r, p.tiles};
    double value[EVO_USER_SUMS];
    if (threadIdx.x < p.finish_leaves) {
        evo_user_subtree<40>(leaf, threadIdx.x * p.finish_items, p.finish_items, value);
    }
    evo_user_block_tree(value, p.finish_leaves, scratch);
    if (threadIdx.x == 0u) {
        double sums[EVO_USER_SUMS];
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            sums[k] = scratch[k][0];
        }
        evo_user_write_fitness(sums, r, data, p, fitness, status);
    }
}
