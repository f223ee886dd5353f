//! The search box of a continuous problem.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A per-dimension box `lower[i] <= x[i] <= upper[i]` with finite `f32` limits.
///
/// The constructors validate the limits, so every `Bounds` value (including one read from JSON) has at
/// least one dimension, equal-length limit vectors, finite limits and `lower[i] <= upper[i]`.
///
/// ```
/// use evo_core::Bounds;
/// let bounds = Bounds::uniform(3, -5.12, 5.12)?;
/// assert_eq!(bounds.dimension(), 3);
/// assert!(bounds.contains(&[0.0, 5.12, -5.12]));
/// assert!(Bounds::new(vec![1.0], vec![0.0]).is_err());
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawBounds")]
pub struct Bounds {
    lower: Vec<f32>,
    upper: Vec<f32>,
}

/// The unvalidated JSON form; reading goes through [`Bounds::new`] so a file cannot smuggle in a bad box.
#[derive(Deserialize)]
struct RawBounds {
    lower: Vec<f32>,
    upper: Vec<f32>,
}

impl TryFrom<RawBounds> for Bounds {
    type Error = Error;

    fn try_from(raw: RawBounds) -> Result<Self> {
        Bounds::new(raw.lower, raw.upper)
    }
}

impl Bounds {
    /// Builds a box from per-dimension limits.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (component `Bounds`) when the vectors are empty or of different lengths,
    /// or when a limit is not finite or a lower limit exceeds its upper limit (the message names the first
    /// offending dimension).
    pub fn new(lower: Vec<f32>, upper: Vec<f32>) -> Result<Self> {
        if lower.is_empty() {
            return Err(Error::invalid_parameter(
                "Bounds",
                "dimension",
                0,
                "at least 1",
            ));
        }
        if lower.len() != upper.len() {
            return Err(Error::invalid_parameter(
                "Bounds",
                "length of upper",
                upper.len(),
                format!("equal to the length of lower ({})", lower.len()),
            ));
        }
        for (i, (&lo, &hi)) in lower.iter().zip(&upper).enumerate() {
            // The finiteness tests come first: they also reject NaN, for which `lo > hi` would be false.
            if !lo.is_finite() || !hi.is_finite() || lo > hi {
                return Err(Error::invalid_parameter(
                    "Bounds",
                    "limits",
                    format!("lower[{i}] = {lo}, upper[{i}] = {hi}"),
                    "finite with lower <= upper in every dimension",
                ));
            }
        }
        Ok(Self { lower, upper })
    }

    /// Builds the box `[lower, upper]^dimension`.
    ///
    /// # Errors
    /// As [`Bounds::new`]: `dimension` must be at least 1 and the limits finite with `lower <= upper`.
    pub fn uniform(dimension: usize, lower: f32, upper: f32) -> Result<Self> {
        Self::new(vec![lower; dimension], vec![upper; dimension])
    }

    /// The number of dimensions.
    pub fn dimension(&self) -> usize {
        self.lower.len()
    }

    /// The lower limits, one per dimension.
    pub fn lower(&self) -> &[f32] {
        &self.lower
    }

    /// The upper limits, one per dimension.
    pub fn upper(&self) -> &[f32] {
        &self.upper
    }

    /// Whether `x` has this box's dimension and lies inside it (limits included).
    pub fn contains(&self, x: &[f32]) -> bool {
        x.len() == self.dimension()
            && x.iter()
                .zip(self.lower.iter().zip(&self.upper))
                .all(|(&v, (&lo, &hi))| lo <= v && v <= hi)
    }

    /// Clamps each coordinate of `x` into its interval; extra coordinates beyond the dimension are left
    /// alone. A NaN coordinate becomes the lower limit, so the result is always inside the box.
    pub fn clamp(&self, x: &mut [f32]) {
        for (v, (&lo, &hi)) in x.iter_mut().zip(self.lower.iter().zip(&self.upper)) {
            *v = if v.is_nan() { lo } else { v.clamp(lo, hi) };
        }
    }
}
