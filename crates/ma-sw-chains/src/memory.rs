//! The device layout of a CUDA run (threads per block, the distance tile, the Solis–Wets probe rows) and the
//! device memory it needs, computed from that layout before anything is allocated (spec §4: at D = 10^8 with
//! N = 60 about 60 GB, so 10^8 variables fit an 80 GB GPU). The CUDA engine reads the layout from here, so
//! the need and the allocations cannot drift apart, and this module depends on no CUDA code.

use crate::params::MaParams;

/// Threads per block of every `ma_*` kernel (a power of two; each thread handles one lane of 4 variables).
pub const BLOCK: u32 = 256;

/// Variables per distance tile: 4 per thread.
pub const TILE: u64 = 4 * BLOCK as u64;

/// [`TILE`] as a host length.
pub const TILE_VARIABLES: usize = 4 * BLOCK as usize;

/// Up to this many variables the Solis–Wets loop decides 2 iterations per launch group (8 probe rows
/// evaluated per group: cheap while launches, not bandwidth, bound the loop); above it, 1 (2 rows).
pub const LOOKAHEAD_MAX_VARIABLES: usize = 500_000;

/// The default look-ahead at `d` variables (see [`LOOKAHEAD_MAX_VARIABLES`]).
pub fn default_lookahead(d: usize) -> u32 {
    if d <= LOOKAHEAD_MAX_VARIABLES { 2 } else { 1 }
}

/// Probe rows of a Solis–Wets group with look-ahead `lookahead` (1: 2 rows; 2: 8 rows).
pub fn sw_rows(lookahead: u32) -> usize {
    if lookahead == 2 { 8 } else { 2 }
}

/// Room for the CUDA context, the loaded modules and the evaluator's small buffers.
pub const HEADROOM_BYTES: u64 = 256 << 20;

/// What a CUDA run of `params` on `dimension` variables allocates, in bytes.
///
/// | buffer | f32 values |
/// | --- | --- |
/// | population, chain biases | 2·N·D |
/// | children area (padding) | K·D |
/// | LS point, LS bias | 2·D |
/// | Solis–Wets probe rows (8 up to 500 000 variables, 2 above: [`default_lookahead`]) | 8·D or 2·D |
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
    fn the_look_ahead_drops_to_two_probe_rows_above_its_limit() {
        assert_eq!(sw_rows(default_lookahead(LOOKAHEAD_MAX_VARIABLES)), 8);
        assert_eq!(sw_rows(default_lookahead(LOOKAHEAD_MAX_VARIABLES + 1)), 2);
        assert_eq!(TILE_VARIABLES as u64, TILE);
    }

    #[test]
    fn one_hundred_million_variables_fit_in_80_gb() {
        let bytes = device_bytes(&MaParams::default(), 100_000_000);
        assert!(bytes > 57_000_000_000 && bytes < 80_000_000_000, "{bytes}");
    }
}
