// One pass of a least-significant-digit radix sort of (key, index) pairs over 8-bit digits.
//
// The keys are split into tiles of blockDim.x * items_per_thread consecutive pairs. A pass is three launches:
// 1. histogram: each tile counts its digits; counts[d * tiles + t] is the count of digit d in tile t;
// 2. an exclusive scan of `counts` (digit-major), which gives each (digit, tile) its first output position;
// 3. scatter: each tile writes its pairs to those positions, keeping their input order within a digit.
// Step 3 keeps input order, so every pass is stable, and passes over all digits from the lowest leave the pairs
// sorted by key with ties in input order. Starting from index order, that is the workspace's total order.
#pragma once

#include "common/sort/scan.cuh"

#define EVO_RADIX_BITS 8u
#define EVO_RADIX_BINS 256u

template <typename K>
__device__ __forceinline__ unsigned int evo_radix_digit(K key, unsigned int shift)
{
    return (unsigned int)(key >> shift) & (EVO_RADIX_BINS - 1u);
}

// Step 1 for tiles blockIdx.x, blockIdx.x + gridDim.x, ...; `bins` is 256 unsigned ints of shared memory;
// blockDim.x must be a multiple of 32.
template <typename K>
__device__ void evo_radix_histogram(const K* keys, unsigned int* counts, unsigned int* bins, unsigned int n,
                                    unsigned int shift, unsigned int tiles, unsigned int items_per_thread)
{
    const unsigned long long tile_size = (unsigned long long)blockDim.x * items_per_thread;
    for (unsigned int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        for (unsigned int d = threadIdx.x; d < EVO_RADIX_BINS; d += blockDim.x) {
            bins[d] = 0u;
        }
        __syncthreads();
        const unsigned long long start = (unsigned long long)tile * tile_size;
        for (unsigned int k = 0; k < items_per_thread; ++k) {
            const unsigned long long i = start + (unsigned long long)k * blockDim.x + threadIdx.x;
            // One atomic per digit and warp: the lanes of a digit add their count through their lowest lane,
            // which matters for the high digits of fitness keys, nearly constant across a tile.
            const unsigned int digit = i < n ? evo_radix_digit(keys[i], shift) : EVO_RADIX_BINS;
            const unsigned int peers = __match_any_sync(0xffffffffu, digit);
            if (i < n && (threadIdx.x & 31u) == __ffs(peers) - 1u) {
                atomicAdd(&bins[digit], __popc(peers));
            }
        }
        __syncthreads();
        for (unsigned int d = threadIdx.x; d < EVO_RADIX_BINS; d += blockDim.x) {
            counts[(unsigned long long)d * tiles + tile] = bins[d];
        }
        __syncthreads();
    }
}

// Step 3. `offsets` is the scanned `counts`. `shared` (8-byte aligned) holds, in this order: the tile's keys
// (blockDim.x · items_per_thread K) and indices (as many u32), then 3 · 256 + 256 · (blockDim.x / 32) u32.
//
// The tile is first sorted by digit into shared memory, then written out, so that each digit's run of the tile
// goes to consecutive global positions (coalesced writes). Local positions: the tile is read in rounds of
// blockDim.x pairs (round k, thread t reads pair k · blockDim.x + t), so thread order within a round is input
// order; a pair's position is the running start of its digit in the tile, plus the pairs of that digit in lower
// warps (`warp_counts`, scanned per digit), plus its lower lanes of the same digit in its own warp
// (`__match_any_sync`). `warp_counts[w][d]` is written and cleared only by warp w's leader of digit d, and
// scanned by the owner thread of digit d between two block barriers. The pair at local position j with digit d
// then goes to offsets[d · tiles + tile] + j − (the tile's first local position of d).
template <typename K>
__device__ void evo_radix_scatter(const K* keys_in, const unsigned int* indices_in, const unsigned int* offsets,
                                  K* keys_out, unsigned int* indices_out, unsigned int* shared, unsigned int n,
                                  unsigned int shift, unsigned int tiles, unsigned int items_per_thread)
{
    const unsigned int tile_size = blockDim.x * items_per_thread;
    K* tile_keys = reinterpret_cast<K*>(shared);
    unsigned int* tile_indices = reinterpret_cast<unsigned int*>(tile_keys + tile_size);
    unsigned int* global_start = tile_indices + tile_size;
    unsigned int* local_start = global_start + EVO_RADIX_BINS;
    unsigned int* digit_next = local_start + EVO_RADIX_BINS;
    unsigned int* warp_counts = digit_next + EVO_RADIX_BINS;
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
    const unsigned int warps = blockDim.x >> 5;
    const unsigned int lanes_below = (1u << lane) - 1u;
    const unsigned long long last = (unsigned long long)EVO_RADIX_BINS * tiles - 1ull;
    for (unsigned int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const unsigned long long start = (unsigned long long)tile * tile_size;
        const unsigned int count = (unsigned int)min((unsigned long long)tile_size, n - start);
        // The tile's count of digit d is the step of the scan at (d, tile); the last step ends at n.
        for (unsigned int d = threadIdx.x; d < EVO_RADIX_BINS; d += blockDim.x) {
            const unsigned long long e = (unsigned long long)d * tiles + tile;
            const unsigned int first = offsets[e];
            global_start[d] = first;
            local_start[d] = (e < last ? offsets[e + 1] : n) - first;
        }
        for (unsigned int s = threadIdx.x; s < warps * EVO_RADIX_BINS; s += blockDim.x) {
            warp_counts[s] = 0u;
        }
        __syncthreads();
        // Exclusive scan of the tile's 256 digit counts by warp 0, eight digits per lane.
        if (warp == 0) {
            unsigned int own = 0u;
            for (unsigned int d = lane * 8u; d < lane * 8u + 8u; ++d) {
                own += local_start[d];
            }
            unsigned int running = evo_warp_inclusive_scan_u32(own) - own;
            for (unsigned int d = lane * 8u; d < lane * 8u + 8u; ++d) {
                const unsigned int digit_count = local_start[d];
                local_start[d] = running;
                digit_next[d] = running;
                running += digit_count;
            }
        }
        __syncthreads();
        for (unsigned int k = 0; k < items_per_thread; ++k) {
            const unsigned int j = k * blockDim.x + threadIdx.x;
            const bool valid = j < count;
            const K key = valid ? keys_in[start + j] : (K)0;
            const unsigned int index = valid ? indices_in[start + j] : 0u;
            // Lanes past the end form a group of their own (digit 256) and write nothing.
            const unsigned int digit = valid ? evo_radix_digit(key, shift) : EVO_RADIX_BINS;
            const unsigned int peers = __match_any_sync(0xffffffffu, digit);
            const unsigned int leader = __ffs(peers) - 1u;
            const unsigned int rank_in_warp = __popc(peers & lanes_below);
            if (valid && lane == leader) {
                warp_counts[warp * EVO_RADIX_BINS + digit] = __popc(peers);
            }
            __syncthreads();
            for (unsigned int d = threadIdx.x; d < EVO_RADIX_BINS; d += blockDim.x) {
                unsigned int running = digit_next[d];
                for (unsigned int w = 0; w < warps; ++w) {
                    // Only a warp that holds digit d reads its slot back and clears it, so empty slots stay 0.
                    const unsigned int slot = warp_counts[w * EVO_RADIX_BINS + d];
                    if (slot != 0u) {
                        warp_counts[w * EVO_RADIX_BINS + d] = running;
                        running += slot;
                    }
                }
                digit_next[d] = running;
            }
            __syncthreads();
            unsigned int first = 0u;
            if (valid && lane == leader) {
                first = warp_counts[warp * EVO_RADIX_BINS + digit];
                warp_counts[warp * EVO_RADIX_BINS + digit] = 0u;
            }
            first = __shfl_sync(0xffffffffu, first, leader);
            if (valid) {
                tile_keys[first + rank_in_warp] = key;
                tile_indices[first + rank_in_warp] = index;
            }
            // The next round's leaders of this warp write the slots this round's leaders cleared.
            __syncwarp();
        }
        __syncthreads();
        for (unsigned int j = threadIdx.x; j < count; j += blockDim.x) {
            const K key = tile_keys[j];
            const unsigned int d = evo_radix_digit(key, shift);
            const unsigned int position = global_start[d] + (j - local_start[d]);
            keys_out[position] = key;
            indices_out[position] = tile_indices[j];
        }
        __syncthreads();
    }
}
