//! The accounting of one device's idle buffers: which freed allocations are kept for reuse, the bytes they
//! hold, and which must go back to the driver because of the cap or a trim.
//!
//! Generic over the allocation, so that the policy is tested without a GPU; [`crate::buffer`] instantiates it
//! with the driver's slices. Nothing here frees memory: every method that lets allocations go returns them,
//! and the caller drops them after releasing its lock (a drop is a driver call).

use std::collections::BTreeMap;

/// The default cap on idle bytes, as a fraction of the device's total memory: one quarter.
///
/// A generation loop needs its temporaries back every step, so a cap well above a step's working set keeps
/// the steady state free of driver allocations; a quarter of the card leaves the rest to other processes
/// and libraries, which an uncapped pool starved (docs/results/reliability.md#faults-on-the-gpu).
pub const DEFAULT_IDLE_CAP_DIVISOR: u64 = 4;

/// Idle allocations by size class, the newest of each class last.
pub(crate) struct IdleBuffers<S> {
    classes: BTreeMap<usize, Vec<Idle<S>>>,
    idle_bytes: u64,
    cap: u64,
    /// How many allocations have entered the pool, so that each carries its age.
    returned: u64,
}

struct Idle<S> {
    order: u64,
    allocation: S,
}

/// Bytes of a size class as the counters keep them.
fn class_bytes(class: usize) -> u64 {
    // usize is at most 64 bits on every target cudarc supports, so the conversion is exact.
    u64::try_from(class).unwrap_or(u64::MAX)
}

impl<S> IdleBuffers<S> {
    /// An empty pool that keeps at most `cap` idle bytes.
    pub(crate) fn new(cap: u64) -> Self {
        Self {
            classes: BTreeMap::new(),
            idle_bytes: 0,
            cap,
            returned: 0,
        }
    }

    /// The newest idle allocation of `class`, if any.
    pub(crate) fn take(&mut self, class: usize) -> Option<S> {
        let idle = self.classes.get_mut(&class)?.pop()?;
        self.idle_bytes -= class_bytes(class);
        Some(idle.allocation)
    }

    /// Keeps `allocation` of `class` for reuse; returns what must be freed so that the idle bytes stay within
    /// the cap: the oldest idle allocations first, or `allocation` itself when it alone exceeds the cap.
    #[must_use = "the returned allocations must be dropped to free them"]
    pub(crate) fn put(&mut self, class: usize, allocation: S) -> Vec<S> {
        if class_bytes(class) > self.cap {
            return vec![allocation];
        }
        self.returned += 1;
        self.classes.entry(class).or_default().push(Idle {
            order: self.returned,
            allocation,
        });
        self.idle_bytes += class_bytes(class);
        self.shrink_to_cap()
    }

    /// Gives every idle allocation up (a trim).
    #[must_use = "the returned allocations must be dropped to free them"]
    pub(crate) fn drain(&mut self) -> Vec<S> {
        self.idle_bytes = 0;
        std::mem::take(&mut self.classes)
            .into_values()
            .flatten()
            .map(|idle| idle.allocation)
            .collect()
    }

    /// Sets the cap; returns the oldest allocations that no longer fit.
    #[must_use = "the returned allocations must be dropped to free them"]
    pub(crate) fn set_cap(&mut self, cap: u64) -> Vec<S> {
        self.cap = cap;
        self.shrink_to_cap()
    }

    /// The cap on idle bytes.
    pub(crate) fn cap(&self) -> u64 {
        self.cap
    }

    /// Bytes held by idle allocations.
    pub(crate) fn idle_bytes(&self) -> u64 {
        self.idle_bytes
    }

    /// Removes the oldest idle allocations until the idle bytes are within the cap.
    fn shrink_to_cap(&mut self) -> Vec<S> {
        let mut released = Vec::new();
        while self.idle_bytes > self.cap {
            // The oldest entry of each class is its first; the oldest overall is the least of those.
            let oldest = self
                .classes
                .iter()
                .filter_map(|(class, idle)| idle.first().map(|first| (first.order, *class)))
                .min();
            let Some((_, class)) = oldest else { break };
            if let Some(idle) = self.classes.get_mut(&class) {
                released.push(idle.remove(0).allocation);
                self.idle_bytes -= class_bytes(class);
                if idle.is_empty() {
                    self.classes.remove(&class);
                }
            }
        }
        released
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuse_takes_the_newest_of_the_class_and_counts_bytes() {
        let mut pool = IdleBuffers::new(1 << 20);
        assert!(pool.put(256, "a").is_empty());
        assert!(pool.put(256, "b").is_empty());
        assert!(pool.put(512, "c").is_empty());
        assert_eq!(pool.idle_bytes(), 1024);
        assert_eq!(pool.take(256), Some("b"));
        assert_eq!(pool.take(1024), None);
        assert_eq!(pool.idle_bytes(), 768);
    }

    #[test]
    fn idle_bytes_never_exceed_the_cap_and_the_oldest_go_first() {
        let mut pool = IdleBuffers::new(1024);
        assert!(pool.put(512, 1).is_empty());
        assert!(pool.put(256, 2).is_empty());
        assert!(pool.put(256, 3).is_empty());
        assert_eq!(pool.idle_bytes(), 1024);
        assert_eq!(pool.put(512, 4), vec![1]);
        assert_eq!(pool.idle_bytes(), 1024);
        assert_eq!(pool.put(1024, 5), vec![2, 3, 4]);
        assert_eq!(pool.idle_bytes(), 1024);
        assert_eq!(pool.take(1024), Some(5));
        assert_eq!(pool.idle_bytes(), 0);
    }

    #[test]
    fn an_allocation_larger_than_the_cap_is_freed_at_once() {
        let mut pool = IdleBuffers::new(1000);
        assert!(pool.put(256, 1).is_empty());
        assert_eq!(pool.put(1024, 2), vec![2]);
        assert_eq!(pool.idle_bytes(), 256);
        let mut closed = IdleBuffers::new(0);
        assert_eq!(closed.put(256, 3), vec![3]);
        assert_eq!(closed.idle_bytes(), 0);
    }

    #[test]
    fn trim_gives_everything_back() {
        let mut pool = IdleBuffers::new(u64::MAX);
        for (i, class) in [256usize, 512, 256, 4096].into_iter().enumerate() {
            assert!(pool.put(class, i).is_empty());
        }
        let mut released = pool.drain();
        released.sort_unstable();
        assert_eq!(released, vec![0, 1, 2, 3]);
        assert_eq!(pool.idle_bytes(), 0);
        assert_eq!(pool.take(256), None);
    }

    #[test]
    fn lowering_the_cap_releases_the_oldest() {
        let mut pool = IdleBuffers::new(u64::MAX);
        assert!(pool.put(512, 1).is_empty());
        assert!(pool.put(512, 2).is_empty());
        assert!(pool.put(256, 3).is_empty());
        assert_eq!(pool.set_cap(600), vec![1, 2]);
        assert_eq!(pool.cap(), 600);
        assert_eq!(pool.idle_bytes(), 256);
    }
}
