//! Accuracy and special-value tests of the portable math functions.
//!
//! Accuracy is measured against Rust's `std` (the platform libm: glibc's functions are correctly rounded
//! or within about 0.52 ulp). The `f32` functions are compared with the `f64` std function of the widened
//! argument, so their error is measured in `f32` ulps to within about 2^-29 ulp; the `f64` functions are
//! compared with the `f64` std function, so the measured distance is at most our error plus std's.

use super::*;

/// Largest error of an `f32` function, in `f32` ulps of the exact result. One rounding of an `f64` value
/// whose own error is below 2^-30 relative gives at most 0.5 + 2^-6 ulp; what we measure stays below this.
const F32_MAX_ULPS: f64 = 0.51;

/// Largest distance, in `f64` ulps, between an `f64` function and std's. fdlibm is within one ulp of the
/// exact result and std within about half an ulp, and every distance is a whole number of ulps.
const F64_MAX_ULPS_FROM_STD: u64 = 1;

/// SplitMix64 (Steele, Lea and Flood, 2014): a small deterministic source of test inputs.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform double in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        lo + (hi - lo) * unit
    }
}

/// The error of an `f32` result in `f32` ulps of the reference; 0 when both overflow to the same infinity.
fn f32_ulp_error(result: f32, reference: f64) -> f64 {
    // Values at or above 2^128 (1 - 2^-25) round to infinity.
    let overflow = 2f64.powi(128) * (1.0 - 2f64.powi(-25));
    if result.is_infinite()
        && reference.abs() >= overflow
        && result.is_sign_positive() == (reference > 0.0)
    {
        return 0.0;
    }
    let exponent = if reference == 0.0 {
        -126
    } else {
        ((reference.abs().to_bits() >> 52) as i32 - 1023).max(-126)
    };
    let ulp = 2f64.powi(exponent - 23);
    (f64::from(result) - reference).abs() / ulp
}

/// The number of doubles between a and b (both finite, or equal); infinite results compare by equality.
fn f64_ulp_distance(a: f64, b: f64) -> u64 {
    if a.to_bits() == b.to_bits() || (a == 0.0 && b == 0.0) {
        return 0;
    }
    if !a.is_finite() || !b.is_finite() {
        return u64::MAX;
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 { i64::MIN.wrapping_sub(i) } else { i }
    };
    (i128::from(key(a)) - i128::from(key(b))).unsigned_abs() as u64
}

/// Runs `f` on every input and returns the largest error against `reference` with its input.
fn worst_f32(
    inputs: &[(f32, f32)],
    f: impl Fn(f32, f32) -> f32,
    reference: impl Fn(f64, f64) -> f64,
) -> (f64, f32, f32) {
    let mut worst = (0.0, 0.0, 0.0);
    for &(x, y) in inputs {
        let error = f32_ulp_error(f(x, y), reference(f64::from(x), f64::from(y)));
        // A NaN error (a NaN result for a number) counts as the worst.
        if error.is_nan() || error > worst.0 {
            worst = (error, x, y);
        }
    }
    worst
}

/// Runs `f` on every input and returns the largest distance from `reference` with its input.
fn worst_f64(
    inputs: &[(f64, f64)],
    f: impl Fn(f64, f64) -> f64,
    reference: impl Fn(f64, f64) -> f64,
) -> (u64, f64, f64) {
    let mut worst = (0, 0.0, 0.0);
    for &(x, y) in inputs {
        let distance = f64_ulp_distance(f(x, y), reference(x, y));
        if distance > worst.0 {
            worst = (distance, x, y);
        }
    }
    worst
}

fn assert_f32_accuracy(
    name: &str,
    inputs: &[(f32, f32)],
    f: impl Fn(f32, f32) -> f32,
    reference: impl Fn(f64, f64) -> f64,
) {
    let (error, x, y) = worst_f32(inputs, &f, reference);
    assert!(
        error <= F32_MAX_ULPS,
        "{name}: {error} ulps at x = {x:e} ({:#010x}), y = {y:e}: got {:e}",
        x.to_bits(),
        f(x, y)
    );
}

fn assert_f64_accuracy(
    name: &str,
    inputs: &[(f64, f64)],
    f: impl Fn(f64, f64) -> f64,
    reference: impl Fn(f64, f64) -> f64,
) {
    let (distance, x, y) = worst_f64(inputs, &f, &reference);
    assert!(
        distance <= F64_MAX_ULPS_FROM_STD,
        "{name}: {distance} ulps from std at x = {x:e} ({:#018x}), y = {y:e}: got {:e}, std {:e}",
        x.to_bits(),
        f(x, y),
        reference(x, y)
    );
}

/// Trigonometric arguments: uniform on [-100, 100], the neighbours of multiples of pi/2 (where reduction
/// cancels), and huge values up to the largest finite number.
fn trig_inputs_f64(rng: &mut SplitMix64) -> Vec<(f64, f64)> {
    let mut xs: Vec<f64> = (0..60_000).map(|_| rng.uniform(-100.0, 100.0)).collect();
    for k in 1..4000 {
        let m = (k * k * 37) as f64 * std::f64::consts::FRAC_PI_2;
        for d in -2i64..=2 {
            xs.push(f64::from_bits((m.to_bits() as i64 + d) as u64));
        }
    }
    // Random bit patterns from 2^20 to the largest finite double, both signs.
    let (low, high) = (0x4130_0000_0000_0000u64, 0x7FF0_0000_0000_0000u64);
    xs.extend((0..20_000).map(|_| {
        let r = rng.next_u64();
        f64::from_bits((low + (r >> 1) % (high - low)) | (r << 63))
    }));
    xs.extend([1e22, 1e300, f64::MAX, -f64::MAX, 1647099.0, 1647100.0]);
    xs.into_iter().map(|x| (x, 0.0)).collect()
}

fn trig_inputs_f32(rng: &mut SplitMix64) -> Vec<(f32, f32)> {
    let mut xs: Vec<f32> = (0..60_000)
        .map(|_| rng.uniform(-100.0, 100.0) as f32)
        .collect();
    for k in 1..20_000 {
        let m = (k * 7) as f32 * std::f32::consts::FRAC_PI_2;
        for d in -2i32..=2 {
            xs.push(f32::from_bits((m.to_bits() as i32 + d) as u32));
        }
    }
    // Random bit patterns over every finite f32, both signs.
    xs.extend((0..20_000).map(|_| {
        let r = rng.next_u64();
        f32::from_bits(((r >> 1) as u32 % 0x7F80_0000) | ((r as u32) << 31))
    }));
    xs.extend([f32::MAX, -f32::MAX, 1e-30, -3e-39, 421657428.0, 421657440.0]);
    xs.into_iter().map(|x| (x, 0.0)).collect()
}

#[test]
fn sin_cos_f32_are_within_bound() {
    let inputs = trig_inputs_f32(&mut SplitMix64(1));
    assert_f32_accuracy("sin_f32", &inputs, |x, _| sin_f32(x), |x, _| x.sin());
    assert_f32_accuracy("cos_f32", &inputs, |x, _| cos_f32(x), |x, _| x.cos());
}

#[test]
fn sin_cos_f64_are_within_bound() {
    let inputs = trig_inputs_f64(&mut SplitMix64(2));
    assert_f64_accuracy("sin_f64", &inputs, |x, _| sin_f64(x), |x, _| x.sin());
    assert_f64_accuracy("cos_f64", &inputs, |x, _| cos_f64(x), |x, _| x.cos());
}

/// sin and cos of huge arguments, correctly rounded (mpmath at 3000 bits). The first is the double closest
/// to a multiple of pi/2 (Muller, "Elementary Functions", table 11.1), where glibc 2.36's cos is 8 ulps off,
/// so these are checked against references rather than std.
const HUGE_TRIG_REFERENCES: [(u64, u64, u64); 9] = [
    (
        0x7506_ac5b_262c_a1ff,
        0x3ff0_0000_0000_0000,
        0xbc21_4ae7_2e6b_a22f,
    ), // 6381956970095103 * 2^797
    (
        0x4480_f0cf_064d_d592,
        0xbfeb_453a_b76b_f397,
        0x3fe0_be2c_ef01_c8f4,
    ), // 1e22
    (
        0x7e37_e43c_8800_759c,
        0xbfea_2c16_b010_e385,
        0xbfe2_6990_22ad_c4c1,
    ), // 1e300
    (
        0x7fef_ffff_ffff_ffff,
        0x3f74_52fc_98b3_4e97,
        0xbfef_ffe6_2ecf_ab75,
    ), // f64::MAX
    (
        0x7e78_0000_0000_0000,
        0x3fce_6767_c6e1_8d87,
        0xbfef_158b_9613_6f62,
    ), // 1.5 * 2^1000
    (
        0x4139_21fc_0000_0000,
        0x3fe3_e479_a618_36eb,
        0x3fe9_10d1_8d26_c0d4,
    ), // 1647100, just above 2^20 pi/2
    (
        0x4139_21fb_0000_0000,
        0xbfd4_b02e_5be9_1e9e,
        0x3fee_4831_257a_62da,
    ), // 1647099, just below
    (
        0xc325_50f7_dca7_0000,
        0xbfa7_7f46_d558_70ef,
        0x3fef_f75e_5df8_84a4,
    ), // -3e15
    (
        0x43b0_0000_0000_0000,
        0xbfea_94ad_ab06_665c,
        0xbfe1_d146_047d_6947,
    ), // 2^60
];

#[test]
fn huge_arguments_match_correctly_rounded_references() {
    for (x, sin, cos) in HUGE_TRIG_REFERENCES {
        let x = f64::from_bits(x);
        let (sin, cos) = (f64::from_bits(sin), f64::from_bits(cos));
        assert!(
            f64_ulp_distance(sin_f64(x), sin) <= 1,
            "sin_f64({x:e}) = {:e}, expected {sin:e}",
            sin_f64(x)
        );
        assert!(
            f64_ulp_distance(cos_f64(x), cos) <= 1,
            "cos_f64({x:e}) = {:e}, expected {cos:e}",
            cos_f64(x)
        );
    }
}

#[test]
fn exp_f32_is_within_bound() {
    let mut rng = SplitMix64(3);
    // The whole range from +0 results through subnormals to overflow, plus small arguments.
    let mut inputs: Vec<(f32, f32)> = (0..100_000)
        .map(|_| (rng.uniform(-110.0, 95.0) as f32, 0.0))
        .collect();
    inputs.extend((0..20_000).map(|_| (rng.uniform(-1e-3, 1e-3) as f32, 0.0)));
    assert_f32_accuracy("exp_f32", &inputs, |x, _| exp_f32(x), |x, _| x.exp());
}

#[test]
fn exp_f64_is_within_bound() {
    let mut rng = SplitMix64(4);
    let mut inputs: Vec<(f64, f64)> = (0..100_000)
        .map(|_| (rng.uniform(-760.0, 720.0), 0.0))
        .collect();
    inputs.extend((0..20_000).map(|_| (rng.uniform(-1e-6, 1e-6), 0.0)));
    inputs.extend((0..20_000).map(|_| (rng.uniform(-745.2, -708.0), 0.0)));
    assert_f64_accuracy("exp_f64", &inputs, |x, _| exp_f64(x), |x, _| x.exp());
}

#[test]
fn log_f32_is_within_bound() {
    let mut rng = SplitMix64(5);
    // Every positive finite f32 is equally likely by bit pattern: subnormals and all binades.
    let mut inputs: Vec<(f32, f32)> = (0..100_000)
        .map(|_| (f32::from_bits(rng.next_u64() as u32 % 0x7F80_0000), 0.0))
        .collect();
    inputs.extend((0..20_000).map(|_| (rng.uniform(0.9, 1.1) as f32, 0.0)));
    assert_f32_accuracy("log_f32", &inputs, |x, _| log_f32(x), |x, _| x.ln());
}

#[test]
fn log_f64_is_within_bound() {
    let mut rng = SplitMix64(6);
    let mut inputs: Vec<(f64, f64)> = (0..100_000)
        .map(|_| (f64::from_bits(rng.next_u64() % 0x7FF0_0000_0000_0000), 0.0))
        .collect();
    inputs.extend((0..20_000).map(|_| (rng.uniform(0.99, 1.01), 0.0)));
    assert_f64_accuracy("log_f64", &inputs, |x, _| log_f64(x), |x, _| x.ln());
}

/// pow arguments: positive bases with moderate exponents, x^0.6 and x^2 (CEC 2006), negative bases with
/// integer exponents, bases near 1 with large exponents, and pairs whose result underflows or overflows.
fn pow_inputs(rng: &mut SplitMix64) -> Vec<(f64, f64)> {
    let mut pairs: Vec<(f64, f64)> = (0..40_000)
        .map(|_| (rng.uniform(0.0, 100.0), rng.uniform(-10.0, 10.0)))
        .collect();
    pairs.extend((0..10_000).map(|_| (rng.uniform(0.0, 1000.0), 0.6)));
    pairs.extend((0..10_000).map(|_| (rng.uniform(-100.0, 100.0), 2.0)));
    pairs.extend(
        (0..10_000).map(|_| (rng.uniform(-10.0, 0.0), (rng.next_u64() % 41) as f64 - 20.0)),
    );
    pairs.extend((0..10_000).map(|_| (rng.uniform(0.999, 1.001), rng.uniform(-1e5, 1e5))));
    pairs.extend((0..10_000).map(|_| (rng.uniform(1e-5, 1e5), rng.uniform(-80.0, 80.0))));
    pairs
}

#[test]
fn pow_f32_is_within_bound() {
    let inputs: Vec<(f32, f32)> = pow_inputs(&mut SplitMix64(7))
        .into_iter()
        .map(|(x, y)| (x as f32, y as f32))
        .collect();
    assert_f32_accuracy("pow_f32", &inputs, pow_f32, f64::powf);
}

#[test]
fn pow_f64_is_within_bound() {
    let mut inputs = pow_inputs(&mut SplitMix64(8));
    let mut rng = SplitMix64(9);
    // Large exponents on bases within 2^-20 of 1, and subnormal bases.
    inputs.extend((0..10_000).map(|_| (1.0 + rng.uniform(-1e-7, 1e-7), rng.uniform(-1e10, 1e10))));
    inputs.extend((0..10_000).map(|_| (rng.uniform(0.0, 1e-308), rng.uniform(-1.0, 1.0))));
    assert_f64_accuracy("pow_f64", &inputs, pow_f64, f64::powf);
}

#[test]
fn integer_powers_are_exact() {
    for base in -20i32..=20 {
        for exponent in 0..=12 {
            let exact = f64::from(base).powi(exponent);
            assert_eq!(
                pow_f64(f64::from(base), f64::from(exponent)).to_bits(),
                exact.to_bits(),
                "{base}^{exponent}"
            );
            if exact.abs() < 16_777_216.0 {
                let exact32 = exact as f32;
                assert_eq!(
                    pow_f32(base as f32, exponent as f32).to_bits(),
                    exact32.to_bits(),
                    "{base}^{exponent}"
                );
            }
        }
    }
}

/// NaN arguments with various payloads and signs, signalling ones included.
const NAN_INPUTS_F32: [u32; 4] = [0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0xffbf_ffff];
const NAN_INPUTS_F64: [u64; 4] = [
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0xfff7_ffff_ffff_ffff,
];

#[test]
fn nan_results_are_canonical() {
    for function in MathFunction::ALL {
        for bits in NAN_INPUTS_F32 {
            let nan = f32::from_bits(bits);
            assert_eq!(
                function.apply_f32(nan, 3.0).to_bits(),
                NAN_F32.to_bits(),
                "{function}_f32({bits:#x})"
            );
        }
        for bits in NAN_INPUTS_F64 {
            let nan = f64::from_bits(bits);
            assert_eq!(
                function.apply_f64(nan, 3.0).to_bits(),
                NAN_F64.to_bits(),
                "{function}_f64({bits:#x})"
            );
        }
    }
    for x in [f32::INFINITY, f32::NEG_INFINITY] {
        assert_eq!(sin_f32(x).to_bits(), NAN_F32.to_bits());
        assert_eq!(cos_f32(x).to_bits(), NAN_F32.to_bits());
    }
    for x in [f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(sin_f64(x).to_bits(), NAN_F64.to_bits());
        assert_eq!(cos_f64(x).to_bits(), NAN_F64.to_bits());
    }
    for x in [-1.0, -1e-30, f64::NEG_INFINITY] {
        assert_eq!(log_f64(x).to_bits(), NAN_F64.to_bits());
        assert_eq!(log_f32(x as f32).to_bits(), NAN_F32.to_bits());
        assert_eq!(pow_f64(-2.0, 0.5).to_bits(), NAN_F64.to_bits());
        assert_eq!(pow_f32(-2.0, 0.5).to_bits(), NAN_F32.to_bits());
    }
}

#[test]
fn unary_special_values_are_exact() {
    let inf = f64::INFINITY;
    let cases: [(MathFunction, f64, f64); 16] = [
        (MathFunction::Sin, 0.0, 0.0),
        (MathFunction::Sin, -0.0, -0.0),
        (MathFunction::Sin, 1e-300, 1e-300),
        (MathFunction::Sin, -5e-324, -5e-324),
        (MathFunction::Cos, 0.0, 1.0),
        (MathFunction::Cos, -0.0, 1.0),
        (MathFunction::Exp, 0.0, 1.0),
        (MathFunction::Exp, -0.0, 1.0),
        (MathFunction::Exp, inf, inf),
        (MathFunction::Exp, -inf, 0.0),
        (MathFunction::Exp, 1000.0, inf),
        (MathFunction::Exp, -1000.0, 0.0),
        (MathFunction::Log, 0.0, -inf),
        (MathFunction::Log, -0.0, -inf),
        (MathFunction::Log, 1.0, 0.0),
        (MathFunction::Log, inf, inf),
    ];
    for (function, x, expected) in cases {
        assert_eq!(
            function.apply_f64(x, 0.0).to_bits(),
            expected.to_bits(),
            "{function}_f64({x:e})"
        );
        let (x32, expected32) = (x as f32, expected as f32);
        assert_eq!(
            function.apply_f32(x32, 0.0).to_bits(),
            expected32.to_bits(),
            "{function}_f32({x32:e})"
        );
    }
    // The smallest subnormal results of exp, and log of the smallest subnormal.
    assert_eq!(
        exp_f64(-745.0).to_bits(),
        1,
        "exp_f64(-745) is the smallest subnormal"
    );
    assert_eq!(
        exp_f32(-103.5).to_bits(),
        1,
        "exp_f32(-103.5) is the smallest subnormal"
    );
    assert_eq!(log_f64(5e-324), (5e-324f64).ln());
    assert_eq!(
        log_f32(f32::from_bits(1)),
        f64::from(f32::from_bits(1)).ln() as f32
    );
}

#[test]
fn pow_special_values_follow_annex_f() {
    let inf = f64::INFINITY;
    let nan = f64::NAN;
    let cases: [(f64, f64, f64); 40] = [
        (nan, 0.0, 1.0),
        (nan, -0.0, 1.0),
        (1.0, nan, 1.0),
        (1.0, inf, 1.0),
        (nan, 1.0, NAN_F64),
        (2.0, nan, NAN_F64),
        (-1.0, inf, 1.0),
        (-1.0, -inf, 1.0),
        (0.5, inf, 0.0),
        (0.5, -inf, inf),
        (-0.5, inf, 0.0),
        (2.0, inf, inf),
        (-2.0, -inf, 0.0),
        (inf, inf, inf),
        (0.0, -3.0, inf),
        (-0.0, -3.0, -inf),
        (0.0, -2.0, inf),
        (-0.0, -2.0, inf),
        (-0.0, -0.5, inf),
        (-0.0, -inf, inf),
        (0.0, 3.0, 0.0),
        (-0.0, 3.0, -0.0),
        (-0.0, 2.0, 0.0),
        (-0.0, 0.5, 0.0),
        (inf, 0.5, inf),
        (inf, -0.5, 0.0),
        (-inf, 3.0, -inf),
        (-inf, 2.0, inf),
        (-inf, 0.5, inf),
        (-inf, -3.0, -0.0),
        (-inf, -2.0, 0.0),
        (-inf, -0.5, 0.0),
        (-2.0, 0.5, NAN_F64),
        (-2.0, 3.0, -8.0),
        (-2.0, -1.0, -0.5),
        (-1.0, 1e300, 1.0),
        (-1.0, 3.0, -1.0),
        (4.0, 0.5, 2.0),
        (10.0, 400.0, inf),
        (10.0, -400.0, 0.0),
    ];
    for (x, y, expected) in cases {
        assert_eq!(
            pow_f64(x, y).to_bits(),
            expected.to_bits(),
            "pow_f64({x:e}, {y:e}) = {:e}",
            pow_f64(x, y)
        );
        let expected32 = if expected.is_nan() {
            NAN_F32
        } else {
            expected as f32
        };
        let (x32, y32) = (x as f32, y as f32);
        assert_eq!(
            pow_f32(x32, y32).to_bits(),
            expected32.to_bits(),
            "pow_f32({x32:e}, {y32:e}) = {:e}",
            pow_f32(x32, y32)
        );
    }
}

#[test]
fn math_function_ids_match_the_kernel() {
    for (index, function) in MathFunction::ALL.into_iter().enumerate() {
        assert_eq!(function as u32 as usize, index);
    }
    let names: Vec<&str> = MathFunction::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["sin", "cos", "exp", "log", "pow"]);
    assert_eq!(MathFunction::Pow.apply_f64(2.0, 10.0), 1024.0);
    assert_eq!(MathFunction::Exp.apply_f32(0.0, 5.0), 1.0);
    assert!(MathFunction::Pow.is_binary() && !MathFunction::Log.is_binary());
}
