//! The practitioner's knapsack options of the QIGA (issue 33), each off in the paper presets:
//!
//! | option | what it does | default |
//! | --- | --- | --- |
//! | [`Repair::Greedy`] | every observation is made feasible by the greedy repair (drop the worst profit/weight items, then add the best that fit; `evo_benchmarks::Knapsack::greedy_repair_row`) instead of the paper's index-order repair | [`Repair::IndexOrder`] |
//! | greedy seed | before generation 0 the run's best `b` is the greedy solution (`Knapsack::greedy_solution`, improved by the local search when that is on), so the first rotations already pull towards it | off |
//! | [`LocalSearch::SwapWindow`] | whenever step 5 replaces `b`, `b` is improved by 1-flip / swap moves ([`local_search`](crate::local_search)) | [`LocalSearch::Off`] |
//!
//! With every option off the engines compute the paper's QIGA bit for bit (the same kernel as before). The
//! options change the fingerprint only when one is on (the field is left out of it when all are off).
//!
//! The SGA baseline takes the same options ([`SgaParams::with_options`](crate::SgaParams::with_options)),
//! adapted to a population: the repair of every individual, the seed as individual 0 of generation 0, and the
//! local search of the individual that becomes the best so far, in place in the population.

use evo_benchmarks::Knapsack;
use serde::{Deserialize, Serialize};

use crate::local_search::improve;

/// How an observation is made feasible (step 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Repair {
    /// The paper's index-order repair (`Knapsack::repair_row`).
    #[default]
    IndexOrder,
    /// The greedy repair in profit/weight order (`Knapsack::greedy_repair_row`).
    Greedy,
}

/// Whether and how the best `b` is improved after it changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LocalSearch {
    /// No local search (the paper).
    #[default]
    Off,
    /// Best-improvement 1-flip (add) and swap moves among the [`WINDOW`](crate::local_search::WINDOW) best
    /// items left out and the `WINDOW` worst items taken, in profit/weight order
    /// ([`local_search`](crate::local_search)).
    SwapWindow,
}

/// The knapsack options of one engine (module docs); [`Default`] is the paper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KnapsackOptions {
    /// The repair of step 3.
    pub repair: Repair,
    /// Whether `b` starts as the greedy solution.
    pub greedy_seed: bool,
    /// The local search of `b`.
    pub local_search: LocalSearch,
}

impl KnapsackOptions {
    /// The paper's setting: index-order repair, no seed, no local search.
    pub const PAPER: Self = Self {
        repair: Repair::IndexOrder,
        greedy_seed: false,
        local_search: LocalSearch::Off,
    };

    /// Every option on: greedy repair, greedy seed, swap-window local search.
    pub const PRACTICAL: Self = Self {
        repair: Repair::Greedy,
        greedy_seed: true,
        local_search: LocalSearch::SwapWindow,
    };

    /// Whether these are the paper's options (all off).
    pub fn is_paper(&self) -> bool {
        *self == Self::PAPER
    }

    /// Repairs a packed row in place by the chosen repair and returns its profit.
    pub(crate) fn repair_evaluate(&self, problem: &Knapsack, row: &mut [u32]) -> f64 {
        match self.repair {
            Repair::IndexOrder => problem.repair_row(row).profit,
            Repair::Greedy => problem.greedy_repair_row(row).profit,
        }
    }

    /// Improves `b` in place when the local search is on; returns its profit either way.
    pub(crate) fn improve_best(&self, problem: &Knapsack, best: &mut [u32], profit: f64) -> f64 {
        match self.local_search {
            LocalSearch::Off => profit,
            LocalSearch::SwapWindow => improve(problem, best),
        }
    }

    /// The initial `b` and its profit: the greedy solution (improved when the local search is on) when the
    /// seed is on, else the empty row with profit −1 (the paper's "nothing yet").
    pub(crate) fn initial_best(&self, problem: &Knapsack) -> (Vec<u32>, f64) {
        if self.greedy_seed {
            let (mut row, packing) = problem.greedy_solution();
            let profit = self.improve_best(problem, &mut row, packing.profit);
            (row, profit)
        } else {
            (vec![0; evo_core::Bits::word_count(problem.len())], -1.0)
        }
    }
}
