use super::*;
use evo_core::{BinaryProblem, Bits, ContinuousProblem};
use std::f64::consts::{E, PI};

/// A plainly written sequential version of each function (index order, std math), independent of the
/// tree-summed implementation.
fn plain(function: GaFunction, x: &[f64]) -> f64 {
    let n = x.len() as f64;
    match function {
        GaFunction::Hypersphere => x.iter().map(|v| v * v).sum(),
        GaFunction::Ridge => {
            let mut s = 0.0;
            x.iter()
                .map(|v| {
                    s += v;
                    s * s
                })
                .sum()
        }
        GaFunction::Rosenbrock => x
            .windows(2)
            .map(|w| 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2))
            .sum(),
        GaFunction::Step => x.iter().map(|v| (v + 0.5).floor().powi(2)).sum(),
        GaFunction::Griewank => {
            let s: f64 = x.iter().map(|v| v * v).sum();
            let p: f64 = x
                .iter()
                .enumerate()
                .map(|(i, v)| (v / ((i + 1) as f64).sqrt()).cos())
                .product();
            s / 4000.0 - p + 1.0
        }
        GaFunction::Schwefel => x.iter().map(|v| -v * v.abs().sqrt().sin()).sum(),
        GaFunction::Rastrigin => x
            .iter()
            .map(|v| v * v - 10.0 * (2.0 * PI * v).cos() + 10.0)
            .sum(),
        GaFunction::Ackley => {
            let s1: f64 = x.iter().map(|v| v * v).sum();
            let s2: f64 = x.iter().map(|v| (2.0 * PI * v).cos()).sum();
            -20.0 * (-0.2 * (s1 / n).sqrt()).exp() - (s2 / n).exp() + 20.0 + E
        }
    }
}

#[test]
fn functions_agree_with_plain_sequential_formulas() {
    for function in GaFunction::ALL {
        for n in [2usize, 32, 128, 1500] {
            let problem = GaProblem::new(function, n).unwrap();
            let (lo, hi) = function.paper_range();
            let x: Vec<f32> = (0..n)
                .map(|i| (lo + (hi - lo) * (i as f64 * 0.618_033_988_7).fract()) as f32)
                .collect();
            let x64: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
            let expected = plain(function, &x64);
            let got = problem.evaluate(&x);
            assert!(
                (got - expected).abs() <= 1e-11 * expected.abs().max(1.0),
                "{} n = {n}: {got} vs {expected}",
                function.name()
            );
        }
    }
}

#[test]
fn optima_are_reached() {
    for function in GaFunction::ALL {
        let n = 32;
        let problem = GaProblem::new(function, n).unwrap();
        let x = match function {
            GaFunction::Rosenbrock => vec![1.0f32; n],
            GaFunction::Schwefel => vec![420.968_75f32; n],
            _ => vec![0.0f32; n],
        };
        let value = problem.evaluate(&x);
        let optimum = problem.optimum().unwrap();
        assert!(
            (value - optimum).abs() <= 1e-4 * n as f64,
            "{}: {value} vs {optimum}",
            function.name()
        );
    }
}

#[test]
fn binary_problem_evaluates_the_decoded_point() {
    for function in GaFunction::ALL {
        let n = 5;
        let binary = GaBinaryProblem::new(function, n).unwrap();
        assert_eq!(binary.bit_count(), 80);
        let bools: Vec<bool> = (0..80).map(|j| (j * 7 + 3) % 5 < 2).collect();
        let bits = Bits::from_bools(&bools);
        let decoded = binary.decode(&bits);
        let continuous = GaProblem::new(function, n).unwrap();
        assert_eq!(
            binary.evaluate(&bits).to_bits(),
            continuous.evaluate(&decoded).to_bits()
        );
        let (lo, hi) = function.paper_range();
        assert!(
            decoded
                .iter()
                .all(|&v| f64::from(v) >= lo - 1e-4 && f64::from(v) <= hi + 1e-4)
        );
    }
}

#[test]
fn zero_variables_and_bad_ranges_are_errors() {
    assert!(GaProblem::new(GaFunction::Step, 0).is_err());
    assert!(GaBinaryProblem::new(GaFunction::Step, 0).is_err());
    assert!(GaProblem::with_range(GaFunction::Griewank, 4, 1.0, -1.0).is_err());
    assert!(GaProblem::with_range(GaFunction::Griewank, 4, -2048.0, 2048.0).is_ok());
}
