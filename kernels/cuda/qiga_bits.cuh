// QIGA on any bit-string problem: the kernels of the qiga module for the bit-string contract, included by
// kernels/cuda/qiga.cu at its end, after the SGA baseline (one module, one PTX).

// ---- QIGA on any bit-string problem (issue 29; Rust twin: crates/qiga/src/bits/cpu.rs, the shared steps of
// crates/qiga/src/cpu.rs). The problem is not in this module: per generation the engine launches
// qiga_bits_observe (step 2, into packed rows), then the user's optional repair and the user's evaluation
// (through evo_benchmarks::cuda::BitEvaluator) on those rows, then qiga_bits_update (steps 7 and 5). The
// evaluation writes fitness (minimised); QIGA maximises minus the fitness, so "f(x) >= f(b)" of the paper
// reads fitness(x) <= fitness(b) here and the best is the first minimum. State (run-major): theta[run][i][j]
// (f32), rows[run][i][word] (packed Bits), fitness[run][i] (f64), best[run][word], best_fitness[run] (f64,
// +inf before generation 0).

// Scalar arguments of both kernels; mirrored by `BitsParams` in crates/qiga/src/bits/launch.rs.
struct QigaBitsParams {
    unsigned int runs;            // independent runs
    unsigned int bits;            // L, qubits per individual
    unsigned int words;           // ceil(L / 32), packed words per row
    unsigned int population;      // quantum individuals per run
    unsigned int generation;      // the generation this launch works on
    unsigned int sign_choice;     // 0: the +-1 cells are +1; 1: drawn from the sign stream
    unsigned int quadrant_rule;   // 0: true sign of alpha*beta; 1: Nowotniak's fmodf quirk
    unsigned int observe_stream;  // evo_rng::Stream::QigaObserve
    unsigned int sign_stream;     // evo_rng::Stream::QigaSign
    unsigned int padding[3];
};
static_assert(sizeof(QigaBitsParams) == 48, "QigaBitsParams must match its Rust mirror (48 bytes)");

// Step 2 into packed rows: one thread per word of every row of every run, the word's qubits observed with the
// uniforms of the paper kernel (word j of the sequence (QigaObserve, generation, i)). Padding bits stay zero.
extern "C" __global__ void qiga_bits_observe(const unsigned long long* seeds, const float* theta, unsigned int* rows, QigaBitsParams p)
{
    const unsigned long long idx = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long row = idx / p.words;
    if (row >= (unsigned long long)p.runs * p.population) {
        return;
    }
    const unsigned int w = (unsigned int)(idx - row * p.words);
    const unsigned int run = (unsigned int)(row / p.population);
    const unsigned int i = (unsigned int)(row - (unsigned long long)run * p.population);
    const EvoSequence s = evo_sequence(seeds[run], p.observe_stream, p.generation, i);
    const float* th = theta + row * p.bits;
    const unsigned int end = p.bits < 32u * w + 32u ? p.bits : 32u * w + 32u;
    unsigned int word = 0u;
    for (unsigned int j = 32u * w; j < end; ++j) {
        if (qiga_observe(th[j], evo_sequence_uniform_f32(s, j))) {
            word |= 1u << (j & 31u);
        }
    }
    rows[idx] = word;
}

// Steps 7 and 5 of one run per block, after the evaluation: rotate towards b judged against the best of the
// previous generations (not in generation 0), then the generation's best (first minimum of the fitness)
// replaces b when strictly better. Twin: cpu::update_and_store_best on minus the fitness.
extern "C" __global__ void qiga_bits_update(const unsigned long long* seeds, const float* angles, float* theta, const unsigned int* rows, const double* fitness, unsigned int* best, double* best_fitness, QigaBitsParams p)
{
    __shared__ unsigned int leader;
    __shared__ bool improved;
    const unsigned int run = blockIdx.x;
    if (run >= p.runs) {
        return;
    }
    const unsigned int n = p.bits;
    const unsigned int genes = p.population * n;
    float* th = theta + (size_t)run * genes;
    const unsigned int* x = rows + (size_t)run * p.population * p.words;
    const double* f = fitness + (size_t)run * p.population;
    unsigned int* b = best + (size_t)run * p.words;
    if (p.generation > 0u) {
        const unsigned long long seed = seeds[run];
        float lut[5];
        for (int k = 0; k < 5; ++k) {
            lut[k] = angles[run * 5u + k];
        }
        const double previous = best_fitness[run];
        for (unsigned int idx = threadIdx.x; idx < genes; idx += blockDim.x) {
            const unsigned int i = idx / n;
            const unsigned int j = idx - i * n;
            const bool flag = f[i] <= previous;
            unsigned int sign_word = 0u;
            if (p.sign_choice == 1u) {
                sign_word = evo_sequence_word(evo_sequence(seed, p.sign_stream, p.generation, i), j);
            }
            const bool xj = ((x[(size_t)i * p.words + (j >> 5)] >> (j & 31u)) & 1u) != 0u;
            const bool bj = ((b[j >> 5] >> (j & 31u)) & 1u) != 0u;
            th[idx] = qiga_rotate(th[idx], xj, bj, flag, lut, sign_word, p.sign_choice, p.quadrant_rule);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int l = 0;
        for (unsigned int i = 1; i < p.population; ++i) {
            if (f[i] < f[l]) {
                l = i;
            }
        }
        leader = l;
        improved = f[l] < best_fitness[run];
        if (improved) {
            best_fitness[run] = f[l];
        }
    }
    __syncthreads();
    if (improved) {
        for (unsigned int w = threadIdx.x; w < p.words; w += blockDim.x) {
            b[w] = x[(size_t)leader * p.words + w];
        }
    }
}
