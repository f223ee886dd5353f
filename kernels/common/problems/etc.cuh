// ETC scheduling: machine of a real coordinate and a streaming form of the canonical pairwise tree. CUDA
// twins of crates/benchmarks/src/scheduling/{problem,schedule}.rs.
#pragma once

#include "common/reduce.cuh"

// Rust twin: `EtcProblem::machine_of`: min(floor(clamp(x, 0, m)), m - 1); NaN gives 0 (x > 0 is false).
// m is at most 2^24, so (float)m is exact.
__device__ __forceinline__ unsigned int evo_etc_machine_of(float x, unsigned int machines)
{
    const float m = (float)machines;
    const float clamped = x > 0.0f ? fminf(x, m) : 0.0f;
    const unsigned int machine = (unsigned int)floorf(clamped);
    const unsigned int top = machines - 1u;
    return machine < top ? machine : top;
}

// The canonical tree over a stream of aligned equal-size subtree sums (leaves of the upper tree): push leaf
// i, merging the completed pairs as `subtree_sum` of evo_core::reduce does; `finish` pads with +0.0 leaves to
// a power of two. Every thread of a block keeps an identical copy (it only sees block-uniform values).
struct EvoPairwiseStream {
    double stack[40];
    unsigned int depth;
    unsigned long long count;
};

__device__ __forceinline__ void evo_pairwise_stream_init(EvoPairwiseStream* s)
{
    s->depth = 0u;
    s->count = 0ull;
}

__device__ __forceinline__ void evo_pairwise_stream_push(EvoPairwiseStream* s, double leaf)
{
    double node = leaf;
    unsigned long long closed = s->count;
    while ((closed & 1ull) == 1ull) {
        s->depth -= 1u;
        node = s->stack[s->depth] + node;  // the left sibling is the left operand
        closed >>= 1;
    }
    s->stack[s->depth] = node;
    s->depth += 1u;
    s->count += 1ull;
}

__device__ __forceinline__ double evo_pairwise_stream_finish(EvoPairwiseStream* s)
{
    if (s->count == 0ull) {
        return 0.0;
    }
    while ((s->count & (s->count - 1ull)) != 0ull) {
        evo_pairwise_stream_push(s, 0.0);
    }
    return s->stack[0];
}
