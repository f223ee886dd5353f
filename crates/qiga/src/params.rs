//! The parameters of a QIGA run, validated by `with_*` setters.

use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::options::KnapsackOptions;

mod raw;

/// The name errors give for this crate.
pub(crate) const ALGORITHM: &str = "QIGA";

/// The largest tunable rotation angle, 20° in radians as the paper rounds it (0.349 rad).
pub const MAX_ANGLE: f32 = 0.349;

/// The names of the five tunable angles, as errors print them.
const ANGLE_NAMES: [&str; 5] = [
    "rotation angle θ1",
    "rotation angle θ2",
    "rotation angle θ3",
    "rotation angle θ4",
    "rotation angle θ5",
];

/// The five tunable rotation angles θ1..θ5 of the lookup table (rows 4–8 of the paper's Table 1; rows 1–3
/// rotate by 0), in radians, each in `[0, 0.349]`.
///
/// | angle | row | x_j | b_j | f(x) ≥ f(b) | original (Han & Kim) |
/// | --- | --- | --- | --- | --- | --- |
/// | θ1 | 4 | 0 | 1 | true | 0.05π |
/// | θ2 | 5 | 1 | 0 | false | 0.01π |
/// | θ3 | 6 | 1 | 0 | true | 0.025π |
/// | θ4 | 7 | 1 | 1 | false | 0.005π |
/// | θ5 | 8 | 1 | 1 | true | 0.025π |
///
/// ```
/// use evo_qiga::RotationAngles;
/// let tuned = RotationAngles::new([0.0, 0.038, 0.349, 0.334, 0.349])?;
/// assert_eq!(tuned, RotationAngles::TUNED);
/// let error = RotationAngles::new([0.1, 0.1, 0.5, 0.1, 0.1]).unwrap_err();
/// assert_eq!(error.to_string(), "QIGA: rotation angle θ3 must be in [0, 0.349] rad, got 0.5");
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "[f32; 5]", into = "[f32; 5]")]
pub struct RotationAngles([f32; 5]);

impl RotationAngles {
    /// Han & Kim's angles (0.05π, 0.01π, 0.025π, 0.005π, 0.025π), each rounded once from `f64` to `f32`.
    pub const ORIGINAL: Self = Self([
        (0.05 * std::f64::consts::PI) as f32,
        (0.01 * std::f64::consts::PI) as f32,
        (0.025 * std::f64::consts::PI) as f32,
        (0.005 * std::f64::consts::PI) as f32,
        (0.025 * std::f64::consts::PI) as f32,
    ]);

    /// The best tuned set of the paper's Table 3 (first row, meta-fitness 1458.86).
    pub const TUNED: Self = Self([0.000, 0.038, 0.349, 0.334, 0.349]);

    /// Validated angles.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the first angle outside `[0, 0.349]` (NaN included).
    pub fn new(angles: [f32; 5]) -> Result<Self> {
        for (name, angle) in ANGLE_NAMES.iter().zip(angles) {
            if !(0.0..=MAX_ANGLE).contains(&angle) {
                return Err(Error::invalid_parameter(
                    ALGORITHM,
                    name,
                    angle,
                    format!("in [0, {MAX_ANGLE}] rad"),
                ));
            }
        }
        Ok(Self(angles))
    }

    /// θ1..θ5.
    pub fn angles(&self) -> [f32; 5] {
        self.0
    }
}

impl Default for RotationAngles {
    fn default() -> Self {
        Self::ORIGINAL
    }
}

impl TryFrom<[f32; 5]> for RotationAngles {
    type Error = Error;

    fn try_from(angles: [f32; 5]) -> Result<Self> {
        Self::new(angles)
    }
}

impl From<RotationAngles> for [f32; 5] {
    fn from(angles: RotationAngles) -> Self {
        angles.0
    }
}

/// What the sign table's ±1 cells (α = 0 in rows 4–5, β = 0 in rows 6–8) mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SignChoice {
    /// +1, as Nowotniak's C and CUDA code (the default).
    #[default]
    Plus,
    /// ±1 drawn per (individual, gene, generation) from stream `QigaSign` (`QIGA.py`'s "random sign"):
    /// +1 when the top bit of word `gene` of sequence (QigaSign, generation, individual) is 0.
    Random,
}

/// How the quadrant of an angle (the sign of αβ) is found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum QuadrantRule {
    /// The true sign of αβ: θ reduced to `[0, π)` by a Euclidean remainder (the default).
    #[default]
    TrueSign,
    /// Nowotniak's C code: `fmodf(θ, π)` without correction, so a negative θ lands in the β = 0 column.
    NowotniakQuirk,
}

/// The parameters of a QIGA run (spec qiga.md §2). Start from [`QigaParams::default`]:
///
/// | parameter | default | allowed |
/// | --- | --- | --- |
/// | population (quantum individuals) | 10 | 1 ..= 64 |
/// | rotation angles θ1..θ5 | [`RotationAngles::ORIGINAL`] | each in [0, 0.349] rad |
/// | ±1 cells of the sign table | [`SignChoice::Plus`] | [`SignChoice`] |
/// | quadrant rule | [`QuadrantRule::TrueSign`] | [`QuadrantRule`] |
/// | generations after the initial one | 500 | 1 ..= 2^32 − 2 (used by [`run`](crate::run) and the batch helpers; an [`Executor`](evo_core::Executor) uses its own termination) |
/// | CUDA block size | 256 | a power of two in 32 ..= 1024 (results do not depend on it) |
/// | knapsack options (repair, greedy seed, local search) | [`KnapsackOptions::PAPER`] (all off) | [`KnapsackOptions`] |
///
/// ```
/// use evo_qiga::{QigaParams, RotationAngles};
/// let params = QigaParams::default().with_angles([0.0, 0.038, 0.349, 0.334, 0.349])?;
/// assert_eq!(params.angles(), RotationAngles::TUNED);
/// let error = QigaParams::default().with_population(0).unwrap_err();
/// assert_eq!(error.to_string(), "QIGA: population size must be in 1 ..= 64, got 0");
/// # Ok::<(), evo_core::Error>(())
/// ```
///
/// Deserialization (a TOML or JSON file, the CLI's `--set`) runs every field through these setters, so it
/// refuses what they refuse with the same message; a missing field takes its default and an unknown field
/// is refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "raw::QigaParamsRaw")]
pub struct QigaParams {
    population: usize,
    angles: RotationAngles,
    sign: SignChoice,
    quadrant: QuadrantRule,
    generations: u64,
    block: u32,
    /// Left out of the serialised form (and so of the fingerprint) while it is the paper's.
    #[serde(default, skip_serializing_if = "KnapsackOptions::is_paper")]
    options: KnapsackOptions,
}

/// The largest population: the CUDA engine keeps one repair thread per individual inside one block.
pub const MAX_POPULATION: usize = 64;

impl Default for QigaParams {
    fn default() -> Self {
        Self {
            population: 10,
            angles: RotationAngles::ORIGINAL,
            sign: SignChoice::Plus,
            quadrant: QuadrantRule::TrueSign,
            generations: 500,
            block: 256,
            options: KnapsackOptions::PAPER,
        }
    }
}

impl QigaParams {
    /// Sets the number of quantum individuals.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `1 ..= 64`.
    pub fn with_population(mut self, population: usize) -> Result<Self> {
        if !(1..=MAX_POPULATION).contains(&population) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "population size",
                population,
                format!("in 1 ..= {MAX_POPULATION}"),
            ));
        }
        self.population = population;
        Ok(self)
    }

    /// Sets the rotation angles θ1..θ5 (radians).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the first angle outside `[0, 0.349]`.
    pub fn with_angles(mut self, angles: [f32; 5]) -> Result<Self> {
        self.angles = RotationAngles::new(angles)?;
        Ok(self)
    }

    /// Sets already validated rotation angles.
    pub fn with_rotation_angles(mut self, angles: RotationAngles) -> Self {
        self.angles = angles;
        self
    }

    /// Sets the meaning of the sign table's ±1 cells.
    pub fn with_sign_choice(mut self, sign: SignChoice) -> Self {
        self.sign = sign;
        self
    }

    /// Sets the quadrant rule.
    pub fn with_quadrant_rule(mut self, quadrant: QuadrantRule) -> Self {
        self.quadrant = quadrant;
        self
    }

    /// Sets the number of generations after the initial one (the paper: 500, so 5 010 evaluations).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `1 ..= 2^32 − 2` (the generation is a `u32` Philox step).
    pub fn with_generations(mut self, generations: u64) -> Result<Self> {
        if !(1..=u64::from(u32::MAX) - 1).contains(&generations) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "number of generations",
                generations,
                "in 1 ..= 2^32 − 2",
            ));
        }
        self.generations = generations;
        Ok(self)
    }

    /// Sets the CUDA engine's threads per block (threads stride over the genes); results do not depend on it.
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

    /// Sets the knapsack options (module [`options`](crate::options); the paper's are all off).
    pub fn with_options(mut self, options: KnapsackOptions) -> Self {
        self.options = options;
        self
    }

    /// The knapsack options.
    pub fn options(&self) -> KnapsackOptions {
        self.options
    }

    /// The number of quantum individuals.
    pub fn population(&self) -> usize {
        self.population
    }

    /// The rotation angles.
    pub fn angles(&self) -> RotationAngles {
        self.angles
    }

    /// The meaning of the ±1 cells.
    pub fn sign_choice(&self) -> SignChoice {
        self.sign
    }

    /// The quadrant rule.
    pub fn quadrant_rule(&self) -> QuadrantRule {
        self.quadrant
    }

    /// The number of generations after the initial one.
    pub fn generations(&self) -> u64 {
        self.generations
    }

    /// The CUDA block size.
    pub fn block_size(&self) -> u32 {
        self.block
    }
}
