//! The suite's correctness check: two runs' bests, compared bit for bit.

/// `Ok` when both bests have the same fitness and vector bits, otherwise what differs.
pub(super) fn compare_best(
    reference: &(Vec<f32>, f64),
    best: &(Vec<f32>, f64),
) -> Result<(), String> {
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
