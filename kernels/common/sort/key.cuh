// The sort order of fitness values: the CUDA twin of `evo_sort::order` (crates/sort/src/order.rs).
//
// A fitness value maps to an unsigned key whose unsigned order is the workspace's total order:
// - a non-NaN value x with bits b maps to `b | sign` when the sign bit is clear and to `~b` when it is set, so
//   keys follow `total_cmp`: -inf < negative numbers < -0.0 < +0.0 < positive numbers < +inf;
// - every NaN, of either sign and any payload, maps to the largest key (all ones), after +inf, so NaNs rank last
//   and tie with each other.
// Ties between equal keys are broken by the lower index everywhere a key is compared.
#pragma once

// The key of every NaN; no non-NaN value reaches it (+inf maps to 0xff800000).
#define EVO_SORT_KEY_MAX_U32 0xffffffffu
#define EVO_SORT_KEY_MAX_U64 0xffffffffffffffffull

// Twin: `SortKey::order_key` for f32.
__device__ __forceinline__ unsigned int evo_sort_key_f32(float value)
{
    const unsigned int bits = __float_as_uint(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        return EVO_SORT_KEY_MAX_U32;
    }
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

// Twin: `SortKey::order_key` for f64.
__device__ __forceinline__ unsigned long long evo_sort_key_f64(double value)
{
    const unsigned long long bits = (unsigned long long)__double_as_longlong(value);
    if ((bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) {
        return EVO_SORT_KEY_MAX_U64;
    }
    return (bits & 0x8000000000000000ull) ? ~bits : (bits | 0x8000000000000000ull);
}

// Overloads so that templates over the fitness type pick the right key.
__device__ __forceinline__ unsigned int evo_sort_key(float value) { return evo_sort_key_f32(value); }
__device__ __forceinline__ unsigned long long evo_sort_key(double value) { return evo_sort_key_f64(value); }

// The key every padding slot gets, per key type.
template <typename K> struct EvoSortKeyMax;
template <> struct EvoSortKeyMax<unsigned int> { static constexpr unsigned int value = EVO_SORT_KEY_MAX_U32; };
template <> struct EvoSortKeyMax<unsigned long long> {
    static constexpr unsigned long long value = EVO_SORT_KEY_MAX_U64;
};

// Whether (key_a, index_a) comes strictly before (key_b, index_b): by key, then by lower index.
// Twin: `order::precedes`.
template <typename K, typename I>
__device__ __forceinline__ bool evo_sort_precedes(K key_a, I index_a, K key_b, I index_b)
{
    return key_a < key_b || (key_a == key_b && index_a < index_b);
}
