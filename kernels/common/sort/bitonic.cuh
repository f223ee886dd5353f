// Batcher's bitonic sorting network over one block's shared memory: the GA paper's first sort kernel (§3.2.2).
// Twin: `evo_sort::cpu` sorts with the same total order; the sorted order of distinct (key, index) pairs is
// unique, so any correct sort gives the same permutation and the network's shape need not be mirrored.
#pragma once

#include "common/sort/key.cuh"

// Sorts `count` pairs (keys[i], indices[i]) of shared memory ascending by (key, index). `count` must be a power
// of two (pad with the largest key and indices above every real one); blockDim.x must be a multiple of 32; every
// thread of the block must call it. The pairs must be distinct, which holds when indices are.
//
// A stage of stride s compares `low` and `low + s` for count/2 comparisons; comparison c is done by thread
// c mod blockDim.x. For s <= 32 the two elements lie in the 64-element chunk c / 32, and every comparison of
// that chunk belongs to the same warp in every stage, so consecutive stages of stride at most 32 only need a
// warp barrier; a stage that moves data across chunks (s >= 64) is fenced by a block barrier on both sides.
template <typename K, typename I>
__device__ void evo_block_bitonic_sort(K* keys, I* indices, unsigned int count)
{
    __syncthreads();
    const unsigned int half = count >> 1;
    for (unsigned int size = 2; size <= count; size <<= 1) {
        for (unsigned int stride = size >> 1; stride > 0; stride >>= 1) {
            for (unsigned int c = threadIdx.x; c < half; c += blockDim.x) {
                // c = q * stride + r with r < stride; low = 2 q stride + r.
                const unsigned int low = 2u * c - (c & (stride - 1u));
                const unsigned int high = low + stride;
                const bool ascending = (low & size) == 0u;
                const K key_low = keys[low];
                const K key_high = keys[high];
                const I index_low = indices[low];
                const I index_high = indices[high];
                const bool swap = ascending ? evo_sort_precedes(key_high, index_high, key_low, index_low)
                                            : evo_sort_precedes(key_low, index_low, key_high, index_high);
                if (swap) {
                    keys[low] = key_high;
                    keys[high] = key_low;
                    indices[low] = index_high;
                    indices[high] = index_low;
                }
            }
            // The next stage's stride: half of this one, or the first stride of the next size.
            const unsigned int next = stride > 1u ? stride >> 1 : size;
            if (stride >= 64u || next >= 64u) {
                __syncthreads();
            } else {
                __syncwarp();
            }
        }
    }
    __syncthreads();
}
