//! Whether the kernel's warp-parallel sums may replace the CPU twin's serial ones without changing a bit.
//!
//! The repairs, the local search and the evaluation add `f32` weights and profits in `f64`, in index order on
//! the CPU. When every value is an integer multiple of one power of two `2^e` and the sum of their magnitudes
//! is below `2^(53 + e)`, every partial sum of any subset in any order is an integer multiple of `2^e` of
//! magnitude below `2^(53 + e)`, hence exactly representable: the `f64` additions never round, and a warp's
//! tree of partial sums gives the serial loop's value bit for bit. That holds for every instance of the papers
//! and of `Knapsack::generate_class` (integers, or decimals of a few digits); for any other the kernels keep
//! the serial loops.

/// The exponent `e` of the largest power of two that divides `v` (a nonzero finite `f32`): `v = m·2^e` with
/// `m` an odd integer.
fn lowest_exponent(v: f32) -> i32 {
    let bits = v.to_bits();
    let field = (bits >> 23) & 0xff;
    let fraction = bits & 0x7f_ffff;
    // A normal value is (2^23 + fraction)·2^(field − 150); a subnormal one fraction·2^−149.
    let (mantissa, exponent) = if field == 0 {
        (fraction, -149)
    } else {
        (fraction | 0x80_0000, field as i32 - 150)
    };
    exponent + mantissa.trailing_zeros() as i32
}

/// Whether every `f64` sum of a subset of `values` (finite `f32`s), added in any order, is exact (module
/// docs). The bound is checked against the rounded total with one bit to spare, so a `true` is never wrong.
pub fn sums_are_exact(values: &[f32]) -> bool {
    let mut lowest = i32::MAX;
    let mut total = 0.0f64;
    for &v in values.iter().filter(|v| **v != 0.0) {
        lowest = lowest.min(lowest_exponent(v));
        total += f64::from(v.abs());
    }
    lowest == i32::MAX || (total.is_finite() && total < 2.0f64.powi(52 + lowest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_short_decimals_sum_exactly() {
        assert!(sums_are_exact(&[1.0, 1000.0, 37.0, 0.0]));
        assert!(sums_are_exact(&[5.2431, 0.001, 9.75, -3.5]));
        assert!(sums_are_exact(&[]));
    }

    #[test]
    fn a_tiny_value_beside_a_huge_one_does_not() {
        // 2^60 + 2^-20 needs 81 bits: the f64 sum rounds, so the order of additions matters.
        assert!(!sums_are_exact(&[2.0f32.powi(60), 2.0f32.powi(-20)]));
        // The same spread kept within 52 bits is fine.
        assert!(sums_are_exact(&[2.0f32.powi(30), 2.0f32.powi(-20)]));
    }

    #[test]
    fn the_lowest_exponent_reads_normal_and_subnormal_values() {
        assert_eq!(lowest_exponent(1.0), 0);
        assert_eq!(lowest_exponent(6.0), 1);
        assert_eq!(lowest_exponent(0.75), -2);
        assert_eq!(lowest_exponent(f32::from_bits(1)), -149);
        assert_eq!(lowest_exponent(-8.0), 3);
    }

    #[test]
    fn an_inexact_instance_is_caught_where_the_serial_sum_really_rounds() {
        // 2^52 + 0.5 rounds back to 2^52 (ties to even), while 0.5 + 0.5 + 2^52 is exact.
        let values = [2.0f32.powi(52), 0.5, 0.5];
        let forward = values.iter().fold(0.0f64, |s, v| s + f64::from(*v));
        let backward = values.iter().rev().fold(0.0f64, |s, v| s + f64::from(*v));
        assert_ne!(forward.to_bits(), backward.to_bits());
        assert!(!sums_are_exact(&values));
    }

    #[test]
    fn the_kernel_reads_the_flag_from_its_run_params() {
        let source = evo_kernels::ModuleId::Qiga.module().source;
        assert!(source.contains("unsigned int exact_sums;"));
        assert!(source.contains("if (p.exact_sums == 1u)"));
    }

    #[test]
    fn the_generated_classes_take_the_warp_path_at_every_bench_size() {
        use evo_benchmarks::Knapsack;
        use evo_benchmarks::knapsack::KnapsackClass;
        for class in KnapsackClass::ALL {
            for items in [100, 1000, 10_000] {
                let problem = Knapsack::generate_class(class, items, 1000, 33).unwrap();
                assert!(sums_are_exact(problem.weights()), "{class:?} {items}");
                assert!(sums_are_exact(problem.profits()), "{class:?} {items}");
            }
        }
    }
}
