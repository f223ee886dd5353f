//! The pause of a rank that polls for its peers' messages ([`crate::mpi::MpiRanks`]): yields for the first
//! [`YIELD_FOR`] of a wait, since the peers of a GPU rank usually answer within a fraction of a millisecond
//! of its own stretch of generations, and every sleep overshoots by the scheduler's timer slack, which
//! adds up over a run's migrations (docs/results/distributed.md); then sleeps that
//! double from [`FIRST_SLEEP`] up to [`LONGEST_SLEEP`], so that a rank kept waiting leaves the cores to the
//! ranks still computing.

use std::time::{Duration, Instant};

/// How long a wait only yields before its first sleep.
const YIELD_FOR: Duration = Duration::from_millis(1);

/// The first sleep after the yields.
const FIRST_SLEEP: Duration = Duration::from_micros(20);

/// The longest sleep: short against a generation.
const LONGEST_SLEEP: Duration = Duration::from_micros(200);

/// The pauses of one wait, poll after poll.
#[derive(Debug)]
pub(crate) struct PollPause {
    started: Instant,
    sleeps: u32,
}

impl Default for PollPause {
    fn default() -> Self {
        Self {
            started: Instant::now(),
            sleeps: 0,
        }
    }
}

impl PollPause {
    /// What the next pause is `elapsed` into the wait: `None` for a yield, else the sleep.
    fn next_pause(&mut self, elapsed: Duration) -> Option<Duration> {
        if elapsed < YIELD_FOR {
            return None;
        }
        // 20, 40, 80, 160 µs, then 200 µs for good.
        let doublings = self.sleeps.min(4);
        self.sleeps = self.sleeps.saturating_add(1);
        Some((FIRST_SLEEP * 2u32.pow(doublings)).min(LONGEST_SLEEP))
    }

    /// Pauses once (module docs).
    pub(crate) fn wait(&mut self) {
        match self.next_pause(self.started.elapsed()) {
            None => std::thread::yield_now(),
            Some(sleep) => std::thread::sleep(sleep),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_yields_for_its_first_millisecond_then_sleeps_longer_and_longer_up_to_the_longest() {
        let mut pause = PollPause::default();
        for micros in [0, 1, 500, 999] {
            assert_eq!(pause.next_pause(Duration::from_micros(micros)), None);
        }
        let sleeps: Vec<Duration> = (0..8)
            .map(|k| {
                pause
                    .next_pause(YIELD_FOR + Duration::from_micros(k))
                    .unwrap()
            })
            .collect();
        assert_eq!(sleeps[0], FIRST_SLEEP);
        assert!(sleeps.windows(2).all(|pair| pair[0] <= pair[1]));
        assert_eq!(sleeps[3], Duration::from_micros(160));
        assert!(sleeps[4..].iter().all(|&sleep| sleep == LONGEST_SLEEP));
    }

    #[test]
    fn a_wait_past_its_yields_sleeps_at_least_its_pauses() {
        let mut pause = PollPause::default();
        let start = Instant::now();
        while start.elapsed() < YIELD_FOR {
            pause.wait();
        }
        let sleeping = Instant::now();
        for _ in 0..5 {
            pause.wait();
        }
        // At least 20 + 40 + 80 + 160 + 200 µs.
        assert!(sleeping.elapsed() >= Duration::from_micros(500));
    }
}
