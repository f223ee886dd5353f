//! evo-qiga's knapsack options (issue 33) on the GPU equal the CPU bit for bit: snapshots at every generation
//! for 200 generations, each option alone and all together, on Pisinger instances of 100 and 250 items (a
//! batch of runs with different angles), through `qiga_run_generations_options`.

use evo_benchmarks::Knapsack;
use evo_benchmarks::knapsack::KnapsackClass;
use evo_equivalence::equivalence_test;
use evo_equivalence::suite::qiga::{check_runs, random_angles};
use evo_qiga::{KnapsackOptions, LocalSearch, QigaParams, Repair, RunConfig};

/// Generations after the initial one (issue 33: 200).
const GENERATIONS: u64 = 200;

equivalence_test!(qiga_options_should_match_cpu, [128, 256], |gpu, block| {
    let cases = [
        (
            "greedy repair",
            KnapsackOptions {
                repair: Repair::Greedy,
                ..KnapsackOptions::PAPER
            },
        ),
        (
            "greedy seed",
            KnapsackOptions {
                greedy_seed: true,
                ..KnapsackOptions::PAPER
            },
        ),
        (
            "local search",
            KnapsackOptions {
                local_search: LocalSearch::SwapWindow,
                ..KnapsackOptions::PAPER
            },
        ),
        ("every option", KnapsackOptions::PRACTICAL),
    ];
    for (class, items) in [
        (KnapsackClass::StronglyCorrelated, 250),
        (KnapsackClass::Uncorrelated, 100),
    ] {
        let problem = Knapsack::generate_class(class, items, 1000, 33).unwrap();
        for (label, options) in cases {
            let params = QigaParams::default()
                .with_block_size(block)
                .unwrap()
                .with_options(options);
            let runs = RunConfig::batch(7, &random_angles(33, 8));
            check_runs(gpu, &problem, &params, runs, GENERATIONS, label).assert_passed();
        }
    }
});

// The paper's options and every option on a large instance: the warp repairs cross many 32-item chunks, and
// the local search's windows start far into the order.
equivalence_test!(qiga_large_instance_should_match_cpu, [256], |gpu, block| {
    let problem =
        Knapsack::generate_class(KnapsackClass::WeaklyCorrelated, 2000, 1000, 33).unwrap();
    assert!(evo_qiga::cuda::exact::sums_are_exact(problem.weights()));
    for (label, options) in [
        ("paper, 2000 items", KnapsackOptions::PAPER),
        ("every option, 2000 items", KnapsackOptions::PRACTICAL),
    ] {
        let params = QigaParams::default()
            .with_block_size(block)
            .unwrap()
            .with_options(options);
        let runs = RunConfig::batch(11, &random_angles(34, 3));
        check_runs(gpu, &problem, &params, runs, 50, label).assert_passed();
    }
});

// An instance whose f64 sums round (weights spread over 2^−20 .. 2^26): the kernel must keep the serial
// loops, which match the CPU, for the paper's repair and for every option.
equivalence_test!(qiga_inexact_sums_should_match_cpu, [128], |gpu, block| {
    let weights: Vec<f32> = (0..120)
        .map(|j| {
            let scale = if j % 5 == 0 { 2.0f32.powi(26) } else { 1.0 };
            (1.0 + j as f32 * 0.37 + 2.0f32.powi(-20)) * scale
        })
        .collect();
    let profits: Vec<f32> = weights.iter().map(|w| w * 1.1 + 0.3).collect();
    let capacity = weights.iter().map(|w| f64::from(*w)).sum::<f64>() / 2.0;
    let problem = Knapsack::new("spread", capacity, weights, profits).unwrap();
    assert!(!evo_qiga::cuda::exact::sums_are_exact(problem.weights()));
    for (label, options) in [
        ("paper, inexact sums", KnapsackOptions::PAPER),
        ("every option, inexact sums", KnapsackOptions::PRACTICAL),
    ] {
        let params = QigaParams::default()
            .with_block_size(block)
            .unwrap()
            .with_options(options);
        let runs = RunConfig::batch(5, &random_angles(35, 4));
        check_runs(gpu, &problem, &params, runs, GENERATIONS, label).assert_passed();
    }
});
