//! The QIGA's scalar operators: observation of a qubit, its quadrant, and its rotation by the lookup and sign
//! tables (spec qiga.md §2). Each function is the CPU twin of the device function of the same name in
//! `kernels/cuda/qiga.cu`, with the same operations in the same order (all in `f32`, the cosine from the
//! portable [`evo_core::math::cos_f32`]), so the CPU and CUDA engines agree bit for bit under the Exact profile.

use evo_core::math::cos_f32;

use crate::params::{QuadrantRule, SignChoice};

/// The initial angle of every qubit, π/4 (α = β = √2/2), rounded once to `f32`.
/// Twin: `QIGA_INITIAL_ANGLE` in `qiga.cu`.
pub const INITIAL_ANGLE: f32 = std::f32::consts::FRAC_PI_4;

/// π in `f32`. Twin: `QIGA_PI`.
const PI: f32 = std::f32::consts::PI;
/// π/2 in `f32`. Twin: `QIGA_HALF_PI`.
const HALF_PI: f32 = std::f32::consts::FRAC_PI_2;
/// The tolerance of the α = 0 and β = 0 tests, Nowotniak's `10e-9f`. Twin: `QIGA_EPSILON`.
const EPSILON: f32 = 10e-9;

/// The sign table's column of an angle: which of αβ > 0, αβ < 0, α = 0, β = 0 holds.
pub const QUADRANT_POSITIVE: u32 = 0;
/// αβ < 0.
pub const QUADRANT_NEGATIVE: u32 = 1;
/// α = 0 (θ ≡ π/2 mod π).
pub const QUADRANT_ALPHA_ZERO: u32 = 2;
/// β = 0 (θ ≡ 0 mod π).
pub const QUADRANT_BETA_ZERO: u32 = 3;

/// A cell of the sign table that is +1 or −1 by [`SignChoice`].
const EITHER: i32 = 2;

/// The sign table (the paper's Table 2): `SIGN[row][quadrant]`, row = [`rotation_row`], quadrant as
/// [`quadrant`]; [`EITHER`] marks the ±1 cells. Twin: `QIGA_SIGN` in `qiga.cu`.
const SIGN: [[i32; 4]; 8] = [
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
    [-1, 1, EITHER, 0],
    [-1, 1, EITHER, 0],
    [1, -1, 0, EITHER],
    [1, -1, 0, EITHER],
    [1, -1, 0, EITHER],
];

/// Step 2, one qubit: the observed bit, 0 when `u < cos²θ`, else 1 (P(1) = sin²θ). `u` is the uniform
/// `f32` in (0, 1] of word `gene` of the sequence (QigaObserve, generation, individual).
/// Twin: `qiga_observe`.
#[inline]
pub fn observe(theta: f32, u: f32) -> bool {
    let alpha = cos_f32(theta);
    u >= alpha * alpha
}

/// The sign table's column of `theta` (spec qiga.md §2, "Quadrant"): `c` = θ reduced modulo π (a Euclidean
/// remainder under [`QuadrantRule::TrueSign`], C's `fmodf` under [`QuadrantRule::NowotniakQuirk`]);
/// β = 0 when `c < ε` or `c > π − ε`; else α = 0 when `|c − π/2| < ε`; else αβ > 0 when `c < π/2`, αβ < 0
/// otherwise. Twin: `qiga_quadrant`.
#[inline]
pub fn quadrant(theta: f32, rule: QuadrantRule) -> u32 {
    let mut c = theta % PI;
    if rule == QuadrantRule::TrueSign && c < 0.0 {
        c += PI;
    }
    if !(EPSILON..=PI - EPSILON).contains(&c) {
        QUADRANT_BETA_ZERO
    } else if (c - HALF_PI).abs() < EPSILON {
        QUADRANT_ALPHA_ZERO
    } else if c < HALF_PI {
        QUADRANT_POSITIVE
    } else {
        QUADRANT_NEGATIVE
    }
}

/// The lookup table's row (0-based: the paper's row − 1) of an observed bit `x`, the best's bit `b` and
/// `flag` = f(x) ≥ f(b): `4x + 2b + flag`. Twin: `qiga_rotation_row`.
#[inline]
pub fn rotation_row(x: bool, b: bool, flag: bool) -> usize {
    4 * usize::from(x) + 2 * usize::from(b) + usize::from(flag)
}

/// Δθ of a row: 0 for rows 0–2, θ1..θ5 for rows 3–7. Twin: `qiga_delta`.
#[inline]
pub fn delta(row: usize, angles: &[f32; 5]) -> f32 {
    if row < 3 { 0.0 } else { angles[row - 3] }
}

/// The sign s ∈ {−1, 0, +1} of a row and quadrant; a ±1 cell is +1 under [`SignChoice::Plus`] and, under
/// [`SignChoice::Random`], +1 when the top bit of `sign_word` is 0 and −1 otherwise. Twin: `qiga_sign`.
#[inline]
pub fn sign(row: usize, quadrant: u32, sign_word: u32, choice: SignChoice) -> f32 {
    let cell = SIGN[row][quadrant as usize];
    if cell != EITHER {
        cell as f32
    } else if choice == SignChoice::Random && sign_word >> 31 != 0 {
        -1.0
    } else {
        1.0
    }
}

/// Step 7, one qubit: θ ← θ + s·Δ with Δ = [`delta`] and s = [`sign`] of the qubit's row and quadrant.
/// Twin: `qiga_rotate`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn rotate(
    theta: f32,
    x: bool,
    b: bool,
    flag: bool,
    angles: &[f32; 5],
    sign_word: u32,
    choice: SignChoice,
    rule: QuadrantRule,
) -> f32 {
    let row = rotation_row(x, b, flag);
    let s = sign(row, quadrant(theta, rule), sign_word, choice);
    theta + s * delta(row, angles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observation_follows_cos_squared() {
        // cos²(π/4) = 0.5: u just below gives 0, u above gives 1.
        assert!(!observe(INITIAL_ANGLE, 0.49));
        assert!(observe(INITIAL_ANGLE, 0.51));
        // θ = 0: always 0 (u ≤ 1 = cos²0 only fails at u = 1 exactly, which is not below 1).
        assert!(!observe(0.0, 0.999));
        assert!(observe(0.0, 1.0));
        // θ = π/2: cos² is tiny, so almost always 1.
        assert!(observe(HALF_PI, 0.001));
    }

    #[test]
    fn quadrants_follow_the_true_sign_of_alpha_beta() {
        assert_eq!(quadrant(0.3, QuadrantRule::TrueSign), QUADRANT_POSITIVE);
        assert_eq!(quadrant(2.0, QuadrantRule::TrueSign), QUADRANT_NEGATIVE);
        assert_eq!(quadrant(-0.3, QuadrantRule::TrueSign), QUADRANT_NEGATIVE);
        assert_eq!(quadrant(-2.0, QuadrantRule::TrueSign), QUADRANT_POSITIVE);
        assert_eq!(quadrant(0.0, QuadrantRule::TrueSign), QUADRANT_BETA_ZERO);
        assert_eq!(quadrant(PI, QuadrantRule::TrueSign), QUADRANT_BETA_ZERO);
        assert_eq!(
            quadrant(HALF_PI, QuadrantRule::TrueSign),
            QUADRANT_ALPHA_ZERO
        );
        assert_eq!(
            quadrant(-HALF_PI, QuadrantRule::TrueSign),
            QUADRANT_ALPHA_ZERO
        );
    }

    #[test]
    fn the_quirk_sends_negative_angles_to_the_beta_zero_column() {
        assert_eq!(
            quadrant(-0.3, QuadrantRule::NowotniakQuirk),
            QUADRANT_BETA_ZERO
        );
        assert_eq!(
            quadrant(-2.0, QuadrantRule::NowotniakQuirk),
            QUADRANT_BETA_ZERO
        );
        assert_eq!(
            quadrant(0.3, QuadrantRule::NowotniakQuirk),
            QUADRANT_POSITIVE
        );
    }

    #[test]
    fn rotation_follows_the_tables() {
        let angles = [0.1, 0.2, 0.3, 0.4, 0.5];
        let plus = SignChoice::Plus;
        let rule = QuadrantRule::TrueSign;
        // Rows 1–3 never move.
        assert_eq!(
            rotate(0.3, false, false, true, &angles, 0, plus, rule).to_bits(),
            0.3f32.to_bits()
        );
        assert_eq!(
            rotate(0.3, false, true, false, &angles, 0, plus, rule).to_bits(),
            0.3f32.to_bits()
        );
        // Row 4 (x=0, b=1, f ≥ f(b)): αβ > 0 → −θ1.
        assert_eq!(
            rotate(0.3, false, true, true, &angles, 0, plus, rule),
            0.3 - 0.1
        );
        // Row 5 (x=1, b=0, f < f(b)): αβ < 0 → +θ2.
        assert_eq!(
            rotate(2.0, true, false, false, &angles, 0, plus, rule),
            2.0 + 0.2
        );
        // Row 8 (x=1, b=1, f ≥ f(b)): αβ > 0 → +θ5; β = 0 → ±1, +1 under Plus.
        assert_eq!(
            rotate(0.3, true, true, true, &angles, 0, plus, rule),
            0.3 + 0.5
        );
        assert_eq!(
            rotate(0.0, true, true, true, &angles, u32::MAX, plus, rule),
            0.5
        );
        // Random: the top bit of the word decides.
        let random = SignChoice::Random;
        assert_eq!(
            rotate(0.0, true, true, true, &angles, u32::MAX, random, rule),
            -0.5
        );
        assert_eq!(rotate(0.0, true, true, true, &angles, 1, random, rule), 0.5);
        // Row 6 at α = 0: 0.
        assert_eq!(
            rotate(HALF_PI, true, false, true, &angles, 0, plus, rule),
            HALF_PI
        );
    }

    #[test]
    fn the_kernel_holds_the_same_sign_table_and_constants() {
        let source = evo_kernels::ModuleId::Qiga.module().source;
        let cell = |c: i32| {
            if c == EITHER {
                "QIGA_EITHER".to_string()
            } else {
                c.to_string()
            }
        };
        for row in SIGN {
            let text = format!(
                "{{{}, {}, {}, {}}}",
                cell(row[0]),
                cell(row[1]),
                cell(row[2]),
                cell(row[3])
            );
            assert!(
                source.contains(&text),
                "qiga.cu lacks the sign-table row {text}"
            );
        }
        // The literals of qiga.cu's #defines round to the same f32 constants.
        let define = |name: &str| -> f32 {
            let start = source
                .find(&format!("#define {name} "))
                .map(|i| i + name.len() + 9)
                .unwrap();
            let literal = source[start..].split_whitespace().next().unwrap();
            literal.trim_end_matches('f').parse().unwrap()
        };
        assert_eq!(define("QIGA_PI").to_bits(), PI.to_bits());
        assert_eq!(define("QIGA_HALF_PI").to_bits(), HALF_PI.to_bits());
        assert_eq!(define("QIGA_EPSILON").to_bits(), EPSILON.to_bits());
    }

    #[test]
    fn rows_are_numbered_as_the_paper() {
        assert_eq!(rotation_row(false, false, false), 0);
        assert_eq!(rotation_row(false, true, true), 3);
        assert_eq!(rotation_row(true, true, true), 7);
        assert_eq!(delta(3, &[1.0, 2.0, 3.0, 4.0, 5.0]), 1.0);
        assert_eq!(delta(2, &[1.0, 2.0, 3.0, 4.0, 5.0]), 0.0);
    }
}
