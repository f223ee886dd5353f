// Many-threaded differential evolution (kernel module `de`, crate evo-de), after Krömer et al., GECCO'11:
// one thread block per vector, the block's threads stride over the coordinates, and every kernel processes
// the whole population in one launch (initial population; trial vectors = mutation, range repair and
// crossover; merge of parents and trials; index of the best vector). The fitness evaluation is evo-benchmarks'
// (modules benchmarks_continuous and benchmarks_discrete).
//
// For the paper's two problems (Rastrigin and ETC scheduling) `de_generation_f32` fuses a whole generation
// into one launch: block i builds trial i, evaluates it with the same fixed-shape f64 trees as
// evo-benchmarks' kernels, and selects; the population lives in two buffers and `slot[i]` says which one
// holds vector i (the trial is written into the other one, and a win flips the slot, so nothing is copied);
// the last block to finish finds the best vector for the next generation's DE/best/1 and current-to-best.
// Compiled with EVO_DE_USER defined (after a user prelude and source), this file gives a user's DE module
// instead: the operators and the generation body with the user's terms as the evaluation
// (common/problems/de_user_generation.cuh), none of the kernels below. Compiled with EVO_DE_USER_TERM defined
// (after functions.cuh and a user's separable `evo_user_term(i, z)`, evo_benchmarks::cuda::UserFunction's
// contract), it gives a user's term module: de_generation_f32 with the Rastrigin paths summing the user's
// terms instead of Rastrigin's (DE_TERM), none of the other kernels.
//
// Every scalar operation is the twin of a function of crates/de/src/ops.rs with the same name (de_<name>)
// and the same order of operations; explicit _rn intrinsics keep that order under every compile profile.
// Random words come from the addressed Philox (common/rng.cuh): (stream, step = generation, individual =
// vector), so the draws do not depend on the block size.
#if !defined(EVO_DE_USER) && !defined(EVO_DE_USER_TERM)
#include "common/problems/etc.cuh"
#include "common/problems/functions.cuh"
#endif
#include "common/launch.cuh"
#include "common/problems/tree.cuh"
#include "common/rng.cuh"

// Stream ids of evo_rng::Stream (checked against the Rust table by crates/de/src/cuda/launch.rs).
#define DE_STREAM_INIT 0x0400u
#define DE_STREAM_INDICES 0x0401u
#define DE_STREAM_JRAND 0x0402u
#define DE_STREAM_CROSS 0x0403u
#define DE_STREAM_JDE 0x0404u

#define DE_STRATEGY_RAND1 0u
#define DE_STRATEGY_BEST1 1u
#define DE_STRATEGY_CURRENT_TO_BEST1 2u

#define DE_CROSSOVER_BINOMIAL 0u
#define DE_CROSSOVER_PAPER_LITERAL 1u
#define DE_CROSSOVER_EXPONENTIAL 2u

// Scalar arguments of every de kernel; mirrored by `DeKernelParams` in crates/de/src/cuda/launch.rs.
struct DeKernelParams {
    unsigned long long seed;        // the run's seed (Philox key)
    unsigned long long population;  // M
    unsigned long long dimension;   // D (< 2^31)
    unsigned int generation;        // the Philox step of this generation's draws
    unsigned int strategy;          // DE_STRATEGY_*
    unsigned int crossover;         // DE_CROSSOVER_*
    unsigned int jde;               // 1: jDE self-adaptation of F and CR
    unsigned int accept_equal;      // 1: a trial as good as its parent replaces it
    unsigned int pad;               // keeps the size a multiple of 8
};
static_assert(sizeof(DeKernelParams) == 48, "DeKernelParams must match its Rust mirror (48 bytes)");

// Ticket groups of the one-launch generation's selection: `done` holds 1 + DE_TICKET_GROUPS counters
// (DE_TICKET_COUNTERS in crates/de/src/cuda/launch/generation.rs).
#define DE_TICKET_GROUPS 32u

#define DE_PROBLEM_RASTRIGIN 0u
#define DE_PROBLEM_ETC 1u
// The fused ETC evaluation keeps one tree per machine; more machines take the four-launch path.
#define DE_FUSED_MAX_MACHINES 32u
// de_generation's shared scratch (doubles): the ETC warp sums, (m + 1) * 32, the most of its users (the argmin's
// 32 keys and 32 indices, a user module's 32 * EVO_USER_SUMS block-tree slots).
#define DE_SCRATCH_DOUBLES ((DE_FUSED_MAX_MACHINES + 1u) * 32u)

// Scalar arguments of de_generation_f32; mirrored by `DeGenerationParams` in
// crates/de/src/cuda/launch/generation.rs.
struct DeGenerationParams {
    DeKernelParams de;      // the generation (seed, M, D, step, strategy, crossover, jDE, selection)
    unsigned int problem;   // DE_PROBLEM_*
    unsigned int machines;  // ETC: m (at most DE_FUSED_MAX_MACHINES); Rastrigin: unused
    double lambda;          // ETC: weight of the makespan in the fitness
    unsigned int items;      // Rastrigin: adjacent coordinates per thread in a tile, 2, 4 or 8 (ETC: 2)
    unsigned int chunks;     // blocks per vector (Rastrigin; ETC: 1), each over chunk_len coordinates
    unsigned int chunk_len;  // a power of two, a multiple of the tile items * B (chunks = 1: any >= D)
    unsigned int uniform_bounds; // 1: every coordinate has the box [lower[0], upper[0]] (read once per block)
};
static_assert(sizeof(DeGenerationParams) == 80, "DeGenerationParams must match its Rust mirror (80 bytes)");

// ---- Scalar operators (twins in crates/de/src/ops.rs).

// Twin: ops::distinct_indices. r1, r2, r3 mutually distinct and different from i (M >= 4).
__device__ __forceinline__ void de_distinct_indices(const unsigned int words[3], unsigned int i, unsigned int m, unsigned int r[3])
{
    unsigned int taken[3];
    taken[0] = i;
    const unsigned int r1 = evo_skip_taken(evo_below(words[0], m - 1), taken, 1);
    taken[0] = i < r1 ? i : r1;
    taken[1] = i < r1 ? r1 : i;
    const unsigned int r2 = evo_skip_taken(evo_below(words[1], m - 2), taken, 2);
    unsigned int three[3];
    if (r2 < taken[0]) {
        three[0] = r2; three[1] = taken[0]; three[2] = taken[1];
    } else if (r2 < taken[1]) {
        three[0] = taken[0]; three[1] = r2; three[2] = taken[1];
    } else {
        three[0] = taken[0]; three[1] = taken[1]; three[2] = r2;
    }
    const unsigned int r3 = evo_skip_taken(evo_below(words[2], m - 3), three, 3);
    r[0] = r1;
    r[1] = r2;
    r[2] = r3;
}

// Twin: ops::mutate_rand1. a + F (b - c).
__device__ __forceinline__ float de_mutate_rand1(float a, float b, float c, float f)
{
    return __fadd_rn(a, __fmul_rn(f, __fsub_rn(b, c)));
}

// Twin: ops::mutate_best1. best + F (a - b).
__device__ __forceinline__ float de_mutate_best1(float best, float a, float b, float f)
{
    return __fadd_rn(best, __fmul_rn(f, __fsub_rn(a, b)));
}

// Twin: ops::mutate_current_to_best1. (x + F (best - x)) + F (a - b).
__device__ __forceinline__ float de_mutate_current_to_best1(float x, float best, float a, float b, float f)
{
    return __fadd_rn(__fadd_rn(x, __fmul_rn(f, __fsub_rn(best, x))), __fmul_rn(f, __fsub_rn(a, b)));
}

// Twin: ops::repair. Clamp into [lower, upper]; NaN becomes lower.
__device__ __forceinline__ float de_repair(float v, float lower, float upper)
{
    if (isnan(v) || v < lower) {
        return lower;
    }
    return v > upper ? upper : v;
}

// Twin: ops::binomial_takes_mutant.
__device__ __forceinline__ bool de_binomial_takes_mutant(unsigned int j, unsigned int j_rand, float u, float cr)
{
    return j == j_rand || u < cr;
}

// Twin: ops::paper_literal_takes_mutant.
__device__ __forceinline__ bool de_paper_literal_takes_mutant(unsigned int j, unsigned int j_rand, float u, float cr)
{
    return j != j_rand && u < cr;
}

// Twin: ops::exponential_takes_mutant. The cyclic offset of j from j_rand is below L.
__device__ __forceinline__ bool de_exponential_takes_mutant(unsigned int j, unsigned int j_rand, unsigned int length, unsigned int d)
{
    return (j + d - j_rand) % d < length;
}

// Twin: ops::jde_adapt. Returns (F', CR').
__device__ __forceinline__ float2 de_jde_adapt(uint4 w, float f, float cr)
{
    const float f_new = evo_uniform_f32(w.x) < 0.1f ? __fadd_rn(0.1f, __fmul_rn(0.9f, evo_uniform_f32(w.y))) : f;
    const float cr_new = evo_uniform_f32(w.z) < 0.1f ? evo_uniform_f32(w.w) : cr;
    return make_float2(f_new, cr_new);
}

// Twin: ops::trial_wins.
__device__ __forceinline__ bool de_trial_wins(double trial, double parent, unsigned int accept_equal)
{
    return trial < parent || (accept_equal != 0 && trial <= parent);
}

// The key of f64::total_cmp: the bits as a signed integer, with the magnitude bits of negative values flipped.
__device__ __forceinline__ long long de_total_order_key(double v)
{
    const long long bits = __double_as_longlong(v);
    return bits ^ (long long)(((unsigned long long)(bits >> 63)) >> 1);
}

// Thread 0's draws for trial i (steps 3.1 and 3.3) that read no memory (de_generation takes them before it
// waits for the previous grid): the partners, jDE's words (zero without jDE) and j_rand. Twin: the draws of
// the first half of cpu::TrialContext::build.
__device__ __forceinline__ void de_vector_draws(const DeKernelParams& p, unsigned int i, unsigned int partners[3], uint4* jde, unsigned int* j_rand)
{
    const EvoSequence si = evo_sequence(p.seed, DE_STREAM_INDICES, p.generation, i);
    const uint4 iw = evo_sequence_block(si, 0);
    const unsigned int words[3] = {iw.x, iw.y, iw.z};
    de_distinct_indices(words, i, (unsigned int)p.population, partners);
    *jde = p.jde != 0 ? evo_sequence_block(evo_sequence(p.seed, DE_STREAM_JDE, p.generation, i), 0) : make_uint4(0u, 0u, 0u, 0u);
    *j_rand = evo_sequence_below(evo_sequence(p.seed, DE_STREAM_JRAND, p.generation, i), 0, (unsigned int)p.dimension);
}

// Thread 0's (F, CR) of a trial: the vector's own (its weights[i], rates[i]), adapted by jDE's words when
// p.jde. Twin: the rest of the first half of cpu::TrialContext::build.
__device__ __forceinline__ void de_vector_rates(const DeKernelParams& p, uint4 jde, float f, float cr, float* f_out, float* cr_out)
{
    if (p.jde != 0) {
        const float2 adapted = de_jde_adapt(jde, f, cr);
        f = adapted.x;
        cr = adapted.y;
    }
    *f_out = f;
    *cr_out = cr;
}

// Thread 0's draws for trial i (steps 3.1 and 3.3): the partners, jDE's (F', CR') and j_rand. Twin: the
// first half of cpu::TrialContext::build.
__device__ __forceinline__ void de_draw_vector(const DeKernelParams& p, unsigned int i, const float* weights, const float* rates, unsigned int partners[3], float* f_out, float* cr_out, unsigned int* j_rand)
{
    uint4 jde;
    de_vector_draws(p, i, partners, &jde, j_rand);
    de_vector_rates(p, jde, weights[i], rates[i], f_out, cr_out);
}

// Twin: ops::exponential_length. The first k in [1, D) with u_k >= CR, chunk by chunk, into *length (which
// thread 0 set to D before the barrier that precedes this call). Every thread of the block must call it.
__device__ __forceinline__ void de_exponential_length(EvoSequence cross, unsigned int d, float cr, unsigned int* length)
{
    for (unsigned int base = 1; base < d; base += blockDim.x) {
        const unsigned int k = base + threadIdx.x;
        if (k < d && evo_sequence_uniform_f32(cross, k) >= cr) {
            atomicMin(length, k);
        }
        __syncthreads();
        const bool found = *length < d;
        __syncthreads();
        if (found) {
            break;
        }
    }
}

// Step 3.3's choice for coordinate j: whether the trial takes the mutant (u is word j of DeCross as a
// uniform, unused by the exponential crossover). Twin: the crossover branch of cpu::TrialContext::build.
__device__ __forceinline__ bool de_takes_mutant(const DeKernelParams& p, unsigned int j, float u, unsigned int j_rand, unsigned int length, float cr)
{
    if (p.crossover == DE_CROSSOVER_BINOMIAL) {
        return de_binomial_takes_mutant(j, j_rand, u, cr);
    }
    if (p.crossover == DE_CROSSOVER_PAPER_LITERAL) {
        return de_paper_literal_takes_mutant(j, j_rand, u, cr);
    }
    return de_exponential_takes_mutant(j, j_rand, length, (unsigned int)p.dimension);
}

// Steps 3.1-3.2 for one coordinate from its loaded values: xj (the vector's; used by current-to-best only),
// best_j (the best vector's; DE/best/1 and current-to-best), the partners' aj, bj and cj (cj: DE/rand/1
// only), repaired into [lo, hi].
__device__ __forceinline__ float de_mutant_value(const DeKernelParams& p, float f, float xj, float best_j, float aj, float bj, float cj, float lo, float hi)
{
    float mutant;
    if (p.strategy == DE_STRATEGY_RAND1) {
        mutant = de_mutate_rand1(aj, bj, cj, f);
    } else if (p.strategy == DE_STRATEGY_BEST1) {
        mutant = de_mutate_best1(best_j, aj, bj, f);
    } else {
        mutant = de_mutate_current_to_best1(xj, best_j, aj, bj, f);
    }
    return de_repair(mutant, lo, hi);
}

// Steps 3.1-3.3 for coordinate j of one trial: u is word j of DeCross as a uniform (unused by the
// exponential crossover); x, a, b, c and best are the rows of the vector, its partners and the best vector.
// The parent's coordinate is read only where the trial takes it (or current-to-best needs it), the
// partners' only where it takes the mutant. Twin: the loop of cpu::TrialContext::build.
__device__ __forceinline__ float de_trial_coordinate(const DeKernelParams& p, unsigned int j, float u, unsigned int j_rand, unsigned int length, float f, float cr, const float* x, const float* a, const float* b, const float* c, const float* best, const float* lower, const float* upper, bool uniform = false, float lo = 0.0f, float hi = 0.0f)
{
    if (!de_takes_mutant(p, j, u, j_rand, length, cr)) {
        return x[j];
    }
    const bool rand1 = p.strategy == DE_STRATEGY_RAND1;
    const float xj = p.strategy == DE_STRATEGY_CURRENT_TO_BEST1 ? x[j] : 0.0f;
    const float best_j = rand1 ? 0.0f : best[j];
    const float cj = rand1 ? c[j] : 0.0f;
    // A uniform box (`uniform`: lo and hi, loaded once by the caller) saves two loads per mutant coordinate.
    return de_mutant_value(p, f, xj, best_j, a[j], b[j], cj, uniform ? lo : lower[j], uniform ? hi : upper[j]);
}

// Whether (key a, index ia) comes before (key b, index ib): the total order of the fitness, then the lower index.
__device__ __forceinline__ bool de_before(long long a, unsigned int ia, long long b, unsigned int ib)
{
    return a < b || (a == b && ia < ib);
}

// The index of the smallest of fitness[0..m) under the total order (f64::total_cmp, then the lower index)
// by one block of a power-of-two size in 32..1024, returned in thread 0; loads bypass L1 (`__ldcg`) so that
// the last block of de_generation_f32 sees the other blocks' writes. The order is total and the indices
// distinct, so the minimum does not depend on how the block combines: each thread takes its values four
// loads at a time (all in flight before the first comparison), each warp combines by shuffles, warp 0 the
// warps' minima (s_key and s_index: one slot per warp, one barrier). Twin: ops::best_index.
__device__ __forceinline__ unsigned int de_block_argmin(const double* fitness, unsigned int m, long long* s_key, unsigned int* s_index)
{
    // The sentinel (largest key, no index) comes after every entry.
    long long key = 0x7fffffffffffffffll;
    unsigned int index = 0xffffffffu;
    for (unsigned int base = threadIdx.x; base < m; base += 4u * blockDim.x) {
        double v[4];
#pragma unroll
        for (unsigned int k = 0; k < 4u; ++k) {
            const unsigned int j = base + k * blockDim.x;
            v[k] = j < m ? __ldcg(fitness + j) : 0.0;
        }
#pragma unroll
        for (unsigned int k = 0; k < 4u; ++k) {
            const unsigned int j = base + k * blockDim.x;
            const long long candidate = de_total_order_key(v[k]);
            if (j < m && de_before(candidate, j, key, index)) {
                key = candidate;
                index = j;
            }
        }
    }
#pragma unroll
    for (unsigned int off = 16u; off > 0u; off >>= 1) {
        const long long other_key = __shfl_down_sync(EVO_FULL_MASK, key, off);
        const unsigned int other_index = __shfl_down_sync(EVO_FULL_MASK, index, off);
        if (de_before(other_key, other_index, key, index)) {
            key = other_key;
            index = other_index;
        }
    }
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    if (lane == 0u) {
        s_key[warp] = key;
        s_index[warp] = index;
    }
    __syncthreads();
    if (warp == 0u) {
        const unsigned int warps = blockDim.x >> 5;
        key = lane < warps ? s_key[lane] : 0x7fffffffffffffffll;
        index = lane < warps ? s_index[lane] : 0xffffffffu;
#pragma unroll
        for (unsigned int off = 16u; off > 0u; off >>= 1) {
            const long long other_key = __shfl_down_sync(EVO_FULL_MASK, key, off);
            const unsigned int other_index = __shfl_down_sync(EVO_FULL_MASK, index, off);
            if (de_before(other_key, other_index, key, index)) {
                key = other_key;
                index = other_index;
            }
        }
    }
    return index;
}

// Coordinates g0 .. g0 + 3 (g0 a multiple of 4: one Philox block of words) of a trial into v and `out`;
// coordinates at or beyond D are 0 and not stored. VECTOR: all 4 inside D and every row and `out` 16-byte
// aligned: one float4 load per row (loaded where any of the 4 coordinates needs it; the other values are
// not used) and one float4 store. Three passes as in de_fused_rastrigin (choices and loads, then the
// mutants, then the stores), the same arithmetic as de_trial_coordinate.
template <bool VECTOR>
__device__ __forceinline__ void de_fused_chunk4(const DeKernelParams& p, unsigned int g0, EvoSequence cross, unsigned int j_rand, unsigned int length, float f, float cr, const float* const rows[5], float* out, const float* lower, const float* upper, bool uniform, float lo, float hi, float v[4])
{
    const unsigned int d = (unsigned int)p.dimension;
    const bool exponential = p.crossover == DE_CROSSOVER_EXPONENTIAL;
    const bool rand1 = p.strategy == DE_STRATEGY_RAND1;
    const bool needs_x = p.strategy == DE_STRATEGY_CURRENT_TO_BEST1;
    const float* const e_row = rand1 ? rows[3] : rows[4];
    const uint4 words = exponential || (!VECTOR && g0 >= d) ? make_uint4(0u, 0u, 0u, 0u) : evo_sequence_block(cross, g0 / 4u);
    bool mutant[4];
    float av[4];
    float bv[4];
    float ev[4];  // c's coordinate under DE/rand/1, else the best vector's
    if (VECTOR) {
        bool any_mutant = false;
        bool any_x = false;
#pragma unroll
        for (unsigned int e = 0; e < 4u; ++e) {
            const float u = evo_uniform_f32(evo_uint4_word(words, e));
            const bool takes = de_takes_mutant(p, g0 + e, u, j_rand, length, cr);
            mutant[e] = takes;
            any_mutant = any_mutant || takes;
            any_x = any_x || !takes || needs_x;
        }
        const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        // Non-coherent loads: the rows are slot_in's buffers, which no block writes during the launch (trials
        // go to the other buffer).
        const float4 x4 = any_x ? __ldg(reinterpret_cast<const float4*>(rows[0] + g0)) : zero;
        const float4 a4 = any_mutant ? __ldg(reinterpret_cast<const float4*>(rows[1] + g0)) : zero;
        const float4 b4 = any_mutant ? __ldg(reinterpret_cast<const float4*>(rows[2] + g0)) : zero;
        const float4 e4 = any_mutant ? __ldg(reinterpret_cast<const float4*>(e_row + g0)) : zero;
        v[0] = x4.x;
        v[1] = x4.y;
        v[2] = x4.z;
        v[3] = x4.w;
        av[0] = a4.x;
        av[1] = a4.y;
        av[2] = a4.z;
        av[3] = a4.w;
        bv[0] = b4.x;
        bv[1] = b4.y;
        bv[2] = b4.z;
        bv[3] = b4.w;
        ev[0] = e4.x;
        ev[1] = e4.y;
        ev[2] = e4.z;
        ev[3] = e4.w;
    } else {
#pragma unroll
        for (unsigned int e = 0; e < 4u; ++e) {
            const unsigned int j = g0 + e;
            const bool inside = j < d;
            const float u = evo_uniform_f32(evo_uint4_word(words, e));
            const bool takes = inside && de_takes_mutant(p, j, u, j_rand, length, cr);
            mutant[e] = takes;
            v[e] = inside && (!takes || needs_x) ? rows[0][j] : 0.0f;
            av[e] = takes ? rows[1][j] : 0.0f;
            bv[e] = takes ? rows[2][j] : 0.0f;
            ev[e] = takes ? e_row[j] : 0.0f;
        }
    }
#pragma unroll
    for (unsigned int e = 0; e < 4u; ++e) {
        const unsigned int j = g0 + e;
        if (mutant[e]) {
            // xj (v[e]) is read by current-to-best only, where it is the parent's coordinate on both paths.
            v[e] = de_mutant_value(p, f, v[e], ev[e], av[e], bv[e], ev[e], uniform ? lo : lower[j], uniform ? hi : upper[j]);
        }
    }
    if (VECTOR) {
        *reinterpret_cast<float4*>(out + g0) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
        for (unsigned int e = 0; e < 4u; ++e) {
            if (g0 + e < d) {
                out[g0 + e] = v[e];
            }
        }
    }
}

// The block's shared state of de_generation: the rows of the vector, its partners and the best vector, where
// the trial goes, the vector's slot, the draws, whether this block selects last, the evaluation's scratch
// (the ETC trees' warp sums, (m + 1) * 32 doubles; a user module's block trees) reused by the argmin's 32 keys
// and 32 indices, and the ETC trees' roots.
struct DeGenerationShared {
    const float** rows;
    float** out;
    unsigned int* own;
    unsigned int* partners;
    uint4* jde;
    unsigned int* j_rand;
    unsigned int* length;
    float* f;
    float* cr;
    bool* last;
    double* warp;
    double* tree;
};

// Declares a generation kernel's shared memory and `name`, the DeGenerationShared pointing into it.
#define DE_GENERATION_SHARED(name)                                                                          \
    __shared__ const float* s_rows[5];                                                                     \
    __shared__ float* s_out;                                                                               \
    __shared__ unsigned int s_own;                                                                         \
    __shared__ unsigned int s_partners[3];                                                                 \
    __shared__ uint4 s_jde;                                                                                \
    __shared__ unsigned int s_j_rand;                                                                      \
    __shared__ unsigned int s_length;                                                                      \
    __shared__ float s_f;                                                                                  \
    __shared__ float s_cr;                                                                                 \
    __shared__ bool s_last;                                                                                \
    __shared__ double s_warp[DE_SCRATCH_DOUBLES];                                                          \
    __shared__ double s_tree[DE_FUSED_MAX_MACHINES + 1u];                                                  \
    const DeGenerationShared name = {s_rows, &s_out, &s_own, s_partners, &s_jde, &s_j_rand, &s_length, &s_f, \
                                     &s_cr, &s_last, s_warp, s_tree}

// One whole generation (steps 3.1-3.4) in one launch of B threads per block (B a power of two in 32..1024).
// `evaluate(i, chunk, cross, j_rand, length, f, cr, rows, out)`, called by every thread, builds the trial's
// chunk into `out` and returns its fitness (or the chunk's sum) in thread 0: the paper's problems for
// de_generation_f32, a user's terms for de_generation_user_f32. Vector i lives in buffer slot_in[i] (0:
// buffer0, 1: buffer1). Work item w = i * chunks + c (blocks stride over them) builds chunk c of trial i into
// the other buffer. With one chunk the block evaluates the whole trial; with several
// (Rastrigin at large D, so that more blocks than vectors share the work) each chunk's block writes the sum of
// its aligned subtree to partials[w] and takes a ticket on vector_done[i]; the vector's last chunk combines
// the partials with the same tree. That block selects: on a win it replaces fitness[i], weights[i], rates[i]
// (read by no other block during the generation) and writes slot_out[i] = the other buffer, else slot_out[i]
// = slot_in[i]. The last vector to be selected (a ticket on its group's done[1 + i mod DE_TICKET_GROUPS], then
// for the group's last one on done[0]) writes the best index to best[0] and (fitness, index) to
// best_fitness, as de_best_index_f64. Tickets are reset to 0 for the next launch.
// Launched overlapping the previous kernel on the stream (Programmatic Dependent Launch): no global memory is
// touched before evo_wait_previous_grid(), and a block allows the next grid (evo_allow_next_grid) after its
// last selection, so that the next generation's launch and draws overlap this one's best-vector search.
// Twin: DeCpu::step.
template <class Evaluation>
__device__ __forceinline__ void de_generation(float* buffer0, float* buffer1, const unsigned int* slot_in, unsigned int* slot_out, double* fitness, float* weights, float* rates, unsigned int* best, double* best_fitness, double* partials, unsigned int* vector_done, unsigned int* done, const DeGenerationParams& p, const Evaluation& evaluate, const DeGenerationShared& shared)
{
    const unsigned int d = (unsigned int)p.de.dimension;
    const unsigned int m = (unsigned int)p.de.population;
    const unsigned int chunks = p.chunks;
    const unsigned long long work = (unsigned long long)m * chunks;
    for (unsigned long long w = blockIdx.x; w < work; w += gridDim.x) {
        const unsigned int i = (unsigned int)(w / chunks);
        const unsigned int chunk = (unsigned int)(w % chunks);
        const EvoSequence cross = evo_sequence(p.de.seed, DE_STREAM_CROSS, p.de.generation, i);
        // The draws that read no memory come before the wait: launched overlapping the previous generation
        // (Programmatic Dependent Launch), the first work item's draws run during that grid's tail. Every
        // thread waits before its first global access (after the first work item the wait returns at once).
        if (threadIdx.x == 0) {
            de_vector_draws(p.de, i, shared.partners, shared.jde, shared.j_rand);
        }
        evo_wait_previous_grid();
        // Thread 0 loads the parent's fitness now (only the vector's selecting block writes it, after every
        // chunk's ticket), so that the selection does not wait for it.
        double parent = 0.0;
        if (threadIdx.x == 0) {
            // Every load first, the best vector's slot (which needs best[0]) last, and only then the uses and
            // the shared stores: the loads are in flight together (two round trips, not one per load).
            const unsigned int r[3] = {shared.partners[0], shared.partners[1], shared.partners[2]};
            const unsigned int b = best[0];
            const unsigned int own = slot_in[i];
            unsigned int partner_slot[3];
#pragma unroll
            for (unsigned int k = 0; k < 3u; ++k) {
                partner_slot[k] = slot_in[r[k]];
            }
            parent = fitness[i];
            const float weight = weights[i];
            const float rate = rates[i];
            const unsigned int best_slot = slot_in[b];
            de_vector_rates(p.de, *shared.jde, weight, rate, shared.f, shared.cr);
            *shared.length = d;
            *shared.own = own;
            shared.rows[0] = (own == 0u ? buffer0 : buffer1) + (unsigned long long)i * d;
#pragma unroll
            for (unsigned int k = 0; k < 3u; ++k) {
                shared.rows[1 + k] = (partner_slot[k] == 0u ? buffer0 : buffer1) + (unsigned long long)r[k] * d;
            }
            shared.rows[4] = (best_slot == 0u ? buffer0 : buffer1) + (unsigned long long)b * d;
            *shared.out = (own == 0u ? buffer1 : buffer0) + (unsigned long long)i * d;
        }
        __syncthreads();
        const float f = *shared.f;
        const float cr = *shared.cr;
        if (p.de.crossover == DE_CROSSOVER_EXPONENTIAL) {
            de_exponential_length(cross, d, cr, shared.length);
        }
        const float* const rows[5] = {shared.rows[0], shared.rows[1], shared.rows[2], shared.rows[3], shared.rows[4]};
        double trial = evaluate(i, chunk, cross, *shared.j_rand, *shared.length, f, cr, rows, *shared.out);
        if (threadIdx.x == 0) {
            bool select = true;
            if (chunks > 1u) {
                // Publish this chunk's sum, then the vector's last chunk adds all of them with the tree.
                partials[w] = trial;
                __threadfence();
                select = atomicAdd(vector_done + i, 1u) == chunks - 1u;
                if (select) {
                    __threadfence();
                    EvoTreeStack<false> stack;
                    stack.init();
                    for (unsigned int c = 0; c < chunks; ++c) {
                        stack.push(__ldcg(partials + (unsigned long long)i * chunks + c));
                    }
                    while ((stack.pushed & (stack.pushed - 1ull)) != 0ull) {
                        stack.push(0.0);
                    }
                    trial = stack.node[0];
                    vector_done[i] = 0u;
                }
            }
            if (select) {
                const bool wins = de_trial_wins(trial, parent, p.de.accept_equal);
                if (wins) {
                    fitness[i] = trial;
                    weights[i] = f;
                    rates[i] = cr;
                }
                slot_out[i] = wins ? 1u - *shared.own : *shared.own;
                // The last vector selected sees every vector's fitness: each publishes (fence) first. Tickets
                // in two levels so that M blocks ending together do not queue on one counter: vector i takes
                // a ticket of its group i mod DE_TICKET_GROUPS (done[1 + group]); the group's last takes one
                // on done[0] after its own fence, which passes the group's fitness writes on (cumulativity).
                __threadfence();
                const unsigned int group = i % DE_TICKET_GROUPS;
                const unsigned int groups = m < DE_TICKET_GROUPS ? m : DE_TICKET_GROUPS;
                const unsigned int members = (m - group + DE_TICKET_GROUPS - 1u) / DE_TICKET_GROUPS;
                bool last = false;
                if (atomicAdd(done + 1u + group, 1u) == members - 1u) {
                    done[1u + group] = 0u;
                    __threadfence();
                    last = atomicAdd(done, 1u) == groups - 1u;
                }
                *shared.last = last;
            } else {
                *shared.last = false;
            }
        }
        __syncthreads();
        if (w + gridDim.x >= work) {
            // The block's last selection is done: once every block is here (or gone), the next generation's
            // grid may start and take its draws while the last block finds the best vector.
            evo_allow_next_grid();
        }
        if (*shared.last) {
            __threadfence();
            long long* s_key = reinterpret_cast<long long*>(shared.warp);
            unsigned int* s_index = reinterpret_cast<unsigned int*>(shared.warp + 32);
            const unsigned int index = de_block_argmin(fitness, m, s_key, s_index);
            if (threadIdx.x == 0) {
                best[0] = index;
                best_fitness[0] = __ldcg(fitness + index);
                best_fitness[1] = (double)index;
                done[0] = 0u;
            }
        }
        // The shared draws of the next work item must not overwrite these before every thread is done.
        __syncthreads();
    }
}
#if !defined(EVO_DE_USER) && !defined(EVO_DE_USER_TERM)
// ---- Kernels.

// Step 1: coordinate j of vector i is uniform in [lower_j, upper_j] from word j of (DeInit, 0, i).
// Twin: cpu::initial_row.
extern "C" __global__ void de_init_f32(float* population, const float* lower, const float* upper, DeKernelParams p)
{
    const unsigned long long total = p.population * p.dimension;
    for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; k < total; k += (unsigned long long)blockDim.x * gridDim.x) {
        const unsigned int i = (unsigned int)(k / p.dimension);
        const unsigned int j = (unsigned int)(k % p.dimension);
        const EvoSequence s = evo_sequence(p.seed, DE_STREAM_INIT, 0, i);
        population[k] = evo_uniform_in(evo_sequence_word(s, j), lower[j], upper[j]);
    }
}

// Steps 3.1-3.3 for the whole population: block b builds trials b, b + gridDim.x, ... Thread 0 draws the
// partners, j_rand and jDE's (F, CR); the exponential crossover's length is a block-wide minimum over chunks
// of k. When the host launches at least 2M blocks (long vectors, few of them), each vector is cut into
// gridDim.x / M slices of whole warps of coordinates, one block each, so that a small population still keeps
// enough loads in flight; every block of a vector draws the same values, and the slice holding coordinate 0
// writes (F, CR). The exponential crossover keeps one block per vector (its length spans the whole vector).
// Twin: cpu::TrialContext::build.
extern "C" __global__ void de_trial_f32(float* trials, float* trial_weights, float* trial_rates, const float* population, const float* weights, const float* rates, const unsigned int* best, const float* lower, const float* upper, DeKernelParams p)
{
    __shared__ unsigned int s_partners[3];
    __shared__ unsigned int s_j_rand;
    __shared__ unsigned int s_length;
    __shared__ float s_f;
    __shared__ float s_cr;
    const unsigned int d = (unsigned int)p.dimension;
    const unsigned int m = (unsigned int)p.population;
    const float* best_row = population + (unsigned long long)best[0] * d;
    const unsigned int slices = (p.crossover != DE_CROSSOVER_EXPONENTIAL && (unsigned long long)gridDim.x >= 2ull * m) ? gridDim.x / m : 1u;
    const unsigned int slice_length = ((d + slices - 1u) / slices + 31u) & ~31u;
    for (unsigned int w = blockIdx.x; w < m * slices; w += gridDim.x) {
        const unsigned int i = w / slices;
        const unsigned int slice = w % slices;
        const unsigned int j_begin = slice * slice_length;
        const unsigned int j_end = min(d, j_begin + slice_length);
        const EvoSequence cross = evo_sequence(p.seed, DE_STREAM_CROSS, p.generation, i);
        if (threadIdx.x == 0) {
            de_draw_vector(p, i, weights, rates, s_partners, &s_f, &s_cr, &s_j_rand);
            s_length = d;
        }
        __syncthreads();
        const float f = s_f;
        const float cr = s_cr;
        const unsigned int j_rand = s_j_rand;
        if (p.crossover == DE_CROSSOVER_EXPONENTIAL) {
            de_exponential_length(cross, d, cr, &s_length);
        }
        const unsigned int length = s_length;
        const float* x = population + (unsigned long long)i * d;
        const float* a = population + (unsigned long long)s_partners[0] * d;
        const float* b = population + (unsigned long long)s_partners[1] * d;
        const float* c = population + (unsigned long long)s_partners[2] * d;
        for (unsigned int j = j_begin + threadIdx.x; j < j_end; j += blockDim.x) {
            const float u = p.crossover == DE_CROSSOVER_EXPONENTIAL ? 0.0f : evo_sequence_uniform_f32(cross, j);
            trials[(unsigned long long)i * d + j] = de_trial_coordinate(p, j, u, j_rand, length, f, cr, x, a, b, c, best_row, lower, upper);
        }
        if (threadIdx.x == 0 && slice == 0u) {
            trial_weights[i] = f;
            trial_rates[i] = cr;
        }
        // The shared draws of the next vector must not overwrite these before every thread is done.
        __syncthreads();
    }
}

// Step 3.4 for the whole population: trial i replaces parent i when it wins (with its F and CR under jDE).
extern "C" __global__ void de_merge_f32(float* population, double* fitness, float* weights, float* rates, const float* trials, const double* trial_fitness, const float* trial_weights, const float* trial_rates, DeKernelParams p)
{
    const unsigned long long d = p.dimension;
    for (unsigned long long i = blockIdx.x; i < p.population; i += gridDim.x) {
        const double trial = trial_fitness[i];
        const bool wins = de_trial_wins(trial, fitness[i], p.accept_equal);
        if (wins) {
            for (unsigned long long j = threadIdx.x; j < d; j += blockDim.x) {
                population[i * d + j] = trials[i * d + j];
            }
        }
        // Every thread has read fitness[i] before thread 0 replaces it.
        __syncthreads();
        if (wins && threadIdx.x == 0) {
            fitness[i] = trial;
            weights[i] = trial_weights[i];
            rates[i] = trial_rates[i];
        }
    }
}

// The smallest fitness under the total order (f64::total_cmp, then the lower index), in one block of a
// power-of-two size in 32..1024; writes its index to best[0] (read by de_trial_f32) and (fitness, index) to best_fitness
// so that the host reads both in one copy. Twin: ops::best_index.
extern "C" __global__ void de_best_index_f64(unsigned int* best, double* best_fitness, const double* fitness, DeKernelParams p)
{
    __shared__ long long s_key[32];
    __shared__ unsigned int s_index[32];
    const unsigned int index = de_block_argmin(fitness, (unsigned int)p.population, s_key, s_index);
    if (threadIdx.x == 0) {
        best[0] = index;
        best_fitness[0] = fitness[index];
        best_fitness[1] = (double)index;
    }
}

#endif

#ifndef EVO_DE_USER
// The term of coordinate j at z = (double)x_j that the separable paths below sum: Rastrigin's, or in a user's
// term module (EVO_DE_USER_TERM) the user's evo_user_term. DE_TERM_REDUCED is the term for |z| < 2^49 (the
// same bits; a user's term has no such form), DE_TERMS_REDUCED(v) whether the four values of v allow it.
#ifdef EVO_DE_USER_TERM
#define DE_TERM(j, z) evo_user_term((unsigned long long)(j), (z))
#define DE_TERM_REDUCED(j, z) evo_user_term((unsigned long long)(j), (z))
#define DE_TERMS_REDUCED(v) false
#else
#define DE_TERM(j, z) evo_rastrigin_term(z)
#define DE_TERM_REDUCED(j, z) evo_rastrigin_term_reduced(z)
#define DE_TERMS_REDUCED(v) \
    ((fabs((double)v[0]) < 0x1p49) & (fabs((double)v[1]) < 0x1p49) & (fabs((double)v[2]) < 0x1p49) & (fabs((double)v[3]) < 0x1p49))
#endif

// Thread 0's tile sums of a Rastrigin chunk, left to right, combined as evo_core::reduce's stack
// (EvoTreeStack): the first in a register and the stack (local memory: its indices are dynamic) only from the
// second on, so that a chunk of one tile, the common shape, touches no local memory. The same bits: a stack
// of one push holds that value.
struct DeTileSums {
    EvoTreeStack<false> stack;
    double first;
    unsigned long long count;

    __device__ __forceinline__ void init()
    {
        first = 0.0;
        count = 0;
    }

    __device__ __forceinline__ void push(double value)
    {
        if (count == 0ull) {
            first = value;
        } else {
            if (count == 1ull) {
                stack.init();
                stack.push(first);
            }
            stack.push(value);
        }
        count += 1ull;
    }

    // The chunk's sum: the tiles padded with trees of zeros to a power of two and to at least `tiles` (the
    // chunk's tile count when a vector is split; 0 for one chunk). At least one tile was pushed.
    __device__ __forceinline__ double sum(unsigned long long tiles)
    {
        if (count == 1ull && tiles <= 1ull) {
            return first;
        }
        if (count == 1ull) {
            stack.init();
            stack.push(first);
        }
        while ((stack.pushed & (stack.pushed - 1ull)) != 0ull || stack.pushed < tiles) {
            stack.push(0.0);
        }
        return stack.node[0];
    }
};

// Rastrigin of a trial: the canonical tree over D terms in tiles of K·B coordinates (K = p.items, 2, 4 or 8:
// thread t builds coordinates K t .. K t + K - 1 of the tile and adds their terms with the adjacent-pair
// tree, node(log2 K, t) of the tile's tree; the block adds the B nodes with the shuffle tree), tile sums
// combined left to right by thread 0's stack and padded to a power of two. Writes the trial into `out`;
// returns the fitness in thread 0. Twin: DeCpu's trial loop followed by DeRastrigin::evaluate
// (functions::rastrigin, evo_core::reduce's tree). de_generation_f32 takes this for K = 2 and
// de_fused_rastrigin_float4 for K = 4 and 8 (the same tree and tiles; float4 loads).
template <unsigned int ITEMS>
__device__ __forceinline__ double de_fused_rastrigin(const DeGenerationParams& g, unsigned int chunk, EvoSequence cross, unsigned int j_rand, unsigned int length, float f, float cr, const float* const rows[5], float* out, const float* lower, const float* upper, double* scratch)
{
    const DeKernelParams& p = g.de;
    const unsigned int d = (unsigned int)p.dimension;
    constexpr unsigned int items = ITEMS;
    const bool exponential = p.crossover == DE_CROSSOVER_EXPONENTIAL;
    const unsigned long long begin = (unsigned long long)chunk * g.chunk_len;
    const unsigned long long end_wide = begin + g.chunk_len;
    const unsigned int end = end_wide < d ? (unsigned int)end_wide : d;
    const bool uniform = g.uniform_bounds != 0u;
    const float lo = uniform ? lower[0] : 0.0f;
    const float hi = uniform ? upper[0] : 0.0f;
    DeTileSums stack;
    stack.init();
    for (unsigned int base = (unsigned int)begin; base < end; base += items * blockDim.x) {
        const unsigned int first = base + items * threadIdx.x;
        double term[ITEMS];
        for (unsigned int k = 0; k < ITEMS; ++k) {
            term[k] = 0.0;
        }
        if (first < d) {
            // Up to four coordinates at a time (one Philox block of words), in three passes so that all their
            // loads are in flight before the first value is used: (1) the crossover's choices and the loads
            // (the parent's coordinate where the trial takes it or current-to-best needs it, the partners'
            // and the best vector's where it takes the mutant); (2) the mutants; (3) the stores (`out` may
            // alias the rows as far as the compiler knows, so no store comes between loads) and the terms.
            // Same arithmetic as de_trial_coordinate. Words first .. first + K - 1 (first a multiple of 2,
            // and of 4 when K = 8) lie in K/4 Philox blocks (one for K = 2).
            constexpr unsigned int group = ITEMS < 4u ? ITEMS : 4u;
            const bool rand1 = p.strategy == DE_STRATEGY_RAND1;
            const bool needs_x = p.strategy == DE_STRATEGY_CURRENT_TO_BEST1;
            const float* const e_row = rand1 ? rows[3] : rows[4];
#pragma unroll
            for (unsigned int lane = 0; lane < (items + 3u) / 4u; ++lane) {
                const uint4 words = exponential ? make_uint4(0u, 0u, 0u, 0u) : evo_sequence_block(cross, first / 4u + lane);
                bool mutant[group];
                float xv[group];
                float av[group];
                float bv[group];
                float ev[group];  // c's coordinate under DE/rand/1, else the best vector's
#pragma unroll
                for (unsigned int k = 0; k < group; ++k) {
                    const unsigned int j = first + 4u * lane + k;
                    const bool inside = j < d;
                    const float u = evo_uniform_f32(evo_uint4_word(words, j % 4u));
                    const bool takes = inside && de_takes_mutant(p, j, u, j_rand, length, cr);
                    mutant[k] = takes;
                    xv[k] = inside && (!takes || needs_x) ? rows[0][j] : 0.0f;
                    av[k] = takes ? rows[1][j] : 0.0f;
                    bv[k] = takes ? rows[2][j] : 0.0f;
                    ev[k] = takes ? e_row[j] : 0.0f;
                }
#pragma unroll
                for (unsigned int k = 0; k < group; ++k) {
                    const unsigned int j = first + 4u * lane + k;
                    if (mutant[k]) {
                        xv[k] = de_mutant_value(p, f, xv[k], ev[k], av[k], bv[k], ev[k], uniform ? lo : lower[j], uniform ? hi : upper[j]);
                    }
                }
#pragma unroll
                for (unsigned int k = 0; k < group; ++k) {
                    const unsigned int j = first + 4u * lane + k;
                    if (j < d) {
                        out[j] = xv[k];
                        term[4u * lane + k] = DE_TERM(j, (double)xv[k]);
                    }
                }
            }
        }
        const double tile = evo_block_tree<false>(evo_thread_tree8<false>(term, items), scratch);
        if (threadIdx.x == 0) {
            stack.push(tile);
        }
    }
    double sum = 0.0;
    if (threadIdx.x == 0) {
        // One chunk: pad to a power of two. Several: pad to the chunk's tile count (a power of two), so the
        // sum is the aligned subtree of the chunk.
        const unsigned long long tiles = g.chunks == 1u ? 0ull : g.chunk_len / (items * blockDim.x);
        sum = stack.sum(tiles);
    }
    return sum;
}

// The tree of the terms of coordinates g0 .. g0 + 3 (v from de_fused_chunk4), those at or beyond D being
// 0.0. REDUCED: every |v| < 2^49 (the cosine skips its own range check; the same bits).
template <bool REDUCED>
__device__ __forceinline__ double de_chunk_terms4(unsigned int g0, unsigned int d, const float v[4])
{
    double t[4];
#pragma unroll
    for (unsigned int e = 0; e < 4u; ++e) {
        const double z = (double)v[e];
        t[e] = g0 + e < d ? (REDUCED ? DE_TERM_REDUCED(g0 + e, z) : DE_TERM(g0 + e, z)) : 0.0;
    }
    return (t[0] + t[1]) + (t[2] + t[3]);
}

// Rastrigin of a trial for K = 8 (long vectors) and K = 4 (the plan's choice where blocks of D/2 threads would
// not all be resident at once): the same tiles of K·B coordinates and the same canonical tree as
// de_fused_rastrigin<K>, with another assignment of coordinates to threads: warp w takes the 32 K coordinates
// from 32 K w of the tile, lane l the aligned 4-coordinate chunk 4 l of them and, for K = 8, 128 + 4 l
// (float4 loads, coalesced, on 16-byte aligned rows); each chunk's 4 terms are an aligned subtree, the warp's
// shuffle tree over 32 lanes the subtree of its 128 (for K = 8 the two added: the warp's 256), and warp 0's
// shuffle tree over the B/32 warp sums (shared memory, one barrier per tile, double-buffered by the tile's
// parity) the tile's. Writes the trial into `out`; returns the fitness in thread 0. Twin: as
// de_fused_rastrigin.
__device__ __forceinline__ double de_fused_rastrigin_float4(const DeGenerationParams& g, unsigned int chunk, EvoSequence cross, unsigned int j_rand, unsigned int length, float f, float cr, const float* const rows[5], float* out, const float* lower, const float* upper, double* scratch)
{
    const DeKernelParams& p = g.de;
    const unsigned int d = (unsigned int)p.dimension;
    const unsigned long long begin = (unsigned long long)chunk * g.chunk_len;
    const unsigned long long end_wide = begin + g.chunk_len;
    const unsigned int end = end_wide < d ? (unsigned int)end_wide : d;
    const bool uniform = g.uniform_bounds != 0u;
    const float lo = uniform ? lower[0] : 0.0f;
    const float hi = uniform ? upper[0] : 0.0f;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    // Chunks of 4 coordinates per lane and tile: 2 (K = 8) or 1 (K = 4).
    const unsigned int lane_chunks = g.items / 4u;
    const unsigned int tile = g.items * blockDim.x;
    unsigned long long address = reinterpret_cast<unsigned long long>(out);
#pragma unroll
    for (unsigned int k = 0; k < 5u; ++k) {
        address |= reinterpret_cast<unsigned long long>(rows[k]);
    }
    const bool aligned = (address & 15ull) == 0ull;
    DeTileSums stack;
    stack.init();
    unsigned int half = 0;
    for (unsigned int base = (unsigned int)begin; base < end; base += tile, half ^= 32u) {
        const unsigned int first = base + 128u * lane_chunks * warp + 4u * lane;
        const bool vector = aligned && base + tile <= d;
        // The chunks one after the other (not unrolled: 64 registers without spills); 4 float4 loads per
        // chunk and warp are in flight, and the multiprocessor holds 32 warps.
        double a0 = 0.0;
        double a1 = 0.0;
#pragma unroll 1
        for (unsigned int c = 0; c < lane_chunks; ++c) {
            const unsigned int g0 = first + 128u * c;
            float v[4];
            if (vector) {
                de_fused_chunk4<true>(p, g0, cross, j_rand, length, f, cr, rows, out, lower, upper, uniform, lo, hi, v);
            } else {
                de_fused_chunk4<false>(p, g0, cross, j_rand, length, f, cr, rows, out, lower, upper, uniform, lo, hi, v);
            }
            // One range check for the 4 cosine arguments instead of one per cosine.
            const bool reduced = DE_TERMS_REDUCED(v);
            const double sum = reduced ? de_chunk_terms4<true>(g0, d, v) : de_chunk_terms4<false>(g0, d, v);
            if (c == 0u) {
                a0 = sum;
            } else {
                a1 = sum;
            }
        }
        // Unconditional shuffle adds: lanes that are not multiples of 2 off compute values no later level of
        // lane 0 reads; the left operand is always the lower lane's subtree.
#pragma unroll
        for (unsigned int off = 1; off < 32u; off <<= 1) {
            a0 = a0 + __shfl_down_sync(EVO_FULL_MASK, a0, off);
            a1 = a1 + __shfl_down_sync(EVO_FULL_MASK, a1, off);
        }
        if (lane == 0u) {
            scratch[half + warp] = lane_chunks == 2u ? a0 + a1 : a0;
        }
        // Warp 0 reads this tile's half of scratch before it reaches the next tile's barrier, which every warp
        // passes before it writes the same half again (two tiles later).
        __syncthreads();
        if (warp == 0u) {
            double t = lane < warps ? scratch[half + lane] : 0.0;
            for (unsigned int off = 1; off < warps; off <<= 1) {
                t = t + __shfl_down_sync(EVO_FULL_MASK, t, off);
            }
            if (lane == 0u) {
                stack.push(t);
            }
        }
    }
    double sum = 0.0;
    if (threadIdx.x == 0) {
        // As de_fused_rastrigin: pad to a power of two (one chunk) or to the chunk's tile count.
        const unsigned long long tiles = g.chunks == 1u ? 0ull : g.chunk_len / tile;
        sum = stack.sum(tiles);
    }
    return sum;
}

#ifndef EVO_DE_USER_TERM
// ETC fitness of a trial of n <= 2B tasks (one tile): thread t builds tasks 2t and 2t + 1, maps them to
// machines, and every machine's load and the flowtime are the canonical trees over the tile's leaves (ETC or
// +0.0), all reduced together: each warp's shuffle tree per tree, then one warp per tree over the warps'
// sums. Writes the trial into `out`; returns λ·makespan + (1 − λ)·flowtime/m in thread 0. Twin: DeCpu's
// trial loop followed by EtcProblem::evaluate (evo-benchmarks' benchmarks_discrete_etc_real).
__device__ __forceinline__ double de_fused_etc(const DeGenerationParams& p, EvoSequence cross, unsigned int j_rand, unsigned int length, float f, float cr, const float* const rows[5], float* out, const float* lower, const float* upper, const float* etc, double* s_warp, double* s_tree)
{
    const unsigned int n = (unsigned int)p.de.dimension;
    const unsigned int machines = p.machines;
    const unsigned int t0 = 2u * threadIdx.x;
    unsigned int machine[2] = {0xffffffffu, 0xffffffffu};
    double time[2] = {0.0, 0.0};
    if (t0 < n) {
        const uint4 words = p.de.crossover == DE_CROSSOVER_EXPONENTIAL ? make_uint4(0u, 0u, 0u, 0u) : evo_sequence_block(cross, t0 / 4u);
        // Both tasks are built before the first store (see de_fused_rastrigin).
        const bool uniform = p.uniform_bounds != 0u;
        const float lo = uniform ? lower[0] : 0.0f;
        const float hi = uniform ? upper[0] : 0.0f;
        float value[2] = {0.0f, 0.0f};
#pragma unroll
        for (unsigned int k = 0; k < 2u; ++k) {
            const unsigned int t = t0 + k;
            if (t < n) {
                const float u = evo_uniform_f32(evo_uint4_word(words, t % 4u));
                value[k] = de_trial_coordinate(p.de, t, u, j_rand, length, f, cr, rows[0], rows[1], rows[2], rows[3], rows[4], lower, upper, uniform, lo, hi);
            }
        }
#pragma unroll
        for (unsigned int k = 0; k < 2u; ++k) {
            const unsigned int t = t0 + k;
            if (t < n) {
                machine[k] = evo_etc_machine_of(value[k], machines);
                time[k] = (double)etc[(unsigned long long)t * machines + machine[k]];
                out[t] = value[k];
            }
        }
    }
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    // Tree q < m is machine q's load, tree m the flowtime.
    for (unsigned int q = 0; q <= machines; ++q) {
        const double left = (q == machines || machine[0] == q) ? time[0] : 0.0;
        const double right = (q == machines || machine[1] == q) ? time[1] : 0.0;
        const double v = evo_warp_tree<false>(left + right, 32u);
        if ((threadIdx.x & 31u) == 0u) {
            s_warp[q * 32u + warp] = v;
        }
    }
    __syncthreads();
    for (unsigned int q = warp; q <= machines; q += warps) {
        const unsigned int lane = threadIdx.x & 31u;
        const double r = evo_warp_tree<false>(lane < warps ? s_warp[q * 32u + lane] : 0.0, warps);
        if (lane == 0u) {
            s_tree[q] = r;
        }
    }
    __syncthreads();
    double fitness = 0.0;
    if (threadIdx.x == 0) {
        double longest = 0.0;
        for (unsigned int q = 0; q < machines; ++q) {
            if (s_tree[q] > longest) {
                longest = s_tree[q];
            }
        }
        const double total = s_tree[machines];
        fitness = p.lambda * longest + (1.0 - p.lambda) * (total / (double)machines);
    }
    return fitness;
}
#endif

// The evaluation of de_generation_f32: ETC (n <= 2B, m <= DE_FUSED_MAX_MACHINES, items 2, one chunk) or
// Rastrigin (items 2, 4 or 8, any chunks). Writes the trial into `out`; returns its fitness in thread 0.
struct DeBuiltInEvaluation {
    const DeGenerationParams* p;
    const float* lower;
    const float* upper;
    const float* etc;
    double* s_warp;
    double* s_tree;

    __device__ __forceinline__ double operator()(unsigned int, unsigned int chunk, EvoSequence cross, unsigned int j_rand, unsigned int length, float f, float cr, const float* const rows[5], float* out) const
    {
#ifndef EVO_DE_USER_TERM
        if (p->problem == DE_PROBLEM_ETC) {
            return de_fused_etc(*p, cross, j_rand, length, f, cr, rows, out, lower, upper, etc, s_warp, s_tree);
        }
#endif
        return p->items == 2u ? de_fused_rastrigin<2u>(*p, chunk, cross, j_rand, length, f, cr, rows, out, lower, upper, s_warp)
                              : de_fused_rastrigin_float4(*p, chunk, cross, j_rand, length, f, cr, rows, out, lower, upper, s_warp);
    }
};

// One whole generation for the paper's problems: de_generation with DeBuiltInEvaluation. Launch bounds: any
// block up to 1024 threads must launch (at most 64 registers).
extern "C" __global__ void __launch_bounds__(1024) de_generation_f32(float* buffer0, float* buffer1, const unsigned int* slot_in, unsigned int* slot_out, double* fitness, float* weights, float* rates, unsigned int* best, double* best_fitness, double* partials, unsigned int* vector_done, unsigned int* done, const float* lower, const float* upper, const float* etc, DeGenerationParams p)
{
    DE_GENERATION_SHARED(shared);
    const DeBuiltInEvaluation evaluation = {&p, lower, upper, etc, shared.warp, shared.tree};
    de_generation(buffer0, buffer1, slot_in, slot_out, fitness, weights, rates, best, best_fitness, partials, vector_done, done, p, evaluation, shared);
}

// ---- Local search of the best ETC schedule (crates/de/src/local_search.rs): de_local_search_etc_f32 and its
// de_ls_* device functions, in their own file.
#ifndef EVO_DE_USER_TERM
#include "cuda/de_local_search.cuh"
#endif
#endif

#ifdef EVO_DE_USER
#include "common/problems/de_user_generation.cuh"
#endif
