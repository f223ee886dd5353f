// The evaluation kernel of a user's bit-string problem (evo_ga::UserBits, ARCHITECTURE §5 way 1).
// Launcher: crates/ga/src/cuda/user_eval.rs. CPU twin: the fitness closure UserBits is built with.
//
// A user module includes this header twice around the user's source (which NVRTC sees under `#line 1`, so its
// log gives the user's line numbers): first for the helpers the source may use, then, with
// EVO_USER_BITS_KERNEL defined, for the kernel. The source defines
//   __device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits);
// the fitness (minimised) of one packed individual: bit i is (bits[i / 32] >> (i % 32)) & 1, the layout of
// evo_core::Bits and of GA's CUDA engine; `bits` holds ceil(n_bits / 32) words whose padding bits are zero.
// evo_bit(bits, i) reads bit i. A problem with read-only data arrays (UserBits::with_data) defines instead
//   __device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits,
//                                      const EvoUserData& data);
// where data.<name> and data.<name>_len are its arrays; the prelude defines EVO_USER_DATA and struct
// EvoUserData (evo_benchmarks::cuda::UserData::cuda_declarations) before this header. Every module's kernel
// takes the two concatenated data buffers (one-value placeholders without data).
//
// Work split: thread r evaluates row r (a whole individual per thread, since the function sees the whole
// string). A fitness that is not finite records its row in status[0] (atomicMin: the lowest such row) and its
// value in bad[r]; the launcher reads them back when the engine asks (BitEvaluator::check), so an evaluation
// queues work only and may be recorded into a CUDA graph.

#ifndef EVO_USER_BITS_KERNEL
#ifndef EVO_USER_BITS_HELPERS
#define EVO_USER_BITS_HELPERS

#include "common/launch.cuh"

// Scalar arguments of the kernel; mirrored by `UserBitsParams` in crates/ga/src/cuda/user_eval.rs.
struct EvoUserBitsParams {
    unsigned long long rows;   // individuals
    unsigned long long words;  // words per row, ceil(bits / 32)
    unsigned long long bits;   // L, bits per row
};
static_assert(sizeof(EvoUserBitsParams) == 24, "EvoUserBitsParams must match its Rust mirror");

// Bit i of a packed row.
__device__ __forceinline__ unsigned int evo_bit(const unsigned int* bits, unsigned long long i)
{
    return (bits[i >> 5] >> (unsigned int)(i & 31ull)) & 1u;
}

#endif
#else

// Compiles only when the user's evo_user_fitness has exactly the contract's parameters and result: a
// definition with other parameters would otherwise be an overload that the kernel's call converts its
// arguments to (or a wrong result type would be converted silently).
__device__ __forceinline__ void evo_user_bits_check_signature()
{
#ifdef EVO_USER_DATA
    double (*const fitness)(const unsigned int*, unsigned long long, const EvoUserData&) = evo_user_fitness;
#else
    double (*const fitness)(const unsigned int*, unsigned long long) = evo_user_fitness;
#endif
    (void)fitness;
}

extern "C" __global__ void evo_user_bits_fitness(const unsigned int* population, const float* data32,
                                                 const double* data64, double* fitness, double* bad,
                                                 unsigned int* status, EvoUserBitsParams p)
{
    evo_wait_previous_grid();
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= p.rows) {
        return;
    }
#ifdef EVO_USER_DATA
    const double f = evo_user_fitness(population + r * p.words, p.bits, evo_user_data(data32, data64));
#else
    (void)data32;
    (void)data64;
    const double f = evo_user_fitness(population + r * p.words, p.bits);
#endif
    fitness[r] = f;
    if (!isfinite(f)) {
        bad[r] = f;
        atomicMin(status, (unsigned int)r);
    }
}

#endif
