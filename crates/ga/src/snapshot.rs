//! The GA's whole state, shared by the CPU and CUDA engines (a snapshot taken on one restores on the other).

use evo_core::{
    BinaryProblem, Bits, Error, ProblemIdentity, Result, RunFingerprint, snapshot_checks,
};
use serde::{Deserialize, Serialize};

use crate::params::{ALGORITHM, COMPONENT, GaParams};

/// The problem part of the fingerprint: the function's name and its bit count.
pub(crate) fn problem_identity<P: BinaryProblem + ?Sized>(problem: &P) -> ProblemIdentity {
    ProblemIdentity::new(problem.name(), problem.bit_count())
}

/// The run's fingerprint, shared by every GA engine: seed, parameters (the CUDA block size left out:
/// results do not depend on it) and problem.
pub(crate) fn fingerprint(
    seed: u64,
    params: &GaParams,
    problem: ProblemIdentity,
) -> Result<RunFingerprint> {
    let mut fingerprint = RunFingerprint::new(seed, params, problem)?;
    fingerprint.parameters.remove("block");
    Ok(fingerprint)
}

/// The state after a generation: the population sorted best first (rows of ⌈L/32⌉ words in the [`Bits`]
/// layout), its fitness, the best solution so far and the counters. The RNG needs no state: every draw is
/// addressed by (seed; stream, generation, individual, word), and the seed belongs to the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GaSnapshot {
    /// Generations completed (0 after initialisation).
    pub generation: u64,
    /// Objective function evaluations so far.
    pub evaluations: u64,
    /// The bit count L of every individual.
    pub bits: usize,
    /// N rows of ⌈L/32⌉ words, best first; padding bits are zero.
    pub population: Vec<u32>,
    /// The fitness of each row, ascending (the workspace order: value, then lower index).
    pub fitness: Vec<f64>,
    /// The best individual so far, ⌈L/32⌉ words.
    pub best: Vec<u32>,
    /// Its fitness.
    pub best_fitness: f64,
    /// Paper RNG mode: the state (x, y, z, w) of every xor128 thread; empty on the Philox path.
    #[serde(default)]
    pub xor128: Vec<[u32; 4]>,
}

impl GaSnapshot {
    /// The number of individuals.
    pub fn population_size(&self) -> usize {
        self.fitness.len()
    }

    /// Words per individual.
    pub fn words(&self) -> usize {
        Bits::word_count(self.bits)
    }

    /// Row `i` of the population.
    pub fn row(&self, i: usize) -> &[u32] {
        let w = self.words();
        &self.population[i * w..(i + 1) * w]
    }

    /// Whether two snapshots hold the same state bit for bit (fitness compared by their bits, so `-0.0` and
    /// `0.0` differ and the check never relies on float equality).
    pub fn bit_identical(&self, other: &Self) -> bool {
        let same_fitness = self.fitness.len() == other.fitness.len()
            && self
                .fitness
                .iter()
                .zip(&other.fitness)
                .all(|(a, b)| a.to_bits() == b.to_bits());
        self.generation == other.generation
            && self.evaluations == other.evaluations
            && self.bits == other.bits
            && self.population == other.population
            && self.best == other.best
            && self.best_fitness.to_bits() == other.best_fitness.to_bits()
            && self.xor128 == other.xor128
            && same_fitness
    }

    /// Checks everything `restore` needs before taking the snapshot: the shape ([`check_shape`]), counters
    /// the GA reaches (`evaluations = N + generation·(N − elite)`, `generation + 1` below 2^32, the RNG step
    /// word), finite fitness sorted ascending, a finite best fitness no worse than the population's best,
    /// and zero padding bits.
    ///
    /// [`check_shape`]: Self::check_shape
    pub(crate) fn check_values(
        &self,
        params: &GaParams,
        bits: usize,
        xor128_threads: usize,
    ) -> Result<()> {
        let n = params.population();
        self.check_shape(n, bits, xor128_threads)?;
        snapshot_checks::at_most(
            ALGORITHM,
            "generation",
            self.generation,
            u64::from(u32::MAX) - 1,
            "the RNG step word is 32 bits",
        )?;
        let per_generation = (n - params.elite().min(n)) as u64;
        snapshot_checks::counter(
            ALGORITHM,
            "evaluations",
            self.evaluations,
            self.generation
                .checked_mul(per_generation)
                .and_then(|e| e.checked_add(n as u64)),
            "N + generation · (N − elite)",
        )?;
        snapshot_checks::finite(ALGORITHM, "fitness", &self.fitness)?;
        snapshot_checks::finite(ALGORITHM, "best_fitness", &[self.best_fitness])?;
        if let Some(i) = self.fitness.windows(2).position(|pair| pair[1] < pair[0]) {
            return Err(Error::invalid_snapshot(
                ALGORITHM,
                format!("fitness[{}]", i + 1),
                self.fitness[i + 1],
                format!(
                    "at least fitness[{i}] = {} (rows are sorted best first)",
                    self.fitness[i]
                ),
            ));
        }
        if self
            .fitness
            .first()
            .is_some_and(|&first| self.best_fitness > first)
        {
            return Err(Error::invalid_snapshot(
                ALGORITHM,
                "best_fitness",
                self.best_fitness,
                format!("at most the population's best, {}", self.fitness[0]),
            ));
        }
        let w = self.words();
        let padding = (w * 32 - bits) as u32;
        if padding > 0 {
            let mask = u32::MAX << (32 - padding);
            let rows = self
                .population
                .chunks_exact(w)
                .chain(std::iter::once(&self.best[..]));
            if let Some(row) = rows.clone().position(|row| row[w - 1] & mask != 0) {
                let field = if row == n {
                    "best".to_string()
                } else {
                    format!("population[{row}]")
                };
                return Err(Error::invalid_snapshot(
                    ALGORITHM,
                    field,
                    "an individual with padding bits set",
                    format!("zero bits beyond bit {bits}"),
                ));
            }
        }
        Ok(())
    }

    /// Checks that the snapshot fits an engine of `population` individuals of `bits` bits with
    /// `xor128_threads` paper-mode generators (0 on the Philox path).
    pub(crate) fn check_shape(
        &self,
        population: usize,
        bits: usize,
        xor128_threads: usize,
    ) -> Result<()> {
        let w = Bits::word_count(bits);
        let fits = self.bits == bits
            && self.xor128.len() == xor128_threads
            && self.fitness.len() == population
            && self.population.len() == population * w
            && self.best.len() == w;
        if fits {
            Ok(())
        } else {
            Err(Error::invalid_parameter(
                COMPONENT,
                "snapshot shape",
                format!(
                    "{} individuals of {} bits ({} words, best of {} words, {} xor128 states)",
                    self.fitness.len(),
                    self.bits,
                    self.population.len(),
                    self.best.len(),
                    self.xor128.len()
                ),
                format!("{population} individuals of {bits} bits, {xor128_threads} xor128 states"),
            ))
        }
    }
}
