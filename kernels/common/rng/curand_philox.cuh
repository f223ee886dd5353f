// cuRAND-compatible Philox4_32_10 stream (Rust twin: evo_rng::CurandPhilox; spec rng.md §2).
#pragma once
#include "common/rng/convert.cuh"
#include "common/rng/philox.cuh"

struct EvoCurandPhilox {
    uint4 counter;
    uint2 key;
    uint4 output;
    unsigned int position;
    bool has_cached_normal;
    float cached_normal;
};

// Rust twin: CurandPhilox::skip_subsequences (64-bit add to counter words 2, 3).
__device__ __forceinline__ void evo_curand_philox_skip_subsequences(EvoCurandPhilox* s, unsigned long long n)
{
    const unsigned long long high = ((unsigned long long)s->counter.w << 32 | s->counter.z) + n;
    s->counter.z = (unsigned int)high;
    s->counter.w = (unsigned int)(high >> 32);
    s->output = evo_philox4x32_10(s->counter, s->key);
}

// Rust twin: CurandPhilox::advance (skipahead).
__device__ __forceinline__ void evo_curand_philox_advance(EvoCurandPhilox* s, unsigned long long n)
{
    unsigned long long position = (unsigned long long)s->position + (n % 4);
    unsigned long long blocks = n / 4;
    if (position > 3) {
        blocks += 1;
        position -= 4;
    }
    s->position = (unsigned int)position;
    s->counter = evo_philox_counter_add(s->counter, blocks);
    s->output = evo_philox4x32_10(s->counter, s->key);
}

// Rust twin: CurandPhilox::new (curand_init(seed, subsequence, offset)).
__device__ __forceinline__ EvoCurandPhilox evo_curand_philox_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset)
{
    EvoCurandPhilox s;
    s.counter = make_uint4(0u, 0u, 0u, 0u);
    s.key = evo_philox_key(seed);
    s.output = evo_philox4x32_10(s.counter, s.key);
    s.position = 0;
    s.has_cached_normal = false;
    s.cached_normal = 0.0f;
    evo_curand_philox_skip_subsequences(&s, subsequence);
    evo_curand_philox_advance(&s, offset);
    return s;
}

// Rust twin: CurandPhilox::next_word (curand()).
__device__ __forceinline__ unsigned int evo_curand_philox_next(EvoCurandPhilox* s)
{
    const unsigned int word = evo_uint4_word(s->output, s->position);
    s->position += 1;
    if (s->position == 4) {
        s->counter = evo_philox_counter_add(s->counter, 1ull);
        s->output = evo_philox4x32_10(s->counter, s->key);
        s->position = 0;
    }
    return word;
}

// Rust twin: CurandPhilox::normal_f32 (curand_normal).
__device__ __forceinline__ float evo_curand_philox_normal_f32(EvoCurandPhilox* s)
{
    if (s->has_cached_normal) {
        s->has_cached_normal = false;
        return s->cached_normal;
    }
    const unsigned int x = evo_curand_philox_next(s);
    const unsigned int y = evo_curand_philox_next(s);
    const float2 pair = evo_box_muller(x, y);
    s->has_cached_normal = true;
    s->cached_normal = pair.y;
    return pair.x;
}
