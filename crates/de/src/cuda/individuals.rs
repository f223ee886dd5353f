//! Reading and replacing single slots of a [`DeCuda`] population with range copies, so that an island's
//! migrants move without its whole population (a snapshot and a restore copy `M × D` coordinates each way).

use super::{DeCuda, Fused};
use crate::individual::{DeIndividual, check_replacements, check_slot};
use crate::problem::DeviceProblem;
use evo_core::Result;

impl<P: DeviceProblem> DeCuda<P> {
    /// The fitness of every slot, to minimise, read from the device.
    ///
    /// # Errors
    /// The device's errors.
    pub fn population_fitness(&self) -> Result<Vec<f64>> {
        self.fitness.to_vec()
    }

    /// The individuals in `slots`, in that order, read from the device: the per-slot values in one copy
    /// each, and one copy per vector from the buffer that holds it.
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] for a slot not below `M`; the device's errors.
    pub fn individuals(&self, slots: &[usize]) -> Result<Vec<DeIndividual>> {
        let m = self.params.population();
        for &slot in slots {
            check_slot(m, slot)?;
        }
        if slots.is_empty() {
            return Ok(Vec::new());
        }
        let fitness = self.fitness.to_vec()?;
        let weights = self.weights.to_vec()?;
        let rates = self.rates.to_vec()?;
        let d = self.problem.dimension();
        let in_trials = self.trial_buffer_slots()?;
        slots
            .iter()
            .map(|&slot| {
                let mut vector = vec![0.0f32; d];
                let source = if in_trials[slot] {
                    &self.trials
                } else {
                    &self.population
                };
                source.copy_range_to_host(slot * d, &mut vector)?;
                Ok(DeIndividual {
                    vector,
                    fitness: fitness[slot],
                    differential_weight: weights[slot],
                    crossover_rate: rates[slot],
                })
            })
            .collect()
    }

    /// Puts each individual into its slot (the vector into the buffer that holds that slot's vector, so the
    /// one-launch generation's slot table stays valid) and finds the best again: the engine then continues
    /// as after [`restore`](evo_core::Engine::restore) of its snapshot with those slots overwritten, bit
    /// for bit.
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] for a slot not below `M` or named twice, or an individual that
    /// `restore` would refuse (its dimension, a coordinate outside the bounds, a non-finite fitness, `F_i`
    /// outside [0, 2], `CR_i` outside [0, 1]); nothing is written then. The device's errors.
    pub fn replace_individuals(&mut self, replacements: &[(usize, DeIndividual)]) -> Result<()> {
        check_replacements(self.params.population(), &self.problem, replacements)?;
        let d = self.problem.dimension();
        let in_trials = self.trial_buffer_slots()?;
        for (slot, individual) in replacements {
            let vectors = if in_trials[*slot] {
                &mut self.trials
            } else {
                &mut self.population
            };
            vectors.copy_range_from_host(slot * d, &individual.vector)?;
            self.fitness
                .copy_range_from_host(*slot, &[individual.fitness])?;
            self.weights
                .copy_range_from_host(*slot, &[individual.differential_weight])?;
            self.rates
                .copy_range_from_host(*slot, &[individual.crossover_rate])?;
        }
        self.update_best()
    }

    /// For every slot, whether its vector lives in the trial buffer (buffer 1 of the one-launch path's double
    /// buffer, as the current slot table says; never on the four-launch path): one read of the table.
    fn trial_buffer_slots(&self) -> Result<Vec<bool>> {
        match &self.fused {
            Some(Fused { slots, current, .. }) => Ok(slots[*current]
                .to_vec()?
                .into_iter()
                .map(|buffer| buffer == 1)
                .collect()),
            None => Ok(vec![false; self.params.population()]),
        }
    }
}
