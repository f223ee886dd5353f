//! The whole state of a DPGA run.

use crate::ops::Evaluation;
use crate::params::{ALGORITHM, DpgaParams, Encoding};
use evo_core::{
    Bounds, ConstrainedProblem, Error, ProblemIdentity, Result, RunFingerprint, snapshot_checks,
};
use serde::{Deserialize, Serialize};

/// The run's fingerprint, shared by [`DpgaCpu`](crate::DpgaCpu) and [`DpgaCuda`](crate::DpgaCuda): seed,
/// parameters and problem (name, dimension, bounds).
pub(crate) fn fingerprint<P: ConstrainedProblem + ?Sized>(
    seed: u64,
    params: &DpgaParams,
    problem: &P,
) -> Result<RunFingerprint> {
    fingerprint_of(seed, params, problem.name(), problem.bounds())
}

/// [`fingerprint`] from the problem's name and box (what a CUDA engine keeps of its problem).
pub(crate) fn fingerprint_of(
    seed: u64,
    params: &DpgaParams,
    name: &str,
    bounds: &Bounds,
) -> Result<RunFingerprint> {
    RunFingerprint::new(seed, params, ProblemIdentity::continuous(name, bounds))
}

/// A DPGA run's state after a generation; restoring it continues the run bit for bit, on either backend,
/// into an engine created with the same seed (another seed is refused, as in every engine).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DpgaSnapshot {
    /// The run's seed (the Philox key of every draw: tournaments, crossover, mutation, crossbreeding).
    pub seed: u64,
    /// Generations completed; the next generation draws with step = this value.
    pub generation: u64,
    /// Objective evaluations so far (initial draws included).
    pub evaluations: u64,
    /// Bits per individual, `L = D·b`.
    pub length: usize,
    /// The main population `M`, row-major `m × L` bits (0 or 1).
    pub main: Vec<u8>,
    /// The evaluations of `M`.
    pub main_values: Vec<Evaluation>,
    /// The reserve population `R`, row-major `n × L` bits.
    pub reserve: Vec<u8>,
    /// The target distance δ.
    pub target_distance: f64,
    /// The best individual found so far (bits) and its evaluation.
    pub best: Vec<u8>,
    /// The evaluation of `best`.
    pub best_value: Evaluation,
    /// How the bits decode (the evaluations above hold under it); absent in snapshots written before the
    /// option existed, which were all binary.
    #[serde(default = "binary_encoding")]
    pub encoding: Encoding,
}

fn binary_encoding() -> Encoding {
    Encoding::Binary
}

impl DpgaSnapshot {
    /// Checks the values `restore` takes, after the shape: the seed equal to the engine's `seed`, a
    /// generation below 2^32 (the Philox step word), evaluations no fewer than the generations' breeding
    /// needs (`generation · m`), and finite objectives and violations.
    pub(crate) fn check_values(&self, seed: u64, m: usize) -> Result<()> {
        snapshot_checks::equal(ALGORITHM, "seed", self.seed, seed)?;
        snapshot_checks::at_most(
            ALGORITHM,
            "generation",
            self.generation,
            u64::from(u32::MAX),
            "the Philox step word is 32 bits",
        )?;
        match self.generation.checked_mul(m as u64) {
            Some(least) if self.evaluations >= least => {}
            least => {
                return Err(Error::invalid_snapshot(
                    ALGORITHM,
                    "evaluations",
                    self.evaluations,
                    match least {
                        Some(least) => format!("at least {least} (m evaluations per generation)"),
                        None => "a generation count whose m · generation fits 64 bits".to_string(),
                    },
                ));
            }
        }
        let values = self
            .main_values
            .iter()
            .chain(std::iter::once(&self.best_value));
        for (i, value) in values.enumerate() {
            let field = if i == self.main_values.len() {
                "best_value".to_string()
            } else {
                format!("main_values[{i}]")
            };
            snapshot_checks::finite(ALGORITHM, &format!("{field}.objective"), &[value.objective])?;
            if !(value.violation.is_finite() && value.violation >= 0.0) {
                return Err(Error::invalid_snapshot(
                    ALGORITHM,
                    format!("{field}.violation"),
                    value.violation,
                    "a finite number ≥ 0",
                ));
            }
        }
        Ok(())
    }

    /// Checks the snapshot against an engine with `m`, `n`, `L` and `encoding`.
    pub(crate) fn check_shape(
        &self,
        m: usize,
        n: usize,
        length: usize,
        encoding: Encoding,
    ) -> Result<()> {
        if self.encoding != encoding {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "snapshot encoding",
                format!("{:?}", self.encoding),
                format!("the engine's ({encoding:?})"),
            ));
        }
        let bits_ok = |v: &[u8]| v.iter().all(|&b| b <= 1);
        let consistent = self.length == length
            && self.main.len() == m * length
            && self.main_values.len() == m
            && self.reserve.len() == n * length
            && self.best.len() == length
            && bits_ok(&self.main)
            && bits_ok(&self.reserve)
            && bits_ok(&self.best)
            && (0.0..=1.0).contains(&self.target_distance);
        if consistent {
            Ok(())
        } else {
            Err(Error::invalid_parameter(
                ALGORITHM,
                "snapshot shape",
                format!(
                    "L = {}, {} main bits, {} main values, {} reserve bits, δ = {}",
                    self.length,
                    self.main.len(),
                    self.main_values.len(),
                    self.reserve.len(),
                    self.target_distance
                ),
                format!("m = {m}, n = {n}, L = {length} with bits in {{0, 1}} and δ in [0, 1]"),
            ))
        }
    }
}
