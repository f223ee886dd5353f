//! Problem traits and their helpers: bounds, bits, batch evaluation, constraints, non-finite fitness.

// Helpers outside `#[test]` functions unwrap too: a failure there is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_core::problem::{DEFAULT_EQUALITY_TOLERANCE, check_fitness_slice, total_violation};
use evo_core::{
    BinaryProblem, Bits, Bounds, ConstrainedProblem, ConstrainedValue, ContinuousProblem, Error,
    check_fitness,
};
use proptest::prelude::*;
use std::cmp::Ordering;

fn is_bounds_error(result: Result<Bounds, Error>) -> bool {
    matches!(
        result,
        Err(Error::InvalidParameter {
            algorithm: "Bounds",
            ..
        })
    )
}

#[test]
fn bounds_accept_a_valid_box() {
    let bounds = Bounds::uniform(3, -1.0, 2.0).unwrap();
    assert_eq!(bounds.dimension(), 3);
    assert_eq!(bounds.lower(), &[-1.0; 3]);
    assert_eq!(bounds.upper(), &[2.0; 3]);
    // A degenerate interval (lower == upper) is a fixed variable, which is allowed.
    assert!(Bounds::new(vec![0.0, 1.0], vec![0.0, 3.0]).is_ok());
}

#[test]
fn bounds_reject_bad_limits() {
    assert!(is_bounds_error(Bounds::new(vec![1.0], vec![0.0])));
    assert!(is_bounds_error(Bounds::new(vec![f32::NAN], vec![0.0])));
    assert!(is_bounds_error(Bounds::new(vec![0.0], vec![f32::INFINITY])));
    assert!(is_bounds_error(Bounds::new(
        vec![f32::NEG_INFINITY],
        vec![0.0]
    )));
    assert!(is_bounds_error(Bounds::new(vec![0.0, 0.0], vec![1.0])));
    assert!(is_bounds_error(Bounds::uniform(0, 0.0, 1.0)));
    let message = Bounds::new(vec![0.0, 5.0], vec![1.0, 2.0])
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("lower[1] = 5") && message.contains("upper[1] = 2"),
        "{message}"
    );
}

#[test]
fn bounds_read_from_json_are_validated() {
    let good: Bounds = serde_json::from_str(r#"{"lower":[0.0],"upper":[1.0]}"#).unwrap();
    assert_eq!(good, Bounds::uniform(1, 0.0, 1.0).unwrap());
    assert!(serde_json::from_str::<Bounds>(r#"{"lower":[2.0],"upper":[1.0]}"#).is_err());
}

#[test]
fn bounds_contain_and_clamp() {
    let bounds = Bounds::new(vec![-1.0, 0.0], vec![1.0, 2.0]).unwrap();
    assert!(bounds.contains(&[-1.0, 2.0]));
    assert!(!bounds.contains(&[-1.5, 1.0]));
    assert!(!bounds.contains(&[0.0]));
    let mut x = [5.0, f32::NAN];
    bounds.clamp(&mut x);
    assert_eq!(x, [1.0, 0.0]);
}

#[test]
fn bits_pack_little_endian_within_words() {
    let mut bools = vec![false; 40];
    bools[0] = true;
    bools[31] = true;
    bools[33] = true;
    let bits = Bits::from_bools(&bools);
    assert_eq!(bits.words(), &[0x8000_0001, 0b10]);
    assert_eq!(bits.len(), 40);
    assert_eq!(bits.count_ones(), 3);
    assert_eq!(bits.to_bools(), bools);
    assert_eq!(Bits::word_count(0), 0);
    assert_eq!(Bits::word_count(32), 1);
    assert_eq!(Bits::word_count(33), 2);
}

#[test]
fn bits_get_and_set_check_the_index() {
    let mut bits = Bits::zeros(5);
    bits.set(4, true).unwrap();
    assert_eq!(bits.get(4), Some(true));
    assert_eq!(bits.get(5), None);
    let error = bits.set(5, true).unwrap_err();
    assert!(
        matches!(
            error,
            Error::InvalidParameter {
                algorithm: "Bits",
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(bits.words(), &[0b10000]);
    bits.set(4, false).unwrap();
    assert!(bits.iter().all(|bit| !bit));
}

#[test]
fn bits_from_words_clears_padding_and_checks_the_count() {
    let bits = Bits::from_words(vec![u32::MAX], 4).unwrap();
    assert_eq!(bits.words(), &[0b1111]);
    assert_eq!(bits, Bits::from_bools(&[true; 4]));
    assert!(Bits::from_words(vec![0, 0], 4).is_err());
    assert!(Bits::from_words(vec![], 1).is_err());
    let json = serde_json::to_string(&bits).unwrap();
    assert_eq!(serde_json::from_str::<Bits>(&json).unwrap(), bits);
    assert!(serde_json::from_str::<Bits>(r#"{"len":40,"words":[1]}"#).is_err());
}

struct Sphere(Bounds);

impl ContinuousProblem for Sphere {
    fn name(&self) -> &str {
        "sphere"
    }
    fn dimension(&self) -> usize {
        self.0.dimension()
    }
    fn bounds(&self) -> &Bounds {
        &self.0
    }
    fn evaluate(&self, x: &[f32]) -> f64 {
        x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
    }
}

#[test]
fn continuous_batch_is_independent_of_the_thread_count() {
    let sphere = Sphere(Bounds::uniform(7, -5.0, 5.0).unwrap());
    let population: Vec<f32> = (0..7 * 301)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.1)
        .collect();
    let sequential: Vec<f64> = population.chunks(7).map(|x| sphere.evaluate(x)).collect();
    for threads in [1, 2, 3] {
        let pool = evo_core::backend::thread_pool(threads).unwrap();
        let mut fitness = vec![0.0; 301];
        pool.install(|| sphere.evaluate_checked(&population, &mut fitness))
            .unwrap();
        let bits = |f: &[f64]| f.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&fitness), bits(&sequential), "{threads} threads");
    }
}

#[test]
fn continuous_checked_batch_rejects_bad_shapes_and_non_finite_values() {
    let sphere = Sphere(Bounds::uniform(2, -5.0, 5.0).unwrap());
    let mut fitness = [0.0; 2];
    let error = sphere
        .evaluate_checked(&[1.0, 2.0, 3.0], &mut fitness)
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::InvalidParameter {
                name: "population length",
                ..
            }
        ),
        "{error}"
    );
    let error = sphere
        .evaluate_checked(&[1.0, 2.0, f32::NAN, 0.0], &mut fitness)
        .unwrap_err();
    assert!(
        matches!(&error, Error::NonFiniteFitness { problem, individual: 1, value } if problem == "sphere" && value.is_nan()),
        "{error}"
    );
}

struct OneMax(usize);

impl BinaryProblem for OneMax {
    fn name(&self) -> &str {
        "onemax"
    }
    fn bit_count(&self) -> usize {
        self.0
    }
    fn evaluate(&self, bits: &Bits) -> f64 {
        -(bits.count_ones() as f64)
    }
}

#[test]
fn binary_batch_reads_packed_rows_and_ignores_padding() {
    let problem = OneMax(33);
    // Row 0: all 33 bits set plus garbage padding; row 1: bits 0 and 32.
    let population = [u32::MAX, u32::MAX, 1, 1];
    let mut fitness = [0.0; 2];
    problem.evaluate_checked(&population, &mut fitness).unwrap();
    assert_eq!(fitness, [-33.0, -2.0]);
    assert!(
        problem
            .evaluate_checked(&population[..3], &mut fitness)
            .is_err()
    );
}

/// Minimise x0 + x1 subject to x0 >= 1 (as 1 - x0 <= 0) and x0 = x1.
struct Line(Bounds);

impl ConstrainedProblem for Line {
    fn name(&self) -> &str {
        "line"
    }
    fn dimension(&self) -> usize {
        2
    }
    fn bounds(&self) -> &Bounds {
        &self.0
    }
    fn inequality_count(&self) -> usize {
        1
    }
    fn equality_count(&self) -> usize {
        1
    }
    fn evaluate(&self, x: &[f32], inequality: &mut [f64], equality: &mut [f64]) -> f64 {
        let (a, b) = (f64::from(x[0]), f64::from(x[1]));
        inequality[0] = 1.0 - a;
        equality[0] = a - b;
        a + b
    }
}

#[test]
fn total_violation_sums_positive_parts_and_tolerated_equalities() {
    assert_eq!(total_violation(&[-1.0, 0.5, 0.25], &[], 1e-4), 0.75);
    assert_eq!(total_violation(&[], &[0.5, -0.5, 1e-5], 0.25), 0.5);
    assert_eq!(
        total_violation(&[0.0], &[1e-4], DEFAULT_EQUALITY_TOLERANCE),
        0.0
    );
    assert!(total_violation(&[f64::NAN], &[], 1e-4).is_nan());
}

#[test]
fn constrained_values_follow_the_feasibility_rules() {
    let problem = Line(Bounds::uniform(2, -5.0, 5.0).unwrap());
    let feasible = problem.evaluate_value(&[1.0, 1.0]);
    assert_eq!(
        feasible,
        ConstrainedValue {
            objective: 2.0,
            violation: 0.0
        }
    );
    let infeasible = problem.evaluate_value(&[0.0, 0.0]);
    assert_eq!(infeasible.violation, 1.0);
    let worse = problem.evaluate_value(&[0.0, 2.0]);
    assert!(!worse.is_feasible());
    assert_eq!(feasible.feasibility_cmp(&infeasible), Ordering::Less);
    assert_eq!(worse.feasibility_cmp(&infeasible), Ordering::Greater);
    let tolerated = problem.evaluate_value(&[1.0, 1.00005]);
    assert!(tolerated.is_feasible(), "within the equality tolerance");
    assert_eq!(feasible.feasibility_cmp(&tolerated), Ordering::Less);

    let population = [1.0, 1.0, 0.0, 0.0, 0.0, 2.0];
    let mut values = [ConstrainedValue {
        objective: 0.0,
        violation: 0.0,
    }; 3];
    problem.evaluate_checked(&population, &mut values).unwrap();
    assert_eq!(values, [feasible, infeasible, worse]);
}

#[test]
fn non_finite_fitness_is_a_typed_error() {
    assert_eq!(check_fitness("p", 0, -3.5).unwrap(), -3.5);
    for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let error = check_fitness("p", 7, value).unwrap_err();
        assert!(
            matches!(error, Error::NonFiniteFitness { individual: 7, .. }),
            "{error}"
        );
    }
    let error = check_fitness_slice("p", &[1.0, f64::INFINITY, f64::NAN]).unwrap_err();
    assert!(
        matches!(error, Error::NonFiniteFitness { individual: 1, .. }),
        "{error}"
    );
    assert!(check_fitness_slice("p", &[1.0, 2.0]).is_ok());
}

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Wrapped(#[serde(with = "evo_core::serde_f64")] f64);

#[test]
fn non_finite_floats_survive_json_through_serde_f64() {
    for value in [f64::INFINITY, f64::NEG_INFINITY] {
        let json = serde_json::to_string(&Wrapped(value)).unwrap();
        assert_eq!(
            serde_json::from_str::<Wrapped>(&json).unwrap(),
            Wrapped(value)
        );
    }
    let nan: Wrapped =
        serde_json::from_str(&serde_json::to_string(&Wrapped(f64::NAN)).unwrap()).unwrap();
    assert!(nan.0.is_nan());
    assert!(serde_json::from_str::<Wrapped>("null").unwrap().0.is_nan());
    assert!(serde_json::from_str::<Wrapped>(r#""fast""#).is_err());
}

proptest! {
    #[test]
    fn bits_round_trip_through_bools(bools in proptest::collection::vec(any::<bool>(), 0..200)) {
        let bits = Bits::from_bools(&bools);
        prop_assert_eq!(bits.to_bools(), bools.clone());
        prop_assert_eq!(bits.count_ones(), bools.iter().filter(|b| **b).count());
        prop_assert_eq!(Bits::from_words(bits.words().to_vec(), bits.len()).unwrap(), bits);
    }

    /// Checkpoints rely on JSON restoring every float bit for bit.
    #[test]
    fn floats_round_trip_through_json_bit_for_bit(a in any::<u32>(), b in any::<u64>()) {
        let (x, y) = (f32::from_bits(a), f64::from_bits(b));
        prop_assume!(x.is_finite() && y.is_finite());
        let (x2, y2): (f32, f64) = serde_json::from_str(&serde_json::to_string(&(x, y)).unwrap()).unwrap();
        prop_assert_eq!(x2.to_bits(), a);
        prop_assert_eq!(y2.to_bits(), b);
    }
}
