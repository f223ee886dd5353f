// cuRAND-compatible XORWOW (Rust twin: evo_rng::CurandXorwow; spec rng.md §3). curand_init's jumps use GF(2)
// matrix powers passed in by the host (evo_rng::gf2::JumpTables::flatten): table entry (i*160 + k)*5 + w is
// word w of column k of matrix i; `offset_table` holds A^(2^i), `subsequence_table` A^(2^(67+i)), i = 0..63.
#pragma once
#include "common/rng/convert.cuh"

#define EVO_XORWOW_WEYL 362437u

struct EvoXorwow {
    unsigned int d;
    unsigned int v[5];
    bool has_cached_normal;
    float cached_normal;
};

// Rust twin: evo_rng::gf2::apply (matrix by columns times v).
__device__ inline void evo_gf2_apply(const unsigned int* matrix, unsigned int v[5])
{
    unsigned int out[5] = {0u, 0u, 0u, 0u, 0u};
    for (unsigned int k = 0; k < 160; ++k) {
        if ((v[k / 32] >> (k % 32)) & 1u) {
            const unsigned int* column = matrix + k * 5;
#pragma unroll
            for (int w = 0; w < 5; ++w) {
                out[w] ^= column[w];
            }
        }
    }
#pragma unroll
    for (int w = 0; w < 5; ++w) {
        v[w] = out[w];
    }
}

// Rust twin: gf2::jump: applies table[i] for every set bit i of n.
__device__ inline void evo_gf2_jump(const unsigned int* table, unsigned int v[5], unsigned long long n)
{
    for (unsigned int i = 0; n != 0; ++i, n >>= 1) {
        if (n & 1ull) {
            evo_gf2_apply(table + (unsigned long long)i * 160u * 5u, v);
        }
    }
}

// Rust twin: CurandXorwow::new (curand_init(seed, subsequence, offset)).
__device__ inline EvoXorwow evo_xorwow_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset, const unsigned int* offset_table, const unsigned int* subsequence_table)
{
    const unsigned int s0 = (unsigned int)seed ^ 0xaad26b49u;
    const unsigned int s1 = (unsigned int)(seed >> 32) ^ 0xf7dcefddu;
    const unsigned int t0 = 1099087573u * s0;
    const unsigned int t1 = 2591861531u * s1;
    EvoXorwow s;
    s.d = 6615241u + t1 + t0;
    s.v[0] = 123456789u + t0;
    s.v[1] = 362436069u ^ t0;
    s.v[2] = 521288629u + t1;
    s.v[3] = 88675123u ^ t1;
    s.v[4] = 5783321u + t0;
    evo_gf2_jump(subsequence_table, s.v, subsequence);
    evo_gf2_jump(offset_table, s.v, offset);
    s.d += EVO_XORWOW_WEYL * (unsigned int)offset;
    s.has_cached_normal = false;
    s.cached_normal = 0.0f;
    return s;
}

// Rust twin: CurandXorwow::next_word (curand()).
__device__ __forceinline__ unsigned int evo_xorwow_next(EvoXorwow* s)
{
    const unsigned int t = s->v[0] ^ (s->v[0] >> 2);
    s->v[0] = s->v[1];
    s->v[1] = s->v[2];
    s->v[2] = s->v[3];
    s->v[3] = s->v[4];
    s->v[4] = (s->v[4] ^ (s->v[4] << 4)) ^ (t ^ (t << 1));
    s->d += EVO_XORWOW_WEYL;
    return s->v[4] + s->d;
}

// Rust twin: CurandXorwow::normal_f32 (curand_normal: sine now, cosine cached).
__device__ __forceinline__ float evo_xorwow_normal_f32(EvoXorwow* s)
{
    if (s->has_cached_normal) {
        s->has_cached_normal = false;
        return s->cached_normal;
    }
    const unsigned int x = evo_xorwow_next(s);
    const unsigned int y = evo_xorwow_next(s);
    const float2 pair = evo_box_muller(x, y);
    s->has_cached_normal = true;
    s->cached_normal = pair.y;
    return pair.x;
}
