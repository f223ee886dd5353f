//! Whether one chunk's copy has landed in the current run, with one thread at a time asking the driver.
//!
//! When a run starts, every free thread takes a piece of the first chunk and waits for it at once. Each
//! `cuEventSynchronize` polls the driver (the context spins: one context, more cores than contexts), and
//! many threads polling the same event can queue on the driver's lock; so one asks, and the others watch
//! its answer in host memory.

use std::sync::atomic::{AtomicU8, Ordering};

/// Nobody has seen the copy land in this run, and nobody is asking.
const UNSEEN: u8 = 0;
/// One thread is asking the driver.
const ASKING: u8 = 1;
/// A thread saw the copy land.
const LANDED: u8 = 2;

/// Spins between two yields of a thread that watches another's question: the copies take microseconds.
const SPINS_PER_YIELD: u32 = 64;

/// One chunk's landing in the current run (see the module docs).
#[derive(Debug, Default)]
pub(super) struct Landing(AtomicU8);

impl Landing {
    /// Forgets the last run's answer.
    pub(super) fn reset(&mut self) {
        *self.0.get_mut() = UNSEEN;
    }

    /// Whether a thread of this run saw the copy land (Acquire: that thread's view of the copied bytes
    /// comes with it).
    pub(super) fn landed(&self) -> bool {
        self.0.load(Ordering::Acquire) == LANDED
    }

    /// Returns once the copy has landed: the first caller runs `ask` (the driver's wait), the others wait
    /// for its answer. When `ask` fails, its caller gets the error and the next caller asks again (so every
    /// caller gets the driver's own answer).
    pub(super) fn wait<E>(&self, ask: impl FnOnce() -> Result<(), E>) -> Result<(), E> {
        let mut spins = 0u32;
        loop {
            // Acquire on success and on failure: a thread that sees LANDED sees what the asker saw.
            match self
                .0
                .compare_exchange_weak(UNSEEN, ASKING, Ordering::Acquire, Ordering::Acquire)
            {
                Ok(_) => {
                    let answer = ask();
                    let state = if answer.is_ok() { LANDED } else { UNSEEN };
                    self.0.store(state, Ordering::Release);
                    return answer;
                }
                Err(LANDED) => return Ok(()),
                Err(_) => {
                    spins = spins.wrapping_add(1);
                    if spins.is_multiple_of(SPINS_PER_YIELD) {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Landing;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn many_waiters_ask_the_driver_once_and_all_see_the_landing() {
        let landing = Landing::default();
        let asked = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    landing
                        .wait(|| {
                            asked.fetch_add(1, Ordering::Relaxed);
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            Ok::<(), ()>(())
                        })
                        .unwrap();
                    assert!(landing.landed());
                });
            }
        });
        assert_eq!(asked.into_inner(), 1);
    }

    #[test]
    fn a_failed_question_goes_to_its_asker_and_the_next_caller_asks_again() {
        let mut landing = Landing::default();
        assert_eq!(landing.wait(|| Err("fault")), Err("fault"));
        assert!(!landing.landed());
        assert_eq!(landing.wait(|| Err("fault again")), Err("fault again"));
        assert_eq!(landing.wait(|| Ok::<(), &str>(())), Ok(()));
        assert!(landing.landed());
        // Landed: no further question until the next run.
        assert_eq!(landing.wait(|| Err("not asked")), Ok(()));
        landing.reset();
        assert!(!landing.landed());
        assert_eq!(landing.wait(|| Err("asked")), Err("asked"));
    }
}
