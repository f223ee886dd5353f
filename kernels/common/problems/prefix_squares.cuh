// The segment summaries (N, A, B, C) of the sum of squared prefix sums (Ridge, Schwefel 1.2). Twin and
// definition: evo_benchmarks::prefix_squares. A segment's N terms z, its prefix sums p inside the segment:
// A = sum z, B = sum p, C = sum p^2; L followed by R: A = A_L + A_R, B = B_L + fma(N_R, A_L, B_R),
// C = C_L + fma(A_L, fma(N_R, A_L, 2 B_R), C_R); an empty operand (N = 0) returns the other unchanged.
// Leaves: 4 consecutive terms, summarised sequentially; the tree: the pairwise tree over the leaves.
#pragma once

#define EVO_PREFIX_GROUP 4u

struct EvoPrefixSquares {
    double count;  // N (exact below 2^53)
    double total;  // A
    double prefix; // B
    double square; // C
};

__device__ __forceinline__ EvoPrefixSquares evo_prefix_squares_empty()
{
    EvoPrefixSquares s;
    s.count = 0.0;
    s.total = 0.0;
    s.prefix = 0.0;
    s.square = 0.0;
    return s;
}

// Appends the term z to a leaf: p <- p + z, B <- B + p, C <- fma(p, p, C) (p is the leaf's total).
__device__ __forceinline__ void evo_prefix_squares_push(EvoPrefixSquares& s, double z)
{
    s.total = s.total + z;
    s.prefix = s.prefix + s.total;
    s.square = fma(s.total, s.total, s.square);
    s.count = s.count + 1.0;
}

// L followed by R, both non-empty.
__device__ __forceinline__ EvoPrefixSquares evo_prefix_squares_join(const EvoPrefixSquares& l,
                                                                    const EvoPrefixSquares& r)
{
    EvoPrefixSquares s;
    const double inner = fma(r.count, l.total, 2.0 * r.prefix);
    s.count = l.count + r.count;
    s.total = l.total + r.total;
    s.prefix = l.prefix + fma(r.count, l.total, r.prefix);
    s.square = l.square + fma(l.total, inner, r.square);
    return s;
}

// L followed by R, either possibly empty.
__device__ __forceinline__ EvoPrefixSquares evo_prefix_squares_then(const EvoPrefixSquares& l,
                                                                    const EvoPrefixSquares& r)
{
    if (r.count == 0.0) {
        return l;
    }
    if (l.count == 0.0) {
        return r;
    }
    return evo_prefix_squares_join(l, r);
}

__device__ __forceinline__ EvoPrefixSquares evo_prefix_squares_shfl_down(const EvoPrefixSquares& s,
                                                                         unsigned int off)
{
    EvoPrefixSquares o;
    o.count = __shfl_down_sync(0xffffffffu, s.count, off);
    o.total = __shfl_down_sync(0xffffffffu, s.total, off);
    o.prefix = __shfl_down_sync(0xffffffffu, s.prefix, off);
    o.square = __shfl_down_sync(0xffffffffu, s.square, off);
    return o;
}

// The shuffle tree over the first `width` lanes (a power of two, 1..32), each lane's summary an aligned
// subtree of equal size (empty ones only after the non-empty ones); the result is in lane 0. Lanes that are
// not multiples of 2 off compute values no later level of lane 0 reads. Every lane of the warp must call it.
__device__ __forceinline__ EvoPrefixSquares evo_prefix_squares_warp(EvoPrefixSquares s, unsigned int width)
{
    for (unsigned int off = 1; off < width; off <<= 1) {
        const EvoPrefixSquares other = evo_prefix_squares_shfl_down(s, off);
        s = evo_prefix_squares_then(s, other);
    }
    return s;
}

// The canonical summary of the n values of v (one thread): leaves of 4, then the pairwise tree by a stack of
// completed subtrees, the padding (empty leaves) folded in as the identity.
__device__ __forceinline__ EvoPrefixSquares evo_prefix_squares_serial(const double* v, unsigned int n)
{
    EvoPrefixSquares stack[32];
    unsigned int depth = 0;
    unsigned int pushed = 0;
    for (unsigned int first = 0; first < n; first += EVO_PREFIX_GROUP) {
        EvoPrefixSquares node = evo_prefix_squares_empty();
        for (unsigned int k = first; k < first + EVO_PREFIX_GROUP && k < n; ++k) {
            evo_prefix_squares_push(node, v[k]);
        }
        for (unsigned int closed = pushed; closed & 1u; closed >>= 1) {
            depth -= 1;
            node = evo_prefix_squares_join(stack[depth], node);
        }
        stack[depth] = node;
        depth += 1;
        pushed += 1;
    }
    if (depth == 0) {
        return evo_prefix_squares_empty();
    }
    // Padding to a power of two joins each smaller completed subtree to the larger one on its left.
    EvoPrefixSquares acc = stack[depth - 1];
    for (unsigned int d = depth - 1; d-- > 0;) {
        acc = evo_prefix_squares_join(stack[d], acc);
    }
    return acc;
}
