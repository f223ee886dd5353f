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

/// `SwState::pending` when no iteration waits to be applied to the LS point and bias.
pub const SW_NONE: u32 = 3;

/// The scalar state of one Solis–Wets application (spec steps 14–15), as the host sets it up and as the
/// device keeps it during a device-resident LS: `kernels/cuda/ma.cu` mirrors it as `MaSwState` (88 bytes).
/// [`sw_decide`] is the one place where the accept/reject, the counters and ρ are decided; both engines
/// call it (the CUDA engine through its twin `ma_sw_decide_one` in the kernel `ma_sw_step_f32`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SwState {
    /// f(x) of the current LS point.
    pub current: f64,
    /// The first non-finite fitness met (when `bad` ≠ 0).
    pub bad_value: f64,
    /// ρ for the next iteration.
    pub rho: f32,
    /// ρ of the probes of the iteration in `pending` (the bias update regenerates d = ρ·n with it).
    pub move_rho: f32,
    /// Consecutive successes.
    pub successes: u32,
    /// Consecutive failures.
    pub failures: u32,
    /// Evaluations spent by this application.
    pub used: u32,
    /// Evaluations allowed to this application (I_str, or fewer at the end of the budget).
    pub limit: u32,
    /// The global LS iteration counter (the Philox step of the next iteration's noise).
    pub iteration: u32,
    /// The outcome ([`SwOutcome`] as u32) of iteration `iteration − 1` not yet applied to the LS point and
    /// bias, or [`SW_NONE`].
    pub pending: u32,
    /// 1 while the application goes on.
    pub active: u32,
    /// 0, or 1 / 2 when the forward / backward probe's fitness was not finite (the run stops with an error).
    pub bad: u32,
    /// Successes that double ρ (5).
    pub success_limit: u32,
    /// Failures that halve ρ (3).
    pub failure_limit: u32,
    /// ρ's expansion factor (2).
    pub expand: f32,
    /// ρ's contraction factor (0.5).
    pub contract: f32,
    /// Device look-ahead only (the CPU engine leaves it at [`SW_NONE`]): the outcome of iteration
    /// `pending_iteration + 1`, decided in the same launch as `pending`'s.
    pub pending2: u32,
    /// ρ of the probes of `pending2`'s iteration.
    pub move_rho2: f32,
    /// The iteration of `pending` (the Philox step of its noise).
    pub pending_iteration: u32,
    /// Device only (the CPU engine leaves it at 0): 1 while the probe rows hold an undecided group.
    pub probed: u32,
}

impl SwState {
    /// The state at the start of an application from a point of fitness `current`.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        current: f64,
        rho: f32,
        successes: u32,
        failures: u32,
        limit: u32,
        iteration: u32,
        limits: (u32, u32),
        factors: (f32, f32),
    ) -> Self {
        Self {
            current,
            bad_value: 0.0,
            rho,
            move_rho: rho,
            successes,
            failures,
            used: 0,
            limit,
            iteration,
            pending: SW_NONE,
            active: u32::from(limit > 0),
            bad: 0,
            success_limit: limits.0,
            failure_limit: limits.1,
            expand: factors.0,
            contract: factors.1,
            pending2: SW_NONE,
            move_rho2: rho,
            pending_iteration: iteration,
            probed: 0,
        }
    }
}

/// One Solis–Wets decision (spec step 14) after the forward probe of iteration `state.iteration` scored
/// `forward`; `backward` gives the backward probe's fitness and is called only when the forward probe failed
/// with an evaluation left (librealea `SolisWets::apply`). Sets `pending` to the outcome (the caller applies it
/// to the point and bias with `move_rho`), updates the counters and ρ (step 14.3), and clears `active` when the
/// evaluations are spent. The forward probe failing on the last evaluation ends the application with nothing
/// changed (`pending` = [`SW_NONE`]). Twin: `ma_sw_decide_one` (`kernels/cuda/ma.cu`).
pub fn sw_decide<E>(
    state: &mut SwState,
    forward: f64,
    backward: impl FnOnce() -> Result<f64, E>,
) -> Result<(), E> {
    state.pending = SW_NONE;
    state.move_rho = state.rho;
    state.pending_iteration = state.iteration;
    state.iteration = state.iteration.wrapping_add(1);
    state.used += 1;
    let outcome = if forward < state.current {
        state.current = forward;
        SwOutcome::Forward
    } else if state.used < state.limit {
        let value = backward()?;
        state.used += 1;
        if value < state.current {
            state.current = value;
            SwOutcome::Backward
        } else {
            SwOutcome::Failure
        }
    } else {
        state.active = 0;
        return Ok(());
    };
    state.pending = outcome as u32;
    if outcome == SwOutcome::Failure {
        state.failures += 1;
        state.successes = 0;
    } else {
        state.successes += 1;
        state.failures = 0;
    }
    if state.successes >= state.success_limit {
        state.rho *= state.expand;
        state.successes = 0;
    } else if state.failures >= state.failure_limit {
        state.rho *= state.contract;
        state.failures = 0;
    }
    if state.used >= state.limit {
        state.active = 0;
    }
    Ok(())
}

/// The [`SwOutcome`] of a `pending` value (`None` for [`SW_NONE`]).
pub fn sw_outcome(pending: u32) -> Option<SwOutcome> {
    match pending {
        0 => Some(SwOutcome::Forward),
        1 => Some(SwOutcome::Backward),
        2 => Some(SwOutcome::Failure),
        _ => None,
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

    fn fresh(limit: u32) -> SwState {
        SwState::start(10.0, 0.2, 0, 0, limit, 7, (5, 3), (2.0, 0.5))
    }

    #[test]
    fn decide_follows_step_14_and_its_counters() {
        // Forward success: one evaluation, the backward probe is never asked for.
        let mut s = fresh(500);
        sw_decide(&mut s, 9.0, || -> Result<f64, ()> {
            panic!("backward asked")
        })
        .unwrap();
        assert_eq!((s.used, s.current, s.pending, s.iteration), (1, 9.0, 0, 8));
        assert_eq!((s.successes, s.failures, s.active), (1, 0, 1));
        // Backward success, then a failure: two evaluations each.
        sw_decide(&mut s, 9.5, || Ok::<f64, ()>(8.0)).unwrap();
        assert_eq!((s.used, s.current, s.pending, s.successes), (3, 8.0, 1, 2));
        sw_decide(&mut s, 8.0, || Ok::<f64, ()>(8.0)).unwrap();
        assert_eq!((s.used, s.pending, s.successes, s.failures), (5, 2, 0, 1));
        // Three failures halve ρ and reset the count; five successes double it.
        for _ in 0..2 {
            sw_decide(&mut s, 8.0, || Ok::<f64, ()>(8.0)).unwrap();
        }
        assert_eq!((s.rho, s.failures, s.move_rho), (0.1, 0, 0.2));
        for k in 0..5 {
            sw_decide(&mut s, 7.0 - f64::from(k), || Ok::<f64, ()>(100.0)).unwrap();
        }
        assert_eq!((s.rho, s.successes, s.move_rho), (0.2, 0, 0.1));
    }

    #[test]
    fn decide_stops_on_the_budget_and_a_failed_last_forward_probe_changes_nothing() {
        let mut s = fresh(3);
        sw_decide(&mut s, 11.0, || Ok::<f64, ()>(12.0)).unwrap();
        assert_eq!((s.used, s.active, s.failures), (2, 1, 1));
        sw_decide(&mut s, 11.0, || -> Result<f64, ()> {
            panic!("no evaluation left")
        })
        .unwrap();
        assert_eq!(
            (s.used, s.active, s.pending, s.failures),
            (3, 0, SW_NONE, 1)
        );
        assert_eq!((s.current, s.iteration), (10.0, 9));
        let mut s = fresh(1);
        sw_decide(&mut s, 1.0, || Ok::<f64, ()>(0.0)).unwrap();
        assert_eq!((s.used, s.active, s.pending, s.current), (1, 0, 0, 1.0));
        assert_eq!(sw_outcome(s.pending), Some(SwOutcome::Forward));
        assert_eq!(sw_outcome(SW_NONE), None);
    }

    #[test]
    fn improvement_threshold_is_absolute_and_strict_on_the_order() {
        assert!(improved_enough(1.0, 0.5, 1e-9));
        assert!(!improved_enough(1.0, 1.0 - 1e-12, 1e-9));
        assert!(!improved_enough(1.0, 1.0, 0.0));
        assert!(improved_enough(1.0, 0.0, 0.0));
    }
}
