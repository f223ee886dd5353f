//! The shift vector of the MA-SW-Chains functions (spec benchmarks.md §(b).4; the paper does not say how `o`
//! is drawn).
//!
//! ```text
//! key  = (function id, D as u32)
//! w    = word (i mod 4) of Philox4x32-10(counter = (i div 4, 0, 0, 0), key)
//! u    = (w + 0.5) · 2^-32                       (f64)
//! o_i  = f32(lo + (hi − lo) · (0.1 + 0.8 u))    (f64 arithmetic, one rounding)
//! ```
//!
//! so `o` lies in the middle 80% of the domain and `x* = o` is representable in `f32` genes. The key holds
//! `D`, so `o` for `D = 2000` is not an extension of `o` for `D = 1000`.

use super::ShiftedFunction;
use evo_rng::philox::philox4x32_10;
use rayon::prelude::*;

/// `2^-32` as a double.
const TWO_POW_MINUS_32: f64 = 1.0 / 4_294_967_296.0;

/// The shift vector of `function` for `dimension` variables on `[lo, hi]` (`dimension ≤ u32::MAX`, which
/// [`ShiftedProblem`](super::ShiftedProblem) guarantees).
pub fn shift_vector(function: ShiftedFunction, dimension: usize, lo: f64, hi: f64) -> Vec<f32> {
    let key = [function.id(), dimension as u32];
    let mut o = vec![0.0f32; dimension];
    o.par_chunks_mut(4).enumerate().for_each(|(block, chunk)| {
        let words = philox4x32_10([block as u32, 0, 0, 0], key);
        for (value, &w) in chunk.iter_mut().zip(&words) {
            let u = (f64::from(w) + 0.5) * TWO_POW_MINUS_32;
            *value = (lo + (hi - lo) * (0.1 + 0.8 * u)) as f32;
        }
    });
    o
}
