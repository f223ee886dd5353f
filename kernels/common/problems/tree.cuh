// Block-level fixed-shape trees built from warp shuffles: the same adjacent-pair tree as
// common/reduce.cuh (`evo_core::reduce`), with fewer barriers. Lane l at level `off` adds lane l + off to
// itself when l is a multiple of 2*off, so the left subtree is always the left operand. Twins:
// `evo_core::reduce::pairwise_sum_by` (sum) and `evo_benchmarks::tree::pairwise_product_by` (product).
#pragma once

#define EVO_FULL_MASK 0xffffffffu

// The tree over the first `width` lanes (a power of two, 1..32) of a warp; the result is in lane 0.
template <bool PRODUCT>
__device__ __forceinline__ double evo_warp_tree(double v, unsigned int width)
{
    const unsigned int lane = threadIdx.x & 31u;
    for (unsigned int off = 1; off < width; off <<= 1) {
        const double other = __shfl_down_sync(EVO_FULL_MASK, v, off);
        if ((lane & (2u * off - 1u)) == 0u) {
            v = PRODUCT ? v * other : v + other;
        }
    }
    return v;
}

// The tree over one value per thread of the block (blockDim.x a power of two, at least 32), in thread order;
// `scratch` holds 32 doubles of shared memory. The result is returned in thread 0. Every thread must call it.
template <bool PRODUCT>
__device__ __forceinline__ double evo_block_tree(double v, double* scratch)
{
    const unsigned int warps = blockDim.x >> 5;
    v = evo_warp_tree<PRODUCT>(v, 32u);
    if ((threadIdx.x & 31u) == 0u) {
        scratch[threadIdx.x >> 5] = v;
    }
    __syncthreads();
    double r = PRODUCT ? 1.0 : 0.0;
    if (threadIdx.x < 32u) {
        r = threadIdx.x < warps ? scratch[threadIdx.x] : r;
        r = evo_warp_tree<PRODUCT>(r, warps);
    }
    __syncthreads();
    return r;
}

// The trees of two values per thread at once, `a` summed and `b` summed or multiplied (PRODUCT_B), with the
// shuffles, shared slots and barriers of one `evo_block_tree`: each the same arithmetic as its own
// `evo_block_tree`, so the same bits. `scratch` holds 64 doubles of shared memory; the results are in thread 0.
template <bool PRODUCT_B>
__device__ __forceinline__ void evo_block_tree_pair(double* a, double* b, double* scratch)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warps = blockDim.x >> 5;
    double va = *a;
    double vb = *b;
    for (unsigned int off = 1; off < 32u; off <<= 1) {
        const double oa = __shfl_down_sync(EVO_FULL_MASK, va, off);
        const double ob = __shfl_down_sync(EVO_FULL_MASK, vb, off);
        if ((lane & (2u * off - 1u)) == 0u) {
            va = va + oa;
            vb = PRODUCT_B ? vb * ob : vb + ob;
        }
    }
    if (lane == 0u) {
        scratch[threadIdx.x >> 5] = va;
        scratch[32u + (threadIdx.x >> 5)] = vb;
    }
    __syncthreads();
    double ra = 0.0;
    double rb = PRODUCT_B ? 1.0 : 0.0;
    if (threadIdx.x < 32u) {
        ra = threadIdx.x < warps ? scratch[threadIdx.x] : ra;
        rb = threadIdx.x < warps ? scratch[32u + threadIdx.x] : rb;
        for (unsigned int off = 1; off < warps; off <<= 1) {
            const double oa = __shfl_down_sync(EVO_FULL_MASK, ra, off);
            const double ob = __shfl_down_sync(EVO_FULL_MASK, rb, off);
            if ((lane & (2u * off - 1u)) == 0u) {
                ra = ra + oa;
                rb = PRODUCT_B ? rb * ob : rb + ob;
            }
        }
    }
    __syncthreads();
    *a = ra;
    *b = rb;
}

// Where leaf i of a row of `count` tile partials (or prefix summaries) is stored, relative to the row: the
// writers (the tiles kernels, the prefix-squares kernel, cec_groups) and the finish kernels share this layout.
// The complete chunks of 256 leaves are stored transposed by 8, leaf 256 c + 8 l + j at 256 c + 32 j + l, so
// that when thread l of a warp of a finish kernel reads its 8 adjacent leaves 8 l .. 8 l + 7 (one per load
// instruction j), the 32 lanes of instruction j read 32 adjacent slots: one or two 128-byte lines instead of
// 32 (docs/results/eval.md#finish-leaf-layout). With 4 leaves per thread the lanes read two runs of 16
// adjacent slots. The last, incomplete chunk keeps its leaves in order. Twin: evo_benchmarks::cuda::launch::leaf_slot.
__device__ __forceinline__ unsigned long long evo_leaf_slot(unsigned long long i, unsigned long long count)
{
    const unsigned long long complete = count & ~255ull;
    return i < complete ? ((i & ~255ull) | ((i & 7ull) << 5) | ((i >> 3) & 31ull)) : i;
}

// The tree over `count` (a power of two, at most 8) consecutive values of one thread.
template <bool PRODUCT>
__device__ __forceinline__ double evo_thread_tree8(double* v, unsigned int count)
{
    for (unsigned int width = 1; width < count; width <<= 1) {
        for (unsigned int j = 0; j < count; j += 2 * width) {
            v[j] = PRODUCT ? v[j] * v[j + width] : v[j] + v[j + width];
        }
    }
    return v[0];
}

// Combines completed subtrees left to right, as the stack of `evo_core::reduce::subtree_sum`: push the
// node of leaf i (a node of a fixed level); after a power-of-two number of pushes, stack[0] is the tree.
template <bool PRODUCT>
struct EvoTreeStack {
    double node[40];
    unsigned int depth;
    unsigned long long pushed;

    __device__ __forceinline__ void init() { depth = 0; pushed = 0; }

    __device__ __forceinline__ void push(double value)
    {
        unsigned long long closed = pushed;
        while (closed & 1ull) {
            depth -= 1;
            value = PRODUCT ? node[depth] * value : node[depth] + value;
            closed >>= 1;
        }
        node[depth] = value;
        depth += 1;
        pushed += 1;
    }
};
