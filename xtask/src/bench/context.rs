//! What a suite gets to work with: the run's options, the GPU, progress bars and the two timing helpers.
//!
//! Both helpers run the work a few times to warm up (caches, NVRTC compilation, the buffer pool), then time it
//! `samples` times and report the median. CPU work is timed with `Instant`; GPU work between two events on the
//! device's main stream, on which every launch and copy of `evo-gpu-runtime` is queued.

use std::io::IsTerminal;
use std::time::Instant;

use anyhow::Context;
use evo_gpu_runtime::{Gpu, GpuTimer};

use crate::flags::SuiteFlags;
use indicatif::{ProgressBar, ProgressStyle};
use statrs::statistics::{Data, Median};

/// How many times a measurement runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampling {
    /// Untimed runs first.
    pub warmup: usize,
    /// Timed runs; the median is reported.
    pub samples: usize,
}

/// The timed samples of one measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Every sample, in milliseconds, in the order taken.
    pub samples_ms: Vec<f64>,
}

impl Timing {
    /// The median sample (the mean of the middle two for an even count), NaN when there is none.
    pub fn median_ms(&self) -> f64 {
        median(&self.samples_ms)
    }

    /// How many samples were timed.
    pub fn count(&self) -> usize {
        self.samples_ms.len()
    }

    /// `amount` units per second at the median time, divided by `scale` (1e9 for "G" units).
    pub fn rate(&self, amount: f64, scale: f64) -> f64 {
        amount / (self.median_ms() * 1e-3) / scale
    }
}

/// The median of `values` (the mean of the middle two for an even count), NaN for none.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        f64::NAN
    } else {
        Data::new(values.to_vec()).median()
    }
}

/// The context every suite runs in.
pub struct BenchContext {
    quick: bool,
    cpu: bool,
    gpu: Option<Gpu>,
    cpu_device: String,
    flags: SuiteFlags,
    progress_visible: bool,
}

impl BenchContext {
    /// A context; `gpu` is `Some` only when the CUDA side is to be measured.
    pub fn new(
        quick: bool,
        cpu: bool,
        gpu: Option<Gpu>,
        cpu_device: String,
        flags: SuiteFlags,
    ) -> Self {
        Self {
            quick,
            cpu,
            gpu,
            cpu_device,
            flags,
            progress_visible: std::io::stderr().is_terminal(),
        }
    }

    /// Whether this is a `--quick` run: smaller sizes, fewer samples.
    pub fn quick(&self) -> bool {
        self.quick
    }

    /// Whether the CPU side is measured.
    pub fn cpu(&self) -> bool {
        self.cpu
    }

    /// The GPU to measure, `None` when the CUDA side is skipped.
    pub fn gpu(&self) -> Option<&Gpu> {
        self.gpu.as_ref()
    }

    /// The suites' own flags (`--ma-cases`, `--de-parts`, ...).
    pub fn flags(&self) -> &SuiteFlags {
        &self.flags
    }

    /// The CPU side's device, as written in rows.
    pub fn cpu_device(&self) -> &str {
        &self.cpu_device
    }

    /// The GPU side's device, as written in rows.
    pub fn gpu_device(&self) -> String {
        self.gpu
            .as_ref()
            .map_or_else(|| "none".to_string(), |gpu| gpu.info().name.clone())
    }

    /// Warm-up and sample counts for this run.
    pub fn sampling(&self) -> Sampling {
        if self.quick {
            Sampling {
                warmup: 1,
                samples: 5,
            }
        } else {
            Sampling {
                warmup: 2,
                samples: 11,
            }
        }
    }

    /// A progress bar of `len` steps on stderr, hidden when stderr is not a terminal.
    pub fn progress(&self, len: u64, prefix: &str) -> ProgressBar {
        if !self.progress_visible {
            return ProgressBar::hidden();
        }
        let style =
            ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
        ProgressBar::new(len)
            .with_style(style)
            .with_prefix(prefix.to_string())
    }

    /// Times `work` on the CPU; returns the timing and the last run's value.
    pub fn time_cpu<T>(
        &self,
        mut work: impl FnMut() -> anyhow::Result<T>,
    ) -> anyhow::Result<(Timing, T)> {
        let Sampling { warmup, samples } = self.sampling();
        let mut last = None;
        for _ in 0..warmup {
            last = Some(std::hint::black_box(work()?));
        }
        let mut samples_ms = Vec::with_capacity(samples);
        for _ in 0..samples {
            let start = Instant::now();
            let value = std::hint::black_box(work()?);
            samples_ms.push(start.elapsed().as_secs_f64() * 1e3);
            last = Some(value);
        }
        let value = last.context("timing needs at least one run")?;
        Ok((Timing { samples_ms }, value))
    }

    /// Times `work` on `gpu` between two events on its main stream; returns the timing and the last run's value.
    /// The device is synchronized before each sample, so earlier work is not counted.
    pub fn time_gpu<T>(
        &self,
        gpu: &Gpu,
        mut work: impl FnMut() -> anyhow::Result<T>,
    ) -> anyhow::Result<(Timing, T)> {
        let Sampling { warmup, samples } = self.sampling();
        let mut last = None;
        for _ in 0..warmup {
            last = Some(work()?);
        }
        let timer = GpuTimer::new(gpu)?;
        let stream = gpu.stream();
        let mut samples_ms = Vec::with_capacity(samples);
        for _ in 0..samples {
            gpu.synchronize()?;
            timer.start(&stream)?;
            let value = work()?;
            timer.stop(&stream)?;
            samples_ms.push(f64::from(timer.elapsed_ms()?));
            last = Some(value);
        }
        gpu.synchronize()?;
        let value = last.context("timing needs at least one run")?;
        Ok((Timing { samples_ms }, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let odd = Timing {
            samples_ms: vec![3.0, 1.0, 2.0],
        };
        assert_eq!(odd.median_ms(), 2.0);
        let even = Timing {
            samples_ms: vec![4.0, 1.0, 2.0, 3.0],
        };
        assert_eq!(even.median_ms(), 2.5);
        assert_eq!(even.rate(1e9, 1e9), 400.0);
        assert!(Timing { samples_ms: vec![] }.median_ms().is_nan());
    }

    #[test]
    fn cpu_timing_runs_warmup_plus_samples_and_returns_the_last_value() {
        let context = BenchContext::new(true, true, None, "test cpu".into(), SuiteFlags::default());
        let mut runs = 0;
        let (timing, last) = context
            .time_cpu(|| {
                runs += 1;
                Ok(runs)
            })
            .expect("no error");
        let Sampling { warmup, samples } = context.sampling();
        assert_eq!(runs, warmup + samples);
        assert_eq!(last, runs);
        assert_eq!(timing.count(), samples);
    }
}
