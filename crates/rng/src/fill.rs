//! CPU fills, the twins of the `rng` kernel module's fill kernels (`kernels/cuda/rng.cu`): same outputs in
//! the same places, so the equivalence suite compares them element by element. Parallel with rayon; run
//! inside a one-thread pool for the single-thread figure.
//!
//! - Addressed Philox: `out[j]` is draw `j` of the sequence (word, uniform, integer, normal; f64 draw `q`
//!   uses words `2q`, `2q + 1`).
//! - Paper generators: `T` generators each draw `per_thread` values in order; draw `i` of generator `t` goes
//!   to `out[t + i·T]` (the GA paper's layout, coalesced on the GPU).

use evo_core::{Error, Result};
use rayon::prelude::*;

use crate::addressed::Sequence;
use crate::convert::{below, box_muller};

/// Words per parallel chunk of the addressed fills (a multiple of 4, so chunks start on a lane).
const CHUNK: usize = 1 << 14;

/// Fills `out` lane by lane: `lane_values(block)` turns the 4 words of one lane into its `PER_LANE` outputs.
fn fill_lanes<T: Send + Copy, const PER_LANE: usize>(
    sequence: &Sequence,
    out: &mut [T],
    lane_values: impl Fn([u32; 4]) -> [T; PER_LANE] + Sync,
) {
    let chunk = CHUNK / 4 * PER_LANE;
    out.par_chunks_mut(chunk).enumerate().for_each(|(c, part)| {
        let first_lane = (c * (chunk / PER_LANE)) as u32;
        let mut whole = part.chunks_exact_mut(PER_LANE);
        let mut lane = first_lane;
        for slot in &mut whole {
            slot.copy_from_slice(&lane_values(sequence.block(lane)));
            lane += 1;
        }
        let tail = whole.into_remainder();
        if !tail.is_empty() {
            let values = lane_values(sequence.block(lane));
            tail.copy_from_slice(&values[..tail.len()]);
        }
    });
}

/// `out[j]` = word `j` (twin of `rng_philox_fill_u32`).
pub fn philox_u32(sequence: &Sequence, out: &mut [u32]) {
    fill_lanes(sequence, out, |block| block);
}

/// `out[j]` = uniform f32 of word `j` (twin of `rng_philox_fill_uniform_f32`).
pub fn philox_uniform_f32(sequence: &Sequence, out: &mut [f32]) {
    fill_lanes(sequence, out, |block| {
        block.map(crate::convert::uniform_f32)
    });
}

/// `out[q]` = uniform f64 of words `2q`, `2q + 1` (twin of `rng_philox_fill_uniform_f64`).
pub fn philox_uniform_f64(sequence: &Sequence, out: &mut [f64]) {
    fill_lanes(sequence, out, |[w0, w1, w2, w3]| {
        [
            crate::convert::uniform_f64(w0, w1),
            crate::convert::uniform_f64(w2, w3),
        ]
    });
}

/// `out[j]` = integer in `[0, bound)` from word `j` (twin of `rng_philox_fill_below`).
pub fn philox_below(sequence: &Sequence, bound: u32, out: &mut [u32]) {
    fill_lanes(sequence, out, |block| block.map(|w| below(w, bound)));
}

/// `out[k]` = normal `k` (twin of `rng_philox_fill_normal_f32`).
pub fn philox_normal_f32(sequence: &Sequence, out: &mut [f32]) {
    fill_lanes(sequence, out, |[w0, w1, w2, w3]| {
        let [a, b] = box_muller(w0, w1);
        let [c, d] = box_muller(w2, w3);
        [a, b, c, d]
    });
}

/// Paper-generator layout: generator `t` draws `per_thread` values with `draw`; value `i` goes to
/// `out[t + i·T]` with `T = generators.len()`. `out` must hold `T·per_thread` values; the generators are
/// left after their last draw.
pub fn strided<G: Send, T: Send + Copy>(
    generators: &mut [G],
    per_thread: usize,
    out: &mut [T],
    draw: impl Fn(&mut G) -> T + Sync,
) -> Result<()> {
    let threads = generators.len();
    if Some(out.len()) != threads.checked_mul(per_thread) {
        return Err(Error::invalid_parameter(
            "rng fill",
            "output length",
            out.len(),
            format!("generators × draws per generator = {threads} × {per_thread}"),
        ));
    }
    let columns: Vec<Vec<T>> = generators
        .par_iter_mut()
        .map(|g| (0..per_thread).map(|_| draw(g)).collect())
        .collect();
    for (t, column) in columns.into_iter().enumerate() {
        for (i, value) in column.into_iter().enumerate() {
            out[t + i * threads] = value;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Philox, Stream, Xor128};

    #[test]
    fn addressed_fills_follow_the_sequence_across_chunks() {
        let sequence = Philox::new(5).sequence(Stream::Fill, 1, 2);
        let n = CHUNK * 2 + 7;
        let mut words = vec![0u32; n];
        philox_u32(&sequence, &mut words);
        for j in [0, 3, 4, CHUNK - 1, CHUNK, 2 * CHUNK + 6] {
            assert_eq!(words[j], sequence.word(j as u32), "word {j}");
        }
        let mut normals = vec![0f32; n];
        philox_normal_f32(&sequence, &mut normals);
        assert_eq!(
            normals[n - 1].to_bits(),
            sequence.normal_f32(n as u32 - 1).to_bits()
        );
        let mut doubles = vec![0f64; n / 2 + 1];
        philox_uniform_f64(&sequence, &mut doubles);
        assert_eq!(
            doubles[n / 2].to_bits(),
            sequence.uniform_f64((n / 2) as u32).to_bits()
        );
    }

    #[test]
    fn strided_layout_puts_draw_i_of_thread_t_at_t_plus_i_times_threads() {
        let mut generators = vec![
            Xor128::standard(),
            Xor128::from_words_or_standard([1, 2, 3, 4]),
        ];
        let mut out = vec![0u32; 6];
        strided(&mut generators, 3, &mut out, Xor128::next_word).unwrap();
        assert!(strided(&mut generators, 2, &mut out, Xor128::next_word).is_err());
        let mut first = Xor128::standard();
        assert_eq!(
            [out[0], out[2], out[4]],
            [first.next_word(), first.next_word(), first.next_word()]
        );
    }
}
