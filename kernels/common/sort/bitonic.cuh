// Batcher's bitonic sorting network over one block's shared memory: the GA paper's first sort kernel (§3.2.2).
// Twin: `evo_sort::cpu` sorts with the same total order; the sorted order of distinct (key, index) pairs is
// unique, so any correct sort gives the same permutation and the network's shape need not be mirrored.
//
// The network sorts `count` pairs (a power of two, at least 64) ascending by (key, index). Stage (size,
// stride) compare-exchanges elements e and e ^ stride, keeping the first pair at the lower position when
// (e & size) == 0 (an ascending run) and at the upper one otherwise.
//
// Stages of stride at most 32 stay inside aligned chunks of 64 elements, so they run in registers: a warp
// holds one chunk, two elements per lane (e = chunk·64 + 2·lane + slot); stride 1 pairs the two slots of a
// lane, stride s ≥ 2 pairs lane l with lane l ^ (s / 2) through `__shfl_xor_sync`. Only strides of 64 and
// more go through shared memory, between block barriers. For 256 pairs that leaves 3 shared-memory stages
// of 36; for 4096, 21 of 78.
#pragma once

#include "common/sort/key.cuh"

#define EVO_BITONIC_CHUNK 64u

// One register stage of stride ≥ 2: this lane holds element `e`; its partner e ^ stride is in lane
// lane ^ (stride / 2). Both lanes keep the pair their position should hold.
template <typename K, typename I>
__device__ __forceinline__ void evo_bitonic_lane_stage(K& key, I& index, unsigned int e, unsigned int size,
                                                       unsigned int stride)
{
    const K other_key = __shfl_xor_sync(0xffffffffu, key, stride >> 1);
    const I other_index = (I)__shfl_xor_sync(0xffffffffu, (unsigned int)index, stride >> 1);
    const bool ascending = (e & size) == 0u;
    const bool lower = (e & stride) == 0u;
    // The lower position of an ascending pair (or the upper of a descending one) keeps the first pair.
    const bool keep_first = ascending == lower;
    const bool other_is_first = evo_sort_precedes(other_key, other_index, key, index);
    if (keep_first == other_is_first) {
        key = other_key;
        index = other_index;
    }
}

// One register stage of stride 1: the two slots of this lane, elements e0 (even) and e0 + 1.
template <typename K, typename I>
__device__ __forceinline__ void evo_bitonic_pair_stage(K& key0, I& index0, K& key1, I& index1, unsigned int e0,
                                                       unsigned int size)
{
    const bool ascending = (e0 & size) == 0u;
    const bool swap = ascending ? evo_sort_precedes(key1, index1, key0, index0)
                                : evo_sort_precedes(key0, index0, key1, index1);
    if (swap) {
        const K key = key0;
        const I index = index0;
        key0 = key1;
        index0 = index1;
        key1 = key;
        index1 = index;
    }
}

// The stages of `size` with strides min(size / 2, 32) down to 1, on the two elements of this lane.
template <typename K, typename I>
__device__ __forceinline__ void evo_bitonic_register_stages(K& key0, I& index0, K& key1, I& index1, unsigned int e0,
                                                            unsigned int size)
{
    for (unsigned int stride = size < EVO_BITONIC_CHUNK ? size >> 1 : EVO_BITONIC_CHUNK >> 1; stride > 1u;
         stride >>= 1) {
        evo_bitonic_lane_stage(key0, index0, e0, size, stride);
        evo_bitonic_lane_stage(key1, index1, e0 + 1u, size, stride);
    }
    evo_bitonic_pair_stage(key0, index0, key1, index1, e0, size);
}

// Runs, chunk by chunk, every stage of stride ≤ 32 of the sizes in [first_size, last_size] in registers.
// Warp w takes chunks w, w + warps, ...; each lane reads and writes back its own two elements.
template <typename K, typename I>
__device__ void evo_bitonic_chunk_stages(K* keys, I* indices, unsigned int count, unsigned int first_size,
                                         unsigned int last_size)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warps = blockDim.x >> 5;
    for (unsigned int chunk = threadIdx.x >> 5; chunk < count / EVO_BITONIC_CHUNK; chunk += warps) {
        const unsigned int e0 = chunk * EVO_BITONIC_CHUNK + 2u * lane;
        K key0 = keys[e0];
        K key1 = keys[e0 + 1u];
        I index0 = indices[e0];
        I index1 = indices[e0 + 1u];
        for (unsigned int size = first_size; size <= last_size; size <<= 1) {
            evo_bitonic_register_stages(key0, index0, key1, index1, e0, size);
        }
        keys[e0] = key0;
        keys[e0 + 1u] = key1;
        indices[e0] = index0;
        indices[e0 + 1u] = index1;
    }
}

// Sorts `count` pairs (keys[i], indices[i]) of shared memory ascending by (key, index). `count` must be a power
// of two of at least 64 (pad with the largest key and indices above every real one); blockDim.x must be a
// multiple of 32; every thread of the block must call it. Pairs should be distinct (equal pairs are
// interchangeable, so repeated padding pairs are harmless).
template <typename K, typename I>
__device__ void evo_block_bitonic_sort(K* keys, I* indices, unsigned int count)
{
    __syncthreads();
    evo_bitonic_chunk_stages(keys, indices, count, 2u, EVO_BITONIC_CHUNK);
    const unsigned int half = count >> 1;
    for (unsigned int size = 2u * EVO_BITONIC_CHUNK; size <= count; size <<= 1) {
        for (unsigned int stride = size >> 1; stride >= EVO_BITONIC_CHUNK; stride >>= 1) {
            __syncthreads();
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
        }
        __syncthreads();
        evo_bitonic_chunk_stages(keys, indices, count, size, size);
    }
    __syncthreads();
}
