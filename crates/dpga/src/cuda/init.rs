//! The initialisation of a batch (spec §2 item 2): M0 drawn by batches until every run has `m` candidates
//! (feasible ones under the feasible initialisation) or its draw budget is spent, then R0 uniform.

use evo_core::{Error, Result};

use super::DpgaBatchCuda;
use super::launch::{self, DeviceValues, DpgaKernelParams, InitPool};

impl DpgaBatchCuda {
    /// Step 2: M0 by batches of `m` candidates per run, R0 uniform, then the best so far.
    pub(super) fn initialise(&mut self) -> Result<()> {
        let gpu = &self.gpu.clone();
        let (block, runs) = (self.block, self.runs);
        let m = self.params.main_size();
        let length = self.kernel.length as usize;
        let main_size = self.kernel.main_size;
        // min(max_draws, M); a draw limit beyond u32::MAX is beyond M too.
        let first_batch =
            u32::try_from(self.kernel.max_draws).map_or(main_size, |draws| draws.min(main_size));
        let mut count = gpu.upload(&vec![first_batch; runs])?;
        let mut draws = gpu.alloc_zeroed::<u64>(runs)?;
        let mut candidates = gpu.alloc_zeroed::<u8>(runs * m * length)?;
        let mut candidate_values = DeviceValues::alloc(gpu, runs * m)?;
        let pool = || -> Result<InitPool> {
            Ok(InitPool {
                rows: gpu.alloc_zeroed(runs * m * length)?,
                values: DeviceValues::alloc(gpu, runs * m)?,
                draws: gpu.alloc_zeroed(runs * m)?,
            })
        };
        let (mut kept, mut next) = (pool()?, pool()?);
        let mut p = DpgaKernelParams {
            step: 0,
            rows: self.kernel.main_size,
            phase: 1,
            ..self.kernel
        };
        loop {
            launch::draw_rows(gpu, &mut candidates, &draws, &count, &p, block)?;
            self.evaluation.evaluate(
                gpu,
                &candidates,
                &self.bounds,
                &mut candidate_values,
                &mut self.status,
                &count,
                &p,
                block,
            )?;
            launch::init_merge(
                gpu,
                &kept,
                &candidates,
                &candidate_values,
                &mut next,
                &mut draws,
                &mut count,
                &p,
                block,
            )?;
            std::mem::swap(&mut kept, &mut next);
            p.phase = 0;
            self.check_status()?;
            let done = count.to_vec()?.iter().all(|&c| c == 0);
            // The read-back ran the batch's evaluation: a user evaluation's non-finite value stops the
            // initialisation here rather than after the whole draw budget.
            self.evaluation.check()?;
            if done {
                break;
            }
        }
        self.main = kept.rows;
        self.main_values = kept.values;
        self.evaluations = draws.to_vec()?;
        let zero_base = gpu.alloc_zeroed::<u64>(runs)?;
        let reserve_count = gpu.upload(&vec![self.kernel.reserve_size; runs])?;
        let p = DpgaKernelParams {
            step: 1,
            rows: self.kernel.reserve_size,
            ..self.kernel
        };
        launch::draw_rows(
            gpu,
            &mut self.reserve,
            &zero_base,
            &reserve_count,
            &p,
            block,
        )?;
        self.finish_generation(false)
    }

    /// The first non-finite evaluation of the lowest run, as the CPU reports it (row index within the
    /// evaluated set; the GPU does not keep the value, reported as NaN).
    fn check_status(&mut self) -> Result<()> {
        let status = self.status.to_vec()?;
        match status.iter().find(|&&s| s != u32::MAX) {
            Some(&row) => Err(Error::NonFiniteFitness {
                problem: self.problem.clone(),
                individual: row as usize,
                value: f64::NAN,
            }),
            None => Ok(()),
        }
    }
}
