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
