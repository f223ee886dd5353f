// DE's one-launch generation with a user's real-vector problem as its evaluation (evo_de's fused path for
// evo_benchmarks::cuda::UserProblem, ARCHITECTURE §5 way 1). Launcher: crates/de/src/cuda/launch/user_generation.rs.
//
// A per-user DE module is the user prelude (EVO_USER_SUMS, EVO_USER_HAS_COMBINE, EvoUserData, evo_user_data),
// the user's source (evo_user_terms, evo_user_combine) and cuda/de.cu compiled with EVO_DE_USER defined: the DE
// operators, the generation body de_generation and this header, none of the paper's kernels. Block i builds
// trial i into the other buffer (de_fused_chunk4, four coordinates per thread and pass; up to 8192 coordinates
// also into dynamic shared memory, which the terms then read), waits at a barrier so that every thread sees
// the whole trial (a term may read any coordinate), and sums the terms with the
// canonical tree of evo_core::reduce, the same tree as the CPU twin (UserProblem::evaluate) and as
// user_real.cuh: tiles of `items * leaves` adjacent terms (never more than the terms padded to a power of two,
// so every tile is an aligned subtree), thread j the subtree of `items` adjacent terms from j * items of the
// tile (sequentially, with a stack), the block the shuffle tree over its `leaves` threads, thread 0 the tiles
// left to right with a stack padded to a power of two. Each of the EVO_USER_SUMS sums has its own tree; the
// fitness is evo_user_combine(sums) or sums[0]. A fitness that is not finite is written to nonfinite[i] and
// its vector recorded in status[0] (atomicMin), which the engine reads back with the best vector. A vector is
// never split over blocks as the built-in Rastrigin's long vectors are: a term may read any coordinate of the
// trial, which another block would write during the same launch.
#pragma once

// Scalar arguments of de_generation_user_f32; mirrored by `DeUserGenerationParams` in
// crates/de/src/cuda/launch/user_generation.rs.
struct DeUserGenerationParams {
    DeGenerationParams g;     // the generation (one chunk; items, machines and lambda unused)
    unsigned long long terms; // n, the terms of a row
    unsigned int items;       // adjacent terms per thread in a tile (a power of two, at most 8)
    unsigned int leaves;      // threads of a tile's tree (a power of two, at most the block)
    unsigned int shared_trial; // 1: the terms read a copy of the trial in dynamic shared memory (4 D bytes)
    unsigned int pad;          // keeps the size a multiple of 8
};
static_assert(sizeof(DeUserGenerationParams) == 104, "DeUserGenerationParams must match its Rust mirror (104 bytes)");

// The most tiles thread 0's stack combines: 2^39 tiles, beyond any row.
#define DE_USER_TILE_DEPTH 40

// The K values of term `index` of row x (zero beyond the n terms: the padding of the canonical tree).
__device__ __forceinline__ void de_user_leaf(unsigned long long index, const float* x, const DeUserGenerationParams& u, const EvoUserData& data, double* t)
{
    if (index < u.terms) {
        evo_user_terms(index, x, u.g.de.dimension, data, t);
    } else {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            t[k] = 0.0;
        }
    }
}

// The adjacent-pair tree of the ITEMS terms from `first` (an aligned subtree), with a stack of completed
// subtrees (unrolled: every stack index is known at compile time, so the stack lives in registers). Twin:
// evo_core::reduce's subtree_sum.
template <unsigned int ITEMS>
__device__ __forceinline__ void de_user_thread_tree(unsigned long long first, const float* x, const DeUserGenerationParams& u, const EvoUserData& data, double* out)
{
    double stack[4][EVO_USER_SUMS];
    unsigned int depth = 0;
#pragma unroll
    for (unsigned int q = 0; q < ITEMS; ++q) {
        double node[EVO_USER_SUMS];
        de_user_leaf(first + q, x, u, data, node);
        // Each trailing one bit of q closes a subtree whose left sibling is on the stack.
#pragma unroll
        for (unsigned int closed = q; (closed & 1u) == 1u; closed >>= 1) {
            --depth;
#pragma unroll
            for (int k = 0; k < EVO_USER_SUMS; ++k) {
                node[k] = stack[depth][k] + node[k];
            }
        }
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            stack[depth][k] = node[k];
        }
        ++depth;
    }
#pragma unroll
    for (int k = 0; k < EVO_USER_SUMS; ++k) {
        out[k] = stack[0][k];
    }
}

// The shuffle trees over the values of threads 0 .. leaves - 1 (leaves a power of two, at most the block),
// one per sum; the results are in thread 0. `scratch` holds 32 * EVO_USER_SUMS doubles of shared memory.
// Every thread of the block calls it.
__device__ __forceinline__ void de_user_block_tree(double* v, unsigned int leaves, double* scratch)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int warp = threadIdx.x >> 5;
#pragma unroll
    for (int k = 0; k < EVO_USER_SUMS; ++k) {
        v[k] = evo_warp_tree<false>(v[k], leaves < 32u ? leaves : 32u);
    }
    if (leaves <= 32u) {
        return;
    }
    const unsigned int warps = leaves >> 5;
    if (lane == 0u && warp < warps) {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            scratch[k * 32 + warp] = v[k];
        }
    }
    __syncthreads();
    if (warp == 0u) {
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            v[k] = evo_warp_tree<false>(lane < warps ? scratch[k * 32 + lane] : 0.0, warps);
        }
    }
    // The next tile writes scratch again only after warp 0 has read it.
    __syncthreads();
}

// Pushes the sums of the next tile onto thread 0's stack of completed subtrees, one per sum: each trailing
// one bit of the count pushed so far closes a subtree whose left sibling is on the stack (EvoTreeStack).
__device__ __forceinline__ void de_user_push(double (*stack)[EVO_USER_SUMS], unsigned int* depth, unsigned long long* pushed, double* value)
{
    for (unsigned long long closed = *pushed; (closed & 1ull) == 1ull; closed >>= 1) {
        *depth -= 1u;
#pragma unroll
        for (int k = 0; k < EVO_USER_SUMS; ++k) {
            value[k] = stack[*depth][k] + value[k];
        }
    }
#pragma unroll
    for (int k = 0; k < EVO_USER_SUMS; ++k) {
        stack[*depth][k] = value[k];
    }
    *depth += 1u;
    *pushed += 1ull;
}

// The evaluation of de_generation for a user module: the trial into `out`, then its fitness in thread 0.
struct DeUserEvaluation {
    const DeUserGenerationParams* u;
    const float* lower;
    const float* upper;
    const float* data32;
    const double* data64;
    double* nonfinite;
    unsigned int* status;
    double* scratch;
    float* s_trial;  // D floats of shared memory when u->shared_trial, else unused

    __device__ __forceinline__ double operator()(unsigned int i, unsigned int, EvoSequence cross, unsigned int j_rand, unsigned int length, float f, float cr, const float* const rows[5], float* out) const
    {
        const DeUserGenerationParams& g = *u;
        const DeKernelParams& p = g.g.de;
        const unsigned int d = (unsigned int)p.dimension;
        const bool uniform = g.g.uniform_bounds != 0u;
        const float lo = uniform ? lower[0] : 0.0f;
        const float hi = uniform ? upper[0] : 0.0f;
        unsigned long long address = reinterpret_cast<unsigned long long>(out);
#pragma unroll
        for (unsigned int k = 0; k < 5u; ++k) {
            address |= reinterpret_cast<unsigned long long>(rows[k]);
        }
        const bool aligned = (address & 15ull) == 0ull;
        // Steps 3.1-3.3: four coordinates (one Philox block of words) per thread and pass.
        for (unsigned int g0 = 4u * threadIdx.x; g0 < d; g0 += 4u * blockDim.x) {
            float v[4];
            if (aligned && g0 + 4u <= d) {
                de_fused_chunk4<true>(p, g0, cross, j_rand, length, f, cr, rows, out, lower, upper, uniform, lo, hi, v);
            } else {
                de_fused_chunk4<false>(p, g0, cross, j_rand, length, f, cr, rows, out, lower, upper, uniform, lo, hi, v);
            }
            if (g.shared_trial != 0u) {
#pragma unroll
                for (unsigned int e = 0; e < 4u; ++e) {
                    if (g0 + e < d) {
                        s_trial[g0 + e] = v[e];
                    }
                }
            }
        }
        // A term may read any coordinate of the trial: the barrier makes the block's stores visible to it. The
        // shared copy spares the terms a round trip to L2 (global stores do not fill L1).
        __syncthreads();
        const float* x = g.shared_trial != 0u ? s_trial : out;
        const EvoUserData data = evo_user_data(data32, data64);
        const unsigned long long tile = (unsigned long long)g.items * g.leaves;
        // A row of one tile (the common case) keeps its sums in registers; longer rows stack their tiles.
        const bool single = tile >= g.terms;
        double sums[EVO_USER_SUMS];
        double stack[DE_USER_TILE_DEPTH][EVO_USER_SUMS];
        unsigned int depth = 0;
        unsigned long long pushed = 0;
        for (unsigned long long base = 0; base < g.terms; base += tile) {
            double value[EVO_USER_SUMS];
            if (threadIdx.x < g.leaves) {
                const unsigned long long first = base + (unsigned long long)threadIdx.x * g.items;
                if (g.items == 1u) {
                    de_user_thread_tree<1>(first, x, g, data, value);
                } else if (g.items == 2u) {
                    de_user_thread_tree<2>(first, x, g, data, value);
                } else if (g.items == 4u) {
                    de_user_thread_tree<4>(first, x, g, data, value);
                } else {
                    de_user_thread_tree<8>(first, x, g, data, value);
                }
            } else {
#pragma unroll
                for (int k = 0; k < EVO_USER_SUMS; ++k) {
                    value[k] = 0.0;
                }
            }
            de_user_block_tree(value, g.leaves, scratch);
            if (threadIdx.x == 0u && single) {
#pragma unroll
                for (int k = 0; k < EVO_USER_SUMS; ++k) {
                    sums[k] = value[k];
                }
            } else if (threadIdx.x == 0u) {
                de_user_push(stack, &depth, &pushed, value);
            }
        }
        double fitness = 0.0;
        if (threadIdx.x == 0u && !single) {
            // Pad the tiles to a power of two with trees of zeros.
            while ((pushed & (pushed - 1ull)) != 0ull) {
                double value[EVO_USER_SUMS];
#pragma unroll
                for (int k = 0; k < EVO_USER_SUMS; ++k) {
                    value[k] = 0.0;
                }
                de_user_push(stack, &depth, &pushed, value);
            }
#pragma unroll
            for (int k = 0; k < EVO_USER_SUMS; ++k) {
                sums[k] = stack[0][k];
            }
        }
        if (threadIdx.x == 0u) {
#if EVO_USER_HAS_COMBINE
            fitness = evo_user_combine(sums, p.dimension, data);
#else
            fitness = sums[0];
#endif
            if (!isfinite(fitness)) {
                nonfinite[i] = fitness;
                atomicMin(status, i);
            }
        }
        return fitness;
    }
};

// One whole generation (steps 3.1-3.4) of DE on a user's problem, in one launch of B threads per block (B a
// power of two in 32..1024, one chunk per vector): de_generation with DeUserEvaluation, 4 D bytes of dynamic
// shared memory when p.shared_trial. Twin: DeCpu::step.
extern "C" __global__ void __launch_bounds__(1024) de_generation_user_f32(float* buffer0, float* buffer1, const unsigned int* slot_in, unsigned int* slot_out, double* fitness, float* weights, float* rates, unsigned int* best, double* best_fitness, double* partials, unsigned int* vector_done, unsigned int* done, const float* lower, const float* upper, const float* data32, const double* data64, double* nonfinite, unsigned int* status, DeUserGenerationParams p)
{
    DE_GENERATION_SHARED(shared);
    extern __shared__ float de_user_trial[];
    const DeUserEvaluation evaluation = {&p, lower, upper, data32, data64, nonfinite, status, shared.warp, de_user_trial};
    de_generation(buffer0, buffer1, slot_in, slot_out, fitness, weights, rates, best, best_fitness, partials, vector_done, done, p.g, evaluation, shared);
}
