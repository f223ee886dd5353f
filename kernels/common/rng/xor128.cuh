// Marsaglia's xor128 (Rust twin: evo_rng::Xor128): t = x ^ (x << 11); (x, y, z) <- (y, z, w);
// w <- w ^ (w >> 19) ^ (t ^ (t >> 8)); output w.
#pragma once

struct EvoXor128 {
    unsigned int x, y, z, w;
};

// Rust twin: Xor128::next_word.
__device__ __forceinline__ unsigned int evo_xor128_next(EvoXor128* s)
{
    const unsigned int t = s->x ^ (s->x << 11);
    s->x = s->y;
    s->y = s->z;
    s->z = s->w;
    s->w = s->w ^ (s->w >> 19) ^ (t ^ (t >> 8));
    return s->w;
}
