//! QIGA on your own bit-string problem (issue 29, ARCHITECTURE §5): [`QigaBitsCpu`] and [`QigaBitsCuda`]
//! run the algorithm of the crate docs on any [`BinaryProblem`](evo_core::BinaryProblem) of `L` bits, with
//! an optional [`BitRepair`] as step 3. QIGA maximises; with a problem's fitness `f` (minimised) it
//! maximises `−f`, so step 7's flag reads `f(x) ≤ f(b)` and step 5 keeps the first minimum; the snapshot
//! ([`QigaSnapshot`](crate::QigaSnapshot), the knapsack engines' form) holds `−f` in `profits` and
//! `best_profit`, and the reports give `f`.
//!
//! The CUDA engine takes the bit-string device-evaluation contract of evo-benchmarks
//! ([`DeviceBitProblem`], a [`BitEvaluator`] over the engine's packed rows), the one GA's CUDA engine takes,
//! in each of its three ways:
//!
//! | way | what you write | what QIGA's CUDA engine does |
//! | --- | --- | --- |
//! | 1 | [`UserBits`]: CUDA source defining `evo_user_fitness` for one individual, and its Rust twin | compiles it with NVRTC (errors with NVRTC's log) and launches it on the rows |
//! | 2 | your own `impl DeviceBitProblem` whose [`BitEvaluator`] launches your kernel (or a library call) on the runtime's stream | hands it the device population (`runs · P` rows of `⌈L/32⌉` words) and the fitness buffer |
//! | 3 | [`HostEvaluated`] around any problem, e.g. a [`BatchFn`] closure over the whole population | copies the rows to the host, runs the closure, copies the fitness back; the rest stays on the GPU |
//!
//! The repair has a CPU half ([`BitRepair::repair`], one row) and a device half ([`RowRepairer`], every
//! row, or [`HostRepairer`] for a repair written only in Rust); [`KnapsackRepair`] is the paper's
//! index-order repair, and with it QIGA on the knapsack's
//! [`BinaryProblem`](evo_core::BinaryProblem) (minus the repaired profit) gives the paper engine's bits.
//!
//! **Equivalence.** Under the Exact profile, an evaluator giving its problem's
//! [`evaluate`](evo_core::BinaryProblem::evaluate) bits and a repairer giving its repair's bits make the two
//! engines hold identical snapshots (the observation and the rotation are the paper kernel's operators).
//!
//! **Backends.** [`run_bits`] takes a device-evaluated problem and picks the backend by
//! [`choose_backend`](evo_core::choose_backend); [`run_bits_host_only`] takes a problem without a device
//! evaluation and refuses `Backend::Cuda` with [`Error::NoDeviceEvaluation`](evo_core::Error), while
//! `Backend::Auto` runs it on the CPU and says why in the report. Nothing falls back silently.
//!
//! ```
//! use evo_core::{Backend, Bits};
//! use evo_qiga::{QigaParams, UserBits, run_bits};
//!
//! // OneMax as a minimisation: minus the number of ones, on the GPU by CUDA source, on the CPU by the twin.
//! let onemax = UserBits::new(
//!     "onemax",
//!     64,
//!     "__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {
//!          return -(double)(__popc(bits[0]) + __popc(bits[1]));
//!      }",
//!     |bits: &Bits| -(bits.count_ones() as f64),
//! )?;
//! let params = QigaParams::default().with_generations(100)?;
//! let report = run_bits(&params, onemax, None, 1, Backend::cpu())?;
//! assert!(report.best_fitness <= -48.0, "{}", report.best_fitness);
//! # Ok::<(), evo_core::Error>(())
//! ```

mod cpu;
mod cuda;
pub mod launch;
mod repair;
mod run;

pub use cpu::QigaBitsCpu;
pub use cuda::QigaBitsCuda;
pub use evo_benchmarks::cuda::{BitEvaluator, DeviceBitProblem, EvalSettings};
pub use evo_ga::{BatchFn, HostEvaluated, UserBits};
pub use repair::{BitRepair, HostRepairer, KnapsackRepair, RowRepairer};
pub use run::{run_bits, run_bits_host_only};

use evo_core::{Error, ProblemIdentity, Result, RunFingerprint};

use crate::params::{ALGORITHM, QigaParams};
use crate::snapshot::{RunConfig, RunState};

/// Checks what both engines need of a bit-string batch: runs, no knapsack options, a usable length.
pub(crate) fn check_params(
    params: &QigaParams,
    problem: &str,
    bits: usize,
    runs: usize,
) -> Result<()> {
    if runs == 0 {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "number of runs in a batch",
            0,
            "at least 1",
        ));
    }
    if !params.options().is_paper() {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "knapsack options",
            format!("{:?} (problem `{problem}`)", params.options()),
            "the paper's (all off) on a bit-string problem; give a BitRepair for step 3 instead",
        ));
    }
    let genes = runs
        .checked_mul(params.population())
        .and_then(|rows| rows.checked_mul(bits));
    if bits == 0 || genes.is_none_or(|g| g > u32::MAX as usize) {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "bit count",
            format!(
                "{bits} (problem `{problem}`, {runs} runs × {})",
                params.population()
            ),
            "at least 1, with runs × population × bits below 2^32",
        ));
    }
    Ok(())
}

/// The problem part of a bit-string run's fingerprint.
pub(crate) fn identity(problem: &str, bits: usize) -> ProblemIdentity {
    ProblemIdentity::new(problem, bits)
}

/// Adds the repair's name (or `none`) to a fingerprint, so a checkpoint of another repair is refused.
pub(crate) fn repair_fingerprint(
    fingerprint: RunFingerprint,
    repair: Option<&str>,
) -> Result<RunFingerprint> {
    fingerprint.with_parameter("repair", &repair.unwrap_or("none"))
}

/// The runs before generation 0: every θ = π/4, nothing observed, no b (its score −∞, so generation 0's
/// best always replaces it).
pub(crate) fn initial_runs(runs: Vec<RunConfig>, population: usize, bits: usize) -> Vec<RunState> {
    runs.into_iter()
        .map(|config| RunState {
            best_profit: f64::NEG_INFINITY,
            ..RunState::initial(config, population, bits)
        })
        .collect()
}
