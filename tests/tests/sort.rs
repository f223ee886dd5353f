//! evo-sort: every GPU routine's permutation or selection equals its CPU twin exactly, at two block sizes, on
//! fixed awkward inputs (`suite::sort`) and on proptest inputs full of duplicates, −0.0/+0.0, ±∞ and NaNs
//! of both signs.

use evo_equivalence::equivalence_test;
use evo_equivalence::suite::CheckReport;
use evo_equivalence::suite::sort::{
    ARRAY_SIZES, EXCHANGE_SHAPES, POPULATION_SIZES, SEGMENT_SHAPES, SPECIALS, SortFitness,
    TOP_K_SHAPES, awkward_fitness, check_argsort, check_exchange, check_segments, check_select,
    check_top_k,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Proptest cases per test, precision and block size: each case is a few kernel launches.
const CASES: u32 = 24;

/// A fitness value: a special value or a small integer (ties) most of the time, any bit pattern otherwise.
fn fitness_value() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => prop::sample::select(SPECIALS.to_vec()),
        3 => (-4i32..4).prop_map(f64::from),
        2 => any::<u64>().prop_map(f64::from_bits),
    ]
}

fn fitness_vec(lengths: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(fitness_value(), lengths)
}

/// Runs `check` on `CASES` generated inputs, converted to `T`; a failed report fails the test with its detail.
fn run_cases<S: Strategy, T: SortFitness>(
    strategy: S,
    check: impl Fn(&[T], &S::Value) -> CheckReport,
    values: impl Fn(&S::Value) -> &[f64],
) {
    let config = Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let outcome = runner.run(&strategy, |input| {
        let fitness: Vec<T> = values(&input).iter().map(|&v| T::from_f64(v)).collect();
        let report = check(&fitness, &input);
        prop_assert!(
            report.passed,
            "{} ({}): {}",
            report.check,
            report.kernel,
            report.detail
        );
        Ok(())
    });
    if let Err(error) = outcome {
        panic!("{error}");
    }
}

fn population_cases<T: SortFitness>(gpu: &evo_equivalence::Gpu, block: u32) {
    for n in POPULATION_SIZES {
        check_segments(gpu, &awkward_fitness::<T>(n, n as u64), n, block).assert_passed();
    }
    run_cases(
        fitness_vec(1..=4096),
        |f: &[T], _| check_segments(gpu, f, f.len(), block),
        |v| v,
    );
}

equivalence_test!(
    population_sort_should_match_cpu,
    [128, 256],
    |gpu, block| {
        population_cases::<f32>(gpu, block);
        population_cases::<f64>(gpu, block);
    }
);

fn segment_cases<T: SortFitness>(gpu: &evo_equivalence::Gpu, block: u32) {
    for (segments, len) in SEGMENT_SHAPES {
        let fitness = awkward_fitness::<T>(segments * len, (segments * len) as u64 + 1);
        check_segments(gpu, &fitness, len, block).assert_passed();
    }
    let shaped = (1usize..=300, 1usize..=40)
        .prop_flat_map(|(len, segments)| (Just(len), fitness_vec(len * segments..=len * segments)));
    run_cases(
        shaped,
        |f: &[T], (len, _): &(usize, Vec<f64>)| check_segments(gpu, f, *len, block),
        |(_, v)| v,
    );
}

equivalence_test!(segmented_sort_should_match_cpu, [128, 256], |gpu, block| {
    segment_cases::<f32>(gpu, block);
    segment_cases::<f64>(gpu, block);
});

equivalence_test!(exchange_should_match_cpu, [128, 256], |gpu, block| {
    for (segments, len, words) in EXCHANGE_SHAPES {
        check_exchange(gpu, segments, len, words, block).assert_passed();
    }
});

fn array_cases<T: SortFitness>(gpu: &evo_equivalence::Gpu, block: u32) {
    for n in ARRAY_SIZES {
        let fitness = awkward_fitness::<T>(n, n as u64 + 2);
        check_argsort(gpu, &fitness, block).assert_passed();
        check_select(gpu, &fitness, block).assert_passed();
    }
    run_cases(
        fitness_vec(0..=20_000),
        |f: &[T], _| check_argsort(gpu, f, block),
        |v| v,
    );
    run_cases(
        fitness_vec(0..=20_000),
        |f: &[T], _| check_select(gpu, f, block),
        |v| v,
    );
}

equivalence_test!(
    argsort_ranks_select_should_match_cpu,
    [128, 256],
    |gpu, block| {
        array_cases::<f32>(gpu, block);
        array_cases::<f64>(gpu, block);
    }
);

fn top_k_cases<T: SortFitness>(gpu: &evo_equivalence::Gpu, block: u32) {
    for (n, k) in TOP_K_SHAPES {
        check_top_k(gpu, &awkward_fitness::<T>(n, n as u64 + 3), k, block).assert_passed();
    }
    let shaped = (1usize..=20_000).prop_flat_map(|n| (1..=n.min(1024), fitness_vec(n..=n)));
    run_cases(
        shaped,
        |f: &[T], (k, _): &(usize, Vec<f64>)| check_top_k(gpu, f, *k, block),
        |(_, v)| v,
    );
}

equivalence_test!(top_k_should_match_cpu, [128, 256], |gpu, block| {
    top_k_cases::<f32>(gpu, block);
    top_k_cases::<f64>(gpu, block);
});

// A small subset of the argsort and top-k cases (several radix passes, several tiles, partial tiles), fast
// enough to run under `compute-sanitizer --tool racecheck`, which the full tests above outlast.
equivalence_test!(
    radix_and_top_k_small_should_match_cpu,
    [128, 256],
    |gpu, block| {
        for n in [4097, 100_003] {
            let fitness = awkward_fitness::<f64>(n, n as u64 + 2);
            check_argsort(gpu, &fitness, block).assert_passed();
            check_select(gpu, &fitness, block).assert_passed();
        }
        for (n, k) in [(5000, 37), (100_003, 1024)] {
            check_top_k(gpu, &awkward_fitness::<f32>(n, n as u64 + 3), k, block).assert_passed();
        }
    }
);
