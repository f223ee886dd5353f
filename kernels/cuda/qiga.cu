// The quantum-inspired GA on the 0/1 knapsack (kernel module `qiga`; Rust twins: crates/qiga/src/ops.rs and
// the generation loop of crates/qiga/src/cpu.rs). The paper's layout: one block = one independent run, its
// threads stride over the genes of all individuals; the repair and evaluation run on threads 0..P-1, one
// individual each, serially over the items (index order, f64 sums, exactly as the CPU); store-best on thread
// 0; barriers between the phases. Every run of the grid has its own seed and its own five rotation angles, so
// one launch evaluates many parameter sets. A launch runs `generations` consecutive generations of every run.
//
// State (global memory, run-major): theta[run][i][j] (f32), observed[run][i][j] (bytes 0/1),
// fitness[run][i] (profit, f64), best[run][j] (bytes), best_profit[run] (f64).
#include "common/math.cuh"
#include "common/rng.cuh"

// Scalar arguments; mirrored by `RunParams` in crates/qiga/src/cuda/launch.rs.
struct QigaRunParams {
    double capacity;                // knapsack capacity C
    unsigned int runs;              // blocks = runs
    unsigned int items;             // n, qubits per individual
    unsigned int population;        // P, quantum individuals per run (<= blockDim.x)
    unsigned int first_generation;  // the generation index of this launch's first generation
    unsigned int generations;       // how many generations this launch runs
    unsigned int sign_choice;       // 0: the +-1 cells are +1; 1: drawn from the sign stream
    unsigned int quadrant_rule;     // 0: true sign of alpha*beta; 1: Nowotniak's fmodf quirk
    unsigned int observe_stream;    // evo_rng::Stream::QigaObserve
    unsigned int sign_stream;       // evo_rng::Stream::QigaSign
    unsigned int padding;
};
static_assert(sizeof(QigaRunParams) == 48, "QigaRunParams must match its Rust mirror (48 bytes)");

// Twin: ops::INITIAL_ANGLE and the private constants of ops.rs (each literal rounds to the same f32).
#define QIGA_PI 3.14159265358979323846f
#define QIGA_HALF_PI 1.57079632679489661923f
#define QIGA_EPSILON 10e-9f
#define QIGA_QUADRANT_POSITIVE 0u
#define QIGA_QUADRANT_NEGATIVE 1u
#define QIGA_QUADRANT_ALPHA_ZERO 2u
#define QIGA_QUADRANT_BETA_ZERO 3u
#define QIGA_EITHER 2

// The sign table (the paper's Table 2), [row][quadrant]; twin: ops::SIGN.
__constant__ int QIGA_SIGN[8][4] = {
    {0, 0, 0, 0},
    {0, 0, 0, 0},
    {0, 0, 0, 0},
    {-1, 1, QIGA_EITHER, 0},
    {-1, 1, QIGA_EITHER, 0},
    {1, -1, 0, QIGA_EITHER},
    {1, -1, 0, QIGA_EITHER},
    {1, -1, 0, QIGA_EITHER},
};

// Twin: ops::observe.
__device__ __forceinline__ bool qiga_observe(float theta, float u)
{
    const float alpha = evo_cos_f32(theta);
    return u >= alpha * alpha;
}

// Twin: ops::quadrant.
__device__ __forceinline__ unsigned int qiga_quadrant(float theta, unsigned int quadrant_rule)
{
    float c = fmodf(theta, QIGA_PI);
    if (quadrant_rule == 0u && c < 0.0f) {
        c += QIGA_PI;
    }
    if (c < QIGA_EPSILON || c > QIGA_PI - QIGA_EPSILON) {
        return QIGA_QUADRANT_BETA_ZERO;
    } else if (fabsf(c - QIGA_HALF_PI) < QIGA_EPSILON) {
        return QIGA_QUADRANT_ALPHA_ZERO;
    } else if (c < QIGA_HALF_PI) {
        return QIGA_QUADRANT_POSITIVE;
    }
    return QIGA_QUADRANT_NEGATIVE;
}

// Twin: ops::rotation_row.
__device__ __forceinline__ unsigned int qiga_rotation_row(bool x, bool b, bool flag)
{
    return 4u * (unsigned int)x + 2u * (unsigned int)b + (unsigned int)flag;
}

// Twin: ops::delta.
__device__ __forceinline__ float qiga_delta(unsigned int row, const float* angles)
{
    return row < 3u ? 0.0f : angles[row - 3u];
}

// Twin: ops::sign.
__device__ __forceinline__ float qiga_sign(unsigned int row, unsigned int quadrant, unsigned int sign_word, unsigned int sign_choice)
{
    const int cell = QIGA_SIGN[row][quadrant];
    if (cell != QIGA_EITHER) {
        return (float)cell;
    } else if (sign_choice == 1u && (sign_word >> 31) != 0u) {
        return -1.0f;
    }
    return 1.0f;
}

// Twin: ops::rotate.
__device__ __forceinline__ float qiga_rotate(float theta, bool x, bool b, bool flag, const float* angles, unsigned int sign_word, unsigned int sign_choice, unsigned int quadrant_rule)
{
    const unsigned int row = qiga_rotation_row(x, b, flag);
    const float s = qiga_sign(row, qiga_quadrant(theta, quadrant_rule), sign_word, sign_choice);
    return theta + s * qiga_delta(row, angles);
}

// Steps 3-4 for one individual: the index-order repair in place, then the profit summed in index order in
// f64. Twin: evo_benchmarks::Knapsack::repair_row (its module docs number the steps).
__device__ double qiga_repair_evaluate(unsigned char* x, const float* weights, const float* profits, unsigned int n, double capacity)
{
    double weight = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        if (x[i]) {
            weight += (double)weights[i];
        }
    }
    bool over = weight > capacity;
    for (unsigned int i = 0; i < n && over; ++i) {
        if (x[i]) {
            weight -= (double)weights[i];
        }
        x[i] = 0;
        over = weight > capacity;
    }
    int last = -1;
    for (unsigned int j = 0; j < n && !over; ++j) {
        if (!x[j]) {
            weight += (double)weights[j];
        }
        x[j] = 1;
        over = weight > capacity;
        last = (int)j;
    }
    if (last >= 0) {
        x[last] = 0;
    }
    double profit = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        if (x[i]) {
            profit += (double)profits[i];
        }
    }
    return profit;
}

// ---- The knapsack options of issue 33 (Rust twins: crates/qiga/src/options.rs and local_search.rs,
// evo_benchmarks' knapsack/greedy.rs). Both kernels below share qiga_generations; with every
// option off the Rust engines launch the paper's `qiga_run_generations`.

// Scalar arguments; mirrored by `OptionParams` in crates/qiga/src/cuda/launch.rs.
struct QigaOptionParams {
    QigaRunParams run;          // as for qiga_run_generations
    unsigned int repair;        // 0: the paper's index-order repair; 1: the greedy repair
    unsigned int local_search;  // 0: off; 1: the swap-window local search of b after it changes
    unsigned int padding[2];
};
static_assert(sizeof(QigaOptionParams) == 64, "QigaOptionParams must match its Rust mirror (64 bytes)");

// Twin: local_search::WINDOW and local_search::MAX_MOVES.
#define QIGA_LS_WINDOW 32u
#define QIGA_LS_MAX_MOVES 64u

// Steps 3-4 with the greedy repair (drop the worst profit/weight items while over, then add the best that
// fit), then the profit in index order. `order` is the profit/weight order. Twin:
// evo_benchmarks::Knapsack::greedy_repair_row (steps numbered in knapsack/greedy.rs).
__device__ double qiga_greedy_repair_evaluate(unsigned char* x, const float* weights, const float* profits, const unsigned int* order, unsigned int n, double capacity)
{
    double weight = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        if (x[i]) {
            weight += (double)weights[i];
        }
    }
    for (unsigned int k = n; k-- > 0u && weight > capacity;) {
        const unsigned int j = order[k];
        if (x[j]) {
            x[j] = 0;
            weight -= (double)weights[j];
        }
    }
    for (unsigned int k = 0; k < n; ++k) {
        const unsigned int j = order[k];
        if (!x[j] && weight + (double)weights[j] <= capacity) {
            x[j] = 1;
            weight += (double)weights[j];
        }
    }
    double profit = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        if (x[i]) {
            profit += (double)profits[i];
        }
    }
    return profit;
}

// The swap-window local search of b (one thread); returns b's profit in index order. Twin:
// local_search::improve (steps numbered there).
__device__ double qiga_local_search(unsigned char* b, const float* weights, const float* profits, const unsigned int* order, unsigned int n, double capacity)
{
    double weight = 0.0;
    for (unsigned int j = 0; j < n; ++j) {
        if (b[j]) {
            weight += (double)weights[j];
        }
    }
    for (unsigned int move = 0; move < QIGA_LS_MAX_MOVES; ++move) {
        // Step 1.
        unsigned int outside[QIGA_LS_WINDOW];
        unsigned int inside[QIGA_LS_WINDOW];
        unsigned int outs = 0;
        unsigned int ins = 0;
        for (unsigned int k = 0; k < n && outs < QIGA_LS_WINDOW; ++k) {
            if (!b[order[k]]) {
                outside[outs++] = order[k];
            }
        }
        for (unsigned int k = n; k-- > 0u && ins < QIGA_LS_WINDOW;) {
            if (b[order[k]]) {
                inside[ins++] = order[k];
            }
        }
        // Steps 2-3: drop == n marks an add.
        double gain = 0.0;
        unsigned int drop = n;
        unsigned int take = n;
        for (unsigned int a = 0; a < outs; ++a) {
            const unsigned int j = outside[a];
            const double p = (double)profits[j];
            if (weight + (double)weights[j] <= capacity && p > gain) {
                gain = p;
                drop = n;
                take = j;
            }
        }
        for (unsigned int c = 0; c < ins; ++c) {
            const unsigned int i = inside[c];
            for (unsigned int a = 0; a < outs; ++a) {
                const unsigned int j = outside[a];
                const double g = (double)profits[j] - (double)profits[i];
                if ((weight - (double)weights[i]) + (double)weights[j] <= capacity && g > gain) {
                    gain = g;
                    drop = i;
                    take = j;
                }
            }
        }
        if (take == n) {
            break;
        }
        if (drop < n) {
            b[drop] = 0;
            weight -= (double)weights[drop];
        }
        b[take] = 1;
        weight += (double)weights[take];
    }
    double profit = 0.0;
    for (unsigned int j = 0; j < n; ++j) {
        if (b[j]) {
            profit += (double)profits[j];
        }
    }
    return profit;
}

// Generations first_generation .. first_generation + generations - 1 of one run (block = run). Generation 0
// is the initial observation (no update). Steps 3-4 repair by `repair` (0: the paper's index order, 1: the
// greedy order of `order`), and step 5' (the local search of b, on thread 0) runs when `local_search` is 1 and
// step 5 replaced b. Inlined into both kernels, whose constant arguments fold the option branches away, so the
// paper kernel's code is that of the paper's steps alone. Twin: cpu::run_generation, step numbers of the crate docs.
__device__ __forceinline__ void qiga_generations(const float* weights, const float* profits, const unsigned int* order, const unsigned long long* seeds, const float* angles, float* theta, unsigned char* observed, double* fitness, unsigned char* best, double* best_profit, const QigaRunParams& p, unsigned int repair, unsigned int local_search)
{
    __shared__ unsigned int leader;
    __shared__ bool improved;
    const unsigned int run = blockIdx.x;
    if (run >= p.runs) {
        return;
    }
    const unsigned int n = p.items;
    const unsigned int genes = p.population * n;
    float* th = theta + (size_t)run * genes;
    unsigned char* x = observed + (size_t)run * genes;
    double* f = fitness + (size_t)run * p.population;
    unsigned char* b = best + (size_t)run * n;
    const unsigned long long seed = seeds[run];
    float lut[5];
    for (int k = 0; k < 5; ++k) {
        lut[k] = angles[run * 5u + k];
    }
    for (unsigned int g = p.first_generation; g < p.first_generation + p.generations; ++g) {
        // Step 2: observe every qubit.
        for (unsigned int idx = threadIdx.x; idx < genes; idx += blockDim.x) {
            const unsigned int i = idx / n;
            const unsigned int j = idx - i * n;
            const EvoSequence s = evo_sequence(seed, p.observe_stream, g, i);
            x[idx] = qiga_observe(th[idx], evo_sequence_uniform_f32(s, j)) ? 1 : 0;
        }
        __syncthreads();
        // Steps 3-4: repair and evaluate, one thread per individual.
        if (threadIdx.x < p.population) {
            unsigned char* xi = x + (size_t)threadIdx.x * n;
            f[threadIdx.x] = repair == 1u ? qiga_greedy_repair_evaluate(xi, weights, profits, order, n, p.capacity)
                                          : qiga_repair_evaluate(xi, weights, profits, n, p.capacity);
        }
        __syncthreads();
        // Step 7: rotate towards b, judged against the best of the previous generations.
        if (g > 0u) {
            const double previous = best_profit[run];
            for (unsigned int idx = threadIdx.x; idx < genes; idx += blockDim.x) {
                const unsigned int i = idx / n;
                const unsigned int j = idx - i * n;
                const bool flag = f[i] >= previous;
                unsigned int sign_word = 0u;
                if (p.sign_choice == 1u) {
                    sign_word = evo_sequence_word(evo_sequence(seed, p.sign_stream, g, i), j);
                }
                th[idx] = qiga_rotate(th[idx], x[idx] != 0, b[j] != 0, flag, lut, sign_word, p.sign_choice, p.quadrant_rule);
            }
        }
        __syncthreads();
        // Step 5: the generation's best (first on ties) replaces b when strictly better.
        if (threadIdx.x == 0) {
            unsigned int l = 0;
            for (unsigned int i = 1; i < p.population; ++i) {
                if (f[i] > f[l]) {
                    l = i;
                }
            }
            leader = l;
            improved = f[l] > best_profit[run];
            if (improved) {
                best_profit[run] = f[l];
            }
        }
        __syncthreads();
        if (improved) {
            for (unsigned int j = threadIdx.x; j < n; j += blockDim.x) {
                b[j] = x[(size_t)leader * n + j];
            }
        }
        __syncthreads();
        if (local_search == 1u) {
            // Step 5': improve the new b.
            if (improved && threadIdx.x == 0) {
                best_profit[run] = qiga_local_search(b, weights, profits, order, n, p.capacity);
            }
            __syncthreads();
        }
    }
}

// The paper's generations of every run (block = run): qiga_generations with every option off.
extern "C" __global__ void qiga_run_generations(const float* weights, const float* profits, const unsigned long long* seeds, const float* angles, float* theta, unsigned char* observed, double* fitness, unsigned char* best, double* best_profit, QigaRunParams p)
{
    qiga_generations(weights, profits, nullptr, seeds, angles, theta, observed, fitness, best, best_profit, p, 0u, 0u);
}

// qiga_run_generations with the options: the repair of steps 3-4 by `repair`, and step 5' (the local search
// of b, on thread 0) whenever step 5 replaces b. The initial b (the greedy seed) is uploaded by the host.
// Twin: cpu::run_generation.
extern "C" __global__ void qiga_run_generations_options(const float* weights, const float* profits, const unsigned int* order, const unsigned long long* seeds, const float* angles, float* theta, unsigned char* observed, double* fitness, unsigned char* best, double* best_profit, QigaOptionParams o)
{
    qiga_generations(weights, profits, order, seeds, angles, theta, observed, fitness, best, best_profit, o.run, o.repair, o.local_search);
}

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
    unsigned int padding;
};
static_assert(sizeof(QigaSgaParams) == 56, "QigaSgaParams must match its Rust mirror (56 bytes)");

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

// Twin: sga_generation's step 6 / keep_best: thread 0 finds the first maximum; the block copies it to b when
// strictly better.
__device__ void qiga_sga_keep_best(const unsigned char* x, const double* profit, unsigned int population, unsigned int n, unsigned char* b, double* best_profit)
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

extern "C" __global__ void qiga_sga_run_generations(const float* weights, const float* profits, const unsigned long long* seeds, unsigned char* individuals, unsigned char* next, double* fitness, double* next_fitness, double* cumulative, unsigned char* best, double* best_profit, QigaSgaParams p)
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
                f[i] = qiga_repair_evaluate(x + (size_t)i * n, weights, profits, n, p.capacity);
            }
            __syncthreads();
            qiga_sga_keep_best(x, f, pop, n, b, bp);
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
            g_f[i] = qiga_repair_evaluate(y + (size_t)i * n, weights, profits, n, p.capacity);
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
        qiga_sga_keep_best(x, f, pop, n, b, bp);
    }
}

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
