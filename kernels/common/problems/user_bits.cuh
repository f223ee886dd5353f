// The evaluation kernel of a user's bit-string problem (evo_ga::UserBits, ARCHITECTURE §5 way 1).
// Launcher: crates/ga/src/cuda/user_eval.rs. CPU twin: the fitness closure UserBits is built with.
//
// A user module is this header after a one-line prelude, then the user's source (under `#line 1`, so NVRTC's
// log gives the user's line numbers), which defines
//   __device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits);
// the fitness (minimised) of one packed individual: bit i is (bits[i / 32] >> (i % 32)) & 1, the layout of
// evo_core::Bits and of GA's CUDA engine; the words hold ceil(n_bits / 32) words whose padding bits are zero.
// evo_bit(bits, i) reads bit i. The declaration below lets the kernel call the user's definition, which comes
// later in the module.
//
// Work split: thread r evaluates row r (a whole individual per thread, since the function sees the whole
// string). A fitness that is not finite records its row in status[0] (atomicMin: the lowest such row) and its
// value in bad[r]; the launcher reads them back when the engine asks (BitEvaluator::check), so an evaluation
// queues work only and may be recorded into a CUDA graph.
#pragma once

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

__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits);

extern "C" __global__ void evo_user_bits_fitness(const unsigned int* population, double* fitness, double* bad,
                                                 unsigned int* status, EvoUserBitsParams p)
{
    evo_wait_previous_grid();
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= p.rows) {
        return;
    }
    const double f = evo_user_fitness(population + r * p.words, p.bits);
    fitness[r] = f;
    if (!isfinite(f)) {
        bad[r] = f;
        atomicMin(status, (unsigned int)r);
    }
}
