//! The registry of benchmark suites: each suite lives in its own file here and is listed once in [`suites`].

mod core;
pub mod de;
mod doors;
pub mod dpga;
pub mod eval;
mod ga;
mod islands;
pub mod ma;
mod qiga;
mod rng;
mod sort;
mod user;

use super::Suite;

/// Every suite, in the order `cargo xtask bench` runs them.
pub fn suites() -> Vec<Box<dyn Suite>> {
    vec![
        Box::new(core::Core),
        Box::new(rng::Rng),
        Box::new(sort::Sort),
        Box::new(eval::Eval),
        Box::new(qiga::Qiga),
        Box::new(de::De),
        Box::new(ga::Ga),
        Box::new(ma::Ma),
        Box::new(dpga::Dpga),
        Box::new(doors::Doors),
        Box::new(user::User),
        Box::new(islands::Islands),
    ]
}
