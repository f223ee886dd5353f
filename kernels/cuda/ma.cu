// MA-SW-Chains (kernel module `ma`): the vector work of the memetic cycle. The host (crates/ma-sw-chains,
// `cycle.rs`) makes every decision except those inside a Solis-Wets application, which ma_sw_step_f32 makes on
// the device (ma_sw_decide_one, twin: ops::sw_decide); these kernels do the per-variable work with the same scalar operators as
// `evo_ma_sw_chains::ops` (twins named `ma_*`, same order of operations), so under the Exact profile the CUDA
// engine's snapshots equal the CPU engine's bit for bit.
//
// Mapping (the paper's §5): a 2D grid of (chunk of variables, individual); thread i of a block handles one
// lane of 4 consecutive variables (one Philox block), consecutive threads consecutive lanes, so a warp reads
// and writes 512 consecutive bytes. Distances use the canonical tree: blocks reduce aligned tiles of
// blockDim.x leaves, then one block per pair reduces the tile sums (padded with +0.0 to a power of two).
#include "common/rng.cuh"
#include "common/reduce.cuh"
#include "common/problems/functions.cuh"
#include "common/problems/tree.cuh"

// Scalar arguments of every `ma_*` kernel; mirrored by `MaKernelParams` in crates/ma-sw-chains/src/cuda/launch.rs.
struct MaKernelParams {
    unsigned long long seed;        // the run's seed (Philox key)
    unsigned long long dimension;   // D
    unsigned long long src_offset;  // ma_copy_f32: first element read
    unsigned long long dst_offset;  // ma_copy_f32: first element written
    unsigned int stream;            // Philox stream id (counter word 3)
    unsigned int step;              // Philox step (counter word 2)
    unsigned int count;             // rows, pairs or children in the launch; ma_sw_step_f32: the state slot read
    unsigned int tiles;             // distance tiles per pair
    unsigned int lane_offset;       // the Philox lane of variable 0 of these rows: 0, or first/4 for a dimension slice
                                    // whose variables are first .. first + dimension - 1 of the whole vector
    float alpha;                    // BLX-alpha
    float range;                    // BGA range as a fraction of b - a
    unsigned int flag;              // ma_sw_step_f32: the look-ahead L (1 or 2)
};
static_assert(sizeof(MaKernelParams) == 64, "MaKernelParams must match its Rust mirror (64 bytes)");

// One child of a crossover step; mirrored by `ChildGpu` in crates/ma-sw-chains/src/cuda/launch.rs.
struct MaChild {
    unsigned int mother;   // slot
    unsigned int father;   // slot
    unsigned int counter;  // global child index: the step of its crossover draws
    unsigned int gene;     // the mutated variable (when mutate = 1)
    float s;               // the BGA sum
    unsigned int plus;     // 1: x += rang*s
    unsigned int mutate;   // 1: one BGA mutation
    unsigned int pad;
};
static_assert(sizeof(MaChild) == 32, "MaChild must match its Rust mirror (32 bytes)");

// Twin: ops::clip.
__device__ __forceinline__ float ma_clip(float v, float lo, float hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

// Twin: ops::init_gene.
__device__ __forceinline__ float ma_init_gene(float lo, float hi, float u)
{
    return ma_clip(lo + (hi - lo) * u, lo, hi);
}

// Twin: ops::blx_gene.
__device__ __forceinline__ float ma_blx_gene(float x, float y, float alpha, float a, float b, float u)
{
    const float l = y < x ? y : x;
    const float h = y < x ? x : y;
    const float spread = alpha * (h - l);
    const float low = ma_clip(l - spread, a, b);
    const float up = ma_clip(h + spread, a, b);
    return ma_clip(low + (up - low) * u, low, up);
}

// Twin: ops::bga_gene.
__device__ __forceinline__ float ma_bga_gene(float x, float a, float b, float range, float s, bool plus)
{
    const float rang = range * (b - a);
    const float step = rang * s;
    return ma_clip(plus ? x + step : x - step, a, b);
}

// Twin: ops::sw_move.
__device__ __forceinline__ float ma_sw_move(float bias, float rho, float normal)
{
    return bias + rho * normal;
}

// Twin: ops::sw_probe.
__device__ __forceinline__ float ma_sw_probe(float x, float t, bool forward, float lo, float hi)
{
    return ma_clip(forward ? x + t : x - t, lo, hi);
}

// Twin: ops::sw_bias.
__device__ __forceinline__ float ma_sw_bias(float bias, float t, unsigned int outcome)
{
    if (outcome == 0u) {
        return 0.2f * bias + 0.4f * t;
    }
    if (outcome == 1u) {
        return bias - 0.4f * t;
    }
    return 0.5f * bias;
}

// Twin: ops::distance_term.
__device__ __forceinline__ double ma_distance_term(float x, float y)
{
    const double d = (double)x - (double)y;
    return d * d;
}

// Tile blockIdx.x (4 blockDim.x leaves) of the squared distance of pair blockIdx.y (slots pairs[2k],
// pairs[2k+1]) of `population` (rows of `stride` values, the first `dimension` counted; leaves past them +0.0):
// each thread adds its lane's 4 leaves as the aligned subtree they are, then the block tree; thread 0 writes
// partials[pair tiles + tile]. Every thread must call it. Twin: the leaves of CpuWorkspace::squared_distances.
__device__ __forceinline__ void ma_distance_pair_tile(const float* population, const unsigned int* pairs, double* partials, unsigned long long stride, unsigned long long dimension, unsigned long long tiles, double* scratch)
{
    const unsigned int pair = blockIdx.y;
    const float* x = population + (unsigned long long)pairs[2u * pair] * stride;
    const float* y = population + (unsigned long long)pairs[2u * pair + 1u] * stride;
    const unsigned long long first = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * 4ull;
    double t[4];
    for (unsigned int q = 0; q < 4u; ++q) {
        t[q] = first + q < dimension ? ma_distance_term(x[first + q], y[first + q]) : 0.0;
    }
    const double sum = evo_block_pairwise_sum_f64((t[0] + t[1]) + (t[2] + t[3]), scratch);
    if (threadIdx.x == 0u) {
        partials[(unsigned long long)pair * tiles + blockIdx.x] = sum;
    }
}

__device__ __forceinline__ float ma_word_of(uint4 b, unsigned int q)
{
    return evo_uniform_f32(q == 0u ? b.x : (q == 1u ? b.y : (q == 2u ? b.z : b.w)));
}

__device__ __forceinline__ float ma_normal_of(float4 n, unsigned int q)
{
    return q == 0u ? n.x : (q == 1u ? n.y : (q == 2u ? n.z : n.w));
}

// Spec step 2 (and the restart of step 13): row rows[blockIdx.y], variable j = uniform word j of the sequence
// (seed; stream, step, individual = row). Twin: CpuWorkspace::init_rows.
extern "C" __global__ void ma_init_rows_f32(float* population, const unsigned int* rows, const float* lower, const float* upper, MaKernelParams p)
{
    const unsigned int row = rows[blockIdx.y];
    const unsigned long long lane = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long first = lane * 4ull;
    if (first >= p.dimension) {
        return;
    }
    const uint4 b = evo_sequence_block(evo_sequence(p.seed, p.stream, p.step, row), p.lane_offset + (unsigned int)lane);
    float* x = population + (unsigned long long)row * p.dimension;
    for (unsigned int q = 0; q < 4u && first + q < p.dimension; ++q) {
        const unsigned long long i = first + q;
        x[i] = ma_init_gene(lower[i], upper[i], ma_word_of(b, q));
    }
}

// Spec step 3: tile blockIdx.x (4·blockDim.x leaves) of the squared distance of pair blockIdx.y (slots
// pairs[2k], pairs[2k+1]): ma_distance_pair_tile over rows of D values.
extern "C" __global__ void ma_distance_tiles_f64(const float* population, const unsigned int* pairs, double* partials, MaKernelParams p)
{
    extern __shared__ double ma_scratch[];
    ma_distance_pair_tile(population, pairs, partials, p.dimension, p.dimension, p.tiles, ma_scratch);
}

// The rest of the canonical tree over the p.tiles tile sums of pair blockIdx.x, padded with +0.0 to a power
// of two: each thread reduces an aligned run of leaves with the stack of `evo_core::reduce`, then the block
// tree joins the runs (blockDim.x a power of two).
extern "C" __global__ void ma_distance_finish_f64(const double* partials, double* distances, MaKernelParams p)
{
    extern __shared__ double ma_scratch[];
    const double* leaves = partials + (unsigned long long)blockIdx.x * p.tiles;
    unsigned long long padded = 1ull;
    while (padded < p.tiles) {
        padded <<= 1;
    }
    double value = 0.0;
    if (padded <= blockDim.x) {
        value = threadIdx.x < p.tiles ? leaves[threadIdx.x] : 0.0;
    } else {
        const unsigned long long per = padded / blockDim.x;
        EvoTreeStack<false> stack;
        stack.init();
        for (unsigned long long j = 0; j < per; ++j) {
            const unsigned long long leaf = threadIdx.x * per + j;
            stack.push(leaf < p.tiles ? leaves[leaf] : 0.0);
        }
        value = stack.node[0];
    }
    const double sum = evo_block_pairwise_sum_f64(value, ma_scratch);
    if (threadIdx.x == 0u) {
        distances[blockIdx.x] = sum;
    }
}

// Spec steps 4-5: child blockIdx.y of the step, one lane of 4 variables per thread: BLX-alpha with the
// crossover sequence (step = the child's counter) and, at the mutated variable, BGA. Twin:
// CpuWorkspace::make_children.
extern "C" __global__ void ma_crossover_f32(const float* population, float* children, const MaChild* plans, const float* lower, const float* upper, MaKernelParams p)
{
    const MaChild c = plans[blockIdx.y];
    const unsigned long long lane = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long first = lane * 4ull;
    if (first >= p.dimension) {
        return;
    }
    const uint4 b = evo_sequence_block(evo_sequence(p.seed, p.stream, c.counter, 0u), p.lane_offset + (unsigned int)lane);
    const float* mother = population + (unsigned long long)c.mother * p.dimension;
    const float* father = population + (unsigned long long)c.father * p.dimension;
    float* child = children + (unsigned long long)blockIdx.y * p.dimension;
    for (unsigned int q = 0; q < 4u && first + q < p.dimension; ++q) {
        const unsigned long long i = first + q;
        float v = ma_blx_gene(mother[i], father[i], p.alpha, lower[i], upper[i], ma_word_of(b, q));
        if (c.mutate != 0u && (unsigned long long)c.gene == 4ull * p.lane_offset + i) {
            v = ma_bga_gene(v, lower[i], upper[i], p.range, c.s, c.plus != 0u);
        }
        child[i] = v;
    }
}

// dst[dst_offset + i] = src[src_offset + i] for i < D (row moves: child adoption, LS start and write-back).
extern "C" __global__ void ma_copy_f32(const float* src, float* dst, MaKernelParams p)
{
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.dimension; i += stride) {
        dst[p.dst_offset + i] = src[p.src_offset + i];
    }
}

// The device-resident Solis-Wets loop (spec step 14, "ours" in spec section 4): per group of L iterations
// (look-ahead L = p.flag, 1 or 2) the host enqueues the problem's evaluation of the 2 (L = 1) or 8 (L = 2) probe
// rows and ma_sw_step_f32, which decides the group, applies it and writes the next group's probes; the host
// reads the state back only every ~half of the remaining evaluations. Probe rows: 0 / 1 = forward / backward
// of iteration k; with L = 2 also, for each outcome o of iteration k (0 forward, 1 backward, 2 failure),
// rows 2 + 2o / 3 + 2o = forward / backward of iteration k + 1 from the point, bias and rho that outcome leads
// to (speculative: only the branch taken is used). Twin of MaSwState: ops::SwState.
struct MaSwState {
    double current;              // f(x)
    double bad_value;            // the first non-finite fitness met
    float rho;                   // rho of the next iteration
    float move_rho;              // rho of the probes of the pending iteration
    unsigned int successes;
    unsigned int failures;
    unsigned int used;           // evaluations spent
    unsigned int limit;          // evaluations allowed
    unsigned int iteration;      // the Philox step of the next iteration's noise
    unsigned int pending;        // outcome of iteration pending_iteration not yet applied (0 forward, 1 backward, 2 failure, 3 none)
    unsigned int active;         // 1 while the application goes on
    unsigned int bad;            // 1 / 2: the forward / backward fitness was not finite
    unsigned int success_limit;
    unsigned int failure_limit;
    float expand;
    float contract;
    unsigned int pending2;       // look-ahead: outcome of iteration pending_iteration + 1 (3 none)
    float move_rho2;             // rho of pending2's probes
    unsigned int pending_iteration;
    unsigned int probed;         // 1: the probe rows hold an undecided group (their fitness is being evaluated)
};
static_assert(sizeof(MaSwState) == 88, "MaSwState must match its Rust mirror ops::SwState (88 bytes)");

#define MA_SW_NONE 3u

// rho after an iteration with outcome o from the counters of s (step 14.3, as ma_sw_decide_one).
__device__ __forceinline__ float ma_sw_rho_after(const MaSwState& s, unsigned int o)
{
    unsigned int successes = s.successes;
    unsigned int failures = s.failures;
    if (o == 2u) {
        failures += 1u;
        successes = 0u;
    } else {
        successes += 1u;
        failures = 0u;
    }
    float rho = s.rho;
    if (successes >= s.success_limit) {
        rho *= s.expand;
    } else if (failures >= s.failure_limit) {
        rho *= s.contract;
    }
    return rho;
}

// One decision (twin: ops::sw_decide, same order of operations) from the forward and backward fitness of
// iteration s.iteration; returns the outcome, or MA_SW_NONE when the application ended without one (a failed
// forward probe on the last evaluation, or a non-finite fitness it used: bad, bad_value).
__device__ unsigned int ma_sw_decide_one(MaSwState& s, double forward, double backward)
{
    if (!isfinite(forward)) {
        s.bad = 1u;
        s.bad_value = forward;
        s.active = 0u;
        return MA_SW_NONE;
    }
    s.move_rho = s.rho;
    s.pending_iteration = s.iteration;
    s.iteration += 1u;
    s.used += 1u;
    unsigned int outcome;
    if (forward < s.current) {
        s.current = forward;
        outcome = 0u;
    } else if (s.used < s.limit) {
        if (!isfinite(backward)) {
            s.bad = 2u;
            s.bad_value = backward;
            s.active = 0u;
            return MA_SW_NONE;
        }
        s.used += 1u;
        if (backward < s.current) {
            s.current = backward;
            outcome = 1u;
        } else {
            outcome = 2u;
        }
    } else {
        s.active = 0u;
        return MA_SW_NONE;
    }
    if (outcome == 2u) {
        s.failures += 1u;
        s.successes = 0u;
    } else {
        s.successes += 1u;
        s.failures = 0u;
    }
    if (s.successes >= s.success_limit) {
        s.rho *= s.expand;
        s.successes = 0u;
    } else if (s.failures >= s.failure_limit) {
        s.rho *= s.contract;
        s.failures = 0u;
    }
    if (s.used >= s.limit) {
        s.active = 0u;
    }
    return outcome;
}

// The decisions of one group of L iterations: clears the previous outcomes, then, while active, decides
// iteration k from rows 0 / 1 and, with L = 2 and the application still active, iteration k + 1 from the rows of
// the branch taken.
__device__ __forceinline__ void ma_sw_decide_group(MaSwState& s, const double* fitness, unsigned int lookahead)
{
    s.pending = MA_SW_NONE;
    s.pending2 = MA_SW_NONE;
    if (s.probed == 0u) {
        return;
    }
    s.probed = 0u;
    if (s.active == 0u) {
        return;
    }
    const unsigned int first = s.iteration;
    const unsigned int o1 = ma_sw_decide_one(s, fitness[0], fitness[1]);
    s.pending = o1;
    if (lookahead == 2u && s.active != 0u && o1 != MA_SW_NONE) {
        const float rho1 = s.move_rho;
        const unsigned int o2 = ma_sw_decide_one(s, fitness[2u + 2u * o1], fitness[3u + 2u * o1]);
        s.move_rho2 = s.move_rho;
        s.move_rho = rho1;
        s.pending2 = o2;
    }
    s.pending_iteration = first;
}

// One launch per group (p.count = the state slot read, 0 or 1; the other slot is written). Every thread reads
// the state and the probe fitness and makes the same decisions (ma_sw_decide_group; nothing it reads is written
// in this launch), thread 0 of block 0 writes the decided state; then each thread, for its lane of 4
// variables, applies the decided iterations (bias, and on a success x = the accepted probe row; d regenerated
// from its counters with move_rho / move_rho2) and, while the application is active, writes the probes of the
// next group (layout above). Twins: ops::sw_decide, CpuWorkspace::ls_update and CpuWorkspace::ls_probe.
extern "C" __global__ void ma_sw_step_f32(float* x, float* bias, float* probes, const float* lower, const float* upper, const double* fitness, MaSwState* states, MaKernelParams p)
{
    const unsigned int from = p.count & 1u;
    MaSwState s = states[from];
    ma_sw_decide_group(s, fitness, p.flag);
    s.probed = s.active;
    if (blockIdx.x == 0u && threadIdx.x == 0u) {
        states[1u - from] = s;
    }
    const unsigned long long lane = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long first = lane * 4ull;
    if (first >= p.dimension) {
        return;
    }
    const unsigned long long d = p.dimension;
    if (s.pending != MA_SW_NONE) {
        const float4 n1 = evo_sequence_normals4(evo_sequence(p.seed, p.stream, s.pending_iteration, 0u), p.lane_offset + (unsigned int)lane);
        const float4 n2 = s.pending2 != MA_SW_NONE ? evo_sequence_normals4(evo_sequence(p.seed, p.stream, s.pending_iteration + 1u, 0u), p.lane_offset + (unsigned int)lane) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (unsigned int q = 0; q < 4u && first + q < d; ++q) {
            const unsigned long long i = first + q;
            float b = bias[i];
            const float t1 = ma_sw_move(b, s.move_rho, ma_normal_of(n1, q));
            b = ma_sw_bias(b, t1, s.pending);
            unsigned long long row = s.pending != 2u ? (unsigned long long)s.pending : ~0ull;
            if (s.pending2 != MA_SW_NONE) {
                const float t2 = ma_sw_move(b, s.move_rho2, ma_normal_of(n2, q));
                b = ma_sw_bias(b, t2, s.pending2);
                if (s.pending2 != 2u) {
                    row = 2ull + 2ull * s.pending + s.pending2;
                }
            }
            bias[i] = b;
            if (row != ~0ull) {
                x[i] = probes[row * d + i];
            }
        }
    }
    if (s.active != 0u) {
        const float4 n = evo_sequence_normals4(evo_sequence(p.seed, p.stream, s.iteration, 0u), p.lane_offset + (unsigned int)lane);
        const float4 m = p.flag == 2u ? evo_sequence_normals4(evo_sequence(p.seed, p.stream, s.iteration + 1u, 0u), p.lane_offset + (unsigned int)lane) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        float rho_after[3];
        for (unsigned int o = 0; o < 3u; ++o) {
            rho_after[o] = ma_sw_rho_after(s, o);
        }
        for (unsigned int q = 0; q < 4u && first + q < d; ++q) {
            const unsigned long long i = first + q;
            const float b = bias[i];
            const float xi = x[i];
            const float lo = lower[i];
            const float hi = upper[i];
            const float t = ma_sw_move(b, s.rho, ma_normal_of(n, q));
            const float forward = ma_sw_probe(xi, t, true, lo, hi);
            const float backward = ma_sw_probe(xi, t, false, lo, hi);
            probes[i] = forward;
            probes[d + i] = backward;
            if (p.flag == 2u) {
                for (unsigned int o = 0; o < 3u; ++o) {
                    const float x1 = o == 0u ? forward : (o == 1u ? backward : xi);
                    const float b1 = ma_sw_bias(b, t, o);
                    const float t1 = ma_sw_move(b1, rho_after[o], ma_normal_of(m, q));
                    probes[(2ull + 2ull * o) * d + i] = ma_sw_probe(x1, t1, true, lo, hi);
                    probes[(3ull + 2ull * o) * d + i] = ma_sw_probe(x1, t1, false, lo, hi);
                }
            }
        }
    }
}

// ---- The dimension split (crates/distributed, module `dimension`): kernels over one slice of the variables ----
#include "cuda/ma_slice.cuh"
