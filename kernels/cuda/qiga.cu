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

// Generations first_generation .. first_generation + generations - 1 of every run (block = run). Generation 0
// is the initial observation (no update). Twin: cpu::run_generation, step numbers of the crate docs.
extern "C" __global__ void qiga_run_generations(const float* weights, const float* profits, const unsigned long long* seeds, const float* angles, float* theta, unsigned char* observed, double* fitness, unsigned char* best, double* best_profit, QigaRunParams p)
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
            f[threadIdx.x] = qiga_repair_evaluate(x + (size_t)threadIdx.x * n, weights, profits, n, p.capacity);
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
    }
}
