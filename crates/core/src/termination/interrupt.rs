//! Ctrl-C: one process-wide handler that raises a flag the executor polls between steps.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

/// Raised by Ctrl-C (or [`request_interrupt`]), lowered by the executor that acts on it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Guards the handler installation: a process has one Ctrl-C handler, whatever the number of runs.
static INSTALL: Once = Once::new();

/// Asks every run whose [`Termination`](super::Termination) watches Ctrl-C to stop after its current step,
/// exactly as pressing Ctrl-C would.
///
/// A program that installs its own Ctrl-C handler (the executor then cannot install one) calls this from it
/// to keep graceful stops; a GUI or a server calls it to cancel a run.
pub fn request_interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Lowers the flag and says whether it was raised, so one Ctrl-C stops one run, not every later run too.
pub(crate) fn take_interrupt() -> bool {
    INTERRUPTED.swap(false, Ordering::SeqCst)
}

/// Installs the handler on first use. Installation failures are reported through `tracing` and otherwise
/// ignored: the run still works and still stops on [`request_interrupt`], only the key press is not seen.
pub(crate) fn install_handler() {
    INSTALL.call_once(|| {
        // `try_set_handler` rather than `set_handler`: a library must not silently replace a handler that
        // the application installed.
        match ctrlc::try_set_handler(on_ctrl_c) {
            Ok(()) => tracing::debug!("Ctrl-C handler installed; Ctrl-C stops the run after the current step"),
            Err(ctrlc::Error::MultipleHandlers) => tracing::warn!(
                "a Ctrl-C handler already exists, so the executor cannot watch Ctrl-C; call \
                 evo_core::termination::request_interrupt() from that handler to stop runs gracefully"
            ),
            Err(error) => tracing::warn!(
                "cannot install a Ctrl-C handler ({error}); Ctrl-C will not stop runs gracefully"
            ),
        }
    });
}

/// The first Ctrl-C asks for a graceful stop; a second one before the run noticed exits at once with the
/// conventional status 130, so a user is never stuck behind a long step.
fn on_ctrl_c() {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        std::process::exit(130);
    }
}
