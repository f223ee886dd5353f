//! Named tolerances. Every comparison of floats in the suite goes through one of these; every use of a
//! tolerance other than [`Tolerance::Exact`] states its reason at the call site.

/// How close a GPU value must be to its CPU twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tolerance {
    /// Same bits. The contract of every kernel under the Exact profile.
    Exact,
    /// At most this many units in the last place apart (same sign; ±0 are 0 ulp apart); NaN equals NaN only
    /// bit for bit.
    Ulps(u32),
}

impl std::fmt::Display for Tolerance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tolerance::Exact => f.write_str("Exact (same bits)"),
            Tolerance::Ulps(n) => write!(f, "Ulps({n})"),
        }
    }
}

/// A float type the suite compares: its bits and its distance in ulps.
pub trait Float: Copy + std::fmt::Display + std::fmt::LowerExp {
    /// Width of the hexadecimal bit pattern.
    const HEX_DIGITS: usize;
    /// The raw bits, widened.
    fn bits(self) -> u64;
    /// Whether the value is NaN.
    fn is_nan(self) -> bool;
    /// Distance in ulps along the ordered integer line of the format (±0 coincide); `u64::MAX` when either
    /// is NaN.
    fn ulps_between(self, other: Self) -> u64;
}

macro_rules! impl_float {
    ($t:ty, $bits:ty, $signed:ty, $digits:expr) => {
        impl Float for $t {
            const HEX_DIGITS: usize = $digits;

            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }

            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }

            fn ulps_between(self, other: Self) -> u64 {
                if <$t>::is_nan(self) || <$t>::is_nan(other) {
                    return u64::MAX;
                }
                // Map the sign-magnitude bit patterns onto one monotonic integer line, -0 and +0 both at 0.
                let ordered = |x: $t| -> i128 {
                    let b = x.to_bits() as $signed;
                    if b < 0 {
                        -i128::from(b & <$signed>::MAX)
                    } else {
                        i128::from(b)
                    }
                };
                (ordered(self) - ordered(other)).unsigned_abs() as u64
            }
        }
    };
}

impl_float!(f32, u32, i32, 8);
impl_float!(f64, u64, i64, 16);

impl Tolerance {
    /// Whether `gpu` is within this tolerance of `cpu`, and their distance in ulps.
    pub fn accepts<T: Float>(self, cpu: T, gpu: T) -> (bool, u64) {
        if cpu.bits() == gpu.bits() {
            return (true, 0);
        }
        let ulps = cpu.ulps_between(gpu);
        let accepted = match self {
            Tolerance::Exact => false,
            Tolerance::Ulps(n) => ulps <= u64::from(n),
        };
        (accepted, ulps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_rejects_one_ulp() {
        let x = 1.0f32;
        let y = f32::from_bits(x.to_bits() + 1);
        assert_eq!(Tolerance::Exact.accepts(x, y), (false, 1));
        assert_eq!(Tolerance::Ulps(1).accepts(x, y), (true, 1));
    }

    #[test]
    fn signed_zeros_are_zero_ulps_apart_but_not_exact() {
        assert_eq!(Tolerance::Exact.accepts(0.0f64, -0.0), (false, 0));
        assert_eq!(Tolerance::Ulps(0).accepts(0.0f64, -0.0), (true, 0));
    }

    #[test]
    fn ulps_cross_zero() {
        let tiny = f32::from_bits(1);
        assert_eq!(tiny.ulps_between(-tiny), 2);
    }

    #[test]
    fn nan_matches_only_its_own_bits() {
        let nan = f64::NAN;
        assert_eq!(Tolerance::Exact.accepts(nan, nan), (true, 0));
        let other = f64::from_bits(nan.to_bits() | 1);
        assert!(!Tolerance::Ulps(1000).accepts(nan, other).0);
    }
}
