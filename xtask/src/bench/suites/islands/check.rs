//! The suite's correctness check: a run's best against the same islands' on one device, bit for bit.

use std::time::Instant;

use super::run::Run;
use super::{MIGRATION_INTERVAL, Measured, Side};

impl Side {
    /// Whether `measured[index]` ends with the best of the same islands on one device, migrating alike:
    /// `Ok` with what it was compared with, `Err` with the mismatch. The reference is the first model run
    /// measured on one device with the same islands and migration, otherwise an untimed model run for the
    /// same generations.
    pub(super) fn check(
        &self,
        measured: &[Measured],
        index: usize,
    ) -> anyhow::Result<Result<String, String>> {
        let m = &measured[index];
        let reference = measured.iter().position(|r| {
            r.run.is_model()
                && (
                    r.size,
                    r.islands,
                    r.devices,
                    r.total_generations,
                    r.run.migrates(),
                ) == (m.size, m.islands, 1, m.total_generations, m.run.migrates())
        });
        if reference == Some(index) {
            return Ok(Ok("reference".to_string()));
        }
        let reference = match reference {
            Some(r) => measured[r].best.clone(),
            None => {
                let start = Instant::now();
                let run = if m.run.migrates() {
                    Run::Model
                } else {
                    Run::NoMigration
                };
                let mut subject = self.subject(run, m.size, m.islands, 1)?;
                subject.advance(m.total_generations)?;
                let best = subject.best()?;
                eprintln!(
                    "islands: the one-{} reference of K = {} at p{} d{} ({}) ran untimed in {:.1} s",
                    self.unit,
                    m.islands,
                    m.size.0,
                    m.size.1,
                    run.name(MIGRATION_INTERVAL),
                    start.elapsed().as_secs_f64()
                );
                best
            }
        };
        Ok(compare_best(&reference, &m.best)
            .map(|()| "yes (bits)".to_string())
            .map_err(|what| {
                format!(
                    "{} p{} d{} K{} on {}, {}: {what} after {} generations (islands are logical: the best \
                     must not depend on the placement, nor on whether the model drives the engines)",
                    self.backend.name(),
                    m.size.0,
                    m.size.1,
                    m.islands,
                    self.devices_name(m.devices),
                    m.run.name(MIGRATION_INTERVAL),
                    m.total_generations
                )
            }))
    }
}

/// `Ok` when both bests have the same fitness and vector bits, otherwise what differs.
fn compare_best(reference: &(Vec<f32>, f64), best: &(Vec<f32>, f64)) -> Result<(), String> {
    if reference.1.to_bits() != best.1.to_bits() {
        return Err(format!(
            "best fitness {} ({:#018x}) differs from one device's {} ({:#018x})",
            best.1,
            best.1.to_bits(),
            reference.1,
            reference.1.to_bits()
        ));
    }
    if reference.0.len() != best.0.len() {
        return Err(format!(
            "best vector of {} coordinates, one device's has {}",
            best.0.len(),
            reference.0.len()
        ));
    }
    match reference
        .0
        .iter()
        .zip(&best.0)
        .position(|(a, b)| a.to_bits() != b.to_bits())
    {
        Some(j) => Err(format!(
            "best vector differs at coordinate {j}: {} ({:#010x}), one device's {} ({:#010x})",
            best.0[j],
            best.0[j].to_bits(),
            reference.0[j],
            reference.0[j].to_bits()
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bests_pass_and_a_differing_fitness_or_coordinate_is_named() {
        let reference = (vec![1.0f32, -0.0, 3.5], 2.25);
        assert_eq!(compare_best(&reference, &reference.clone()), Ok(()));
        let fitness = compare_best(&reference, &(reference.0.clone(), 2.5)).expect_err("fitness");
        assert!(
            fitness.contains("best fitness 2.5") && fitness.contains("one device's 2.25"),
            "{fitness}"
        );
        let signed_zero =
            compare_best(&reference, &(vec![1.0, 0.0, 3.5], 2.25)).expect_err("-0.0 vs 0.0");
        assert!(
            signed_zero.contains("coordinate 1") && signed_zero.contains("0x80000000"),
            "{signed_zero}"
        );
        let length = compare_best(&reference, &(vec![1.0], 2.25)).expect_err("length");
        assert!(length.contains("1 coordinates"), "{length}");
    }
}
