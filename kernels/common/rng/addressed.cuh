// The workspace's default generator: Philox4x32-10 addressed by (seed; stream, step, individual, lane)
// (Rust twin: evo_rng::Philox and evo_rng::Sequence; the diagram is in crates/rng/src/addressed.rs).
// Counter = (lane, individual, step, stream), key = (seed low, seed high). Word j of a sequence is word
// j mod 4 of the block at lane j div 4; normals come four per lane as curand_normal4.
#pragma once
#include "common/rng/convert.cuh"
#include "common/rng/philox.cuh"

// One (stream, step, individual) address under one key (Rust: evo_rng::Sequence).
struct EvoSequence {
    uint2 key;
    unsigned int individual;
    unsigned int step;
    unsigned int stream;
};

// Rust twin: evo_rng::Philox::sequence.
__device__ __forceinline__ EvoSequence evo_sequence(unsigned long long seed, unsigned int stream, unsigned int step, unsigned int individual)
{
    EvoSequence s;
    s.key = evo_philox_key(seed);
    s.individual = individual;
    s.step = step;
    s.stream = stream;
    return s;
}

// Rust twin: Sequence::block.
__device__ __forceinline__ uint4 evo_sequence_block(EvoSequence s, unsigned int lane)
{
    return evo_philox4x32_10(make_uint4(lane, s.individual, s.step, s.stream), s.key);
}

// Rust twin: Sequence::word.
__device__ __forceinline__ unsigned int evo_sequence_word(EvoSequence s, unsigned int j)
{
    return evo_uint4_word(evo_sequence_block(s, j / 4), j % 4);
}

// Rust twin: Sequence::uniform_f32.
__device__ __forceinline__ float evo_sequence_uniform_f32(EvoSequence s, unsigned int j)
{
    return evo_uniform_f32(evo_sequence_word(s, j));
}

// Rust twin: Sequence::uniform_f64 (words 2q, 2q + 1).
__device__ __forceinline__ double evo_sequence_uniform_f64(EvoSequence s, unsigned int q)
{
    const uint4 b = evo_sequence_block(s, q / 2);
    return (q % 2 == 0) ? evo_uniform_f64(b.x, b.y) : evo_uniform_f64(b.z, b.w);
}

// Rust twin: Sequence::below.
__device__ __forceinline__ unsigned int evo_sequence_below(EvoSequence s, unsigned int j, unsigned int n)
{
    return evo_below(evo_sequence_word(s, j), n);
}

// Rust twin: Sequence::normals4.
__device__ __forceinline__ float4 evo_sequence_normals4(EvoSequence s, unsigned int lane)
{
    const uint4 b = evo_sequence_block(s, lane);
    const float2 first = evo_box_muller(b.x, b.y);
    const float2 second = evo_box_muller(b.z, b.w);
    return make_float4(first.x, first.y, second.x, second.y);
}

// Rust twin: Sequence::normal_f32.
__device__ __forceinline__ float evo_sequence_normal_f32(EvoSequence s, unsigned int k)
{
    const float4 n = evo_sequence_normals4(s, k / 4);
    const unsigned int i = k % 4;
    return i == 0 ? n.x : i == 1 ? n.y : i == 2 ? n.z : n.w;
}
