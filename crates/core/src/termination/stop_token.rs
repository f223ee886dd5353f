//! [`StopToken`]: a stop request that belongs to one run, unlike Ctrl-C and
//! [`request_interrupt`](super::request_interrupt), which are process-wide.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Stops the runs whose [`Termination`](super::Termination) carries it
/// ([`with_stop_token`](super::Termination::with_stop_token)) after their current step (a batch of steps
/// at most, about 0.1 s), with [`TerminationReason::Interrupted`](super::TerminationReason::Interrupted),
/// and no other run. Clones share the request, so a GUI, a server or another thread keeps a clone and
/// calls [`stop`](Self::stop) to cancel that one run while others go on.
///
/// ```
/// use evo_core::termination::StopToken;
/// let token = StopToken::new();
/// let handle = token.clone();
/// assert!(!token.is_stopped());
/// handle.stop();
/// assert!(token.is_stopped());
/// ```
#[derive(Clone, Debug, Default)]
pub struct StopToken(Arc<AtomicBool>);

impl StopToken {
    /// A token not stopped yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the runs carrying this token (or a clone of it) to stop; the request stays until the token is
    /// dropped, so a run started later with it stops before its first step.
    pub fn stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`stop`](Self::stop) was called on this token or a clone.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Two tokens are equal when they are clones of one another (they share one request).
impl PartialEq for StopToken {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_request_and_other_tokens_do_not() {
        let token = StopToken::new();
        let clone = token.clone();
        let other = StopToken::new();
        clone.stop();
        assert!(token.is_stopped());
        assert!(!other.is_stopped());
        assert_eq!(token, clone);
        assert_ne!(token, other);
    }
}
