// Batched evaluation of the continuous test problems of evo-benchmarks (GA paper, MA-SW-Chains shifted
// functions, CEC 2010 F1-F3 / F19 / F20, the DE paper's Rastrigin). Typed launchers:
// crates/benchmarks/src/cuda/launch.rs. CPU twins: crates/benchmarks/src/functions/ and src/tree.rs.
//
// Every fitness is a fixed tree of per-coordinate terms (evo_core::reduce), so the work splits freely:
// 1. `benchmarks_continuous_tiles_*`: a grid of tiles x groups of individuals (linear, group fastest; groups
//    of one individual except Griewank, whose 1/sqrt(i) is shared by the group); for each individual r of its
//    group, the block of tile t with B threads reduces the aligned tile of 8B terms starting at t * 8B of
//    row r: thread k loads the coordinates of terms k, k + B, ... (coalesced), then computes them
//    into shared memory, then thread t adds its 8 adjacent terms and the block adds the threads' sums with
//    the shuffle tree of common/problems/tree.cuh. One or two accumulators (Griewank: sum and product,
//    Ackley: two sums). For moderate D the grid is one block per individual.
// 2. `benchmarks_continuous_finish`: one block per individual reduces its tile partials (aligned subtrees of the same
//    tree, padded to a power of two) and applies the function's final combination and bias.
// Schwefel 1.2 / Ridge use the canonical prefix sum of evo_benchmarks::tree (tiles of 1024, Hillis-Steele
// inside a tile, carries by the same scan of the tile totals): `benchmarks_continuous_scan_totals_*` (tile sums),
// `benchmarks_continuous_scan_f64` (the scan of the totals, recursively from the host), `benchmarks_continuous_scan_squares`
// (scan of z plus carry in registers, one warp per tile, squared, tile partials for `benchmarks_continuous_finish`).
#include "common/problems/functions.cuh"
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
    unsigned int pad;
};
static_assert(sizeof(TilesParams) == 48, "TilesParams must match its Rust mirror");

// Scalar arguments of `benchmarks_continuous_finish`; mirrored by `FinishParams`.
struct FinishParams {
    unsigned long long tiles;  // tile partials per individual
    unsigned long long n;      // Ackley's count of coordinates
    double bias;               // added when add_bias is 1 (fBias of the shifted functions)
    unsigned int combine;      // 0 sum, 1 Griewank, 2 Ackley, 3 Salomon
    unsigned int add_bias;
};
static_assert(sizeof(FinishParams) == 32, "FinishParams must match its Rust mirror");

// Scalar arguments of the scan kernels; mirrored by `ScanParams`.
struct ScanParams {
    unsigned long long len;    // values per row
    unsigned long long tiles;  // tiles of 1024 per row = length of a row of totals
    unsigned int shift;        // as TilesParams::shift (kernels reading x)
    unsigned int has_carries;  // 1: add carries[row * tiles + tile - 1] to tiles > 0
};
static_assert(sizeof(ScanParams) == 24, "ScanParams must match its Rust mirror");

#define EVO_SCAN_TILE 1024u
#define EVO_ITEMS 8u

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

// Padded shared-memory index: one double of padding every 16 keeps the 8-adjacent reads conflict-free.
__device__ __forceinline__ unsigned int evo_pad(unsigned int k) { return k + (k >> 4); }

// Coordinate of term i: i itself, or perm[perm_offset + i] for the permuted parts of CEC 2010.
__device__ __forceinline__ unsigned long long evo_coordinate(const unsigned int* perm, const TilesParams& p,
                                                             unsigned long long i)
{
    return p.permuted == 1u ? (unsigned long long)perm[p.perm_offset + i] : i;
}

// The accumulator values of term i, whose shifted coordinate z has been loaded by the caller.
template <int KIND>
__device__ __forceinline__ void evo_term(const float* row, const float* shift32, const double* shift64,
                                         const unsigned int* perm, const TilesParams& p, unsigned long long i,
                                         double z, double scale, double* a, double* b)
{
    *b = KIND == EVO_KIND_GRIEWANK ? 1.0 : 0.0;
    if (KIND == EVO_KIND_SPHERE) {
        *a = evo_sphere_term(z);
    } else if (KIND == EVO_KIND_RASTRIGIN) {
        *a = evo_rastrigin_term(z);
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
        *b = evo_cos_fma(z * scale);  // scale = evo_griewank_scale(i): evo_griewank_factor(i, z)
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

template <int KIND>
__device__ void evo_tiles(const float* x, const float* shift32, const double* shift64, const unsigned int* perm,
                          double* partials, const TilesParams& p)
{
    constexpr bool PRODUCT = KIND == EVO_KIND_GRIEWANK;
    // Only Griewank and Ackley have a second accumulator; the others write 0 there without computing it.
    constexpr bool TWO = KIND == EVO_KIND_GRIEWANK || KIND == EVO_KIND_ACKLEY;
    extern __shared__ double smem[];
    const unsigned int block = blockDim.x;
    const unsigned int tile = EVO_ITEMS * block;
    double* sa = smem;
    double* sb = smem + evo_pad(tile);
    double* scratch = TWO ? sb + evo_pad(tile) : sb;
    // Linear grid, group of individuals fastest: the blocks of one tile of all individuals run together, so
    // the tile of the shift vector is read from memory once and from L2 for the other individuals. A block
    // evaluates the tile for `group` consecutive individuals (1 except Griewank), one after the other.
    unsigned long long tiles = (p.terms + tile - 1) / tile;
    tiles = tiles > 0 ? tiles : 1;
    const unsigned long long groups = (p.rows + p.group - 1) / p.group;
    const unsigned long long g = blockIdx.x % groups;
    const unsigned long long t = blockIdx.x / groups;
    const unsigned long long first = t * tile;
    // Griewank's 1 / sqrt(i + 1) of the thread's terms, once for the whole group.
    double scale[EVO_ITEMS];
#pragma unroll
    for (unsigned int j = 0; j < EVO_ITEMS; ++j) {
        const unsigned long long i = first + threadIdx.x + j * block;
        scale[j] = KIND == EVO_KIND_GRIEWANK && i < p.terms ? evo_griewank_scale(i) : 1.0;
    }
    const unsigned long long last = (g + 1) * p.group < p.rows ? (g + 1) * p.group : p.rows;
    for (unsigned long long r = g * p.group; r < last; ++r) {
        const float* row = x + r * p.dimension;
        // Terms in a coalesced order (term k = threadIdx.x + j B of the tile); missing terms are the identity
        // of their tree. All EVO_ITEMS coordinates of the thread are loaded before any term is computed, so
        // that EVO_ITEMS loads (of x and of the shift) are in flight at once.
        double z[EVO_ITEMS];
#pragma unroll
        for (unsigned int j = 0; j < EVO_ITEMS; ++j) {
            const unsigned long long i = first + threadIdx.x + j * block;
            z[j] = i < p.terms ? evo_z(row, shift32, shift64, p.shift, evo_coordinate(perm, p, i)) : 0.0;
        }
#pragma unroll
        for (unsigned int j = 0; j < EVO_ITEMS; ++j) {
            const unsigned int k = threadIdx.x + j * block;
            double a = 0.0;
            double b = PRODUCT ? 1.0 : 0.0;
            if (first + k < p.terms) {
                evo_term<KIND>(row, shift32, shift64, perm, p, first + k, z[j], scale[j], &a, &b);
            }
            sa[evo_pad(k)] = a;
            if (TWO) {
                sb[evo_pad(k)] = b;
            }
        }
        __syncthreads();
        double v[EVO_ITEMS];
        for (unsigned int j = 0; j < EVO_ITEMS; ++j) {
            v[j] = sa[evo_pad(EVO_ITEMS * threadIdx.x + j)];
        }
        // The block trees end with a barrier, after every thread has read sa and sb: the next individual may
        // overwrite them.
        const double ta = evo_block_tree<false>(evo_thread_tree8<false>(v, EVO_ITEMS), scratch);
        double tb = 0.0;
        if (TWO) {
            for (unsigned int j = 0; j < EVO_ITEMS; ++j) {
                v[j] = sb[evo_pad(EVO_ITEMS * threadIdx.x + j)];
            }
            tb = evo_block_tree<PRODUCT>(evo_thread_tree8<PRODUCT>(v, EVO_ITEMS), scratch);
        }
        if (threadIdx.x == 0) {
            const unsigned long long slot = r * tiles + t;
            partials[2 * slot] = ta;
            partials[2 * slot + 1] = tb;
        }
    }
}

extern "C" __global__ void benchmarks_continuous_tiles_sphere(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_SPHERE>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void benchmarks_continuous_tiles_rastrigin(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_RASTRIGIN>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void benchmarks_continuous_tiles_step(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_STEP>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void benchmarks_continuous_tiles_schwefel(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_SCHWEFEL>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void benchmarks_continuous_tiles_discus(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_DISCUS>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void benchmarks_continuous_tiles_sum_squares(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_SUM_SQUARES>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void benchmarks_continuous_tiles_elliptic(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_ELLIPTIC>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void benchmarks_continuous_tiles_griewank(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_GRIEWANK>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void benchmarks_continuous_tiles_ackley(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_ACKLEY>(x, shift32, shift64, perm, partials, p);
}

extern "C" __global__ void benchmarks_continuous_tiles_rosenbrock(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_ROSENBROCK>(x, shift32, shift64, perm, partials, p);
}


#ifdef EVO_USER_FUNCTION
extern "C" __global__ void benchmarks_continuous_tiles_user(const float* x, const float* shift32, const double* shift64, const unsigned int* perm, double* partials, TilesParams p)
{
    evo_tiles<EVO_KIND_USER>(x, shift32, shift64, perm, partials, p);
}
#endif

// One block per individual: the tree over its `tiles` partial pairs, then the final combination. Segments
// of 2B partials are reduced by the block and combined by thread 0 on a stack; the segment count is padded
// to a power of two with identity segments, which is the canonical tree's padding.
extern "C" __global__ void benchmarks_continuous_finish(const double* partials, double* fitness, FinishParams p)
{
    __shared__ double scratch[32];
    const bool product = p.combine == 1u;
    const double* row = partials + 2ull * blockIdx.x * p.tiles;
    const unsigned long long per_segment = 2ull * blockDim.x;
    const unsigned long long segments = (p.tiles + per_segment - 1) / per_segment;
    unsigned long long padded = 1;
    while (padded < segments) {
        padded <<= 1;
    }
    EvoTreeStack<false> stack_a;
    EvoTreeStack<false> stack_b_sum;
    EvoTreeStack<true> stack_b_product;
    stack_a.init();
    stack_b_sum.init();
    stack_b_product.init();
    for (unsigned long long s = 0; s < segments; ++s) {
        const unsigned long long left = s * per_segment + 2ull * threadIdx.x;
        const double identity_b = product ? 1.0 : 0.0;
        const double a0 = left < p.tiles ? row[2 * left] : 0.0;
        const double a1 = left + 1 < p.tiles ? row[2 * (left + 1)] : 0.0;
        const double b0 = left < p.tiles ? row[2 * left + 1] : identity_b;
        const double b1 = left + 1 < p.tiles ? row[2 * (left + 1) + 1] : identity_b;
        const double a = evo_block_tree<false>(a0 + a1, scratch);
        double b;
        if (product) {
            b = evo_block_tree<true>(b0 * b1, scratch);
        } else {
            b = evo_block_tree<false>(b0 + b1, scratch);
        }
        if (threadIdx.x == 0) {
            stack_a.push(a);
            if (product) {
                stack_b_product.push(b);
            } else {
                stack_b_sum.push(b);
            }
        }
    }
    if (threadIdx.x != 0) {
        return;
    }
    for (unsigned long long s = segments; s < padded; ++s) {
        stack_a.push(0.0);
        if (product) {
            stack_b_product.push(1.0);
        } else {
            stack_b_sum.push(0.0);
        }
    }
    const double a = stack_a.node[0];
    double value = a;
    if (p.combine == 1u) {
        value = evo_griewank_combine(a, stack_b_product.node[0]);
    } else if (p.combine == 2u) {
        value = evo_ackley_combine(p.n, a, stack_b_sum.node[0]);
    } else if (p.combine == 3u) {
        value = evo_salomon_combine(a);
    }
    if (p.add_bias == 1u) {
        value = value + p.bias;
    }
    fitness[blockIdx.x] = value;
}

// ---- canonical prefix sum (tiles of exactly 1024 values; blockDim.x in {128, 256, 512, 1024}) ----

// Thread t holds the 1024/B adjacent values E t .. E t + E - 1 of `tile` (shared) and the block returns
// their canonical tree in thread 0.
__device__ __forceinline__ double evo_tile_tree(const double* tile, double* scratch)
{
    const unsigned int per_thread = EVO_SCAN_TILE / blockDim.x;
    double v[EVO_ITEMS];
    for (unsigned int j = 0; j < per_thread; ++j) {
        v[j] = tile[evo_pad(per_thread * threadIdx.x + j)];
    }
    return evo_block_tree<false>(evo_thread_tree8<false>(v, per_thread), scratch);
}

// Hillis-Steele over the 1024 values of s0 (ping-pong with s1, unpadded); returns the buffer holding the
// result. Twin: `scan_tile` in evo_benchmarks::tree.
__device__ __forceinline__ double* evo_hillis_steele(double* s0, double* s1)
{
    double* src = s0;
    double* dst = s1;
    for (unsigned int off = 1; off < EVO_SCAN_TILE; off <<= 1) {
        for (unsigned int k = threadIdx.x; k < EVO_SCAN_TILE; k += blockDim.x) {
            dst[k] = k >= off ? src[k] + src[k - off] : src[k];
        }
        __syncthreads();
        double* t = src;
        src = dst;
        dst = t;
    }
    return src;
}

// Tile totals of z (from x and the shift): totals[row * tiles + tile].
extern "C" __global__ void benchmarks_continuous_scan_totals_z(const float* x, const float* shift32, const double* shift64,
                                                    double* totals, ScanParams p)
{
    __shared__ double tile[EVO_SCAN_TILE + EVO_SCAN_TILE / 16];
    __shared__ double scratch[32];
    const unsigned long long first = (unsigned long long)blockIdx.x * EVO_SCAN_TILE;
    const float* row = x + (unsigned long long)blockIdx.y * p.len;
    for (unsigned int k = threadIdx.x; k < EVO_SCAN_TILE; k += blockDim.x) {
        tile[evo_pad(k)] = first + k < p.len ? evo_z(row, shift32, shift64, p.shift, first + k) : 0.0;
    }
    __syncthreads();
    const double total = evo_tile_tree(tile, scratch);
    if (threadIdx.x == 0) {
        totals[(unsigned long long)blockIdx.y * p.tiles + blockIdx.x] = total;
    }
}

// Tile totals of rows of doubles.
extern "C" __global__ void benchmarks_continuous_scan_totals_f64(const double* values, double* totals, ScanParams p)
{
    __shared__ double tile[EVO_SCAN_TILE + EVO_SCAN_TILE / 16];
    __shared__ double scratch[32];
    const unsigned long long first = (unsigned long long)blockIdx.x * EVO_SCAN_TILE;
    const double* row = values + (unsigned long long)blockIdx.y * p.len;
    for (unsigned int k = threadIdx.x; k < EVO_SCAN_TILE; k += blockDim.x) {
        tile[evo_pad(k)] = first + k < p.len ? row[first + k] : 0.0;
    }
    __syncthreads();
    const double total = evo_tile_tree(tile, scratch);
    if (threadIdx.x == 0) {
        totals[(unsigned long long)blockIdx.y * p.tiles + blockIdx.x] = total;
    }
}

// Inclusive canonical prefix sums of rows of doubles: one tile per block, plus the carry of the tiles
// before it (the inclusive scan of the totals, element tile - 1) when has_carries is 1.
extern "C" __global__ void benchmarks_continuous_scan_f64(const double* values, const double* carries, double* out,
                                               ScanParams p)
{
    __shared__ double s0[EVO_SCAN_TILE];
    __shared__ double s1[EVO_SCAN_TILE];
    const unsigned long long first = (unsigned long long)blockIdx.x * EVO_SCAN_TILE;
    const unsigned long long base = (unsigned long long)blockIdx.y * p.len;
    for (unsigned int k = threadIdx.x; k < EVO_SCAN_TILE; k += blockDim.x) {
        s0[k] = first + k < p.len ? values[base + first + k] : 0.0;
    }
    __syncthreads();
    const double* q = evo_hillis_steele(s0, s1);
    const bool carry = p.has_carries == 1u && blockIdx.x > 0;
    const double c = carry ? carries[(unsigned long long)blockIdx.y * p.tiles + blockIdx.x - 1] : 0.0;
    for (unsigned int k = threadIdx.x; k < EVO_SCAN_TILE; k += blockDim.x) {
        if (first + k < p.len) {
            out[base + first + k] = carry ? q[k] + c : q[k];
        }
    }
}

// The Schwefel 1.2 tile partials: S = the tile's Hillis-Steele scan of z plus the carry, leaves S_k^2
// (+0.0 beyond the row), their canonical tree written as partials[2 (row * tiles + tile)] (the second
// accumulator is 0) for `benchmarks_continuous_finish`.
// One warp per tile (blockDim.x / 32 tiles per block), all in registers: lane l holds v[c] = element 32c + l.
// Offsets 1..16 of Hillis-Steele: element k - off is lane (l - off) mod 32 of register c when l >= off, of
// register c - 1 otherwise (one rotation by shuffle per register); offsets 32m: register c - m of the same
// lane. Every element receives the same two operands at every level as in `evo_hillis_steele` and
// `scan_tile` (Rust), so the bits are the same. The tree: the warp tree of each register (aligned subtrees of
// 32), then lane 0's tree of the 32 subtree sums. At most 256 threads per block (the launcher's cap), so
// that the 32 doubles per thread fit in the register file.
extern "C" __global__ void __launch_bounds__(256) benchmarks_continuous_scan_squares(const float* x, const float* shift32, const double* shift64,
                                                   const double* carries, double* partials, ScanParams p)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned long long tile = (unsigned long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (tile >= p.tiles) {
        return;  // the whole warp: the shuffles below see 32 active lanes
    }
    const unsigned long long first = tile * EVO_SCAN_TILE;
    const float* row = x + (unsigned long long)blockIdx.y * p.len;
    double v[32];
#pragma unroll
    for (unsigned int c = 0; c < 32u; ++c) {
        const unsigned long long i = first + 32u * c + lane;
        v[c] = i < p.len ? evo_z(row, shift32, shift64, p.shift, i) : 0.0;
    }
#pragma unroll
    for (unsigned int off = 1; off < 32u; off <<= 1) {
        const unsigned int src = (lane - off) & 31u;
        const bool same = lane >= off;
        // Descending registers: v[c - 1] still holds the previous level when v[c] is updated.
        double rotated = __shfl_sync(EVO_FULL_MASK, v[31], src);
#pragma unroll
        for (unsigned int c = 31; c >= 1u; --c) {
            const double previous = __shfl_sync(EVO_FULL_MASK, v[c - 1], src);
            v[c] = v[c] + (same ? rotated : previous);
            rotated = previous;
        }
        v[0] = same ? v[0] + rotated : v[0];
    }
#pragma unroll
    for (unsigned int m = 1; m < 32u; m <<= 1) {
#pragma unroll
        for (unsigned int c = 31; c >= m; --c) {
            v[c] = v[c] + v[c - m];
        }
    }
    const bool carry = p.has_carries == 1u && tile > 0;
    const double carried = carry ? carries[(unsigned long long)blockIdx.y * p.tiles + tile - 1] : 0.0;
#pragma unroll
    for (unsigned int c = 0; c < 32u; ++c) {
        const double s = carry ? v[c] + carried : v[c];
        const double square = first + 32u * c + lane < p.len ? s * s : 0.0;
        v[c] = evo_warp_tree<false>(square, 32u);
    }
    if (lane == 0u) {
#pragma unroll
        for (unsigned int width = 1; width < 32u; width <<= 1) {
#pragma unroll
            for (unsigned int c = 0; c < 32u; c += 2 * width) {
                v[c] = v[c] + v[c + width];
            }
        }
        const unsigned long long slot = (unsigned long long)blockIdx.y * p.tiles + tile;
        partials[2 * slot] = v[0];
        partials[2 * slot + 1] = 0.0;
    }
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

// The canonical tree of the first n (at most 64) values of v, padded with +0.0 to 64 leaves (the tree of 64
// leaves equals the tree of next_power_of_two(n) leaves plus zero subtrees, as in evo_core::reduce).
__device__ __forceinline__ double evo_local_tree64(const double* v, unsigned int n)
{
    EvoTreeStack<false> stack;
    stack.init();
    unsigned int leaves = 1;
    while (leaves < n) {
        leaves <<= 1;
    }
    for (unsigned int j = 0; j < leaves; ++j) {
        stack.push(j < n ? v[j] : 0.0);
    }
    return stack.node[0];
}

// One thread per group: gather z[P[50k .. 50k + 49]], rotate (row vector times M, each output a canonical
// tree of 50 products), apply the base function of 50 values; values[2 (r groups + k)] = (value, 0).
extern "C" __global__ void benchmarks_continuous_cec_groups(const float* x, const double* shift, const unsigned int* perm, const double* rotation, double* values, CecGroupsParams p)
{
    __shared__ double m[EVO_GROUP * EVO_GROUP];
    for (unsigned int k = threadIdx.x; k < EVO_GROUP * EVO_GROUP; k += blockDim.x) {
        m[k] = p.rotated == 1u ? rotation[k] : 0.0;
    }
    __syncthreads();
    const unsigned long long group = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (group >= p.groups) {
        return;
    }
    const float* row = x + (unsigned long long)blockIdx.y * p.dimension;
    double g[EVO_GROUP];
    for (unsigned int j = 0; j < EVO_GROUP; ++j) {
        const unsigned long long c = perm[group * EVO_GROUP + j];
        g[j] = (double)row[c] - shift[c];
    }
    double r[EVO_GROUP];
    double t[EVO_GROUP];
    for (unsigned int i = 0; i < EVO_GROUP; ++i) {
        if (p.rotated == 1u) {
            for (unsigned int j = 0; j < EVO_GROUP; ++j) {
                t[j] = g[j] * m[j * EVO_GROUP + i];
            }
            r[i] = evo_local_tree64(t, EVO_GROUP);
        } else {
            r[i] = g[i];
        }
    }
    double value = 0.0;
    if (p.base == 0u) {
        for (unsigned int j = 0; j < EVO_GROUP; ++j) {
            t[j] = evo_elliptic_term(j, EVO_GROUP, r[j]);
        }
        value = evo_local_tree64(t, EVO_GROUP);
    } else if (p.base == 1u) {
        for (unsigned int j = 0; j < EVO_GROUP; ++j) {
            t[j] = evo_rastrigin_term(r[j]);
        }
        value = evo_local_tree64(t, EVO_GROUP);
    } else if (p.base == 2u) {
        for (unsigned int j = 0; j < EVO_GROUP; ++j) {
            t[j] = r[j] * r[j];
        }
        const double s1 = evo_local_tree64(t, EVO_GROUP);
        for (unsigned int j = 0; j < EVO_GROUP; ++j) {
            t[j] = evo_ackley_cos_term(r[j]);
        }
        value = evo_ackley_combine(EVO_GROUP, s1, evo_local_tree64(t, EVO_GROUP));
    } else if (p.base == 3u) {
        // Hillis-Steele on 50 values: offsets of 64 and more do not reach below index 50, so this equals the
        // padded 1024-value tile of the canonical prefix sum.
        for (unsigned int off = 1; off < EVO_GROUP; off <<= 1) {
            for (unsigned int j = EVO_GROUP - 1; j >= off; --j) {
                r[j] = r[j] + r[j - off];
            }
        }
        for (unsigned int j = 0; j < EVO_GROUP; ++j) {
            t[j] = r[j] * r[j];
        }
        value = evo_local_tree64(t, EVO_GROUP);
    } else {
        for (unsigned int j = 0; j + 1 < EVO_GROUP; ++j) {
            t[j] = evo_rosenbrock_term(r[j], r[j + 1]);
        }
        value = evo_local_tree64(t, EVO_GROUP - 1);
    }
    const unsigned long long slot = (unsigned long long)blockIdx.y * p.groups + group;
    values[2 * slot] = value;
    values[2 * slot + 1] = 0.0;
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
