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

// Scalar arguments of every ga kernel; mirrored by `GaKernelParams` in crates/ga/src/cuda/launch/mod.rs.
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

// ---- The fused path (crates/ga/src/cuda/fused.rs): ga_fused_run_u32, ga_fused_cluster_run_u32 and
// ga_fused_draws_u32, in their own file.
#include "cuda/ga_fused.cuh"
