// The SGA baseline kernel of the qiga module, included by kernels/cuda/qiga.cu at its end (the file kept under
// the size limit; one module, one PTX).

// ---- The SGA baseline (Rust twin: crates/qiga/src/sga/mod.rs, steps numbered there). One block = one run;
// threads stride over slots, pairs, genes or individuals by phase; prefix sums, elitism and store-best on
// thread 0 (index order, as the CPU). State: individuals[run][i][j] and its scratch next[run][i][j] (bytes),
// profits and next_profits[run][i] (f64), cumulative[run][i] (f64 scratch), best[run][j], best_profit[run].

// Scalar arguments; mirrored by `SgaRunParams` in crates/qiga/src/cuda/sga.rs.
struct QigaSgaParams {
    double capacity;                // knapsack capacity C
    float crossover_rate;           // P_c
    float mutation_rate;            // P_m per bit
    unsigned int runs;              // blocks
    unsigned int items;             // n
    unsigned int population;        // individuals per run
    unsigned int first_generation;  // generation index of this launch's first generation (0: initialise)
    unsigned int generations;       // generations run by this launch
    unsigned int init_stream;       // evo_rng::Stream::SgaInit
    unsigned int selection_stream;  // evo_rng::Stream::SgaSelection
    unsigned int crossover_stream;  // evo_rng::Stream::SgaCrossover
    unsigned int mutation_stream;   // evo_rng::Stream::SgaMutation
    unsigned int repair;            // 0: the paper's index-order repair; 1: the greedy repair
    unsigned int greedy_seed;       // 1: individual 0 of generation 0 becomes the uploaded best (the greedy seed)
    unsigned int local_search;      // 1: step 6 improves the new leader in place by the swap-window search
};
static_assert(sizeof(QigaSgaParams) == 64, "QigaSgaParams must match its Rust mirror (64 bytes)");

// Steps 0 and 4's repair and evaluation of one individual by the SGA's `repair` option.
__device__ double qiga_sga_repair_evaluate(unsigned char* x, const float* weights, const float* profits, const unsigned int* order, unsigned int n, double capacity, unsigned int repair)
{
    return repair == 1u ? qiga_greedy_repair_evaluate(x, weights, profits, order, n, capacity)
                        : qiga_repair_evaluate(x, weights, profits, n, capacity);
}

// Twin: sga::ops::roulette_pick (the first index whose cumulative profit exceeds u * total).
__device__ unsigned int qiga_sga_roulette_pick(const double* cumulative, unsigned int count, double u)
{
    const unsigned int last = count - 1u;
    const double total = cumulative[last];
    if (total <= 0.0) {
        const unsigned int slot = (unsigned int)(u * (double)count);
        return slot < last ? slot : last;
    }
    const double target = u * total;
    for (unsigned int i = 0; i < count; ++i) {
        if (cumulative[i] > target) {
            return i;
        }
    }
    return last;
}

// Twin: sga_generation's step 6 / keep_best_with: thread 0 finds the first maximum and, when it is strictly
// better than b, improves it in place by the local search when `local_search` is 1; the block copies it to b.
__device__ void qiga_sga_keep_best(unsigned char* x, double* profit, unsigned int population, unsigned int n, unsigned char* b, double* best_profit, const float* weights, const float* profits, const unsigned int* order, double capacity, unsigned int local_search)
{
    __shared__ unsigned int leader;
    __shared__ bool improved;
    if (threadIdx.x == 0) {
        unsigned int l = 0;
        for (unsigned int i = 1; i < population; ++i) {
            if (profit[i] > profit[l]) {
                l = i;
            }
        }
        leader = l;
        improved = profit[l] > *best_profit;
        if (improved) {
            if (local_search == 1u) {
                profit[l] = qiga_local_search(x + (size_t)l * n, weights, profits, order, n, capacity);
            }
            *best_profit = profit[l];
        }
    }
    __syncthreads();
    if (improved) {
        for (unsigned int j = threadIdx.x; j < n; j += blockDim.x) {
            b[j] = x[(size_t)leader * n + j];
        }
    }
    __syncthreads();
}

extern "C" __global__ void qiga_sga_run_generations(const float* weights, const float* profits, const unsigned int* order, const unsigned long long* seeds, unsigned char* individuals, unsigned char* next, double* fitness, double* next_fitness, double* cumulative, unsigned char* best, double* best_profit, QigaSgaParams p)
{
    __shared__ unsigned int elite;
    __shared__ unsigned int worst;
    __shared__ bool replace;
    const unsigned int run = blockIdx.x;
    if (run >= p.runs) {
        return;
    }
    const unsigned int n = p.items;
    const unsigned int pop = p.population;
    const unsigned int genes = pop * n;
    unsigned char* x = individuals + (size_t)run * genes;
    unsigned char* y = next + (size_t)run * genes;
    double* f = fitness + (size_t)run * pop;
    double* g_f = next_fitness + (size_t)run * pop;
    double* cum = cumulative + (size_t)run * pop;
    unsigned char* b = best + (size_t)run * n;
    double* bp = best_profit + run;
    const unsigned long long seed = seeds[run];
    for (unsigned int t = p.first_generation; t < p.first_generation + p.generations; ++t) {
        if (t == 0u) {
            // Generation 0: uniform bits, repaired and evaluated.
            for (unsigned int idx = threadIdx.x; idx < genes; idx += blockDim.x) {
                const unsigned int i = idx / n;
                const unsigned int j = idx - i * n;
                const unsigned int word = evo_sequence_word(evo_sequence(seed, p.init_stream, 0u, i), j / 32u);
                x[idx] = (unsigned char)((word >> (j % 32u)) & 1u);
            }
            __syncthreads();
            for (unsigned int i = threadIdx.x; i < pop; i += blockDim.x) {
                f[i] = qiga_sga_repair_evaluate(x + (size_t)i * n, weights, profits, order, n, p.capacity, p.repair);
            }
            __syncthreads();
            if (p.greedy_seed == 1u) {
                // The host uploaded the seed as b and f(b).
                for (unsigned int j = threadIdx.x; j < n; j += blockDim.x) {
                    x[j] = b[j];
                }
                if (threadIdx.x == 0) {
                    f[0] = *bp;
                }
                __syncthreads();
            }
            qiga_sga_keep_best(x, f, pop, n, b, bp, weights, profits, order, p.capacity, p.local_search);
            continue;
        }
        if (threadIdx.x == 0) {
            double total = 0.0;
            unsigned int e = 0;
            for (unsigned int i = 0; i < pop; ++i) {
                total += f[i];
                cum[i] = total;
                if (f[i] > f[e]) {
                    e = i;
                }
            }
            elite = e;
        }
        __syncthreads();
        // Step 1: selection.
        for (unsigned int slot = threadIdx.x; slot < pop; slot += blockDim.x) {
            const double u = evo_sequence_uniform_f64(evo_sequence(seed, p.selection_stream, t, slot), 0u);
            const unsigned int parent = qiga_sga_roulette_pick(cum, pop, u);
            for (unsigned int j = 0; j < n; ++j) {
                y[(size_t)slot * n + j] = x[(size_t)parent * n + j];
            }
        }
        __syncthreads();
        // Step 2: one-point crossover of consecutive pairs.
        for (unsigned int pair = threadIdx.x; pair < pop / 2u; pair += blockDim.x) {
            const EvoSequence s = evo_sequence(seed, p.crossover_stream, t, pair);
            if (evo_sequence_uniform_f32(s, 0u) < p.crossover_rate && n >= 2u) {
                const unsigned int point = 1u + evo_below(evo_sequence_word(s, 1u), n - 1u);
                unsigned char* a = y + (size_t)(2u * pair) * n;
                unsigned char* c = a + n;
                for (unsigned int j = point; j < n; ++j) {
                    const unsigned char keep = a[j];
                    a[j] = c[j];
                    c[j] = keep;
                }
            }
        }
        __syncthreads();
        // Step 3: mutation.
        for (unsigned int idx = threadIdx.x; idx < genes; idx += blockDim.x) {
            const unsigned int i = idx / n;
            const unsigned int j = idx - i * n;
            if (evo_sequence_uniform_f32(evo_sequence(seed, p.mutation_stream, t, i), j) < p.mutation_rate) {
                y[idx] ^= (unsigned char)1;
            }
        }
        __syncthreads();
        // Step 4: repair and evaluate.
        for (unsigned int i = threadIdx.x; i < pop; i += blockDim.x) {
            g_f[i] = qiga_sga_repair_evaluate(y + (size_t)i * n, weights, profits, order, n, p.capacity, p.repair);
        }
        __syncthreads();
        // Step 5: elitism of one.
        if (threadIdx.x == 0) {
            unsigned int w = 0;
            for (unsigned int i = 1; i < pop; ++i) {
                if (g_f[i] < g_f[w]) {
                    w = i;
                }
            }
            worst = w;
            replace = f[elite] > g_f[w];
            if (replace) {
                g_f[w] = f[elite];
            }
        }
        __syncthreads();
        if (replace) {
            for (unsigned int j = threadIdx.x; j < n; j += blockDim.x) {
                y[(size_t)worst * n + j] = x[(size_t)elite * n + j];
            }
        }
        __syncthreads();
        for (unsigned int idx = threadIdx.x; idx < genes; idx += blockDim.x) {
            x[idx] = y[idx];
        }
        for (unsigned int i = threadIdx.x; i < pop; i += blockDim.x) {
            f[i] = g_f[i];
        }
        __syncthreads();
        // Step 6.
        qiga_sga_keep_best(x, f, pop, n, b, bp, weights, profits, order, p.capacity, p.local_search);
    }
}
