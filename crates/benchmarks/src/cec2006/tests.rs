use super::*;
use evo_core::ConstrainedProblem;
use evo_core::problem::{ConstrainedValue, DEFAULT_EQUALITY_TOLERANCE};
use midpoint::MIDPOINT;
use proptest::prelude::*;

#[path = "midpoint.rs"]
mod midpoint;

fn evaluate(problem: &Cec2006Problem, x: &[f64]) -> (f64, Vec<f64>, Vec<f64>) {
    let mut g = vec![0.0; problem.inequality_count()];
    let mut h = vec![0.0; problem.equality_count()];
    let f = problem.evaluate_f64(x, &mut g, &mut h);
    (f, g, h)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn shapes_match_the_spec_table() {
    // (D, p, m) of cec2006.md's summary.
    let shapes = [
        (13, 0, 9),
        (20, 0, 2),
        (10, 1, 0),
        (5, 0, 6),
        (4, 3, 2),
        (2, 0, 2),
        (10, 0, 8),
        (2, 0, 2),
        (7, 0, 4),
        (8, 0, 6),
        (2, 1, 0),
        (3, 0, 1),
        (5, 3, 0),
        (10, 3, 0),
        (3, 2, 0),
        (5, 0, 38),
        (6, 4, 0),
        (9, 0, 13),
        (15, 0, 5),
        (24, 14, 6),
        (7, 5, 1),
        (22, 19, 1),
        (9, 4, 2),
        (2, 0, 2),
    ];
    let problems = Cec2006Problem::all();
    assert_eq!(problems.len(), 24);
    for (problem, (d, p, m)) in problems.iter().zip(shapes) {
        let shape = (
            problem.dimension(),
            problem.equality_count(),
            problem.inequality_count(),
        );
        assert_eq!(shape, (d, p, m), "{}", problem.name());
        assert_eq!(problem.best_known_point().len(), d);
        assert_eq!(problem.bounds_f64().0.len(), d);
    }
    assert!(Cec2006Problem::new(0).is_err());
    assert!(Cec2006Problem::new(25).is_err());
    assert_eq!(problems[0].name(), "cec2006-g01");
}

#[test]
fn every_g_reproduces_its_best_known_value_and_is_feasible_there() {
    for problem in Cec2006Problem::all() {
        let (f, g, h) = evaluate(&problem, problem.best_known_point());
        let expected = problem.best_known_value();
        assert!(
            close(f, expected),
            "{}: f = {f}, expected {expected}",
            problem.name()
        );
        let max_g = g.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let max_h = h.iter().map(|v| v.abs()).fold(0.0, f64::max);
        match problem.number() {
            // g20's best-known point is infeasible: g1 ≈ 0.1438 (cec2006.md).
            20 => assert!((0.1437..0.1439).contains(&max_g), "g20 max g = {max_g}"),
            // g22's largest g is −2.2e-7.
            22 => assert!((-2.3e-7..-2.1e-7).contains(&max_g), "g22 max g = {max_g}"),
            _ => assert!(
                g.is_empty() || max_g <= 1e-10,
                "{}: max g = {max_g}",
                problem.name()
            ),
        }
        assert!(
            max_h <= 1e-4 + 1e-10,
            "{}: max |h| = {max_h}",
            problem.name()
        );
        let value = ConstrainedValue::new(f, &g, &h, DEFAULT_EQUALITY_TOLERANCE);
        if problem.number() != 20 {
            assert!(
                value.violation <= 1e-10,
                "{}: {}",
                problem.name(),
                value.violation
            );
        }
    }
}

#[test]
fn every_value_at_the_box_midpoint_matches_the_spec() {
    for (number, f_expected, h_expected, g_expected) in MIDPOINT {
        let problem = Cec2006Problem::new(number).unwrap();
        let (lower, upper) = problem.bounds_f64();
        let mid: Vec<f64> = lower
            .iter()
            .zip(&upper)
            .map(|(a, b)| (a + b) / 2.0)
            .collect();
        let (f, g, h) = evaluate(&problem, &mid);
        assert!(
            close(f, f_expected),
            "g{number:02}: f = {f}, expected {f_expected}"
        );
        assert_eq!(g.len(), g_expected.len());
        assert_eq!(h.len(), h_expected.len());
        for (k, (a, b)) in g.iter().zip(g_expected).enumerate() {
            assert!(close(*a, *b), "g{number:02} g{}: {a}, expected {b}", k + 1);
        }
        for (k, (a, b)) in h.iter().zip(h_expected).enumerate() {
            assert!(close(*a, *b), "g{number:02} h{}: {a}, expected {b}", k + 1);
        }
    }
}

#[test]
fn report_violation_measures() {
    // G = (0, 0.5), H = (|−2| since 2 − ε > 0, 0 since 5e-5 ≤ ε): v̄ = 2.5 / 4.
    let v = Cec2006Violation::new(&[-1.0, 0.5], &[-2.0, 5e-5]);
    assert_eq!(v.mean, 2.5 / 4.0);
    assert_eq!((v.above_1, v.above_0_01, v.above_0_0001), (1, 2, 2));
    assert!(!v.is_feasible());
    assert!(Cec2006Violation::new(&[-1.0], &[1e-4]).is_feasible());
    assert!(Cec2006Violation::new(&[], &[]).is_feasible());
}

#[test]
fn f32_evaluation_widens_the_genes() {
    let problem = Cec2006Problem::new(1).unwrap();
    let x32: Vec<f32> = problem
        .best_known_point()
        .iter()
        .map(|&v| v as f32)
        .collect();
    let value = problem.evaluate_value(&x32);
    assert_eq!(value.objective, -15.0);
    assert!(value.is_feasible());
    assert_eq!(problem.optimum(), Some(-15.0));
    assert_eq!(Cec2006Problem::new(20).unwrap().optimum(), None);
}

proptest! {
    /// Inside the box every g evaluates to finite values (a point drawn away from the singular corners).
    #[test]
    fn values_are_finite_inside_the_box(number in 1u32..=24, t in proptest::collection::vec(0.01f64..0.99, 24)) {
        let problem = Cec2006Problem::new(number).unwrap();
        let (lower, upper) = problem.bounds_f64();
        let x: Vec<f64> = (0..problem.dimension()).map(|i| lower[i] + t[i] * (upper[i] - lower[i])).collect();
        let (f, g, h) = evaluate(&problem, &x);
        prop_assert!(f.is_finite(), "g{number:02} f = {f}");
        prop_assert!(g.iter().chain(&h).all(|v| v.is_finite()), "g{number:02}");
    }
}
