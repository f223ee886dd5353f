// Many-threaded differential evolution (kernel module `de`, crate evo-de), after Krömer et al., GECCO'11:
// one thread block per vector, the block's threads stride over the coordinates, and every kernel processes
// the whole population in one launch (initial population; trial vectors = mutation, range repair and
// crossover; merge of parents and trials; index of the best vector). The fitness evaluation is evo-benchmarks'
// (modules benchmarks_continuous and benchmarks_discrete).
//
// Every scalar operation is the twin of a function of crates/de/src/ops.rs with the same name (de_<name>)
// and the same order of operations; explicit _rn intrinsics keep that order under every compile profile.
// Random words come from the addressed Philox (common/rng.cuh): (stream, step = generation, individual =
// vector), so the draws do not depend on the block size.
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
// of k. Twin: cpu::TrialContext::build.
extern "C" __global__ void de_trial_f32(float* trials, float* trial_weights, float* trial_rates, const float* population, const float* weights, const float* rates, const unsigned int* best, const float* lower, const float* upper, DeKernelParams p)
{
    __shared__ unsigned int s_partners[3];
    __shared__ unsigned int s_j_rand;
    __shared__ unsigned int s_length;
    __shared__ float s_f;
    __shared__ float s_cr;
    const unsigned int d = (unsigned int)p.dimension;
    const unsigned int m = (unsigned int)p.population;
    const unsigned long long best_row = (unsigned long long)best[0] * d;
    for (unsigned int i = blockIdx.x; i < m; i += gridDim.x) {
        const EvoSequence cross = evo_sequence(p.seed, DE_STREAM_CROSS, p.generation, i);
        if (threadIdx.x == 0) {
            const EvoSequence si = evo_sequence(p.seed, DE_STREAM_INDICES, p.generation, i);
            const uint4 iw = evo_sequence_block(si, 0);
            const unsigned int words[3] = {iw.x, iw.y, iw.z};
            de_distinct_indices(words, i, m, s_partners);
            float f = weights[i];
            float cr = rates[i];
            if (p.jde != 0) {
                const float2 adapted = de_jde_adapt(evo_sequence_block(evo_sequence(p.seed, DE_STREAM_JDE, p.generation, i), 0), f, cr);
                f = adapted.x;
                cr = adapted.y;
            }
            s_f = f;
            s_cr = cr;
            s_j_rand = evo_sequence_below(evo_sequence(p.seed, DE_STREAM_JRAND, p.generation, i), 0, d);
            s_length = d;
        }
        __syncthreads();
        const float f = s_f;
        const float cr = s_cr;
        const unsigned int j_rand = s_j_rand;
        if (p.crossover == DE_CROSSOVER_EXPONENTIAL) {
            // Twin: ops::exponential_length. The first k in [1, D) with u_k >= CR, chunk by chunk.
            for (unsigned int base = 1; base < d; base += blockDim.x) {
                const unsigned int k = base + threadIdx.x;
                if (k < d && evo_sequence_uniform_f32(cross, k) >= cr) {
                    atomicMin(&s_length, k);
                }
                __syncthreads();
                const bool found = s_length < d;
                __syncthreads();
                if (found) {
                    break;
                }
            }
        }
        const unsigned int length = s_length;
        const unsigned long long row = (unsigned long long)i * d;
        const unsigned long long a = (unsigned long long)s_partners[0] * d;
        const unsigned long long b = (unsigned long long)s_partners[1] * d;
        const unsigned long long c = (unsigned long long)s_partners[2] * d;
        for (unsigned int j = threadIdx.x; j < d; j += blockDim.x) {
            bool takes_mutant;
            if (p.crossover == DE_CROSSOVER_BINOMIAL) {
                takes_mutant = de_binomial_takes_mutant(j, j_rand, evo_sequence_uniform_f32(cross, j), cr);
            } else if (p.crossover == DE_CROSSOVER_PAPER_LITERAL) {
                takes_mutant = de_paper_literal_takes_mutant(j, j_rand, evo_sequence_uniform_f32(cross, j), cr);
            } else {
                takes_mutant = de_exponential_takes_mutant(j, j_rand, length, d);
            }
            const float x = population[row + j];
            float out = x;
            if (takes_mutant) {
                float mutant;
                if (p.strategy == DE_STRATEGY_RAND1) {
                    mutant = de_mutate_rand1(population[a + j], population[b + j], population[c + j], f);
                } else if (p.strategy == DE_STRATEGY_BEST1) {
                    mutant = de_mutate_best1(population[best_row + j], population[a + j], population[b + j], f);
                } else {
                    mutant = de_mutate_current_to_best1(x, population[best_row + j], population[a + j], population[b + j], f);
                }
                out = de_repair(mutant, lower[j], upper[j]);
            }
            trials[row + j] = out;
        }
        if (threadIdx.x == 0) {
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
// power-of-two size; writes its index to best[0] (read by de_trial_f32) and (fitness, index) to best_fitness
// so that the host reads both in one copy. Twin: ops::best_index.
extern "C" __global__ void de_best_index_f64(unsigned int* best, double* best_fitness, const double* fitness, DeKernelParams p)
{
    __shared__ long long s_key[1024];
    __shared__ unsigned int s_index[1024];
    long long key = 0x7fffffffffffffffll;
    unsigned int index = 0xffffffffu;
    for (unsigned int i = threadIdx.x; i < p.population; i += blockDim.x) {
        const long long k = de_total_order_key(fitness[i]);
        if (index == 0xffffffffu || k < key) {
            key = k;
            index = i;
        }
    }
    s_key[threadIdx.x] = key;
    s_index[threadIdx.x] = index;
    __syncthreads();
    for (unsigned int active = blockDim.x >> 1; active > 0; active >>= 1) {
        if (threadIdx.x < active) {
            const long long other_key = s_key[threadIdx.x + active];
            const unsigned int other_index = s_index[threadIdx.x + active];
            if (other_key < s_key[threadIdx.x] || (other_key == s_key[threadIdx.x] && other_index < s_index[threadIdx.x])) {
                s_key[threadIdx.x] = other_key;
                s_index[threadIdx.x] = other_index;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        best[0] = s_index[0];
        best_fitness[0] = fitness[s_index[0]];
        best_fitness[1] = (double)s_index[0];
    }
}
