//! The scalar operators of MA-SW-Chains, the CPU twins of the kernels in `kernels/cuda/ma.cu` (same names
//! with the `ma_` prefix, same order of operations). Genes are `f32`; every operation here is a single
//! correctly rounded IEEE operation, so the Exact-profile kernels give the same bits.

/// Clips `v` to `[lo, hi]` (spec step 1). Twin: `ma_clip`.
#[inline]
pub fn clip(v: f32, lo: f32, hi: f32) -> f32 {
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

/// A uniform gene of `[lo, hi]` from `u ∈ (0, 1]` (spec step 2): `clip(lo + (hi − lo)·u)`. Twin:
/// `ma_init_gene`.
#[inline]
pub fn init_gene(lo: f32, hi: f32, u: f32) -> f32 {
    clip(lo + (hi - lo) * u, lo, hi)
}

/// BLX-α for one gene (spec step 4): with `l = min(x, y)`, `h = max(x, y)`, `I = α·(h − l)`, the child
/// is `low + (up − low)·u` with `low = max(l − I, a)`, `up = min(h + I, b)`, clipped to `[low, up]`. Twin:
/// `ma_blx_gene`.
#[inline]
pub fn blx_gene(x: f32, y: f32, alpha: f32, a: f32, b: f32, u: f32) -> f32 {
    let l = if y < x { y } else { x };
    let h = if y < x { x } else { y };
    let spread = alpha * (h - l);
    let low = clip(l - spread, a, b);
    let up = clip(h + spread, a, b);
    clip(low + (up - low) * u, low, up)
}

/// BGA mutation of one gene (spec step 5): `x ± rang·s` with `rang = range·(b − a)`, clipped to `[a, b]`.
/// Twin: `ma_bga_gene`.
#[inline]
pub fn bga_gene(x: f32, a: f32, b: f32, range: f32, s: f32, plus: bool) -> f32 {
    let rang = range * (b - a);
    let step = rang * s;
    clip(if plus { x + step } else { x - step }, a, b)
}

/// The Solis–Wets move `t = b + ρ·n` of one variable (spec step 14, `d = ρ·n`). Twin: `ma_sw_move`.
#[inline]
pub fn sw_move(bias: f32, rho: f32, normal: f32) -> f32 {
    bias + rho * normal
}

/// A Solis–Wets probe: `clip(x + t)` forward or `clip(x − t)` backward. Twin: `ma_sw_probe`.
#[inline]
pub fn sw_probe(x: f32, t: f32, forward: bool, lo: f32, hi: f32) -> f32 {
    clip(if forward { x + t } else { x - t }, lo, hi)
}

/// How the last Solis–Wets iteration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwOutcome {
    /// `x + b + d` was better.
    Forward = 0,
    /// `x − b − d` was better.
    Backward = 1,
    /// Neither was better.
    Failure = 2,
}

/// The bias after an iteration (spec step 14): forward success `0.2·b + 0.4·t`, backward success
/// `b − 0.4·t`, failure `0.5·b`, with `t = d + b`. Twin: `ma_sw_bias`.
#[inline]
pub fn sw_bias(bias: f32, t: f32, outcome: SwOutcome) -> f32 {
    match outcome {
        SwOutcome::Forward => 0.2 * bias + 0.4 * t,
        SwOutcome::Backward => bias - 0.4 * t,
        SwOutcome::Failure => 0.5 * bias,
    }
}

/// Spec step 11: the LS improved enough when `new < old` and `old − new ≥ threshold`.
#[inline]
pub fn improved_enough(old: f64, new: f64, threshold: f64) -> bool {
    new < old && old - new >= threshold
}

/// The BGA sum `s = Σ_{k=0}^{15} α_k·2^{−k}` from the 16 coin flips (bit k set = α_k = 1); exact in f32.
#[inline]
pub fn bga_sum(bits: u16) -> f32 {
    let mut s = 0.0f32;
    for k in 0..16 {
        if bits & (1 << k) != 0 {
            s += 1.0 / (1u32 << k) as f32;
        }
    }
    s
}

/// The squared Euclidean distance's term for one variable, in f64: `(x − y)²`. Twin: `ma_distance_term`.
#[inline]
pub fn distance_term(x: f32, y: f32) -> f64 {
    let d = f64::from(x) - f64::from(y);
    d * d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blx_stays_in_the_widened_interval_and_the_box() {
        for &u in &[f32::MIN_POSITIVE, 0.25, 0.5, 1.0] {
            let c = blx_gene(1.0, 3.0, 0.5, -10.0, 10.0, u);
            assert!((0.0..=4.0).contains(&c));
            let c = blx_gene(9.5, 9.0, 0.5, -10.0, 10.0, u);
            assert!((8.75..=10.0).contains(&c));
        }
        assert_eq!(blx_gene(1.0, 3.0, 0.5, -10.0, 10.0, 1.0), 4.0);
    }

    #[test]
    fn bga_sum_of_all_bits_is_just_below_two() {
        assert_eq!(bga_sum(0), 0.0);
        assert_eq!(bga_sum(1), 1.0);
        assert_eq!(bga_sum(u16::MAX), 2.0 - 1.0 / 32768.0);
        assert_eq!(bga_gene(0.0, -5.0, 5.0, 0.1, 1.0, true), 1.0);
        assert_eq!(bga_gene(-4.5, -5.0, 5.0, 0.1, 1.0, false), -5.0);
    }

    #[test]
    fn bias_updates_follow_step_14() {
        assert_eq!(sw_bias(1.0, 2.0, SwOutcome::Forward), 0.2 + 0.8);
        assert_eq!(sw_bias(1.0, 2.0, SwOutcome::Backward), 1.0 - 0.8);
        assert_eq!(sw_bias(1.0, 2.0, SwOutcome::Failure), 0.5);
        assert_eq!(sw_probe(0.0, 7.0, true, -5.0, 5.0), 5.0);
        assert_eq!(sw_probe(0.0, 1.0, false, -5.0, 5.0), -1.0);
    }

    #[test]
    fn improvement_threshold_is_absolute_and_strict_on_the_order() {
        assert!(improved_enough(1.0, 0.5, 1e-9));
        assert!(!improved_enough(1.0, 1.0 - 1e-12, 1e-9));
        assert!(!improved_enough(1.0, 1.0, 0.0));
        assert!(improved_enough(1.0, 0.0, 0.0));
    }
}
