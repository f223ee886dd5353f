//! `evogpu.QigaAskTell`: evo-qiga's QIGA through its own ask/tell API (`evo_qiga::QigaAskTell`).

use pyo3::prelude::*;

use super::strings::string_ask_tell;

string_ask_tell! {
    /// QIGA driven one generation at a time: `ask()` observes the quantum population into bit strings (a
    /// bool array of shape (population_size, bits)), `tell(fitness)` takes their fitness, to minimise, then
    /// QIGA rotates towards the best string. `tell(fitness, repaired)` also takes the strings that were
    /// evaluated in place of the observed ones (a repair), which QIGA keeps: repairing each string as the
    /// knapsack engine does and telling minus its profit gives `minimize(algorithm="qiga")`'s run on that
    /// knapsack, bit for bit. `QigaAskTell(bits, seed=0, options=None)` with `minimize`'s QIGA options
    /// (`generations` is not used: you decide when to stop).
    class QigaAskTell(evo_qiga::QigaAskTell, params = crate::params::qiga);
    new = "QIGA on strings of `bits` bits from `seed` with `options` (`minimize`'s QIGA options).";
    tell = "The fitness of the last asked strings: one finite value per row; `repaired`, when given, the \
            strings evaluated in their place (shape (population_size, bits), any array NumPy reads as bool), \
            which QIGA keeps.";
}
