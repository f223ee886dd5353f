//! # evo-dpga
//!
//! The dual-population genetic algorithm for constrained problems (CPU engine).
pub mod cpu;
pub mod ops;
pub mod params;
pub mod snapshot;

pub use cpu::DpgaCpu;
pub use ops::Evaluation;
pub use params::{ALGORITHM, ConstraintHandling, Crossover, DpgaParams, Initialisation};
pub use snapshot::DpgaSnapshot;
