// Batched evaluation of the continuous test problems of evo-benchmarks (GA paper, MA-SW-Chains shifted
// functions, CEC 2010 F1-F3 / F19 / F20, the DE paper's Rastrigin). Typed launchers:
// crates/benchmarks/src/cuda/launch.rs. CPU twins: crates/benchmarks/src/functions/ and src/tree.rs.
//
// Every fitness is a fixed tree of per-coordinate terms (evo_core::reduce), so the work splits freely:
// 1. `benchmarks_continuous_tiles_*`: a grid of tile groups x groups of individuals (linear, group fastest;
//    groups of up to 10 consecutive individuals (launch::ROW_GROUP; fewer where the grid would fill less than
//    two waves, launch::block_groups), which share the block's index arithmetic, the shift vector's tile (read
//    from L1 after the first individual; the rows bypass L1) and Griewank's 1/sqrt((i+1) pi^2); a block of
//    fewer individuals takes up to 4 / group consecutive tiles; blocks of one individual take Griewank's
//    `benchmarks_continuous_tiles_griewank_one_row`, which computes each scale where its term needs it);
//    for each individual r and tile t of its block, the block of B threads reduces the aligned tile of 8B
//    terms starting at t * 8B of row r: warp w takes the 256 terms from 256 w, lane l the 8 adjacent terms 8 l .. 8 l + 7 (two 16-byte
//    loads per array; the warp's pair of loads covers 1 KiB with every sector used), all in registers; they
//    are an aligned subtree, the warp shuffle tree over the lanes gives the warp's 256, and after the block's
//    one barrier a warp adds each (individual, tile) item's warp subtrees from shared memory (`evo_tile_rows`,
//    `evo_tile_items_store`). One or two accumulators (Griewank: sum and product, Ackley:
//    two sums). Interior tiles of 16-byte aligned, unpermuted rows take float4 loads and a single range check
//    of the thread's 8 cosine arguments; the last tile, permuted parts and Rosenbrock take per-term loads.
// 2. `benchmarks_continuous_finish`: one block per individual reduces its tile partials (aligned subtrees of the same
//    tree, padded to a power of two) and applies the function's final combination and bias.
// Rows of at most B terms (the GA paper's n = 32 and 128, say) take one launch instead: one term per lane
// (`evo_tile_rows_single`, tiles of B terms, p.items = 1), and with one tile per row the tiles kernel applies
// the final combination itself (p.finish = 1), with the finish kernel's arithmetic.
// Schwefel 1.2 / Ridge: the segment summaries of evo_benchmarks::prefix_squares, which sum the squared prefix
// sums without a scan pass: `benchmarks_continuous_prefix_squares` (tile summaries: the tiles grid above, lane
// l of warp w holding the 8 adjacent terms 256 w + 8 l .. + 7) and `benchmarks_continuous_finish_prefix`
// (their tree per individual).
#include "common/launch.cuh"
#include "common/problems/functions.cuh"
#include "common/problems/prefix_squares.cuh"
#include "common/problems/tree.cuh"

// Scalar arguments of `benchmarks_continuous_tiles_*`; mirrored by `TilesParams` in crates/benchmarks/src/cuda/launch.rs.
struct TilesParams {
    unsigned long long dimension;    // coordinates per individual (the row stride)
    unsigned long long terms;        // terms per individual (dimension, dimension - 1 for Rosenbrock, or the
                                     // length of a permuted part)
    unsigned long long perm_offset;  // term i reads coordinate perm[perm_offset + i] when permuted is 1
    unsigned long long rows;         // individuals
    unsigned int shift;              // 0: z = x; 1: z = x - (double)shift32[j]; 2: z = x - shift64[j]
    unsigned int permuted;
    unsigned int group;              // individuals per block (consecutive), sharing the per-tile Griewank scales
    unsigned int tile_group;         // consecutive tiles per block (>= 1; group * tile_group <= EVO_MAX_ITEMS)
    unsigned int items;              // terms per lane: 8 (tiles of 8B terms) or 1 (tiles of B terms)
    unsigned int finish;             // 1 (one tile per individual): write the final fitness, as the finish
                                     // kernel would, to partials[r] instead of the tile's pair
    unsigned int combine;            // finish == 1: 0 sum, 1 Griewank, 2 Ackley, 3 Salomon
    unsigned int add_bias;           // finish == 1: add `bias`
    double bias;                     // finish == 1: fBias of the shifted functions
    unsigned long long n;            // finish == 1: Ackley's count of coordinates
};
static_assert(sizeof(TilesParams) == 80, "TilesParams must match its Rust mirror");

// Scalar arguments of `benchmarks_continuous_finish`; mirrored by `FinishParams`.
struct FinishParams {
    unsigned long long tiles;  // tile partials per individual
    unsigned long long n;      // Ackley's count of coordinates
    double bias;               // added when add_bias is 1 (fBias of the shifted functions)
    unsigned int combine;      // 0 sum, 1 Griewank, 2 Ackley, 3 Salomon
    unsigned int add_bias;
    unsigned long long leaves; // summaries per thread of finish_prefix: 4 or 8 (checked by the launcher); unused by finish
};
static_assert(sizeof(FinishParams) == 40, "FinishParams must match its Rust mirror");

#define EVO_ITEMS 8u
// (individual, tile) items of one block (the launcher's group x tile_group) and warps of one block (at most
// 256 threads): the shared slots of the warps' subtrees, reduced once per block after a single barrier.
#define EVO_MAX_ITEMS 16u
#define EVO_MAX_WARPS 8u

// Term kinds of `benchmarks_continuous_tiles_*`: the second accumulator is a product for Griewank only.
#define EVO_KIND_SPHERE 0
#define EVO_KIND_RASTRIGIN 1
#define EVO_KIND_STEP 2
#define EVO_KIND_SCHWEFEL 3
#define EVO_KIND_DISCUS 4
#define EVO_KIND_SUM_SQUARES 5
#define EVO_KIND_ELLIPTIC 6
#define EVO_KIND_GRIEWANK 7
#define EVO_KIND_ACKLEY 8
#define EVO_KIND_ROSENBROCK 9
// A user-supplied term `evo_user_term(i, z)` (evo_benchmarks::cuda::UserFunction), compiled into a user module
// that defines EVO_USER_FUNCTION before this source.
#define EVO_KIND_USER 10

__device__ __forceinline__ double evo_z(const float* row, const float* shift32, const double* shift64,
                                        unsigned int shift, unsigned long long i)
{
    const double x = (double)row[i];
    if (shift == 1u) {
        return x - (double)shift32[i];
    }
    if (shift == 2u) {
        return x - shift64[i];
    }
    return x;
}

// Coordinate of term i: i itself, or perm[perm_offset + i] for the permuted parts of CEC 2010.
__device__ __forceinline__ unsigned long long evo_coordinate(const unsigned int* perm, const TilesParams& p,
                                                             unsigned long long i)
{
    return p.permuted == 1u ? (unsigned long long)perm[p.perm_offset + i] : i;
}

// The accumulator values of term i, whose shifted coordinate z has been loaded by the caller. REDUCED: the
// caller has checked |z| < 2^49 (Rastrigin) or |z| < 2^20 (Griewank, so |z scale| < 2^20 as scale <= 1), and
// the cosine skips its own range check (the same bits).
template <int KIND, bool REDUCED = false>
__device__ __forceinline__ void evo_term(const float* row, const float* shift32, const double* shift64,
                                         const unsigned int* perm, const TilesParams& p, unsigned long long i,
                                         double z, double scale, double* a, double* b)
{
    *b = KIND == EVO_KIND_GRIEWANK ? 1.0 : 0.0;
    if (KIND == EVO_KIND_SPHERE) {
        *a = evo_sphere_term(z);
    } else if (KIND == EVO_KIND_RASTRIGIN) {
        *a = REDUCED ? evo_rastrigin_term_reduced(z) : evo_rastrigin_term(z);
    } else if (KIND == EVO_KIND_STEP) {
        *a = evo_step_term(z);
    } else if (KIND == EVO_KIND_SCHWEFEL) {
        *a = evo_schwefel_term(z);
    } else if (KIND == EVO_KIND_DISCUS) {
        *a = evo_discus_term(i, z);
    } else if (KIND == EVO_KIND_SUM_SQUARES) {
        *a = evo_sum_squares_term(i, z);
    } else if (KIND == EVO_KIND_ELLIPTIC) {
        *a = evo_elliptic_term(i, p.terms, z);
    } else if (KIND == EVO_KIND_GRIEWANK) {
        *a = z * z;
        // scale = evo_griewank_scale(i): evo_griewank_factor(i, z)
        *b = REDUCED ? evo_griewank_factor_scaled_reduced(z, scale) : evo_griewank_factor_scaled(z, scale);
    } else if (KIND == EVO_KIND_ACKLEY) {
        *a = z * z;
        *b = evo_ackley_cos_term(z);
    } else if (KIND == EVO_KIND_ROSENBROCK) {
        *a = evo_rosenbrock_term(z, evo_z(row, shift32, shift64, p.shift, evo_coordinate(perm, p, i + 1)));
    }
#ifdef EVO_USER_FUNCTION
    else if (KIND == EVO_KIND_USER) {
        *a = evo_user_term(i, z);
    }
#endif
}

// The shifted coordinates of the 8 adjacent terms of lane l of warp w: chunk c (0, 1) holds terms base + 4 c + e
// (e = 0..3, base = tile start + 256 w + 8 l), z[4 c + e]; missing terms (beyond `terms`) get z = 0. FAST:
// the whole tile lies inside the row, no permutation, the row and the shift 16-byte aligned: one float4 of x
// and one of the f32 shift (or two double2 of the f64 shift) per chunk; a warp's two loads of an array cover
// 1 KiB contiguous, every 32-byte sector used.
// At most 256 threads per block (the launcher's cap), 4 blocks per SM: at most 64 registers per thread.
#define EVO_TILES_BOUNDS __launch_bounds__(256, 4)
// Rastrigin: 6 blocks per SM (at most 40 registers; ptxas spills more); Griewank: 5 (at most 48 registers)
// since the rows bypass L1; each count was the fastest tried (docs/results/eval.md#resident-blocks). The
// launcher sizes the tiles grids by these resident counts (launch::RESIDENT_BLOCKS,
// RASTRIGIN_RESIDENT_BLOCKS, GRIEWANK_RESIDENT_BLOCKS).
#define EVO_TILES_BOUNDS_RASTRIGIN __launch_bounds__(256, 6)
#define EVO_TILES_BOUNDS_GRIEWANK __launch_bounds__(256, 5)

// Four floats of a population row in the FAST paths (read once per call): through the non-coherent path without
// allocating in L1 (ld.global.nc.L1::no_allocate), so that the row stream does not evict the tile of the shift
// vector, which the block's other individuals read again from L1 (docs/results/eval.md#row-loads).
__device__ __forceinline__ float4 evo_load_stream4(const float* from)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    float4 v;
    asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(from));
    return v;
#else
    return __ldg(reinterpret_cast<const float4*>(from));  // no eviction priorities before sm_70
#endif
}

template <bool FAST>
__device__ __forceinline__ void evo_load_z(const float* row, const float* shift32, const double* shift64,
                                           const unsigned int* perm, const TilesParams& p, unsigned long long base,
                                           double* z)
{
    if (FAST) {
        float4 xs[2];
#pragma unroll
        for (unsigned int c = 0; c < 2u; ++c) {
            xs[c] = evo_load_stream4(row + base + 4u * c);
        }
        if (p.shift == 1u) {
            float4 ss[2];
#pragma unroll
            for (unsigned int c = 0; c < 2u; ++c) {
                ss[c] = __ldg(reinterpret_cast<const float4*>(shift32 + base + 4u * c));
            }
#pragma unroll
            for (unsigned int c = 0; c < 2u; ++c) {
                z[4 * c + 0] = (double)xs[c].x - (double)ss[c].x;
                z[4 * c + 1] = (double)xs[c].y - (double)ss[c].y;
                z[4 * c + 2] = (double)xs[c].z - (double)ss[c].z;
                z[4 * c + 3] = (double)xs[c].w - (double)ss[c].w;
            }
        } else if (p.shift == 2u) {
#pragma unroll
            for (unsigned int c = 0; c < 2u; ++c) {
                const double2 lo = __ldg(reinterpret_cast<const double2*>(shift64 + base + 4u * c));
                const double2 hi = __ldg(reinterpret_cast<const double2*>(shift64 + base + 4u * c + 2u));
                z[4 * c + 0] = (double)xs[c].x - lo.x;
                z[4 * c + 1] = (double)xs[c].y - lo.y;
                z[4 * c + 2] = (double)xs[c].z - hi.x;
                z[4 * c + 3] = (double)xs[c].w - hi.y;
            }
        } else {
#pragma unroll
            for (unsigned int c = 0; c < 2u; ++c) {
                z[4 * c + 0] = (double)xs[c].x;
                z[4 * c + 1] = (double)xs[c].y;
                z[4 * c + 2] = (double)xs[c].z;
                z[4 * c + 3] = (double)xs[c].w;
            }
        }
    } else {
#pragma unroll
        for (unsigned int j = 0; j < EVO_ITEMS; ++j) {
            const unsigned long long i = base + j;
            z[j] = i < p.terms ? evo_z(row, shift32, shift64, p.shift, evo_coordinate(perm, p, i)) : 0.0;
        }
    }
}

// Where the chunk terms take Griewank's scale 1 / sqrt((i + 1) pi^2) of term i from: none (the other kinds),
// computed in place (`benchmarks_continuous_tiles_griewank_one_row`, blocks of one individual: nothing to share,
// and no registers held for the scales across the loads), or the thread's array `scale`, computed once for the
// block's individuals in registers (docs/results/eval.md#griewank-one-row-kernel).
#define EVO_SCALES_NONE 0
#define EVO_SCALES_INLINE 1
#define EVO_SCALES_ARRAY 2

// The two chunk subtrees of the thread's 8 terms (a: first accumulator, b: second): each the tree of its 4
// adjacent terms; missing terms are the identity of their tree.
template <int KIND, bool FAST, bool REDUCED, int SCALES>
__device__ __forceinline__ void evo_chunk_terms(const float* row, const float* shift32, const double* shift64,
                                                const unsigned int* perm, const TilesParams& p,
                                                unsigned long long base, const double* z, const double* scale,
                                                double* a, double* b)
{
    constexpr bool PRODUCT = KIND == EVO_KIND_GRIEWANK;
#pragma unroll
    for (unsigned int c = 0; c < 2u; ++c) {
        double ta[4];
        double tb[4];
#pragma unroll
        for (unsigned int e = 0; e < 4u; ++e) {
            const unsigned long long i = base + 4u * c + e;
            ta[e] = 0.0;
            tb[e] = PRODUCT ? 1.0 : 0.0;
            if (FAST || i < p.terms) {
                const double sc = SCALES == EVO_SCALES_INLINE  ? evo_griewank_scale(i)
                                  : SCALES == EVO_SCALES_ARRAY ? scale[4u * c + e]
                                                               : 1.0;
                evo_term<KIND, REDUCED>(row, shift32, shift64, perm, p, i, z[4 * c + e], sc, &ta[e], &tb[e]);
            }
        }
        a[c] = (ta[0] + ta[1]) + (ta[2] + ta[3]);
        b[c] = PRODUCT ? (tb[0] * tb[1]) * (tb[2] * tb[3]) : (tb[0] + tb[1]) + (tb[2] + tb[3]);
    }
}

// The warp tree over the 32 lanes' aligned subtrees (offsets 1 .. 16: lane 0 ends with the pairwise tree of
// all 32; the adds are unconditional, lanes that are not multiples of 2 off compute values that no later level
// of lane 0 reads), stored by lane 0 in the block's slot (item, warp); the second accumulator at
// EVO_MAX_ITEMS * EVO_MAX_WARPS (a product for Griewank) only for Griewank and Ackley, the kinds that have
// one (the others leave it unwritten; `evo_tile_items_store` reads it for those two only).
template <int KIND>
__device__ __forceinline__ void evo_warp_tree_store(double ta, double tb, unsigned int item, double* scratch)
{
    constexpr bool PRODUCT = KIND == EVO_KIND_GRIEWANK;
    constexpr bool TWO = KIND == EVO_KIND_GRIEWANK || KIND == EVO_KIND_ACKLEY;
#pragma unroll
    for (unsigned int off = 1; off < 32u; off <<= 1) {
        ta = ta + __shfl_down_sync(EVO_FULL_MASK, ta, off);
        if (TWO) {
            const double other = __shfl_down_sync(EVO_FULL_MASK, tb, off);
            tb = PRODUCT ? tb * other : tb + other;
        }
    }
    const unsigned int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31u) == 0u) {
        scratch[item * EVO_MAX_WARPS + warp] = ta;
        if (TWO) {
            scratch[EVO_MAX_ITEMS * EVO_MAX_WARPS + item * EVO_MAX_WARPS + warp] = tb;
        }
    }
}

// One row's 8 coordinates of the thread (evo_tile_rows): its terms, the thread's aligned subtree of 8 and the
// warp's of 256, stored as item `item`.
template <int KIND, bool FAST, int SCALES>
__device__ __forceinline__ void evo_tile_row(const float* row, const float* shift32, const double* shift64,
                                             const unsigned int* perm, const TilesParams& p, unsigned long long base,
                                             const double* scale, unsigned int item, double* scratch)
{
    constexpr bool PRODUCT = KIND == EVO_KIND_GRIEWANK;
    double z[EVO_ITEMS];
    evo_load_z<FAST>(row, shift32, shift64, perm, p, base, z);
    double a[2];
    double b[2];
    // One range check for the 8 cosine arguments of the thread instead of one per cosine.
    bool reduced = false;
    if (KIND == EVO_KIND_RASTRIGIN || KIND == EVO_KIND_GRIEWANK) {
        const double limit = KIND == EVO_KIND_RASTRIGIN ? 0x1p49 : 0x1p20;
        reduced = true;
#pragma unroll
        for (unsigned int j = 0; j < EVO_ITEMS; ++j) {
            reduced = reduced & (fabs(z[j]) < limit);
        }
    }
    if (reduced) {
        evo_chunk_terms<KIND, FAST, true, SCALES>(row, shift32, shift64, perm, p, base, z, scale, a, b);
    } else {
        evo_chunk_terms<KIND, FAST, false, SCALES>(row, shift32, shift64, perm, p, base, z, scale, a, b);
    }
    // The thread's aligned subtree of 8 adjacent terms, then the warp's 256 by one shuffle tree.
    double ta = a[0] + a[1];
    double tb = PRODUCT ? b[0] * b[1] : b[0] + b[1];
    evo_warp_tree_store<KIND>(ta, tb, item, scratch);
}

// One tile of 8B terms for the individuals first_row .. last_row - 1 (see the file comment). Lane l of warp w
// computes the 8 adjacent terms of `evo_load_z` in registers; each chunk's 4 terms form an aligned subtree of
// 4 leaves, their sum the thread's aligned 8, and the warp tree over the 32 lanes (offsets 1 .. 16) the warp's
// aligned 256 terms, which lane 0 stores in the block's slot (item, warp), item = item0 + k for the block's
// k-th individual (second accumulator at EVO_MAX_ITEMS * EVO_MAX_WARPS). No barrier: each warp runs through the
// block's items on its own; `evo_tile_items_store` adds the warps' subtrees after one barrier. The shuffle adds
// are unconditional: lanes that are not multiples of 2 off compute values that no later level of lane 0 reads.
// Griewank takes its scales from an array computed once for the block's individuals, or with ONE_ROW (its
// one-row kernel) computes each where the term needs it (EVO_SCALES_INLINE).
template <int KIND, bool FAST, bool ONE_ROW>
__device__ __forceinline__ void evo_tile_rows(const float* x, const float* shift32, const double* shift64,
                                              const unsigned int* perm, const TilesParams& p,
                                              unsigned long long t, unsigned long long first_row,
                                              unsigned long long last_row, unsigned int item0, double* scratch)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned long long base = t * (EVO_ITEMS * blockDim.x) + 256u * warp + 8u * lane;
    // The rows by a stepped pointer and a 32-bit count (at most EVO_MAX_ITEMS rows): fewer 64-bit address
    // products in the loop. Each row is loaded when its turn comes: staging the next rows in shared memory or a
    // register double buffer lost (docs/results/eval.md#row-loads, #tried-and-not-kept).
    const unsigned int count = (unsigned int)(last_row - first_row);
    const float* row = x + first_row * p.dimension;
    constexpr int SCALES = KIND != EVO_KIND_GRIEWANK ? EVO_SCALES_NONE
                           : ONE_ROW                  ? EVO_SCALES_INLINE
                                                      : EVO_SCALES_ARRAY;
    // Griewank's scales of the thread's terms, once for the block's individuals (EVO_SCALES_ARRAY only).
    double scale[EVO_ITEMS];
    if (SCALES == EVO_SCALES_ARRAY) {
#pragma unroll
        for (unsigned int j = 0; j < EVO_ITEMS; ++j) {
            const unsigned long long i = base + j;
            scale[j] = FAST || i < p.terms ? evo_griewank_scale(i) : 1.0;
        }
    }
    for (unsigned int k = 0; k < count; ++k, row += p.dimension) {
        evo_tile_row<KIND, FAST, SCALES>(row, shift32, shift64, perm, p, base, scale, item0 + k, scratch);
    }
}

// The small-row variant of `evo_tile_rows` (p.items == 1, for rows of at most B terms): one tile of B terms,
// lane l of warp w holds the single term t B + 32 w + l, and the warp tree over the 32 lanes gives the warp's
// aligned 32 terms. The same canonical tree as the 8-term lanes (aligned power-of-two subtrees combined
// pairwise; missing terms are the identity), the same bits; a lane's one term instead of eight shortens the
// dependent chain of the expensive terms (sine, cosine, exponential) when a row has few terms.
template <int KIND>
__device__ __forceinline__ void evo_tile_rows_single(const float* x, const float* shift32, const double* shift64,
                                                     const unsigned int* perm, const TilesParams& p,
                                                     unsigned long long t, unsigned long long first_row,
                                                     unsigned long long last_row, unsigned int item0,
                                                     double* scratch)
{
    constexpr bool PRODUCT = KIND == EVO_KIND_GRIEWANK;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned long long i = t * blockDim.x + 32u * warp + lane;
    const bool present = i < p.terms;
    const double scale = KIND == EVO_KIND_GRIEWANK && present ? evo_griewank_scale(i) : 1.0;
    for (unsigned long long r = first_row; r < last_row; ++r) {
        const float* row = x + r * p.dimension;
        double ta = 0.0;
        double tb = PRODUCT ? 1.0 : 0.0;
        if (present) {
            const double z = evo_z(row, shift32, shift64, p.shift, evo_coordinate(perm, p, i));
            evo_term<KIND, false>(row, shift32, shift64, perm, p, i, z, scale, &ta, &tb);
        }
        evo_warp_tree_store<KIND>(ta, tb, item0 + (unsigned int)(r - first_row), scratch);
    }
}

// The fitness from the roots of both accumulators' trees (`combine`: 0 sum, 1 Griewank, 2 Ackley over n
// coordinates, 3 Salomon), plus `bias` when add_bias is 1: the finish kernel's last step, and the tiles kernels'
// for rows of one tile.
__device__ __forceinline__ double evo_finish_combine(unsigned int combine, unsigned long long n, unsigned int add_bias,
                                                     double bias, double a, double b)
{
    double value = a;
    if (combine == 1u) {
        value = evo_griewank_combine(a, b);
    } else if (combine == 2u) {
        value = evo_ackley_combine(n, a, b);
    } else if (combine == 3u) {
        value = evo_salomon_combine(a);
    }
    if (add_bias == 1u) {
        value = value + bias;
    }
    return value;
}

// After the block's barrier: warp w takes the items w, w + warps, ...: the tree of the B/32 warp subtrees of
// the item (the tile's canonical tree, as evo_core::reduce), written to
// partials[2 (r tiles + evo_leaf_slot(t, tiles)) + {0, 1}], or, with p.finish (one tile per individual), the
// final fitness to partials[r].
// Items are tile-major: item = (t - first_tile) * row_count + r - first_row.
template <int KIND>
__device__ __forceinline__ void evo_tile_items_store(double* partials, const double* scratch, const TilesParams& p,
                                                     unsigned long long tiles, unsigned long long first_tile,
                                                     unsigned int tile_count, unsigned long long first_row,
                                                     unsigned int row_count)
{
    constexpr bool PRODUCT = KIND == EVO_KIND_GRIEWANK;
    constexpr bool TWO = KIND == EVO_KIND_GRIEWANK || KIND == EVO_KIND_ACKLEY;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    const unsigned int items = tile_count * row_count;
    for (unsigned int item = warp; item < items; item += warps) {
        double ta = lane < warps ? scratch[item * EVO_MAX_WARPS + lane] : 0.0;
        double tb = 0.0;
        if (TWO) {
            tb = lane < warps ? scratch[EVO_MAX_ITEMS * EVO_MAX_WARPS + item * EVO_MAX_WARPS + lane]
                              : (PRODUCT ? 1.0 : 0.0);
        }
        for (unsigned int off = 1; off < warps; off <<= 1) {
            ta = ta + __shfl_down_sync(EVO_FULL_MASK, ta, off);
            if (TWO) {
                const double other = __shfl_down_sync(EVO_FULL_MASK, tb, off);
                tb = PRODUCT ? tb * other : tb + other;
            }
        }
        if (lane == 0u) {
            const unsigned long long t = first_tile + item / row_count;
            const unsigned long long r = first_row + item % row_count;
            if (p.finish == 1u) {
                // The finish kernel's arithmetic on one tile: its trees add the identity to the lone partial
                // (x + 0.0, which turns -0.0 into +0.0; a product's x * 1.0 changes nothing), then combine.
                const double a = ta + 0.0;
                const double b = PRODUCT ? tb : tb + 0.0;
                partials[r] = evo_finish_combine(p.combine, p.n, p.add_bias, p.bias, a, b);
            } else {
                const unsigned long long slot = r * tiles + evo_leaf_slot(t, tiles);
                partials[2 * slot] = ta;
                partials[2 * slot + 1] = tb;
            }
        }
    }
}

// The part of the tiles grid one block owns (`evo_tiles`, `benchmarks_continuous_prefix_squares`): the linear
// grid runs the groups of individuals fastest, so the blocks of one tile of all individuals run together and
// the tile of the shift vector is read from memory once and from L2 for the other individuals; a block takes
// `tile_group` consecutive tiles of `group` consecutive individuals (launch.rs). `tile` is a power of two (the
// launcher's block sizes) and rows < 2^31 (checked there). `vector`: every row of the group and the shift are
// 16-byte aligned (x aligned, D a multiple of 4), so whole tiles may take the float4 path.
struct EvoBlockTiles {
    unsigned long long tiles;       // tiles per individual
    unsigned long long first_tile;
    unsigned long long last_tile;   // one past the block's last tile
    unsigned long long first_row;
    unsigned long long last_row;    // one past the block's last individual
    unsigned int row_count;
    bool vector;
};

__device__ __forceinline__ EvoBlockTiles evo_block_tiles(const TilesParams& p, unsigned int tile, const float* x,
                                                         const float* shift32, const double* shift64)
{
    EvoBlockTiles b;
    const unsigned int tile_log2 = 31u - __clz(tile);
    b.tiles = (p.terms + tile - 1) >> tile_log2;
    b.tiles = b.tiles > 0 ? b.tiles : 1;
    const unsigned int rows = (unsigned int)p.rows;
    const unsigned int groups = p.group == 1u ? rows : (rows + p.group - 1u) / p.group;
    const unsigned int g = blockIdx.x % groups;
    b.first_tile = (unsigned long long)(blockIdx.x / groups) * p.tile_group;
    b.last_tile = b.first_tile + p.tile_group < b.tiles ? b.first_tile + p.tile_group : b.tiles;
    b.first_row = (unsigned long long)g * p.group;
    b.last_row = b.first_row + p.group < p.rows ? b.first_row + p.group : p.rows;
    b.row_count = (unsigned int)(b.last_row - b.first_row);
    const bool aligned_rows = (reinterpret_cast<unsigned long long>(x) & 15ull) == 0ull && (p.dimension & 3ull) == 0ull;
    const bool aligned_shift = p.shift == 0u ||
                               (p.shift == 1u && (reinterpret_cast<unsigned long long>(shift32) & 15ull) == 0ull) ||
                               (p.shift == 2u && (reinterpret_cast<unsigned long long>(shift64) & 15ull) == 0ull);
    b.vector = aligned_rows && aligned_shift;
    return b;
}

template <int KIND, bool ONE_ROW = false>
__device__ __forceinline__ void evo_tiles(const float* x, const float* shift32, const double* shift64,
                                          const unsigned int* perm, double* partials, const TilesParams& p)
{
    __shared__ double scratch[2 * EVO_MAX_ITEMS * EVO_MAX_WARPS];
    evo_wait_previous_grid();
    const unsigned int tile = (p.items == 1u ? 1u : EVO_ITEMS) * blockDim.x;
    const EvoBlockTiles b = evo_block_tiles(p, tile, x, shift32, shift64);
    for (unsigned long long t = b.first_tile; t < b.last_tile; ++t) {
        // The vector path also needs the tile inside the terms and no permutation; Rosenbrock's term reads the
        // next coordinate itself.
        const bool fast = KIND != EVO_KIND_ROSENBROCK && p.permuted == 0u && b.vector && (t + 1) * tile <= p.terms;
        const unsigned int item0 = (unsigned int)(t - b.first_tile) * b.row_count;
        if (p.items == 1u) {
            evo_tile_rows_single<KIND>(x, shift32, shift64, perm, p, t, b.first_row, b.last_row, item0, scratch);
        } else if (fast) {
            evo_tile_rows<KIND, true, ONE_ROW>(x, shift32, shift64, perm, p, t, b.first_row, b.last_row, item0,
                                               scratch);
        } else {
            evo_tile_rows<KIND, false, ONE_ROW>(x, shift32, shift64, perm, p, t, b.first_row, b.last_row, item0,
                                                scratch);
        }
    }
    __syncthreads();
    evo_tile_items_store<KIND>(partials, scratch, p, b.tiles, b.first_tile, (unsigned int)(b.last_tile - b.first_tile),
                               b.first_row, b.row_count);
}

extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_tiles_sphere(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_SPHERE>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void EVO_TILES_BOUNDS_RASTRIGIN benchmarks_continuous_tiles_rastrigin(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_RASTRIGIN>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_tiles_step(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_STEP>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_tiles_schwefel(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_SCHWEFEL>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_tiles_discus(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_DISCUS>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_tiles_sum_squares(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_SUM_SQUARES>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_tiles_elliptic(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_ELLIPTIC>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void EVO_TILES_BOUNDS_GRIEWANK benchmarks_continuous_tiles_griewank(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_GRIEWANK>(x, shift32, shift64, perm, partials, p);
}

// Griewank for blocks of one individual (p.group == 1; correct for any group): the scales computed in place
// (EVO_SCALES_INLINE). A kernel of its own so that its registers do not change the allocation of the groups'
// kernel above (docs/results/eval.md#griewank-one-row-kernel).
extern "C" __global__ void EVO_TILES_BOUNDS_GRIEWANK benchmarks_continuous_tiles_griewank_one_row(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_GRIEWANK, true>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_tiles_ackley(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_ACKLEY>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_tiles_rosenbrock(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_ROSENBROCK>(x, shift32, shift64, perm, partials, p);
}


#ifdef EVO_USER_FUNCTION
extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_tiles_user(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_USER>(x, shift32, shift64, perm, partials, p);
}
#endif

// One block per individual: the tree over its `tiles` partial pairs, then the final combination. A segment
// is 8B pairs: thread t takes the 8 adjacent pairs 8t .. 8t + 7 of it (an aligned subtree of 8 leaves; its
// eight 16-byte loads are in flight together, then the pairwise tree in the thread), the block tree gives the
// segment's aligned 8B, and thread 0 combines the segments on a stack; missing pairs and the segment count's
// padding to a power of two are the identity, which is the canonical tree's padding, so the bits do not depend
// on B. The second accumulator's tree runs only for the combinations that read it (Griewank's product,
// Ackley's sum). The launcher picks B so that one segment covers the row where it can (launch::finish_block):
// then the segment's trees are the fitness (a stack of one node, no padding), and the kernel skips the stack.
// Launched overlapping the tiles kernel (Programmatic Dependent Launch): nothing is read or written before
// evo_wait_previous_grid().
#define EVO_FINISH_LEAVES 8u

// The 8 adjacent pairs first .. first + 7 of a row of `tiles` pairs in the evo_leaf_slot layout (first a
// multiple of 8, so all 8 lie in one chunk of 256: transposed, slots base + 32 j, when the chunk is complete,
// else in order); missing pairs are (0, identity_b). Every lane loads 8 pairs, a missing one from
// EVO_FINISH_IDENTITY (its product entry for Griewank), so that the loads issue back to back: no branch, and
// no select of a loaded value that would wait for it before the later loads. SECOND: both accumulators
// (16-byte loads); otherwise the first only (8-byte loads).
__device__ const double2 EVO_FINISH_IDENTITY[2] = {{0.0, 0.0}, {0.0, 1.0}};

template <bool SECOND>
__device__ __forceinline__ void evo_finish_leaves(const double2* row, unsigned long long tiles,
                                                  unsigned long long first, double identity_b, double* a, double* b)
{
    // Leaf first's slot; the next 7 follow 32 apart in a transposed chunk, 1 apart in the last one.
    const unsigned long long base = evo_leaf_slot(first, tiles);
    const unsigned int stride = first < (tiles & ~255ull) ? 32u : 1u;
    // Pairs present in this lane: 0 .. 8 (first may lie beyond the row).
    const unsigned long long left = first < tiles ? tiles - first : 0ull;
    const unsigned int present = left < EVO_FINISH_LEAVES ? (unsigned int)left : EVO_FINISH_LEAVES;
    const double2* identity = &EVO_FINISH_IDENTITY[identity_b == 1.0 ? 1 : 0];
#pragma unroll
    for (unsigned int j = 0; j < EVO_FINISH_LEAVES; ++j) {
        const double2* from = j < present ? row + base + stride * j : identity;
        if (SECOND) {
            const double2 pair = *from;
            a[j] = pair.x;
            b[j] = pair.y;
        } else {
            a[j] = reinterpret_cast<const double*>(from)[0];
            b[j] = identity_b;
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024) benchmarks_continuous_finish(const double* partials, double* fitness, FinishParams p)
{
    __shared__ double scratch[64];
    evo_allow_next_grid();
    evo_wait_previous_grid();
    const bool product = p.combine == 1u;
    const bool second = p.combine == 1u || p.combine == 2u;
    const double identity_b = product ? 1.0 : 0.0;
    const double2* row = reinterpret_cast<const double2*>(partials + 2ull * blockIdx.x * p.tiles);
    // B is a power of two (the launcher checks it): the segment count by a shift.
    const unsigned int segment_log2 = 3u + (31u - __clz(blockDim.x));
    const unsigned long long per_segment = 1ull << segment_log2;
    const unsigned long long segments = (p.tiles + per_segment - 1) >> segment_log2;
    // Thread 0 combines the segments on the stacks when there are several.
    EvoTreeStack<false> stack_a;
    EvoTreeStack<false> stack_b_sum;
    EvoTreeStack<true> stack_b_product;
    if (segments > 1 && threadIdx.x == 0) {
        stack_a.init();
        stack_b_sum.init();
        stack_b_product.init();
    }
    double ta = 0.0;
    double tb = identity_b;
    for (unsigned long long s = 0; s < segments; ++s) {
        double a[EVO_FINISH_LEAVES];
        double b[EVO_FINISH_LEAVES];
        const unsigned long long first = s * per_segment + EVO_FINISH_LEAVES * threadIdx.x;
        if (second) {
            evo_finish_leaves<true>(row, p.tiles, first, identity_b, a, b);
            ta = evo_thread_tree8<false>(a, EVO_FINISH_LEAVES);
            if (product) {
                tb = evo_thread_tree8<true>(b, EVO_FINISH_LEAVES);
                evo_block_tree_pair<true>(&ta, &tb, scratch);
            } else {
                tb = evo_thread_tree8<false>(b, EVO_FINISH_LEAVES);
                evo_block_tree_pair<false>(&ta, &tb, scratch);
            }
        } else {
            evo_finish_leaves<false>(row, p.tiles, first, identity_b, a, b);
            ta = evo_block_tree<false>(evo_thread_tree8<false>(a, EVO_FINISH_LEAVES), scratch);
        }
        if (segments > 1 && threadIdx.x == 0) {
            stack_a.push(ta);
            if (product) {
                stack_b_product.push(tb);
            } else {
                stack_b_sum.push(tb);
            }
        }
    }
    if (threadIdx.x != 0) {
        return;
    }
    if (segments > 1) {
        unsigned long long padded = 1;
        while (padded < segments) {
            padded <<= 1;
        }
        for (unsigned long long s = segments; s < padded; ++s) {
            stack_a.push(0.0);
            if (product) {
                stack_b_product.push(1.0);
            } else {
                stack_b_sum.push(0.0);
            }
        }
        ta = stack_a.node[0];
        tb = product ? stack_b_product.node[0] : stack_b_sum.node[0];
    }
    fitness[blockIdx.x] = evo_finish_combine(p.combine, p.n, p.add_bias, p.bias, ta, tb);
}

// ---- the sum of squared prefix sums (Ridge, Schwefel 1.2): segment summaries, one pass over z ----

// The 8 adjacent shifted coordinates base .. base + 7 of a row for `evo_prefix_squares_rows`; missing terms
// (beyond `terms`) get z = 0. FAST (the 8 inside the row, the row and the shift 16-byte aligned): two float4 of
// x and of the f32 shift (or four double2 of the f64 shift); a warp's two x loads cover 1024 contiguous bytes.
template <bool FAST>
__device__ __forceinline__ void evo_load_z8(const float* row, const float* shift32, const double* shift64,
                                            const TilesParams& p, unsigned long long base, double* z)
{
    if (FAST) {
        const float4 x0 = evo_load_stream4(row + base);
        const float4 x1 = evo_load_stream4(row + base + 4u);
        const float xs[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
        if (p.shift == 1u) {
            const float4 s0 = __ldg(reinterpret_cast<const float4*>(shift32 + base));
            const float4 s1 = __ldg(reinterpret_cast<const float4*>(shift32 + base + 4u));
            const float ss[8] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w};
#pragma unroll
            for (unsigned int j = 0; j < 8u; ++j) {
                z[j] = (double)xs[j] - (double)ss[j];
            }
        } else if (p.shift == 2u) {
#pragma unroll
            for (unsigned int q = 0; q < 4u; ++q) {
                const double2 o = __ldg(reinterpret_cast<const double2*>(shift64 + base + 2u * q));
                z[2 * q] = (double)xs[2 * q] - o.x;
                z[2 * q + 1] = (double)xs[2 * q + 1] - o.y;
            }
        } else {
#pragma unroll
            for (unsigned int j = 0; j < 8u; ++j) {
                z[j] = (double)xs[j];
            }
        }
    } else {
#pragma unroll
        for (unsigned int j = 0; j < 8u; ++j) {
            z[j] = base + j < p.terms ? evo_z(row, shift32, shift64, p.shift, base + j) : 0.0;
        }
    }
}

// The summary of one tile of 8B terms for the individuals first_row .. last_row - 1: lane l of warp w holds
// the 8 adjacent terms 256 w + 8 l .. + 7 of the tile (two leaves of 4, joined in the thread: an aligned
// subtree of 8); the shuffle tree over the 32 lanes gives the warp's aligned 256, which lane 0 stores in the
// block's slot (item, warp), item = item0 + r - first_row; no barrier (see `evo_tile_rows`). FAST (a full,
// aligned tile): the right operand at shuffle offset `off` holds 8 off terms, a constant instead of a shuffled
// count.
template <bool FAST>
__device__ __forceinline__ void evo_prefix_squares_rows(const float* x, const float* shift32, const double* shift64,
                                                        const TilesParams& p, unsigned long long t,
                                                        unsigned long long first_row, unsigned long long last_row,
                                                        unsigned int item0, EvoPrefixSquares* scratch)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned long long base = t * (EVO_ITEMS * blockDim.x) + 256u * warp + 8u * lane;
    for (unsigned long long r = first_row; r < last_row; ++r) {
        const float* row = x + r * p.dimension;
        double z[8];
        evo_load_z8<FAST>(row, shift32, shift64, p, base, z);
        EvoPrefixSquares leaf[2];
#pragma unroll
        for (unsigned int c = 0; c < 2u; ++c) {
            leaf[c] = evo_prefix_squares_empty();
#pragma unroll
            for (unsigned int e = 0; e < EVO_PREFIX_GROUP; ++e) {
                if (FAST || base + EVO_PREFIX_GROUP * c + e < p.terms) {
                    evo_prefix_squares_push(leaf[c], z[EVO_PREFIX_GROUP * c + e]);
                }
            }
        }
        EvoPrefixSquares node;
        if (FAST) {
            node = evo_prefix_squares_join(leaf[0], leaf[1]);
#pragma unroll
            for (unsigned int off = 1; off < 32u; off <<= 1) {
                EvoPrefixSquares other;
                other.count = (double)(2u * EVO_PREFIX_GROUP * off);
                other.total = __shfl_down_sync(EVO_FULL_MASK, node.total, off);
                other.prefix = __shfl_down_sync(EVO_FULL_MASK, node.prefix, off);
                other.square = __shfl_down_sync(EVO_FULL_MASK, node.square, off);
                node = evo_prefix_squares_join(node, other);
            }
        } else {
            node = evo_prefix_squares_then(leaf[0], leaf[1]);
            node = evo_prefix_squares_warp(node, 32u);
        }
        if (lane == 0u) {
            scratch[(item0 + (unsigned int)(r - first_row)) * EVO_MAX_WARPS + warp] = node;
        }
    }
}

// Tile summaries of rows of z = x - shift: nodes[4 (r tiles + evo_leaf_slot(t, tiles)) + 0..3] = (N, A, B, C)
// of tile t (8B terms) of row r; with p.finish (one tile per row), the fitness C (+ bias) of row r to nodes[r] instead. Grid, groups of individuals and groups of tiles as `evo_tiles`; perm is not used. After the
// block's barrier, warp w takes the items w, w + warps, ...: the tree of the B/32 warp summaries of the item
// (an aligned subtree of the canonical tree of evo_benchmarks::prefix_squares).
extern "C" __global__ void EVO_TILES_BOUNDS benchmarks_continuous_prefix_squares(const float* x, const float* shift32,
                                                                               const double* shift64, double* nodes,
                                                                               TilesParams p)
{
    __shared__ EvoPrefixSquares scratch[EVO_MAX_ITEMS * EVO_MAX_WARPS];
    evo_wait_previous_grid();
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    const unsigned int tile = EVO_ITEMS * blockDim.x;
    const EvoBlockTiles b = evo_block_tiles(p, tile, x, shift32, shift64);
    for (unsigned long long t = b.first_tile; t < b.last_tile; ++t) {
        const unsigned int item0 = (unsigned int)(t - b.first_tile) * b.row_count;
        if (b.vector && (t + 1) * tile <= p.terms) {
            evo_prefix_squares_rows<true>(x, shift32, shift64, p, t, b.first_row, b.last_row, item0, scratch);
        } else {
            evo_prefix_squares_rows<false>(x, shift32, shift64, p, t, b.first_row, b.last_row, item0, scratch);
        }
    }
    __syncthreads();
    const unsigned int items = (unsigned int)(b.last_tile - b.first_tile) * b.row_count;
    for (unsigned int item = warp; item < items; item += warps) {
        EvoPrefixSquares s = lane < warps ? scratch[item * EVO_MAX_WARPS + lane] : evo_prefix_squares_empty();
        s = evo_prefix_squares_warp(s, warps);
        if (lane == 0u) {
            const unsigned long long t = b.first_tile + item / b.row_count;
            const unsigned long long r = b.first_row + item % b.row_count;
            if (p.finish == 1u) {
                // One tile per row: finish_prefix's tree over a single summary joins it only with empty
                // ones (`then` returns it unchanged), so the fitness is its C (+ bias), the same bits.
                double value = s.square;
                if (p.add_bias == 1u) {
                    value = value + p.bias;
                }
                nodes[r] = value;
            } else {
                double* out = nodes + 4ull * (r * b.tiles + evo_leaf_slot(t, b.tiles));
                out[0] = s.count;
                out[1] = s.total;
                out[2] = s.prefix;
                out[3] = s.square;
            }
        }
    }
}

// One block per individual: the canonical tree over its `tiles` tile summaries (aligned subtrees of equal
// size), then fitness = C (+ bias). A segment is L B summaries (L = p.leaves, 4 or 8): thread t joins the L
// adjacent summaries L t .. L t + L - 1 of it (an aligned subtree: one or two subtrees of 4, each from loads
// in flight together), the block reduces the segment (warp shuffle trees, one barrier each side of the warps'
// summaries) and thread 0 combines the segments on a stack of completed subtrees; missing summaries and the
// padding to a power of two are empty (`then` returns the other side unchanged), so the bits depend on
// neither B nor L. launch::prefix_finish_leaves and launch::finish_block pick L and B so that one segment
// covers the row where it can (up to 8192 summaries: D = 1.6 10^7 at tiles of 2048 terms). Launched
// overlapping the prefix-squares kernel: nothing is read or written before evo_wait_previous_grid().

// The aligned subtree of the 4 summaries k0 .. k0 + 3 of a row (missing ones empty).
__device__ __forceinline__ EvoPrefixSquares evo_prefix_squares_load4(const double2* row, unsigned long long k0,
                                                                     unsigned long long tiles)
{
    EvoPrefixSquares leaf[4];
#pragma unroll
    for (unsigned int j = 0; j < 4u; ++j) {
        leaf[j] = evo_prefix_squares_empty();
        if (k0 + j < tiles) {
            const unsigned long long slot = evo_leaf_slot(k0 + j, tiles);
            const double2 lo = row[2 * slot];
            const double2 hi = row[2 * slot + 1];
            leaf[j].count = lo.x;
            leaf[j].total = lo.y;
            leaf[j].prefix = hi.x;
            leaf[j].square = hi.y;
        }
    }
    return evo_prefix_squares_then(evo_prefix_squares_then(leaf[0], leaf[1]),
                                   evo_prefix_squares_then(leaf[2], leaf[3]));
}

extern "C" __global__ void __launch_bounds__(1024) benchmarks_continuous_finish_prefix(const double* nodes, double* fitness, FinishParams p)
{
    __shared__ EvoPrefixSquares scratch[32];
    evo_allow_next_grid();
    evo_wait_previous_grid();
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    const double2* row = reinterpret_cast<const double2*>(nodes + 4ull * blockIdx.x * p.tiles);
    EvoPrefixSquares stack[40];
    unsigned int depth = 0;
    unsigned long long pushed = 0;
    const unsigned int leaves = p.leaves == 8u ? 8u : 4u;
    const unsigned long long per_segment = (unsigned long long)leaves * blockDim.x;
    for (unsigned long long first = 0; first < p.tiles; first += per_segment) {
        const unsigned long long k0 = first + (unsigned long long)leaves * threadIdx.x;
        EvoPrefixSquares s = evo_prefix_squares_load4(row, k0, p.tiles);
        if (leaves == 8u) {
            s = evo_prefix_squares_then(s, evo_prefix_squares_load4(row, k0 + 4u, p.tiles));
        }
        s = evo_prefix_squares_warp(s, 32u);
        if (lane == 0u) {
            scratch[warp] = s;
        }
        __syncthreads();
        if (warp == 0u) {
            s = lane < warps ? scratch[lane] : evo_prefix_squares_empty();
            s = evo_prefix_squares_warp(s, warps);
        }
        __syncthreads();
        if (threadIdx.x == 0u) {
            for (unsigned long long closed = pushed; closed & 1ull; closed >>= 1) {
                depth -= 1;
                s = evo_prefix_squares_join(stack[depth], s);
            }
            stack[depth] = s;
            depth += 1;
            pushed += 1;
        }
    }
    if (threadIdx.x != 0u) {
        return;
    }
    EvoPrefixSquares acc = stack[depth - 1];
    for (unsigned int d = depth - 1; d-- > 0;) {
        acc = evo_prefix_squares_join(stack[d], acc);
    }
    double value = acc.square;
    if (p.add_bias == 1u) {
        value = value + p.bias;
    }
    fitness[blockIdx.x] = value;
}

// ---- CEC 2010 groups (F4-F18). Twin: `Cec2010Problem::group_value` and `evaluate_by`. ----

// Scalar arguments of `benchmarks_continuous_cec_groups`; mirrored by `CecGroupsParams`.
struct CecGroupsParams {
    unsigned long long dimension;  // coordinates per individual
    unsigned long long groups;     // groups per individual
    unsigned int base;             // 0 elliptic, 1 Rastrigin, 2 Ackley, 3 Schwefel 1.2, 4 Rosenbrock
    unsigned int rotated;          // 1: multiply the group by M
};
static_assert(sizeof(CecGroupsParams) == 24, "CecGroupsParams must match its Rust mirror");

// Scalar arguments of `benchmarks_continuous_cec_compose`; mirrored by `CecComposeParams`.
struct CecComposeParams {
    unsigned long long individuals;
    unsigned int structure;  // 1: 1e6 g + s (F4-F8); 2: g + s (F9-F13); 3: g (F14-F18)
    unsigned int pad;
};
static_assert(sizeof(CecComposeParams) == 16, "CecComposeParams must match its Rust mirror");

#define EVO_GROUP 50u

// Threads per block of `benchmarks_continuous_cec_groups`: one per leaf of the 64-leaf trees of a group.
#define EVO_GROUP_THREADS 64u

// Row i of the rotated group: the canonical tree of the 50 products z_j M[j][i] padded with +0.0 to 64
// leaves (the tree of next_power_of_two(50) = 64 leaves, as in evo_core::reduce), formed as the tree of
// eight subtrees of eight leaves. z is the group in shared memory; M is read through the read-only cache
// (a warp reads 32 consecutive entries of one row of M per j).
__device__ __forceinline__ double evo_cec_rotated(const double* z, const double* __restrict__ rotation, unsigned int i)
{
    double eights[8];
#pragma unroll
    for (unsigned int b = 0; b < 8u; ++b) {
        double leaves[8];
#pragma unroll
        for (unsigned int q = 0; q < 8u; ++q) {
            const unsigned int j = 8u * b + q;
            leaves[q] = j < EVO_GROUP ? z[j] * __ldg(rotation + j * EVO_GROUP + i) : 0.0;
        }
        eights[b] = evo_thread_tree8<false>(leaves, 8u);
    }
    return evo_thread_tree8<false>(eights, 8u);
}

// One block of 64 threads per (group k, row r), grid (groups, rows): thread i < 50 gathers
// z_i = x[P[50k + i]] - o[P[50k + i]]; after a barrier it forms r_i (the rotated row above, or z_i), and
// every thread its base term(s) (+0.0 from i = n on, n = 50, or 49 for Rosenbrock); the group value is the
// canonical 64-leaf tree of the terms in thread order (`evo_block_tree`); Schwefel 1.2 runs
// `evo_prefix_squares_serial` over r in thread 0. values[2 (r groups + k)] = (value, 0). The same trees in
// the same order as `Cec2010Problem::group_value`, so the same bits.
extern "C" __global__ void __launch_bounds__(EVO_GROUP_THREADS) benchmarks_continuous_cec_groups(const float* x, const double* shift, const unsigned int* perm, const double* rotation, double* values, CecGroupsParams p)
{
    __shared__ double z[EVO_GROUP];
    __shared__ double r[EVO_GROUP];
    __shared__ double scratch[32];
    const unsigned long long group = blockIdx.x;
    const unsigned int i = threadIdx.x;
    const float* row = x + (unsigned long long)blockIdx.y * p.dimension;
    if (i < EVO_GROUP) {
        const unsigned long long c = perm[group * EVO_GROUP + i];
        z[i] = (double)row[c] - shift[c];
    }
    __syncthreads();
    double ri = 0.0;
    if (i < EVO_GROUP) {
        ri = p.rotated == 1u ? evo_cec_rotated(z, rotation, i) : z[i];
        r[i] = ri;
    }
    __syncthreads();
    double value = 0.0;
    if (p.base == 0u) {
        value = evo_block_tree<false>(i < EVO_GROUP ? evo_elliptic_term(i, EVO_GROUP, ri) : 0.0, scratch);
    } else if (p.base == 1u) {
        value = evo_block_tree<false>(i < EVO_GROUP ? evo_rastrigin_term(ri) : 0.0, scratch);
    } else if (p.base == 2u) {
        const double s1 = evo_block_tree<false>(i < EVO_GROUP ? ri * ri : 0.0, scratch);
        const double s2 = evo_block_tree<false>(i < EVO_GROUP ? evo_ackley_cos_term(ri) : 0.0, scratch);
        value = evo_ackley_combine(EVO_GROUP, s1, s2);
    } else if (p.base == 3u) {
        if (i == 0u) {
            value = evo_prefix_squares_serial(r, EVO_GROUP).square;
        }
    } else {
        value = evo_block_tree<false>(i + 1u < EVO_GROUP ? evo_rosenbrock_term(r[i], r[i + 1u]) : 0.0, scratch);
    }
    if (i == 0u) {
        const unsigned long long slot =
            (unsigned long long)blockIdx.y * p.groups + evo_leaf_slot(group, p.groups);
        values[2 * slot] = value;
        values[2 * slot + 1] = 0.0;
    }
}

// fitness[r] from the sum of its group values and its separable part.
extern "C" __global__ void benchmarks_continuous_cec_compose(const double* group_sums, const double* separable, double* fitness, CecComposeParams p)
{
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= p.individuals) {
        return;
    }
    const double g = group_sums[r];
    if (p.structure == 1u) {
        fitness[r] = 1.0e6 * g + separable[r];
    } else if (p.structure == 2u) {
        fitness[r] = g + separable[r];
    } else {
        fitness[r] = g;
    }
}

// ---- the GA paper's 16-bit encoding (evo_benchmarks::ga_functions::decode) ----

// Scalar arguments of `benchmarks_continuous_decode16`; mirrored by `DecodeParams`.
struct DecodeParams {
    unsigned long long variables;  // variables per individual
    unsigned long long words;      // u32 words per individual (ceil(16 variables / 32))
    unsigned long long rows;       // individuals
    double lo;                     // range of every variable
    double hi;
};
static_assert(sizeof(DecodeParams) == 40, "DecodeParams must match its Rust mirror");

// One thread per (individual, variable): k = the 16 bits 16i .. 16i + 15 (first most significant, bit j at
// position j % 32 of word j / 32), x = (float)(lo + (hi - lo) * k / 65535). Twin: `decode_variable`.
extern "C" __global__ void benchmarks_continuous_decode16(const unsigned int* bits, float* x, DecodeParams p)
{
    const unsigned long long index = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= p.rows * p.variables) {
        return;
    }
    const unsigned long long r = index / p.variables;
    const unsigned long long i = index % p.variables;
    const unsigned int* row = bits + r * p.words;
    unsigned int k = 0;
    for (unsigned int b = 0; b < 16u; ++b) {
        const unsigned long long j = i * 16ull + b;
        k = (k << 1) | ((row[j / 32] >> (j % 32)) & 1u);
    }
    x[index] = (float)(p.lo + (p.hi - p.lo) * (double)k / 65535.0);
}
