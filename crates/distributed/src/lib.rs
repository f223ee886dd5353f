//! # evo-distributed
//!
//! Runs evo-gpu's engines beyond one device: the island model, whose islands are logical (the result
//! depends on the seed and the model's parameters, never on where the islands run).
