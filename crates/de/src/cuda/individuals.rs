//! Reading and replacing single slots of a [`DeCuda`] population with range copies, so that an island's
//! migrants move without its whole population (a snapshot and a restore copy `M × D` coordinates each way).
//! The copies are batched through the device's page-locked staging ([`RangeReads`], [`RangeWrites`]): a
//! read of `k` slots waits once; a replacement queues its writes and waits once, for the best.

use super::{DeCuda, Fused, best_index_of};
use crate::individual::{DeIndividual, check_replacements, check_slot};
use crate::problem::DeviceProblem;
use evo_core::Result;
use evo_gpu_runtime::{DeviceBuffer, DeviceCopy, RangeReads, RangeWrites};

/// The slot table's entry of a vector in the population buffer (buffer 0), where replacements go.
static IN_POPULATION: [u32; 1] = [0];

/// Adds to `reads` element `slot` of `buffer` for each of `slots`, into `values` in that order.
fn read_each<'a, T: DeviceCopy>(
    reads: &mut RangeReads<'a>,
    buffer: &'a DeviceBuffer<T>,
    slots: &[usize],
    values: &'a mut [T],
) -> Result<()> {
    slots
        .iter()
        .zip(values)
        .try_for_each(|(&slot, value)| reads.read(buffer, slot, std::slice::from_mut(value)))
}

/// Adds to `reads` row `slot` (`d` values) of `buffer` for each of `slots`, into `rows` in that order.
fn read_rows<'a>(
    reads: &mut RangeReads<'a>,
    buffer: &'a DeviceBuffer<f32>,
    slots: &[usize],
    d: usize,
    rows: &'a mut [f32],
) -> Result<()> {
    // D ≥ 1 (checked at construction); `max` only keeps `chunks_exact_mut` total.
    slots
        .iter()
        .zip(rows.chunks_exact_mut(d.max(1)))
        .try_for_each(|(&slot, row)| reads.read(buffer, slot * d, row))
}

impl<P: DeviceProblem> DeCuda<P> {
    /// The fitness of every slot, to minimise, read from the device (one wait).
    ///
    /// # Errors
    /// The device's errors.
    pub fn population_fitness(&self) -> Result<Vec<f64>> {
        let mut fitness = vec![0.0; self.fitness.len()];
        let mut reads = RangeReads::new(&self.gpu);
        reads.read(&self.fitness, 0, &mut fitness)?;
        reads.run()?;
        Ok(fitness)
    }

    /// The individuals in `slots`, in that order, read from the device in one batch with one wait: each
    /// slot's vector, fitness, `F_i` and `CR_i`; on the one-launch path also its slot table entry and its
    /// row of the trial buffer, the table saying which of the two rows is the vector (reading both spares
    /// a wait for the table).
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
        let (k, d) = (slots.len(), self.problem.dimension());
        let mut vectors = vec![0.0f32; k * d];
        let mut fitness = vec![0.0f64; k];
        let mut weights = vec![0.0f32; k];
        let mut rates = vec![0.0f32; k];
        // All 0 (the population buffer) on the four-launch path, which reads no table.
        let mut buffers = vec![0u32; k];
        let mut trial_rows = vec![0.0f32; if self.fused.is_some() { k * d } else { 0 }];
        let mut reads = RangeReads::new(&self.gpu);
        read_rows(&mut reads, &self.population, slots, d, &mut vectors)?;
        read_each(&mut reads, &self.fitness, slots, &mut fitness)?;
        read_each(&mut reads, &self.weights, slots, &mut weights)?;
        read_each(&mut reads, &self.rates, slots, &mut rates)?;
        if let Some(Fused {
            slots: tables,
            current,
            ..
        }) = &self.fused
        {
            read_each(&mut reads, &tables[*current], slots, &mut buffers)?;
            read_rows(&mut reads, &self.trials, slots, d, &mut trial_rows)?;
        }
        reads.run()?;
        Ok((0..k)
            .map(|j| {
                let rows = if buffers[j] == 1 {
                    &trial_rows
                } else {
                    &vectors
                };
                DeIndividual {
                    vector: rows[j * d..(j + 1) * d].to_vec(),
                    fitness: fitness[j],
                    differential_weight: weights[j],
                    crossover_rate: rates[j],
                }
            })
            .collect())
    }

    /// Puts each individual into its slot and finds the best again: the engine then continues as after
    /// [`restore`](evo_core::Engine::restore) of its snapshot with those slots overwritten, bit for bit.
    /// The vectors go into the population buffer, and on the one-launch path each slot's table entry is set
    /// to it (as `restore` puts every vector there), so the table need not be read; the writes are queued
    /// in one batch without a wait, and the best is read back with one.
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] for a slot not below `M` or named twice, or an individual that
    /// `restore` would refuse (its dimension, a coordinate outside the bounds, a non-finite fitness, `F_i`
    /// outside [0, 2], `CR_i` outside [0, 1]); nothing is written then. The device's errors.
    pub fn replace_individuals(&mut self, replacements: &[(usize, DeIndividual)]) -> Result<()> {
        check_replacements(self.params.population(), &self.problem, replacements)?;
        let d = self.problem.dimension();
        let mut writes = RangeWrites::new(&self.gpu);
        writes.write(
            &mut self.population,
            replacements
                .iter()
                .map(|(slot, individual)| (slot * d, individual.vector.as_slice())),
        )?;
        writes.write(
            &mut self.fitness,
            replacements
                .iter()
                .map(|(slot, individual)| (*slot, std::slice::from_ref(&individual.fitness))),
        )?;
        writes.write(
            &mut self.weights,
            replacements.iter().map(|(slot, individual)| {
                (*slot, std::slice::from_ref(&individual.differential_weight))
            }),
        )?;
        writes.write(
            &mut self.rates,
            replacements.iter().map(|(slot, individual)| {
                (*slot, std::slice::from_ref(&individual.crossover_rate))
            }),
        )?;
        if let Some(Fused { slots, current, .. }) = &mut self.fused {
            writes.write(
                &mut slots[*current],
                replacements
                    .iter()
                    .map(|(slot, _)| (*slot, &IN_POPULATION[..])),
            )?;
        }
        writes.run()?;
        self.read_best_through_staging()
    }

    /// As `update_best`, with the best read back through the page-locked staging: finds the best vector on
    /// the device (queued after the writes) and reads its index and fitness.
    fn read_best_through_staging(&mut self) -> Result<()> {
        self.queue_best_index()?;
        let mut pair = [0.0f64; 2];
        let mut reads = RangeReads::new(&self.gpu);
        reads.read(&self.best_fitness, 0, &mut pair)?;
        reads.run()?;
        self.best_host = (best_index_of(pair[1]), pair[0]);
        Ok(())
    }
}
