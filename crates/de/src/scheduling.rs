//! DE on the ETC scheduling problem of evo-benchmarks: the encoding of a schedule as a DE vector and the
//! seeding of the initial population with constructive heuristics' schedules (Min-Min, Sufferage).
//!
//! A seeded engine replaces the first rows of its initial population (drawn as usual, so the other rows
//! keep their random words) by the encoded schedules, in the order given, and evaluates them: on the CPU
//! engine in place, on the CUDA engine by uploading the same rows, so both engines start from the same
//! population and stay bit-identical. The heuristics are deterministic CPU code, run once per engine.

use crate::{DeCpu, DeCuda};
use evo_benchmarks::scheduling::{EtcProblem, HeuristicSchedule, min_min, sufferage};
use evo_core::Result;
use serde::{Deserialize, Serialize};

/// The largest machine index whose interval middle `j + 0.5` is exact in `f32` (below 2^23 the spacing of
/// `f32` is at most 0.5).
const EXACT_MIDDLE: u32 = (1 << 23) - 1;

/// The vector whose truncation ([`EtcProblem::machine_of`]) is `schedule`: machine `j` becomes `j + 0.5`, the
/// middle of its interval `[j, j + 1)`, so a small DE step keeps the task on its machine. From 2^23 on,
/// `j + 0.5` is not an `f32` (it would round to an even neighbour, another machine), so `j` itself is used.
pub fn encode_schedule(schedule: &[u32]) -> Vec<f32> {
    schedule
        .iter()
        .map(|&j| {
            if j <= EXACT_MIDDLE {
                j as f32 + 0.5
            } else {
                // Exact: EtcProblem keeps m, hence j, below 2^24.
                j as f32
            }
        })
        .collect()
}

/// A constructive heuristic of evo-benchmarks whose schedule can seed DE's initial population.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Heuristic {
    /// Min-Min ([`min_min`]).
    MinMin,
    /// Sufferage ([`sufferage`]).
    Sufferage,
}

impl Heuristic {
    /// Every heuristic, in the order [`with_heuristic_seeds`](DeCpu::with_heuristic_seeds) documents.
    pub const ALL: [Heuristic; 2] = [Heuristic::MinMin, Heuristic::Sufferage];

    /// The heuristic's schedule of `problem`'s instance.
    pub fn schedule(self, problem: &EtcProblem) -> HeuristicSchedule {
        match self {
            Heuristic::MinMin => min_min(problem.instance()),
            Heuristic::Sufferage => sufferage(problem.instance()),
        }
    }

    /// The heuristic's schedule as a DE vector ([`encode_schedule`]).
    pub fn vector(self, problem: &EtcProblem) -> Vec<f32> {
        encode_schedule(&self.schedule(problem).schedule)
    }
}

/// The Min-Min schedule of `problem`'s instance as a DE vector, for
/// [`DeCpu::with_initial_vectors`](crate::DeCpu::with_initial_vectors) and its CUDA twin.
pub fn min_min_vector(problem: &EtcProblem) -> Vec<f32> {
    Heuristic::MinMin.vector(problem)
}

/// The seed vectors of `heuristics`, in their order.
pub fn heuristic_vectors(problem: &EtcProblem, heuristics: &[Heuristic]) -> Vec<Vec<f32>> {
    heuristics.iter().map(|h| h.vector(problem)).collect()
}

impl DeCpu<EtcProblem> {
    /// Replaces the first rows of the initial population by the schedules of `heuristics` (row `k` holds
    /// the schedule of `heuristics[k]`, [`encode_schedule`]d), as
    /// [`with_initial_vectors`](DeCpu::with_initial_vectors).
    ///
    /// # Errors
    /// As [`with_initial_vectors`](DeCpu::with_initial_vectors): after the first step, or more heuristics
    /// than the population size.
    pub fn with_heuristic_seeds(self, heuristics: &[Heuristic]) -> Result<Self> {
        let seeds = heuristic_vectors(self.problem(), heuristics);
        self.with_initial_vectors(&seeds)
    }
}

impl DeCuda<EtcProblem> {
    /// The CUDA twin of [`DeCpu::with_heuristic_seeds`]: the same rows, computed on the host and uploaded.
    ///
    /// # Errors
    /// As the CPU twin; GPU errors.
    pub fn with_heuristic_seeds(self, heuristics: &[Heuristic]) -> Result<Self> {
        let seeds = heuristic_vectors(self.problem(), heuristics);
        self.with_initial_vectors(&seeds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DeParams;
    use evo_benchmarks::scheduling::{EtcClass, EtcInstance, EtcObjective};
    use evo_core::{ContinuousProblem, Engine};

    #[test]
    fn the_encoding_decodes_to_the_schedule() {
        let instance = EtcInstance::generate(EtcClass::all()[4], 40, 16, 1).unwrap();
        let problem = EtcProblem::new(instance, 0.75).unwrap();
        for heuristic in Heuristic::ALL {
            let schedule = heuristic.schedule(&problem).schedule;
            let vector = heuristic.vector(&problem);
            assert_eq!(problem.schedule_of(&vector), schedule);
            let fitness = problem.instance().fitness(&schedule, 0.75).unwrap();
            assert_eq!(problem.evaluate(&vector).to_bits(), fitness.to_bits());
        }
        assert_eq!(min_min_vector(&problem), Heuristic::MinMin.vector(&problem));
    }

    #[test]
    fn machines_past_two_to_the_23_encode_to_themselves() {
        // One task on 2^24 machines: every index near the top must come back (j + 0.5 would round to an
        // even neighbour from 2^23 on).
        let machines = 1usize << 24;
        let instance = EtcInstance::new("wide", 1, machines, vec![1.0; machines]).unwrap();
        let problem = EtcProblem::new(instance, 0.75).unwrap();
        for j in [
            0,
            EXACT_MIDDLE,
            EXACT_MIDDLE + 1,
            EXACT_MIDDLE + 2,
            (1 << 24) - 1,
        ] {
            let vector = encode_schedule(&[j]);
            assert_eq!(problem.schedule_of(&vector), vec![j], "machine {j}");
        }
    }

    #[test]
    fn heuristic_seeds_fill_the_first_rows_in_order() {
        let instance = EtcInstance::generate(EtcClass::all()[1], 64, 8, 9).unwrap();
        let problem = EtcProblem::with_objective(instance, EtcObjective::Makespan).unwrap();
        let params = DeParams::default().with_population(8).unwrap();
        let plain = DeCpu::new(params.clone(), problem.clone(), 4, 1).unwrap();
        let seeded = DeCpu::new(params, problem.clone(), 4, 1)
            .unwrap()
            .with_heuristic_seeds(&Heuristic::ALL)
            .unwrap();
        let (plain, seeded) = (plain.snapshot().unwrap(), seeded.snapshot().unwrap());
        let d = problem.dimension();
        for (k, heuristic) in Heuristic::ALL.into_iter().enumerate() {
            let row = &seeded.population[k * d..(k + 1) * d];
            assert_eq!(row, heuristic.vector(&problem).as_slice());
            let makespan = heuristic.schedule(&problem).makespan;
            assert!((seeded.fitness[k] - makespan).abs() <= 1e-9 * makespan);
        }
        // The other rows keep their random words.
        assert_eq!(seeded.population[2 * d..], plain.population[2 * d..]);
    }

    #[test]
    fn more_seeds_than_the_population_are_refused() {
        let instance = EtcInstance::generate(EtcClass::all()[1], 16, 4, 9).unwrap();
        let problem = EtcProblem::new(instance, 0.75).unwrap();
        let params = DeParams::default().with_population(4).unwrap();
        let five = [Heuristic::MinMin; 5];
        let Err(error) = DeCpu::new(params, problem, 4, 1)
            .unwrap()
            .with_heuristic_seeds(&five)
        else {
            panic!("five seeds in a population of 4 were accepted");
        };
        assert_eq!(
            error.to_string(),
            "DE: number of initial vectors must be at most the population size 4, got 5"
        );
    }
}
