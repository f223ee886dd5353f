//! The GA's parameters (Table 2 of the paper), validated by `with_*` setters.

use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

mod raw;

/// The algorithm name in reports and checkpoints, shared by every engine.
pub const ALGORITHM: &str = "GA";

/// The name every GA error starts with.
pub(crate) const COMPONENT: &str = ALGORITHM;

/// The largest population: the bitonic sort runs in one block's shared memory (evo-sort's segment limit).
pub const MAX_POPULATION: usize = evo_sort::MAX_SEGMENT_LEN;

/// Where the GA's random numbers come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GaRng {
    /// Addressed Philox (spec ga.md §4 decision 6): every draw a pure function of its address.
    Philox,
    /// The paper's RNG kernel (spec ga.md §4 decision 7): `threads` xor128 generators fill one array of
    /// random words per generation, laid out `[mutation N·L | tournament k·N | crossover ⌈N/2⌉]`; thread t
    /// writes entries t, t + T, t + 2T, …. The initial population still comes from Philox (GA_INIT).
    PaperXor128 {
        /// The number of generator threads T.
        threads: u32,
    },
}

/// The most xor128 generator threads in paper mode.
pub const MAX_XOR128_THREADS: u32 = 1 << 20;

/// Parameters of the binary GA. Defaults are the paper's Table 2 (the mutation rate 1/L is resolved
/// against the problem's bit count when an engine is built).
///
/// | parameter | default | range |
/// | --- | --- | --- |
/// | population N | 256 | 2..=4096 |
/// | tournament size | 2 | 1..=N |
/// | elite size | 1 | 0..N |
/// | crossover rate p_c (one-point) | 1.0 | [0, 1] |
/// | mutation rate p_m per bit | 1/L | [0, 1] |
/// | generations (budget of [`run`](crate::run)) | 5 000 (n = 32; 10 000 at n = 128) | ≥ 1 |
/// | CUDA block size | 256 | a power of two in 32..=1024 |
/// | RNG | Philox | Philox, or the paper's xor128 kernel with 1..=2^20 threads (crossover rate 1 only) |
///
/// ```
/// use evo_ga::GaParams;
/// let params = GaParams::new().with_population(128)?.with_mutation_rate(0.01)?;
/// assert_eq!(params.population(), 128);
/// assert!(GaParams::new().with_mutation_rate(1.5).is_err());
/// # Ok::<(), evo_core::Error>(())
/// ```
///
/// Deserialization (a TOML or JSON file, the CLI's `--set`) runs every field through these setters, so it
/// refuses what they refuse with the same message; only the final combination of the population with the
/// tournament and elite sizes is judged. A missing field takes its default and an unknown field is refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "raw::GaParamsRaw")]
pub struct GaParams {
    population: usize,
    tournament_size: usize,
    elite: usize,
    crossover_rate: f64,
    mutation_rate: Option<f64>,
    generations: u64,
    block: u32,
    rng: GaRng,
}

impl Default for GaParams {
    fn default() -> Self {
        Self {
            population: 256,
            tournament_size: 2,
            elite: 1,
            crossover_rate: 1.0,
            mutation_rate: None,
            generations: 5_000,
            block: 256,
            rng: GaRng::Philox,
        }
    }
}

fn unit_interval(name: &'static str, value: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(Error::invalid_parameter(
            COMPONENT,
            name,
            value,
            "in [0, 1]",
        ))
    }
}

impl GaParams {
    /// The paper's settings (Table 2).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the population size N.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `2 ≤ N ≤ 4096` and N exceeds the tournament and elite sizes set so far.
    pub fn with_population(mut self, population: usize) -> Result<Self> {
        if !(2..=MAX_POPULATION).contains(&population) {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "population size",
                population,
                format!("in 2..={MAX_POPULATION}"),
            ));
        }
        self.population = population;
        self.check_against_population()?;
        Ok(self)
    }

    /// Sets the tournament size (individuals drawn with replacement per slot; the fittest wins).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `1 ≤ size ≤ N`.
    pub fn with_tournament_size(mut self, size: usize) -> Result<Self> {
        if !(1..=self.population).contains(&size) {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "tournament size",
                size,
                format!("in 1..={} (the population size)", self.population),
            ));
        }
        self.tournament_size = size;
        Ok(self)
    }

    /// Sets the number of elites copied unchanged into the next population.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `elite < N`.
    pub fn with_elite(mut self, elite: usize) -> Result<Self> {
        if elite >= self.population {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "elite size",
                elite,
                format!("in 0..{} (below the population size)", self.population),
            ));
        }
        self.elite = elite;
        Ok(self)
    }

    /// Sets the one-point crossover rate p_c (a pair is crossed when its uniform draw u ∈ (0, 1] is ≤ p_c).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `p_c ∈ [0, 1]`.
    pub fn with_crossover_rate(mut self, rate: f64) -> Result<Self> {
        self.crossover_rate = unit_interval("crossover rate", rate)?;
        Ok(self)
    }

    /// Sets the per-bit mutation rate p_m (default 1/L).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `p_m ∈ [0, 1]`.
    pub fn with_mutation_rate(mut self, rate: f64) -> Result<Self> {
        self.mutation_rate = Some(unit_interval("mutation rate", rate)?);
        Ok(self)
    }

    /// Sets the generation budget of [`run`](crate::run) (engines driven by an
    /// [`Executor`](evo_core::Executor) use its terminations instead).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when it is 0.
    pub fn with_generations(mut self, generations: u64) -> Result<Self> {
        if generations == 0 {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "generations",
                generations,
                "at least 1",
            ));
        }
        self.generations = generations;
        Ok(self)
    }

    /// Sets the CUDA block size (results do not depend on it).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless it is a power of two in 32..=1024.
    pub fn with_block_size(mut self, block: u32) -> Result<Self> {
        if !(block.is_power_of_two() && (32..=1024).contains(&block)) {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "block size",
                block,
                "a power of two in 32..=1024",
            ));
        }
        self.block = block;
        Ok(self)
    }

    /// Uses the paper's RNG kernel: `threads` xor128 generators filling a per-generation array ([`GaRng`]).
    /// The paper-mode array holds one crossover word per pair (the point), so the crossover rate must be 1.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `1 ≤ threads ≤ 2^20`.
    pub fn with_paper_rng(mut self, threads: u32) -> Result<Self> {
        if !(1..=MAX_XOR128_THREADS).contains(&threads) {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "xor128 threads",
                threads,
                format!("in 1..={MAX_XOR128_THREADS}"),
            ));
        }
        self.rng = GaRng::PaperXor128 { threads };
        Ok(self)
    }

    /// The random number source.
    pub fn rng(&self) -> GaRng {
        self.rng
    }

    fn check_against_population(&self) -> Result<()> {
        if self.tournament_size > self.population {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "population size",
                self.population,
                format!("at least the tournament size {}", self.tournament_size),
            ));
        }
        if self.elite >= self.population {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "population size",
                self.population,
                format!("above the elite size {}", self.elite),
            ));
        }
        Ok(())
    }

    /// The population size N.
    pub fn population(&self) -> usize {
        self.population
    }

    /// The tournament size.
    pub fn tournament_size(&self) -> usize {
        self.tournament_size
    }

    /// The elite size.
    pub fn elite(&self) -> usize {
        self.elite
    }

    /// The crossover rate p_c.
    pub fn crossover_rate(&self) -> f64 {
        self.crossover_rate
    }

    /// The mutation rate for strings of `bits` bits: the one set, or 1/L.
    pub fn mutation_rate(&self, bits: usize) -> f64 {
        self.mutation_rate.unwrap_or(1.0 / bits.max(1) as f64)
    }

    /// The generation budget of [`run`](crate::run).
    pub fn generations(&self) -> u64 {
        self.generations
    }

    /// The CUDA block size.
    pub fn block_size(&self) -> u32 {
        self.block
    }

    /// Checks the parameters against a problem of `bits` bits (crossover needs L ≥ 2).
    pub(crate) fn check_problem(&self, bits: usize) -> Result<()> {
        if bits < 2 || bits > u32::MAX as usize / 2 {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "bit count L",
                bits,
                "in 2..=2^31 - 1",
            ));
        }
        if matches!(self.rng, GaRng::PaperXor128 { .. }) && self.crossover_rate < 1.0 {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "crossover rate with the paper's RNG",
                self.crossover_rate,
                "1 (the paper-mode array holds one word per pair, the crossover point)",
            ));
        }
        self.check_against_population()
    }

    /// Words of the paper-mode random array per generation: N·L + k·N + ⌈N/2⌉.
    pub(crate) fn paper_array_len(&self, bits: usize) -> usize {
        let n = self.population;
        n * bits + self.tournament_size * n + n.div_ceil(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_ga_and_the_range() {
        let error = GaParams::new().with_mutation_rate(1.5).unwrap_err();
        assert_eq!(
            error.to_string(),
            "GA: mutation rate must be in [0, 1], got 1.5"
        );
        assert!(GaParams::new().with_crossover_rate(-0.1).is_err());
        assert!(GaParams::new().with_crossover_rate(f64::NAN).is_err());
        assert!(GaParams::new().with_population(1).is_err());
        assert!(GaParams::new().with_population(4097).is_err());
        assert!(GaParams::new().with_block_size(100).is_err());
        assert!(GaParams::new().with_elite(256).is_err());
        assert!(GaParams::new().with_tournament_size(0).is_err());
        assert!(GaParams::new().with_tournament_size(257).is_err());
        let small = GaParams::new().with_elite(5).unwrap();
        assert!(small.with_population(5).is_err());
    }

    #[test]
    fn defaults_are_table_2() {
        let params = GaParams::new();
        assert_eq!(params.population(), 256);
        assert_eq!(params.tournament_size(), 2);
        assert_eq!(params.elite(), 1);
        assert_eq!(params.crossover_rate(), 1.0);
        assert_eq!(params.mutation_rate(512), 1.0 / 512.0);
        assert_eq!(params.mutation_rate(2048), 1.0 / 2048.0);
    }
}
