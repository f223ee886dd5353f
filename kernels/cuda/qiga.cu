// The quantum-inspired GA on the 0/1 knapsack (kernel module `qiga`; Rust twins: crates/qiga/src/ops.rs and
// the generation loop of crates/qiga/src/cpu.rs). The paper's layout: one block = one independent run, its
// threads stride over the genes of all individuals (four qubits, one Philox block, per thread); the repair and
// evaluation run a warp per individual when the host has proven the f64 sums exact in any order (then the
// warp's scans stop where the CPU's serial loops stop, bit for bit), else on threads 0..P-1 serially over the
// items exactly as the CPU; three barriers per generation (see qiga_generations_in). Every run of the grid has
// its own seed and its own five rotation angles, so one launch evaluates many parameter sets. A launch runs
// `generations` consecutive generations of every run, with the run's state in the block's shared memory when
// it fits.
//
// State between launches (global memory, run-major): theta[run][i][j] (f32), observed[run][i][j] (bytes 0/1),
// fitness[run][i] (profit, f64), best[run][j] (bytes), best_profit[run] (f64).
#include "common/math.cuh"
#include "common/rng.cuh"

// Scalar arguments; mirrored by `RunParams` in crates/qiga/src/cuda/launch.rs.
struct QigaRunParams {
    double capacity;                // knapsack capacity C
    unsigned int runs;              // blocks = runs
    unsigned int items;             // n, qubits per individual
    unsigned int population;        // P, quantum individuals per run (<= blockDim.x)
    unsigned int first_generation;  // the generation index of this launch's first generation
    unsigned int generations;       // how many generations this launch runs
    unsigned int sign_choice;       // 0: the +-1 cells are +1; 1: drawn from the sign stream
    unsigned int quadrant_rule;     // 0: true sign of alpha*beta; 1: Nowotniak's fmodf quirk
    unsigned int observe_stream;    // evo_rng::Stream::QigaObserve
    unsigned int sign_stream;       // evo_rng::Stream::QigaSign
    unsigned int exact_sums;        // 1: every weight and profit sum is exact in any order: a warp per individual
    unsigned int shared_state;      // 1: the run's state lives in dynamic shared memory (qiga_generations_in)
    unsigned int initial_theta;     // 1: theta is not read but starts at QIGA_INITIAL_ANGLE (a new batch's generation 0)
};
static_assert(sizeof(QigaRunParams) == 56, "QigaRunParams must match its Rust mirror (56 bytes)");

// Twin: ops::INITIAL_ANGLE and the private constants of ops.rs (each literal rounds to the same f32).
#define QIGA_INITIAL_ANGLE 0.785398163397448309616f
#define QIGA_PI 3.14159265358979323846f
#define QIGA_HALF_PI 1.57079632679489661923f
#define QIGA_EPSILON 10e-9f
#define QIGA_QUADRANT_POSITIVE 0u
#define QIGA_QUADRANT_NEGATIVE 1u
#define QIGA_QUADRANT_ALPHA_ZERO 2u
#define QIGA_QUADRANT_BETA_ZERO 3u
#define QIGA_EITHER 2

// The sign table (the paper's Table 2), [row][quadrant]; twin: ops::SIGN.
__constant__ int QIGA_SIGN[8][4] = {
    {0, 0, 0, 0},
    {0, 0, 0, 0},
    {0, 0, 0, 0},
    {-1, 1, QIGA_EITHER, 0},
    {-1, 1, QIGA_EITHER, 0},
    {1, -1, 0, QIGA_EITHER},
    {1, -1, 0, QIGA_EITHER},
    {1, -1, 0, QIGA_EITHER},
};

// The constants of evo_cos_f32's medium reduction and polynomials (common/math/constants.cuh) in constant
// memory, which a double instruction reads as an operand, where the literals take two uniform moves each.
__constant__ double QIGA_COS_CONSTANTS[11] = {
    evo_math::INVPIO2, evo_math::PIO2F_1, evo_math::PIO2F_1T,
    evo_math::CF0, evo_math::CF1, evo_math::CF2, evo_math::CF3,
    evo_math::SF1, evo_math::SF2, evo_math::SF3, evo_math::SF4,
};

// evo_cos_f32 (common/math/single.cuh; Rust twin evo_core::math::cos_f32) with the same operations in the
// same order (rem_pio2_f32's medium path, kernel_cos_f32, kernel_sin_f32), the constants read from
// QIGA_COS_CONSTANTS, and the octant's choice as selects: both polynomials of the reduced argument are
// computed and one is kept, where evo_cos_f32 branches to one of five paths, which a warp whose lanes hold
// angles in different octants runs one after another. Same bits for every input.
__device__ __forceinline__ float qiga_cos_f32(float x)
{
    using namespace evo_math;
    const double* k = QIGA_COS_CONSTANTS;
    const unsigned int ix = __float_as_uint(x) & 0x7fffffffu;
    if (ix >= 0x7f800000u) {
        return nan_f32();
    }
    if (ix < 0x39800000u) {
        return 1.0f;
    }
    double y = (double)x;
    int n = 0;
    if (ix >= 0x4dc90fdbu) {
        const RemPio2 r = rem_pio2_large_f64(y);
        y = r.y0;
        n = r.n;
    } else if (ix > 0x3f490fdau) {
        const double fn = rint(y * k[0]);
        n = (int)fn;
        const double r = y - fn * k[1];
        const double w = fn * k[2];
        y = r - w;
    }
    const double z = y * y;
    const double w = z * z;
    const double c = ((1.0 + z * k[3]) + w * k[4]) + (w * z) * (k[5] + z * k[6]);
    const double s = z * y;
    const double sine = (y + s * (k[7] + z * k[8])) + s * w * (k[9] + z * k[10]);
    const float v = (float)((n & 1) != 0 ? sine : c);
    return ((n + 1) & 2) != 0 ? -v : v;
}

// The observation's filter: where |theta| < pi (the f32 pi is above pi), CUDA's __cosf is within 2^-21.41 of cos(theta) (CUDA C++
// Programming Guide, intrinsic functions) and qiga_cos_f32 within one f32 ulp (2^-24 below 1), so the two
// squares differ by less than 2 * (2^-21.41 + 2^-24) + 2 * 2^-24 < 2^-19.9; the margin 2^-12 covers that and
// the rounding of the square +- margin some 900 times over, and sends about one u in 2 000 to the exact path.
#define QIGA_OBSERVE_MARGIN 0x1p-12f

// Twin: ops::observe, whose result is u >= alpha^2 with alpha = cos_f32(theta). Decided from the SFU's cosine
// when u lies more than QIGA_OBSERVE_MARGIN from its square (then the exact square is on the same side: same
// bits), else, and for |theta| >= pi or NaN, from qiga_cos_f32.
__device__ __forceinline__ bool qiga_observe(float theta, float u)
{
    if (fabsf(theta) < QIGA_PI) {
        const float rough = __cosf(theta);
        const float square = __fmul_rn(rough, rough);
        if (u >= __fadd_rn(square, QIGA_OBSERVE_MARGIN)) {
            return true;
        }
        if (u < __fsub_rn(square, QIGA_OBSERVE_MARGIN)) {
            return false;
        }
    }
    const float alpha = qiga_cos_f32(theta);
    return u >= alpha * alpha;
}

// Twin: ops::quadrant.
__device__ __forceinline__ unsigned int qiga_quadrant(float theta, unsigned int quadrant_rule)
{
    // fmodf(theta, pi) is theta itself when |theta| < pi (the remainder is exact), so the common case skips
    // the library call; NaN and larger angles take it.
    float c = fabsf(theta) < QIGA_PI ? theta : fmodf(theta, QIGA_PI);
    if (quadrant_rule == 0u && c < 0.0f) {
        c += QIGA_PI;
    }
    if (c < QIGA_EPSILON || c > QIGA_PI - QIGA_EPSILON) {
        return QIGA_QUADRANT_BETA_ZERO;
    } else if (fabsf(c - QIGA_HALF_PI) < QIGA_EPSILON) {
        return QIGA_QUADRANT_ALPHA_ZERO;
    } else if (c < QIGA_HALF_PI) {
        return QIGA_QUADRANT_POSITIVE;
    }
    return QIGA_QUADRANT_NEGATIVE;
}

// Twin: ops::rotation_row.
__device__ __forceinline__ unsigned int qiga_rotation_row(bool x, bool b, bool flag)
{
    return 4u * (unsigned int)x + 2u * (unsigned int)b + (unsigned int)flag;
}

// Twin: ops::delta. A select chain rather than angles[row - 3], so that a caller's register array of angles
// is not indexed at run time (which would move it to local memory).
__device__ __forceinline__ float qiga_delta(unsigned int row, const float* angles)
{
    return row == 3u ? angles[0] : row == 4u ? angles[1] : row == 5u ? angles[2] : row == 6u ? angles[3] : row == 7u ? angles[4] : 0.0f;
}

// Twin: ops::sign, reading the cell from `table` (QIGA_SIGN or a shared-memory copy of it: a warp's lanes read
// different cells, which constant memory serves one address at a time and shared memory at once).
__device__ __forceinline__ float qiga_sign(const int (*table)[4], unsigned int row, unsigned int quadrant, unsigned int sign_word, unsigned int sign_choice)
{
    const int cell = table[row][quadrant];
    if (cell != QIGA_EITHER) {
        return (float)cell;
    } else if (sign_choice == 1u && (sign_word >> 31) != 0u) {
        return -1.0f;
    }
    return 1.0f;
}

// Twin: ops::rotate, with the sign table `table`.
__device__ __forceinline__ float qiga_rotate_table(const int (*table)[4], float theta, bool x, bool b, bool flag, const float* angles, unsigned int sign_word, unsigned int sign_choice, unsigned int quadrant_rule)
{
    const unsigned int row = qiga_rotation_row(x, b, flag);
    const float s = qiga_sign(table, row, qiga_quadrant(theta, quadrant_rule), sign_word, sign_choice);
    return theta + s * qiga_delta(row, angles);
}

// Twin: ops::rotate.
__device__ __forceinline__ float qiga_rotate(float theta, bool x, bool b, bool flag, const float* angles, unsigned int sign_word, unsigned int sign_choice, unsigned int quadrant_rule)
{
    return qiga_rotate_table(QIGA_SIGN, theta, x, b, flag, angles, sign_word, sign_choice, quadrant_rule);
}

// Steps 3-4 for one individual: the index-order repair in place, then the profit summed in index order in
// f64. Twin: evo_benchmarks::Knapsack::repair_row (its module docs number the steps).
template <typename Value>
__device__ double qiga_repair_evaluate(unsigned char* x, const Value* weights, const Value* profits, unsigned int n, double capacity)
{
    double weight = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        if (x[i]) {
            weight += (double)weights[i];
        }
    }
    bool over = weight > capacity;
    for (unsigned int i = 0; i < n && over; ++i) {
        if (x[i]) {
            weight -= (double)weights[i];
        }
        x[i] = 0;
        over = weight > capacity;
    }
    int last = -1;
    for (unsigned int j = 0; j < n && !over; ++j) {
        if (!x[j]) {
            weight += (double)weights[j];
        }
        x[j] = 1;
        over = weight > capacity;
        last = (int)j;
    }
    if (last >= 0) {
        x[last] = 0;
    }
    double profit = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        if (x[i]) {
            profit += (double)profits[i];
        }
    }
    return profit;
}

#include "cuda/qiga_warp_repair.cuh"
#include "cuda/qiga_options.cuh"

// ---- The generation loop. A run's state lives either in the block's dynamic shared memory for the whole launch
// (QigaRunParams::shared_state == 1: loaded at the start, stored at the end; the host asks for it,
// crates/qiga/src/cuda/launch.rs shared_bytes, when it fits) or in global memory in place (else). Each thread
// owns quads: four consecutive genes 4q .. 4q + 3 of one individual i, the genes that Philox block q of the
// sequence (stream, generation, i) serves; it observes, rotates and copies its own quads only, so a phase
// needs no barrier inside it. In shared memory a row is padded to `stride` = n rounded up to 8, a quad moves
// as one float4 / one word (no bank conflicts) and the paper's repair reads octets (qiga_warp_repair_octets);
// the padding genes are computed and never stored.

// The weights' and profits' type in a layout: the global f32 arrays, or their f64 copies in shared memory.
template <bool kShared>
struct QigaValue {
    typedef float type;
};
template <>
struct QigaValue<true> {
    typedef double type;
};

// Where a run's state lives during a launch. Value is float (the global weights and profits) or double (their
// shared copies, converted once: the same values).
template <typename Value>
struct QigaRunState {
    float* theta;          // P rows of `stride` angles
    unsigned char* x;      // P rows of `stride` bits, one byte each
    unsigned char* b;      // n bytes
    double* f;             // P profits
    const Value* weights;  // n
    const Value* profits;  // n
    const double* lane_weights;  // the weights lane-major (qiga_lane_major), shared memory only
    const double* lane_profits;  // the profits alike
    unsigned int stride;
};

// The block's static scalars, shared by both layouts.
struct QigaBlockShared {
    float step[32];         // cell 4 * row + quadrant: the sign (its +-1 cells as +1) times the row's angle
    unsigned int either;    // bit cell set for the +-1 cells
    unsigned int window[2u * QIGA_LS_WINDOW];
    double best;            // f(b), the value of best_profit[run] during the launch
    unsigned int leader;    // step 5's first best individual of the generation
    bool improved;          // whether it replaces b
};

// The four angles of quad q of a row (0 past the row's end).
template <bool kShared>
__device__ __forceinline__ void qiga_load_quad(const float* row, unsigned int q, unsigned int n, float* t)
{
    if constexpr (kShared) {
        const float4 v = *reinterpret_cast<const float4*>(row + 4u * q);
        t[0] = v.x;
        t[1] = v.y;
        t[2] = v.z;
        t[3] = v.w;
    } else {
        for (unsigned int r = 0; r < 4u; ++r) {
            t[r] = 4u * q + r < n ? row[4u * q + r] : 0.0f;
        }
    }
}

template <bool kShared>
__device__ __forceinline__ void qiga_store_quad(float* row, unsigned int q, unsigned int n, const float* t)
{
    if constexpr (kShared) {
        *reinterpret_cast<float4*>(row + 4u * q) = make_float4(t[0], t[1], t[2], t[3]);
    } else {
        for (unsigned int r = 0; r < 4u && 4u * q + r < n; ++r) {
            row[4u * q + r] = t[r];
        }
    }
}

// The four bytes of quad q of a row, byte r in bits 8r .. 8r + 7 (0 past the row's end).
template <bool kShared>
__device__ __forceinline__ unsigned int qiga_load_bytes(const unsigned char* row, unsigned int q, unsigned int n)
{
    if constexpr (kShared) {
        return *reinterpret_cast<const unsigned int*>(row + 4u * q);
    } else {
        unsigned int v = 0u;
        for (unsigned int r = 0; r < 4u && 4u * q + r < n; ++r) {
            v |= (unsigned int)row[4u * q + r] << (8u * r);
        }
        return v;
    }
}

template <bool kShared>
__device__ __forceinline__ void qiga_store_bytes(unsigned char* row, unsigned int q, unsigned int n, unsigned int v)
{
    if constexpr (kShared) {
        *reinterpret_cast<unsigned int*>(row + 4u * q) = v;
    } else {
        for (unsigned int r = 0; r < 4u && 4u * q + r < n; ++r) {
            row[4u * q + r] = (unsigned char)(v >> (8u * r));
        }
    }
}

// A thread's quads t = threadIdx.x, threadIdx.x + blockDim.x, ... below P * quads, as (i, q) = (t / quads,
// t % quads), stepped without a division per quad: blockDim.x = di * quads + dq.
struct QigaQuadWalk {
    unsigned int i0;
    unsigned int q0;
    unsigned int di;
    unsigned int dq;
};

__device__ __forceinline__ QigaQuadWalk qiga_quad_walk(unsigned int quads)
{
    QigaQuadWalk w;
    w.i0 = threadIdx.x / quads;
    w.q0 = threadIdx.x - w.i0 * quads;
    w.di = blockDim.x / quads;
    w.dq = blockDim.x - w.di * quads;
    return w;
}

// The quad after (i, q) in a walk.
__device__ __forceinline__ void qiga_next_quad(const QigaQuadWalk& w, unsigned int quads, unsigned int& i, unsigned int& q)
{
    i += w.di;
    q += w.dq;
    if (q >= quads) {
        q -= quads;
        ++i;
    }
}

// Step 5's choice by one warp: the first individual of the largest profit (the serial loop `l = i when
// f[i] > f[l]`: each lane keeps the first best of its individuals, and the lanes' candidates merge by the
// larger profit, then the smaller index; profits are finite sums, never NaN), and whether it beats f(b).
__device__ __forceinline__ void qiga_warp_leader(const double* f, unsigned int pop, double previous, unsigned int lane, QigaBlockShared& sh)
{
    unsigned int l = lane < pop ? lane : 0u;
    double best = f[l];
    for (unsigned int i = lane + 32u; i < pop; i += 32u) {
        if (f[i] > best) {
            best = f[i];
            l = i;
        }
    }
    for (unsigned int o = 16u; o > 0u; o >>= 1) {
        const double other = __shfl_xor_sync(QIGA_FULL_MASK, best, o);
        const unsigned int other_l = __shfl_xor_sync(QIGA_FULL_MASK, l, o);
        if (other > best || (other == best && other_l < l)) {
            best = other;
            l = other_l;
        }
    }
    if (lane == 0u) {
        sh.leader = l;
        sh.improved = best > previous;
    }
}

// Twin: ops::rotate, with sign(cell) * delta(row) read from the block's table (qiga_step_table): the same f32
// product, negated for a +-1 cell whose sign word says -1 (-(1 * d) and (-1) * d are the same bits).
__device__ __forceinline__ float qiga_rotate_step(const QigaBlockShared& sh, float theta, bool x, bool b, bool flag, unsigned int sign_word, unsigned int sign_choice, unsigned int quadrant_rule)
{
    const unsigned int cell = 4u * qiga_rotation_row(x, b, flag) + qiga_quadrant(theta, quadrant_rule);
    float step = sh.step[cell];
    if (sign_choice == 1u && ((sh.either >> cell) & 1u) != 0u && (sign_word >> 31) != 0u) {
        step = -step;
    }
    return theta + step;
}

// The table of qiga_rotate_step for the run's angles, by warp 0.
__device__ __forceinline__ void qiga_step_table(QigaBlockShared& sh, const float* lut)
{
    const unsigned int cell = threadIdx.x;
    const int sign = QIGA_SIGN[cell / 4u][cell % 4u];
    sh.step[cell] = (sign == QIGA_EITHER ? 1.0f : (float)sign) * qiga_delta(cell / 4u, lut);
    const unsigned int either = __ballot_sync(QIGA_FULL_MASK, sign == QIGA_EITHER);
    if (cell == 0u) {
        sh.either = either;
    }
}

// Philox block q of the sequence (seed; stream, g, i), its key passed through an empty asm so that the compiler
// cannot hoist the ten round keys out of a thread's loop over quads: held in registers across the loop they
// were spilled, and reloading a spilled key costs more than the add that makes it.
__device__ __forceinline__ uint4 qiga_block(unsigned long long seed, unsigned int stream, unsigned int g, unsigned int i, unsigned int q)
{
    EvoSequence sequence = evo_sequence(seed, stream, g, i);
    asm volatile("" : "+r"(sequence.key.x), "+r"(sequence.key.y));
    return evo_sequence_block(sequence, q);
}

// Step 2 for quad q of individual i: qubit 4q + r observes word r of Philox block q.
template <bool kShared>
__device__ __forceinline__ void qiga_observe_quad(const QigaRunState<typename QigaValue<kShared>::type>& s, unsigned int i, unsigned int q, unsigned int n, unsigned long long seed, unsigned int stream, unsigned int g)
{
    const uint4 words = qiga_block(seed, stream, g, i, q);
    float t[4];
    qiga_load_quad<kShared>(s.theta + (size_t)i * s.stride, q, n, t);
    unsigned int bits = 0u;
    for (unsigned int r = 0; r < 4u; ++r) {
        if (qiga_observe(t[r], evo_uniform_f32(evo_uint4_word(words, r)))) {
            bits |= 1u << (8u * r);
        }
    }
    qiga_store_bytes<kShared>(s.x + (size_t)i * s.stride, q, n, bits);
}

// Generations first_generation .. first_generation + generations - 1 of one run (block = run) in the layout
// kShared. Generation 0 is the initial observation (no update). Steps 3-4 repair by `repair` (0: the paper's
// index order, 1: the greedy order of `order`), and step 5' (the local search of b) runs when `local_search` is
// 1 and step 5 replaced b. Per generation g: steps 3-4 | step 7 (rotate towards the b of g - 1, judged against
// its f(b)) | step 5 (b <- the leader's x) with step 2 of g + 1 (a thread copies its quads of the leader's row
// before it observes them again) | step 5' beside the next steps 3-4 (it touches b, they touch x and f).
// Inlined into both kernels, whose constant arguments fold the option branches away. Twin: cpu::run_generation,
// step numbers of the crate docs.
template <bool kShared>
__device__ __forceinline__ void qiga_generations_in(QigaBlockShared& sh, const float* weights, const float* profits, const unsigned int* order, unsigned long long seed, float* theta, unsigned char* observed, double* fitness, unsigned char* best, double* best_profit, const QigaRunParams& p, unsigned int repair, unsigned int local_search)
{
    using Value = typename QigaValue<kShared>::type;
    extern __shared__ __align__(16) unsigned char qiga_dynamic[];
    const unsigned int run = blockIdx.x;
    const unsigned int n = p.items;
    const unsigned int pop = p.population;
    const unsigned int genes = pop * n;
    const unsigned int quads = (n + 3u) / 4u;
    const QigaQuadWalk walk = qiga_quad_walk(quads);
    float* g_theta = theta + (size_t)run * genes;
    unsigned char* g_x = observed + (size_t)run * genes;
    double* g_f = fitness + (size_t)run * pop;
    unsigned char* g_b = best + (size_t)run * n;
    QigaRunState<Value> s;
    if constexpr (kShared) {
        // Layout (launch.rs, shared_bytes): theta, weights, profits, rows and arrays of `stride` (n rounded up
        // to 8: a quad moves as one float4, an octet of bytes as one uint2), the lane-major weights and profits
        // over whole chunks of 256, f, x, b; past n the weights and profits are 0 and x and b start at 0.
        s.stride = (n + 7u) & ~7u;
        const unsigned int chunked = (n + 255u) & ~255u;
        float* sh_theta = reinterpret_cast<float*>(qiga_dynamic);
        double* sh_weights = reinterpret_cast<double*>(sh_theta + (size_t)pop * s.stride);
        double* sh_profits = sh_weights + s.stride;
        double* sh_lane_weights = sh_profits + s.stride;
        double* sh_lane_profits = sh_lane_weights + chunked;
        s.f = sh_lane_profits + chunked;
        s.x = reinterpret_cast<unsigned char*>(s.f + pop);
        s.b = s.x + (size_t)pop * s.stride;
        s.theta = sh_theta;
        s.weights = sh_weights;
        s.profits = sh_profits;
        s.lane_weights = sh_lane_weights;
        s.lane_profits = sh_lane_profits;
        for (unsigned int j = threadIdx.x; j < chunked; j += blockDim.x) {
            sh_lane_weights[qiga_lane_major(j)] = j < n ? (double)weights[j] : 0.0;
            sh_lane_profits[qiga_lane_major(j)] = j < n ? (double)profits[j] : 0.0;
        }
        for (unsigned int k = threadIdx.x; k < pop * s.stride; k += blockDim.x) {
            const unsigned int i = k / s.stride;
            const unsigned int j = k - i * s.stride;
            sh_theta[k] = j >= n ? 0.0f : p.initial_theta == 1u ? QIGA_INITIAL_ANGLE : g_theta[(size_t)i * n + j];
            s.x[k] = 0;
        }
        for (unsigned int j = threadIdx.x; j < s.stride; j += blockDim.x) {
            s.b[j] = j < n ? g_b[j] : 0;
            sh_weights[j] = j < n ? (double)weights[j] : 0.0;
            sh_profits[j] = j < n ? (double)profits[j] : 0.0;
        }
    } else {
        s.stride = n;
        s.theta = g_theta;
        s.x = g_x;
        s.b = g_b;
        s.f = g_f;
        s.weights = weights;
        s.profits = profits;
        s.lane_weights = nullptr;
        s.lane_profits = nullptr;
        if (p.initial_theta == 1u) {
            for (unsigned int k = threadIdx.x; k < genes; k += blockDim.x) {
                g_theta[k] = QIGA_INITIAL_ANGLE;
            }
        }
    }
    __syncthreads();
    const unsigned int end = p.first_generation + p.generations;
    unsigned int g = p.first_generation;
    for (unsigned int i = walk.i0, q = walk.q0; i < pop; qiga_next_quad(walk, quads, i, q)) {
        qiga_observe_quad<kShared>(s, i, q, n, seed, p.observe_stream, g);
    }
    __syncthreads();
    for (;;) {
        // Steps 3-4: repair and evaluate, a warp per individual when the sums are exact, else one thread.
        if (p.exact_sums == 1u) {
            const unsigned int lane = threadIdx.x & 31u;
            for (unsigned int i = threadIdx.x >> 5; i < pop; i += blockDim.x >> 5) {
                unsigned char* xi = s.x + (size_t)i * s.stride;
                double profit;
                if (repair == 1u) {
                    profit = qiga_warp_greedy_repair_evaluate(xi, s.weights, s.profits, order, n, p.capacity, lane);
                } else if constexpr (kShared) {
                    profit = qiga_warp_repair_octets(xi, s.lane_weights, s.lane_profits, n, s.stride, p.capacity, lane);
                } else {
                    profit = qiga_warp_repair_evaluate(xi, s.weights, s.profits, n, p.capacity, lane);
                }
                if (lane == 0u) {
                    s.f[i] = profit;
                }
            }
        } else if (threadIdx.x < pop) {
            unsigned char* xi = s.x + (size_t)threadIdx.x * s.stride;
            s.f[threadIdx.x] = repair == 1u ? qiga_greedy_repair_evaluate(xi, s.weights, s.profits, order, n, p.capacity)
                                            : qiga_repair_evaluate(xi, s.weights, s.profits, n, p.capacity);
        }
        __syncthreads();
        // Step 7: rotate towards b, judged against the best of the previous generations; beside it, step 5's
        // choice (first best on ties), published for the next phase, by the last warp (whose share of the
        // quads is never larger than warp 0's).
        const double previous = sh.best;
        if (threadIdx.x >= blockDim.x - 32u) {
            qiga_warp_leader(s.f, pop, previous, threadIdx.x & 31u, sh);
        }
        if (g > 0u) {
            for (unsigned int i = walk.i0, q = walk.q0; i < pop; qiga_next_quad(walk, quads, i, q)) {
                const bool flag = s.f[i] >= previous;
                uint4 sign_words = make_uint4(0u, 0u, 0u, 0u);
                if (p.sign_choice == 1u) {
                    sign_words = qiga_block(seed, p.sign_stream, g, i, q);
                }
                float* row = s.theta + (size_t)i * s.stride;
                float th[4];
                qiga_load_quad<kShared>(row, q, n, th);
                const unsigned int xq = qiga_load_bytes<kShared>(s.x + (size_t)i * s.stride, q, n);
                const unsigned int bq = qiga_load_bytes<kShared>(s.b, q, n);
                for (unsigned int r = 0; r < 4u; ++r) {
                    const bool xr = ((xq >> (8u * r)) & 0xffu) != 0u;
                    const bool br = ((bq >> (8u * r)) & 0xffu) != 0u;
                    th[r] = qiga_rotate_step(sh, th[r], xr, br, flag, evo_uint4_word(sign_words, r), p.sign_choice, p.quadrant_rule);
                }
                qiga_store_quad<kShared>(row, q, n, th);
            }
        }
        __syncthreads();
        // Step 5: the generation's best replaces b when strictly better; then step 2 of the next generation.
        const bool more = g + 1u < end;
        const bool improved = sh.improved;
        const unsigned int leader = sh.leader;
        if (improved || more) {
            for (unsigned int i = walk.i0, q = walk.q0; i < pop; qiga_next_quad(walk, quads, i, q)) {
                if (improved && i == leader) {
                    qiga_store_bytes<kShared>(s.b, q, n, qiga_load_bytes<kShared>(s.x + (size_t)i * s.stride, q, n));
                }
                if (more) {
                    qiga_observe_quad<kShared>(s, i, q, n, seed, p.observe_stream, g + 1u);
                }
            }
        }
        if (improved && threadIdx.x == 0) {
            sh.best = s.f[leader];
        }
        __syncthreads();
        if (local_search == 1u && improved) {
            // Step 5': improve the new b, by warp 0 when the sums are exact, else by thread 0. The next reader of
            // b and f(b) is step 7 of the next generation, after the barrier that ends its steps 3-4.
            if (p.exact_sums == 1u && threadIdx.x < 32u) {
                const double profit = qiga_warp_local_search(s.b, s.weights, s.profits, order, n, p.capacity, threadIdx.x, sh.window);
                if (threadIdx.x == 0u) {
                    sh.best = profit;
                }
            } else if (p.exact_sums != 1u && threadIdx.x == 0u) {
                sh.best = qiga_local_search(s.b, s.weights, s.profits, order, n, p.capacity);
            }
        }
        if (!more) {
            break;
        }
        ++g;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        best_profit[run] = sh.best;
    }
    if constexpr (kShared) {
        for (unsigned int k = threadIdx.x; k < genes; k += blockDim.x) {
            const unsigned int i = k / n;
            const size_t at = (size_t)i * s.stride + (k - i * n);
            g_theta[k] = s.theta[at];
            g_x[k] = s.x[at];
        }
        for (unsigned int j = threadIdx.x; j < n; j += blockDim.x) {
            g_b[j] = s.b[j];
        }
        for (unsigned int i = threadIdx.x; i < pop; i += blockDim.x) {
            g_f[i] = s.f[i];
        }
    }
}

// The global-memory layout, a separate function so that its register allocation does not constrain the
// shared-memory layout's (a register budget is per function).
__device__ __noinline__ void qiga_generations_global(QigaBlockShared& sh, const float* weights, const float* profits, const unsigned int* order, unsigned long long seed, float* theta, unsigned char* observed, double* fitness, unsigned char* best, double* best_profit, const QigaRunParams& p, unsigned int repair, unsigned int local_search)
{
    qiga_generations_in<false>(sh, weights, profits, order, seed, theta, observed, fitness, best, best_profit, p, repair, local_search);
}

// Both layouts behind one call: the kernels' entry into the generation loop.
__device__ __forceinline__ void qiga_generations(const float* weights, const float* profits, const unsigned int* order, const unsigned long long* seeds, const float* angles, float* theta, unsigned char* observed, double* fitness, unsigned char* best, double* best_profit, const QigaRunParams& p, unsigned int repair, unsigned int local_search)
{
    __shared__ QigaBlockShared sh;
    const unsigned int run = blockIdx.x;
    if (run >= p.runs || p.generations == 0u) {
        return;
    }
    if (threadIdx.x < 32u) {
        float lut[5];
        for (int k = 0; k < 5; ++k) {
            lut[k] = angles[run * 5u + k];
        }
        qiga_step_table(sh, lut);
    }
    if (threadIdx.x == 0) {
        sh.best = best_profit[run];
    }
    const unsigned long long seed = seeds[run];
    if (p.shared_state == 1u) {
        qiga_generations_in<true>(sh, weights, profits, order, seed, theta, observed, fitness, best, best_profit, p, repair, local_search);
    } else {
        qiga_generations_global(sh, weights, profits, order, seed, theta, observed, fitness, best, best_profit, p, repair, local_search);
    }
}

// The register budget of the generation kernels: 40 lets 6 blocks of 256 threads share an SM (64 K registers)
// where the unbounded allocation (72, the Philox round keys hoisted out of the loops) lets 3; the few values
// spilled are reloaded from L1 outside the per-gene arithmetic.
#define QIGA_MAX_REGISTERS 40

// The paper's generations of every run (block = run): qiga_generations with every option off.
extern "C" __global__ void __maxnreg__(QIGA_MAX_REGISTERS) qiga_run_generations(const float* weights, const float* profits, const unsigned long long* seeds, const float* angles, float* theta, unsigned char* observed, double* fitness, unsigned char* best, double* best_profit, QigaRunParams p)
{
    qiga_generations(weights, profits, nullptr, seeds, angles, theta, observed, fitness, best, best_profit, p, 0u, 0u);
}

// qiga_run_generations with the options: the repair of steps 3-4 by `repair`, and step 5' (the local search
// of b, on thread 0) whenever step 5 replaces b. The initial b (the greedy seed) is uploaded by the host.
// Twin: cpu::run_generation.
extern "C" __global__ void __maxnreg__(QIGA_MAX_REGISTERS) qiga_run_generations_options(const float* weights, const float* profits, const unsigned int* order, const unsigned long long* seeds, const float* angles, float* theta, unsigned char* observed, double* fitness, unsigned char* best, double* best_profit, QigaOptionParams o)
{
    qiga_generations(weights, profits, order, seeds, angles, theta, observed, fitness, best, best_profit, o.run, o.repair, o.local_search);
}

#include "cuda/qiga_sga.cuh"
#include "cuda/qiga_bits.cuh"
