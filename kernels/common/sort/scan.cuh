// Block-wide exclusive prefix sums of unsigned 32-bit counts (the scans of the radix sort).
// Integer addition is exact and associative, so the result does not depend on the block size.
#pragma once

// Inclusive prefix sum over the 32 lanes of a warp; every lane must call it.
__device__ __forceinline__ unsigned int evo_warp_inclusive_scan_u32(unsigned int value)
{
    const unsigned int lane = threadIdx.x & 31u;
    for (unsigned int distance = 1; distance < 32u; distance <<= 1) {
        const unsigned int other = __shfl_up_sync(0xffffffffu, value, distance);
        if (lane >= distance) {
            value += other;
        }
    }
    return value;
}

// Exclusive prefix sum of one value per thread, in thread order; writes the block's total to `*total` in every
// thread. `warp_totals` is 32 unsigned ints of shared memory; blockDim.x must be a multiple of 32 (at most
// 1024); every thread of the block must call it.
__device__ __forceinline__ unsigned int evo_block_exclusive_scan_u32(unsigned int value, unsigned int* warp_totals,
                                                                     unsigned int* total)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    const unsigned int inclusive = evo_warp_inclusive_scan_u32(value);
    if (lane == 31u) {
        warp_totals[warp] = inclusive;
    }
    __syncthreads();
    if (warp == 0) {
        const unsigned int own = lane < warps ? warp_totals[lane] : 0u;
        const unsigned int scanned = evo_warp_inclusive_scan_u32(own);
        if (lane < warps) {
            warp_totals[lane] = scanned;
        }
    }
    __syncthreads();
    const unsigned int before = warp == 0 ? 0u : warp_totals[warp - 1];
    *total = warp_totals[warps - 1];
    __syncthreads();
    return before + inclusive - value;
}
