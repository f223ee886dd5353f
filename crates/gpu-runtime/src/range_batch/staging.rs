//! The page-locked blocks that [`RangeReads`](super::RangeReads) and [`RangeWrites`](super::RangeWrites)
//! stage through, cached per device: `cuMemHostAlloc` takes far longer than the copies of a batch, so a
//! block is allocated once, grown when a batch needs more, and reused by every later batch.
//!
//! A batch checks a block out (no other batch touches it meanwhile), queues its copies, records the block's
//! event after them and checks the block back in. A block is free for the next batch once its event has
//! completed; a read batch waits for it anyway, a write batch leaves it in flight. Checking out takes a
//! free block, or makes a new one while fewer than [`MAX_IDLE_BLOCKS`] are waiting, or waits for the
//! oldest: so writes queued back to back do not wait for each other's copies, and the pool stays small.

use std::sync::Mutex;

use cudarc::driver::CudaEvent;
use evo_core::Result;

use crate::Gpu;
use crate::pinned::PinnedMemory;

/// The blocks kept before a batch waits for one in flight instead of making another.
const MAX_IDLE_BLOCKS: usize = 4;

/// The smallest block, so that small batches of different sizes share one without growing it.
const MIN_BLOCK_BYTES: usize = 64 << 10;

/// Counters of one device's range staging ([`Gpu::range_staging_stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RangeStagingStats {
    /// Page-locked allocations made for range batches (a block made or grown); constant once the batches
    /// repeat.
    pub allocations: u64,
    /// Blocks in the cache, not checked out by a batch now.
    pub blocks: usize,
    /// Their page-locked bytes.
    pub bytes: u64,
}

/// One page-locked block and the event after the last copies that touch it.
pub(crate) struct Block {
    memory: PinnedMemory<u8>,
    capacity: usize,
    done: CudaEvent,
    /// Whether `done` is known to have completed (a read batch waited for it), sparing the query.
    known_free: bool,
    /// When the block was last checked in, to wait for the oldest first.
    stamp: u64,
}

impl Block {
    /// The block's first byte; `capacity` bytes follow.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.memory.as_ptr()
    }

    /// The event a batch records after its copies.
    pub(crate) fn done(&self) -> &CudaEvent {
        &self.done
    }

    /// Gives the memory up for good (see [`PinnedMemory::abandon`]): for a batch that queued copies on the
    /// block and then failed before it knew they had finished.
    pub(crate) fn abandon(mut self) {
        self.memory.abandon();
    }

    /// Whether no copy touches the block any more.
    fn is_free(&self, gpu: &Gpu) -> Result<bool> {
        if self.known_free {
            return Ok(true);
        }
        self.done
            .try_is_complete()
            .map_err(|e| gpu.fault_while_synchronizing("cuEventQuery", e, None))
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // No copy may touch the memory once it is freed; when the wait fails the copies' fate is unknown,
        // and the memory stays allocated.
        if self.done.synchronize().is_err() {
            self.memory.abandon();
        }
    }
}

/// The idle blocks of one device, and counters.
#[derive(Default)]
struct Pool {
    blocks: Vec<Block>,
    next_stamp: u64,
    allocations: u64,
}

/// The range staging of one device (held by its `Gpu`); empty until the first batch.
#[derive(Default)]
pub(crate) struct RangeStaging {
    pool: Mutex<Pool>,
}

/// What checking out found: a block to use as it is, one to grow, or one to wait for.
enum Found {
    Ready(Block),
    Grow(Block),
    Busy(Block),
    None,
}

/// The bytes of a block for `needed` bytes: a power of two, at least [`MIN_BLOCK_BYTES`], so that batches
/// that grow a little at a time allocate a few times, not every time.
fn block_bytes(needed: usize) -> usize {
    needed
        .max(MIN_BLOCK_BYTES)
        .checked_next_power_of_two()
        .unwrap_or(needed)
}

impl RangeStaging {
    fn pool(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A free block of at least `needed` bytes (`needed > 0`), checked out of `gpu`'s cache or made.
    ///
    /// # Errors
    /// A fault of earlier work seen while asking whether a block is free or waiting for one; the driver's
    /// refusal to lock more host memory or create an event.
    pub(crate) fn check_out(&self, gpu: &Gpu, needed: usize) -> Result<Block> {
        let found = {
            let mut pool = self.pool();
            let mut free = Vec::new();
            for (i, block) in pool.blocks.iter().enumerate() {
                if block.is_free(gpu)? {
                    free.push(i);
                }
            }
            // The smallest free block that holds the batch, else the largest free one, grown.
            let fitting = free
                .iter()
                .copied()
                .filter(|&i| pool.blocks[i].capacity >= needed)
                .min_by_key(|&i| pool.blocks[i].capacity);
            let largest = free
                .iter()
                .copied()
                .max_by_key(|&i| pool.blocks[i].capacity);
            let oldest = (0..pool.blocks.len()).min_by_key(|&i| pool.blocks[i].stamp);
            match (fitting, largest, oldest) {
                (Some(i), _, _) => Found::Ready(pool.blocks.swap_remove(i)),
                (None, Some(i), _) => Found::Grow(pool.blocks.swap_remove(i)),
                (None, None, Some(i)) if pool.blocks.len() >= MAX_IDLE_BLOCKS => {
                    Found::Busy(pool.blocks.swap_remove(i))
                }
                _ => Found::None,
            }
        };
        // The driver calls below run outside the lock, so that other threads' batches go on meanwhile.
        match found {
            Found::Ready(block) => Ok(block),
            Found::Grow(block) => self.grow(gpu, block, needed),
            Found::Busy(mut block) => {
                if let Err(e) = block.done.synchronize() {
                    let error = gpu.fault_while_synchronizing("cuEventSynchronize", e, None);
                    block.abandon();
                    return Err(error);
                }
                block.known_free = true;
                if block.capacity >= needed {
                    Ok(block)
                } else {
                    self.grow(gpu, block, needed)
                }
            }
            Found::None => {
                let capacity = block_bytes(needed);
                let memory = PinnedMemory::new(gpu, capacity)?;
                let done = gpu
                    .inner
                    .context
                    .new_event(None)
                    .map_err(|e| gpu.driver_failed("cuEventCreate", e, None))?;
                self.pool().allocations += 1;
                Ok(Block {
                    memory,
                    capacity,
                    done,
                    known_free: true,
                    stamp: 0,
                })
            }
        }
    }

    /// `block` (free) with new memory of at least `needed` bytes; the old memory is freed.
    fn grow(&self, gpu: &Gpu, mut block: Block, needed: usize) -> Result<Block> {
        let capacity = block_bytes(needed);
        block.memory = PinnedMemory::new(gpu, capacity)?;
        block.capacity = capacity;
        self.pool().allocations += 1;
        Ok(block)
    }

    /// Puts `block` back for the next batch: `free` when its copies are known to have finished.
    pub(crate) fn check_in(&self, mut block: Block, free: bool) {
        block.known_free = free;
        let mut pool = self.pool();
        block.stamp = pool.next_stamp;
        pool.next_stamp += 1;
        pool.blocks.push(block);
    }

    /// The counters ([`Gpu::range_staging_stats`]).
    pub(crate) fn stats(&self) -> RangeStagingStats {
        let pool = self.pool();
        RangeStagingStats {
            allocations: pool.allocations,
            blocks: pool.blocks.len(),
            bytes: pool.blocks.iter().map(|b| b.capacity as u64).sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MIN_BLOCK_BYTES, block_bytes};

    #[test]
    fn blocks_are_powers_of_two_from_the_minimum() {
        assert_eq!(block_bytes(1), MIN_BLOCK_BYTES);
        assert_eq!(block_bytes(MIN_BLOCK_BYTES), MIN_BLOCK_BYTES);
        assert_eq!(block_bytes(MIN_BLOCK_BYTES + 1), 2 * MIN_BLOCK_BYTES);
        assert_eq!(block_bytes(3 << 20), 4 << 20);
        // Past the largest power of two the block is the size asked for.
        assert_eq!(block_bytes(usize::MAX - 1), usize::MAX - 1);
    }
}
