//! A terminal progress bar.

use super::{Cadence, Observer};
use crate::engine::Progress;
use crate::report::Summary;
use crate::termination::Termination;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// The bar's layout when the generation limit is known.
const BAR_TEMPLATE: &str =
    "{prefix} [{elapsed_precise}] {wide_bar} gen {pos}/{len} ({per_sec}, eta {eta}) {msg}";

/// The layout without a generation limit (evaluation, target or time limits only).
const SPINNER_TEMPLATE: &str = "{spinner} {prefix} [{elapsed_precise}] gen {pos} ({per_sec}) {msg}";

/// An [`indicatif`] progress bar on stderr showing the generation, the evaluations and the best fitness.
///
/// It is a bar when the termination has a generation limit and a spinner otherwise. When stderr is not a
/// terminal (CI logs, redirected output) it draws nothing, so logs stay clean; indicatif also limits redraws
/// to a few per second. Its [`Cadence`] is [`Cadence::Batches`]: it is updated after every batch of steps
/// (at least about ten times a second), so it never makes the executor step one generation at a time.
#[derive(Debug)]
pub struct ProgressBarObserver {
    bar: ProgressBar,
    visible: bool,
}

impl ProgressBarObserver {
    /// A progress bar on stderr, hidden when stderr is not a terminal.
    pub fn new() -> Self {
        Self::with_visibility(std::io::stderr().is_terminal())
    }

    /// A progress bar that never draws (for callers that decide visibility themselves, e.g. `--quiet`).
    pub fn hidden() -> Self {
        Self::with_visibility(false)
    }

    /// A bar drawn to stderr when `visible`, hidden otherwise.
    fn with_visibility(visible: bool) -> Self {
        let bar = ProgressBar::no_length();
        if !visible {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        Self { bar, visible }
    }

    /// Whether the bar draws anything.
    pub fn is_visible(&self) -> bool {
        self.visible
    }
}

impl Default for ProgressBarObserver {
    fn default() -> Self {
        Self::new()
    }
}

impl Observer for ProgressBarObserver {
    fn on_start(&mut self, algorithm: &str, progress: &Progress, termination: &Termination) {
        let template = match termination.max_generations() {
            Some(max) => {
                self.bar.set_length(max);
                BAR_TEMPLATE
            }
            None => SPINNER_TEMPLATE,
        };
        // A template error would be a bug in the constants above; the default style still shows progress,
        // so fall back to it rather than fail the run over a cosmetic issue.
        let style =
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
        self.bar.set_style(style);
        self.bar.set_prefix(algorithm.to_string());
        self.bar.set_position(progress.generation);
        self.bar.set_message(describe(progress));
    }

    fn cadence(&self) -> Cadence {
        Cadence::Batches
    }

    fn on_step(&mut self, progress: &Progress, _elapsed: Duration) {
        self.bar.set_position(progress.generation);
        if self.visible {
            // Formatting the message is skipped when nothing is drawn.
            self.bar.set_message(describe(progress));
        }
    }

    fn on_finish(&mut self, summary: &Summary) {
        self.bar.finish_with_message(format!(
            "evals {} best {:.6e} ({})",
            summary.evaluations, summary.best_fitness, summary.termination
        ));
    }
}

/// The message part of the bar: evaluations and best fitness.
fn describe(progress: &Progress) -> String {
    format!(
        "evals {} best {:.6e}",
        progress.evaluations, progress.best_fitness
    )
}
