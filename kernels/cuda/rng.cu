// Fill kernels of every generator and conversion (kernel module `rng`): the equivalence suite checks them
// against evo-rng's CPU fills (crates/rng/src/fill.rs) and the benches time them.
//
// Addressed Philox (`rng_philox_fill_*`): out[j] is draw j of the sequence (seed; stream, step, individual);
// each thread produces one lane (4 words) per grid-stride iteration and stores it with one vector store when
// the lane is whole. Paper generators (`rng_<gen>_fill_*`): T = p.threads generators, thread t draws
// p.per_thread values in order and writes draw i to out[t + i*T] (coalesced; the GA paper's layout).
#include "common/rng.cuh"

// Scalar arguments of every rng fill kernel; mirrored by `FillParams` in crates/rng/src/cuda/launch.rs.
struct RngFillParams {
    unsigned long long seed;         // the 64-bit seed (Philox key; curand_init seed)
    unsigned long long subsequence;  // paper generators: thread t uses subsequence + t
    unsigned long long offset;       // paper generators: curand_init offset
    unsigned long long n;            // addressed Philox: number of outputs
    unsigned int stream;             // addressed Philox: counter word 3
    unsigned int step;               // addressed Philox: counter word 2
    unsigned int individual;         // addressed Philox: counter word 1
    unsigned int bound;              // `below`: draws lie in [0, bound)
    unsigned int threads;            // paper generators: number of generator threads T
    unsigned int per_thread;         // paper generators: draws per thread
};
static_assert(sizeof(RngFillParams) == 56, "RngFillParams must match its Rust mirror (56 bytes)");

__device__ __forceinline__ unsigned long long evo_global_thread()
{
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ unsigned long long evo_grid_threads()
{
    return (unsigned long long)blockDim.x * gridDim.x;
}

// ---- Addressed Philox. Twin: evo_rng::fill::philox_*.

extern "C" __global__ void rng_philox_fill_u32(unsigned int* out, RngFillParams p)
{
    const EvoSequence s = evo_sequence(p.seed, p.stream, p.step, p.individual);
    const unsigned long long lanes = (p.n + 3) / 4;
    for (unsigned long long lane = evo_global_thread(); lane < lanes; lane += evo_grid_threads()) {
        const uint4 b = evo_sequence_block(s, (unsigned int)lane);
        const unsigned long long j = lane * 4;
        if (j + 4 <= p.n) {
            reinterpret_cast<uint4*>(out)[lane] = b;
        } else {
            for (unsigned int i = 0; j + i < p.n; ++i) {
                out[j + i] = evo_uint4_word(b, i);
            }
        }
    }
}

extern "C" __global__ void rng_philox_fill_uniform_f32(float* out, RngFillParams p)
{
    const EvoSequence s = evo_sequence(p.seed, p.stream, p.step, p.individual);
    const unsigned long long lanes = (p.n + 3) / 4;
    for (unsigned long long lane = evo_global_thread(); lane < lanes; lane += evo_grid_threads()) {
        const uint4 b = evo_sequence_block(s, (unsigned int)lane);
        const float4 u = make_float4(evo_uniform_f32(b.x), evo_uniform_f32(b.y), evo_uniform_f32(b.z), evo_uniform_f32(b.w));
        const unsigned long long j = lane * 4;
        if (j + 4 <= p.n) {
            reinterpret_cast<float4*>(out)[lane] = u;
        } else {
            const float values[4] = {u.x, u.y, u.z, u.w};
            for (unsigned int i = 0; j + i < p.n; ++i) {
                out[j + i] = values[i];
            }
        }
    }
}

extern "C" __global__ void rng_philox_fill_uniform_f64(double* out, RngFillParams p)
{
    const EvoSequence s = evo_sequence(p.seed, p.stream, p.step, p.individual);
    const unsigned long long lanes = (p.n + 1) / 2;
    for (unsigned long long lane = evo_global_thread(); lane < lanes; lane += evo_grid_threads()) {
        const uint4 b = evo_sequence_block(s, (unsigned int)lane);
        const unsigned long long q = lane * 2;
        out[q] = evo_uniform_f64(b.x, b.y);
        if (q + 1 < p.n) {
            out[q + 1] = evo_uniform_f64(b.z, b.w);
        }
    }
}

extern "C" __global__ void rng_philox_fill_below(unsigned int* out, RngFillParams p)
{
    const EvoSequence s = evo_sequence(p.seed, p.stream, p.step, p.individual);
    const unsigned long long lanes = (p.n + 3) / 4;
    for (unsigned long long lane = evo_global_thread(); lane < lanes; lane += evo_grid_threads()) {
        const uint4 b = evo_sequence_block(s, (unsigned int)lane);
        const unsigned int values[4] = {evo_below(b.x, p.bound), evo_below(b.y, p.bound), evo_below(b.z, p.bound), evo_below(b.w, p.bound)};
        const unsigned long long j = lane * 4;
        for (unsigned int i = 0; i < 4 && j + i < p.n; ++i) {
            out[j + i] = values[i];
        }
    }
}

extern "C" __global__ void rng_philox_fill_normal_f32(float* out, RngFillParams p)
{
    const EvoSequence s = evo_sequence(p.seed, p.stream, p.step, p.individual);
    const unsigned long long lanes = (p.n + 3) / 4;
    for (unsigned long long lane = evo_global_thread(); lane < lanes; lane += evo_grid_threads()) {
        const float4 z = evo_sequence_normals4(s, (unsigned int)lane);
        const unsigned long long j = lane * 4;
        if (j + 4 <= p.n) {
            reinterpret_cast<float4*>(out)[lane] = z;
        } else {
            const float values[4] = {z.x, z.y, z.z, z.w};
            for (unsigned int i = 0; j + i < p.n; ++i) {
                out[j + i] = values[i];
            }
        }
    }
}

// ---- Paper generators: one state per thread, out[t + i*T]. Twin: evo_rng::fill::per_thread.

// Draws p.per_thread values from `state` with `draw` and writes them in the strided layout.
template <typename State, typename T, typename Draw>
__device__ __forceinline__ void evo_fill_strided(State* state, T* out, RngFillParams p, unsigned long long t, Draw draw)
{
    for (unsigned int i = 0; i < p.per_thread; ++i) {
        out[t + (unsigned long long)i * p.threads] = draw(state);
    }
}

struct DrawXor128U32 {
    __device__ unsigned int operator()(EvoXor128* s) const { return evo_xor128_next(s); }
};
struct DrawXor128UniformF32 {
    __device__ float operator()(EvoXor128* s) const { return evo_uniform_f32(evo_xor128_next(s)); }
};
struct DrawXor128UniformF64 {
    __device__ double operator()(EvoXor128* s) const
    {
        const unsigned int first = evo_xor128_next(s);
        const unsigned int second = evo_xor128_next(s);
        return evo_uniform_f64(first, second);
    }
};

// xor128 threads start from `states` (x, y, z, w per thread) and store their final state back.
template <typename T, typename Draw>
__device__ __forceinline__ void evo_xor128_fill(uint4* states, T* out, RngFillParams p, Draw draw)
{
    const unsigned long long t = evo_global_thread();
    if (t >= p.threads) {
        return;
    }
    const uint4 start = states[t];
    EvoXor128 s = {start.x, start.y, start.z, start.w};
    evo_fill_strided(&s, out, p, t, draw);
    states[t] = make_uint4(s.x, s.y, s.z, s.w);
}

extern "C" __global__ void rng_xor128_fill_u32(uint4* states, unsigned int* out, RngFillParams p) { evo_xor128_fill(states, out, p, DrawXor128U32()); }
extern "C" __global__ void rng_xor128_fill_uniform_f32(uint4* states, float* out, RngFillParams p) { evo_xor128_fill(states, out, p, DrawXor128UniformF32()); }
extern "C" __global__ void rng_xor128_fill_uniform_f64(uint4* states, double* out, RngFillParams p) { evo_xor128_fill(states, out, p, DrawXor128UniformF64()); }

struct DrawXorwowU32 {
    __device__ unsigned int operator()(EvoXorwow* s) const { return evo_xorwow_next(s); }
};
struct DrawXorwowUniformF32 {
    __device__ float operator()(EvoXorwow* s) const { return evo_uniform_f32(evo_xorwow_next(s)); }
};
struct DrawXorwowUniformF64 {
    __device__ double operator()(EvoXorwow* s) const
    {
        const unsigned int first = evo_xorwow_next(s);
        const unsigned int second = evo_xorwow_next(s);
        return evo_uniform_f64(first, second);
    }
};
struct DrawXorwowNormalF32 {
    __device__ float operator()(EvoXorwow* s) const { return evo_xorwow_normal_f32(s); }
};

// Thread t runs curand_init(seed, subsequence + t, offset) with the host's jump tables, then draws.
template <typename T, typename Draw>
__device__ __forceinline__ void evo_xorwow_fill(const unsigned int* offset_table, const unsigned int* subsequence_table, T* out, RngFillParams p, Draw draw)
{
    const unsigned long long t = evo_global_thread();
    if (t >= p.threads) {
        return;
    }
    EvoXorwow s = evo_xorwow_init(p.seed, p.subsequence + t, p.offset, offset_table, subsequence_table);
    evo_fill_strided(&s, out, p, t, draw);
}

extern "C" __global__ void rng_curand_xorwow_fill_u32(const unsigned int* offset_table, const unsigned int* subsequence_table, unsigned int* out, RngFillParams p) { evo_xorwow_fill(offset_table, subsequence_table, out, p, DrawXorwowU32()); }
extern "C" __global__ void rng_curand_xorwow_fill_uniform_f32(const unsigned int* offset_table, const unsigned int* subsequence_table, float* out, RngFillParams p) { evo_xorwow_fill(offset_table, subsequence_table, out, p, DrawXorwowUniformF32()); }
extern "C" __global__ void rng_curand_xorwow_fill_uniform_f64(const unsigned int* offset_table, const unsigned int* subsequence_table, double* out, RngFillParams p) { evo_xorwow_fill(offset_table, subsequence_table, out, p, DrawXorwowUniformF64()); }
extern "C" __global__ void rng_curand_xorwow_fill_normal_f32(const unsigned int* offset_table, const unsigned int* subsequence_table, float* out, RngFillParams p) { evo_xorwow_fill(offset_table, subsequence_table, out, p, DrawXorwowNormalF32()); }

struct DrawPhiloxU32 {
    __device__ unsigned int operator()(EvoCurandPhilox* s) const { return evo_curand_philox_next(s); }
};
struct DrawPhiloxUniformF32 {
    __device__ float operator()(EvoCurandPhilox* s) const { return evo_uniform_f32(evo_curand_philox_next(s)); }
};
struct DrawPhiloxUniformF64 {
    __device__ double operator()(EvoCurandPhilox* s) const
    {
        const unsigned int first = evo_curand_philox_next(s);
        const unsigned int second = evo_curand_philox_next(s);
        return evo_uniform_f64(first, second);
    }
};
struct DrawPhiloxNormalF32 {
    __device__ float operator()(EvoCurandPhilox* s) const { return evo_curand_philox_normal_f32(s); }
};

// Thread t runs curand_init(seed, subsequence + t, offset), then draws.
template <typename T, typename Draw>
__device__ __forceinline__ void evo_curand_philox_fill(T* out, RngFillParams p, Draw draw)
{
    const unsigned long long t = evo_global_thread();
    if (t >= p.threads) {
        return;
    }
    EvoCurandPhilox s = evo_curand_philox_init(p.seed, p.subsequence + t, p.offset);
    evo_fill_strided(&s, out, p, t, draw);
}

extern "C" __global__ void rng_curand_philox_fill_u32(unsigned int* out, RngFillParams p) { evo_curand_philox_fill(out, p, DrawPhiloxU32()); }
extern "C" __global__ void rng_curand_philox_fill_uniform_f32(float* out, RngFillParams p) { evo_curand_philox_fill(out, p, DrawPhiloxUniformF32()); }
extern "C" __global__ void rng_curand_philox_fill_uniform_f64(double* out, RngFillParams p) { evo_curand_philox_fill(out, p, DrawPhiloxUniformF64()); }
extern "C" __global__ void rng_curand_philox_fill_normal_f32(float* out, RngFillParams p) { evo_curand_philox_fill(out, p, DrawPhiloxNormalF32()); }
