//! Ask/tell: the user evaluates each population wherever they like (a simulator, a cluster).
//!
//! QIGA and the SGA have an ask/tell API of their own in evo-qiga (`qiga.rs`, `sga.rs`, their shared
//! NumPy side in `strings.rs`). DE and the GA do not: their problem is called with the rows to evaluate.
//! So their CPU engine runs on a thread of its own with a problem, the [`Relay`], that hands each batch of
//! rows to `ask` and waits for `tell`'s fitness: the engine does exactly what it does in an ordinary run,
//! so the same seed and the same fitness give the same populations (`de.rs`, `ga.rs`). DE's CUDA engine
//! runs the same way with a device evaluator that hands `ask` a view of its device population and reads
//! `tell`'s fitness on the device (`de_cuda.rs`, `device_best.rs`). DPGA's evaluations
//! depend on the values told within a generation; `dpga.rs` replays its engine on the values told so far.

mod de;
mod de_cuda;
mod device_best;
mod dpga;
mod ga;
mod qiga;
mod sga;
mod strings;

pub use de::DeAskTell;
pub use dpga::DpgaAskTell;
pub use ga::GaAskTell;
pub use qiga::QigaAskTell;
pub use sga::SgaAskTell;

use pyo3::prelude::*;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Mutex, PoisonError};
use std::thread;

use crate::errors::{to_py, value_error};

/// Rows of packed words as bools, row after row: bit `j` of a row is bit `j % 32` of its word `j / 32`.
fn unpacked(words: &[u32], bits: usize) -> Vec<bool> {
    let per_row = evo_core::Bits::word_count(bits);
    words
        .chunks(per_row.max(1))
        .flat_map(|row| (0..bits).map(move |j| row[j / 32] >> (j % 32) & 1 == 1))
        .collect()
}

/// Rows of `bits` bools, row after row, as packed words (the inverse of [`unpacked`]).
fn packed(flat: &[bool], bits: usize) -> Vec<u32> {
    let per_row = evo_core::Bits::word_count(bits);
    let mut words = vec![0u32; flat.len() / bits.max(1) * per_row];
    for (row, chunk) in flat.chunks(bits.max(1)).enumerate() {
        for (j, &bit) in chunk.iter().enumerate() {
            if bit {
                words[row * per_row + j / 32] |= 1 << (j % 32);
            }
        }
    }
    words
}

/// Checks host fitness told for `count` asked rows: one finite value per row.
fn check_told(fitness: &[f64], count: usize) -> PyResult<()> {
    if fitness.len() != count {
        return Err(value_error(format!(
            "tell: expected {count} fitness values, one per row of the asked population, got {}",
            fitness.len()
        )));
    }
    if let Some((i, value)) = fitness.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(value_error(format!(
            "tell: fitness[{i}] is {value}; every fitness must be finite"
        )));
    }
    Ok(())
}

/// What `ask` receives from the engine's thread.
enum Message<G> {
    /// Rows to evaluate, `row_len` genes each.
    Rows(Vec<G>),
    /// Why the engine stopped (its problem or parameters were refused, or a step failed).
    Failed(PyErr),
}

/// The engine's side: sends rows, waits for their fitness.
struct Relay<G> {
    rows: SyncSender<Message<G>>,
    /// Locked for the whole round trip, so each batch of rows gets its own answer.
    fitness: Mutex<Receiver<Vec<f64>>>,
}

impl<G: Clone> Relay<G> {
    /// Sends `rows` to `ask` and copies `tell`'s answer into `fitness`. When the Python object is gone the
    /// channels are closed: the fitness stays NaN, the engine refuses it, and its thread ends.
    fn exchange(&self, rows: &[G], fitness: &mut [f64]) {
        fitness.fill(f64::NAN);
        let answers = self.fitness.lock().unwrap_or_else(PoisonError::into_inner);
        if self.rows.send(Message::Rows(rows.to_vec())).is_err() {
            return;
        }
        if let Ok(told) = answers.recv()
            && told.len() == fitness.len()
        {
            fitness.copy_from_slice(&told);
        }
    }
}

/// The Python side: the rows asked last, the best row told so far and the counters.
struct Exchange<G> {
    row_len: usize,
    from_engine: Mutex<Receiver<Message<G>>>,
    to_engine: SyncSender<Vec<f64>>,
    asked: Option<Vec<G>>,
    generation: u64,
    evaluations: u64,
    best: Option<(Vec<G>, f64)>,
}

impl<G: Clone + Send + 'static> Exchange<G> {
    /// Starts `engine` on a thread of its own: it builds the engine on the relay and steps it until a step
    /// fails, returning that error (the normal end is the failure the closed channels cause).
    fn start(
        row_len: usize,
        engine: impl FnOnce(Relay<G>) -> evo_core::Error + Send + 'static,
    ) -> Self {
        let (fitness_tx, fitness_rx) = sync_channel::<Vec<f64>>(1);
        let (message_tx, message_rx) = sync_channel::<Message<G>>(1);
        // Rows and the engine's failure travel on one channel, so `ask` sees either.
        let relay = Relay {
            rows: message_tx.clone(),
            fitness: Mutex::new(fitness_rx),
        };
        thread::spawn(move || {
            let failure = engine(relay);
            // Nobody listens any more when the Python object was dropped; that is the normal end.
            let _ = message_tx.send(Message::Failed(to_py(failure)));
        });
        Self {
            row_len,
            from_engine: Mutex::new(message_rx),
            to_engine: fitness_tx,
            asked: None,
            generation: 0,
            evaluations: 0,
            best: None,
        }
    }

    /// The next rows to evaluate (waiting for the engine without the GIL).
    fn ask(&mut self, py: Python<'_>) -> PyResult<&[G]> {
        if self.asked.is_some() {
            return Err(value_error(
                "ask: the last population has not been told its fitness; call tell(fitness) first",
            ));
        }
        let receiver = &self.from_engine;
        let message = py.detach(|| {
            receiver
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .recv()
                .map_err(|_| value_error("ask: the engine has stopped"))
        })?;
        match message {
            Message::Rows(rows) => Ok(self.asked.insert(rows)),
            Message::Failed(error) => Err(error),
        }
    }

    /// The fitness of the rows asked last: one finite value per row.
    fn tell(&mut self, fitness: Vec<f64>) -> PyResult<()> {
        let Some(rows) = self.asked.as_ref() else {
            return Err(value_error("tell: nothing was asked; call ask() first"));
        };
        let count = rows.len() / self.row_len.max(1);
        check_told(&fitness, count)?;
        for (i, &value) in fitness.iter().enumerate() {
            if self.best.as_ref().is_none_or(|(_, best)| value < *best) {
                let row = rows[i * self.row_len..(i + 1) * self.row_len].to_vec();
                self.best = Some((row, value));
            }
        }
        self.to_engine
            .send(fitness)
            .map_err(|_| value_error("tell: the engine has stopped"))?;
        self.asked = None;
        // The first tell is the initial population's; each later one completes a generation.
        if self.evaluations > 0 {
            self.generation += 1;
        }
        self.evaluations += count as u64;
        Ok(())
    }
}
