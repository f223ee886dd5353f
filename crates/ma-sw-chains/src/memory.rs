//! The device memory a CUDA run needs, computed before anything is allocated (spec §4: at D = 10^8 with
//! N = 60 about 60 GB, so 10^8 variables fit an 80 GB GPU).

use crate::cuda::default_lookahead;
use crate::cuda::launch::{TILE, sw_rows};
use crate::params::MaParams;

/// Room for the CUDA context, the loaded modules and the evaluator's small buffers.
pub const HEADROOM_BYTES: u64 = 256 << 20;

/// What a CUDA run of `params` on `dimension` variables allocates, in bytes.
///
/// | buffer | f32 values |
/// | --- | --- |
/// | population, chain biases | 2·N·D |
/// | children area (padding) | K·D |
/// | LS point, LS bias | 2·D |
/// | Solis–Wets probe rows (8 up to 500 000 variables, 2 above: `cuda::default_lookahead`) | 8·D or 2·D |
/// | bounds | 2·D |
///
/// plus the problem's data (at most 16·D bytes: a shift vector in f64 and a permutation), the distance partials
/// (8·max(K·n_ass, N − 1)·⌈D/1024⌉ bytes), the evaluator's partial sums of K rows (32·K·⌈D/1024⌉ bytes) and
/// [`HEADROOM_BYTES`]. Each large buffer may be rounded up by the buffer pool's size classes (at most 1/8),
/// which is included.
pub fn device_bytes(params: &MaParams, dimension: usize) -> u64 {
    let d = dimension as u64;
    let n = params.population() as u64;
    let k = params.children_per_step() as u64;
    let tiles = d.div_ceil(TILE);
    let rounded = |bytes: u64| bytes + bytes / 8;
    let probes = sw_rows(default_lookahead(dimension)) as u64 * d;
    let vectors = [n * d, n * d, k * d, d, d, probes, d, d]
        .iter()
        .map(|&values| rounded(4 * values))
        .sum::<u64>();
    let problem = rounded(16 * d);
    let pairs = (k * params.nam_candidates() as u64).max(n - 1);
    let distances = rounded(8 * pairs * tiles);
    let evaluator = rounded(32 * k * tiles);
    vectors + problem + distances + evaluator + HEADROOM_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hundred_million_variables_fit_in_80_gb() {
        let bytes = device_bytes(&MaParams::default(), 100_000_000);
        assert!(bytes > 57_000_000_000 && bytes < 80_000_000_000, "{bytes}");
    }
}
