//! A packed bit string, the genome of binary problems.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A fixed-length bit string packed into `u32` words.
///
/// # Layout
///
/// Bit `i` lives in word `i / 32` at bit position `i % 32`, counting from the least significant bit
/// (little-endian bit order within a word, words in increasing index order). A string of `len` bits has
/// [`Bits::word_count`]`(len)` words; the unused high bits of the last word are always zero, so equal
/// strings have equal words. This is the layout the CUDA kernels use, so a GPU population copies to the host
/// word for word.
///
/// ```
/// use evo_core::Bits;
/// let mut bits = Bits::from_bools(&[true, false, true]);
/// assert_eq!(bits.words(), &[0b101]);
/// bits.set(1, true)?;
/// assert_eq!(bits.get(1), Some(true));
/// assert_eq!(bits.count_ones(), 3);
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RawBits")]
pub struct Bits {
    len: usize,
    words: Vec<u32>,
}

/// The unvalidated JSON form; reading goes through [`Bits::from_words`] so the word count is checked.
#[derive(Deserialize)]
struct RawBits {
    len: usize,
    words: Vec<u32>,
}

impl TryFrom<RawBits> for Bits {
    type Error = Error;

    fn try_from(raw: RawBits) -> Result<Self> {
        Bits::from_words(raw.words, raw.len)
    }
}

impl Bits {
    /// The number of `u32` words that hold `len` bits.
    pub const fn word_count(len: usize) -> usize {
        len.div_ceil(32)
    }

    /// `len` zero bits.
    pub fn zeros(len: usize) -> Self {
        Self {
            len,
            words: vec![0; Self::word_count(len)],
        }
    }

    /// Packs a slice of booleans, `bools[i]` becoming bit `i`.
    pub fn from_bools(bools: &[bool]) -> Self {
        let mut words = vec![0u32; Self::word_count(bools.len())];
        for (i, _) in bools.iter().enumerate().filter(|(_, bit)| **bit) {
            words[i / 32] |= 1 << (i % 32);
        }
        Self {
            len: bools.len(),
            words,
        }
    }

    /// Wraps packed words (layout in the type docs). Bits beyond `len` in the last word are cleared, so a
    /// GPU buffer whose padding holds random bits can be passed as is.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `words.len()` is not [`Bits::word_count`]`(len)`.
    pub fn from_words(words: Vec<u32>, len: usize) -> Result<Self> {
        if words.len() != Self::word_count(len) {
            return Err(Error::invalid_parameter(
                "Bits",
                "word count",
                words.len(),
                format!("{} for {len} bits", Self::word_count(len)),
            ));
        }
        Ok(Self::from_row(words, len))
    }

    /// Builds from a row whose length is already known to be right, clearing the padding bits.
    pub(crate) fn from_row(mut words: Vec<u32>, len: usize) -> Self {
        let used = len % 32;
        if used != 0
            && let Some(last) = words.last_mut()
        {
            *last &= (1u32 << used) - 1;
        }
        Self { len, words }
    }

    /// The number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the string has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit `index`, or `None` past the end (as [`slice::get`]).
    pub fn get(&self, index: usize) -> Option<bool> {
        if index < self.len {
            Some((self.words[index / 32] >> (index % 32)) & 1 == 1)
        } else {
            None
        }
    }

    /// Sets bit `index` to `value`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `index >= len()`; the string is unchanged.
    pub fn set(&mut self, index: usize, value: bool) -> Result<()> {
        if index >= self.len {
            return Err(Error::invalid_parameter(
                "Bits",
                "bit index",
                index,
                format!("less than the length {}", self.len),
            ));
        }
        let mask = 1u32 << (index % 32);
        let word = &mut self.words[index / 32];
        if value {
            *word |= mask;
        } else {
            *word &= !mask;
        }
        Ok(())
    }

    /// The packed words (layout in the type docs; padding bits are zero).
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The number of one bits.
    pub fn count_ones(&self) -> usize {
        // Padding bits are zero, so counting whole words is exact.
        self.words
            .iter()
            .map(|word| word.count_ones() as usize)
            .sum()
    }

    /// The bits in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = bool> + '_ {
        (0..self.len).map(|i| (self.words[i / 32] >> (i % 32)) & 1 == 1)
    }

    /// The bits as booleans, bit `i` at index `i`.
    pub fn to_bools(&self) -> Vec<bool> {
        self.iter().collect()
    }
}
