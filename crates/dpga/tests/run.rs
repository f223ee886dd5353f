//! `evo_dpga::run`: the backend choice and its errors (no GPU needed).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::Cec2006Problem;
use evo_core::{Backend, Bounds, ConstrainedProblem, Termination};
use evo_dpga::{DpgaParams, run};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

fn small() -> DpgaParams {
    DpgaParams::default()
        .with_main_size(16)
        .unwrap()
        .with_reserve_size(16)
        .unwrap()
        .with_crossbreed_rate(0.25)
        .unwrap()
        .with_init_max_draws(200)
        .unwrap()
}

/// Minimise a + b subject to a·b ≥ 1 on [0, 4]²; with `nan_regions`, a NaN objective for a < 1 and a NaN
/// constraint for b < 1 (about 3/4 of the box).
struct Hyperbola {
    bounds: Bounds,
    nan_regions: bool,
}

impl Hyperbola {
    fn new(nan_regions: bool) -> Self {
        Self {
            bounds: Bounds::uniform(2, 0.0, 4.0).unwrap(),
            nan_regions,
        }
    }
}

impl ConstrainedProblem for Hyperbola {
    fn name(&self) -> &str {
        if self.nan_regions {
            "nan-hyperbola"
        } else {
            "hyperbola"
        }
    }
    fn dimension(&self) -> usize {
        2
    }
    fn bounds(&self) -> &Bounds {
        &self.bounds
    }
    fn inequality_count(&self) -> usize {
        1
    }
    fn equality_count(&self) -> usize {
        0
    }
    fn evaluate(&self, x: &[f32], g: &mut [f64], _h: &mut [f64]) -> f64 {
        let (a, b) = (f64::from(x[0]), f64::from(x[1]));
        if !self.nan_regions {
            g[0] = 1.0 - a * b;
            return a + b;
        }
        g[0] = if b < 1.0 { f64::NAN } else { 1.0 - a * b };
        if a < 1.0 {
            0.0 * f64::NEG_INFINITY
        } else {
            a + b
        }
    }
}

#[test]
fn the_cpu_backend_runs_to_the_termination_and_equals_the_engine() {
    let termination = Termination::new().with_max_generations(5);
    let report = run(
        small(),
        Cec2006Problem::new(7).unwrap(),
        3,
        Backend::cpu(),
        termination.clone(),
    )
    .unwrap();
    let mut engine =
        evo_dpga::DpgaCpu::new(small(), Cec2006Problem::new(7).unwrap(), 3, 1).unwrap();
    for _ in 0..5 {
        evo_core::Engine::step(&mut engine).unwrap();
    }
    assert_eq!(
        report.best_fitness,
        evo_core::Engine::progress(&engine).best_fitness
    );
}

#[test]
fn non_finite_evaluations_rank_last_and_the_run_goes_on() {
    let problem = Hyperbola::new(true);
    let mut engine = evo_dpga::DpgaCpu::new(small(), problem, 5, 1).unwrap();
    let initial = engine.best_evaluation();
    for _ in 0..30 {
        evo_core::Engine::step(&mut engine).unwrap();
    }
    let best = engine.best_evaluation();
    assert!(!best.is_non_finite() && best.feasible, "{best:?}");
    let (x, fitness) = evo_core::Engine::best(&engine).unwrap();
    assert!(x[0] >= 1.0 && x[1] >= 1.0, "{x:?}");
    assert_eq!(fitness, best.objective);
    assert!(best.objective <= initial.objective);
    // Points of the NaN region were drawn and evaluated: the worst value, never the best.
    let nan = evo_dpga::ops::evaluate_constraints(0.0 * f64::NEG_INFINITY, &[0.0], &[], 1e-4);
    assert!(nan.is_non_finite());
    assert_eq!(
        evo_dpga::ops::main_cmp(evo_dpga::ConstraintHandling::Mcsm, (&best, 1), (&nan, 0)),
        std::cmp::Ordering::Less
    );
}

/// A CEC 2006 problem that counts the evaluations with a non-finite objective or constraint value.
struct CountingNonFinite {
    inner: Cec2006Problem,
    non_finite: AtomicU64,
}

impl ConstrainedProblem for CountingNonFinite {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn dimension(&self) -> usize {
        self.inner.dimension()
    }
    fn bounds(&self) -> &Bounds {
        self.inner.bounds()
    }
    fn inequality_count(&self) -> usize {
        self.inner.inequality_count()
    }
    fn equality_count(&self) -> usize {
        self.inner.equality_count()
    }
    fn equality_tolerance(&self) -> f64 {
        self.inner.equality_tolerance()
    }
    fn evaluate(&self, x: &[f32], g: &mut [f64], h: &mut [f64]) -> f64 {
        let f = self.inner.evaluate(x, g, h);
        if !f.is_finite() || g.iter().chain(h.iter()).any(|v| !v.is_finite()) {
            self.non_finite.fetch_add(1, AtomicOrdering::Relaxed);
        }
        f
    }
}

#[test]
fn g14_and_g20_runs_complete_through_their_singular_points() {
    // g14 is 0·ln 0 = NaN at x_i = 0, g20 divides 0 by 0 when x1..x12 or x13..x24 are all 0. Few bits per
    // variable put those points on many draws (b = 2: x_i = 0 on a quarter of them).
    for (g, bits) in [(14, 2), (20, 1)] {
        let problem = CountingNonFinite {
            inner: Cec2006Problem::new(g).unwrap(),
            non_finite: AtomicU64::new(0),
        };
        let params = small().with_bits_per_variable(bits).unwrap();
        let mut engine = evo_dpga::DpgaCpu::new(params, problem, 7, 1).unwrap();
        for _ in 0..40 {
            evo_core::Engine::step(&mut engine).unwrap();
        }
        let met = engine.problem().non_finite.load(AtomicOrdering::Relaxed);
        assert!(met > 0, "g{g}: no singular point was evaluated");
        let best = engine.best_evaluation();
        assert!(!best.is_non_finite(), "g{g}: {best:?}");
        assert!(best.objective.is_finite() && best.violation.is_finite());
    }
}
