// The Philox4x32-10 block function (Rust twin: evo_rng::philox). Ten rounds of
// (c0, c1, c2, c3) -> (hi(M1*c2) ^ c1 ^ k0, lo(M1*c2), hi(M0*c0) ^ c3 ^ k1, lo(M0*c0)); the key is bumped by
// (W0, W1) before each of rounds 2..10. Salmon et al., SC'11; random123 `philox.h`.
#pragma once

#define EVO_PHILOX_M0 0xD2511F53u
#define EVO_PHILOX_M1 0xCD9E8D57u
#define EVO_PHILOX_W0 0x9E3779B9u
#define EVO_PHILOX_W1 0xBB67AE85u

// Rust twin: evo_rng::philox::philox4x32_10.
__device__ __forceinline__ uint4 evo_philox4x32_10(uint4 c, uint2 k)
{
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k.x += EVO_PHILOX_W0;
            k.y += EVO_PHILOX_W1;
        }
        const unsigned int hi0 = __umulhi(EVO_PHILOX_M0, c.x);
        const unsigned int lo0 = EVO_PHILOX_M0 * c.x;
        const unsigned int hi1 = __umulhi(EVO_PHILOX_M1, c.z);
        const unsigned int lo1 = EVO_PHILOX_M1 * c.z;
        c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    }
    return c;
}

// Rust twin: evo_rng::philox::key_from_seed: (seed low word, seed high word).
__device__ __forceinline__ uint2 evo_philox_key(unsigned long long seed)
{
    return make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
}

// Rust twin: evo_rng::philox::counter_add: adds n to the 128-bit counter (x lowest), carrying upward.
__device__ __forceinline__ uint4 evo_philox_counter_add(uint4 c, unsigned long long n)
{
    const unsigned long long low = ((unsigned long long)c.y << 32 | c.x) + n;
    const unsigned int carry = low < n ? 1u : 0u;
    unsigned long long high = ((unsigned long long)c.w << 32 | c.z) + carry;
    return make_uint4((unsigned int)low, (unsigned int)(low >> 32), (unsigned int)high, (unsigned int)(high >> 32));
}

// Word i (0..3) of a uint4.
__device__ __forceinline__ unsigned int evo_uint4_word(uint4 v, unsigned int i)
{
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}
