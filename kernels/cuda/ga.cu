// The GA paper's kernels (Oiso et al., §3.2; spec ga.md §3), module `ga`, population resident on the device.
// Individuals are rows of W = ceil(L/32) u32 words in the evo_core::Bits layout (bit g in word g/32, bit g%32),
// padding bits zero. One generation (crates/ga/src/cuda/mod.rs runs them in this order, 7 kernels):
//   ga_select_copy_u32 -> ga_crossover_u32 -> ga_mutate_elite_u32 -> ga_decode_f32 -> evaluation
//   (evo-benchmarks) -> sort (evo-sort) -> ga_exchange_best_u32
// (paper RNG mode: ga_xor128_fill_u32 -> ga_tournament_paper_u32 -> ga_copy_u32 -> ga_crossover_paper_u32 ->
// ga_mutate_paper_u32 -> ga_elite_u32 -> the same last four).
// The device functions ga_op_* are the twins of crates/ga/src/ops.rs, same names, same order of operations.
#include "common/rng.cuh"

// Stream ids of evo_rng::Stream (crates/rng/src/stream.rs).
#define GA_STREAM_INIT 0x0100u
#define GA_STREAM_TOURNAMENT 0x0101u
#define GA_STREAM_CROSSOVER 0x0102u
#define GA_STREAM_MUTATION 0x0103u

// Scalar arguments of every ga kernel; mirrored by `GaKernelParams` in crates/ga/src/cuda/launch.rs.
struct GaKernelParams {
    unsigned long long seed;     // the run's seed (Philox key)
    double lo;                   // decode: lower end of the range
    double hi;                   // decode: upper end of the range
    unsigned int population;     // N
    unsigned int words;          // W = ceil(L / 32)
    unsigned int bits;           // L
    unsigned int variables;      // decode: n = L / 16 variables
    unsigned int step;           // the generation being produced (0: initialisation)
    unsigned int tournament;     // tournament size
    unsigned int elite;          // elite size
    float crossover_rate;        // p_c
    float mutation_rate;         // p_m
    unsigned int runs;           // batched kernels: runs in this launch (run r has seed seed + r)
    unsigned long long array_len;  // paper RNG mode: words of the per-generation random array
    unsigned int xor_threads;    // paper RNG mode: xor128 generator threads T
    unsigned int pad;            // keeps the size a multiple of 8
};
static_assert(sizeof(GaKernelParams) == 80, "GaKernelParams must match its Rust mirror (80 bytes)");

// ---- Operators (twins of crates/ga/src/ops.rs).

__device__ __forceinline__ unsigned int ga_op_valid_mask(unsigned int word, unsigned int bits)
{
    const unsigned int first = word * 32u;
    if (first + 32u <= bits) return 0xFFFFFFFFu;
    if (first >= bits) return 0u;
    return (1u << (bits - first)) - 1u;
}

__device__ __forceinline__ unsigned int ga_op_init_word(unsigned long long seed, unsigned int individual,
                                                        unsigned int word, unsigned int bits)
{
    const EvoSequence s = evo_sequence(seed, GA_STREAM_INIT, 0u, individual);
    return evo_sequence_word(s, word) & ga_op_valid_mask(word, bits);
}

__device__ __forceinline__ unsigned int ga_op_tournament(unsigned long long seed, unsigned int step,
                                                         unsigned int slot, unsigned int population,
                                                         unsigned int size)
{
    const EvoSequence s = evo_sequence(seed, GA_STREAM_TOURNAMENT, step, slot);
    unsigned int champion = evo_sequence_below(s, 0u, population);
    for (unsigned int j = 1; j < size; ++j) {
        champion = min(champion, evo_sequence_below(s, j, population));
    }
    return champion;
}

// Returns the crossover point c in [1, L-1], or 0 when the pair is not crossed.
__device__ __forceinline__ unsigned int ga_op_crossover_point(unsigned long long seed, unsigned int step,
                                                              unsigned int pair, unsigned int bits, float rate)
{
    const EvoSequence s = evo_sequence(seed, GA_STREAM_CROSSOVER, step, pair);
    if (evo_sequence_uniform_f32(s, 1u) <= rate) {
        return 1u + evo_sequence_below(s, 0u, bits - 1u);
    }
    return 0u;
}

__device__ __forceinline__ void ga_op_crossover_word(unsigned int* first, unsigned int* second, unsigned int word,
                                                     unsigned int c)
{
    const unsigned int start = word * 32u;
    unsigned int swapped;
    if (c <= start) {
        swapped = 0xFFFFFFFFu;
    } else if (c >= start + 32u) {
        swapped = 0u;
    } else {
        swapped = ~((1u << (c - start)) - 1u);
    }
    const unsigned int difference = (*first ^ *second) & swapped;
    *first ^= difference;
    *second ^= difference;
}

__device__ __forceinline__ unsigned int ga_op_mutation_mask(unsigned long long seed, unsigned int step,
                                                            unsigned int individual, unsigned int word,
                                                            unsigned int bits, float rate)
{
    const EvoSequence s = evo_sequence(seed, GA_STREAM_MUTATION, step, individual);
    const unsigned int valid = ga_op_valid_mask(word, bits);
    unsigned int mask = 0u;
    for (unsigned int lane_in_word = 0; lane_in_word < 8u; ++lane_in_word) {
        const uint4 b = evo_sequence_block(s, word * 8u + lane_in_word);
        for (unsigned int k = 0; k < 4u; ++k) {
            const unsigned int bit = lane_in_word * 4u + k;
            if (evo_uniform_f32(evo_uint4_word(b, k)) < rate) {
                mask |= 1u << bit;
            }
        }
    }
    return mask & valid;
}

// ---- Kernels.

// Steps 0-1: the random initial population, one thread per word (grid-stride).
extern "C" __global__ void ga_init_u32(unsigned int* population, GaKernelParams p)
{
    const unsigned long long total = (unsigned long long)p.population * p.words;
    for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; k < total;
         k += (unsigned long long)blockDim.x * gridDim.x) {
        const unsigned int individual = (unsigned int)(k / p.words);
        const unsigned int word = (unsigned int)(k % p.words);
        population[k] = ga_op_init_word(p.seed, individual, word, p.bits);
    }
}

// Step 2: decode by parallel reduction (paper §4.3). Block per individual, thread per bit: bit b of a
// variable contributes bit * 2^(15-b), a shuffle tree over each aligned group of 16 lanes (a half warp: strides
// 8, 4, 2, 1 within width 16) sums them (integers, so the order does not matter), and the group's first lane
// writes x = f32(lo + (hi - lo) * k / 65535) in double (benchmarks.md (a) item 4; no FMA can form: the sum's
// operand is a quotient). No shared memory and no barrier: a variable's 16 bits lie in one half warp.
// blockDim.x is a multiple of 32 (every lane takes part in the shuffles; lanes past the bits add 0).
extern "C" __global__ void ga_decode_f32(const unsigned int* population, float* x, GaKernelParams p)
{
    const unsigned int coded = p.variables * 16u;
    for (unsigned int individual = blockIdx.x; individual < p.population; individual += gridDim.x) {
        const unsigned int* row = population + (unsigned long long)individual * p.words;
        for (unsigned int base = 0; base < coded; base += blockDim.x) {
            const unsigned int g = base + threadIdx.x;
            unsigned int value = 0u;
            if (g < coded) {
                const unsigned int bit = (row[g / 32u] >> (g % 32u)) & 1u;
                value = bit << (15u - g % 16u);
            }
#pragma unroll
            for (unsigned int stride = 8u; stride > 0u; stride >>= 1) {
                value += __shfl_down_sync(0xFFFFFFFFu, value, stride, 16);
            }
            if (g < coded && g % 16u == 0u) {
                const double k = (double)value;
                x[(unsigned long long)individual * p.variables + g / 16u] =
                    (float)(p.lo + (p.hi - p.lo) * k / 65535.0);
            }
        }
    }
}

// Step 3's exchange and step 8 (best so far) in one kernel: block per row r copies row order[r] of the evaluated
// population `next` into sorted row r (the GA paper's second sort kernel, as evo-sort's sort_exchange_rows_u32);
// block 0 also makes that row the best so far when its fitness sorted_fitness[0] is below the best's
// (best_fitness holds +inf before the first call), and advances the single-run engine's step counter (*step:
// the generation the next selection, crossover and mutation produce), so that a recorded generation (a CUDA
// graph, whose scalar arguments are fixed) draws new numbers at every replay. The best row is read from
// `next`, which no block writes, so block 0 needs no other block's copy.
extern "C" __global__ void ga_exchange_best_u32(const unsigned int* next, const unsigned int* order,
                                                const double* sorted_fitness, unsigned int* sorted,
                                                unsigned int* best, double* best_fitness, unsigned int* step,
                                                GaKernelParams p)
{
    for (unsigned int row = blockIdx.x; row < p.population; row += gridDim.x) {
        const unsigned int from = order[row];
        // A permutation never fails this; the guard keeps a corrupted order inside the buffers.
        if (from >= p.population) {
            continue;
        }
        const unsigned int* source = next + (unsigned long long)from * p.words;
        unsigned int* target = sorted + (unsigned long long)row * p.words;
        for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
            target[j] = source[j];
        }
    }
    if (blockIdx.x != 0) {
        return;
    }
    const bool better = sorted_fitness[0] < best_fitness[0];
    const unsigned int first = order[0];
    __syncthreads();
    if (better && first < p.population) {
        const unsigned int* source = next + (unsigned long long)first * p.words;
        for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
            best[j] = source[j];
        }
        if (threadIdx.x == 0) {
            best_fitness[0] = sorted_fitness[0];
        }
    }
    if (threadIdx.x == 0) {
        step[0] += 1u;
    }
}

// Steps 4 and 5 (tournament and copy, paper §3.2.3) in one kernel: block per slot; each thread that copies
// words draws the slot's champion (the same draws, so the same champion) and copies the champion's row of the
// sorted population. The single-run kernels (selection, crossover, mutation) read the generation from the
// device counter *step (advanced by ga_exchange_best_u32), not from p.step.
extern "C" __global__ void ga_select_copy_u32(const unsigned int* sorted, unsigned int* next, const unsigned int* step,
                                              GaKernelParams p)
{
    const unsigned int generation = step[0];
    if (threadIdx.x >= p.words) {
        return;
    }
    for (unsigned int slot = blockIdx.x; slot < p.population; slot += gridDim.x) {
        const unsigned int champion = ga_op_tournament(p.seed, generation, slot, p.population, p.tournament);
        const unsigned int* from = sorted + (unsigned long long)champion * p.words;
        unsigned int* to = next + (unsigned long long)slot * p.words;
        for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
            to[j] = from[j];
        }
    }
}

// Step 5 of paper RNG mode (copy, second selection kernel): block per individual, threads over its words.
extern "C" __global__ void ga_copy_u32(const unsigned int* sorted, const unsigned int* champions,
                                       unsigned int* next, GaKernelParams p)
{
    for (unsigned int slot = blockIdx.x; slot < p.population; slot += gridDim.x) {
        const unsigned int* from = sorted + (unsigned long long)champions[slot] * p.words;
        unsigned int* to = next + (unsigned long long)slot * p.words;
        for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
            to[j] = from[j];
        }
    }
}

// Step 6 (one-point crossover, §3.2.4): block per pair (2k, 2k+1), threads over words.
extern "C" __global__ void ga_crossover_u32(unsigned int* next, const unsigned int* step, GaKernelParams p)
{
    const unsigned int generation = step[0];
    const unsigned int pairs = p.population / 2u;
    for (unsigned int pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
        const unsigned int c = ga_op_crossover_point(p.seed, generation, pair, p.bits, p.crossover_rate);
        if (c == 0u) continue;
        unsigned int* first = next + (unsigned long long)(2u * pair) * p.words;
        unsigned int* second = first + p.words;
        for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
            unsigned int a = first[j];
            unsigned int b = second[j];
            ga_op_crossover_word(&a, &b, j, c);
            first[j] = a;
            second[j] = b;
        }
    }
}

// Step 7 (bit mutation, §3.2.5) and elitism (spec ga.md §4 decision 2) in one kernel: block per individual,
// thread per word (32 genes, 8 Philox lanes); rows 0..elite take the sorted current best unchanged instead
// (what mutating them and then overwriting them would leave). No draws when p_m = 0.
extern "C" __global__ void ga_mutate_elite_u32(const unsigned int* sorted, unsigned int* next, const unsigned int* step,
                                               GaKernelParams p)
{
    const unsigned int generation = step[0];
    for (unsigned int individual = blockIdx.x; individual < p.population; individual += gridDim.x) {
        const unsigned long long offset = (unsigned long long)individual * p.words;
        unsigned int* row = next + offset;
        if (individual < p.elite) {
            for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
                row[j] = sorted[offset + j];
            }
        } else if (p.mutation_rate > 0.0f) {
            for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
                row[j] ^= ga_op_mutation_mask(p.seed, generation, individual, j, p.bits, p.mutation_rate);
            }
        }
    }
}

// Elitism of paper RNG mode: rows 0..elite of the next population become the sorted current best, unchanged.
// Block per elite row, threads over words.
extern "C" __global__ void ga_elite_u32(const unsigned int* sorted, unsigned int* next, GaKernelParams p)
{
    for (unsigned int row = blockIdx.x; row < p.elite; row += gridDim.x) {
        const unsigned long long offset = (unsigned long long)row * p.words;
        for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
            next[offset + j] = sorted[offset + j];
        }
    }
}

// ---- The fused, batched path (crates/ga/src/cuda/batch.rs): K independent runs, run r with seed
// p.seed + r (evo_rng::Philox::for_batch_run), in each launch. One generation is
//   ga_batch_reproduce_u32 -> evaluation (evo-benchmarks) -> sort_segments + exchange (evo-sort) -> ga_batch_best_u32
// with the tournament, copy, crossover, mutation, elitism and decoding of steps 2 and 4-8 fused into one kernel.

// Decodes the 16-bit variable held in the low 16 bits of `half` (its first bit in bit 0): the code reads the
// bits first-most-significant, i.e. the bit-reversed half.
__device__ __forceinline__ float ga_decode_half(unsigned int half, double lo, double hi)
{
    const double k = (double)(__brev(half & 0xFFFFu) >> 16);
    return (float)(lo + (hi - lo) * k / 65535.0);
}

// Writes the decoded variables 2j and 2j + 1 of word j of an individual (16 | 32, so every variable lies in one
// word; the same values as ga_decode_f32's reduction).
__device__ __forceinline__ void ga_decode_word(float* x, unsigned int word, unsigned int value, GaKernelParams p)
{
    const unsigned int v = 2u * word;
    if (v < p.variables) x[v] = ga_decode_half(value, p.lo, p.hi);
    if (v + 1u < p.variables) x[v + 1u] = ga_decode_half(value >> 16, p.lo, p.hi);
}

// Steps 4-8 and decoding, fused: block (pair, run) builds slots 2*pair and 2*pair + 1 of run `run`'s next
// population from its sorted population, threads over words. Step 0 (p.step == 0) builds the initial
// population instead.
extern "C" __global__ void ga_batch_reproduce_u32(const unsigned int* sorted, unsigned int* next, float* x,
                                                  GaKernelParams p)
{
    const unsigned int run = blockIdx.y;
    const unsigned long long seed = p.seed + run;
    const unsigned long long base = (unsigned long long)run * p.population;
    const unsigned int pairs = (p.population + 1u) / 2u;
    for (unsigned int pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
        const unsigned int s0 = 2u * pair;
        const unsigned int s1 = s0 + 1u;
        const bool has_partner = s1 < p.population;
        unsigned int c0 = 0u, c1 = 0u, c = 0u;
        if (p.step > 0u) {
            c0 = ga_op_tournament(seed, p.step, s0, p.population, p.tournament);
            if (has_partner) {
                c1 = ga_op_tournament(seed, p.step, s1, p.population, p.tournament);
                c = ga_op_crossover_point(seed, p.step, pair, p.bits, p.crossover_rate);
            }
        }
        for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
            unsigned int a, b = 0u;
            if (p.step == 0u) {
                a = ga_op_init_word(seed, s0, j, p.bits);
                if (has_partner) b = ga_op_init_word(seed, s1, j, p.bits);
            } else {
                a = sorted[(base + c0) * p.words + j];
                if (has_partner) b = sorted[(base + c1) * p.words + j];
                if (c != 0u) ga_op_crossover_word(&a, &b, j, c);
                if (p.mutation_rate > 0.0f) {
                    a ^= ga_op_mutation_mask(seed, p.step, s0, j, p.bits, p.mutation_rate);
                    if (has_partner) b ^= ga_op_mutation_mask(seed, p.step, s1, j, p.bits, p.mutation_rate);
                }
                if (s0 < p.elite) a = sorted[(base + s0) * p.words + j];
                if (has_partner && s1 < p.elite) b = sorted[(base + s1) * p.words + j];
            }
            next[(base + s0) * p.words + j] = a;
            ga_decode_word(x + (base + s0) * p.variables, j, a, p);
            if (has_partner) {
                next[(base + s1) * p.words + j] = b;
                ga_decode_word(x + (base + s1) * p.variables, j, b, p);
            }
        }
    }
}

// The best so far of every run (as ga_best_u32), block per run.
extern "C" __global__ void ga_batch_best_u32(const unsigned int* sorted, const double* sorted_fitness,
                                             unsigned int* best, double* best_fitness, GaKernelParams p)
{
    for (unsigned int run = blockIdx.x; run < p.runs; run += gridDim.x) {
        const unsigned long long first = (unsigned long long)run * p.population;
        const bool better = sorted_fitness[first] < best_fitness[run];
        __syncthreads();
        if (better) {
            for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
                best[(unsigned long long)run * p.words + j] = sorted[first * p.words + j];
            }
            if (threadIdx.x == 0) {
                best_fitness[run] = sorted_fitness[first];
            }
        }
        __syncthreads();
    }
}

// ---- Paper RNG mode (spec ga.md §4 decision 7): step 1's RNG kernel fills one array of random words per
// generation, [mutation N*L | tournament k*N | crossover ceil(N/2)], and the operators read their words from it.

__device__ __forceinline__ unsigned int ga_op_tournament_words(const unsigned int* draws, unsigned int size,
                                                               unsigned int population)
{
    unsigned int champion = evo_below(draws[0], population);
    for (unsigned int j = 1; j < size; ++j) {
        champion = min(champion, evo_below(draws[j], population));
    }
    return champion;
}

__device__ __forceinline__ unsigned int ga_op_crossover_point_word(unsigned int word, unsigned int bits)
{
    return 1u + evo_below(word, bits - 1u);
}

__device__ __forceinline__ unsigned int ga_op_mutation_mask_words(const unsigned int* draws, unsigned int count,
                                                                  unsigned int word, unsigned int bits, float rate)
{
    unsigned int mask = 0u;
    for (unsigned int k = 0; k < count && k < 32u; ++k) {
        if (evo_uniform_f32(draws[k]) < rate) {
            mask |= 1u << k;
        }
    }
    return mask & ga_op_valid_mask(word, bits);
}

// Step 1: thread t advances its xor128 state (x, y, z, w at states[4t..4t+3]) over entries t, t + T, ... of the
// array (coalesced across threads) and stores it back. An all-zero state restarts from the standard start, as
// evo_rng::Xor128::from_words_or_standard does.
extern "C" __global__ void ga_xor128_fill_u32(unsigned int* states, unsigned int* array, GaKernelParams p)
{
    for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t < p.xor_threads; t += blockDim.x * gridDim.x) {
        EvoXor128 s;
        s.x = states[4u * t];
        s.y = states[4u * t + 1u];
        s.z = states[4u * t + 2u];
        s.w = states[4u * t + 3u];
        if ((s.x | s.y | s.z | s.w) == 0u) {
            s.x = 123456789u;
            s.y = 362436069u;
            s.z = 521288629u;
            s.w = 88675123u;
        }
        for (unsigned long long i = t; i < p.array_len; i += p.xor_threads) {
            array[i] = evo_xor128_next(&s);
        }
        states[4u * t] = s.x;
        states[4u * t + 1u] = s.y;
        states[4u * t + 2u] = s.z;
        states[4u * t + 3u] = s.w;
    }
}

// Step 4 from the array: thread per slot.
extern "C" __global__ void ga_tournament_paper_u32(const unsigned int* array, unsigned int* champions,
                                                   GaKernelParams p)
{
    const unsigned long long base = (unsigned long long)p.population * p.bits;
    for (unsigned int slot = blockIdx.x * blockDim.x + threadIdx.x; slot < p.population;
         slot += blockDim.x * gridDim.x) {
        champions[slot] =
            ga_op_tournament_words(array + base + (unsigned long long)p.tournament * slot, p.tournament, p.population);
    }
}

// Step 6 from the array: block per pair, threads over words.
extern "C" __global__ void ga_crossover_paper_u32(const unsigned int* array, unsigned int* next, GaKernelParams p)
{
    const unsigned long long base =
        (unsigned long long)p.population * p.bits + (unsigned long long)p.tournament * p.population;
    const unsigned int pairs = p.population / 2u;
    for (unsigned int pair = blockIdx.x; pair < pairs; pair += gridDim.x) {
        const unsigned int c = ga_op_crossover_point_word(array[base + pair], p.bits);
        unsigned int* first = next + (unsigned long long)(2u * pair) * p.words;
        unsigned int* second = first + p.words;
        for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
            unsigned int a = first[j];
            unsigned int b = second[j];
            ga_op_crossover_word(&a, &b, j, c);
            first[j] = a;
            second[j] = b;
        }
    }
}

// Step 7 from the array: block per individual, thread per word; bit g of individual i reads entry i*L + g.
extern "C" __global__ void ga_mutate_paper_u32(const unsigned int* array, unsigned int* next, GaKernelParams p)
{
    for (unsigned int individual = blockIdx.x; individual < p.population; individual += gridDim.x) {
        unsigned int* row = next + (unsigned long long)individual * p.words;
        for (unsigned int j = threadIdx.x; j < p.words; j += blockDim.x) {
            const unsigned int first_bit = 32u * j;
            const unsigned int count = min(32u, p.bits - first_bit);
            const unsigned int* draws = array + (unsigned long long)individual * p.bits + first_bit;
            row[j] ^= ga_op_mutation_mask_words(draws, count, j, p.bits, p.mutation_rate);
        }
    }
}

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

// Scalar arguments of ga_fused_run_u32; mirrored by `GaFusedParams` in crates/ga/src/cuda/launch.rs.
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
