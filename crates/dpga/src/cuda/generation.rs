//! One generation of a batch (spec §2 items 4–9) as the launch sequence of the module's table, and the
//! end of a generation: δ, the best so far and the one read-back.

use evo_core::{Error, Result};

use super::DpgaBatchCuda;
use super::launch::{self, DpgaKernelParams, MainSet, SurvivalSets};
use crate::ops::Evaluation;
use crate::params::ALGORITHM;

/// A count of the kernels' report (satisfied constraints, or the first non-finite row with u32::MAX for
/// none), which travels as an f64 beside the objective and violation.
// The kernel writes u32 values, which an f64 holds exactly, so the cast gives them back unchanged.
#[allow(clippy::cast_possible_truncation)]
fn report_count(x: f64) -> u32 {
    x as u32
}

impl DpgaBatchCuda {
    /// δ adaptation (`adapt`) and the best-so-far update, then one read-back: the status (a non-finite
    /// evaluation is an error) and the best values.
    pub(super) fn finish_generation(&mut self, adapt: bool) -> Result<()> {
        let p = DpgaKernelParams {
            phase: u32::from(adapt),
            ..self.kernel
        };
        launch::finish(
            &self.gpu,
            MainSet {
                rows: &self.main,
                values: &self.main_values,
            },
            &self.scratch.main_chosen,
            &mut self.delta,
            &mut self.best,
            &self.status,
            &mut self.scratch.report,
            &p,
            self.block,
        )?;
        let report = self.scratch.report.to_vec()?;
        // The read-back ran every queued evaluation: a stream-ordered evaluator reports what it found.
        self.evaluation.check()?;
        if let Some(row) = report
            .chunks_exact(4)
            .map(|r| report_count(r[3]))
            .find(|&s| s != u32::MAX)
        {
            return Err(Error::NonFiniteFitness {
                problem: self.problem.clone(),
                individual: row as usize,
                value: f64::NAN,
            });
        }
        let total = self.kernel.inequalities + self.kernel.equalities;
        self.best_values = report
            .chunks_exact(4)
            .map(|r| Evaluation {
                objective: r[0],
                violation: r[1],
                satisfied: report_count(r[2]),
                feasible: report_count(r[2]) == total,
            })
            .collect();
        Ok(())
    }

    /// One generation of every run (spec §2 items 4–9).
    ///
    /// # Errors
    /// [`Error::NonFiniteFitness`]; [`Error::InvalidParameter`] past generation 2^32 − 1; GPU errors.
    pub fn step(&mut self) -> Result<()> {
        let generation = u32::try_from(self.generation).map_err(|_| {
            Error::invalid_parameter(
                ALGORITHM,
                "generation",
                self.generation,
                "below 2^32 (the Philox step word)",
            )
        })?;
        let (gpu, block) = (&self.gpu, self.block);
        let k = self.kernel;
        let base = DpgaKernelParams {
            step: generation,
            ..k
        };
        let with_rows = |rows: u32| DpgaKernelParams { rows, ..base };
        let select = |a: u32, b: u32, count: u32| DpgaKernelParams {
            select_a: a,
            select_b: b,
            select_count: count,
            ..base
        };
        let (m, n, c) = (k.main_size, k.reserve_size, k.crossbreed);
        let s = &mut self.scratch;

        if !self.mean_current {
            launch::mean_vector(gpu, &self.main, &mut s.mean, &base, block)?;
        }
        // Set again once M_{t+1} and its mean are in place (an error on the way leaves it false).
        self.mean_current = false;
        launch::reserve_fitness(
            gpu,
            &self.reserve,
            &s.mean,
            &self.delta,
            &mut s.reserve_fr,
            &with_rows(n),
            block,
        )?;
        // Step 4.
        launch::breed_main(
            gpu,
            &self.main,
            &self.main_values,
            &mut s.offspring_main,
            &base,
            block,
        )?;
        self.evaluation.evaluate(
            gpu,
            &s.offspring_main,
            &self.bounds,
            &mut s.offspring_main_values,
            &mut self.status,
            &s.main_count,
            &with_rows(m),
            block,
        )?;
        // Step 5.
        launch::breed_reserve(
            gpu,
            &self.reserve,
            &s.reserve_fr,
            &mut s.offspring_reserve,
            &base,
            block,
        )?;
        launch::reserve_fitness(
            gpu,
            &s.offspring_reserve,
            &s.mean,
            &self.delta,
            &mut s.offspring_reserve_fr,
            &with_rows(n),
            block,
        )?;
        // Step 6.
        launch::select_main(
            gpu,
            &s.offspring_main_values,
            &s.crossbred_values,
            &mut s.best_main,
            &select(m, 0, c / 2),
            block,
        )?;
        launch::select_reserve(
            gpu,
            &s.offspring_reserve_fr,
            &s.crossbred_fr,
            &mut s.best_reserve,
            &select(n, 0, c / 2),
            block,
        )?;
        launch::crossbreed(
            gpu,
            &s.offspring_main,
            &s.offspring_reserve,
            &s.best_main,
            &s.best_reserve,
            &mut s.crossbred,
            &base,
            block,
        )?;
        self.evaluation.evaluate(
            gpu,
            &s.crossbred,
            &self.bounds,
            &mut s.crossbred_values,
            &mut self.status,
            &s.crossbred_count,
            &with_rows(c),
            block,
        )?;
        // Step 7.
        let e_m = k.main_elites;
        launch::select_main(
            gpu,
            &self.main_values,
            &s.crossbred_values,
            &mut s.main_elites,
            &select(m, 0, e_m),
            block,
        )?;
        launch::select_main(
            gpu,
            &s.offspring_main_values,
            &s.crossbred_values,
            &mut s.main_chosen,
            &select(m, c, m - e_m),
            block,
        )?;
        launch::gather_main(
            gpu,
            MainSet {
                rows: &self.main,
                values: &self.main_values,
            },
            MainSet {
                rows: &s.offspring_main,
                values: &s.offspring_main_values,
            },
            MainSet {
                rows: &s.crossbred,
                values: &s.crossbred_values,
            },
            &s.main_elites,
            &s.main_chosen,
            &mut s.next_main,
            &mut s.next_main_values,
            &base,
            block,
        )?;
        // Step 8: f_r against M_{t+1} with the current δ.
        launch::mean_vector(gpu, &s.next_main, &mut s.mean, &base, block)?;
        launch::reserve_fitness_survival(
            gpu,
            SurvivalSets {
                reserve: &self.reserve,
                offspring: &s.offspring_reserve,
                crossbred: &s.crossbred,
                reserve_fr: &mut s.reserve_fr,
                offspring_fr: &mut s.offspring_reserve_fr,
                crossbred_fr: &mut s.crossbred_fr,
            },
            &s.mean,
            &self.delta,
            &base,
            block,
        )?;
        let e_r = k.reserve_elites;
        launch::select_reserve(
            gpu,
            &s.reserve_fr,
            &s.crossbred_fr,
            &mut s.reserve_elites,
            &select(n, 0, e_r),
            block,
        )?;
        launch::select_reserve(
            gpu,
            &s.offspring_reserve_fr,
            &s.crossbred_fr,
            &mut s.reserve_chosen,
            &select(n, c, n - e_r),
            block,
        )?;
        launch::gather_reserve(
            gpu,
            &self.reserve,
            &s.offspring_reserve,
            &s.crossbred,
            &s.reserve_elites,
            &s.reserve_chosen,
            &mut s.next_reserve,
            &base,
            block,
        )?;
        std::mem::swap(&mut self.main, &mut s.next_main);
        std::mem::swap(&mut self.main_values, &mut s.next_main_values);
        std::mem::swap(&mut self.reserve, &mut s.next_reserve);
        // `s.mean` is the mean of `next_main`, now `main`: the next generation's first launch is not needed.
        self.mean_current = true;
        // Step 9 and the best so far.
        self.finish_generation(true)?;
        self.generation += 1;
        let per_generation = (m + c) as u64;
        for e in &mut self.evaluations {
            *e += per_generation;
        }
        Ok(())
    }
}
