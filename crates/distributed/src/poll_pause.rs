//! The pause of a rank that polls for its peers' messages ([`crate::mpi::MpiRanks`]): a few yields first,
//! since the peers of a GPU rank usually answer within microseconds of its own generation's end and a sleep
//! costs at least the scheduler's tick; then sleeps that double from [`FIRST_SLEEP`] up to [`LONGEST_SLEEP`],
//! so that a rank kept waiting leaves the cores to the ranks still computing.

use std::time::Duration;

/// Polls that only yield before the first sleep.
const YIELDS: u32 = 32;

/// The first sleep after the yields.
const FIRST_SLEEP: Duration = Duration::from_micros(20);

/// The longest sleep: short against a generation.
const LONGEST_SLEEP: Duration = Duration::from_micros(200);

/// The pauses of one wait, poll after poll.
#[derive(Debug, Default)]
pub(crate) struct PollPause {
    polls: u32,
}

impl PollPause {
    /// What the next pause is: `None` for a yield, else the sleep.
    fn next_pause(&mut self) -> Option<Duration> {
        self.polls = self.polls.saturating_add(1);
        if self.polls <= YIELDS {
            return None;
        }
        // 20, 40, 80, 160 µs, then 200 µs for good.
        let doublings = (self.polls - YIELDS - 1).min(4);
        Some((FIRST_SLEEP * 2u32.pow(doublings)).min(LONGEST_SLEEP))
    }

    /// Pauses once (module docs).
    pub(crate) fn wait(&mut self) {
        match self.next_pause() {
            None => std::thread::yield_now(),
            Some(sleep) => std::thread::sleep(sleep),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_yields_first_then_sleeps_longer_and_longer_up_to_the_longest() {
        let mut pause = PollPause::default();
        let pauses: Vec<Option<Duration>> = (0..64).map(|_| pause.next_pause()).collect();
        assert!(pauses[..YIELDS as usize].iter().all(Option::is_none));
        let sleeps: Vec<Duration> = pauses[YIELDS as usize..]
            .iter()
            .map(|p| p.unwrap())
            .collect();
        assert_eq!(sleeps[0], FIRST_SLEEP);
        assert!(sleeps.windows(2).all(|pair| pair[0] <= pair[1]));
        assert_eq!(sleeps[3], Duration::from_micros(160));
        assert!(sleeps[4..].iter().all(|&sleep| sleep == LONGEST_SLEEP));
    }

    #[test]
    fn waits_sleep_at_least_their_pauses() {
        let mut pause = PollPause::default();
        let start = std::time::Instant::now();
        for _ in 0..YIELDS + 5 {
            pause.wait();
        }
        // The yields take no set time; the five sleeps at least 20 + 40 + 80 + 160 + 200 µs.
        assert!(start.elapsed() >= Duration::from_micros(500));
    }
}
