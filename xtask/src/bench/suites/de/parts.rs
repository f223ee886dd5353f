//! `--de-parts`: which parts of the suite run, so that a long full-mode run can be split over calls or GPUs
//! (e.g. Table 1 on four GPUs, three instances each with `--de-table1-instances`, Table 2 and the timing
//! tables on one of them).

use clap::ValueEnum;

/// A part of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Part {
    /// Table 1 and the Min-Min tables (or the sweep of --de-table1-configs).
    Table1,
    /// Table 2, Rastrigin.
    Table2,
    /// The per-generation timing tables.
    Timing,
    /// The makespan table: DE on the makespan alone, seeded with Min-Min and Sufferage, beside them and the
    /// best known schedules.
    Makespan,
}

/// The parts to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Parts {
    /// Table 1 and the Min-Min tables (or the sweep).
    pub table1: bool,
    /// Table 2, Rastrigin.
    pub table2: bool,
    /// The per-generation timing tables.
    pub timing: bool,
    /// The makespan table.
    pub makespan: bool,
}

impl Parts {
    /// The parts `--de-parts` names; every part when it names none.
    pub(super) fn new(named: &[Part]) -> Self {
        let wants = |part| named.is_empty() || named.contains(&part);
        Self {
            table1: wants(Part::Table1),
            table2: wants(Part::Table2),
            timing: wants(Part::Timing),
            makespan: wants(Part::Makespan),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_parts_run_and_none_named_runs_all() {
        let all = Parts {
            table1: true,
            table2: true,
            timing: true,
            makespan: true,
        };
        assert_eq!(Parts::new(&[]), all);
        assert_eq!(
            Parts::new(&[Part::Timing, Part::Table1]),
            Parts {
                table1: true,
                table2: false,
                timing: true,
                makespan: false
            }
        );
    }
}
