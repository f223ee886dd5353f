// Fixed-shape reductions: the CUDA twin of `evo_core::reduce` (crates/core/src/reduce.rs).
//
// The canonical tree pads n terms to a power of two P with +0.0 and adds adjacent pairs level by level:
// node(l+1, i) = node(l, 2i) + node(l, 2i+1). Any aligned subtree of 2^k leaves has the same value whoever
// computes it, so a block of any power-of-two size reduces a subtree of its own and the result of the whole
// reduction never depends on the launch configuration. Accumulation is in double.
#pragma once

// Sums one value per thread over the block with the adjacent-pair tree; blockDim.x must be a power of two and
// `scratch` must hold blockDim.x doubles of shared memory. Every thread of the block must call it. Returns
// the block's sum in every thread. Twin: the level-by-level tree of `evo_core::reduce`.
__device__ __forceinline__ double evo_block_pairwise_sum_f64(double value, double* scratch)
{
    const unsigned int t = threadIdx.x;
    scratch[t] = value;
    __syncthreads();
    for (unsigned int active = blockDim.x >> 1; active > 0; active >>= 1) {
        // Read both children before anyone overwrites a slot: slot t is written by thread t and read as a
        // child by thread t/2, so the writes wait for a barrier.
        double node = 0.0;
        if (t < active) {
            node = scratch[2 * t] + scratch[2 * t + 1];
        }
        __syncthreads();
        if (t < active) {
            scratch[t] = node;
        }
        __syncthreads();
    }
    const double sum = scratch[0];
    __syncthreads();
    return sum;
}
