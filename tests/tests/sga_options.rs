//! The SGA baseline's knapsack options (issue 33) on the GPU equal the CPU bit for bit: the whole state
//! (population, profits, best and its profit) after every generation for 200 generations, each option alone
//! and all together, on Pisinger instances of 100 and 250 items, through `qiga_sga_run_generations`.

use evo_benchmarks::Knapsack;
use evo_benchmarks::knapsack::KnapsackClass;
use evo_core::Engine;
use evo_equivalence::equivalence_test;
use evo_qiga::{KnapsackOptions, LocalSearch, Repair, SgaCpu, SgaCuda, SgaParams};

/// Generations after the initial one (issue 33: 200).
const GENERATIONS: u64 = 200;

equivalence_test!(sga_options_should_match_cpu, [128], |gpu, _block| {
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
            let params = SgaParams::default()
                .with_generations(GENERATIONS)
                .unwrap()
                .with_options(options);
            let mut cpu = SgaCpu::batch(&params, &problem, 900, 6, 0).unwrap();
            let mut cuda = SgaCuda::batch(&params, &problem, 900, 6, gpu).unwrap();
            for generation in 0..=GENERATIONS {
                if generation > 0 {
                    cpu.step().unwrap();
                    cuda.step().unwrap();
                }
                assert_eq!(
                    cpu.snapshot().unwrap(),
                    cuda.snapshot().unwrap(),
                    "{label}, {class:?} {items}: the states differ at generation {generation}"
                );
            }
            assert_eq!(cpu.fingerprint().unwrap(), cuda.fingerprint().unwrap());
        }
    }
});
