//! The official CEC 2010 instance generator (T. Weise's `Randomizer`/`Defaults`, spec benchmarks.md §(c),
//! generator items 2–7): one [`JavaRandom`] stream per function, seeded with the function number, drawing
//! the shift vector `o`, then the permutation `P` (if used), then the rotation `M` (if used).

use super::java_random::JavaRandom;

/// Group size `m` of every non-separable group.
pub const GROUP_SIZE: usize = 50;

/// Draws the shift vector (item 4): `hw = (max − min)/2`, `mid = min + hw`; for `i = D−1` down to 0 draw
/// `mid + gaussian·hw` until it lies in `[min, max]`.
pub fn shift_vector(random: &mut JavaRandom, dimension: usize, min: f64, max: f64) -> Vec<f64> {
    let half_width = (max - min) / 2.0;
    let middle = min + half_width;
    let mut o = vec![0.0f64; dimension];
    for value in o.iter_mut().rev() {
        *value = loop {
            let s = middle + random.next_gaussian() * half_width;
            if min <= s && s <= max {
                break s;
            }
        };
    }
    o
}

/// Draws the permutation (item 5): the identity, then `8D + 1` swaps of two distinct random positions.
/// `dimension` is at least 2 and below 2^31.
pub fn permutation(random: &mut JavaRandom, dimension: usize) -> Vec<u32> {
    let mut p: Vec<u32> = (0..dimension as u32).collect();
    let bound = dimension as i32;
    for _ in 0..=8 * dimension {
        let j = random.next_int(bound) as usize;
        let k = loop {
            let k = random.next_int(bound) as usize;
            if k != j {
                break k;
            }
        };
        p.swap(j, k);
    }
    p
}

/// Draws the 50 × 50 rotation (item 6), row-major: Gaussian entries filled from the last to the first, then
/// Gram–Schmidt from the last row to the first (each row loses its projections on the later, already
/// normalised rows, then is normalised). A zero row starts the whole draw over.
pub fn rotation(random: &mut JavaRandom) -> Vec<f64> {
    let m = GROUP_SIZE;
    'draw: loop {
        let mut matrix = vec![0.0f64; m * m];
        for i in (0..m).rev() {
            for j in (0..m).rev() {
                matrix[i * m + j] = random.next_gaussian();
            }
        }
        for i in (0..m).rev() {
            for j in (i + 1..m).rev() {
                let dot: f64 = (0..m).map(|k| matrix[i * m + k] * matrix[j * m + k]).sum();
                for k in 0..m {
                    matrix[i * m + k] -= dot * matrix[j * m + k];
                }
            }
            let norm = (0..m)
                .map(|k| matrix[i * m + k] * matrix[i * m + k])
                .sum::<f64>()
                .sqrt();
            if norm <= 0.0 {
                continue 'draw;
            }
            for k in 0..m {
                matrix[i * m + k] /= norm;
            }
        }
        return matrix;
    }
}
