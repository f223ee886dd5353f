//! `evogpu.SgaAskTell`: evo-qiga's SGA baseline through its own ask/tell API (`evo_qiga::sga::SgaAskTell`).

use pyo3::prelude::*;

use super::strings::string_ask_tell;

string_ask_tell! {
    /// The SGA baseline driven one population at a time: `ask()` gives bit strings (a bool array of shape
    /// (population_size, bits)), `tell(fitness)` their fitness, to minimise and at most 0 (roulette
    /// selection draws in proportion to `-fitness`). `tell(fitness, repaired)` also takes the strings that
    /// were evaluated in place of the asked ones (a repair), which the SGA keeps: repairing each string as
    /// the knapsack engine does and telling minus its profit gives `minimize(algorithm="sga")`'s run on that
    /// knapsack, bit for bit. `SgaAskTell(bits, seed=0, options=None)` with `minimize`'s SGA options
    /// (`generations` is not used: you decide when to stop).
    class SgaAskTell(evo_qiga::sga::SgaAskTell, params = crate::params::sga);
    new = "The SGA on strings of `bits` bits from `seed` with `options` (`minimize`'s SGA options).";
    tell = "The fitness of the last asked strings: one finite value at most 0 per row; `repaired`, when \
            given, the strings evaluated in their place (shape (population_size, bits), any array NumPy \
            reads as bool), which the SGA keeps.";
}
