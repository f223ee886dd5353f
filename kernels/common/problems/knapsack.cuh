// 0/1 knapsack: the index-order repair, the CUDA twin of `Knapsack::repair_row`
// (crates/benchmarks/src/knapsack/repair.rs). The row is the packed `Bits` layout: bit i in word i / 32 at
// position i % 32; padding bits of the last word are cleared. W is updated in double in index order, as on
// the CPU; the profit is then summed in index order.
#pragma once

__device__ __forceinline__ bool evo_knapsack_bit(const unsigned int* row, unsigned int i)
{
    return ((row[i >> 5] >> (i & 31u)) & 1u) != 0u;
}

__device__ __forceinline__ void evo_knapsack_set(unsigned int* row, unsigned int i, bool value)
{
    const unsigned int mask = 1u << (i & 31u);
    row[i >> 5] = value ? (row[i >> 5] | mask) : (row[i >> 5] & ~mask);
}

// Repairs `row` (n items) in place; returns the repaired profit and writes the repaired weight to *weight_out.
__device__ inline double evo_knapsack_repair(unsigned int* row, unsigned int n, const float* weights,
                                             const float* profits, double capacity, double* weight_out)
{
    const unsigned int words = (n + 31u) / 32u;
    if ((n & 31u) != 0u) {
        row[words - 1] &= (1u << (n & 31u)) - 1u;
    }
    double weight = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        if (evo_knapsack_bit(row, i)) {
            weight += (double)weights[i];
        }
    }
    bool over = weight > capacity;
    // Step 2: drop items in index order until the selection fits.
    for (unsigned int i = 0; i < n && over; ++i) {
        if (evo_knapsack_bit(row, i)) {
            weight -= (double)weights[i];
        }
        evo_knapsack_set(row, i, false);
        over = weight > capacity;
    }
    // Step 3: add items in index order until one overflows; step 4: drop the last one visited.
    long long last = -1;
    for (unsigned int j = 0; j < n && !over; ++j) {
        if (!evo_knapsack_bit(row, j)) {
            weight += (double)weights[j];
        }
        evo_knapsack_set(row, j, true);
        over = weight > capacity;
        last = (long long)j;
    }
    if (last >= 0) {
        evo_knapsack_set(row, (unsigned int)last, false);
    }
    double packed_weight = 0.0;
    double profit = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        if (evo_knapsack_bit(row, i)) {
            packed_weight += (double)weights[i];
            profit += (double)profits[i];
        }
    }
    *weight_out = packed_weight;
    return profit;
}
