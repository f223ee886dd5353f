// The quantum-inspired GA on the 0/1 knapsack (kernel module `qiga`; Rust twins: crates/qiga/src/ops.rs and
// the generation loop of crates/qiga/src/cpu.rs). The paper's layout: one block = one independent run, its
// threads stride over the genes of all individuals (four qubits, one Philox block, per thread); the repair and
// evaluation run a warp per individual when the host has proven the f64 sums exact in any order (then the
// warp's scans stop where the CPU's serial loops stop, bit for bit), else on threads 0..P-1 serially over the
// items exactly as the CPU; store-best on thread 0; barriers between the phases. Every run of the grid has its own seed and its own five rotation angles, so
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
    unsigned int exact_sums;        // 1: every weight and profit sum is exact in any order: a warp per individual
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

// Twin: ops::delta. A select chain rather than angles[row - 3], so that a caller's register array of angles
// is not indexed at run time (which would move it to local memory).
__device__ __forceinline__ float qiga_delta(unsigned int row, const float* angles)
{
    return row == 3u ? angles[0] : row == 4u ? angles[1] : row == 5u ? angles[2] : row == 6u ? angles[3] : row == 7u ? angles[4] : 0.0f;
}

// Twin: ops::sign, reading the cell from `table` (QIGA_SIGN or a shared-memory copy of it: a warp's lanes read
// different cells, which constant memory serves one address at a time and shared memory at once).
__device__ __forceinline__ float qiga_sign(const int (*table)[4], unsigned int row, unsigned int quadrant, unsigned int sign_word, unsigned int sign_choice)
{
    const int cell = table[row][quadrant];
    if (cell != QIGA_EITHER) {
        return (float)cell;
    } else if (sign_choice == 1u && (sign_word >> 31) != 0u) {
        return -1.0f;
    }
    return 1.0f;
}

// Twin: ops::rotate, with the sign table `table`.
__device__ __forceinline__ float qiga_rotate_table(const int (*table)[4], float theta, bool x, bool b, bool flag, const float* angles, unsigned int sign_word, unsigned int sign_choice, unsigned int quadrant_rule)
{
    const unsigned int row = qiga_rotation_row(x, b, flag);
    const float s = qiga_sign(table, row, qiga_quadrant(theta, quadrant_rule), sign_word, sign_choice);
    return theta + s * qiga_delta(row, angles);
}

// Twin: ops::rotate.
__device__ __forceinline__ float qiga_rotate(float theta, bool x, bool b, bool flag, const float* angles, unsigned int sign_word, unsigned int sign_choice, unsigned int quadrant_rule)
{
    return qiga_rotate_table(QIGA_SIGN, theta, x, b, flag, angles, sign_word, sign_choice, quadrant_rule);
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

// ---- Warp-parallel twins of the serial loops, used when the host has proven every weight and profit sum exact
// in any order (QigaRunParams::exact_sums; crates/qiga/src/cuda/exact.rs). Exact sums make a warp's partial
// sums equal the serial loop's running sums bit for bit, so every stopping point below is the one the serial
// loop finds. Every lane of the warp calls these with the same arguments; every lane gets the result.
#define QIGA_FULL_MASK 0xffffffffu

// The sum of v over the warp's lanes.
__device__ __forceinline__ double qiga_warp_sum(double v)
{
    for (unsigned int o = 16u; o > 0u; o >>= 1) {
        v += __shfl_xor_sync(QIGA_FULL_MASK, v, o);
    }
    return v;
}

// The inclusive prefix sum of v over lanes 0..=lane.
__device__ __forceinline__ double qiga_warp_scan(double v, unsigned int lane)
{
    for (unsigned int o = 1u; o < 32u; o <<= 1) {
        const double u = __shfl_up_sync(QIGA_FULL_MASK, v, o);
        if (lane >= o) {
            v += u;
        }
    }
    return v;
}

// The weight (values = weights) or the profit (values = profits) of x.
__device__ double qiga_warp_total(const unsigned char* x, const float* values, unsigned int n, unsigned int lane)
{
    double total = 0.0;
    for (unsigned int j = lane; j < n; j += 32u) {
        if (x[j]) {
            total += (double)values[j];
        }
    }
    return qiga_warp_sum(total);
}

// One step of the warp scans below over 128 consecutive positions, four per lane (lane l holds positions 4l ..
// 4l + 3, values w4): the running sum at a position is start + the values up to and including it. Returns on
// every lane the first position whose running sum s stops the serial loop (weight - s <= capacity when
// `removing`, else weight + s > capacity), or 128 when none does; `at` gets that position's running sum and
// `total` the sum through position 127. A position past the items holds 0, so it repeats the last item's test
// and never stops first.
__device__ __forceinline__ unsigned int qiga_warp_first_stop(const double* w4, double start, double weight, double capacity, bool removing, unsigned int lane, double* total, double* at)
{
    const double own = (w4[0] + w4[1]) + (w4[2] + w4[3]);
    const double through = qiga_warp_scan(own, lane);
    double run = start + (through - own);
    unsigned int hit = 4u;
    double hit_run = 0.0;
    for (unsigned int r = 0; r < 4u; ++r) {
        run += w4[r];
        const bool stop = removing ? weight - run <= capacity : weight + run > capacity;
        if (hit == 4u && stop) {
            hit = r;
            hit_run = run;
        }
    }
    *total = start + __shfl_sync(QIGA_FULL_MASK, through, 31);
    const unsigned int lanes = __ballot_sync(QIGA_FULL_MASK, hit < 4u);
    if (lanes == 0u) {
        return 128u;
    }
    const unsigned int k = (unsigned int)__ffs(lanes) - 1u;
    *at = __shfl_sync(QIGA_FULL_MASK, hit_run, k);
    return 4u * k + __shfl_sync(QIGA_FULL_MASK, hit, k);
}

// qiga_repair_evaluate by one warp. The serial removal zeroes x[0..=k] for the first k at which the kept weight
// W - (taken weight in 0..=k) is within C; the serial addition sets x[0..=k] for the first k at which
// W + (left-out weight in 0..=k) passes C (k = n - 1 when none does) and then clears x[k]. Both k are found by
// qiga_warp_first_stop over steps of 128 items.
__device__ double qiga_warp_repair_evaluate(unsigned char* x, const float* weights, const float* profits, unsigned int n, double capacity, unsigned int lane)
{
    double weight = qiga_warp_total(x, weights, n, lane);
    double w4[4];
    double total = 0.0;
    double at = 0.0;
    if (weight > capacity) {
        unsigned int cut = n;
        double removed = 0.0;
        for (unsigned int base = 0; base < n; base += 128u) {
            for (unsigned int r = 0; r < 4u; ++r) {
                const unsigned int j = base + 4u * lane + r;
                w4[r] = (j < n && x[j]) ? (double)weights[j] : 0.0;
            }
            const unsigned int hit = qiga_warp_first_stop(w4, removed, weight, capacity, true, lane, &total, &at);
            if (hit < 128u) {
                cut = base + hit + 1u;
                removed = at;
                break;
            }
            removed = total;
        }
        weight -= removed;
        __syncwarp();
        for (unsigned int j = lane; j < cut; j += 32u) {
            x[j] = 0;
        }
        __syncwarp();
    }
    unsigned int last = n;
    double added = 0.0;
    for (unsigned int base = 0; base < n; base += 128u) {
        for (unsigned int r = 0; r < 4u; ++r) {
            const unsigned int j = base + 4u * lane + r;
            w4[r] = (j < n && !x[j]) ? (double)weights[j] : 0.0;
        }
        const unsigned int hit = qiga_warp_first_stop(w4, added, weight, capacity, false, lane, &total, &at);
        if (hit < 128u) {
            last = base + hit;
            break;
        }
        added = total;
    }
    if (last == n && n > 0u) {
        last = n - 1u;
    }
    __syncwarp();
    for (unsigned int j = lane; j <= last && j < n; j += 32u) {
        x[j] = j < last ? 1 : 0;
    }
    __syncwarp();
    return qiga_warp_total(x, profits, n, lane);
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
static_assert(QIGA_LS_WINDOW <= 32u, "qiga_warp_local_search gives each out-candidate a lane");

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

// qiga_greedy_repair_evaluate by one warp. The removal is the index-order one over the order read from its end.
// The addition takes chunks of 32 positions of the order in rounds: an open item that does not fit beside the
// current weight never will (the weight only grows), so it closes; of the rest, the leading run whose prefix
// weights fit is taken, and the first whose prefix does not fit closes (the serial loop meets it with exactly
// that weight). Each round closes at least one item.
__device__ double qiga_warp_greedy_repair_evaluate(unsigned char* x, const float* weights, const float* profits, const unsigned int* order, unsigned int n, double capacity, unsigned int lane)
{
    double weight = qiga_warp_total(x, weights, n, lane);
    if (weight > capacity) {
        unsigned int cut = n;
        double removed = 0.0;
        for (unsigned int base = 0; base < n; base += 32u) {
            const unsigned int t = base + lane;
            const unsigned int j = t < n ? order[n - 1u - t] : 0u;
            const double w = (t < n && x[j]) ? (double)weights[j] : 0.0;
            const double taken = removed + qiga_warp_scan(w, lane);
            const unsigned int within = __ballot_sync(QIGA_FULL_MASK, t < n && weight - taken <= capacity);
            if (within != 0u) {
                const unsigned int k = (unsigned int)__ffs(within) - 1u;
                cut = base + k + 1u;
                removed = __shfl_sync(QIGA_FULL_MASK, taken, k);
                break;
            }
            removed = __shfl_sync(QIGA_FULL_MASK, taken, 31);
        }
        weight -= removed;
        __syncwarp();
        for (unsigned int t = lane; t < cut; t += 32u) {
            x[order[n - 1u - t]] = 0;
        }
        __syncwarp();
    }
    for (unsigned int base = 0; base < n; base += 32u) {
        const unsigned int k = base + lane;
        const unsigned int j = k < n ? order[k] : 0u;
        bool open = k < n && !x[j];
        const double w = open ? (double)weights[j] : 0.0;
        for (;;) {
            open = open && weight + w <= capacity;
            if (!__any_sync(QIGA_FULL_MASK, open)) {
                break;
            }
            const double put = qiga_warp_scan(open ? w : 0.0, lane);
            const unsigned int over = __ballot_sync(QIGA_FULL_MASK, open && weight + put > capacity);
            const unsigned int stop = over != 0u ? (unsigned int)__ffs(over) - 1u : 32u;
            const bool take = open && lane < stop;
            if (take) {
                x[j] = 1;
            }
            weight += qiga_warp_sum(take ? w : 0.0);
            open = open && lane > stop;
        }
    }
    __syncwarp();
    return qiga_warp_total(x, profits, n, lane);
}

// Step 1 of qiga_local_search by one warp: the first QIGA_LS_WINDOW items of `order` (read from its end when
// `taken`) whose bit in b equals `taken`, into slots in scan order; returns how many (fewer when the order runs
// out). Each lane reads four consecutive positions per step, so a step covers 128.
__device__ unsigned int qiga_warp_collect(const unsigned char* b, const unsigned int* order, unsigned int n, bool taken, unsigned int* slots, unsigned int lane)
{
    unsigned int found = 0;
    for (unsigned int base = 0; base < n && found < QIGA_LS_WINDOW; base += 128u) {
        unsigned int items[4] = {0u, 0u, 0u, 0u};
        unsigned int hits = 0;
        for (unsigned int r = 0; r < 4u; ++r) {
            const unsigned int t = base + 4u * lane + r;
            if (t < n) {
                items[r] = order[taken ? n - 1u - t : t];
                if ((b[items[r]] != 0) == taken) {
                    hits |= 1u << r;
                }
            }
        }
        const unsigned int count = (unsigned int)__popc(hits);
        unsigned int through = count;
        for (unsigned int o = 1u; o < 32u; o <<= 1) {
            const unsigned int u = __shfl_up_sync(QIGA_FULL_MASK, through, o);
            if (lane >= o) {
                through += u;
            }
        }
        unsigned int slot = found + through - count;
        for (unsigned int r = 0; r < 4u; ++r) {
            if ((hits >> r) & 1u) {
                if (slot < QIGA_LS_WINDOW) {
                    slots[slot] = items[r];
                }
                ++slot;
            }
        }
        found += __shfl_sync(QIGA_FULL_MASK, through, 31);
    }
    return found < QIGA_LS_WINDOW ? found : QIGA_LS_WINDOW;
}

// qiga_local_search by one warp; `window` is 2 * QIGA_LS_WINDOW shared slots. Lane a weighs the moves that take
// out-candidate a (the add, then the swaps with each in-candidate); the warp keeps the largest gain, and on ties
// the move the serial loop meets first, numbered a for an add and QIGA_LS_WINDOW * (c + 1) + a for the swap with
// in-candidate c. Each move's gain and fit test are computed as in the serial loop, so the same move wins.
__device__ double qiga_warp_local_search(unsigned char* b, const float* weights, const float* profits, const unsigned int* order, unsigned int n, double capacity, unsigned int lane, unsigned int* window)
{
    unsigned int* outside = window;
    unsigned int* inside = window + QIGA_LS_WINDOW;
    double weight = qiga_warp_total(b, weights, n, lane);
    for (unsigned int move = 0; move < QIGA_LS_MAX_MOVES; ++move) {
        const unsigned int outs = qiga_warp_collect(b, order, n, false, outside, lane);
        const unsigned int ins = qiga_warp_collect(b, order, n, true, inside, lane);
        __syncwarp();
        double gain = 0.0;
        unsigned int rank = 0xffffffffu;
        if (lane < outs) {
            const unsigned int j = outside[lane];
            const double pj = (double)profits[j];
            const double wj = (double)weights[j];
            if (weight + wj <= capacity && pj > gain) {
                gain = pj;
                rank = lane;
            }
            for (unsigned int c = 0; c < ins; ++c) {
                const unsigned int i = inside[c];
                const double g = pj - (double)profits[i];
                if ((weight - (double)weights[i]) + wj <= capacity && g > gain) {
                    gain = g;
                    rank = QIGA_LS_WINDOW * (c + 1u) + lane;
                }
            }
        }
        for (unsigned int o = 16u; o > 0u; o >>= 1) {
            const double other_gain = __shfl_xor_sync(QIGA_FULL_MASK, gain, o);
            const unsigned int other_rank = __shfl_xor_sync(QIGA_FULL_MASK, rank, o);
            if (other_gain > gain || (other_gain == gain && other_rank < rank)) {
                gain = other_gain;
                rank = other_rank;
            }
        }
        if (rank == 0xffffffffu) {
            break;
        }
        const unsigned int take = outside[rank % QIGA_LS_WINDOW];
        if (rank >= QIGA_LS_WINDOW) {
            const unsigned int drop = inside[rank / QIGA_LS_WINDOW - 1u];
            if (lane == 0u) {
                b[drop] = 0;
            }
            weight -= (double)weights[drop];
        }
        if (lane == 0u) {
            b[take] = 1;
        }
        weight += (double)weights[take];
        __syncwarp();
    }
    __syncwarp();
    return qiga_warp_total(b, profits, n, lane);
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
    __shared__ unsigned int window[2u * QIGA_LS_WINDOW];
    __shared__ int sign_table[8][4];
    const unsigned int run = blockIdx.x;
    if (run >= p.runs) {
        return;
    }
    if (threadIdx.x < 32u) {
        sign_table[threadIdx.x / 4u][threadIdx.x % 4u] = QIGA_SIGN[threadIdx.x / 4u][threadIdx.x % 4u];
    }
    __syncthreads();
    const unsigned int n = p.items;
    const unsigned int genes = p.population * n;
    const unsigned int quads = (n + 3u) / 4u;
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
        // Step 2: observe every qubit. Qubit j of individual i takes word j of its sequence, which is word j % 4
        // of Philox block j / 4: a thread observes the four qubits of one block.
        for (unsigned int t = threadIdx.x; t < p.population * quads; t += blockDim.x) {
            const unsigned int i = t / quads;
            const unsigned int q = t - i * quads;
            const uint4 words = evo_sequence_block(evo_sequence(seed, p.observe_stream, g, i), q);
            const size_t row = (size_t)i * n;
            for (unsigned int r = 0; r < 4u && 4u * q + r < n; ++r) {
                const size_t idx = row + 4u * q + r;
                x[idx] = qiga_observe(th[idx], evo_uniform_f32(evo_uint4_word(words, r))) ? 1 : 0;
            }
        }
        __syncthreads();
        // Steps 3-4: repair and evaluate, a warp per individual when the sums are exact, else one thread.
        if (p.exact_sums == 1u) {
            const unsigned int lane = threadIdx.x & 31u;
            for (unsigned int i = threadIdx.x >> 5; i < p.population; i += blockDim.x >> 5) {
                unsigned char* xi = x + (size_t)i * n;
                const double profit = repair == 1u ? qiga_warp_greedy_repair_evaluate(xi, weights, profits, order, n, p.capacity, lane)
                                                   : qiga_warp_repair_evaluate(xi, weights, profits, n, p.capacity, lane);
                if (lane == 0u) {
                    f[i] = profit;
                }
            }
        } else if (threadIdx.x < p.population) {
            unsigned char* xi = x + (size_t)threadIdx.x * n;
            f[threadIdx.x] = repair == 1u ? qiga_greedy_repair_evaluate(xi, weights, profits, order, n, p.capacity)
                                          : qiga_repair_evaluate(xi, weights, profits, n, p.capacity);
        }
        __syncthreads();
        // Step 7: rotate towards b, judged against the best of the previous generations.
        if (g > 0u) {
            const double previous = best_profit[run];
            for (unsigned int t = threadIdx.x; t < p.population * quads; t += blockDim.x) {
                const unsigned int i = t / quads;
                const unsigned int q = t - i * quads;
                const bool flag = f[i] >= previous;
                uint4 sign_words = make_uint4(0u, 0u, 0u, 0u);
                if (p.sign_choice == 1u) {
                    sign_words = evo_sequence_block(evo_sequence(seed, p.sign_stream, g, i), q);
                }
                const size_t row = (size_t)i * n;
                for (unsigned int r = 0; r < 4u && 4u * q + r < n; ++r) {
                    const unsigned int j = 4u * q + r;
                    th[row + j] = qiga_rotate_table(sign_table, th[row + j], x[row + j] != 0, b[j] != 0, flag, lut, evo_uint4_word(sign_words, r), p.sign_choice, p.quadrant_rule);
                }
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
            // Step 5': improve the new b, by warp 0 when the sums are exact, else by thread 0.
            if (improved && p.exact_sums == 1u && threadIdx.x < 32u) {
                const double profit = qiga_warp_local_search(b, weights, profits, order, n, p.capacity, threadIdx.x, window);
                if (threadIdx.x == 0u) {
                    best_profit[run] = profit;
                }
            } else if (improved && p.exact_sums != 1u && threadIdx.x == 0u) {
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

#include "cuda/qiga_sga.cuh"
#include "cuda/qiga_bits.cuh"
