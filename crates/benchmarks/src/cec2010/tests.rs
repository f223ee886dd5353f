use super::*;

/// A check value printed in the spec, with the tolerance its printed digits allow: half a unit of the last
/// printed digit, and at least the spec's 1e-12 relative.
fn assert_printed(what: &str, got: f64, printed: &str) {
    let expected: f64 = printed.parse().unwrap();
    let mantissa = printed.split(['e', 'E']).next().unwrap();
    let digits = mantissa.chars().filter(|c| c.is_ascii_digit()).count() as i32;
    let leading_zeros = mantissa
        .trim_start_matches('-')
        .chars()
        .take_while(|&c| c == '0' || c == '.')
        .filter(|&c| c == '0')
        .count() as i32;
    let significant = digits - leading_zeros;
    let magnitude = expected.abs().log10().floor() as i32;
    let half_unit = 0.5 * 10f64.powi(magnitude - significant + 1);
    let tolerance = half_unit.max(1e-12 * expected.abs());
    assert!(
        (got - expected).abs() <= tolerance,
        "{what}: got {got:.15e}, expected {printed} (tolerance {tolerance:e})"
    );
}

/// Spec benchmarks.md §(c): o[0] and F(0) at D = 1000 for F1..F20.
const CHECKS: [(&str, &str); 20] = [
    ("-36.884289394", "2.0001357484e+11"),
    ("-2.1182693368", "1.7053186505e+04"),
    ("22.9398579637", "2.1056672819e+01"),
    ("75.278278462", "7.6880217916e+15"),
    ("-4.1174090771", "1.0100975741e+09"),
    ("19.7711343428", "2.0927444776e+07"),
    ("38.4601100279", "2.0462163869e+13"),
    ("56.8153286407", "6.7190632641e+16"),
    ("89.2431652786", "2.4085397120e+11"),
    ("4.0113759359", "1.7426670902e+04"),
    ("21.0218123217", "2.3168201480e+02"),
    ("-12.9233824481", "3.3824183134e+07"),
    ("-16.8399898308", "7.0123647194e+11"),
    ("60.3990592525", "2.7290053964e+11"),
    ("-0.6052807225", "1.7402178853e+04"),
    ("-5.4410428374", "4.1958943230e+02"),
    ("-54.2952019792", "7.6484601847e+07"),
    ("-83.1766825209", "1.4756404535e+12"),
    ("49.1220665618", "3.3478468733e+09"),
    ("-10.9157449114", "1.6567531496e+12"),
];

#[test]
fn first_shift_and_value_at_zero_match_the_official_instances() {
    for (number, (o0, f0)) in (1u32..).zip(CHECKS) {
        let problem = Cec2010Problem::new(number, 1000).unwrap();
        assert_printed(&format!("F{number} o[0]"), problem.shift()[0], o0);
        assert_printed(&format!("F{number} F(0)"), problem.evaluate_by(|_| 0.0), f0);
        let optimum = problem.optimum_point();
        let at_optimum = problem.evaluate_by(|i| optimum[i]);
        assert!(at_optimum <= 1e-20, "F{number}(x*) = {at_optimum:e}");
    }
}

#[test]
fn listed_shift_permutation_and_rotation_entries_match() {
    let f1 = Cec2010Problem::new(1, 1000).unwrap();
    assert_printed("F1 o[1]", f1.shift()[1], "-49.414415707");
    assert_printed("F1 o[999]", f1.shift()[999], "-64.702854933");
    let f4 = Cec2010Problem::new(4, 1000).unwrap();
    assert_printed("F4 o[1]", f4.shift()[1], "-75.544835012");
    assert_printed("F4 o[2]", f4.shift()[2], "-3.326473492");
    assert_eq!(f4.permutation()[..6], [870, 624, 145, 831, 108, 46]);
    let m = f4.rotation();
    for (j, printed) in [
        "-0.0623251772",
        "0.102411927",
        "0.0919532874",
        "0.0832991551",
    ]
    .iter()
    .enumerate()
    {
        assert_printed(&format!("F4 M[0][{j}]"), m[j], printed);
    }
    assert_printed("F4 M[1][0]", m[50], "-0.0356752773");
    assert_printed("F4 M[1][1]", m[51], "0.00918363149");
    let f18 = Cec2010Problem::new(18, 1000).unwrap();
    assert_eq!(f18.permutation()[..3], [72, 300, 908]);
}

#[test]
fn rotation_is_orthonormal_and_permutation_is_a_permutation() {
    let f14 = Cec2010Problem::new(14, 200).unwrap();
    let m = f14.rotation();
    for i in 0..GROUP_SIZE {
        for j in 0..GROUP_SIZE {
            let dot: f64 = (0..GROUP_SIZE)
                .map(|k| m[i * GROUP_SIZE + k] * m[j * GROUP_SIZE + k])
                .sum();
            let expected = if i == j { 1.0 } else { 0.0 };
            assert!((dot - expected).abs() < 1e-12, "rows {i}, {j}: {dot}");
        }
    }
    let mut p = f14.permutation().to_vec();
    p.sort_unstable();
    assert!(p.iter().enumerate().all(|(i, &v)| v as usize == i));
}

#[test]
fn optimum_holds_at_other_dimensions() {
    for number in 1..=20 {
        let problem = Cec2010Problem::new(number, 200).unwrap();
        let optimum = problem.optimum_point();
        let value = problem.evaluate_by(|i| optimum[i]);
        assert!(value <= 1e-20, "F{number}(x*) at D = 200: {value:e}");
        let bounds = problem.bounds();
        assert!(
            problem
                .shift()
                .iter()
                .all(|&o| o >= f64::from(bounds.lower()[0]) && o <= f64::from(bounds.upper()[0]))
        );
    }
}

#[test]
fn bad_numbers_and_dimensions_are_errors() {
    assert!(Cec2010Problem::new(0, 1000).is_err());
    assert!(Cec2010Problem::new(21, 1000).is_err());
    assert!(Cec2010Problem::new(1, 150).is_err());
    assert!(Cec2010Problem::new(1, 0).is_err());
}
