//! Comparing CPU and GPU outputs element by element, with mismatch messages that locate the element.

use crate::tolerance::{Float, Tolerance};

/// Where an element sits in a snapshot: generation, individual, gene. Flat outputs use individual = index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    /// The generation (0 for operator-level checks).
    pub generation: u64,
    /// The individual (row).
    pub individual: usize,
    /// The gene (column); `None` for per-individual values such as fitness.
    pub gene: Option<usize>,
}

/// The first element outside the tolerance, with both values and their bits.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// What was compared ("population", "fitness", "sin_f32 output").
    pub what: String,
    /// Where.
    pub position: Position,
    /// The CPU value, its bits, as text.
    pub cpu: String,
    /// The GPU value, its bits, as text.
    pub gpu: String,
    /// Distance in ulps (`u64::MAX` when one side is NaN).
    pub ulps: u64,
    /// The tolerance that was applied.
    pub tolerance: Tolerance,
    /// Extra context (the input that produced the value, the seed).
    pub context: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = self.position;
        write!(
            f,
            "{} differs at generation {}, individual {}",
            self.what, p.generation, p.individual
        )?;
        if let Some(gene) = p.gene {
            write!(f, ", gene {gene}")?;
        }
        let ulps = if self.ulps == u64::MAX {
            "NaN vs number".to_string()
        } else {
            format!("{} ulp", self.ulps)
        };
        write!(
            f,
            ": cpu {} vs gpu {} ({ulps}; tolerance {})",
            self.cpu, self.gpu, self.tolerance
        )?;
        if !self.context.is_empty() {
            write!(f, "; {}", self.context)?;
        }
        Ok(())
    }
}

/// A value with its bit pattern: `1.5 (0x3fc00000)`.
pub fn with_bits<T: Float>(value: T) -> String {
    format!(
        "{value:e} (0x{:0width$x})",
        value.bits(),
        width = T::HEX_DIGITS
    )
}

/// The outcome of comparing two slices.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Elements compared.
    pub cases: u64,
    /// Largest distance in ulps seen among accepted elements.
    pub max_ulps: u64,
    /// Elements outside the tolerance.
    pub mismatches: u64,
    /// The first of them.
    pub first_mismatch: Option<Mismatch>,
}

impl Comparison {
    /// Whether every element was within tolerance.
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

/// Compares `gpu` against `cpu`, laid out as `genes` values per individual (`genes == 1` for flat or
/// per-individual outputs, reported without a gene). `context(i)` describes the input of element `i` for the
/// mismatch message.
pub fn compare_slices<T: Float>(
    what: &str,
    generation: u64,
    genes: usize,
    cpu: &[T],
    gpu: &[T],
    tolerance: Tolerance,
    context: impl Fn(usize) -> String,
) -> Comparison {
    let mut comparison = Comparison {
        cases: cpu.len().max(gpu.len()) as u64,
        max_ulps: 0,
        mismatches: 0,
        first_mismatch: None,
    };
    if cpu.len() != gpu.len() {
        comparison.mismatches = 1;
        comparison.first_mismatch = Some(Mismatch {
            what: what.to_string(),
            position: Position::default(),
            cpu: format!("{} elements", cpu.len()),
            gpu: format!("{} elements", gpu.len()),
            ulps: u64::MAX,
            tolerance,
            context: "the outputs have different lengths".into(),
        });
        return comparison;
    }
    let genes = genes.max(1);
    for (i, (&c, &g)) in cpu.iter().zip(gpu).enumerate() {
        let (accepted, ulps) = tolerance.accepts(c, g);
        if accepted {
            comparison.max_ulps = comparison.max_ulps.max(ulps);
            continue;
        }
        comparison.mismatches += 1;
        if comparison.first_mismatch.is_none() {
            comparison.first_mismatch = Some(Mismatch {
                what: what.to_string(),
                position: Position {
                    generation,
                    individual: i / genes,
                    gene: (genes > 1).then_some(i % genes),
                },
                cpu: with_bits(c),
                gpu: with_bits(g),
                ulps,
                tolerance,
                context: context(i),
            });
        }
    }
    comparison
}

/// Panics with the first mismatch, for use in `#[test]`s.
pub fn assert_matches(comparison: &Comparison) {
    if let Some(mismatch) = &comparison.first_mismatch {
        panic!(
            "{} of {} elements outside tolerance; first: {mismatch}",
            comparison.mismatches, comparison.cases
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatch_message_names_generation_individual_gene_values_and_bits() {
        let cpu = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mut gpu = cpu;
        gpu[4] = f32::from_bits(5.0f32.to_bits() + 1);
        let comparison = compare_slices("population", 7, 3, &cpu, &gpu, Tolerance::Exact, |i| {
            format!("input {i}")
        });
        assert!(!comparison.passed());
        let message = comparison.first_mismatch.unwrap().to_string();
        assert_eq!(
            message,
            "population differs at generation 7, individual 1, gene 1: cpu 5e0 (0x40a00000) vs gpu 5.0000005e0 \
             (0x40a00001) (1 ulp; tolerance Exact (same bits)); input 4"
        );
    }

    #[test]
    fn identical_slices_pass_with_zero_ulps() {
        let v = [0.5f64, -0.0, f64::INFINITY];
        let comparison =
            compare_slices("fitness", 0, 1, &v, &v, Tolerance::Exact, |_| String::new());
        assert!(comparison.passed());
        assert_eq!(comparison.max_ulps, 0);
        assert_eq!(comparison.cases, 3);
    }

    #[test]
    fn length_difference_is_a_mismatch() {
        let comparison = compare_slices("fitness", 0, 1, &[1.0f64], &[], Tolerance::Exact, |_| {
            String::new()
        });
        assert!(!comparison.passed());
    }

    #[test]
    #[should_panic(expected = "individual 0")]
    fn assert_matches_panics_with_the_message() {
        let comparison =
            compare_slices("fitness", 0, 1, &[1.0f64], &[2.0], Tolerance::Exact, |_| {
                String::new()
            });
        assert_matches(&comparison);
    }
}
