//! Deterministic test inputs: a SplitMix64 stream and input sets that cover every class of float.
//!
//! The math checks draw a quarter of their inputs as raw bit patterns (every class: subnormals, NaNs with
//! payloads, infinities, huge values), a quarter log-uniform in magnitude over 2^-30..2^30, a quarter in
//! [-10, 10], and a quarter in the region where the function is most used or most delicate, after a fixed list
//! of special values (zeros, subnormal and normal limits, infinities, NaNs, overflow thresholds).

use evo_core::math::MathFunction;

/// SplitMix64 (Steele, Lea & Flood 2014): a tiny, well-mixed generator for test inputs only. The algorithms
/// draw from evo-rng; this only has to be deterministic and cover bit patterns evenly.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_unit()
    }

    /// Random sign times 2^e with e uniform in [lo_exp, hi_exp) (log-uniform magnitude).
    pub fn log_uniform(&mut self, lo_exp: f64, hi_exp: f64) -> f64 {
        let magnitude = self.uniform(lo_exp, hi_exp).exp2();
        if self.next_u64() & 1 == 0 {
            magnitude
        } else {
            -magnitude
        }
    }
}

/// A random graph for the user-problem tests: `edges` edges `(u, v, r)` with `u ≠ v` below `vertices` and `r`
/// 64 random bits that the caller maps to a weight, drawn u, v, then r (only for a kept pair) from `seed`.
pub fn random_graph(seed: u64, vertices: usize, edges: usize) -> Vec<(usize, usize, u64)> {
    let mut rng = SplitMix64::new(seed);
    let mut graph = Vec::with_capacity(edges);
    while graph.len() < edges {
        let u = (rng.next_u64() % vertices as u64) as usize;
        let v = (rng.next_u64() % vertices as u64) as usize;
        if u != v {
            graph.push((u, v, rng.next_u64()));
        }
    }
    graph
}

/// The region of most interest for `function`, as a sampler of (x, y) pairs in f64.
fn focused(function: MathFunction, wide: bool, rng: &mut SplitMix64) -> (f64, f64) {
    match function {
        MathFunction::Sin | MathFunction::Cos => (rng.uniform(-1.0e5, 1.0e5), 0.0),
        MathFunction::Exp if wide => (rng.uniform(-760.0, 720.0), 0.0),
        MathFunction::Exp => (rng.uniform(-110.0, 95.0), 0.0),
        MathFunction::Log if wide => (rng.log_uniform(-1074.0, 1024.0).abs(), 0.0),
        MathFunction::Log => (rng.log_uniform(-149.0, 128.0).abs(), 0.0),
        MathFunction::Pow => {
            let x = rng.log_uniform(-20.0, 20.0);
            // Half of the exponents are integers, where negative bases have defined results.
            let y = if rng.next_u64() & 1 == 0 {
                rng.uniform(-30.0, 30.0).round()
            } else {
                rng.uniform(-30.0, 30.0)
            };
            (x, y)
        }
    }
}

macro_rules! inputs_for {
    ($name:ident, $t:ty, $bits:ty, $wide:expr, $specials:expr) => {
        /// `count` (x, y) inputs for `function` from `seed`: the special values first (each paired with every
        /// special value for `Pow`), then the four mixtures described in the module docs.
        pub fn $name(function: MathFunction, count: usize, seed: u64) -> (Vec<$t>, Vec<$t>) {
            let specials: Vec<$t> = $specials;
            let mut xs = Vec::with_capacity(count);
            let mut ys = Vec::with_capacity(count);
            for &x in &specials {
                if function == MathFunction::Pow {
                    for &y in &specials {
                        xs.push(x);
                        ys.push(y);
                    }
                } else {
                    xs.push(x);
                    ys.push(0.0);
                }
            }
            let mut rng = SplitMix64::new(seed ^ (function as u64).wrapping_mul(0x1000_0000_01b3));
            while xs.len() < count {
                let (x, y) = match xs.len() % 4 {
                    0 => (
                        <$t>::from_bits(rng.next_u64() as $bits) as f64,
                        <$t>::from_bits(rng.next_u64() as $bits) as f64,
                    ),
                    1 => (rng.log_uniform(-30.0, 30.0), rng.log_uniform(-4.0, 4.0)),
                    2 => (rng.uniform(-10.0, 10.0), rng.uniform(-10.0, 10.0)),
                    _ => focused(function, $wide, &mut rng),
                };
                xs.push(x as $t);
                ys.push(y as $t);
            }
            xs.truncate(count);
            ys.truncate(count);
            (xs, ys)
        }
    };
}

inputs_for!(math_inputs_f32, f32, u32, false, {
    let mut v = vec![
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        -2.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::EPSILON,
        88.72284,
        88.72283,
        -87.33655,
        -103.97208,
        -103.27893,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::PI,
        std::f32::consts::TAU,
        1.0e10,
        1.0e20,
        1.0e30,
        0.6,
        1.0000001,
        0.99999994,
    ];
    // Subnormal limits and NaN payloads, written as bit patterns.
    v.extend(
        [
            0x0000_0001u32,
            0x007f_ffff,
            0x8000_0001,
            0x807f_ffff,
            0x7f80_0001,
            0x7fc0_1234,
            0xffc0_0000,
        ]
        .map(f32::from_bits),
    );
    v
});

inputs_for!(math_inputs_f64, f64, u64, true, {
    let mut v = vec![
        0.0f64,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        -2.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::EPSILON,
        709.782712893384,
        709.7827128933841,
        -708.3964185322641,
        -745.1332191019411,
        -745.1332191019412,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
        std::f64::consts::TAU,
        1.0e10,
        1.0e22,
        1.0e300,
        0.6,
        1.0000000000000002,
        0.9999999999999999,
    ];
    v.extend(
        [
            0x1u64,
            0x000f_ffff_ffff_ffff,
            0x8000_0000_0000_0001,
            0x7ff0_0000_0000_0001,
            0x7ff8_0000_1234_0000,
        ]
        .map(f64::from_bits),
    );
    v
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_deterministic_and_cover_every_class() {
        let (a, _) = math_inputs_f32(MathFunction::Log, 100_000, 7);
        let (b, _) = math_inputs_f32(MathFunction::Log, 100_000, 7);
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
        assert!(a.iter().any(|x| x.is_nan()));
        assert!(a.iter().any(|x| x.is_infinite()));
        assert!(a.iter().any(|x| x.is_subnormal()));
        assert!(a.iter().any(|x| x.abs() > 1.0e30));
        assert_eq!(a.len(), 100_000);
    }

    #[test]
    fn pow_pairs_every_special_value_with_every_other() {
        let (xs, ys) = math_inputs_f64(MathFunction::Pow, 10_000, 1);
        let pair_present = |x: f64, y: f64| {
            xs.iter()
                .zip(&ys)
                .any(|(a, b)| a.to_bits() == x.to_bits() && b.to_bits() == y.to_bits())
        };
        assert!(pair_present(-0.0, f64::NEG_INFINITY));
        assert!(pair_present(f64::NAN, 0.0));
    }
}
