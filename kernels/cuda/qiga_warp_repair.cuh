// QIGA's warp-parallel repair and evaluation, included by kernels/cuda/qiga.cu where they are used (one module,
// one PTX); split from it for length only.
#pragma once

// ---- Warp-parallel twins of the serial loops, used when the host has proven every weight and profit sum exact
// in any order (QigaRunParams::exact_sums; crates/qiga/src/cuda/exact.rs). Exact sums make a warp's partial
// sums equal the serial loop's running sums bit for bit, so every stopping point below is the one the serial
// loop finds. Every lane of the warp calls these with the same arguments; every lane gets the result.
#define QIGA_FULL_MASK 0xffffffffu

// The sum of v over the warp's lanes.
__device__ __forceinline__ double qiga_warp_sum(double v)
{
    for (unsigned int o = 16u; o > 0u; o >>= 1) {
        v += __shfl_xor_sync(QIGA_FULL_MASK, v, o);
    }
    return v;
}

// The inclusive prefix sum of v over lanes 0..=lane.
__device__ __forceinline__ double qiga_warp_scan(double v, unsigned int lane)
{
    for (unsigned int o = 1u; o < 32u; o <<= 1) {
        const double u = __shfl_up_sync(QIGA_FULL_MASK, v, o);
        if (lane >= o) {
            v += u;
        }
    }
    return v;
}

// The weight (values = weights) or the profit (values = profits) of x.
template <typename Value>
__device__ double qiga_warp_total(const unsigned char* x, const Value* values, unsigned int n, unsigned int lane)
{
    double total = 0.0;
    for (unsigned int j = lane; j < n; j += 32u) {
        if (x[j]) {
            total += (double)values[j];
        }
    }
    return qiga_warp_sum(total);
}

// One step of the warp scans below over 128 consecutive positions, four per lane (lane l holds positions 4l ..
// 4l + 3, values w4): the running sum at a position is start + the values up to and including it. Returns on
// every lane the first position whose running sum s stops the serial loop (weight - s <= capacity when
// `removing`, else weight + s > capacity), or 128 when none does; `at` gets that position's running sum and
// `total` the sum through position 127. A position past the items holds 0, so it repeats the last item's test
// and never stops first.
__device__ __forceinline__ unsigned int qiga_warp_first_stop(const double* w4, double start, double weight, double capacity, bool removing, unsigned int lane, double* total, double* at)
{
    const double own = (w4[0] + w4[1]) + (w4[2] + w4[3]);
    const double through = qiga_warp_scan(own, lane);
    double run = start + (through - own);
    unsigned int hit = 4u;
    double hit_run = 0.0;
    for (unsigned int r = 0; r < 4u; ++r) {
        run += w4[r];
        const bool stop = removing ? weight - run <= capacity : weight + run > capacity;
        if (hit == 4u && stop) {
            hit = r;
            hit_run = run;
        }
    }
    *total = start + __shfl_sync(QIGA_FULL_MASK, through, 31);
    const unsigned int lanes = __ballot_sync(QIGA_FULL_MASK, hit < 4u);
    if (lanes == 0u) {
        return 128u;
    }
    const unsigned int k = (unsigned int)__ffs(lanes) - 1u;
    *at = __shfl_sync(QIGA_FULL_MASK, hit_run, k);
    return 4u * k + __shfl_sync(QIGA_FULL_MASK, hit, k);
}

// qiga_repair_evaluate by one warp. The serial removal zeroes x[0..=k] for the first k at which the kept weight
// W - (taken weight in 0..=k) is within C; the serial addition sets x[0..=k] for the first k at which
// W + (left-out weight in 0..=k) passes C (k = n - 1 when none does) and then clears x[k]. Both k are found by
// qiga_warp_first_stop over steps of 128 items.
template <typename Value>
__device__ double qiga_warp_repair_evaluate(unsigned char* x, const Value* weights, const Value* profits, unsigned int n, double capacity, unsigned int lane)
{
    double weight = qiga_warp_total(x, weights, n, lane);
    double w4[4];
    double total = 0.0;
    double at = 0.0;
    if (weight > capacity) {
        unsigned int cut = n;
        double removed = 0.0;
        for (unsigned int base = 0; base < n; base += 128u) {
            for (unsigned int r = 0; r < 4u; ++r) {
                const unsigned int j = base + 4u * lane + r;
                w4[r] = (j < n && x[j]) ? (double)weights[j] : 0.0;
            }
            const unsigned int hit = qiga_warp_first_stop(w4, removed, weight, capacity, true, lane, &total, &at);
            if (hit < 128u) {
                cut = base + hit + 1u;
                removed = at;
                break;
            }
            removed = total;
        }
        weight -= removed;
        __syncwarp();
        for (unsigned int j = lane; j < cut; j += 32u) {
            x[j] = 0;
        }
        __syncwarp();
    }
    unsigned int last = n;
    double added = 0.0;
    for (unsigned int base = 0; base < n; base += 128u) {
        for (unsigned int r = 0; r < 4u; ++r) {
            const unsigned int j = base + 4u * lane + r;
            w4[r] = (j < n && !x[j]) ? (double)weights[j] : 0.0;
        }
        const unsigned int hit = qiga_warp_first_stop(w4, added, weight, capacity, false, lane, &total, &at);
        if (hit < 128u) {
            last = base + hit;
            break;
        }
        added = total;
    }
    if (last == n && n > 0u) {
        last = n - 1u;
    }
    __syncwarp();
    for (unsigned int j = lane; j <= last && j < n; j += 32u) {
        x[j] = j < last ? 1 : 0;
    }
    __syncwarp();
    return qiga_warp_total(x, profits, n, lane);
}

// The set bytes of an octet as the bits 0..7 of a mask: a byte's top bit after adding 0x7f to its low seven
// bits, or'd with the byte, is set exactly when the byte is not 0.
__device__ __forceinline__ unsigned int qiga_octet_mask(uint2 octet)
{
    const unsigned int lo = ((((octet.x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | octet.x) & 0x80808080u) >> 7;
    const unsigned int hi = ((((octet.y & 0x7f7f7f7fu) + 0x7f7f7f7fu) | octet.y) & 0x80808080u) >> 7;
    // Bytes holding 0 or 1: the product gathers bits 0, 8, 16, 24 into bits 24..27 without carries.
    return ((lo * 0x01020408u) >> 24) | (((hi * 0x01020408u) >> 24) << 4);
}

// The index in a lane-major array (qiga_lane_major) of value j = 256c + 8l + 2h + e, held by lane l as pair h
// of its octet in chunk c: the pairs that one load instruction of a warp reads lie side by side (a lane's
// octet at 64-byte strides would put 16 lanes on the same banks).
__device__ __forceinline__ unsigned int qiga_lane_major(unsigned int j)
{
    return (((j >> 8) * 4u + ((j >> 1) & 3u)) * 32u + ((j >> 3) & 31u)) * 2u + (j & 1u);
}

// The eight values of the octet j .. j + 7 (j a multiple of 8) of the lane-major array `v` where `mask` has a
// bit, else 0.
__device__ __forceinline__ void qiga_octet_values(const double* v, unsigned int j, unsigned int mask, double* out)
{
    for (unsigned int h = 0; h < 4u; ++h) {
        const double2 pair = *reinterpret_cast<const double2*>(v + qiga_lane_major(j + 2u * h));
        out[2u * h] = ((mask >> (2u * h)) & 1u) != 0u ? pair.x : 0.0;
        out[2u * h + 1u] = ((mask >> (2u * h + 1u)) & 1u) != 0u ? pair.y : 0.0;
    }
}

// The sum of an octet's values in position order.
__device__ __forceinline__ double qiga_octet_sum(const double* v)
{
    double sum = 0.0;
    for (unsigned int r = 0; r < 8u; ++r) {
        sum += v[r];
    }
    return sum;
}

// qiga_warp_repair_evaluate for a row in shared memory: lane l holds the octet of positions 256c + 8l .. + 7 of
// each chunk c, reads its bytes as one uint2 and its weights as four double2 (`weights` and `profits` are
// lane-major, qiga_lane_major, over whole chunks), and the four passes (weight, removal, addition, profit with
// the repaired row written back) each take one warp scan or sum per chunk. `stride` is n rounded up to 8; the
// weights and profits are 0 past n, so positions past n add nothing and never stop a scan first (they repeat
// the test of the position before them). With exact sums every running sum below equals the serial loop's.
__device__ double qiga_warp_repair_octets(unsigned char* x, const double* weights, const double* profits, unsigned int n, unsigned int stride, double capacity, unsigned int lane)
{
    double v[8];
    // Step 3's weight W of x.
    double weight = 0.0;
    for (unsigned int base = 0; base < stride; base += 256u) {
        const unsigned int j = base + 8u * lane;
        double own = 0.0;
        if (j < stride) {
            qiga_octet_values(weights, j, qiga_octet_mask(*reinterpret_cast<const uint2*>(x + j)), v);
            own = qiga_octet_sum(v);
        }
        weight += qiga_warp_sum(own);
    }
    // The removal zeroes positions 0 .. cut - 1: cut - 1 is the first position whose taken weight so far brings
    // W within C.
    unsigned int cut = 0u;
    if (weight > capacity) {
        double removed = 0.0;
        for (unsigned int base = 0; base < stride; base += 256u) {
            const unsigned int j = base + 8u * lane;
            const unsigned int taken = j < stride ? qiga_octet_mask(*reinterpret_cast<const uint2*>(x + j)) : 0u;
            qiga_octet_values(weights, j < stride ? j : 0u, taken, v);
            const double own = qiga_octet_sum(v);
            const double through = qiga_warp_scan(own, lane);
            double run = removed + (through - own);
            unsigned int hit = 8u;
            double hit_run = 0.0;
            for (unsigned int r = 0; r < 8u; ++r) {
                run += v[r];
                if (hit == 8u && weight - run <= capacity) {
                    hit = r;
                    hit_run = run;
                }
            }
            const unsigned int lanes = __ballot_sync(QIGA_FULL_MASK, hit < 8u);
            if (lanes != 0u) {
                const unsigned int k = (unsigned int)__ffs(lanes) - 1u;
                cut = base + 8u * k + __shfl_sync(QIGA_FULL_MASK, hit, k) + 1u;
                removed = __shfl_sync(QIGA_FULL_MASK, hit_run, k);
                break;
            }
            removed += __shfl_sync(QIGA_FULL_MASK, through, 31);
        }
        weight -= removed;
    }
    // The addition sets positions 0 .. last - 1 and clears `last`: the first position whose left-out weight so
    // far (the removed positions count as left out) takes the weight past C, else n - 1.
    unsigned int last = n - 1u;
    double added = 0.0;
    for (unsigned int base = 0; base < stride; base += 256u) {
        const unsigned int j = base + 8u * lane;
        unsigned int left = 0u;
        if (j < stride) {
            const unsigned int removed = cut >= j + 8u ? 0xffu : cut > j ? (1u << (cut - j)) - 1u : 0u;
            left = (~qiga_octet_mask(*reinterpret_cast<const uint2*>(x + j)) | removed) & 0xffu;
        }
        qiga_octet_values(weights, j < stride ? j : 0u, left, v);
        const double own = qiga_octet_sum(v);
        const double through = qiga_warp_scan(own, lane);
        double run = added + (through - own);
        unsigned int hit = 8u;
        for (unsigned int r = 0; r < 8u; ++r) {
            run += v[r];
            if (hit == 8u && weight + run > capacity) {
                hit = r;
            }
        }
        const unsigned int lanes = __ballot_sync(QIGA_FULL_MASK, hit < 8u);
        if (lanes != 0u) {
            const unsigned int k = (unsigned int)__ffs(lanes) - 1u;
            last = base + 8u * k + __shfl_sync(QIGA_FULL_MASK, hit, k);
            break;
        }
        added += __shfl_sync(QIGA_FULL_MASK, through, 31);
    }
    // Step 4 on the repaired row (positions before `last` set, `last` clear, the rest as after the removal),
    // written back as one uint2 per octet.
    double profit = 0.0;
    for (unsigned int base = 0; base < stride; base += 256u) {
        const unsigned int j = base + 8u * lane;
        double own = 0.0;
        if (j < stride) {
            const unsigned int before = last >= j + 8u ? 0xffu : last > j ? (1u << (last - j)) - 1u : 0u;
            const unsigned int after = last + 1u >= j + 8u ? 0u : last + 1u > j ? (0xffu << (last + 1u - j)) & 0xffu : 0xffu;
            const unsigned int kept = cut >= j + 8u ? 0u : cut > j ? (0xffu << (cut - j)) & 0xffu : 0xffu;
            const unsigned int mask = before | (after & kept & qiga_octet_mask(*reinterpret_cast<const uint2*>(x + j)));
            qiga_octet_values(profits, j, mask, v);
            own = qiga_octet_sum(v);
            // Bit r of the mask to byte r (0 or 1): the inverse of the gather in qiga_octet_mask.
            const unsigned int lo = ((mask & 0xfu) * 0x00204081u) & 0x01010101u;
            const unsigned int hi = ((mask >> 4) * 0x00204081u) & 0x01010101u;
            *reinterpret_cast<uint2*>(x + j) = make_uint2(lo, hi);
        }
        profit += qiga_warp_sum(own);
    }
    return profit;
}
