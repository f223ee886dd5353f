//! Braun et al.'s range-based ETC generator for the 12 classes and any size.
//!
//! Baseline `b_t = 1 + (φ_b − 1)·u` per task, `ETC[t][j] = b_t·(1 + (φ_r − 1)·u')`, all in `f32`, with `u`
//! the Philox uniform (rng.md §5.1, in `(0, 1]`) of the sequence (`Stream::EtcGenerator`, step 0,
//! individual `t`): word 0 gives `b_t`, word `1 + j` gives machine `j`. Task heterogeneity `φ_b` = 3000 (hi)
//! or 100 (lo); machine heterogeneity `φ_r` = 1000 (hi) or 10 (lo). Then, per row: consistent → sorted
//! ascending (machine 0 fastest for every task); semi-consistent → the values of the even columns
//! 0, 2, 4, … sorted ascending and put back in the even columns, odd columns unchanged; inconsistent →
//! unchanged. (Braun et al. draw from `[1, φ)`; `u = 1` reaches `φ` with probability `2^-25`.)

use super::EtcInstance;
use evo_core::{Error, Result};
use evo_rng::{Philox, Stream};

/// How machine speeds relate across tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Consistency {
    /// Every row ascending: a faster machine is faster for every task (`c`).
    Consistent,
    /// Rows unordered (`i`).
    Inconsistent,
    /// The even columns consistent, the rest not (`s`).
    SemiConsistent,
}

/// High or low heterogeneity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Heterogeneity {
    /// `hi`.
    High,
    /// `lo`.
    Low,
}

/// One of the 12 classes `u_x_yyzz`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EtcClass {
    /// `x`: consistency.
    pub consistency: Consistency,
    /// `yy`: task heterogeneity (`φ_b` = 3000 or 100).
    pub tasks: Heterogeneity,
    /// `zz`: machine heterogeneity (`φ_r` = 1000 or 10).
    pub machines: Heterogeneity,
}

impl EtcClass {
    /// All 12 classes in the order of Braun et al.'s file names (c, i, s × hihi, hilo, lohi, lolo).
    pub fn all() -> [EtcClass; 12] {
        let mut classes = [EtcClass {
            consistency: Consistency::Consistent,
            tasks: Heterogeneity::High,
            machines: Heterogeneity::High,
        }; 12];
        let mut k = 0;
        for consistency in [
            Consistency::Consistent,
            Consistency::Inconsistent,
            Consistency::SemiConsistent,
        ] {
            for tasks in [Heterogeneity::High, Heterogeneity::Low] {
                for machines in [Heterogeneity::High, Heterogeneity::Low] {
                    classes[k] = EtcClass {
                        consistency,
                        tasks,
                        machines,
                    };
                    k += 1;
                }
            }
        }
        classes
    }

    /// The class's file-name code: `u_c_hilo`.
    pub fn code(&self) -> String {
        let consistency = match self.consistency {
            Consistency::Consistent => 'c',
            Consistency::Inconsistent => 'i',
            Consistency::SemiConsistent => 's',
        };
        let level = |h: Heterogeneity| match h {
            Heterogeneity::High => "hi",
            Heterogeneity::Low => "lo",
        };
        format!(
            "u_{consistency}_{}{}",
            level(self.tasks),
            level(self.machines)
        )
    }

    /// `φ_b`: 3000 (hi) or 100 (lo).
    pub fn task_range(&self) -> f32 {
        match self.tasks {
            Heterogeneity::High => 3000.0,
            Heterogeneity::Low => 100.0,
        }
    }

    /// `φ_r`: 1000 (hi) or 10 (lo).
    pub fn machine_range(&self) -> f32 {
        match self.machines {
            Heterogeneity::High => 1000.0,
            Heterogeneity::Low => 10.0,
        }
    }
}

impl EtcInstance {
    /// A generated instance of `class` with `tasks × machines` values from `seed`, named
    /// `<code>-<tasks>x<machines>-seed<seed>`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for zero tasks or machines, more than `u32::MAX` tasks or `u32::MAX − 1`
    /// machines, or a matrix too large to address.
    pub fn generate(class: EtcClass, tasks: usize, machines: usize, seed: u64) -> Result<Self> {
        if machines == 0 || machines >= u32::MAX as usize {
            return Err(Error::invalid_parameter(
                "EtcInstance::generate",
                "machine count",
                machines,
                "in 1..4294967295",
            ));
        }
        if tasks == 0 || u32::try_from(tasks).is_err() || tasks.checked_mul(machines).is_none() {
            return Err(Error::invalid_parameter(
                "EtcInstance::generate",
                "task count",
                tasks,
                "in 1..=4294967295 with tasks x machines addressable",
            ));
        }
        let philox = Philox::new(seed);
        let task_span = class.task_range() - 1.0;
        let machine_span = class.machine_range() - 1.0;
        let mut etc = Vec::with_capacity(tasks * machines);
        for t in 0..tasks as u32 {
            let sequence = philox.sequence(Stream::EtcGenerator, 0, t);
            let baseline = 1.0 + task_span * sequence.uniform_f32(0);
            let row_start = etc.len();
            for j in 0..machines as u32 {
                etc.push(baseline * (1.0 + machine_span * sequence.uniform_f32(1 + j)));
            }
            let row = &mut etc[row_start..];
            match class.consistency {
                Consistency::Consistent => row.sort_by(f32::total_cmp),
                Consistency::SemiConsistent => {
                    let mut even: Vec<f32> = row.iter().step_by(2).copied().collect();
                    even.sort_by(f32::total_cmp);
                    for (slot, value) in row.iter_mut().step_by(2).zip(even) {
                        *slot = value;
                    }
                }
                Consistency::Inconsistent => {}
            }
        }
        Self::new(
            format!("{}-{tasks}x{machines}-seed{seed}", class.code()),
            tasks,
            machines,
            etc,
        )
    }
}
