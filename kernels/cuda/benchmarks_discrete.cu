// Batched evaluation of the discrete and constrained test problems of evo-benchmarks: 0/1 knapsack (repair +
// profit), ETC scheduling (makespan, flowtime, the DE paper's fitness) and CEC 2006 g01-g24 (objective,
// constraints, total violation). Typed launchers: crates/benchmarks/src/cuda/{knapsack,scheduling,cec2006}.rs.
// CPU twins: crates/benchmarks/src/{knapsack,scheduling,cec2006}/.
//
// - knapsack: one thread per individual runs the index-order repair on its packed row in place (sequential by
//   definition; every weight update is exact for the instances' weights).
// - ETC: one block per individual. A machine's load is the canonical pairwise tree over the n tasks of
//   ETC[t][j] (s_t = j) or +0.0: the block reduces aligned tiles of 2B leaves with evo_block_pairwise_sum_f64
//   and combines the tile sums with the same tree (EvoPairwiseStream), so the bits equal evo_core::reduce's
//   for any block size. Flowtime is the same tree over ETC[t][s_t]. No atomics.
// - CEC 2006: one thread per individual evaluates the formula of common/problems/cec2006.cuh in double.
#include "common/problems/cec2006.cuh"
#include "common/problems/etc.cuh"
#include "common/problems/knapsack.cuh"

// Mirrored by `KnapsackParams` in crates/benchmarks/src/cuda/knapsack.rs.
struct KnapsackParams {
    unsigned int items;  // n
    unsigned int words;  // packed words per row, (n + 31) / 32
    unsigned int rows;   // individuals
    unsigned int pad;
    double capacity;     // C
};
static_assert(sizeof(KnapsackParams) == 24, "KnapsackParams must match its Rust mirror");

// Mirrored by `EtcParams` in crates/benchmarks/src/cuda/scheduling.rs.
struct EtcParams {
    unsigned int tasks;     // n
    unsigned int machines;  // m (at most 2^24)
    unsigned int rows;      // individuals
    unsigned int pad;
    double lambda;          // weight of the makespan in the fitness
};
static_assert(sizeof(EtcParams) == 24, "EtcParams must match its Rust mirror");

// Mirrored by `Cec2006Params` in crates/benchmarks/src/cuda/cec2006.rs.
struct Cec2006Params {
    unsigned int number;        // 1..24
    unsigned int dimension;     // D
    unsigned int inequalities;  // m
    unsigned int equalities;    // p
    unsigned int rows;          // individuals
    unsigned int pad;
    double tolerance;           // eps of the equalities
};
static_assert(sizeof(Cec2006Params) == 32, "Cec2006Params must match its Rust mirror");

extern "C" __global__ void benchmarks_discrete_knapsack_repair(const float* weights, const float* profits,
                                                               unsigned int* population, double* fitness,
                                                               double* packed_weight, KnapsackParams p)
{
    for (unsigned int r = blockIdx.x * blockDim.x + threadIdx.x; r < p.rows; r += gridDim.x * blockDim.x) {
        unsigned int* row = population + (unsigned long long)r * p.words;
        double weight = 0.0;
        const double profit = evo_knapsack_repair(row, p.items, weights, profits, p.capacity, &weight);
        fitness[r] = -profit;
        packed_weight[r] = weight;
    }
}

// The machine of task t of individual r: from a schedule row or from a real-coded row.
struct EvoScheduleRow {
    const unsigned int* schedule;
    const float* real;
    unsigned int machines;
    __device__ __forceinline__ unsigned int machine(unsigned long long t) const
    {
        return schedule != nullptr ? schedule[t] : evo_etc_machine_of(real[t], machines);
    }
};

// ETC[t][s] widened to double; a machine index s >= m (a caller bug the CPU rejects with an error) reads
// nothing and gives the canonical NaN, so flowtime and fitness of that row are NaN.
__device__ __forceinline__ double evo_etc_time(const float* etc, unsigned long long t, unsigned int s, unsigned int m)
{
    return s < m ? (double)etc[t * m + s] : __longlong_as_double(0x7ff8000000000000ll);
}

__device__ inline void evo_etc_evaluate_block(const float* etc, EvoScheduleRow row, unsigned int r, double* makespan,
                                              double* flowtime, double* fitness, const EtcParams& p, double* scratch)
{
    const unsigned long long n = p.tasks;
    const unsigned int m = p.machines;
    const unsigned long long tile = 2ull * blockDim.x;
    double longest = 0.0;
    EvoPairwiseStream stream;
    for (unsigned int j = 0; j < m; ++j) {
        evo_pairwise_stream_init(&stream);
        for (unsigned long long start = 0; start < n; start += tile) {
            const unsigned long long t0 = start + 2ull * threadIdx.x;
            const unsigned long long t1 = t0 + 1ull;
            const double left = (t0 < n && row.machine(t0) == j) ? (double)etc[t0 * m + j] : 0.0;
            const double right = (t1 < n && row.machine(t1) == j) ? (double)etc[t1 * m + j] : 0.0;
            evo_pairwise_stream_push(&stream, evo_block_pairwise_sum_f64(left + right, scratch));
        }
        const double load = evo_pairwise_stream_finish(&stream);
        if (load > longest) {
            longest = load;
        }
    }
    evo_pairwise_stream_init(&stream);
    for (unsigned long long start = 0; start < n; start += tile) {
        const unsigned long long t0 = start + 2ull * threadIdx.x;
        const unsigned long long t1 = t0 + 1ull;
        const double left = t0 < n ? evo_etc_time(etc, t0, row.machine(t0), m) : 0.0;
        const double right = t1 < n ? evo_etc_time(etc, t1, row.machine(t1), m) : 0.0;
        evo_pairwise_stream_push(&stream, evo_block_pairwise_sum_f64(left + right, scratch));
    }
    const double total = evo_pairwise_stream_finish(&stream);
    if (threadIdx.x == 0) {
        makespan[r] = longest;
        flowtime[r] = total;
        fitness[r] = p.lambda * longest + (1.0 - p.lambda) * (total / (double)m);
    }
}

extern "C" __global__ void benchmarks_discrete_etc_schedules(const float* etc, const unsigned int* schedules,
                                                             double* makespan, double* flowtime, double* fitness,
                                                             EtcParams p)
{
    extern __shared__ double scratch[];
    for (unsigned int r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const EvoScheduleRow row = {schedules + (unsigned long long)r * p.tasks, nullptr, p.machines};
        evo_etc_evaluate_block(etc, row, r, makespan, flowtime, fitness, p, scratch);
    }
}

extern "C" __global__ void benchmarks_discrete_etc_real(const float* etc, const float* x, double* makespan,
                                                        double* flowtime, double* fitness, EtcParams p)
{
    extern __shared__ double scratch[];
    for (unsigned int r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const EvoScheduleRow row = {nullptr, x + (unsigned long long)r * p.tasks, p.machines};
        evo_etc_evaluate_block(etc, row, r, makespan, flowtime, fitness, p, scratch);
    }
}

extern "C" __global__ void benchmarks_discrete_cec2006(const float* population, double* objective,
                                                       double* violation, double* constraints, Cec2006Params p)
{
    const unsigned int stride = p.inequalities + p.equalities;
    for (unsigned int r = blockIdx.x * blockDim.x + threadIdx.x; r < p.rows; r += gridDim.x * blockDim.x) {
        double x[EVO_CEC2006_MAX_DIMENSION];
        double g[EVO_CEC2006_MAX_INEQUALITIES];
        double h[EVO_CEC2006_MAX_EQUALITIES];
        const float* row = population + (unsigned long long)r * p.dimension;
        for (unsigned int i = 0; i < p.dimension; ++i) {
            x[i] = (double)row[i];  // exact widening, as f64::from on the CPU
        }
        const double f = evo_cec2006_evaluate(p.number, x, g, h);
        objective[r] = f;
        violation[r] = evo_total_violation(g, p.inequalities, h, p.equalities, p.tolerance);
        double* out = constraints + (unsigned long long)r * stride;
        for (unsigned int k = 0; k < p.inequalities; ++k) {
            out[k] = g[k];
        }
        for (unsigned int j = 0; j < p.equalities; ++j) {
            out[p.inequalities + j] = h[j];
        }
    }
}
