//! A batch's snapshots (the format of [`crate::DpgaCpu`]'s, one per run) and its restore from them.

use evo_core::{Error, Result};

use super::DpgaBatchCuda;
use crate::ops::Evaluation;
use crate::params::ALGORITHM;
use crate::snapshot::DpgaSnapshot;

impl DpgaBatchCuda {
    /// The snapshots of every run (the format of [`crate::DpgaCpu`]'s).
    ///
    /// # Errors
    /// GPU errors.
    pub fn snapshots(&self) -> Result<Vec<DpgaSnapshot>> {
        let total = self.kernel.inequalities + self.kernel.equalities;
        let (m, n, length) = (
            self.params.main_size(),
            self.params.reserve_size(),
            self.kernel.length as usize,
        );
        let main = self.main.to_vec()?;
        let objective = self.main_values.objective.to_vec()?;
        let violation = self.main_values.violation.to_vec()?;
        let satisfied = self.main_values.satisfied.to_vec()?;
        let reserve = self.reserve.to_vec()?;
        let delta = self.delta.to_vec()?;
        let best = self.best.rows.to_vec()?;
        Ok((0..self.runs)
            .map(|r| DpgaSnapshot {
                seed: self.kernel.seed.wrapping_add(r as u64),
                generation: self.generation,
                evaluations: self.evaluations[r],
                length,
                main: main[r * m * length..(r + 1) * m * length].to_vec(),
                main_values: (r * m..(r + 1) * m)
                    .map(|i| Evaluation {
                        objective: objective[i],
                        violation: violation[i],
                        satisfied: satisfied[i],
                        feasible: satisfied[i] == total,
                    })
                    .collect(),
                reserve: reserve[r * n * length..(r + 1) * n * length].to_vec(),
                target_distance: delta[r],
                best: best[r * length..(r + 1) * length].to_vec(),
                best_value: self.best_values[r],
                encoding: self.params.encoding(),
            })
            .collect())
    }

    /// Run `run`'s snapshot.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a run outside the batch; GPU errors.
    pub fn snapshot(&self, run: usize) -> Result<DpgaSnapshot> {
        if run >= self.runs {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "run",
                run,
                format!("below the batch's {} runs", self.runs),
            ));
        }
        let mut all = self.snapshots()?;
        Ok(all.swap_remove(run))
    }

    /// Restores every run from its snapshot (one per run, all at the same generation), from either backend.
    /// Run `r`'s snapshot must carry this batch's seed of run `r` (`seed + r`, wrapping): another seed is
    /// refused, never adopted, as in every engine.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a count, shape or generation mismatch; [`Error::InvalidSnapshot`]
    /// for another seed or a value no run reaches; GPU errors.
    pub fn restore_all(&mut self, snapshots: &[DpgaSnapshot]) -> Result<()> {
        let (m, n, length) = (
            self.params.main_size(),
            self.params.reserve_size(),
            self.kernel.length as usize,
        );
        if snapshots.len() != self.runs {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "snapshots",
                snapshots.len(),
                format!("one per run ({})", self.runs),
            ));
        }
        let generation = snapshots.first().map_or(0, |s| s.generation);
        for (r, s) in snapshots.iter().enumerate() {
            s.check_shape(m, n, length, self.params.encoding())?;
            s.check_values(self.kernel.seed.wrapping_add(r as u64), m)?;
            if s.generation != generation {
                return Err(Error::invalid_parameter(
                    ALGORITHM,
                    "snapshot generations",
                    s.generation,
                    format!("all equal (the first is {generation})"),
                ));
            }
        }
        let total = self.kernel.inequalities + self.kernel.equalities;
        for s in snapshots {
            let consistent = s
                .main_values
                .iter()
                .chain(std::iter::once(&s.best_value))
                .all(|v| v.feasible == (v.satisfied == total));
            if !consistent {
                return Err(Error::invalid_parameter(
                    ALGORITHM,
                    "snapshot evaluations",
                    "a feasible flag that disagrees with the satisfied count",
                    format!("feasible exactly when all {total} constraints hold"),
                ));
            }
        }
        let concat = |f: &dyn Fn(&DpgaSnapshot) -> &[u8]| -> Vec<u8> {
            snapshots.iter().flat_map(|s| f(s).to_vec()).collect()
        };
        self.mean_current = false;
        self.main.copy_from_host(&concat(&|s| &s.main))?;
        self.reserve.copy_from_host(&concat(&|s| &s.reserve))?;
        self.best.rows.copy_from_host(&concat(&|s| &s.best))?;
        let values: Vec<Evaluation> = snapshots
            .iter()
            .flat_map(|s| s.main_values.iter().copied())
            .collect();
        self.main_values
            .objective
            .copy_from_host(&values.iter().map(|v| v.objective).collect::<Vec<_>>())?;
        self.main_values
            .violation
            .copy_from_host(&values.iter().map(|v| v.violation).collect::<Vec<_>>())?;
        self.main_values
            .satisfied
            .copy_from_host(&values.iter().map(|v| v.satisfied).collect::<Vec<_>>())?;
        let best: Vec<Evaluation> = snapshots.iter().map(|s| s.best_value).collect();
        self.best
            .values
            .objective
            .copy_from_host(&best.iter().map(|v| v.objective).collect::<Vec<_>>())?;
        self.best
            .values
            .violation
            .copy_from_host(&best.iter().map(|v| v.violation).collect::<Vec<_>>())?;
        self.best
            .values
            .satisfied
            .copy_from_host(&best.iter().map(|v| v.satisfied).collect::<Vec<_>>())?;
        self.delta.copy_from_host(
            &snapshots
                .iter()
                .map(|s| s.target_distance)
                .collect::<Vec<_>>(),
        )?;
        self.generation = generation;
        self.evaluations = snapshots.iter().map(|s| s.evaluations).collect();
        self.best_values = best;
        Ok(())
    }
}
