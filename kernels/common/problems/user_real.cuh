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
// row. Rows of at most 256 leaves (P, the terms padded to a power of two) are one tile of one round: a block
// each of P threads from 32 up, or, below 32, a warp shared by 32 / P rows whose shuffle tree stays within each
// row's lanes. Longer rows take tiles of 8 rounds (`items` = 8) of `leaves` = min(256, P / 8) threads: in round
// k lane l of warp w takes the tile's leaf 256 w + 32 k + l (adjacent lanes read adjacent terms), the thread
// first computes its 8 terms (independent of one another, their row floats prefetched into L1) and the warp
// then sums its aligned 256 leaves by a butterfly of shuffles (evo_user_warp_eight): three levels that halve
// the rounds each lane carries (reduce-scatter, the lower lane's value always the left operand), the last two
// levels of each round's 32 leaves, then the rounds' own tree; after the block's one barrier the first warp's
// shuffle tree gives the tile. Rows of one tile write the fitness directly; otherwise each block publishes its
// tile sums and the row's last block (a ticket per row, left at zero for the next launch) sums the tile sums
// the same way (their count padded to a power of two) and writes the fitness, so there is one launch and no
// finish kernel. Every tile, warp share and round is an aligned subtree of the canonical tree and
// `leaves * items` never exceeds P, so the bits do not depend on the launch shape. A fitness that is not
// finite records its row in `status[0]` (atomicMin), which the launcher reads back unless the engine checks
// the fitness itself.
#pragma once

#include "common/launch.cuh"

// Scalar arguments of the kernel; mirrored by `UserRealParams` in crates/benchmarks/src/cuda/user_launch.rs.
struct EvoUserRealParams {
    unsigned long long dimension;      // D, the row stride
    unsigned long long terms;          // n, terms per row
    unsigned long long rows;           // individuals
    unsigned long long tiles;          // tiles per row
    unsigned long long items;          // rounds per thread: 1 (rows of one round) or EVO_USER_ITEMS
    unsigned long long leaves;         // threads of one row's tile (a power of two, at most 256)
    unsigned long long segments;       // rows per block: 32 / leaves below 32 leaves, else 1
    unsigned long long finish_items;   // tile sums per thread of the last block's tree (a power of two)
    unsigned long long finish_leaves;  // threads (leaves of the block tree) of the last block's tree
};
static_assert(sizeof(EvoUserRealParams) == 72, "EvoUserRealParams must match its Rust mirror");

#define EVO_USER_MAX_THREADS 256u
#define EVO_USER_MAX_WARPS (EVO_USER_MAX_THREADS / 32u)
#define EVO_USER_FULL_MASK 0xffffffffu
// Rounds per thread of rows longer than 256 leaves: a warp's aligned share is 32 * EVO_USER_ITEMS leaves.
#define EVO_USER_ITEMS 8u
// Resident blocks of 256 threads asked of the compiler: five for one sum (at most 48 registers: a Rastrigin term
// of evo_cos_f64 fits them without spilling, where six blocks' 40 registers spill), fewer for more sums, whose
// 8 rounds of K values each need registers of their own (two sums fit 64, three or four 128).
#if EVO_USER_SUMS == 1
#define EVO_USER_MIN_BLOCKS 5
#elif EVO_USER_SUMS == 2
#define EVO_USER_MIN_BLOCKS 4
#else
#define EVO_USER_MIN_BLOCKS 2
#endif

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

// Tile sum i of a row (zero beyond the tiles: the padding of the tree of tile sums), read from L2: the other
// blocks of the row wrote them during this launch.
struct EvoUserTileLeaf {
    const double* partials;
    unsigned long long row;
    unsigned long long tiles;
    __device__ __forceinline__ void operator()(unsigned long long i, double* t) const
    {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            t[k] = i < tiles ? __ldcg(partials + (row * tiles + i) * EVO_USER_SUMS + k) : 0.0;
        }
    }
};

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

// One butterfly level: the pair of lanes (l, l ^ off) adds the node each holds for the same subtree, the
// lower lane's as the left operand (`upper`: this lane is the pair's upper one); `send` is what the partner
// adds to its own node. Every lane of the warp calls it.
__device__ __forceinline__ double evo_user_pair(double keep, double send, unsigned int off, bool upper)
{
    const double other = __shfl_xor_sync(EVO_USER_FULL_MASK, send, off);
    return upper ? other + keep : keep + other;
}

// The tree of a warp's aligned 32 * EVO_USER_ITEMS leaves, round k of lane l (v[k]) being leaf 32 k + l, in every
// lane. Levels 1-3 (lane bits 0-2) add the pairs, quadruples and octets of adjacent lanes of each round while
// halving the rounds a lane carries: after them lane l holds, for round 4 b0 + 2 b1 + b2 (b_i its bit i), the
// subtree of the 8 leaves from 32 k + 8 (l >> 3). Levels 4 and 5 (bits 3, 4) complete each round's 32 leaves,
// then bits 2, 1 and 0 add rounds (k, k + 1), then pairs, then quadruples of rounds: the canonical tree of
// the 8 rounds. Every add is of two adjacent aligned subtrees, the lower one on the left.
__device__ __forceinline__ double evo_user_warp_eight(const double* v)
{
    const unsigned int lane = threadIdx.x & 31u;
    const bool b0 = (lane & 1u) != 0u;
    const bool b1 = (lane & 2u) != 0u;
    const bool b2 = (lane & 4u) != 0u;
    // Level 1: the lower lane keeps rounds 0-3, the upper 4-7.
    double u[4];
#pragma unroll
    for (unsigned int i = 0; i < 4u; ++i) {
        u[i] = evo_user_pair(b0 ? v[4u + i] : v[i], b0 ? v[i] : v[4u + i], 1u, b0);
    }
    // Level 2: of those, the lower lane keeps the first two, the upper the last two.
    double w[2];
#pragma unroll
    for (unsigned int i = 0; i < 2u; ++i) {
        w[i] = evo_user_pair(b1 ? u[2u + i] : u[i], b1 ? u[i] : u[2u + i], 2u, b1);
    }
    // Level 3: one round each; then the last two levels of the round's 32 leaves.
    double y = evo_user_pair(b2 ? w[1] : w[0], b2 ? w[0] : w[1], 4u, b2);
    y = evo_user_pair(y, y, 8u, (lane & 8u) != 0u);
    y = evo_user_pair(y, y, 16u, (lane & 16u) != 0u);
    // The rounds' tree: round 4 b0 + 2 b1 + b2 pairs with the round whose lane differs in b2, then b1, then b0.
    y = evo_user_pair(y, y, 4u, b2);
    y = evo_user_pair(y, y, 2u, b1);
    return evo_user_pair(y, y, 1u, b0);
}

// The tree of the first `leaves / 32` warps' shares (leaves a power of two, at most the block; each warp's
// share in its lane 0): after one barrier the first warp's shuffle tree, which ends in thread 0's `sums`.
// Nothing to do for `leaves <= 32` (thread 0 holds the tree already). Every thread of the block calls it.
__device__ __forceinline__ void evo_user_warps_tree(double* sums, unsigned int leaves,
                                                    double (*scratch)[EVO_USER_MAX_WARPS])
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

// The tile of one round (rows of at most 256 leaves): lane j of a row's `leaves` lanes takes leaf j, the
// shuffle tree of each warp (or of each row's lanes below 32), then the warps' tree.
__device__ __forceinline__ void evo_user_tile_one(const EvoUserTermLeaf& leaf, bool active, unsigned int j,
                                                  unsigned int leaves, double (*scratch)[EVO_USER_MAX_WARPS],
                                                  double* sums)
{
    if (active) {
        leaf(j, sums);
    } else {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            sums[k] = 0.0;
        }
    }
    evo_user_warp_tree(sums, leaves < 32u ? leaves : 32u);
    evo_user_warps_tree(sums, leaves, scratch);
}

// Tile t of a row of more than 256 leaves (one row per block, every lane active): each lane's 8 terms first,
// then each warp's butterfly and the warps' tree. The row floats of the 8 rounds are prefetched into L1 where
// they lie in the row (a term usually reads x[i]), so that the terms, computed one after another, do not each
// wait for memory; a term that reads elsewhere loses nothing but the prefetch.
__device__ __forceinline__ void evo_user_tile_eight(const EvoUserTermLeaf& leaf, unsigned long long t,
                                                    double (*scratch)[EVO_USER_MAX_WARPS], double* sums)
{
    const EvoUserRealParams& p = *leaf.p;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned long long first = t * p.leaves * EVO_USER_ITEMS + warp * 32ull * EVO_USER_ITEMS + lane;
#pragma unroll
    for (unsigned int k = 0; k < EVO_USER_ITEMS; ++k) {
        const unsigned long long i = first + 32u * k;
        if (i < p.dimension) {
            asm volatile("prefetch.global.L1 [%0];" ::"l"(leaf.row + i));
        }
    }
    double v[EVO_USER_ITEMS][EVO_USER_SUMS];
#pragma unroll
    for (unsigned int k = 0; k < EVO_USER_ITEMS; ++k) {
        leaf(first + 32u * k, v[k]);
    }
#pragma unroll
    for (int s = 0; s < EVO_USER_SUMS; ++s) {
        double rounds[EVO_USER_ITEMS];
#pragma unroll
        for (unsigned int k = 0; k < EVO_USER_ITEMS; ++k) {
            rounds[k] = v[k][s];
        }
        sums[s] = evo_user_warp_eight(rounds);
    }
    evo_user_warps_tree(sums, (unsigned int)p.leaves, scratch);
}

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

// Tile sums a row may have: 2^31 (the grid's x extent), so thread 0's stack of segments holds at most 2^23.
#define EVO_USER_SEGMENT_DEPTH 24

// The row's last block: the tree of the row's `tiles` tile sums, padded to a power of two Q = finish_leaves *
// finish_items. With finish_items = 1 (Q <= 256), thread j < finish_leaves takes tile sum j and the block tree
// over finish_leaves threads is the row's. Otherwise (finish_leaves = 256) the block sums segment c, the
// aligned 256 tile sums from 256 c, in pass c, and thread 0 combines the segments with a stack of completed
// subtrees (each trailing one bit of c closes one, as evo_core::reduce's subtree_sum), kept in shared memory
// so that no thread needs a local-memory stack. Thread 0 writes the fitness. Every thread of the block calls it.
__device__ __forceinline__ void evo_user_finish_row(const double* partials, unsigned long long r,
                                                    const EvoUserData& data, const EvoUserRealParams& p,
                                                    double (*scratch)[EVO_USER_MAX_WARPS], double* fitness,
                                                    unsigned int* status)
{
    __shared__ double stack[EVO_USER_SEGMENT_DEPTH][EVO_USER_SUMS];
    const EvoUserTileLeaf leaf = {partials, r, p.tiles};
    const unsigned int n = (unsigned int)p.finish_leaves;
    unsigned int depth = 0;
    double sums[EVO_USER_SUMS];
    for (unsigned long long c = 0; c < p.finish_items; ++c) {
        if (threadIdx.x < n) {
            leaf(c * n + threadIdx.x, sums);
        } else {
#pragma unroll
            for (int k = 0; k < EVO_USER_SUMS; ++k) {
                sums[k] = 0.0;
            }
        }
        evo_user_warp_tree(sums, n < 32u ? n : 32u);
        evo_user_warps_tree(sums, n, scratch);
        if (p.finish_items > 1ull) {
            if (threadIdx.x == 0u) {
                for (unsigned long long closed = c; (closed & 1ull) == 1ull; closed >>= 1) {
                    --depth;
#pragma unroll
                    for (int k = 0; k < EVO_USER_SUMS; ++k) {
                        sums[k] = stack[depth][k] + sums[k];
                    }
                }
#pragma unroll
                for (int k = 0; k < EVO_USER_SUMS; ++k) {
                    stack[depth][k] = sums[k];
                }
                ++depth;
            }
            // The next pass's warps write the scratch that warp 0 has just read.
            __syncthreads();
        }
    }
    if (threadIdx.x == 0u) {
        if (p.finish_items > 1ull) {
#pragma unroll
            for (int k = 0; k < EVO_USER_SUMS; ++k) {
                sums[k] = stack[0][k];
            }
        }
        evo_user_write_fitness(sums, r, data, p, fitness, status);
    }
}

// tickets[r] counts the blocks of row r that have published their tile sums; the last one resets it to zero.
extern "C" __global__ void __launch_bounds__(EVO_USER_MAX_THREADS, EVO_USER_MIN_BLOCKS)
    evo_user_real_tiles(const float* x, const float* data32, const double* data64, double* partials,
                        double* fitness, unsigned int* status, unsigned int* tickets, EvoUserRealParams p)
{
    __shared__ double scratch[EVO_USER_SUMS][EVO_USER_MAX_WARPS];
    __shared__ bool last;
    evo_wait_previous_grid();
    // The next kernel on the stream may take its place on the multiprocessors (it waits for this grid).
    evo_allow_next_grid();
    const unsigned long long t = blockIdx.x;
    // 32-bit index arithmetic: a block has at most 256 threads.
    const unsigned int leaves = (unsigned int)p.leaves;
    const unsigned int j = threadIdx.x % leaves;
    const unsigned long long r = blockIdx.y * p.segments + threadIdx.x / leaves;
    // A block's last rows may lie past the population: their lanes add zeros and write nothing.
    const bool active = r < p.rows;
    const EvoUserData data = evo_user_data(data32, data64);
    const EvoUserTermLeaf leaf = {x + (active ? r : 0ull) * p.dimension, &data, &p};
    double sums[EVO_USER_SUMS];
    if (p.items == 1ull) {
        evo_user_tile_one(leaf, active, j, leaves, scratch, sums);
    } else {
        evo_user_tile_eight(leaf, t, scratch, sums);
    }
    if (p.tiles == 1ull) {
        if (j == 0u && active) {
            evo_user_write_fitness(sums, r, data, p, fitness, status);
        }
        return;
    }
    // Rows of several tiles (one row a block, so r < rows): publish the tile's sums, then the row's last
    // block sums them (it sees every other block's sums after its ticket: each published them, then fenced).
    if (threadIdx.x == 0u) {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            partials[(r * p.tiles + t) * EVO_USER_SUMS + k] = sums[k];
        }
        __threadfence();
        last = atomicAdd(tickets + r, 1u) == (unsigned int)(p.tiles - 1ull);
        if (last) {
            __threadfence();
            tickets[r] = 0u;
        }
    }
    __syncthreads();
    if (last) {
        evo_user_finish_row(partials, r, data, p, scratch, fitness, status);
    }
}
