//! The SGA baseline's scalar operators (spec qiga.md §7); each names its decision's random address.

/// Roulette-wheel selection: the first index `i` whose cumulative profit `cumulative[i]` (index-order `f64`
/// prefix sums) exceeds `u · total`, `u` uniform in (0, 1) (word pair 0 of (SgaSelection, generation, slot)).
/// When rounding leaves no such index, the last one; when every profit is 0, the slot `⌊u·P⌋`.
pub fn roulette_pick(cumulative: &[f64], u: f64) -> usize {
    let last = cumulative.len().saturating_sub(1);
    let total = cumulative.last().copied().unwrap_or(0.0);
    if total <= 0.0 {
        return ((u * cumulative.len() as f64) as usize).min(last);
    }
    let target = u * total;
    cumulative.partition_point(|&c| c <= target).min(last)
}

/// The one-point crossover point in `1 ..= n − 1` from a word (word 1 of (SgaCrossover, generation, pair)):
/// children take bits `0 .. point` from one parent and `point .. n` from the other. `None` when `n < 2`.
pub fn crossover_point(word: u32, items: usize) -> Option<usize> {
    (items >= 2).then(|| 1 + evo_rng::convert::below(word, (items - 1) as u32) as usize)
}

/// Swaps bits `point ..` of two packed rows.
pub fn swap_tails(a: &mut [u32], b: &mut [u32], point: usize) {
    for w in point / 32..a.len() {
        let mask = if w == point / 32 {
            u32::MAX.checked_shl((point % 32) as u32).unwrap_or(0)
        } else {
            u32::MAX
        };
        let (x, y) = (a[w], b[w]);
        a[w] = (x & !mask) | (y & mask);
        b[w] = (y & !mask) | (x & mask);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roulette_follows_the_cumulative_profits() {
        let cumulative = [1.0, 1.0, 4.0, 10.0];
        assert_eq!(roulette_pick(&cumulative, 0.05), 0);
        assert_eq!(roulette_pick(&cumulative, 0.1), 2);
        assert_eq!(roulette_pick(&cumulative, 0.39), 2);
        assert_eq!(roulette_pick(&cumulative, 0.41), 3);
        assert_eq!(roulette_pick(&cumulative, 1.0), 3);
        assert_eq!(roulette_pick(&[0.0, 0.0], 0.7), 1);
    }

    #[test]
    fn tails_swap_from_the_point_on() {
        let (mut a, mut b) = (vec![0u32, 0], vec![u32::MAX, u32::MAX]);
        swap_tails(&mut a, &mut b, 36);
        assert_eq!(a, vec![0, u32::MAX << 4]);
        assert_eq!(b, vec![u32::MAX, !(u32::MAX << 4)]);
        assert_eq!(crossover_point(0, 250), Some(1));
        assert_eq!(crossover_point(u32::MAX, 250), Some(249));
        assert_eq!(crossover_point(7, 1), None);
    }
}
