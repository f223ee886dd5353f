//! `DevicePool`: independent jobs spread over every visible GPU, one host thread per device.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use evo_core::{Error, Result};

use crate::Gpu;

/// A set of devices that run independent jobs (meta-optimization, batched trials, islands).
///
/// Jobs are taken from one shared queue by one host thread per device, so a faster device takes more jobs;
/// results come back in job order whatever device ran them.
#[derive(Debug, Clone)]
pub struct DevicePool {
    gpus: Vec<Gpu>,
}

impl DevicePool {
    /// Every visible device; [`Error::NoGpu`] when there is none.
    pub fn all() -> Result<Self> {
        let gpus = Gpu::all()?;
        if gpus.is_empty() {
            return Err(Error::NoGpu {
                reason: "DevicePool needs at least one CUDA device and this machine has none"
                    .into(),
            });
        }
        Ok(Self { gpus })
    }

    /// The devices with the given indices (each must exist; duplicates are rejected).
    pub fn with_devices(indices: &[usize]) -> Result<Self> {
        if indices.is_empty() {
            return Err(Error::invalid_parameter(
                "DevicePool",
                "device list",
                "[]",
                "at least one device index",
            ));
        }
        for (i, index) in indices.iter().enumerate() {
            if indices[..i].contains(index) {
                return Err(Error::invalid_parameter(
                    "DevicePool",
                    "device list",
                    format!("{indices:?}"),
                    "distinct device indices",
                ));
            }
        }
        let gpus = indices
            .iter()
            .map(|&i| Gpu::open(i))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { gpus })
    }

    /// The devices of the pool.
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    /// Number of devices.
    pub fn len(&self) -> usize {
        self.gpus.len()
    }

    /// Whether the pool is empty (never, for a pool built by its constructors).
    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty()
    }

    /// Runs `work(gpu, job)` for every job and returns the results in job order. After the first error no
    /// new job starts; the error of the lowest-numbered failed job is returned.
    pub fn run<J, R, F>(&self, jobs: Vec<J>, work: F) -> Result<Vec<R>>
    where
        J: Send,
        R: Send,
        F: Fn(&Gpu, J) -> Result<R> + Sync,
    {
        let count = jobs.len();
        let queue: Mutex<VecDeque<(usize, J)>> = Mutex::new(jobs.into_iter().enumerate().collect());
        let results: Mutex<Vec<Option<Result<R>>>> = Mutex::new((0..count).map(|_| None).collect());
        let failed = AtomicBool::new(false);
        std::thread::scope(|scope| {
            for gpu in &self.gpus {
                let (queue, results, failed, work) = (&queue, &results, &failed, &work);
                scope.spawn(move || {
                    while !failed.load(Ordering::Relaxed) {
                        let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
                        let Some((index, job)) = next else { break };
                        let outcome = work(gpu, job);
                        if outcome.is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        results.lock().unwrap_or_else(|p| p.into_inner())[index] = Some(outcome);
                    }
                });
            }
        });
        let mut ordered = Vec::with_capacity(count);
        for outcome in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
            match outcome {
                Some(Ok(value)) => ordered.push(value),
                // The lowest-numbered error wins because outcomes are visited in job order.
                Some(Err(error)) => return Err(error),
                // A job is skipped only after another one failed, and that failure is returned above or below.
                None => {}
            }
        }
        if ordered.len() == count {
            Ok(ordered)
        } else {
            Err(unfinished_job())
        }
    }
}

fn unfinished_job() -> Error {
    Error::Driver {
        call: "DevicePool::run".into(),
        message: "a job did not run because an earlier job failed".into(),
    }
}
