//! [`DeIndividual`]: one slot of a DE population with everything that travels with it, so that a few slots
//! of a running engine can be read and replaced without a whole snapshot (an island's migrants).
//!
//! Replacing slots with [`DeCpu::replace_individuals`](crate::DeCpu::replace_individuals) or
//! [`DeCuda::replace_individuals`](crate::DeCuda::replace_individuals) leaves the engine exactly as
//! [`restore`](evo_core::Engine::restore) of its own snapshot with those slots overwritten would, bit for
//! bit, and checks the new slots as `restore` checks every slot.

use crate::params::ALGORITHM;
use evo_core::{ContinuousProblem, Error, Result, snapshot_checks};
use serde::{Deserialize, Serialize};

/// One individual of a DE population: its vector, its fitness and its own `F_i` and `CR_i` (which jDE
/// adapts; constant otherwise).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeIndividual {
    /// The vector, `D` coordinates.
    pub vector: Vec<f32>,
    /// Its fitness (to minimise).
    pub fitness: f64,
    /// Its differential weight `F_i`.
    pub differential_weight: f32,
    /// Its crossover rate `CR_i`.
    pub crossover_rate: f32,
}

impl DeIndividual {
    /// Checks what a restore checks of one slot: `D` coordinates within the problem's bounds, a finite
    /// fitness, `F_i` in [0, 2] and `CR_i` in [0, 1]. `slot` names the slot in the error.
    pub(crate) fn check<P: ContinuousProblem + ?Sized>(
        &self,
        slot: usize,
        problem: &P,
    ) -> Result<()> {
        if self.vector.len() != problem.dimension() {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "individual's coordinates",
                format!("{} for slot {slot}", self.vector.len()),
                format!("the problem's dimension D = {}", problem.dimension()),
            ));
        }
        let field = |name: &str| format!("individual for slot {slot}: {name}");
        snapshot_checks::within_bounds(
            ALGORITHM,
            &field("vector"),
            &self.vector,
            problem.bounds(),
        )?;
        snapshot_checks::finite(ALGORITHM, &field("fitness"), &[self.fitness])?;
        snapshot_checks::in_range(
            ALGORITHM,
            &field("differential_weight"),
            &[self.differential_weight],
            0.0,
            2.0,
        )?;
        snapshot_checks::in_range(
            ALGORITHM,
            &field("crossover_rate"),
            &[self.crossover_rate],
            0.0,
            1.0,
        )
    }
}

/// Checks that `slot` is one of the `population` slots.
pub(crate) fn check_slot(population: usize, slot: usize) -> Result<()> {
    if slot < population {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            ALGORITHM,
            "slot",
            slot,
            format!("below the population size M = {population}"),
        ))
    }
}

/// Checks a set of replacements before any is written: every slot below `population` and named once, every
/// individual valid for `problem` ([`DeIndividual::check`]).
pub(crate) fn check_replacements<P: ContinuousProblem + ?Sized>(
    population: usize,
    problem: &P,
    replacements: &[(usize, DeIndividual)],
) -> Result<()> {
    let mut seen = vec![false; population];
    for (slot, individual) in replacements {
        check_slot(population, *slot)?;
        if std::mem::replace(&mut seen[*slot], true) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "replacement slots",
                format!("slot {slot} twice"),
                "each slot at most once",
            ));
        }
        individual.check(*slot, problem)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use evo_benchmarks::DeRastrigin;

    fn individual(vector: Vec<f32>) -> DeIndividual {
        DeIndividual {
            vector,
            fitness: 1.5,
            differential_weight: 0.5,
            crossover_rate: 0.9,
        }
    }

    #[test]
    fn replacements_inside_the_population_and_the_bounds_are_accepted() {
        let problem = DeRastrigin::new(2).unwrap();
        let ok = [
            (0, individual(vec![1.0, -2.0])),
            (3, individual(vec![0.0, 5.12])),
        ];
        check_replacements(4, &problem, &ok).unwrap();
    }

    #[test]
    fn a_slot_outside_twice_or_an_invalid_individual_is_refused_by_name() {
        let problem = DeRastrigin::new(2).unwrap();
        let error = |replacements: &[(usize, DeIndividual)]| {
            check_replacements(4, &problem, replacements)
                .unwrap_err()
                .to_string()
        };
        assert!(
            error(&[(4, individual(vec![0.0; 2]))]).contains("below the population size M = 4")
        );
        let twice = error(&[(1, individual(vec![0.0; 2])), (1, individual(vec![0.0; 2]))]);
        assert!(twice.contains("slot 1 twice"), "{twice}");
        let short = error(&[(2, individual(vec![0.0; 3]))]);
        assert!(short.contains("dimension D = 2"), "{short}");
        let outside = error(&[(2, individual(vec![0.0, 6.0]))]);
        assert!(outside.contains("slot 2"), "{outside}");
        let mut nan = individual(vec![0.0; 2]);
        nan.fitness = f64::NAN;
        assert!(error(&[(0, nan)]).contains("fitness"));
        let mut weight = individual(vec![0.0; 2]);
        weight.differential_weight = 2.5;
        assert!(error(&[(0, weight)]).contains("differential_weight"));
        let mut rate = individual(vec![0.0; 2]);
        rate.crossover_rate = -0.1;
        assert!(error(&[(0, rate)]).contains("crossover_rate"));
    }
}
