//! Calls into user code (a problem's `evaluate`) whose panic must become an error, not an unwind through
//! the engine.
//!
//! An engine wraps each batched evaluation, not each individual, in [`catch_problem_panic`]: rayon re-raises
//! a panic of any worker in the thread that waits for the batch, so one guard around the batch (around
//! `pool.install(..)`) catches a panic on any thread. The engine then returns
//! [`Error::ProblemPanicked`] from the call that evaluated; the panic hook has already printed the message
//! and location to stderr, as for any panic.

use crate::error::{Error, Result};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `work`, which calls the code of problem `problem`, and turns a panic inside it into
/// [`Error::ProblemPanicked`] naming the problem and the panic message.
///
/// `work` is asserted unwind-safe: after a panic the buffers it was filling (the fitness of a batch) may be
/// half written. Engines return the error at once, before reading anything the batch wrote, as they do for
/// a non-finite fitness.
///
/// ```
/// use evo_core::{Error, catch_problem_panic};
///
/// let value = catch_problem_panic("sphere", || Ok(2.0))?;
/// assert_eq!(value, 2.0);
/// let error = catch_problem_panic("broken", || -> evo_core::Result<f64> { panic!("no model file") })
///     .unwrap_err();
/// assert!(matches!(&error, Error::ProblemPanicked { problem, message }
///     if problem == "broken" && message == "no model file"));
/// # Ok::<(), evo_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::ProblemPanicked`] when `work` panicked; otherwise `work`'s own result.
pub fn catch_problem_panic<T>(problem: &str, work: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|payload| {
        Err(Error::ProblemPanicked {
            problem: problem.to_string(),
            message: panic_message(payload.as_ref()),
        })
    })
}

/// The message of a panic payload: the text of `panic!("...")` (a `&str` or a `String`), or a note that the
/// payload was something else (`std::panic::panic_any` of another type).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic whose payload is not a string".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    fn message_of(error: Error) -> (String, String) {
        match error {
            Error::ProblemPanicked { problem, message } => (problem, message),
            other => panic!("expected ProblemPanicked, got {other}"),
        }
    }

    #[test]
    fn payloads_of_every_kind_give_a_message() {
        let text = catch_problem_panic("p", || -> Result<()> { panic!("static text") });
        assert_eq!(
            message_of(text.unwrap_err()),
            ("p".into(), "static text".into())
        );
        let formatted = catch_problem_panic("q", || -> Result<()> { panic!("row {}", 7) });
        assert_eq!(message_of(formatted.unwrap_err()).1, "row 7");
        let other = catch_problem_panic("r", || -> Result<()> { std::panic::panic_any(42_u8) });
        assert_eq!(
            message_of(other.unwrap_err()).1,
            "a panic whose payload is not a string"
        );
    }

    #[test]
    fn results_and_errors_of_the_work_pass_through() {
        assert_eq!(catch_problem_panic("p", || Ok(3)).unwrap(), 3);
        let error = catch_problem_panic("p", || -> Result<()> {
            Err(Error::invalid_parameter("X", "y", 1, "0"))
        })
        .unwrap_err();
        assert!(matches!(error, Error::InvalidParameter { .. }));
    }

    #[test]
    fn a_panic_on_a_pool_worker_is_caught_and_the_pool_still_works() {
        let pool = crate::backend::thread_pool(3).unwrap();
        let values: Vec<u32> = (0..1000).collect();
        let error = catch_problem_panic("parallel", || {
            pool.install(|| {
                values
                    .par_iter()
                    .for_each(|&v| assert!(v != 777, "value {v}"));
            });
            Ok(())
        })
        .unwrap_err();
        assert_eq!(message_of(error).1, "value 777");
        let sum: u32 = pool.install(|| values.par_iter().sum());
        assert_eq!(sum, 499_500);
    }
}
