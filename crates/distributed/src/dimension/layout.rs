//! [`SliceLayout`]: which variables each slice holds and on which GPU (pure host arithmetic, no device).

use evo_core::{Error, Result};
use evo_ma_sw_chains::memory::TILE_VARIABLES;

use super::COMPONENT;

/// The smallest block: one distance / fitness tile of the slice kernels (1024 variables).
pub const MIN_BLOCK: usize = TILE_VARIABLES;

/// Blocks per slice that [`SliceLayout::even`] gives at least (and fewer than twice as many) where D allows:
/// enough that slices, which differ by at most one block, differ by under 2 %, few enough that the partial
/// sums gathered per row stay a few hundred numbers.
pub const EVEN_BLOCKS_PER_SLICE: usize = 64;

/// One slice: the variables `first .. first + len` of every vector, held on GPU `gpu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// The CUDA device index.
    pub gpu: usize,
    /// The first variable (a multiple of the layout's block).
    pub first: usize,
    /// Variables held (a multiple of the block, except for the last slice, which ends at D).
    pub len: usize,
}

/// How the `D` variables of every vector are cut into slices: consecutive runs of whole blocks of `B`
/// variables, `B` a power of two with `1024 ≤ B ≤ max(1024, next_power_of_two(D))`, in coordinate order, each
/// on a GPU. Several slices may share a GPU (that is how the split is tested on one GPU); the last block may
/// be partial.
///
/// Each block is an aligned subtree of the canonical tree of `D` leaves (`evo_core::reduce`), so the sum of
/// any per-variable terms is the canonical tree over the `⌈D/B⌉` block sums, whatever the slices
/// ([`super`] module docs).
///
/// ```
/// use evo_distributed::dimension::SliceLayout;
///
/// // Two slices on GPU 0, as the equivalence tests run on one GPU.
/// let layout = SliceLayout::even(100_000, &[0, 0])?;
/// assert_eq!(layout.slices().len(), 2);
/// assert_eq!(layout.slices()[0].first, 0);
/// assert_eq!(layout.slices()[1].first + layout.slices()[1].len, 100_000);
/// // Explicit: blocks of 4096 variables, 10 on GPU 0 and the other 15 on GPU 1.
/// let layout = SliceLayout::with_blocks(100_000, 4096, &[(0, 10), (1, 15)])?;
/// assert_eq!(layout.slices()[1].first, 40_960);
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceLayout {
    dimension: usize,
    block: usize,
    slices: Vec<Slice>,
}

fn invalid(
    name: &'static str,
    value: impl std::fmt::Display,
    allowed: impl std::fmt::Display,
) -> Error {
    Error::invalid_parameter(COMPONENT, name, value, allowed)
}

/// The largest block allowed at `dimension` variables: `max(1024, next_power_of_two(D))` (a larger block would
/// pad the tree beyond the canonical one).
pub fn max_block(dimension: usize) -> usize {
    dimension.next_power_of_two().max(MIN_BLOCK)
}

impl SliceLayout {
    /// One slice per entry of `gpus` (a GPU listed twice holds two slices), of as equal sizes as whole
    /// blocks allow: the block is the largest power of two that gives every slice about
    /// [`EVEN_BLOCKS_PER_SLICE`] blocks (at least [`MIN_BLOCK`]), and the first `⌈D/B⌉ mod S` slices take one
    /// block more.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `D = 0`, an empty list, or more slices than blocks of [`MIN_BLOCK`].
    pub fn even(dimension: usize, gpus: &[usize]) -> Result<Self> {
        if dimension == 0 {
            return Err(invalid("dimension D", dimension, "at least 1"));
        }
        if gpus.is_empty() {
            return Err(invalid("slices", 0, "at least one GPU entry"));
        }
        let count = gpus.len();
        let most = dimension.div_ceil(MIN_BLOCK);
        if count > most {
            return Err(invalid(
                "slices",
                count,
                format!(
                    "at most {most} at D = {dimension} (a slice holds at least one block of {MIN_BLOCK})"
                ),
            ));
        }
        let mut block = max_block(dimension);
        while block > MIN_BLOCK && dimension.div_ceil(block) < EVEN_BLOCKS_PER_SLICE * count {
            block /= 2;
        }
        let blocks = dimension.div_ceil(block);
        let (base, extra) = (blocks / count, blocks % count);
        let shares: Vec<(usize, usize)> = gpus
            .iter()
            .enumerate()
            .map(|(s, &gpu)| (gpu, base + usize::from(s < extra)))
            .collect();
        Self::with_blocks(dimension, block, &shares)
    }

    /// Slices of whole blocks of `block` variables: entry `(gpu, blocks)` is the next `blocks` blocks, on
    /// device `gpu`, in coordinate order.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `D = 0`; a block that is not a power of two in
    /// `1024 ..= max(1024, next_power_of_two(D))`; no slice, or a slice of no block; block counts whose sum
    /// is not `⌈D/B⌉` (the slices must cover every variable once).
    pub fn with_blocks(dimension: usize, block: usize, slices: &[(usize, usize)]) -> Result<Self> {
        if dimension == 0 {
            return Err(invalid("dimension D", dimension, "at least 1"));
        }
        let largest = max_block(dimension);
        if !block.is_power_of_two() || block < MIN_BLOCK || block > largest {
            return Err(invalid(
                "block",
                block,
                format!("a power of two in {MIN_BLOCK}..={largest} at D = {dimension}"),
            ));
        }
        if slices.is_empty() {
            return Err(invalid("slices", 0, "at least one (gpu, blocks) entry"));
        }
        let blocks = dimension.div_ceil(block);
        let mut next = 0usize;
        let mut out = Vec::with_capacity(slices.len());
        for &(gpu, count) in slices {
            if count == 0 {
                return Err(invalid("blocks of a slice", count, "at least 1"));
            }
            let end = next.saturating_add(count);
            if end > blocks {
                return Err(invalid(
                    "blocks of the slices",
                    format!("more than {blocks}"),
                    format!("exactly ⌈D/B⌉ = {blocks} in all"),
                ));
            }
            let first = next * block;
            let len = (end * block).min(dimension) - first;
            out.push(Slice { gpu, first, len });
            next = end;
        }
        if next != blocks {
            return Err(invalid(
                "blocks of the slices",
                next,
                format!("exactly ⌈D/B⌉ = {blocks} in all"),
            ));
        }
        Ok(Self {
            dimension,
            block,
            slices: out,
        })
    }

    /// `D`.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// The block `B`.
    pub fn block(&self) -> usize {
        self.block
    }

    /// The slices, in coordinate order.
    pub fn slices(&self) -> &[Slice] {
        &self.slices
    }

    /// The blocks of slice `slice`'s variables (`⌈len/B⌉`).
    pub fn blocks_of(&self, slice: &Slice) -> usize {
        slice.len.div_ceil(self.block)
    }

    /// The distinct GPUs, in increasing order.
    pub fn gpus(&self) -> Vec<usize> {
        let mut gpus: Vec<usize> = self.slices.iter().map(|s| s.gpu).collect();
        gpus.sort_unstable();
        gpus.dedup();
        gpus
    }

    /// The number of slices on each GPU of [`gpus`](Self::gpus), in that order.
    pub fn slices_per_gpu(&self) -> Vec<(usize, usize)> {
        self.gpus()
            .into_iter()
            .map(|gpu| (gpu, self.slices.iter().filter(|s| s.gpu == gpu).count()))
            .collect()
    }
}
