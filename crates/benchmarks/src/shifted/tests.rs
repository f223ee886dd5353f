use super::*;

/// Relative tolerance of the spec's shift check values (printed with 17 significant digits).
const SHIFT_RELATIVE: f64 = 1e-12;
/// The spec prints f(0) with 11 significant digits: half a unit of the last digit is at most 5e-11 relative.
const PRINTED_11_DIGITS: f64 = 5e-11;

fn assert_close(what: &str, got: f64, expected: f64, relative: f64) {
    let scale = expected.abs().max(f64::MIN_POSITIVE);
    assert!(
        (got - expected).abs() <= relative * scale,
        "{what}: got {got:e}, expected {expected:e}"
    );
}

/// Spec benchmarks.md §(b), check values at D = 1000: o[0], o[1], o[999], f(0).
const CHECKS: [(ShiftedFunction, [f64; 3], f64); 6] = [
    (
        ShiftedFunction::Rastrigin,
        [2.7935569286346436, -0.13745002448558807, 3.3005030155181885],
        1.4929309554e4,
    ),
    (
        ShiftedFunction::Griewank,
        [-204.3707733154297, -344.8575744628906, 461.8399963378906],
        1.9722486098e4,
    ),
    (
        ShiftedFunction::Salomon,
        [-74.35842895507812, -40.99619674682617, -79.8558120727539],
        -1.8028623687e2,
    ),
    (
        ShiftedFunction::Discus,
        [-5.168813228607178, -45.79525375366211, 62.054115295410156],
        2.8838928378e7,
    ),
    (
        ShiftedFunction::SumSquares,
        [-0.9454697370529175, -7.399291515350342, 4.700877666473389],
        1.1212893494e7,
    ),
    (
        ShiftedFunction::Schwefel12,
        [9.054963111877441, -26.56627082824707, -54.77050018310547],
        2.8665932959e9,
    ),
];

#[test]
fn shift_vectors_and_values_at_zero_match_the_spec_check_values() {
    for (function, shift, f0) in CHECKS {
        let problem = ShiftedProblem::new(function, 1000).unwrap();
        let o = problem.shift();
        for (&index, &expected) in [0usize, 1, 999].iter().zip(&shift) {
            assert_close(
                &format!("{} o[{index}]", function.name()),
                f64::from(o[index]),
                expected,
                SHIFT_RELATIVE,
            );
        }
        assert_close(
            function.name(),
            problem.evaluate_by(|_| 0.0),
            f0,
            PRINTED_11_DIGITS,
        );
    }
}

#[test]
fn optimum_is_the_shift_vector() {
    for function in ShiftedFunction::ALL {
        for dimension in [1usize, 13, 1000, 5000] {
            let problem = ShiftedProblem::new(function, dimension).unwrap();
            let at_optimum = problem.evaluate(problem.shift());
            assert_eq!(
                at_optimum.to_bits(),
                F_BIAS.to_bits(),
                "{} D = {dimension}",
                function.name()
            );
            let (lo, hi) = function.default_domain();
            let margin = 0.1 * (hi - lo) - 1e-4 * (hi - lo);
            assert!(problem.shift().iter().all(|&v| {
                let v = f64::from(v);
                v >= lo + margin && v <= hi - margin
            }));
        }
    }
}

#[test]
fn key_contains_the_dimension() {
    let small = ShiftedProblem::new(ShiftedFunction::Rastrigin, 1000).unwrap();
    let large = ShiftedProblem::new(ShiftedFunction::Rastrigin, 2000).unwrap();
    assert_ne!(small.shift()[..4], large.shift()[..4]);
}

#[test]
fn bad_dimensions_and_domains_are_errors() {
    assert!(ShiftedProblem::new(ShiftedFunction::Discus, 0).is_err());
    assert!(ShiftedProblem::new(ShiftedFunction::Discus, MAX_DIMENSION + 1).is_err());
    assert!(ShiftedProblem::with_domain(ShiftedFunction::Discus, 10, 1.0, 1.0).is_err());
    assert!(ShiftedProblem::with_domain(ShiftedFunction::Discus, 10, f64::NAN, 1.0).is_err());
}

#[test]
fn sequential_formulas_agree_with_the_tree_forms() {
    // Independent, plainly written formulas in index order, against the tree-summed implementations.
    let d = 777;
    let x: Vec<f32> = (0..d).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
    for function in ShiftedFunction::ALL {
        let problem = ShiftedProblem::new(function, d).unwrap();
        let z: Vec<f64> = x
            .iter()
            .zip(problem.shift())
            .map(|(&a, &b)| f64::from(a) - f64::from(b))
            .collect();
        let g: f64 = z.iter().map(|v| v * v).sum();
        let plain = match function {
            ShiftedFunction::Rastrigin => z
                .iter()
                .map(|v| v * v - 10.0 * (2.0 * std::f64::consts::PI * v).cos() + 10.0)
                .sum::<f64>(),
            ShiftedFunction::Griewank => {
                let p: f64 = z
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (v / ((i + 1) as f64).sqrt()).cos())
                    .product();
                g / 4000.0 - p + 1.0
            }
            ShiftedFunction::Salomon => {
                1.0 - (2.0 * std::f64::consts::PI * g.sqrt()).cos() + 0.1 * g.sqrt()
            }
            ShiftedFunction::Discus => {
                1e6 * z[0] * z[0] + z[1..].iter().map(|v| v * v).sum::<f64>()
            }
            ShiftedFunction::SumSquares => z
                .iter()
                .enumerate()
                .map(|(i, v)| (i + 1) as f64 * v * v)
                .sum(),
            ShiftedFunction::Schwefel12 => {
                let mut s = 0.0;
                z.iter()
                    .map(|v| {
                        s += v;
                        s * s
                    })
                    .sum()
            }
        } + F_BIAS;
        assert_close(function.name(), problem.evaluate(&x), plain, 1e-11);
    }
}
