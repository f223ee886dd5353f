// The fused path of the `ga` module (kernels/cuda/ga.cu includes it last; not a header of its own: it uses
// ga.cu's parameter struct, stream ids and operators). Split out of ga.cu so that each file holds one engine's
// kernels; one module, the same entry points.
#pragma once

// ---- The fused path (crates/ga/src/cuda/fused.rs, spec ga.md §7.1): every step of G generations in one launch,
// block per run (run r of the launch has seed p.seed + r), the population in dynamic shared memory. Per
// generation s (numbers as in the crate docs):
//   4-7 + elitism: champions and crossover points of generation s, then thread per (slot, word) builds the
//       offspring word (copy, crossover, mutation; elite slots copy the sorted current row and its fitness);
//   2   decode + evaluate: warp per offspring, the canonical trees of evo_core::reduce level by level in a
//       per-warp shared scratch (the same additions in the same order as the CPU, so the same f64 bits);
//   3   sort: the rank of each offspring under the workspace total order (key, then lower index) is its
//       sorted position (unique, so the same permutation as evo_sort::cpu), then the exchange;
//   8   best so far.
// State between launches (global memory, per run): the sorted population and fitness, the best row and
// fitness, and a flag set when a fitness was not finite.
#include "common/problems/functions.cuh"
#include "common/problems/prefix_squares.cuh"
#include "common/sort/key.cuh"

// Scalar arguments of ga_fused_run_u32; mirrored by `GaFusedParams` in crates/ga/src/cuda/launch/fused.rs.
struct GaFusedParams {
    unsigned long long seed;     // run r of this launch uses seed + r
    double lo;                   // decoding range
    double hi;
    unsigned int population;     // N
    unsigned int words;          // W = ceil(L / 32)
    unsigned int bits;           // L
    unsigned int variables;      // n (16 n <= L)
    unsigned int initialise;     // 1: build and evaluate the initial population (step 0) first
    unsigned int first_step;     // the step of the first generation produced by this launch
    unsigned int generations;    // generations produced by this launch
    unsigned int tournament;     // tournament size
    unsigned int elite;          // elite size
    float crossover_rate;        // p_c
    float mutation_rate;         // p_m
    unsigned int function;       // 0..7: GaFunction in the paper's order f1..f8
    unsigned int scratch;        // doubles of evaluation scratch per warp (a power of two >= the terms)
    unsigned int draws;          // generations per run in the precomputed-draw buffers (0: draw in the kernel)
    unsigned int runs;           // ga_fused_draws_u32: runs whose draws it computes
    unsigned int pad;            // keeps the size a multiple of 8
};
static_assert(sizeof(GaFusedParams) == 88, "GaFusedParams must match its Rust mirror (88 bytes)");

// Mutation entries of one offspring in the precomputed-draw buffers: room for all W words, at least
// GA_FUSED_STAGED (the fused kernel stages the first GA_FUSED_STAGED of each row in shared memory).
#define GA_FUSED_STAGED 4u
__device__ __forceinline__ unsigned int ga_fused_entry_capacity(unsigned int words)
{
    return max(words, GA_FUSED_STAGED);
}

#define GA_FN_HYPERSPHERE 0u
#define GA_FN_RIDGE 1u
#define GA_FN_ROSENBROCK 2u
#define GA_FN_STEP 3u
#define GA_FN_GRIEWANK 4u
#define GA_FN_SCHWEFEL 5u
#define GA_FN_RASTRIGIN 6u
#define GA_FN_ACKLEY 7u

__device__ __forceinline__ unsigned int ga_fused_pow2(unsigned int n)
{
    unsigned int p = 1u;
    while (p < n) p <<= 1;
    return p;
}

// Variable v of a row in shared memory, widened to double (as the CPU's f64::from(decode_variable(..))).
__device__ __forceinline__ double ga_fused_z(const unsigned int* row, unsigned int v, const GaFusedParams& p)
{
    return (double)ga_decode_half(row[v >> 1] >> (16u * (v & 1u)), p.lo, p.hi);
}

// The adjacent-pair tree over s[0..leaves) (leaves a power of two). Levels with more than 32 nodes run in
// shared memory, the warp's lanes sharing a level's nodes in chunks of 32, each chunk reading its children
// before writing; the last (at most 32) nodes go to registers, lane l holding node l, and a butterfly of
// shuffles finishes the tree: at distance d every lane combines its node with lane l XOR d's, so each lane
// of an aligned group of 2d holds (lower half) op (upper half), the same bits in every lane since + and * are
// commutative. The same additions (multiplications) as the tree level by level. product: multiply instead of
// add. Returns the root in every lane.
__device__ __forceinline__ double ga_fused_warp_tree(double* s, unsigned int leaves, bool product, unsigned int lane)
{
    unsigned int nodes = leaves;
    for (; nodes > 32u; nodes >>= 1) {
        const unsigned int active = nodes >> 1;
        for (unsigned int base = 0u; base < active; base += 32u) {
            const unsigned int i = base + lane;
            double node = 0.0;
            if (i < active) {
                node = product ? s[2u * i] * s[2u * i + 1u] : s[2u * i] + s[2u * i + 1u];
            }
            __syncwarp();
            if (i < active) s[i] = node;
            __syncwarp();
        }
    }
    // Lanes at or past `nodes` form whole groups of their own at every distance below `nodes`: they never mix
    // into lane 0's group.
    double value = lane < nodes ? s[lane] : 0.0;
    __syncwarp();
    for (unsigned int d = 1u; d < nodes; d <<= 1) {
        const double other = __shfl_xor_sync(0xFFFFFFFFu, value, d);
        value = product ? value * other : value + other;
    }
    return __shfl_sync(0xFFFFFFFFu, value, 0);
}

// The term `which` of variable (or Rosenbrock term) i: 0 the function's main term, 1 the second accumulator
// (Griewank's factor, Ackley's cosine term). Twins: crates/benchmarks/src/functions/*.rs.
__device__ __forceinline__ double ga_fused_term(const unsigned int* row, unsigned int i, unsigned int which,
                                                const GaFusedParams& p)
{
    const double z = ga_fused_z(row, i, p);
    switch (p.function) {
    case GA_FN_HYPERSPHERE: return evo_sphere_term(z);
    case GA_FN_ROSENBROCK: return evo_rosenbrock_term(z, ga_fused_z(row, i + 1u, p));
    case GA_FN_STEP: return evo_step_term(z);
    case GA_FN_GRIEWANK: return which == 0u ? z * z : evo_griewank_factor(i, z);
    case GA_FN_SCHWEFEL: return evo_schwefel_term(z);
    case GA_FN_RASTRIGIN: return evo_rastrigin_term(z);
    case GA_FN_ACKLEY: return which == 0u ? z * z : evo_ackley_cos_term(z);
    default: return z; // Ridge (the prefix sums' input)
    }
}

// Leaf i of an accumulator over `terms` terms: the term, or past `terms` the tree's padding (+0.0 for a sum,
// 1.0 for a product).
__device__ __forceinline__ double ga_fused_leaf(const unsigned int* row, unsigned int i, unsigned int terms,
                                                unsigned int which, bool product, const GaFusedParams& p)
{
    return i < terms ? ga_fused_term(row, i, which, p) : (product ? 1.0 : 0.0);
}

// One accumulator of the function over `terms` terms (the canonical tree over the next power of two of leaves).
// Up to 128 leaves the tree runs in registers: lane l takes leaves m l .. m l + m - 1 (m = leaves / 32, or
// one leaf per lane below 32 leaves), combines them as the tree's lowest levels do (adjacent pairs, then the
// pair of pairs) and the butterfly of ga_fused_warp_tree finishes; more leaves go through shared memory.
__device__ __forceinline__ double ga_fused_accumulate(const unsigned int* row, double* s, unsigned int terms,
                                                      unsigned int which, bool product, const GaFusedParams& p,
                                                      unsigned int lane)
{
    const unsigned int leaves = ga_fused_pow2(terms);
    if (leaves <= 128u) {
        const unsigned int per = leaves > 32u ? leaves / 32u : 1u;
        const unsigned int nodes = leaves > 32u ? 32u : leaves;
        double value = 0.0;
        if (lane < nodes) {
            const unsigned int i = lane * per;
            value = ga_fused_leaf(row, i, terms, which, product, p);
            if (per >= 2u) {
                const double second = ga_fused_leaf(row, i + 1u, terms, which, product, p);
                value = product ? value * second : value + second;
            }
            if (per == 4u) {
                const double third = ga_fused_leaf(row, i + 2u, terms, which, product, p);
                const double fourth = ga_fused_leaf(row, i + 3u, terms, which, product, p);
                const double pair = product ? third * fourth : third + fourth;
                value = product ? value * pair : value + pair;
            }
        }
        for (unsigned int d = 1u; d < nodes; d <<= 1) {
            const double other = __shfl_xor_sync(0xFFFFFFFFu, value, d);
            value = product ? value * other : value + other;
        }
        return __shfl_sync(0xFFFFFFFFu, value, 0);
    }
    for (unsigned int i = lane; i < leaves; i += 32u) s[i] = ga_fused_leaf(row, i, terms, which, product, p);
    __syncwarp();
    return ga_fused_warp_tree(s, leaves, product, lane);
}

// The fitness of one row, computed by one warp with `s` (p.scratch doubles) as scratch; the same value in
// every lane. Twin: GaFunction::evaluate_by (crates/benchmarks/src/ga_functions/problem.rs).
__device__ double ga_fused_evaluate(const unsigned int* row, double* s, const GaFusedParams& p, unsigned int lane)
{
    const unsigned int n = p.variables;
    switch (p.function) {
    case GA_FN_RIDGE: {
        // evo_benchmarks::prefix_squares: leaves of 4 adjacent values; lane l takes `per_lane` consecutive
        // leaves (a power of two, so an aligned subtree, padded with empty leaves), then the shuffle tree over
        // the lanes (lanes beyond the values hold empty summaries, the identity).
        for (unsigned int i = lane; i < n; i += 32u) s[i] = ga_fused_z(row, i, p);
        __syncwarp();
        const unsigned int padded = ga_fused_pow2((n + EVO_PREFIX_GROUP - 1u) / EVO_PREFIX_GROUP);
        const unsigned int per_lane = EVO_PREFIX_GROUP * (padded > 32u ? padded / 32u : 1u);
        const unsigned int first = lane * per_lane;
        const unsigned int count = first < n ? min(per_lane, n - first) : 0u;
        EvoPrefixSquares mine = evo_prefix_squares_serial(s + first, count);
        mine = evo_prefix_squares_warp(mine, 32u);
        __syncwarp();
        return __shfl_sync(0xFFFFFFFFu, mine.square, 0);
    }
    case GA_FN_ROSENBROCK: return ga_fused_accumulate(row, s, n - 1u, 0u, false, p, lane);
    case GA_FN_GRIEWANK: {
        const double sum = ga_fused_accumulate(row, s, n, 0u, false, p, lane);
        const double product = ga_fused_accumulate(row, s, n, 1u, true, p, lane);
        return evo_griewank_combine(sum, product);
    }
    case GA_FN_ACKLEY: {
        const double s1 = ga_fused_accumulate(row, s, n, 0u, false, p, lane);
        const double s2 = ga_fused_accumulate(row, s, n, 1u, false, p, lane);
        return evo_ackley_combine(n, s1, s2);
    }
    default: return ga_fused_accumulate(row, s, n, 0u, false, p, lane);
    }
}

// Evaluates rows first..end of `pop` into fitness and keys (warp per row); raises *status when a value is not
// finite (the CPU engine's error). Ends with a block barrier.
__device__ __forceinline__ void ga_fused_evaluate_rows(const unsigned int* pop, double* fitness,
                                                       unsigned long long* keys, double* scratch,
                                                       unsigned int first, unsigned int end, unsigned int* status,
                                                       const GaFusedParams& p)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    double* s = scratch + (unsigned long long)warp * p.scratch;
    for (unsigned int i = first + warp; i < end; i += warps) {
        const double f = ga_fused_evaluate(pop + (unsigned long long)i * p.words, s, p, lane);
        if (lane == 0u) {
            fitness[i] = f;
            keys[i] = evo_sort_key_f64(f);
            if (!isfinite(f)) *status = 1u;
        }
    }
    __syncthreads();
}

// Step 3 and the best so far, without moving rows: order[r] becomes the row of `next` with rank r under the
// workspace total order (key, then lower index; unique, so the same permutation as evo_sort::cpu), then the
// best row (global; none when best_row is null) and the best fitness (*best_shared) are updated from row
// order[0]. The caller then takes `next` as the current population, read through `order` (the exchange of
// the paper's step 3 happens only when the launch writes its state back). Ends with a block barrier.
__device__ __forceinline__ void ga_fused_sort_record(const unsigned int* next, const double* next_fitness,
                                                     const unsigned long long* keys, unsigned int* order,
                                                     double* best_shared, unsigned int* best_row,
                                                     const GaFusedParams& p)
{
    const unsigned int n = p.population;
    // T = the largest power of two <= min(32, blockDim.x / n) threads count the rank of one offspring, each
    // over every T-th rival, and a shuffle sum over the T adjacent lanes adds the counts (integers: any order).
    unsigned int split = 1u;
    while (split < 32u && 2u * split * n <= blockDim.x) split <<= 1;
    if (split == 1u) {
        for (unsigned int i = threadIdx.x; i < n; i += blockDim.x) {
            const unsigned long long key = keys[i];
            unsigned int r = 0u;
            for (unsigned int j = 0u; j < n; ++j) {
                r += evo_sort_precedes(keys[j], j, key, i) ? 1u : 0u;
            }
            order[r] = i;
        }
    } else {
        // Every thread of the block takes part (the shuffles need whole warps); threads past T n count nothing.
        const unsigned int i = threadIdx.x / split;
        const unsigned int part = threadIdx.x & (split - 1u);
        unsigned int r = 0u;
        if (i < n) {
            const unsigned long long key = keys[i];
            for (unsigned int j = part; j < n; j += split) {
                r += evo_sort_precedes(keys[j], j, key, i) ? 1u : 0u;
            }
        }
        for (unsigned int d = split >> 1; d > 0u; d >>= 1) r += __shfl_xor_sync(0xFFFFFFFFu, r, d);
        if (i < n && part == 0u) order[r] = i;
    }
    __syncthreads();
    const unsigned int first = order[0];
    const bool better = next_fitness[first] < *best_shared;
    __syncthreads();
    if (better) {
        if (best_row != nullptr) {
            const unsigned int* row = next + (unsigned long long)first * p.words;
            for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) best_row[j] = row[j];
        }
        if (threadIdx.x == 0u) *best_shared = next_fitness[first];
    }
    __syncthreads();
}

// The offspring become the current population: the two rows buffers and fitness arrays change roles.
__device__ __forceinline__ void ga_fused_swap(unsigned int** cur, unsigned int** next, double** cur_fitness,
                                              double** next_fitness)
{
    unsigned int* rows = *cur;
    *cur = *next;
    *next = rows;
    double* fitness = *cur_fitness;
    *cur_fitness = *next_fitness;
    *next_fitness = fitness;
}

// G generations of every run of the launch, block per run (blockDim.x a multiple of 32). The block draws the
// champions and crossover points, builds and evaluates the offspring and ranks them. Dynamic shared memory
// (bytes, in this order): 2 N doubles of fitness, N keys, N + ceil(N/2) + N words of champions, points and
// the current population's order, with precomputed draws (p.draws > 0) also N mutation-entry counts and
// 2 GA_FUSED_STAGED N words of staged entries (word indices, then masks), all rounded up to an even count of
// words, warps * p.scratch doubles, 2 N W words of population (the current one, unsorted: sorted position r
// is row order[r], and the one being built; the two change roles every generation, so no row moves for the
// sort); the host computes the same sum (launch::fused_shared_bytes).
//
__device__ __forceinline__ void ga_fused_run(unsigned int* sorted, double* sorted_fitness, unsigned int* best,
                                             double* best_fitness, unsigned int* status,
                                             const unsigned int* selection, const unsigned int* counts,
                                             const uint2* entries, const GaFusedParams& p)
{
    extern __shared__ __align__(16) unsigned char ga_fused_shared[];
    const unsigned int run = blockIdx.x;
    const unsigned long long seed = p.seed + run;
    const unsigned int n = p.population;
    const unsigned int w = p.words;
    double* cur_fitness = (double*)ga_fused_shared;
    double* next_fitness = cur_fitness + n;
    unsigned long long* keys = (unsigned long long*)(next_fitness + n);
    unsigned int* champion = (unsigned int*)(keys + n);
    unsigned int* point = champion + n;
    const unsigned int pairs = (n + 1u) / 2u;
    unsigned int* order = point + pairs;
    const bool drawn = p.draws > 0u;
    unsigned int* mcount = order + n;
    unsigned int* mword = mcount + n;
    unsigned int* mmask = mword + GA_FUSED_STAGED * n;
    const unsigned int small_words = 2u * n + pairs + (drawn ? (1u + 2u * GA_FUSED_STAGED) * n : 0u);
    // The scratch starts on an 8-byte boundary: round the word count up to an even number.
    double* scratch = (double*)(champion + small_words + (small_words & 1u));
    unsigned int* cur = (unsigned int*)(scratch + (unsigned long long)(blockDim.x >> 5) * p.scratch);
    unsigned int* next = cur + (unsigned long long)n * w;
    __shared__ double best_shared;
    __shared__ unsigned int status_shared;
    const unsigned int lo = 0u;
    const unsigned int hi = n;

    unsigned int* run_sorted = sorted + (unsigned long long)run * n * w;
    double* run_fitness = sorted_fitness + (unsigned long long)run * n;
    unsigned int* run_best = best + (unsigned long long)run * w;
    if (threadIdx.x == 0u) {
        status_shared = 0u;
        best_shared = p.initialise ? __longlong_as_double(0x7ff0000000000000ll) : best_fitness[run];
    }
    const unsigned int total = n * w;
    if (p.initialise) {
        // Steps 0-3 and 8 on the random initial population.
        for (unsigned int k = lo * w + threadIdx.x; k < hi * w; k += blockDim.x) {
            const unsigned int i = k / w;
            next[k] = ga_op_init_word(seed, i, k - i * w, p.bits);
        }
        __syncthreads();
        ga_fused_evaluate_rows(next, next_fitness, keys, scratch, lo, hi, &status_shared, p);
        ga_fused_sort_record(next, next_fitness, keys, order, &best_shared, run_best, p);
        ga_fused_swap(&cur, &next, &cur_fitness, &next_fitness);
    } else {
        for (unsigned int k = threadIdx.x; k < total; k += blockDim.x) cur[k] = run_sorted[k];
        for (unsigned int i = threadIdx.x; i < n; i += blockDim.x) {
            cur_fitness[i] = run_fitness[i];
            order[i] = i;
        }
        __syncthreads();
    }
    const unsigned int elite = min(p.elite, n);
    // The (slot, word) sweep over this block's slots without a division per word: thread t starts at word
    // lo W + t and steps by the block, i.e. by blockDim / W rows and blockDim mod W words.
    const unsigned int first_row = lo + threadIdx.x / w;
    const unsigned int first_word = threadIdx.x % w;
    const unsigned int row_step = blockDim.x / w;
    const unsigned int word_step = blockDim.x % w;
    for (unsigned int g = 0u; g < p.generations; ++g) {
        const unsigned int step = p.first_step + g;
        const unsigned long long slot = (unsigned long long)run * p.draws + g;
        const unsigned int capacity = ga_fused_entry_capacity(w);
        // Steps 4 and 6 for this block's slots: the champions and the crossover points of the pairs (0: not
        // crossed; an odd last individual has no partner); drawn here or read with the mutation entries.
        if (drawn) {
            const unsigned int* chosen = selection + slot * (n + pairs);
            for (unsigned int i = lo + threadIdx.x; i < hi; i += blockDim.x) {
                champion[i] = chosen[i];
                mcount[i] = counts[slot * n + i];
                // Loaded whatever the count (the row has room for them): one round trip for all.
                const uint2* row_entries = entries + (slot * n + i) * capacity;
                for (unsigned int e = 0u; e < GA_FUSED_STAGED; ++e) {
                    const uint2 entry = row_entries[e];
                    mword[e * n + i] = entry.x;
                    mmask[e * n + i] = entry.y;
                }
            }
            for (unsigned int q = lo / 2u + threadIdx.x; q < (hi + 1u) / 2u; q += blockDim.x) {
                point[q] = chosen[n + q];
            }
        } else {
            for (unsigned int i = lo + threadIdx.x; i < hi; i += blockDim.x) {
                champion[i] = ga_op_tournament(seed, step, i, n, p.tournament);
            }
            for (unsigned int q = lo / 2u + threadIdx.x; q < (hi + 1u) / 2u; q += blockDim.x) {
                point[q] = 2u * q + 1u < n ? ga_op_crossover_point(seed, step, q, p.bits, p.crossover_rate) : 0u;
            }
        }
        __syncthreads();
        // Steps 5-7 and elitism, thread per (slot, word); sorted position r of the current population is its
        // row order[r].
        unsigned int i = first_row;
        unsigned int j = first_word;
        for (; i < hi; i += row_step, j += word_step) {
            if (j >= w) {
                j -= w;
                ++i;
                if (i >= hi) break;
            }
            unsigned int word;
            if (i < elite) {
                word = cur[order[i] * w + j];
            } else {
                word = cur[order[champion[i]] * w + j];
                const unsigned int c = point[i >> 1];
                if (c != 0u) {
                    // Both rows of the pair exchange the same bits, so each slot applies the same difference.
                    unsigned int first = word;
                    unsigned int second = cur[order[champion[i ^ 1u]] * w + j];
                    ga_op_crossover_word(&first, &second, j, c);
                    word = first;
                }
                if (drawn) {
                    const unsigned int count = mcount[i];
                    for (unsigned int e = 0u; e < min(count, GA_FUSED_STAGED); ++e) {
                        if (mword[e * n + i] == j) word ^= mmask[e * n + i];
                    }
                    if (count > GA_FUSED_STAGED) {
                        const uint2* row_entries = entries + (slot * n + i) * capacity;
                        for (unsigned int e = GA_FUSED_STAGED; e < count; ++e) {
                            const uint2 entry = row_entries[e];
                            if (entry.x == j) word ^= entry.y;
                        }
                    }
                } else if (p.mutation_rate > 0.0f) {
                    word ^= ga_op_mutation_mask(seed, step, i, j, p.bits, p.mutation_rate);
                }
            }
            next[i * w + j] = word;
        }
        for (unsigned int e = lo + threadIdx.x; e < min(elite, hi); e += blockDim.x) {
            const double f = cur_fitness[order[e]];
            next_fitness[e] = f;
            keys[e] = evo_sort_key_f64(f);
        }
        __syncthreads();
        // Step 2 on the offspring (the elite keep their fitness), then steps 3 and 8; the offspring become the
        // current population (its order just computed).
        ga_fused_evaluate_rows(next, next_fitness, keys, scratch, max(lo, elite), hi, &status_shared, p);
        ga_fused_sort_record(next, next_fitness, keys, order, &best_shared, run_best, p);
        ga_fused_swap(&cur, &next, &cur_fitness, &next_fitness);
    }
    // The exchange of step 3, once per launch: the state leaves sorted.
    for (unsigned int k = threadIdx.x; k < total; k += blockDim.x) {
        const unsigned int r = k / w;
        run_sorted[k] = cur[order[r] * w + (k - r * w)];
    }
    for (unsigned int r = threadIdx.x; r < n; r += blockDim.x) run_fitness[r] = cur_fitness[order[r]];
    if (threadIdx.x == 0u) best_fitness[run] = best_shared;
    if (threadIdx.x == 0u && status_shared) status[run] = 1u;
}

// Launch bounds 1024: at most 64 registers, so a block of 1024 threads (the bench's single-run setting: 32
// warps to hide the shared-memory latencies of one SM) always fits.
extern "C" __global__ void __launch_bounds__(1024) ga_fused_run_u32(unsigned int* sorted, double* sorted_fitness, unsigned int* best,
                                            double* best_fitness, unsigned int* status,
                                            const unsigned int* selection, const unsigned int* counts,
                                            const uint2* entries, GaFusedParams p)
{
    ga_fused_run(sorted, sorted_fitness, best, best_fitness, status, selection, counts, entries, p);
}

// ---- The clustered fused path (sm_90): one run per cluster of GA_FUSED_CLUSTER blocks (one SM each), which
// share each generation's work through distributed shared memory (DSMEM). Older architectures compile the
// module without clusters: the cluster helpers trap and the host refuses the clustered engine there (compute
// capability below 9.0).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define GA_HAS_CLUSTERS 0
#else
#define GA_HAS_CLUSTERS 1
#endif
#define GA_FUSED_CLUSTER 8u

// This block's rank in its cluster.
__device__ __forceinline__ unsigned int ga_cluster_rank()
{
#if GA_HAS_CLUSTERS
    unsigned int rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
#else
    __trap();
    return 0u;
#endif
}

// Barrier over every thread of the cluster, with release/acquire ordering of memory (also a block barrier).
// The barriers are .aligned (every thread of a warp executes the same one): each first reconverges its warp.
__device__ __forceinline__ void ga_cluster_sync()
{
#if GA_HAS_CLUSTERS
    __syncwarp();
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    __trap();
#endif
}

// The two halves of ga_cluster_sync: work between them (this block's own) overlaps the other blocks' arrival.
__device__ __forceinline__ void ga_cluster_arrive()
{
#if GA_HAS_CLUSTERS
    __syncwarp();
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#else
    __trap();
#endif
}

__device__ __forceinline__ void ga_cluster_wait()
{
#if GA_HAS_CLUSTERS
    __syncwarp();
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    __trap();
#endif
}

// The shared::cluster address of `local` (this block's shared memory) in block `rank` of the cluster.
__device__ __forceinline__ unsigned int ga_cluster_map(const void* local, unsigned int rank)
{
#if GA_HAS_CLUSTERS
    const unsigned int address = (unsigned int)__cvta_generic_to_shared(local);
    unsigned int remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
    return remote;
#else
    __trap();
    return 0u;
#endif
}

// The 32-bit word at the same shared-memory offset as `local`, in block `rank`. No memory clobber: the loads
// of one thread stay in flight together (what they read was written before a cluster barrier).
__device__ __forceinline__ unsigned int ga_cluster_load_u32(const void* local, unsigned int rank)
{
#if GA_HAS_CLUSTERS
    unsigned int value;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(value) : "r"(ga_cluster_map(local, rank)));
    return value;
#else
    __trap();
    return 0u;
#endif
}

// Stores to the same shared-memory offset as `local` in block `rank` (made visible by the next cluster barrier).
__device__ __forceinline__ void ga_cluster_store_u32(void* local, unsigned int rank, unsigned int value)
{
#if GA_HAS_CLUSTERS
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(ga_cluster_map(local, rank)), "r"(value) : "memory");
#else
    __trap();
#endif
}

__device__ __forceinline__ void ga_cluster_store_u64(void* local, unsigned int rank, unsigned long long value)
{
#if GA_HAS_CLUSTERS
    asm volatile("st.shared::cluster.u64 [%0], %1;" ::"r"(ga_cluster_map(local, rank)), "l"(value) : "memory");
#else
    __trap();
#endif
}

// Asynchronous copies global -> shared (sm_80 and later; complete after ga_async_wait_all, visible to the
// block after the next barrier). Older architectures copy synchronously.
__device__ __forceinline__ void ga_async_copy_u32(unsigned int* to, const unsigned int* from)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"((unsigned int)__cvta_generic_to_shared(to)),
                 "l"(__cvta_generic_to_global(from)) : "memory");
#else
    *to = *from;
#endif
}

__device__ __forceinline__ void ga_async_copy_u64(uint2* to, const uint2* from)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"((unsigned int)__cvta_generic_to_shared(to)),
                 "l"(__cvta_generic_to_global(from)) : "memory");
#else
    *to = *from;
#endif
}

__device__ __forceinline__ void ga_async_wait_all()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// Slots per block of C (an even count, so no crossover pair straddles two blocks), and the slots [*lo, *hi)
// that block `rank` builds, evaluates, ranks and keeps. Row k of a population lives in block k / per, at row
// k - (k / per) per of that block's buffer.
template <unsigned int C>
__device__ __forceinline__ unsigned int ga_fused_slice_size(unsigned int n)
{
    return ((n + 2u * C - 1u) / (2u * C)) * 2u;
}

template <unsigned int C>
__device__ __forceinline__ void ga_fused_slice(unsigned int n, unsigned int rank, unsigned int* lo, unsigned int* hi)
{
    const unsigned int per = ga_fused_slice_size<C>(n);
    *lo = min(n, rank * per);
    *hi = min(n, *lo + per);
}

// Word j of row `row` of the population held in `rows` (each block its slice, per rows of w words), read from
// the block that holds it.
__device__ __forceinline__ unsigned int ga_cluster_row_word(const unsigned int* rows, unsigned int row, unsigned int j,
                                                            unsigned int per, unsigned int w)
{
    const unsigned int owner = row / per;
    return ga_cluster_load_u32(rows + (row - owner * per) * w + j, owner);
}

// The shared-memory state of one block of the clustered kernel.
struct GaClusterShared {
    double* fitness;          // [2][N]: the fitness of every row of the current population, then of the next
    unsigned long long* keys; // [N]: the offspring's sort keys
    uint2* entries;           // [2][per * GA_FUSED_STAGED]: staged mutation entries (precomputed draws only)
    double* scratch;          // [warps][p.scratch]: evaluation scratch
    unsigned int* order;      // [N]: order[r] = the row of sorted position r of the current population
    unsigned int* rank_of;    // [per]: the sorted position of each row of this block's slice
    unsigned int* champion;   // [2][per]: staged champions of the slice's slots
    unsigned int* point;      // [2][per / 2]: staged crossover points of the slice's pairs
    unsigned int* count;      // [2][per]: staged mutation-entry counts (precomputed draws only)
    unsigned int* rows;       // [2][per * W]: this block's slice of the current population, then of the next
};

// Step 4 and 6 draws of generation g (of the launch) for the block's slots [lo, lo + size), into staging buffer
// b: with precomputed draws, asynchronous copies of the champions, points, mutation-entry counts and first
// GA_FUSED_STAGED entries (one L2 round trip, waited for before the cluster barrier that precedes their use);
// else drawn here.
__device__ __forceinline__ void ga_cluster_stage(const GaClusterShared& s, unsigned int g, unsigned int b,
                                                 unsigned int lo, unsigned int size, unsigned int per,
                                                 const unsigned int* selection, const unsigned int* counts,
                                                 const uint2* entries, unsigned int run, const GaFusedParams& p)
{
    const unsigned int n = p.population;
    const unsigned int pairs = (n + 1u) / 2u;
    unsigned int* champion = s.champion + b * per;
    unsigned int* point = s.point + b * (per / 2u);
    if (p.draws > 0u) {
        const unsigned long long slot = (unsigned long long)run * p.draws + g;
        const unsigned int capacity = ga_fused_entry_capacity(p.words);
        const unsigned int* chosen = selection + slot * (n + pairs);
        unsigned int* count = s.count + b * per;
        uint2* staged = s.entries + b * per * GA_FUSED_STAGED;
        for (unsigned int u = threadIdx.x; u < size; u += blockDim.x) {
            const unsigned int i = lo + u;
            ga_async_copy_u32(champion + u, chosen + i);
            ga_async_copy_u32(count + u, counts + slot * n + i);
            // Copied whatever the count (the row has room for them).
            const uint2* row_entries = entries + (slot * n + i) * capacity;
            for (unsigned int e = 0u; e < GA_FUSED_STAGED; ++e) {
                ga_async_copy_u64(staged + u * GA_FUSED_STAGED + e, row_entries + e);
            }
        }
        for (unsigned int v = threadIdx.x; v < (size + 1u) / 2u; v += blockDim.x) {
            ga_async_copy_u32(point + v, chosen + n + lo / 2u + v);
        }
    } else {
        const unsigned long long seed = p.seed + run;
        const unsigned int step = p.first_step + g;
        for (unsigned int u = threadIdx.x; u < size; u += blockDim.x) {
            champion[u] = ga_op_tournament(seed, step, lo + u, n, p.tournament);
        }
        for (unsigned int v = threadIdx.x; v < (size + 1u) / 2u; v += blockDim.x) {
            const unsigned int q = lo / 2u + v;
            point[v] = 2u * q + 1u < n ? ga_op_crossover_point(seed, step, q, p.bits, p.crossover_rate) : 0u;
        }
    }
}

// Step 7 on word j of slot i (local slot u) in generation g of the launch: the staged mutation entries of staging buffer b (and the rest
// from global memory), or drawn here.
__device__ __forceinline__ unsigned int ga_cluster_mutate(unsigned int word, const GaClusterShared& s, unsigned int b,
                                                          unsigned int u, unsigned int i, unsigned int j,
                                                          unsigned int per, const uint2* entries,
                                                          unsigned long long slot, unsigned long long seed,
                                                          unsigned int g, const GaFusedParams& p)
{
    if (p.draws > 0u) {
        const unsigned int count = s.count[b * per + u];
        const uint2* staged = s.entries + (b * per + u) * GA_FUSED_STAGED;
        for (unsigned int e = 0u; e < min(count, GA_FUSED_STAGED); ++e) {
            if (staged[e].x == j) word ^= staged[e].y;
        }
        if (count > GA_FUSED_STAGED) {
            const uint2* row_entries = entries + (slot * p.population + i) * ga_fused_entry_capacity(p.words);
            for (unsigned int e = GA_FUSED_STAGED; e < count; ++e) {
                const uint2 entry = row_entries[e];
                if (entry.x == j) word ^= entry.y;
            }
        }
    } else if (p.mutation_rate > 0.0f) {
        word ^= ga_op_mutation_mask(seed, p.first_step + g, i, j, p.bits, p.mutation_rate);
    }
    return word;
}

// Steps 5-7 and elitism for the pairs of the slice [lo, lo + size), thread per (pair, word): the champions'
// words (read from the blocks that hold them; sorted position r of the current population is row order[r]),
// crossed, mutated, or for elite slots the sorted current row unchanged, into this block's `next` rows.
__device__ __forceinline__ void ga_cluster_build(const GaClusterShared& s, const unsigned int* cur, unsigned int* next,
                                                 unsigned int g, unsigned int lo, unsigned int size,
                                                 unsigned int per, unsigned int elite, const uint2* entries,
                                                 unsigned int run, const GaFusedParams& p)
{
    const unsigned int w = p.words;
    const unsigned int b = g & 1u;
    const unsigned int* champion = s.champion + b * per;
    const unsigned int* point = s.point + b * (per / 2u);
    const unsigned long long slot = (unsigned long long)run * p.draws + g;
    const unsigned long long seed = p.seed + run;
    const unsigned int items = ((size + 1u) / 2u) * w;
    for (unsigned int item = threadIdx.x; item < items; item += blockDim.x) {
        const unsigned int v = item / w;
        const unsigned int j = item - v * w;
        const unsigned int u = 2u * v;
        const unsigned int i = lo + u;
        const bool partner = u + 1u < size;
        // Every remote load first, so they are in flight together.
        unsigned int first = ga_cluster_row_word(cur, s.order[champion[u]], j, per, w);
        unsigned int second = partner ? ga_cluster_row_word(cur, s.order[champion[u + 1u]], j, per, w) : 0u;
        const unsigned int elite_first = i < elite ? ga_cluster_row_word(cur, s.order[i], j, per, w) : 0u;
        const unsigned int elite_second =
            partner && i + 1u < elite ? ga_cluster_row_word(cur, s.order[i + 1u], j, per, w) : 0u;
        const unsigned int c = point[v];
        // Both rows of the pair exchange the same bits (slot i + 1 is the pair's second row).
        if (c != 0u) ga_op_crossover_word(&first, &second, j, c);
        // One mutation site for both slots (half the code, fewer registers).
#pragma unroll 1
        for (unsigned int t = 0u; t < (partner ? 2u : 1u); ++t) {
            const unsigned int word = t == 0u ? first : second;
            next[(u + t) * w + j] = i + t < elite ? (t == 0u ? elite_first : elite_second)
                                                  : ga_cluster_mutate(word, s, b, u + t, i + t, j, per, entries, slot,
                                                                      seed, g, p);
        }
    }
}

// Step 2 on the slice's offspring (elite slots take the fitness of the row they copied), warp per offspring;
// each fitness and sort key goes to every block of the cluster (visible after the next cluster barrier).
__device__ __forceinline__ void ga_cluster_evaluate(const GaClusterShared& s, const unsigned int* next,
                                                    const double* cur_fitness, double* next_fitness,
                                                    unsigned int lo, unsigned int size, unsigned int elite,
                                                    unsigned int* status, const GaFusedParams& p)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    double* scratch = s.scratch + (unsigned long long)warp * p.scratch;
    for (unsigned int u = warp; u < size; u += warps) {
        const unsigned int i = lo + u;
        double f;
        if (i < elite) {
            f = cur_fitness[s.order[i]];
        } else {
            f = ga_fused_evaluate(next + (unsigned long long)u * p.words, scratch, p, lane);
            if (lane == 0u && !isfinite(f)) *status = 1u;
        }
        if (lane < GA_FUSED_CLUSTER) {
            ga_cluster_store_u64(next_fitness + i, lane, (unsigned long long)__double_as_longlong(f));
            ga_cluster_store_u64(s.keys + i, lane, evo_sort_key_f64(f));
        }
    }
}

// Step 3 for the slice's offspring: the rank of each under the workspace total order (key, then lower index;
// unique, so the same permutation as evo_sort::cpu) over all N keys, counted by T threads per offspring (T the
// largest power of two <= 32 with T size <= blockDim) and summed by shuffles; order[rank] = row goes to every
// block of the cluster (visible after the next cluster barrier), the rank to rank_of.
__device__ __forceinline__ void ga_cluster_sort(const GaClusterShared& s, unsigned int lo, unsigned int size,
                                                unsigned int n)
{
    unsigned int split = 1u;
    while (split < 32u && 2u * split * size <= blockDim.x) split <<= 1;
    if (split == 1u) {
        for (unsigned int u = threadIdx.x; u < size; u += blockDim.x) {
            const unsigned int i = lo + u;
            const unsigned long long key = s.keys[i];
            unsigned int r = 0u;
            for (unsigned int j = 0u; j < n; ++j) r += evo_sort_precedes(s.keys[j], j, key, i) ? 1u : 0u;
            s.rank_of[u] = r;
            for (unsigned int q = 0u; q < GA_FUSED_CLUSTER; ++q) ga_cluster_store_u32(s.order + r, q, i);
        }
    } else {
        // Every thread of the block takes part (the shuffles need whole warps); threads past T size count nothing.
        const unsigned int u = threadIdx.x / split;
        const unsigned int part = threadIdx.x & (split - 1u);
        const unsigned int i = lo + u;
        unsigned int r = 0u;
        if (u < size) {
            const unsigned long long key = s.keys[i];
            for (unsigned int j = part; j < n; j += split) r += evo_sort_precedes(s.keys[j], j, key, i) ? 1u : 0u;
        }
        for (unsigned int d = split >> 1; d > 0u; d >>= 1) r += __shfl_xor_sync(0xFFFFFFFFu, r, d);
        if (u < size) {
            if (part == 0u) s.rank_of[u] = r;
            for (unsigned int q = part; q < GA_FUSED_CLUSTER; q += split) ga_cluster_store_u32(s.order + r, q, i);
        }
    }
}

// Step 8 after a cluster barrier that completed the order: every thread of every block tracks the same best
// fitness (*best, a register); the block holding the new best row writes it.
__device__ __forceinline__ void ga_cluster_record(const GaClusterShared& s, const unsigned int* rows,
                                                  const double* fitness, unsigned int lo, unsigned int hi,
                                                  double* best, unsigned int* best_row, unsigned int w)
{
    const unsigned int first = s.order[0];
    const double f = fitness[first];
    if (f < *best) {
        *best = f;
        if (first >= lo && first < hi) {
            for (unsigned int j = threadIdx.x; j < w; j += blockDim.x) best_row[j] = rows[(first - lo) * w + j];
        }
    }
}

// G generations of every run of the launch, one run per cluster of C = GA_FUSED_CLUSTER blocks (blockDim.x a
// multiple of 32). Block `rank` owns the slots [lo, hi) of ga_fused_slice: it keeps those rows of each
// population (the rest of the cluster reads them through DSMEM), stages their draws, builds, evaluates and
// ranks those offspring. Per generation (two cluster barriers, no bulk exchange):
//   build (steps 5-7, the parents' words loaded from the blocks holding them) | block barrier |
//   evaluate (step 2; fitness and key pushed to every block) | cluster barrier (split: the next generation's
//   in-kernel draws between arrive and wait) | rank own offspring against all N keys (step 3; order[rank]
//   pushed to every block) | cluster barrier | best so far (step 8).
// With precomputed draws the next generation's are copied asynchronously at the start of a generation, so
// their L2 round trip overlaps it. The same operators in the same order as ga_fused_run, so the same bits.
// Dynamic shared memory (bytes, in this order; per = ga_fused_slice_size, S = per with precomputed draws,
// else 0): 2 N doubles of fitness, N keys, 2 S GA_FUSED_STAGED staged entries (8 bytes), warps * p.scratch
// doubles, then words: N order, per rank_of, 2 per champions, per points, 2 S counts, 2 per W rows; the host
// computes the same sum (launch::fused_cluster_shared_bytes).
__device__ __forceinline__ void ga_fused_cluster_run(unsigned int* sorted, double* sorted_fitness, unsigned int* best,
                                                     double* best_fitness, unsigned int* status,
                                                     const unsigned int* selection, const unsigned int* counts,
                                                     const uint2* entries, const GaFusedParams& p)
{
    extern __shared__ __align__(16) unsigned char ga_fused_shared[];
    const unsigned int run = blockIdx.x / GA_FUSED_CLUSTER;
    const unsigned int rank = ga_cluster_rank();
    const unsigned long long seed = p.seed + run;
    const unsigned int n = p.population;
    const unsigned int w = p.words;
    const unsigned int per = ga_fused_slice_size<GA_FUSED_CLUSTER>(n);
    const unsigned int staged = p.draws > 0u ? per : 0u;
    unsigned int lo, hi;
    ga_fused_slice<GA_FUSED_CLUSTER>(n, rank, &lo, &hi);
    const unsigned int size = hi - lo;
    GaClusterShared s;
    s.fitness = (double*)ga_fused_shared;
    s.keys = (unsigned long long*)(s.fitness + 2u * n);
    s.entries = (uint2*)(s.keys + n);
    s.scratch = (double*)(s.entries + 2u * staged * GA_FUSED_STAGED);
    s.order = (unsigned int*)(s.scratch + (unsigned long long)(blockDim.x >> 5) * p.scratch);
    s.rank_of = s.order + n;
    s.champion = s.rank_of + per;
    s.point = s.champion + 2u * per;
    s.count = s.point + per;
    s.rows = s.count + 2u * staged;
    // Population buffer `parity` holds the current population (rows and fitness), the other one the next.
    unsigned int parity = 0u;
    __shared__ unsigned int status_shared;

    unsigned int* run_sorted = sorted + (unsigned long long)run * n * w;
    double* run_fitness = sorted_fitness + (unsigned long long)run * n;
    unsigned int* run_best = best + (unsigned long long)run * w;
    if (threadIdx.x == 0u) status_shared = 0u;
    double best_so_far = p.initialise ? __longlong_as_double(0x7ff0000000000000ll) : best_fitness[run];
    if (p.generations > 0u) ga_cluster_stage(s, 0u, 0u, lo, size, per, selection, counts, entries, run, p);
    if (p.initialise) {
        // Steps 0-1: the slice of the random initial population (in buffer 1, which becomes the current one).
        for (unsigned int k = threadIdx.x; k < size * w; k += blockDim.x) {
            const unsigned int u = k / w;
            s.rows[per * w + k] = ga_op_init_word(seed, lo + u, k - u * w, p.bits);
        }
    } else {
        // The state arrives sorted: the slice's rows, every fitness, the identity order.
        for (unsigned int k = threadIdx.x; k < size * w; k += blockDim.x) s.rows[k] = run_sorted[lo * w + k];
        for (unsigned int i = threadIdx.x; i < n; i += blockDim.x) {
            s.fitness[i] = run_fitness[i];
            s.order[i] = i;
        }
        for (unsigned int u = threadIdx.x; u < size; u += blockDim.x) s.rank_of[u] = lo + u;
    }
    ga_async_wait_all();
    // Every block of the cluster must have started before any DSMEM access.
    ga_cluster_sync();
    if (p.initialise) {
        // Steps 2-3 and 8 on the initial population.
        ga_cluster_evaluate(s, s.rows + per * w, s.fitness, s.fitness + n, lo, size, 0u, &status_shared, p);
        ga_cluster_sync();
        ga_cluster_sort(s, lo, size, n);
        ga_cluster_sync();
        ga_cluster_record(s, s.rows + per * w, s.fitness + n, lo, hi, &best_so_far, run_best, w);
        parity = 1u;
    }
    const unsigned int elite = min(p.elite, n);
    for (unsigned int g = 0u; g < p.generations; ++g) {
        const bool more = g + 1u < p.generations;
        if (p.draws > 0u && more) {
            ga_cluster_stage(s, g + 1u, (g + 1u) & 1u, lo, size, per, selection, counts, entries, run, p);
        }
        const unsigned int* cur = s.rows + parity * per * w;
        unsigned int* next = s.rows + (parity ^ 1u) * per * w;
        const double* cur_fitness = s.fitness + parity * n;
        double* next_fitness = s.fitness + (parity ^ 1u) * n;
        ga_cluster_build(s, cur, next, g, lo, size, per, elite, entries, run, p);
        __syncthreads();
        ga_cluster_evaluate(s, next, cur_fitness, next_fitness, lo, size, elite, &status_shared, p);
        ga_cluster_arrive();
        if (p.draws == 0u && more) {
            ga_cluster_stage(s, g + 1u, (g + 1u) & 1u, lo, size, per, selection, counts, entries, run, p);
        }
        ga_cluster_wait();
        ga_cluster_sort(s, lo, size, n);
        ga_async_wait_all();
        ga_cluster_sync();
        ga_cluster_record(s, next, next_fitness, lo, hi, &best_so_far, run_best, w);
        parity ^= 1u;
    }
    // The exchange of step 3, once per launch: each block writes its rows at their sorted positions.
    const unsigned int* cur = s.rows + parity * per * w;
    const double* cur_fitness = s.fitness + parity * n;
    for (unsigned int k = threadIdx.x; k < size * w; k += blockDim.x) {
        const unsigned int u = k / w;
        run_sorted[s.rank_of[u] * w + (k - u * w)] = cur[k];
    }
    for (unsigned int u = threadIdx.x; u < size; u += blockDim.x) run_fitness[s.rank_of[u]] = cur_fitness[lo + u];
    if (rank == 0u && threadIdx.x == 0u) best_fitness[run] = best_so_far;
    __syncthreads();
    if (threadIdx.x == 0u && status_shared) status[run] = 1u;
}

#if GA_HAS_CLUSTERS
#define GA_FUSED_CLUSTER_DIMS __cluster_dims__(GA_FUSED_CLUSTER, 1, 1)
#else
#define GA_FUSED_CLUSTER_DIMS
#endif
// Launch bounds 1024, as ga_fused_run_u32.
extern "C" __global__ void GA_FUSED_CLUSTER_DIMS __launch_bounds__(1024) ga_fused_cluster_run_u32(unsigned int* sorted,
    double* sorted_fitness, unsigned int* best, double* best_fitness, unsigned int* status,
    const unsigned int* selection, const unsigned int* counts, const uint2* entries, GaFusedParams p)
{
    ga_fused_cluster_run(sorted, sorted_fitness, best, best_fitness, status, selection, counts, entries, p);
}

// The draws of p.generations generations (steps p.first_step, ...) of p.runs runs (run r: seed p.seed + r) for
// the fused kernels, which then read them instead of drawing (spec ga.md §4 items 3-6: the draws depend on the
// seed, the step and the slot only, never on the population, so they can be made ahead, in parallel over the
// whole GPU). Warp per (run, generation, slot); generation g of run r goes to slot r * p.draws + g:
//   selection[slot * (N + ceil(N/2)) + i]: the champion of slot i; [... + N + q]: the crossover point of pair q
//       (0: not crossed);
//   counts[slot * N + i]: the number of non-zero mutation masks of slot i;
//   entries[(slot * N + i) * max(W, GA_FUSED_STAGED) + e]: the e-th of them as (word, mask), in word order.
// Grid-stride over the warps; blockDim.x a multiple of 32.
extern "C" __global__ void ga_fused_draws_u32(unsigned int* selection, unsigned int* counts, uint2* entries,
                                              GaFusedParams p)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int n = p.population;
    const unsigned int pairs = (n + 1u) / 2u;
    const unsigned int capacity = ga_fused_entry_capacity(p.words);
    const unsigned long long rows = (unsigned long long)p.runs * p.generations * n;
    const unsigned long long warps = ((unsigned long long)gridDim.x * blockDim.x) >> 5;
    for (unsigned long long row = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; row < rows;
         row += warps) {
        const unsigned int i = (unsigned int)(row % n);
        const unsigned long long run_generation = row / n;
        const unsigned int g = (unsigned int)(run_generation % p.generations);
        const unsigned int run = (unsigned int)(run_generation / p.generations);
        const unsigned long long seed = p.seed + run;
        const unsigned int step = p.first_step + g;
        const unsigned long long slot = (unsigned long long)run * p.draws + g;
        if (lane == 0u) {
            selection[slot * (n + pairs) + i] = ga_op_tournament(seed, step, i, n, p.tournament);
        } else if (lane == 1u && (i & 1u) == 0u) {
            const unsigned int q = i >> 1;
            selection[slot * (n + pairs) + n + q] =
                i + 1u < n ? ga_op_crossover_point(seed, step, q, p.bits, p.crossover_rate) : 0u;
        }
        uint2* out = entries + (slot * n + i) * capacity;
        unsigned int count = 0u;
        for (unsigned int base = 0u; base < p.words; base += 32u) {
            const unsigned int j = base + lane;
            const unsigned int mask = j < p.words && p.mutation_rate > 0.0f
                ? ga_op_mutation_mask(seed, step, i, j, p.bits, p.mutation_rate) : 0u;
            const unsigned int nonzero = __ballot_sync(0xFFFFFFFFu, mask != 0u);
            if (mask != 0u) out[count + __popc(nonzero & ((1u << lane) - 1u))] = make_uint2(j, mask);
            count += __popc(nonzero);
        }
        if (lane == 0u) counts[slot * n + i] = count;
    }
}
