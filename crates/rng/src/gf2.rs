//! Jumps of cuRAND's XORWOW by matrix powers over GF(2).
//!
//! The xorshift part of XORWOW, v = (v0..v4), is a linear map of 160 bits: v' = A·v over GF(2). A matrix is
//! stored by columns, `column[k] = A·e_k` (bit k = bit k mod 32 of word k div 32), so `A·v` is the XOR of the
//! columns whose bit is set in v. Jumping n steps applies A^(2^i) for every set bit i of n; the tables hold
//! A^(2^i) (offsets) and A^(2^(67+i)) (subsequences of 2^67 steps), i = 0..63, built once by squaring.
//! Device code receives the same tables (see `kernels/common/rng/curand_xorwow.cuh`).

use std::sync::OnceLock;

/// Number of state words of the xorshift part.
pub const WORDS: usize = 5;
/// Number of state bits.
pub const BITS: usize = 32 * WORDS;
/// log2 of the subsequence length (one subsequence = 2^67 steps).
pub const SUBSEQUENCE_LOG2: usize = 67;

/// A 160×160 matrix over GF(2), by columns.
pub type Matrix = [[u32; WORDS]; BITS];

/// The xorshift step of XORWOW on v alone (cuRAND `curand()` without the Weyl counter d).
#[inline]
pub fn xorshift_step(v: [u32; WORDS]) -> [u32; WORDS] {
    let t = v[0] ^ (v[0] >> 2);
    let last = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
    [v[1], v[2], v[3], v[4], last]
}

/// `m·v` over GF(2).
#[inline]
pub fn apply(m: &Matrix, v: [u32; WORDS]) -> [u32; WORDS] {
    let mut out = [0u32; WORDS];
    for (k, column) in m.iter().enumerate() {
        if (v[k / 32] >> (k % 32)) & 1 == 1 {
            for (o, c) in out.iter_mut().zip(column) {
                *o ^= c;
            }
        }
    }
    out
}

fn one_step_matrix() -> Box<Matrix> {
    let mut m = Box::new([[0u32; WORDS]; BITS]);
    for (k, column) in m.iter_mut().enumerate() {
        let mut basis = [0u32; WORDS];
        basis[k / 32] = 1 << (k % 32);
        *column = xorshift_step(basis);
    }
    m
}

fn square(m: &Matrix) -> Box<Matrix> {
    let mut out = Box::new([[0u32; WORDS]; BITS]);
    for (column_out, column) in out.iter_mut().zip(m.iter()) {
        *column_out = apply(m, *column);
    }
    out
}

/// The jump tables: `offset[i]` = A^(2^i) and `subsequence[i]` = A^(2^(67+i)), i = 0..63.
pub struct JumpTables {
    /// A^(2^i).
    pub offset: Vec<Matrix>,
    /// A^(2^(67+i)).
    pub subsequence: Vec<Matrix>,
}

impl JumpTables {
    fn build() -> Self {
        let mut power = one_step_matrix();
        let mut offset = Vec::with_capacity(64);
        let mut subsequence = Vec::with_capacity(64);
        for i in 0..(SUBSEQUENCE_LOG2 + 64) {
            if i < 64 {
                offset.push(*power);
            }
            if i >= SUBSEQUENCE_LOG2 {
                subsequence.push(*power);
            }
            power = square(&power);
        }
        Self {
            offset,
            subsequence,
        }
    }

    /// The tables, built on first use (about 10 ms) and shared.
    pub fn get() -> &'static JumpTables {
        static TABLES: OnceLock<JumpTables> = OnceLock::new();
        TABLES.get_or_init(JumpTables::build)
    }

    /// v after `n` steps.
    pub fn jump_offset(&self, v: [u32; WORDS], n: u64) -> [u32; WORDS] {
        jump(&self.offset, v, n)
    }

    /// v after `n` subsequences of 2^67 steps.
    pub fn jump_subsequence(&self, v: [u32; WORDS], n: u64) -> [u32; WORDS] {
        jump(&self.subsequence, v, n)
    }

    /// One table flattened column by column, word by word, as device code reads it: entry
    /// `(i·160 + k)·5 + w` is word w of column k of matrix i.
    pub fn flatten(table: &[Matrix]) -> Vec<u32> {
        table.iter().flatten().flatten().copied().collect()
    }
}

fn jump(table: &[Matrix], mut v: [u32; WORDS], n: u64) -> [u32; WORDS] {
    for (i, m) in table.iter().enumerate() {
        if (n >> i) & 1 == 1 {
            v = apply(m, v);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_jumps_equal_plain_steps() {
        let tables = JumpTables::get();
        let start = [1, 2, 3, 4, 5];
        let mut stepped = start;
        for n in 0..300u64 {
            assert_eq!(tables.jump_offset(start, n), stepped, "n = {n}");
            stepped = xorshift_step(stepped);
        }
    }

    #[test]
    fn one_subsequence_is_two_to_the_67_steps() {
        let tables = JumpTables::get();
        let start = [0xdead_beef, 7, 0, 99, 12345];
        // A^(2^67) by 67 squarings of A^(2^0), applied directly.
        let mut power = Box::new(tables.offset[0]);
        for _ in 0..SUBSEQUENCE_LOG2 {
            power = square(&power);
        }
        assert_eq!(tables.jump_subsequence(start, 1), apply(&power, start));
        let three = tables.jump_subsequence(start, 3);
        assert_eq!(
            three,
            tables.jump_subsequence(tables.jump_subsequence(start, 1), 2)
        );
    }
}
