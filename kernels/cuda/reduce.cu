// Grid-wide canonical sums (kernel module `reduce`). Each block of B threads (a power of two) reduces the
// aligned subtree of 2B leaves starting at blockIdx.x * 2B and writes one partial; the host launches the same
// kernel on the partials until one value is left. Twin: `evo_core::reduce::pairwise_sum_f64`.
#include "common/reduce.cuh"

// Scalar arguments of the reduce kernels; mirrored by `ReduceParams` in evo-gpu-runtime's `kernels.rs`.
struct ReduceParams {
    unsigned long long n;  // number of input terms
};
static_assert(sizeof(ReduceParams) == 8, "ReduceParams must match its Rust mirror");

extern "C" __global__ void reduce_sum_f64(const double* terms, double* partials, ReduceParams p)
{
    extern __shared__ double scratch[];
    const unsigned long long first = (unsigned long long)blockIdx.x * 2ull * blockDim.x + 2ull * threadIdx.x;
    // The two leaves of this thread form the lowest level of the tree; missing leaves are +0.0.
    const double left = first < p.n ? terms[first] : 0.0;
    const double right = first + 1 < p.n ? terms[first + 1] : 0.0;
    const double sum = evo_block_pairwise_sum_f64(left + right, scratch);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
    }
}

extern "C" __global__ void reduce_sum_f32_to_f64(const float* terms, double* partials, ReduceParams p)
{
    extern __shared__ double scratch[];
    const unsigned long long first = (unsigned long long)blockIdx.x * 2ull * blockDim.x + 2ull * threadIdx.x;
    // Widening float to double is exact, so the leaves equal the CPU's `f64::from(term)`.
    const double left = first < p.n ? (double)terms[first] : 0.0;
    const double right = first + 1 < p.n ? (double)terms[first + 1] : 0.0;
    const double sum = evo_block_pairwise_sum_f64(left + right, scratch);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
    }
}
