// QIGA's knapsack options (issue 33), included by kernels/cuda/qiga.cu where they are used (one module, one
// PTX); split from it for length only.
#pragma once

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
static_assert(sizeof(QigaOptionParams) == 72, "QigaOptionParams must match its Rust mirror (72 bytes)");

// Twin: local_search::WINDOW and local_search::MAX_MOVES.
#define QIGA_LS_WINDOW 32u
#define QIGA_LS_MAX_MOVES 64u
static_assert(QIGA_LS_WINDOW <= 32u, "qiga_warp_local_search gives each out-candidate a lane");

// Steps 3-4 with the greedy repair (drop the worst profit/weight items while over, then add the best that
// fit), then the profit in index order. `order` is the profit/weight order. Twin:
// evo_benchmarks::Knapsack::greedy_repair_row (steps numbered in knapsack/greedy.rs).
template <typename Value>
__device__ double qiga_greedy_repair_evaluate(unsigned char* x, const Value* weights, const Value* profits, const unsigned int* order, unsigned int n, double capacity)
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
template <typename Value>
__device__ double qiga_local_search(unsigned char* b, const Value* weights, const Value* profits, const unsigned int* order, unsigned int n, double capacity)
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
template <typename Value>
__device__ double qiga_warp_greedy_repair_evaluate(unsigned char* x, const Value* weights, const Value* profits, const unsigned int* order, unsigned int n, double capacity, unsigned int lane)
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
template <typename Value>
__device__ double qiga_warp_local_search(unsigned char* b, const Value* weights, const Value* profits, const unsigned int* order, unsigned int n, double capacity, unsigned int lane, unsigned int* window)
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
