// The dual-population GA on CEC 2006 problems (kernel module `dpga`; Rust twins: crates/dpga/src/ops.rs, one
// device function per pure function of the same name, and the generation of crates/dpga/src/cpu.rs). Typed
// launchers: crates/dpga/src/cuda/launch.rs.
//
// Many independent runs per launch: run r (seed `seed + r`) owns the slice r of every buffer (run-major,
// `rows × L` bytes of 0/1 bits per population). Launch shapes:
// - rows (draw, evaluate, distance): one thread per (run, row), grid-stride over runs × rows;
// - breeding: one block per (pair, run) (grid.x = pair, grid.y = run), thread 0 draws the tournaments and the
//   cut points, the threads stride over the L bits for crossover and mutation;
// - selection: one warp per (candidate, run) (grid.x = candidate groups, grid.y = run); each candidate's rank
//   under the total order is the count of candidates that precede it, summed over the warp's lanes (an exact
//   integer; the order is total, so the ranks are 0..N-1 and `rank < count` is exactly the CPU's
//   sort-then-truncate);
// - gather: one block per (row, run), threads over the bits; finish: one block per run, the best of M by a
//   block reduction (the minimum under a total order is unique).
// Block sizes are powers of two of at least 32 (whole warps).
// Every random draw is addressed by (seed, stream, step, individual, word) as on the CPU, so the thread
// mapping does not change a bit of the result. No atomics except the min-index of a non-finite evaluation.
#include "common/problems/cec2006.cuh"
#include "common/rng.cuh"
#include "common/sort/key.cuh"

// Mirrored by `DpgaKernelParams` in crates/dpga/src/cuda/launch.rs.
struct DpgaKernelParams {
    unsigned long long seed;        // run r uses seed + r (wrapping)
    unsigned long long max_draws;   // init: candidates drawn at most (m for random init)
    double tolerance;               // equality tolerance of the problem
    double learning_rate;           // eta
    double delta_min;
    double delta_max;
    unsigned int runs;              // K
    unsigned int main_size;         // m
    unsigned int reserve_size;      // n
    unsigned int length;            // L = D b
    unsigned int bits;              // b
    unsigned int dimension;         // D
    unsigned int number;            // CEC 2006 problem number 1..24
    unsigned int inequalities;
    unsigned int equalities;
    unsigned int crossbreed;        // |C|
    unsigned int main_elites;       // e_M
    unsigned int reserve_elites;    // e_R
    unsigned int tournament;        // k
    unsigned int crossover;         // 0 one-point, 1 two-point, 2 uniform
    unsigned int handling;          // 0 MCSM, 1 Deb
    unsigned int step;              // Philox step (the generation; init: 0 main, 1 reserve)
    unsigned int phase;             // init merge: 1 on the first batch; finish: 1 adapts delta
    unsigned int select_a;          // selection: candidates of the first segment per run
    unsigned int select_b;          // selection: candidates of the second segment per run
    unsigned int select_count;      // selection: how many to keep
    unsigned int stream_init;
    unsigned int stream_tournament_main;
    unsigned int stream_tournament_reserve;
    unsigned int stream_cross;
    unsigned int stream_crossbreed;
    unsigned int stream_mutate;
    unsigned int rows;              // row kernels: rows per run
    unsigned int encoding;          // 0 binary, 1 reflected Gray code
    float crossover_rate;
    float mutation_rate;
};
static_assert(sizeof(DpgaKernelParams) == 168, "DpgaKernelParams must match its Rust mirror (168 bytes)");

#define DPGA_ONE_POINT 0u
#define DPGA_TWO_POINT 1u
#define DPGA_UNIFORM 2u

// One evaluated individual (Rust: ops::Evaluation; feasible = satisfied == m + p).
struct DpgaEvaluation {
    double objective;
    double violation;
    unsigned int satisfied;
    bool feasible;
};

__device__ __forceinline__ unsigned long long dpga_seed(const DpgaKernelParams& p, unsigned int run)
{
    return p.seed + (unsigned long long)run;
}

// Twin: f64::total_cmp (-1 less, 0 equal, 1 greater) for the values the engines keep (finite).
__device__ __forceinline__ int dpga_total_cmp(double a, double b)
{
    const unsigned long long ka = evo_sort_key_f64(a);
    const unsigned long long kb = evo_sort_key_f64(b);
    return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

__device__ __forceinline__ int dpga_cmp_index(unsigned long long a, unsigned long long b)
{
    return a < b ? -1 : (a > b ? 1 : 0);
}

// Twin: ops::Evaluation::non_finite (the worst value under both comparators).
__device__ inline DpgaEvaluation dpga_non_finite(unsigned int constraints)
{
    DpgaEvaluation e;
    e.objective = 1.7976931348623157e308; // f64::MAX
    e.violation = 1.7976931348623157e308;
    e.satisfied = 0;
    e.feasible = constraints == 0;
    return e;
}

// Twin: ops::evaluate_constraints (inequalities first, each in index order; a non-finite objective,
// constraint value or violation sum gives dpga_non_finite).
__device__ inline DpgaEvaluation evaluate_constraints(double objective, const double* inequality, unsigned int m,
                                                      const double* equality, unsigned int q, double tolerance)
{
    bool finite = isfinite(objective);
    for (unsigned int j = 0; j < m; ++j) {
        finite = finite && isfinite(inequality[j]);
    }
    for (unsigned int j = 0; j < q; ++j) {
        finite = finite && isfinite(equality[j]);
    }
    if (!finite) {
        return dpga_non_finite(m + q);
    }
    double violation = 0.0;
    unsigned int satisfied = 0;
    for (unsigned int j = 0; j < m; ++j) {
        if (inequality[j] <= 0.0) {
            satisfied += 1;
        } else {
            violation += inequality[j];
        }
    }
    for (unsigned int j = 0; j < q; ++j) {
        if (fabs(equality[j]) <= tolerance) {
            satisfied += 1;
        } else {
            violation += fabs(equality[j]);
        }
    }
    if (!isfinite(violation)) {
        return dpga_non_finite(m + q);
    }
    DpgaEvaluation e;
    e.objective = objective;
    e.violation = violation;
    e.satisfied = satisfied;
    e.feasible = satisfied == m + q;
    return e;
}

// Twin: ops::mcsm_cmp.
__device__ inline int mcsm_cmp(const DpgaEvaluation& a, const DpgaEvaluation& b)
{
    const int by_count = dpga_cmp_index(b.satisfied, a.satisfied);
    if (by_count != 0) {
        return by_count;
    }
    if (a.feasible) {
        return dpga_total_cmp(a.objective, b.objective);
    }
    const int by_violation = dpga_total_cmp(a.violation, b.violation);
    return by_violation != 0 ? by_violation : dpga_total_cmp(a.objective, b.objective);
}

// Twin: ops::deb_cmp.
__device__ inline int deb_cmp(const DpgaEvaluation& a, const DpgaEvaluation& b)
{
    if (a.feasible && b.feasible) {
        return dpga_total_cmp(a.objective, b.objective);
    }
    if (a.feasible) {
        return -1;
    }
    if (b.feasible) {
        return 1;
    }
    return dpga_total_cmp(a.violation, b.violation);
}

// Twin: ops::main_cmp.
__device__ inline int main_cmp(unsigned int handling, const DpgaEvaluation& a, unsigned long long ia,
                               const DpgaEvaluation& b, unsigned long long ib)
{
    const int by_value = handling == 0 ? mcsm_cmp(a, b) : deb_cmp(a, b);
    return by_value != 0 ? by_value : dpga_cmp_index(ia, ib);
}

// Twin: ops::reserve_cmp.
__device__ inline int reserve_cmp(double fa, unsigned int ia, double fb, unsigned int ib)
{
    const int by_value = dpga_total_cmp(fb, fa);
    return by_value != 0 ? by_value : dpga_cmp_index(ia, ib);
}

#define DPGA_BINARY 0u
#define DPGA_GRAY 1u

// Twin: ops::decode_variable (k in u64, Gray: binary bit j = binary bit j-1 XOR Gray bit j; then f64
// arithmetic with no contraction, rounded to f32).
__device__ inline float decode_variable(const unsigned char* bits, unsigned int b, unsigned int encoding,
                                        float lower, float upper)
{
    unsigned long long k = 0;
    unsigned char previous = 0;
    for (unsigned int j = 0; j < b; ++j) {
        const unsigned char binary = encoding == DPGA_GRAY ? (unsigned char)(previous ^ bits[j]) : bits[j];
        previous = binary;
        k = (k << 1) | (unsigned long long)binary;
    }
    const double top = (double)((1ull << b) - 1ull);
    const double lo = (double)lower;
    const double hi = (double)upper;
    return (float)__dadd_rn(lo, __dmul_rn(__dsub_rn(hi, lo), __ddiv_rn((double)k, top)));
}

// Twin: ops::random_bit.
__device__ __forceinline__ unsigned char random_bit(unsigned int word, unsigned int j)
{
    return (unsigned char)((word >> (j % 32u)) & 1u);
}

// Twin: ops::distance_to_main (summed in bit order; the unrolling puts the loads of 8 bits in flight, the
// additions stay one chain in bit order).
__device__ inline double distance_to_main(const unsigned char* bits, const double* mean, unsigned int length)
{
    double sum = 0.0;
#pragma unroll 8
    for (unsigned int k = 0; k < length; ++k) {
        sum += fabs((double)bits[k] - mean[k]);
    }
    return sum / (double)length;
}

// Twin: ops::reserve_fitness.
__device__ __forceinline__ double reserve_fitness(double distance, double target_distance)
{
    return 1.0 - fabs(target_distance - distance);
}

// Twin: ops::adapt_target_distance (f64::clamp).
__device__ inline double adapt_target_distance(double delta, double learning_rate, double crossbred_survival,
                                               double inbred_survival, double lo, double hi)
{
    double x = __dadd_rn(delta, __dmul_rn(learning_rate, crossbred_survival - inbred_survival));
    if (x < lo) {
        x = lo;
    }
    if (x > hi) {
        x = hi;
    }
    return x;
}

// Twin: ops::cut_points.
__device__ inline uint2 cut_points(unsigned int crossover, unsigned int length, unsigned int w1, unsigned int w2)
{
    if (length < 2u) {
        return make_uint2(length, length);
    }
    if (crossover == DPGA_ONE_POINT) {
        return make_uint2(1u + evo_below(w1, length - 1u), length);
    }
    if (crossover == DPGA_TWO_POINT) {
        const unsigned int a = evo_below(w1, length + 1u);
        const unsigned int b = evo_below(w2, length + 1u);
        return make_uint2(a < b ? a : b, a < b ? b : a);
    }
    return make_uint2(0u, 0u);
}

// Twin: ops::swaps_bit.
__device__ __forceinline__ bool swaps_bit(unsigned int crossover, unsigned int j, uint2 cuts, unsigned int uniform_word)
{
    if (crossover == DPGA_UNIFORM) {
        return random_bit(uniform_word, j) == 1;
    }
    return j >= cuts.x && j < cuts.y;
}

// The evaluation of row i of a run's (objective, violation, satisfied) arrays.
__device__ __forceinline__ DpgaEvaluation dpga_load(const double* objective, const double* violation,
                                                    const unsigned int* satisfied, unsigned long long i,
                                                    unsigned int total)
{
    DpgaEvaluation e;
    e.objective = objective[i];
    e.violation = violation[i];
    e.satisfied = satisfied[i];
    e.feasible = e.satisfied == total;
    return e;
}

// Twin: ops::tournament with the main comparator over a run's m evaluations (words 0..k-1 or k..2k-1).
__device__ inline unsigned int dpga_tournament_main(EvoSequence words, unsigned int first, const DpgaKernelParams& p,
                                                    const double* objective, const double* violation,
                                                    const unsigned int* satisfied)
{
    const unsigned int total = p.inequalities + p.equalities;
    bool have = false;
    unsigned int winner = 0;
    for (unsigned int j = first; j < first + p.tournament; ++j) {
        const unsigned int candidate = evo_below(evo_sequence_word(words, j), p.main_size);
        if (!have || main_cmp(p.handling, dpga_load(objective, violation, satisfied, candidate, total), candidate,
                              dpga_load(objective, violation, satisfied, winner, total), winner) < 0) {
            winner = candidate;
        }
        have = true;
    }
    return winner;
}

// Twin: ops::tournament with the reserve order.
__device__ inline unsigned int dpga_tournament_reserve(EvoSequence words, unsigned int first,
                                                       const DpgaKernelParams& p, const double* fr)
{
    bool have = false;
    unsigned int winner = 0;
    for (unsigned int j = first; j < first + p.tournament; ++j) {
        const unsigned int candidate = evo_below(evo_sequence_word(words, j), p.reserve_size);
        if (!have || reserve_cmp(fr[candidate], candidate, fr[winner], winner) < 0) {
            winner = candidate;
        }
        have = true;
    }
    return winner;
}

// Twin: Breeding::breed and Breeding::mutate of cpu.rs, for one pair, by the whole block (threads over the
// bits): parents a and b, children ca and cb; the P_c decision (word 0), the cut points (words 1-2) and the
// uniform crossover's bits (words 3...) come from `cross`, child c's flips from (DpgaMutate, first_child + c).
__device__ inline void dpga_breed_pair(const unsigned char* a, const unsigned char* b, EvoSequence cross,
                                       unsigned char* ca, unsigned char* cb, unsigned int first_child,
                                       unsigned long long seed, const DpgaKernelParams& p)
{
    const bool crossing = evo_sequence_uniform_f32(cross, 0) < p.crossover_rate;
    const uint2 cuts = cut_points(p.crossover, p.length, evo_sequence_word(cross, 1), evo_sequence_word(cross, 2));
    const EvoSequence mutate_a = evo_sequence(seed, p.stream_mutate, p.step, first_child);
    const EvoSequence mutate_b = evo_sequence(seed, p.stream_mutate, p.step, first_child + 1u);
    for (unsigned int j = threadIdx.x; j < p.length; j += blockDim.x) {
        unsigned char x = a[j];
        unsigned char y = b[j];
        if (crossing) {
            const unsigned int word = p.crossover == DPGA_UNIFORM ? evo_sequence_word(cross, 3u + j / 32u) : 0u;
            if (swaps_bit(p.crossover, j, cuts, word)) {
                const unsigned char t = x;
                x = y;
                y = t;
            }
        }
        if (p.mutation_rate > 0.0f) {
            if (evo_uniform_f32(evo_sequence_word(mutate_a, j)) < p.mutation_rate) {
                x ^= 1u;
            }
            if (evo_uniform_f32(evo_sequence_word(mutate_b, j)) < p.mutation_rate) {
                y ^= 1u;
            }
        }
        ca[j] = x;
        cb[j] = y;
    }
}

// Init (spec §2 item 2): rows i < count[r] of run r get the uniform bits of draw base[r] + i (stream
// DpgaInit, step p.step); p.rows rows per run.
extern "C" __global__ void dpga_draw_rows(unsigned char* rows, const unsigned long long* base,
                                          const unsigned int* count, DpgaKernelParams p)
{
    const unsigned int rows_per_run = p.rows;
    const unsigned long long total = (unsigned long long)p.runs * rows_per_run;
    for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < total;
         t += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned int run = (unsigned int)(t / rows_per_run);
        const unsigned int i = (unsigned int)(t % rows_per_run);
        if (i >= count[run]) {
            continue;
        }
        const unsigned int k = (unsigned int)(base[run] + i);
        const EvoSequence words = evo_sequence(dpga_seed(p, run), p.stream_init, p.step, k);
        unsigned char* row = rows + t * p.length;
        for (unsigned int w = 0; w * 32u < p.length; ++w) {
            const unsigned int word = evo_sequence_word(words, w);
            for (unsigned int j = 0; j < 32u && w * 32u + j < p.length; ++j) {
                row[w * 32u + j] = random_bit(word, j);
            }
        }
    }
}

// Decode (ops::decode_variable per variable), the CEC 2006 formula of common/problems/cec2006.cuh and
// ops::evaluate_constraints for rows i < count[r] of p.rows per run; a non-finite objective or violation
// records the lowest such row in status[r] (u32::MAX: none). evaluate_constraints maps non-finite problem
// values to dpga_non_finite (finite), so this is only a guard against a broken twin.
extern "C" __global__ void dpga_evaluate(const unsigned char* rows, const float* lower, const float* upper,
                                         double* objective, double* violation, unsigned int* satisfied,
                                         unsigned int* status, const unsigned int* count, DpgaKernelParams p)
{
    const unsigned int rows_per_run = p.rows;
    const unsigned long long total = (unsigned long long)p.runs * rows_per_run;
    for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < total;
         t += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned int run = (unsigned int)(t / rows_per_run);
        const unsigned int i = (unsigned int)(t % rows_per_run);
        if (i >= count[run]) {
            continue;
        }
        const unsigned char* row = rows + t * p.length;
        double x[EVO_CEC2006_MAX_DIMENSION];
        double g[EVO_CEC2006_MAX_INEQUALITIES];
        double h[EVO_CEC2006_MAX_EQUALITIES];
        for (unsigned int v = 0; v < p.dimension; ++v) {
            x[v] = (double)decode_variable(row + v * p.bits, p.bits, p.encoding, lower[v], upper[v]);
        }
        const double f = evo_cec2006_evaluate(p.number, x, g, h);
        const DpgaEvaluation e = evaluate_constraints(f, g, p.inequalities, h, p.equalities, p.tolerance);
        objective[t] = e.objective;
        violation[t] = e.violation;
        satisfied[t] = e.satisfied;
        if (!isfinite(e.objective) || !isfinite(e.violation)) {
            atomicMin(status + run, i);
        }
    }
}

// Init merge, one block per run (the loop body of DpgaCpu::initialise_main): the m best under the comparator
// (then the lower draw number) of the kept rows (none when p.phase == 1) and the count[r] new candidates go
// to next_*; then draws[r] += count[r] and count[r] becomes the next batch (0: this run is done). A run
// whose count is 0 copies its kept rows. Shared memory: (2m) unsigned ints.
extern "C" __global__ void dpga_init_merge(const unsigned char* kept, const double* kept_objective,
                                           const double* kept_violation, const unsigned int* kept_satisfied,
                                           const unsigned long long* kept_draw, const unsigned char* candidates,
                                           const double* objective, const double* violation,
                                           const unsigned int* satisfied, unsigned char* next,
                                           double* next_objective, double* next_violation,
                                           unsigned int* next_satisfied, unsigned long long* next_draw,
                                           unsigned long long* draws, unsigned int* count, DpgaKernelParams p)
{
    extern __shared__ unsigned int order[];
    const unsigned int run = blockIdx.x;
    if (run >= p.runs) {
        return;
    }
    const unsigned int m = p.main_size;
    const unsigned int total = p.inequalities + p.equalities;
    const unsigned long long off = (unsigned long long)run * m;
    const unsigned int batch = count[run];
    const unsigned int kept_n = p.phase == 1 ? 0u : m;
    const unsigned int pool = kept_n + batch;
    const unsigned long long first_draw = draws[run];
    // Pool slot s: kept row s (s < kept_n) or candidate s - kept_n.
    for (unsigned int s = threadIdx.x; s < pool; s += blockDim.x) {
        if (batch == 0) {
            order[s] = s;
            continue;
        }
        const bool ks = s < kept_n;
        const DpgaEvaluation es = ks ? dpga_load(kept_objective, kept_violation, kept_satisfied, off + s, total)
                                     : dpga_load(objective, violation, satisfied, off + (s - kept_n), total);
        const unsigned long long ds = ks ? kept_draw[off + s] : first_draw + (s - kept_n);
        unsigned int rank = 0;
        for (unsigned int o = 0; o < pool; ++o) {
            const bool ko = o < kept_n;
            const DpgaEvaluation eo = ko ? dpga_load(kept_objective, kept_violation, kept_satisfied, off + o, total)
                                         : dpga_load(objective, violation, satisfied, off + (o - kept_n), total);
            const unsigned long long d_o = ko ? kept_draw[off + o] : first_draw + (o - kept_n);
            if (main_cmp(p.handling, eo, d_o, es, ds) < 0) {
                rank += 1;
            }
        }
        if (rank < m) {
            order[rank] = s;
        }
    }
    __syncthreads();
    for (unsigned int r = threadIdx.x; r < m; r += blockDim.x) {
        const unsigned int s = order[r];
        const bool ks = s < kept_n;
        const unsigned long long src = ks ? off + s : off + (s - kept_n);
        next_objective[off + r] = ks ? kept_objective[src] : objective[src];
        next_violation[off + r] = ks ? kept_violation[src] : violation[src];
        next_satisfied[off + r] = ks ? kept_satisfied[src] : satisfied[src];
        next_draw[off + r] = ks ? kept_draw[src] : first_draw + (s - kept_n);
    }
    for (unsigned long long t = threadIdx.x; t < (unsigned long long)m * p.length; t += blockDim.x) {
        const unsigned int r = (unsigned int)(t / p.length);
        const unsigned int j = (unsigned int)(t % p.length);
        const unsigned int s = order[r];
        const bool ks = s < kept_n;
        const unsigned char* src = ks ? kept + (off + s) * p.length : candidates + (off + (s - kept_n)) * p.length;
        next[(off + r) * p.length + j] = src[j];
    }
    __syncthreads();
    if (threadIdx.x == 0 && batch > 0) {
        const unsigned long long drawn = first_draw + batch;
        draws[run] = drawn;
        unsigned int feasible = 0;
        for (unsigned int r = 0; r < m; ++r) {
            feasible += next_satisfied[off + r] == total ? 1u : 0u;
        }
        const unsigned long long left = p.max_draws - drawn;
        count[run] = (drawn < p.max_draws && feasible < m) ? (unsigned int)(left < m ? left : m) : 0u;
    }
}

// Spec §4 item 1 (ops::mean_vector): mean[r][k] = ones at bit k of run r's m rows / m; thread per (run, k).
extern "C" __global__ void dpga_mean_vector(const unsigned char* population, double* mean, DpgaKernelParams p)
{
    const unsigned long long total = (unsigned long long)p.runs * p.length;
    for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < total;
         t += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long run = t / p.length;
        const unsigned int k = (unsigned int)(t % p.length);
        const unsigned char* rows = population + run * p.main_size * p.length;
        unsigned int ones = 0;
#pragma unroll 8
        for (unsigned int i = 0; i < p.main_size; ++i) {
            ones += rows[(unsigned long long)i * p.length + k];
        }
        mean[t] = (double)ones / (double)p.main_size;
    }
}

// f_r of every row (ops::distance_to_main, ops::reserve_fitness) against the run's mean vector and delta.
extern "C" __global__ void dpga_reserve_fitness(const unsigned char* rows, const double* mean, const double* delta,
                                                double* fitness, DpgaKernelParams p)
{
    const unsigned int rows_per_run = p.rows;
    const unsigned long long total = (unsigned long long)p.runs * rows_per_run;
    for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < total;
         t += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long run = t / rows_per_run;
        const double d = distance_to_main(rows + t * p.length, mean + run * p.length, p.length);
        fitness[t] = reserve_fitness(d, delta[run]);
    }
}

// Step 8 in one launch: f_r of R_t, O_r and C (n, n and |C| rows per run, run-major each) against the run's
// mean vector of M_{t+1} and delta; thread t covers row t % (2n + |C|) of run t / (2n + |C|).
extern "C" __global__ void dpga_reserve_fitness_survival(const unsigned char* reserve, const unsigned char* offspring,
                                                         const unsigned char* crossbred, const double* mean,
                                                         const double* delta, double* reserve_fr,
                                                         double* offspring_fr, double* crossbred_fr,
                                                         DpgaKernelParams p)
{
    const unsigned int n = p.reserve_size;
    const unsigned int c = p.crossbreed;
    const unsigned int per_run = 2u * n + c;
    const unsigned long long total = (unsigned long long)p.runs * per_run;
    for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < total;
         t += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned long long run = t / per_run;
        const unsigned int j = (unsigned int)(t % per_run);
        unsigned long long index;
        const unsigned char* row;
        double* out;
        if (j < n) {
            index = run * n + j;
            row = reserve + index * p.length;
            out = reserve_fr + index;
        } else if (j < 2u * n) {
            index = run * n + (j - n);
            row = offspring + index * p.length;
            out = offspring_fr + index;
        } else {
            index = run * c + (j - 2u * n);
            row = crossbred + index * p.length;
            out = crossbred_fr + index;
        }
        *out = reserve_fitness(distance_to_main(row, mean + run * p.length, p.length), delta[run]);
    }
}

// Step 4: inbreeding of M, block per (pair, run).
extern "C" __global__ void dpga_breed_main(const unsigned char* main, const double* objective,
                                           const double* violation, const unsigned int* satisfied,
                                           unsigned char* offspring, DpgaKernelParams p)
{
    __shared__ unsigned int parents[2];
    const unsigned int run = blockIdx.y;
    const unsigned long long seed = dpga_seed(p, run);
    const unsigned long long off = (unsigned long long)run * p.main_size;
    for (unsigned int pair = blockIdx.x; pair < p.main_size / 2u; pair += gridDim.x) {
        if (threadIdx.x == 0) {
            const EvoSequence words = evo_sequence(seed, p.stream_tournament_main, p.step, pair);
            parents[0] = dpga_tournament_main(words, 0, p, objective + off, violation + off, satisfied + off);
            parents[1] =
                dpga_tournament_main(words, p.tournament, p, objective + off, violation + off, satisfied + off);
        }
        __syncthreads();
        dpga_breed_pair(main + (off + parents[0]) * p.length, main + (off + parents[1]) * p.length,
                        evo_sequence(seed, p.stream_cross, p.step, pair),
                        offspring + (off + 2ull * pair) * p.length, offspring + (off + 2ull * pair + 1ull) * p.length,
                        2u * pair, seed, p);
        __syncthreads();
    }
}

// Step 5: inbreeding of R by tournaments on f_r, block per (pair, run).
extern "C" __global__ void dpga_breed_reserve(const unsigned char* reserve, const double* fitness,
                                              unsigned char* offspring, DpgaKernelParams p)
{
    __shared__ unsigned int parents[2];
    const unsigned int run = blockIdx.y;
    const unsigned long long seed = dpga_seed(p, run);
    const unsigned long long off = (unsigned long long)run * p.reserve_size;
    for (unsigned int pair = blockIdx.x; pair < p.reserve_size / 2u; pair += gridDim.x) {
        if (threadIdx.x == 0) {
            const EvoSequence words = evo_sequence(seed, p.stream_tournament_reserve, p.step, pair);
            parents[0] = dpga_tournament_reserve(words, 0, p, fitness + off);
            parents[1] = dpga_tournament_reserve(words, p.tournament, p, fitness + off);
        }
        __syncthreads();
        dpga_breed_pair(reserve + (off + parents[0]) * p.length, reserve + (off + parents[1]) * p.length,
                        evo_sequence(seed, p.stream_cross, p.step, p.main_size / 2u + pair),
                        offspring + (off + 2ull * pair) * p.length, offspring + (off + 2ull * pair + 1ull) * p.length,
                        p.main_size + 2u * pair, seed, p);
        __syncthreads();
    }
}

// Step 6: crossbreeding of the k-th best of O_m with the k-th best of O_r, block per (pair, run).
extern "C" __global__ void dpga_crossbreed(const unsigned char* offspring_main, const unsigned char* offspring_reserve,
                                           const unsigned int* best_main, const unsigned int* best_reserve,
                                           unsigned char* crossbred, DpgaKernelParams p)
{
    const unsigned int run = blockIdx.y;
    const unsigned long long seed = dpga_seed(p, run);
    const unsigned int half = p.crossbreed / 2u;
    for (unsigned int pair = blockIdx.x; pair < half; pair += gridDim.x) {
        const unsigned int a = best_main[(unsigned long long)run * half + pair];
        const unsigned int b = best_reserve[(unsigned long long)run * half + pair];
        const unsigned long long off_c = (unsigned long long)run * p.crossbreed;
        dpga_breed_pair(offspring_main + ((unsigned long long)run * p.main_size + a) * p.length,
                        offspring_reserve + ((unsigned long long)run * p.reserve_size + b) * p.length,
                        evo_sequence(seed, p.stream_crossbreed, p.step, pair),
                        crossbred + (off_c + 2ull * pair) * p.length, crossbred + (off_c + 2ull * pair + 1ull) * p.length,
                        p.main_size + p.reserve_size + 2u * pair, seed, p);
    }
}

// The exact sum of a warp's counts (integer addition: any order gives the same total).
__device__ __forceinline__ unsigned int dpga_warp_sum(unsigned int count)
{
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
        count += __shfl_xor_sync(0xffffffffu, count, offset);
    }
    return count;
}

// Selection under the main comparator, one warp per candidate (grid.x = candidate groups, grid.y = run; the
// block size is a multiple of 32): the select_count best of the candidates 0..select_a (segment a, stride
// select_a per run) and select_a..select_a+select_b (segment b, stride select_b per run), in order, into
// out[r][0..select_count]. Lane l counts the candidates o = l, l+32, ... that precede s; the warp's sum is the
// rank (an exact integer count, independent of the block size).
extern "C" __global__ void dpga_select_main(const double* objective_a, const double* violation_a,
                                            const unsigned int* satisfied_a, const double* objective_b,
                                            const double* violation_b, const unsigned int* satisfied_b,
                                            unsigned int* out, DpgaKernelParams p)
{
    const unsigned int run = blockIdx.y;
    if (run >= p.runs) {
        return;
    }
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warps = blockDim.x >> 5;
    const unsigned int total = p.inequalities + p.equalities;
    const unsigned int n = p.select_a + p.select_b;
    const unsigned long long off_a = (unsigned long long)run * p.select_a;
    const unsigned long long off_b = (unsigned long long)run * p.select_b;
    for (unsigned int s = blockIdx.x * warps + (threadIdx.x >> 5); s < n; s += gridDim.x * warps) {
        const DpgaEvaluation es = s < p.select_a
                                      ? dpga_load(objective_a, violation_a, satisfied_a, off_a + s, total)
                                      : dpga_load(objective_b, violation_b, satisfied_b, off_b + (s - p.select_a), total);
        unsigned int count = 0;
        for (unsigned int o = lane; o < n; o += 32u) {
            const DpgaEvaluation eo = o < p.select_a
                                          ? dpga_load(objective_a, violation_a, satisfied_a, off_a + o, total)
                                          : dpga_load(objective_b, violation_b, satisfied_b, off_b + (o - p.select_a), total);
            if (main_cmp(p.handling, eo, o, es, s) < 0) {
                count += 1;
            }
        }
        const unsigned int rank = dpga_warp_sum(count);
        if (lane == 0 && rank < p.select_count) {
            out[(unsigned long long)run * p.select_count + rank] = s;
        }
    }
}

// Selection under the reserve order (higher f_r, then lower index), one warp per candidate as dpga_select_main.
extern "C" __global__ void dpga_select_reserve(const double* fitness_a, const double* fitness_b, unsigned int* out,
                                               DpgaKernelParams p)
{
    const unsigned int run = blockIdx.y;
    if (run >= p.runs) {
        return;
    }
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warps = blockDim.x >> 5;
    const unsigned int n = p.select_a + p.select_b;
    const unsigned long long off_a = (unsigned long long)run * p.select_a;
    const unsigned long long off_b = (unsigned long long)run * p.select_b;
    for (unsigned int s = blockIdx.x * warps + (threadIdx.x >> 5); s < n; s += gridDim.x * warps) {
        const double fs = s < p.select_a ? fitness_a[off_a + s] : fitness_b[off_b + (s - p.select_a)];
        unsigned int count = 0;
        for (unsigned int o = lane; o < n; o += 32u) {
            const double fo = o < p.select_a ? fitness_a[off_a + o] : fitness_b[off_b + (o - p.select_a)];
            if (reserve_cmp(fo, o, fs, s) < 0) {
                count += 1;
            }
        }
        const unsigned int rank = dpga_warp_sum(count);
        if (lane == 0 && rank < p.select_count) {
            out[(unsigned long long)run * p.select_count + rank] = s;
        }
    }
}

// Step 7: M_{t+1} row i (block per (row, run)): elite i of M_t (i < e_M), else chosen candidate c of
// O_m (c < m) or C (c - m).
extern "C" __global__ void dpga_gather_main(const unsigned char* main, const double* objective,
                                            const double* violation, const unsigned int* satisfied,
                                            const unsigned char* offspring, const double* offspring_objective,
                                            const double* offspring_violation, const unsigned int* offspring_satisfied,
                                            const unsigned char* crossbred, const double* crossbred_objective,
                                            const double* crossbred_violation, const unsigned int* crossbred_satisfied,
                                            const unsigned int* elites, const unsigned int* chosen, unsigned char* next,
                                            double* next_objective, double* next_violation,
                                            unsigned int* next_satisfied, DpgaKernelParams p)
{
    const unsigned int run = blockIdx.y;
    const unsigned int m = p.main_size;
    const unsigned int e = p.main_elites;
    for (unsigned int i = blockIdx.x; i < m; i += gridDim.x) {
        const unsigned char* bits;
        unsigned long long src;
        const double* o;
        const double* v;
        const unsigned int* s;
        if (i < e) {
            src = (unsigned long long)run * m + elites[(unsigned long long)run * e + i];
            bits = main;
            o = objective;
            v = violation;
            s = satisfied;
        } else {
            const unsigned int c = chosen[(unsigned long long)run * (m - e) + (i - e)];
            if (c < m) {
                src = (unsigned long long)run * m + c;
                bits = offspring;
                o = offspring_objective;
                v = offspring_violation;
                s = offspring_satisfied;
            } else {
                src = (unsigned long long)run * p.crossbreed + (c - m);
                bits = crossbred;
                o = crossbred_objective;
                v = crossbred_violation;
                s = crossbred_satisfied;
            }
        }
        const unsigned long long dst = (unsigned long long)run * m + i;
        for (unsigned int j = threadIdx.x; j < p.length; j += blockDim.x) {
            next[dst * p.length + j] = bits[src * p.length + j];
        }
        if (threadIdx.x == 0) {
            next_objective[dst] = o[src];
            next_violation[dst] = v[src];
            next_satisfied[dst] = s[src];
        }
    }
}

// Step 8: R_{t+1} row i (block per (row, run)): elite i of R_t (i < e_R), else chosen candidate c of O_r
// (c < n) or C (c - n).
extern "C" __global__ void dpga_gather_reserve(const unsigned char* reserve, const unsigned char* offspring,
                                               const unsigned char* crossbred, const unsigned int* elites,
                                               const unsigned int* chosen, unsigned char* next, DpgaKernelParams p)
{
    const unsigned int run = blockIdx.y;
    const unsigned int n = p.reserve_size;
    const unsigned int e = p.reserve_elites;
    for (unsigned int i = blockIdx.x; i < n; i += gridDim.x) {
        const unsigned char* src;
        if (i < e) {
            src = reserve + ((unsigned long long)run * n + elites[(unsigned long long)run * e + i]) * p.length;
        } else {
            const unsigned int c = chosen[(unsigned long long)run * (n - e) + (i - e)];
            src = c < n ? offspring + ((unsigned long long)run * n + c) * p.length
                        : crossbred + ((unsigned long long)run * p.crossbreed + (c - n)) * p.length;
        }
        unsigned char* dst = next + ((unsigned long long)run * n + i) * p.length;
        for (unsigned int j = threadIdx.x; j < p.length; j += blockDim.x) {
            dst[j] = src[j];
        }
    }
}

// The better of two candidate indices of M under the main comparator (DPGA_NONE: no candidate).
#define DPGA_NONE 0xffffffffu
__device__ __forceinline__ unsigned int dpga_better(const double* objective, const double* violation,
                                                    const unsigned int* satisfied, unsigned long long off,
                                                    unsigned int total, unsigned int handling, unsigned int a,
                                                    unsigned int b)
{
    if (a == DPGA_NONE) {
        return b;
    }
    if (b == DPGA_NONE) {
        return a;
    }
    return main_cmp(handling, dpga_load(objective, violation, satisfied, off + b, total), b,
                    dpga_load(objective, violation, satisfied, off + a, total), a) < 0
               ? b
               : a;
}

// Step 9 (when p.phase == 1 and |C| > 0) and the best-so-far update, one block per run (the block size is a
// multiple of 32): delta from the survivors among `chosen` (an exact integer count summed over the threads);
// the best of M under the main comparator with the index as the last key, a total order, so its minimum is
// unique and the block's reduction (thread scans, warp shuffles, then thread 0 over the warps) finds the same
// row as the CPU's scan; it replaces the best-so-far when it is strictly better (DpgaCpu::update_best compares
// (best of M, 0) with (best so far, 1)); then report[4r..4r+4] = (best objective, violation, satisfied count,
// status[r]) for the host's single read-back.
extern "C" __global__ void dpga_finish(const unsigned char* main, const double* objective, const double* violation,
                                       const unsigned int* satisfied, const unsigned int* chosen, double* delta,
                                       unsigned char* best, double* best_objective, double* best_violation,
                                       unsigned int* best_satisfied, const unsigned int* status, double* report,
                                       DpgaKernelParams p)
{
    __shared__ unsigned int warp_winner[32];
    __shared__ unsigned int warp_count[32];
    __shared__ unsigned int winner;
    __shared__ bool improved;
    const unsigned int run = blockIdx.x;
    if (run >= p.runs) {
        return;
    }
    const unsigned int m = p.main_size;
    const unsigned int total = p.inequalities + p.equalities;
    const unsigned long long off = (unsigned long long)run * m;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    const bool adapt = p.phase == 1 && p.crossbreed > 0;
    const unsigned int kept = m - p.main_elites;
    unsigned int count = 0;
    if (adapt) {
        for (unsigned int i = threadIdx.x; i < kept; i += blockDim.x) {
            count += chosen[(unsigned long long)run * kept + i] >= m ? 1u : 0u;
        }
    }
    unsigned int w = DPGA_NONE;
    for (unsigned int i = threadIdx.x; i < m; i += blockDim.x) {
        w = dpga_better(objective, violation, satisfied, off, total, p.handling, w, i);
    }
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
        count += __shfl_xor_sync(0xffffffffu, count, offset);
        const unsigned int other = __shfl_xor_sync(0xffffffffu, w, offset);
        w = dpga_better(objective, violation, satisfied, off, total, p.handling, w, other);
    }
    if (lane == 0) {
        warp_winner[warp] = w;
        warp_count[warp] = count;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int crossbred_survivors = 0;
        w = DPGA_NONE;
        for (unsigned int k = 0; k < warps; ++k) {
            crossbred_survivors += warp_count[k];
            w = dpga_better(objective, violation, satisfied, off, total, p.handling, w, warp_winner[k]);
        }
        if (adapt) {
            const unsigned int inbred_survivors = kept - crossbred_survivors;
            delta[run] = adapt_target_distance(delta[run], p.learning_rate,
                                               (double)crossbred_survivors / (double)p.crossbreed,
                                               (double)inbred_survivors / (double)m, p.delta_min, p.delta_max);
        }
        DpgaEvaluation current;
        current.objective = best_objective[run];
        current.violation = best_violation[run];
        current.satisfied = best_satisfied[run];
        current.feasible = current.satisfied == total;
        improved = main_cmp(p.handling, dpga_load(objective, violation, satisfied, off + w, total), 0, current, 1) < 0;
        winner = w;
        if (improved) {
            best_objective[run] = objective[off + w];
            best_violation[run] = violation[off + w];
            best_satisfied[run] = satisfied[off + w];
        }
        // The host's one read-back per generation: the best so far and the status (both counts are exact in
        // a double).
        report[4ull * run] = best_objective[run];
        report[4ull * run + 1ull] = best_violation[run];
        report[4ull * run + 2ull] = (double)best_satisfied[run];
        report[4ull * run + 3ull] = (double)status[run];
    }
    __syncthreads();
    if (improved) {
        for (unsigned int j = threadIdx.x; j < p.length; j += blockDim.x) {
            best[(unsigned long long)run * p.length + j] = main[(off + winner) * p.length + j];
        }
    }
}
