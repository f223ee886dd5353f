//! The parameters of a DE run, validated by `with_*` setters.

use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

mod raw;

/// The name errors give for this crate.
pub(crate) const ALGORITHM: &str = "DE";

/// How the mutant vector is built (step 3.1 of Algorithm 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Strategy {
    /// DE/rand/1, the paper's mutation: `v = x_r1 + F·(x_r2 − x_r3)`.
    #[default]
    Rand1,
    /// DE/best/1: `v = x_best + F·(x_r1 − x_r2)`, best of the parent population.
    Best1,
    /// DE/current-to-best/1: `v = x_i + F·(x_best − x_i) + F·(x_r1 − x_r2)`.
    CurrentToBest1,
}

/// How the trial vector mixes the mutant with the parent (step 3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Crossover {
    /// Standard binomial crossover: coordinate `j` comes from the mutant when `j = j_rand` or `u_j < CR`.
    #[default]
    Binomial,
    /// The paper's printed step read literally: coordinate `j_rand` comes from the *parent*, every other
    /// coordinate from the mutant when `u_j < CR` (spec de.md §3 item 3).
    PaperLiteral,
    /// Exponential crossover: from `j_rand` on (cyclically), `L` consecutive coordinates come from the
    /// mutant, `L = 1 +` the number of leading draws `u_1, u_2, … < CR` (at most `D`).
    Exponential,
}

/// When a trial vector replaces its parent (step 3.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Selection {
    /// Only when strictly better (Algorithm 1's "better"), the default.
    #[default]
    StrictlyBetter,
    /// When better or equal (lets a population drift across plateaus).
    BetterOrEqual,
}

/// Control of `F` and `CR`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Adaptation {
    /// `F` and `CR` fixed for the whole run (the paper).
    #[default]
    Fixed,
    /// jDE (Brest et al. 2006): every vector carries its own `F_i`, `CR_i`, starting at the run's `F` and
    /// `CR`; before building trial `i`, with probability τ1 = 0.1 `F_i' = 0.1 + 0.9·u1`, with probability
    /// τ2 = 0.1 `CR_i' = u2`; the new values are kept only when the trial wins.
    Jde,
}

/// The parameters of a DE run (spec de.md §3). Start from [`DeParams::default`] and change what you need:
///
/// | parameter | default | allowed |
/// | --- | --- | --- |
/// | population `M` | 64 | 4 ..= 2^31 (three distinct partners besides the vector itself) |
/// | `F` (differential weight) | 0.5 | [0, 2] |
/// | `CR` (crossover rate) | 0.9 | [0, 1] |
/// | strategy | DE/rand/1 | [`Strategy`] |
/// | crossover | binomial | [`Crossover`] |
/// | selection | strictly better | [`Selection`] |
/// | adaptation | fixed | [`Adaptation`] (jDE) |
/// | CUDA block size | 256 | a power of two in 32 ..= 1024 (results do not depend on it) |
///
/// ```
/// use evo_de::{DeParams, Strategy};
/// let params = DeParams::default().with_population(512)?.with_strategy(Strategy::Best1);
/// assert_eq!(params.population(), 512);
/// let error = DeParams::default().with_crossover_rate(1.5).unwrap_err();
/// assert_eq!(error.to_string(), "DE: crossover rate CR must be in [0, 1], got 1.5");
/// # Ok::<(), evo_core::Error>(())
/// ```
///
/// Deserialization (a TOML or JSON file, the CLI's `--set`) runs every field through these setters, so it
/// refuses what they refuse with the same message; a missing field takes its default and an unknown field
/// is refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "raw::DeParamsRaw")]
pub struct DeParams {
    population: usize,
    differential_weight: f32,
    crossover_rate: f32,
    strategy: Strategy,
    crossover: Crossover,
    selection: Selection,
    adaptation: Adaptation,
    block: u32,
}

impl Default for DeParams {
    fn default() -> Self {
        Self {
            population: 64,
            differential_weight: 0.5,
            crossover_rate: 0.9,
            strategy: Strategy::Rand1,
            crossover: Crossover::Binomial,
            selection: Selection::StrictlyBetter,
            adaptation: Adaptation::Fixed,
            block: 256,
        }
    }
}

/// The largest population: vector indices travel as `u32` words and grid strides.
pub const MAX_POPULATION: usize = 1 << 31;

impl DeParams {
    /// Sets the population size `M`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `M < 4` or `M > 2^31`.
    pub fn with_population(mut self, population: usize) -> Result<Self> {
        if !(4..=MAX_POPULATION).contains(&population) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "population size M",
                population,
                "in 4 ..= 2^31 (DE/rand/1 needs three partners distinct from the vector)",
            ));
        }
        self.population = population;
        Ok(self)
    }

    /// Sets the differential weight `F` (jDE: its initial value).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `F` is not in `[0, 2]` (NaN included).
    pub fn with_differential_weight(mut self, f: f32) -> Result<Self> {
        if !(0.0..=2.0).contains(&f) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "differential weight F",
                f,
                "in [0, 2]",
            ));
        }
        self.differential_weight = f;
        Ok(self)
    }

    /// Sets the crossover rate `CR` (jDE: its initial value).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `CR` is not in `[0, 1]` (NaN included).
    pub fn with_crossover_rate(mut self, cr: f32) -> Result<Self> {
        if !(0.0..=1.0).contains(&cr) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "crossover rate CR",
                cr,
                "in [0, 1]",
            ));
        }
        self.crossover_rate = cr;
        Ok(self)
    }

    /// Sets the mutation strategy.
    pub fn with_strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Sets the crossover.
    pub fn with_crossover(mut self, crossover: Crossover) -> Self {
        self.crossover = crossover;
        self
    }

    /// Sets the selection rule.
    pub fn with_selection(mut self, selection: Selection) -> Self {
        self.selection = selection;
        self
    }

    /// Sets the control of `F` and `CR`.
    pub fn with_adaptation(mut self, adaptation: Adaptation) -> Self {
        self.adaptation = adaptation;
        self
    }

    /// Sets the CUDA engine's threads per block (one block per vector, a block-stride loop over the
    /// coordinates); the results do not depend on it.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless a power of two in `32 ..= 1024`.
    pub fn with_block_size(mut self, block: u32) -> Result<Self> {
        if !(block.is_power_of_two() && (32..=1024).contains(&block)) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "CUDA block size",
                block,
                "a power of two in 32 ..= 1024",
            ));
        }
        self.block = block;
        Ok(self)
    }

    /// The population size `M`.
    pub fn population(&self) -> usize {
        self.population
    }

    /// The differential weight `F`.
    pub fn differential_weight(&self) -> f32 {
        self.differential_weight
    }

    /// The crossover rate `CR`.
    pub fn crossover_rate(&self) -> f32 {
        self.crossover_rate
    }

    /// The mutation strategy.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The crossover.
    pub fn crossover(&self) -> Crossover {
        self.crossover
    }

    /// The selection rule.
    pub fn selection(&self) -> Selection {
        self.selection
    }

    /// The control of `F` and `CR`.
    pub fn adaptation(&self) -> Adaptation {
        self.adaptation
    }

    /// The CUDA block size.
    pub fn block_size(&self) -> u32 {
        self.block
    }

    /// Checks the dimension a problem brings: word indices are `u32`, and the exponential crossover adds
    /// `D` to an index, so `D < 2^31`.
    pub(crate) fn check_dimension(dimension: usize) -> Result<()> {
        if dimension == 0 || dimension >= 1 << 31 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "dimension D",
                dimension,
                "in 1 ..< 2^31",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_parameter_and_the_range() {
        let f = DeParams::default().with_differential_weight(f32::NAN);
        assert_eq!(
            f.unwrap_err().to_string(),
            "DE: differential weight F must be in [0, 2], got NaN"
        );
        let m = DeParams::default().with_population(3);
        assert!(m.unwrap_err().to_string().contains("population size M"));
        assert!(DeParams::default().with_block_size(96).is_err());
        assert!(DeParams::default().with_block_size(1024).is_ok());
    }
}
