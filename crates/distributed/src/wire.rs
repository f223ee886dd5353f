//! The messages of the island model over ranks: every exchange is one all-gather of one value per rank,
//! stamped with its [`Stage`] so that ranks out of step are caught, and carrying the rank's own error
//! instead of the value when its part failed, so that every rank stops at the same exchange.

use crate::ranks::Ranks;
use evo_core::{Error, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What an exchange is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Exchange {
    /// The ranks' runs compared once their islands are built.
    Start,
    /// The boundary migrants of a migration.
    Migration,
    /// Every island's progress after a batch of generations.
    Progress,
    /// Every island's snapshot, for a checkpoint.
    Snapshot,
    /// The islands' progress once a snapshot was restored.
    Restore,
    /// The best island's solution, for a report.
    Best,
    /// Rank 0's NCCL unique id, for a communicator over the ranks.
    #[cfg(feature = "nccl")]
    NcclId,
}

/// An exchange and the model's generation at it; every rank must be at the same stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stage {
    pub(crate) exchange: Exchange,
    pub(crate) generation: u64,
}

impl Stage {
    pub(crate) fn new(exchange: Exchange, generation: u64) -> Self {
        Self {
            exchange,
            generation,
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.generation;
        match self.exchange {
            Exchange::Start => write!(f, "start of the run (generation {g})"),
            Exchange::Migration => write!(f, "migration after generation {g}"),
            Exchange::Progress => write!(f, "progress exchange after generation {g}"),
            Exchange::Snapshot => write!(f, "snapshot exchange at generation {g}"),
            Exchange::Restore => write!(f, "restore of a snapshot at generation {g}"),
            Exchange::Best => write!(f, "best-solution exchange at generation {g}"),
            #[cfg(feature = "nccl")]
            Exchange::NcclId => f.write_str("NCCL id exchange"),
        }
    }
}

/// This rank's part of the exchange at `stage` when it failed with `error`: the error's text goes to every
/// rank (which then stop with [`Error::RankFailed`] naming this one), and the error to return comes back:
/// `error` itself, or the transport's error when the exchange failed too.
pub(crate) fn send_failure<R: Ranks + ?Sized>(ranks: &R, stage: Stage, error: Error) -> Error {
    let sent = encode::<()>(stage, Err(error.to_string()))
        .and_then(|bytes| ranks.all_gather(bytes, &stage.to_string()));
    match sent {
        Ok(_) => error,
        Err(transport) => transport,
    }
}

/// The bytes of a message: the stage, then the value or the error's text.
fn encode<T: Serialize>(stage: Stage, payload: std::result::Result<T, String>) -> Result<Vec<u8>> {
    postcard::to_allocvec(&(stage, payload)).map_err(|error| Error::Serialization {
        what: format!("message of the {stage}"),
        reason: error.to_string(),
    })
}

/// One all-gather at `stage`: this rank's `local` value (or its error, sent as text) goes to every rank,
/// and every rank's value comes back in rank order, this rank's own decoded from its own bytes.
///
/// # Errors
/// This rank's own error when `local` is one (after the exchange, so that the other ranks learn of it);
/// [`Error::RankFailed`] naming the lowest rank that sent an error, a message of another stage, or bytes
/// that do not decode, and the transport's errors ([`Ranks::all_gather`]); [`Error::Serialization`] when
/// `local` does not serialize.
pub(crate) fn gather<R, In, Out>(ranks: &R, stage: Stage, local: Result<In>) -> Result<Vec<Out>>
where
    R: Ranks + ?Sized,
    In: Serialize,
    Out: DeserializeOwned,
{
    let value = match local {
        Ok(value) => value,
        Err(error) => return Err(send_failure(ranks, stage, error)),
    };
    let messages = ranks.all_gather(encode(stage, Ok(value))?, &stage.to_string())?;
    let failed = |rank: usize, reason: String| Error::RankFailed {
        rank,
        exchange: stage.to_string(),
        reason,
    };
    messages
        .iter()
        .enumerate()
        .map(|(rank, bytes)| {
            let (sent, payload): (Stage, std::result::Result<Out, String>) =
                postcard::from_bytes(bytes).map_err(|error| {
                    failed(
                        rank,
                        format!(
                            "its message of {} bytes does not decode ({error}): every rank must run the same build and configuration",
                            bytes.len()
                        ),
                    )
                })?;
            if sent != stage {
                return Err(failed(
                    rank,
                    format!(
                        "it is at the {sent}: the ranks are out of step (every rank must run the same configuration, with terminations that do not depend on the clock)"
                    ),
                ));
            }
            payload.map_err(|error| failed(rank, format!("its part failed: {error}")))
        })
        .collect()
}
