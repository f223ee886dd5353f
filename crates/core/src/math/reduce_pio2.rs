//! Payne-Hanek reduction of huge arguments by pi/2, in integer arithmetic.
//!
//! A finite double is x = M 2^e with a 53-bit integer M. Writing 2/pi = sum of b_i 2^-i (i >= 1), the bits
//! with e - i >= 2 contribute multiples of 4 to x * 2/pi and cannot change sin or cos, so only a window of
//! 256 bits of 2/pi starting just before bit e - 1 is needed: P = M * W (a 309-bit integer, computed
//! exactly in 32-bit limbs) holds x * 2/pi modulo 4 with F fraction bits, up to an error below 2^-170.
//! Its two integer bits give the quadrant and its top 128 fraction bits, rounded to the nearest quadrant
//! and normalized, give a double-double fraction that is multiplied by pi/2 with Dekker's exact product.
//! No double is closer than about 2^-61 to a nonzero multiple of pi/2 (the worst case found by exhaustive
//! search, Muller, "Elementary Functions", ch. 11), so the 128 bits keep more than 60 significant bits
//! after cancellation: the result is accurate to better than 2^-60 relative.
//!
//! Integer operations are the same on both sides and the floating-point steps are exact or correctly
//! rounded, so the CUDA twin (`evo_math::rem_pio2_large_f64` in `kernels/common/math.cuh`) gives the same
//! bits. No loop depends on the data: the product is a fixed 2 x 8 limb schoolbook.

use super::pow2;

/// The first 1280 bits of 2/pi, most significant first: `TWO_OVER_PI[k]` holds bits 32k+1 ..= 32k+32
/// after the binary point. Computed with mpmath at 2000 bits of precision; it starts with the well-known
/// A2F9836E 4E441529 FC2757D1. CUDA twin: `evo_math::TWO_OVER_PI`.
const TWO_OVER_PI: [u32; 40] = [
    0xA2F9_836E,
    0x4E44_1529,
    0xFC27_57D1,
    0xF534_DDC0,
    0xDB62_9599,
    0x3C43_9041,
    0xFE51_63AB,
    0xDEBB_C561,
    0xB724_6E3A,
    0x424D_D2E0,
    0x0649_2EEA,
    0x09D1_921C,
    0xFE1D_EB1C,
    0xB129_A73E,
    0xE882_35F5,
    0x2EBB_4484,
    0xE99C_7026,
    0xB45F_7E41,
    0x3991_D639,
    0x8353_39F4,
    0x9C84_5F8B,
    0xBDF9_283B,
    0x1FF8_97FF,
    0xDE05_980F,
    0xEF2F_118B,
    0x5A0A_6D1F,
    0x6D36_7ECF,
    0x27CB_09B7,
    0x4F46_3F66,
    0x9E5F_EA2D,
    0x7527_BAC7,
    0xEBE5_F17B,
    0x3D07_39F7,
    0x8A52_92EA,
    0x6BFB_5FB1,
    0x1F8D_5D08,
    0x5603_3046,
    0xFC7B_6BAB,
    0xF0CF_BC20,
    0x9AF4_361D,
];

/// pi/2 as a double-double: PIO2_HI + PIO2_LO is pi/2 to about 2^-107.
const PIO2_HI: f64 = f64::from_bits(0x3FF9_21FB_5444_2D18); // 1.5707963267948966
const PIO2_LO: f64 = f64::from_bits(0x3C91_A626_3314_5C07); // 6.123233995736766e-17

/// 2^27 + 1: Veltkamp's splitter for Dekker's exact product.
const SPLITTER: f64 = f64::from_bits(0x41A0_0000_0200_0000); // 134217729

/// The 32 bits of the little-endian limb array `p` starting at bit `pos`; `pos <= 288`.
/// CUDA twin: `evo_math::bits_at`.
fn bits_at(p: &[u32; 11], pos: usize) -> u32 {
    let w = pos >> 5;
    let s = pos & 31;
    let pair = (u64::from(p[w + 1]) << 32) | u64::from(p[w]);
    (pair >> s) as u32
}

/// Splits a into a 26-bit high half and the exact rest (Veltkamp). CUDA twin: `evo_math::split_f64`.
fn split(a: f64) -> (f64, f64) {
    let c = SPLITTER * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// a * b = p + e exactly, for |a|, |b| well inside the normal range (Dekker, no fused multiply-add).
/// CUDA twin: `evo_math::two_prod_f64`.
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    (p, e)
}

/// Reduces a finite x with |x| >= 2^20 (the callers use it above 2^20 * pi/2 for `f64` and above
/// 2^28 * pi/2 for `f32`) to `n * pi/2 + (y0 + y1)` with |y0 + y1| <= pi/4, returning `(n, y0, y1)`; only
/// `n & 3` is meaningful.
/// CUDA twin: `evo_math::rem_pio2_large_f64`.
pub(super) fn rem_pio2_large(x: f64) -> (i32, f64, f64) {
    let bits = x.to_bits();
    // x = m 2^e with a 53-bit integer m; the caller guarantees e >= -32.
    let e = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let m = (bits & 0x000F_FFFF_FFFF_FFFF) | 0x0010_0000_0000_0000;
    let m0 = m as u32;
    let m1 = (m >> 32) as u32;
    // Words k0 .. k0+8 of 2/pi: every bit before word k0 has index i <= 32 k0 <= e - 2.
    let k0 = if e >= 2 { ((e - 2) >> 5) as usize } else { 0 };
    // p = m * W, with W the 256-bit window (limb j of W is word k0 + 7 - j of the table).
    let mut p = [0u32; 11];
    for j in 0..8 {
        let w = u64::from(TWO_OVER_PI[k0 + 7 - j]);
        let t0 = u64::from(m0) * w + u64::from(p[j]);
        p[j] = t0 as u32;
        let t1 = u64::from(m1) * w + u64::from(p[j + 1]) + (t0 >> 32);
        p[j + 1] = t1 as u32;
        p[j + 2] = (t1 >> 32) as u32;
    }
    // Bit `units` of p has weight 1 in x * 2/pi; 223 <= units <= 288.
    let units = (32 * k0 as i32 + 256 - e) as usize;
    let mut q = (bits_at(&p, units) & 3) as i32;
    let mut hi = (u64::from(bits_at(&p, units - 32)) << 32) | u64::from(bits_at(&p, units - 64));
    let mut lo = (u64::from(bits_at(&p, units - 96)) << 32) | u64::from(bits_at(&p, units - 128));
    // Round to the nearest quadrant: a fraction >= 1/2 becomes fraction - 1, negated in 128 bits.
    let negative = hi >> 63 != 0;
    if negative {
        q += 1;
        lo = (!lo).wrapping_add(1);
        hi = (!hi).wrapping_add(u64::from(lo == 0));
    }
    // Normalize the 128-bit fraction and cut it into two exact 53-bit doubles.
    let mut shift: i32 = 0;
    if hi == 0 {
        hi = lo;
        lo = 0;
        shift = 64;
    }
    let (mut y0, mut y1) = (0.0, 0.0);
    if hi != 0 {
        let lz = hi.leading_zeros();
        if lz > 0 {
            hi = (hi << lz) | (lo >> (64 - lz));
            lo <<= lz;
        }
        shift += lz as i32;
        let a = (hi >> 11) as f64 * pow2(-53 - shift);
        let b = (((hi & 0x7ff) << 42) | (lo >> 22)) as f64 * pow2(-106 - shift);
        // (a + b) * pi/2 in double-double arithmetic.
        let (ph, pl) = two_prod(a, PIO2_HI);
        let pl = pl + (a * PIO2_LO + b * PIO2_HI);
        y0 = ph + pl;
        y1 = pl - (y0 - ph);
    }
    if negative {
        y0 = -y0;
        y1 = -y1;
    }
    if x < 0.0 {
        return (-q, -y0, -y1);
    }
    (q, y0, y1)
}
