// Population sorting and selection (kernel module `sort`), all under the total order of `common/sort/key.cuh`:
// by key (value by total_cmp, every NaN after +inf), then by lower index. Twins: `evo_sort::cpu`
// (crates/sort/src/cpu.rs); typed launchers: `evo_sort::cuda::launch` (crates/sort/src/cuda/launch.rs).
//
// - sort_segments_bitonic_*: one block per segment sorts up to 4096 (fitness, index) pairs in shared memory
//   with the bitonic network (the GA paper's first sort kernel); one segment is one population.
// - sort_exchange_rows_u32: one block per individual, threads over its words, copies the rows into sorted order
//   (the GA paper's second sort kernel).
// - sort_radix_* and sort_scan_*: the passes of the LSD radix argsort of large arrays.
// - sort_ranks_from_order_u32, sort_gather_*: the inverse permutation and the sorted values.
// - sort_select_*: argmin / argmax, a block tree over (key, index) pairs, pass after pass.
// - sort_topk_*: the k first pairs, by sorting tiles and keeping the k first of each, round after round.
#include "common/sort/bitonic.cuh"
#include "common/sort/key.cuh"
#include "common/sort/radix.cuh"
#include "common/sort/scan.cuh"

// Scalar arguments; each is mirrored by a `#[repr(C)]` struct of the same name in crates/sort/src/cuda/launch.rs.
struct SortSegmentsParams {
    unsigned int segments;     // number of segments
    unsigned int segment_len;  // pairs per segment
    unsigned int padded_len;   // segment_len rounded up to a power of two
};
static_assert(sizeof(SortSegmentsParams) == 12, "SortSegmentsParams must match its Rust mirror");

struct SortExchangeParams {
    unsigned int rows;           // rows of the source and of the destination
    unsigned int words_per_row;  // u32 words of one row
    unsigned int segment_len;    // rows per segment; `order` holds indices local to a segment
};
static_assert(sizeof(SortExchangeParams) == 12, "SortExchangeParams must match its Rust mirror");

struct SortLengthParams {
    unsigned int n;  // number of elements
};
static_assert(sizeof(SortLengthParams) == 4, "SortLengthParams must match its Rust mirror");

struct SortRadixParams {
    unsigned int n;                 // number of pairs
    unsigned int shift;             // the digit of this pass is (key >> shift) & 255
    unsigned int tiles;             // ceil(n / (blockDim.x * items_per_thread))
    unsigned int items_per_thread;  // pairs per thread and tile
};
static_assert(sizeof(SortRadixParams) == 16, "SortRadixParams must match its Rust mirror");

struct SortScanParams {
    unsigned int n;                 // number of counts
    unsigned int items_per_thread;  // counts per thread; a block scans blockDim.x * items_per_thread of them
};
static_assert(sizeof(SortScanParams) == 8, "SortScanParams must match its Rust mirror");

struct SortSelectParams {
    unsigned int n;                 // number of values (first pass) or pairs (later passes)
    unsigned int largest;           // 1: argmax (keys complemented in the first pass); 0: argmin
    unsigned int items_per_thread;  // inputs per thread; a block reduces blockDim.x * items_per_thread of them
};
static_assert(sizeof(SortSelectParams) == 12, "SortSelectParams must match its Rust mirror");

struct SortTopkParams {
    unsigned int n;     // number of values (first round) or pairs (later rounds)
    unsigned int k;     // pairs kept per tile
    unsigned int tile;  // pairs per tile, a power of two at least 2k
};
static_assert(sizeof(SortTopkParams) == 12, "SortTopkParams must match its Rust mirror");

// Dynamic shared memory, 8-byte aligned for u64 keys.
extern __shared__ unsigned long long evo_sort_shared[];

#define EVO_SORT_NO_INDEX 0xffffffffu

// ---------------------------------------------------------------------------------------------------------
// Segmented bitonic sort. Shared memory: padded_len keys, then padded_len u16 indices.

template <typename T, typename K>
__device__ void sort_segments_bitonic(const T* fitness, unsigned int* order, T* sorted, const SortSegmentsParams& p)
{
    K* keys = reinterpret_cast<K*>(evo_sort_shared);
    unsigned short* indices = reinterpret_cast<unsigned short*>(keys + p.padded_len);
    for (unsigned int segment = blockIdx.x; segment < p.segments; segment += gridDim.x) {
        const unsigned long long base = (unsigned long long)segment * p.segment_len;
        // Padding slots get the largest key and indices >= segment_len, so they follow every real pair, NaN too.
        for (unsigned int i = threadIdx.x; i < p.padded_len; i += blockDim.x) {
            keys[i] = i < p.segment_len ? evo_sort_key(fitness[base + i]) : EvoSortKeyMax<K>::value;
            indices[i] = (unsigned short)i;
        }
        evo_block_bitonic_sort(keys, indices, p.padded_len);
        for (unsigned int rank = threadIdx.x; rank < p.segment_len; rank += blockDim.x) {
            const unsigned int from = indices[rank];
            order[base + rank] = from;
            sorted[base + rank] = fitness[base + from];
        }
        __syncthreads();
    }
}

extern "C" __global__ void sort_segments_bitonic_f32(const float* fitness, unsigned int* order, float* sorted, SortSegmentsParams p)
{
    sort_segments_bitonic<float, unsigned int>(fitness, order, sorted, p);
}

extern "C" __global__ void sort_segments_bitonic_f64(const double* fitness, unsigned int* order, double* sorted, SortSegmentsParams p)
{
    sort_segments_bitonic<double, unsigned long long>(fitness, order, sorted, p);
}

// ---------------------------------------------------------------------------------------------------------
// Exchange: dst row r = src row (segment start + order[r]). Twin: `cpu::exchange_rows`.

extern "C" __global__ void sort_exchange_rows_u32(const unsigned int* src, const unsigned int* order, unsigned int* dst, SortExchangeParams p)
{
    for (unsigned int row = blockIdx.x; row < p.rows; row += gridDim.x) {
        const unsigned int from = order[row];
        // A permutation never fails this; the guard keeps a corrupted order inside the buffers.
        if (from >= p.segment_len) {
            continue;
        }
        const unsigned long long source_row = (unsigned long long)(row / p.segment_len) * p.segment_len + from;
        const unsigned int* source = src + source_row * p.words_per_row;
        unsigned int* target = dst + (unsigned long long)row * p.words_per_row;
        for (unsigned int word = threadIdx.x; word < p.words_per_row; word += blockDim.x) {
            target[word] = source[word];
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Radix argsort passes.

template <typename T, typename K>
__device__ void sort_radix_prepare(const T* fitness, K* keys, unsigned int* indices, const SortLengthParams& p)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += gridDim.x * blockDim.x) {
        keys[i] = evo_sort_key(fitness[i]);
        indices[i] = i;
    }
}

extern "C" __global__ void sort_radix_prepare_f32(const float* fitness, unsigned int* keys, unsigned int* indices, SortLengthParams p)
{
    sort_radix_prepare<float, unsigned int>(fitness, keys, indices, p);
}

extern "C" __global__ void sort_radix_prepare_f64(const double* fitness, unsigned long long* keys, unsigned int* indices, SortLengthParams p)
{
    sort_radix_prepare<double, unsigned long long>(fitness, keys, indices, p);
}

extern "C" __global__ void sort_radix_histogram_u32(const unsigned int* keys, unsigned int* counts, SortRadixParams p)
{
    __shared__ unsigned int bins[EVO_RADIX_BINS];
    evo_radix_histogram(keys, counts, bins, p.n, p.shift, p.tiles, p.items_per_thread);
}

extern "C" __global__ void sort_radix_histogram_u64(const unsigned long long* keys, unsigned int* counts, SortRadixParams p)
{
    __shared__ unsigned int bins[EVO_RADIX_BINS];
    evo_radix_histogram(keys, counts, bins, p.n, p.shift, p.tiles, p.items_per_thread);
}

extern "C" __global__ void sort_radix_scatter_u32(const unsigned int* keys_in, const unsigned int* indices_in, const unsigned int* offsets, unsigned int* keys_out, unsigned int* indices_out, SortRadixParams p)
{
    evo_radix_scatter(keys_in, indices_in, offsets, keys_out, indices_out,
                      reinterpret_cast<unsigned int*>(evo_sort_shared), p.n, p.shift, p.tiles, p.items_per_thread);
}

extern "C" __global__ void sort_radix_scatter_u64(const unsigned long long* keys_in, const unsigned int* indices_in, const unsigned int* offsets, unsigned long long* keys_out, unsigned int* indices_out, SortRadixParams p)
{
    evo_radix_scatter(keys_in, indices_in, offsets, keys_out, indices_out,
                      reinterpret_cast<unsigned int*>(evo_sort_shared), p.n, p.shift, p.tiles, p.items_per_thread);
}

// Exclusive scan of one chunk of blockDim.x * items_per_thread counts per block; block_sums[b] = chunk b's
// total. Thread t scans the items_per_thread consecutive counts starting at t * items_per_thread.
extern "C" __global__ void sort_scan_exclusive_u32(const unsigned int* counts, unsigned int* scanned, unsigned int* block_sums, SortScanParams p)
{
    __shared__ unsigned int warp_totals[32];
    const unsigned long long chunk = (unsigned long long)blockDim.x * p.items_per_thread;
    const unsigned long long start = blockIdx.x * chunk + (unsigned long long)threadIdx.x * p.items_per_thread;
    unsigned int own = 0u;
    for (unsigned int k = 0; k < p.items_per_thread; ++k) {
        if (start + k < p.n) {
            own += counts[start + k];
        }
    }
    unsigned int total = 0u;
    unsigned int running = evo_block_exclusive_scan_u32(own, warp_totals, &total);
    for (unsigned int k = 0; k < p.items_per_thread; ++k) {
        if (start + k < p.n) {
            const unsigned int count = counts[start + k];
            scanned[start + k] = running;
            running += count;
        }
    }
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = total;
    }
}

// Adds the scanned total of the chunks before it to every count of a chunk.
extern "C" __global__ void sort_scan_add_u32(unsigned int* scanned, const unsigned int* chunk_offsets, SortScanParams p)
{
    const unsigned long long chunk = (unsigned long long)blockDim.x * p.items_per_thread;
    const unsigned int offset = chunk_offsets[blockIdx.x];
    for (unsigned int k = 0; k < p.items_per_thread; ++k) {
        const unsigned long long i = blockIdx.x * chunk + (unsigned long long)k * blockDim.x + threadIdx.x;
        if (i < p.n) {
            scanned[i] += offset;
        }
    }
}

// ranks[order[r]] = r: the inverse permutation. Twin: `cpu::ranks_from_order`.
extern "C" __global__ void sort_ranks_from_order_u32(const unsigned int* order, unsigned int* ranks, SortLengthParams p)
{
    for (unsigned int r = blockIdx.x * blockDim.x + threadIdx.x; r < p.n; r += gridDim.x * blockDim.x) {
        const unsigned int from = order[r];
        // A permutation never fails this; the guard keeps a corrupted order inside the buffer.
        if (from < p.n) {
            ranks[from] = r;
        }
    }
}

// out[r] = values[order[r]]. Twin: `cpu::gather`.
template <typename T>
__device__ void sort_gather(const T* values, const unsigned int* order, T* out, const SortLengthParams& p)
{
    for (unsigned int r = blockIdx.x * blockDim.x + threadIdx.x; r < p.n; r += gridDim.x * blockDim.x) {
        const unsigned int from = order[r];
        if (from < p.n) {
            out[r] = values[from];
        }
    }
}

extern "C" __global__ void sort_gather_f32(const float* values, const unsigned int* order, float* out, SortLengthParams p)
{
    sort_gather(values, order, out, p);
}

extern "C" __global__ void sort_gather_f64(const double* values, const unsigned int* order, double* out, SortLengthParams p)
{
    sort_gather(values, order, out, p);
}

// ---------------------------------------------------------------------------------------------------------
// Selection (argmin / argmax). Shared memory: blockDim.x keys, then blockDim.x u32 indices.
// The first (key, index) pair of a set under the strict total order is unique, so the tree's shape cannot
// change the result; the tree is still fixed: adjacent halves, level by level.

template <typename K>
__device__ void sort_select_block(K key, unsigned int index, K* key_out, unsigned int* index_out)
{
    K* keys = reinterpret_cast<K*>(evo_sort_shared);
    unsigned int* indices = reinterpret_cast<unsigned int*>(keys + blockDim.x);
    keys[threadIdx.x] = key;
    indices[threadIdx.x] = index;
    __syncthreads();
    for (unsigned int active = blockDim.x >> 1; active > 0; active >>= 1) {
        if (threadIdx.x < active) {
            const K other_key = keys[threadIdx.x + active];
            const unsigned int other_index = indices[threadIdx.x + active];
            if (evo_sort_precedes(other_key, other_index, keys[threadIdx.x], indices[threadIdx.x])) {
                keys[threadIdx.x] = other_key;
                indices[threadIdx.x] = other_index;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *key_out = keys[0];
        *index_out = indices[0];
    }
}

// First pass over fitness values: argmax complements the keys, so the first pair is the largest key with the
// lowest index. Positions past the end are (largest key, no index), after every real pair.
template <typename T, typename K>
__device__ void sort_select_first(const T* fitness, K* keys_out, unsigned int* indices_out, const SortSelectParams& p)
{
    const unsigned long long start = (unsigned long long)blockIdx.x * blockDim.x * p.items_per_thread;
    K best_key = EvoSortKeyMax<K>::value;
    unsigned int best_index = EVO_SORT_NO_INDEX;
    for (unsigned int k = 0; k < p.items_per_thread; ++k) {
        const unsigned long long i = start + (unsigned long long)k * blockDim.x + threadIdx.x;
        if (i < p.n) {
            const K key = p.largest ? (K)~evo_sort_key(fitness[i]) : evo_sort_key(fitness[i]);
            if (evo_sort_precedes(key, (unsigned int)i, best_key, best_index)) {
                best_key = key;
                best_index = (unsigned int)i;
            }
        }
    }
    sort_select_block(best_key, best_index, &keys_out[blockIdx.x], &indices_out[blockIdx.x]);
}

template <typename K>
__device__ void sort_select_pairs(const K* keys_in, const unsigned int* indices_in, K* keys_out, unsigned int* indices_out, const SortSelectParams& p)
{
    const unsigned long long start = (unsigned long long)blockIdx.x * blockDim.x * p.items_per_thread;
    K best_key = EvoSortKeyMax<K>::value;
    unsigned int best_index = EVO_SORT_NO_INDEX;
    for (unsigned int k = 0; k < p.items_per_thread; ++k) {
        const unsigned long long i = start + (unsigned long long)k * blockDim.x + threadIdx.x;
        if (i < p.n && evo_sort_precedes(keys_in[i], indices_in[i], best_key, best_index)) {
            best_key = keys_in[i];
            best_index = indices_in[i];
        }
    }
    sort_select_block(best_key, best_index, &keys_out[blockIdx.x], &indices_out[blockIdx.x]);
}

extern "C" __global__ void sort_select_first_f32(const float* fitness, unsigned int* keys_out, unsigned int* indices_out, SortSelectParams p)
{
    sort_select_first<float, unsigned int>(fitness, keys_out, indices_out, p);
}

extern "C" __global__ void sort_select_first_f64(const double* fitness, unsigned long long* keys_out, unsigned int* indices_out, SortSelectParams p)
{
    sort_select_first<double, unsigned long long>(fitness, keys_out, indices_out, p);
}

extern "C" __global__ void sort_select_pairs_u32(const unsigned int* keys_in, const unsigned int* indices_in, unsigned int* keys_out, unsigned int* indices_out, SortSelectParams p)
{
    sort_select_pairs(keys_in, indices_in, keys_out, indices_out, p);
}

extern "C" __global__ void sort_select_pairs_u64(const unsigned long long* keys_in, const unsigned int* indices_in, unsigned long long* keys_out, unsigned int* indices_out, SortSelectParams p)
{
    sort_select_pairs(keys_in, indices_in, keys_out, indices_out, p);
}

// ---------------------------------------------------------------------------------------------------------
// Top-k: each block sorts a tile of `tile` pairs (shared memory: tile keys, then tile u32 indices) and writes
// its k first pairs to out[tile_number * k ..]. The k first pairs of the whole set are among the k first of
// their tiles, so the rounds keep them while the candidates shrink by tile / k each round. Padding pairs are
// (largest key, no index); they may repeat, which the network tolerates (equal pairs are interchangeable).

template <typename K>
__device__ void sort_topk_finish(K* keys, unsigned int* indices, unsigned int tile_number, K* keys_out, unsigned int* indices_out, const SortTopkParams& p)
{
    evo_block_bitonic_sort(keys, indices, p.tile);
    const unsigned long long base = (unsigned long long)tile_number * p.k;
    for (unsigned int r = threadIdx.x; r < p.k; r += blockDim.x) {
        keys_out[base + r] = keys[r];
        indices_out[base + r] = indices[r];
    }
    __syncthreads();
}

template <typename T, typename K>
__device__ void sort_topk_tiles(const T* fitness, K* keys_out, unsigned int* indices_out, const SortTopkParams& p)
{
    K* keys = reinterpret_cast<K*>(evo_sort_shared);
    unsigned int* indices = reinterpret_cast<unsigned int*>(keys + p.tile);
    const unsigned int tiles = (unsigned int)(((unsigned long long)p.n + p.tile - 1) / p.tile);
    for (unsigned int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const unsigned long long start = (unsigned long long)tile * p.tile;
        for (unsigned int j = threadIdx.x; j < p.tile; j += blockDim.x) {
            const unsigned long long i = start + j;
            keys[j] = i < p.n ? evo_sort_key(fitness[i]) : EvoSortKeyMax<K>::value;
            indices[j] = i < p.n ? (unsigned int)i : EVO_SORT_NO_INDEX;
        }
        sort_topk_finish(keys, indices, tile, keys_out, indices_out, p);
    }
}

template <typename K>
__device__ void sort_topk_pairs(const K* keys_in, const unsigned int* indices_in, K* keys_out, unsigned int* indices_out, const SortTopkParams& p)
{
    K* keys = reinterpret_cast<K*>(evo_sort_shared);
    unsigned int* indices = reinterpret_cast<unsigned int*>(keys + p.tile);
    const unsigned int tiles = (unsigned int)(((unsigned long long)p.n + p.tile - 1) / p.tile);
    for (unsigned int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const unsigned long long start = (unsigned long long)tile * p.tile;
        for (unsigned int j = threadIdx.x; j < p.tile; j += blockDim.x) {
            const unsigned long long i = start + j;
            keys[j] = i < p.n ? keys_in[i] : EvoSortKeyMax<K>::value;
            indices[j] = i < p.n ? indices_in[i] : EVO_SORT_NO_INDEX;
        }
        sort_topk_finish(keys, indices, tile, keys_out, indices_out, p);
    }
}

extern "C" __global__ void sort_topk_tiles_f32(const float* fitness, unsigned int* keys_out, unsigned int* indices_out, SortTopkParams p)
{
    sort_topk_tiles<float, unsigned int>(fitness, keys_out, indices_out, p);
}

extern "C" __global__ void sort_topk_tiles_f64(const double* fitness, unsigned long long* keys_out, unsigned int* indices_out, SortTopkParams p)
{
    sort_topk_tiles<double, unsigned long long>(fitness, keys_out, indices_out, p);
}

extern "C" __global__ void sort_topk_pairs_u32(const unsigned int* keys_in, const unsigned int* indices_in, unsigned int* keys_out, unsigned int* indices_out, SortTopkParams p)
{
    sort_topk_pairs(keys_in, indices_in, keys_out, indices_out, p);
}

extern "C" __global__ void sort_topk_pairs_u64(const unsigned long long* keys_in, const unsigned int* indices_in, unsigned long long* keys_out, unsigned int* indices_out, SortTopkParams p)
{
    sort_topk_pairs(keys_in, indices_in, keys_out, indices_out, p);
}
