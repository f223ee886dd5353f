//! DPGA parameters: Table II of the fragment plus the choices spec §2–§4 adds, validated by `with_*` setters.

use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

mod raw;

/// The algorithm name used in errors and checkpoints.
pub const ALGORITHM: &str = "DPGA";

/// How two evaluated individuals of the main population compare (spec §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConstraintHandling {
    /// Maximum constraint satisfaction: more satisfied constraints first, then objective (all satisfied) or
    /// total violation, then objective.
    Mcsm,
    /// Deb's feasibility rules: feasible beats infeasible, feasible by objective, infeasible by violation.
    Deb,
}

/// The crossover on the bit string (spec §2 item 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Crossover {
    /// One cut point in `[1, L − 1]`; the tails are swapped.
    OnePoint,
    /// Two cut points; the middle segment is swapped.
    TwoPoint,
    /// Each bit swapped with probability 1/2.
    Uniform,
}

/// How a variable's `b` bits map to the integer `k` of `x = lo + (hi − lo)·k/(2^b − 1)` (spec §2 item 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Encoding {
    /// Plain binary, most significant bit first: the paper's (and spec §2's) encoding. Neighbouring values
    /// can be many bit flips apart (Hamming cliffs: 2^(b−1) − 1 and 2^(b−1) differ in all b bits).
    Binary,
    /// Reflected Gray code, most significant bit first: `k = g ⊕ (g >> 1) ⊕ (g >> 2) ⊕ …` of the bits `g`.
    /// Neighbouring values differ in one bit, so single-bit mutations can always step to the next grid point.
    /// Not in the paper; the default of this crate (docs/results/dpga.md: g01 reaches −15 in 25/25 runs, 0/25
    /// with binary).
    Gray,
}

/// How the main population M0 is initialised (spec §2 item 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Initialisation {
    /// Draw uniform candidates until `m` feasible ones are found or `init_max_draws` were drawn; the
    /// remaining slots take the best drawn candidates (the fragment's "accepting only feasible individuals").
    Feasible,
    /// `m` uniform candidates.
    Random,
}

/// The parameters of a DPGA run; defaults are Table II of the fragment and spec §2–§4.
///
/// Deserialization (a TOML or JSON file, the CLI's `--set`) runs every field through the `with_*` setters,
/// so it refuses what they refuse with the same message; a missing field takes its default (the encoding
/// [`Encoding::Binary`]) and an unknown field is refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "raw::DpgaParamsRaw")]
pub struct DpgaParams {
    main_size: usize,
    reserve_size: usize,
    bits_per_variable: u32,
    crossover_rate: f32,
    mutation_rate: Option<f32>,
    elitism_rate: f64,
    crossbreed_rate: f64,
    tournament_size: usize,
    crossover: Crossover,
    /// Absent in snapshots written before the option existed, which were all binary.
    #[serde(default = "binary_encoding")]
    encoding: Encoding,
    constraint_handling: ConstraintHandling,
    initialisation: Initialisation,
    init_max_draws: u64,
    initial_target_distance: f64,
    distance_learning_rate: f64,
    min_target_distance: f64,
    max_target_distance: f64,
}

impl Default for DpgaParams {
    fn default() -> Self {
        Self {
            main_size: 128,
            reserve_size: 128,
            bits_per_variable: 20,
            crossover_rate: 0.8,
            mutation_rate: None,
            elitism_rate: 0.1,
            crossbreed_rate: 0.1,
            tournament_size: 2,
            crossover: Crossover::OnePoint,
            encoding: Encoding::Gray,
            constraint_handling: ConstraintHandling::Mcsm,
            initialisation: Initialisation::Feasible,
            init_max_draws: 50_000,
            initial_target_distance: 0.5,
            distance_learning_rate: 0.1,
            min_target_distance: 0.05,
            max_target_distance: 0.95,
        }
    }
}

fn binary_encoding() -> Encoding {
    Encoding::Binary
}

fn check_rate(name: &'static str, value: f64) -> Result<()> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            ALGORITHM,
            name,
            value,
            "in [0, 1]",
        ))
    }
}

fn check_even_size(name: &'static str, value: usize) -> Result<()> {
    if value >= 2 && value.is_multiple_of(2) && value <= u32::MAX as usize / 4 {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            ALGORITHM,
            name,
            value,
            "an even number in [2, 2^30) (individuals are bred in pairs)",
        ))
    }
}

impl DpgaParams {
    /// Table II with the fragment's mutation rate: per-bit flip probability 0.09 (spec's preset `paper`), and
    /// the paper's plain binary encoding.
    pub fn paper() -> Self {
        Self {
            mutation_rate: Some(0.09),
            encoding: Encoding::Binary,
            ..Self::default()
        }
    }

    /// The main population size `m` (default 128): even, at least 2.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an odd size or one below 2.
    pub fn with_main_size(mut self, m: usize) -> Result<Self> {
        check_even_size("main population size m", m)?;
        self.main_size = m;
        Ok(self)
    }

    /// The reserve population size `n` (default 128): even, at least 2.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an odd size or one below 2.
    pub fn with_reserve_size(mut self, n: usize) -> Result<Self> {
        check_even_size("reserve population size n", n)?;
        self.reserve_size = n;
        Ok(self)
    }

    /// Bits per variable `b` (default 20), in `[1, 32]`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] outside `[1, 32]`.
    pub fn with_bits_per_variable(mut self, b: u32) -> Result<Self> {
        if !(1..=32).contains(&b) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "bits per variable b",
                b,
                "in [1, 32]",
            ));
        }
        self.bits_per_variable = b;
        Ok(self)
    }

    /// The crossover probability `P_c` (default 0.8), in `[0, 1]`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] outside `[0, 1]` (NaN included).
    pub fn with_crossover_rate(mut self, p: f32) -> Result<Self> {
        check_rate("crossover rate", f64::from(p))?;
        self.crossover_rate = p;
        Ok(self)
    }

    /// The per-bit flip probability `p_m` (default 1/L, L = total bits), in `[0, 1]`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] outside `[0, 1]`.
    pub fn with_mutation_rate(mut self, p: f32) -> Result<Self> {
        check_rate("mutation rate", f64::from(p))?;
        self.mutation_rate = Some(p);
        Ok(self)
    }

    /// The elitism rate (default 0.1), in `[0, 1]`: `e = ⌈rate·size⌉` elites per population.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] outside `[0, 1]`.
    pub fn with_elitism_rate(mut self, rate: f64) -> Result<Self> {
        check_rate("elitism rate", rate)?;
        self.elitism_rate = rate;
        Ok(self)
    }

    /// The crossbreeding rate (default 0.1), in `[0, 1]`: `|C| = 2·round(rate·m/2)`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] outside `[0, 1]`.
    pub fn with_crossbreed_rate(mut self, rate: f64) -> Result<Self> {
        check_rate("crossbreed rate", rate)?;
        self.crossbreed_rate = rate;
        Ok(self)
    }

    /// The tournament size (default 2), at least 1 and at most both population sizes (checked by the engine).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0 or more than 64.
    pub fn with_tournament_size(mut self, k: usize) -> Result<Self> {
        if !(1..=64).contains(&k) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "tournament size",
                k,
                "in [1, 64]",
            ));
        }
        self.tournament_size = k;
        Ok(self)
    }

    /// The crossover operator (default one-point).
    pub fn with_crossover(mut self, crossover: Crossover) -> Self {
        self.crossover = crossover;
        self
    }

    /// The bit-to-integer mapping of each variable (default [`Encoding::Gray`]; the paper's
    /// [`DpgaParams::paper`] uses [`Encoding::Binary`]).
    pub fn with_encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// The comparator of the main population (default MCSM).
    pub fn with_constraint_handling(mut self, handling: ConstraintHandling) -> Self {
        self.constraint_handling = handling;
        self
    }

    /// The initialisation of M0 (default feasible).
    pub fn with_initialisation(mut self, initialisation: Initialisation) -> Self {
        self.initialisation = initialisation;
        self
    }

    /// The most candidates drawn by the feasible initialisation (default 50 000), at least `m` (checked by the
    /// engine).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0.
    pub fn with_init_max_draws(mut self, draws: u64) -> Result<Self> {
        if draws == 0 || draws > u64::from(u32::MAX) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "init max draws",
                draws,
                "in [1, 2^32)",
            ));
        }
        self.init_max_draws = draws;
        Ok(self)
    }

    /// The target distance δ: initial value (default 0.5), learning rate η (default 0.1) and range (default 0.05, 0.95) (spec §4).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `0 ≤ min ≤ initial ≤ max ≤ 1` and `η` is finite and `≥ 0`.
    pub fn with_target_distance(
        mut self,
        initial: f64,
        learning_rate: f64,
        min: f64,
        max: f64,
    ) -> Result<Self> {
        check_rate("minimum target distance", min)?;
        check_rate("maximum target distance", max)?;
        if !(min <= initial && initial <= max) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "initial target distance δ0",
                initial,
                format!("in [{min}, {max}] (the minimum and maximum target distances)"),
            ));
        }
        if !(learning_rate.is_finite() && learning_rate >= 0.0) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "target distance learning rate η",
                learning_rate,
                "finite and ≥ 0",
            ));
        }
        self.initial_target_distance = initial;
        self.distance_learning_rate = learning_rate;
        self.min_target_distance = min;
        self.max_target_distance = max;
        Ok(self)
    }

    /// `m`.
    pub fn main_size(&self) -> usize {
        self.main_size
    }
    /// `n`.
    pub fn reserve_size(&self) -> usize {
        self.reserve_size
    }
    /// `b`.
    pub fn bits_per_variable(&self) -> u32 {
        self.bits_per_variable
    }
    /// `P_c`.
    pub fn crossover_rate(&self) -> f32 {
        self.crossover_rate
    }
    /// The per-bit flip probability for strings of `total_bits` bits (`1/L` unless set).
    pub fn mutation_rate(&self, total_bits: usize) -> f32 {
        self.mutation_rate.unwrap_or(1.0 / total_bits as f32)
    }
    /// The elitism rate.
    pub fn elitism_rate(&self) -> f64 {
        self.elitism_rate
    }
    /// The crossbreeding rate.
    pub fn crossbreed_rate(&self) -> f64 {
        self.crossbreed_rate
    }
    /// The tournament size.
    pub fn tournament_size(&self) -> usize {
        self.tournament_size
    }
    /// The crossover operator.
    pub fn crossover(&self) -> Crossover {
        self.crossover
    }
    /// The bit-to-integer mapping of each variable.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }
    /// The comparator of the main population.
    pub fn constraint_handling(&self) -> ConstraintHandling {
        self.constraint_handling
    }
    /// The initialisation of M0.
    pub fn initialisation(&self) -> Initialisation {
        self.initialisation
    }
    /// The draw limit of the feasible initialisation.
    pub fn init_max_draws(&self) -> u64 {
        self.init_max_draws
    }
    /// δ0.
    pub fn initial_target_distance(&self) -> f64 {
        self.initial_target_distance
    }
    /// η.
    pub fn distance_learning_rate(&self) -> f64 {
        self.distance_learning_rate
    }
    /// `(δ_min, δ_max)`.
    pub fn target_distance_range(&self) -> (f64, f64) {
        (self.min_target_distance, self.max_target_distance)
    }

    /// `|C| = 2·round(crossbreed_rate·m/2)` (spec §2 item 3).
    pub fn crossbreed_size(&self) -> usize {
        2 * (self.crossbreed_rate * self.main_size as f64 / 2.0).round() as usize
    }

    /// `e_M = ⌈elitism_rate·m⌉`.
    pub fn main_elites(&self) -> usize {
        (self.elitism_rate * self.main_size as f64).ceil() as usize
    }

    /// `e_R = ⌈elitism_rate·n⌉`.
    pub fn reserve_elites(&self) -> usize {
        (self.elitism_rate * self.reserve_size as f64).ceil() as usize
    }

    /// Checks the relations between parameters that the setters cannot see alone.
    pub(crate) fn check_relations(&self) -> Result<()> {
        let smallest = self.main_size.min(self.reserve_size);
        if self.tournament_size > smallest {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "tournament size",
                self.tournament_size,
                format!("at most the smaller population size {smallest}"),
            ));
        }
        if self.initialisation == Initialisation::Feasible
            && self.init_max_draws < self.main_size as u64
        {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "init max draws",
                self.init_max_draws,
                format!("at least the main population size m = {}", self.main_size),
            ));
        }
        let half = self.crossbreed_size() / 2;
        if half > self.reserve_size {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "crossbreed size |C|",
                self.crossbreed_size(),
                format!(
                    "at most twice the reserve population size n = {}",
                    self.reserve_size
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_two_gives_the_spec_sizes() {
        let p = DpgaParams::default();
        assert_eq!(p.crossbreed_size(), 12);
        assert_eq!(p.main_elites(), 13);
        assert_eq!(p.reserve_elites(), 13);
        assert_eq!(p.main_size() + p.crossbreed_size(), 140);
        assert_eq!(DpgaParams::paper().mutation_rate(260), 0.09);
        assert_eq!(p.mutation_rate(4), 0.25);
        assert_eq!(p.encoding(), Encoding::Gray);
        assert_eq!(DpgaParams::paper().encoding(), Encoding::Binary);
    }

    #[test]
    fn parameters_without_an_encoding_read_as_binary() {
        let mut json = serde_json::to_value(DpgaParams::default()).unwrap();
        assert_eq!(json["encoding"], "Gray");
        json.as_object_mut().unwrap().remove("encoding");
        let old: DpgaParams = serde_json::from_value(json).unwrap();
        assert_eq!(old.encoding(), Encoding::Binary);
        assert_eq!(old.with_encoding(Encoding::Gray), DpgaParams::default());
    }

    #[test]
    fn bad_values_name_the_parameter_and_the_range() {
        let e = DpgaParams::default().with_crossover_rate(1.5).unwrap_err();
        assert_eq!(
            e.to_string(),
            "DPGA: crossover rate must be in [0, 1], got 1.5"
        );
        assert!(DpgaParams::default().with_mutation_rate(f32::NAN).is_err());
        assert!(DpgaParams::default().with_main_size(7).is_err());
        assert!(DpgaParams::default().with_reserve_size(0).is_err());
        assert!(DpgaParams::default().with_bits_per_variable(33).is_err());
        assert!(DpgaParams::default().with_tournament_size(0).is_err());
        assert!(DpgaParams::default().with_init_max_draws(0).is_err());
        assert!(DpgaParams::default().with_elitism_rate(-0.1).is_err());
        assert!(
            DpgaParams::default()
                .with_target_distance(0.01, 0.1, 0.05, 0.95)
                .is_err()
        );
        let too_big = DpgaParams::default()
            .with_main_size(4)
            .unwrap()
            .with_tournament_size(8)
            .unwrap();
        assert!(too_big.check_relations().is_err());
    }
}
