//! The algorithms the command runs and the problem kinds each accepts.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use std::fmt;

use crate::spec::ProblemKind;
use crate::user::manifest::Kind;

/// One of the algorithms of the workspace's crates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Differential evolution (evo-de).
    De,
    /// The GA paper's binary genetic algorithm (evo-ga).
    Ga,
    /// The quantum-inspired GA on the 0/1 knapsack (evo-qiga).
    Qiga,
    /// The simple GA baseline of the QIGA paper (evo-qiga's SGA).
    Sga,
    /// The dual-population GA for constrained problems (evo-dpga).
    Dpga,
    /// MA-SW-Chains, the memetic algorithm for very high dimensions (evo-ma-sw-chains).
    MaSwChains,
}

impl Algorithm {
    /// Every algorithm, in the order `evo list` shows them.
    pub const ALL: [Algorithm; 6] = [
        Self::De,
        Self::Ga,
        Self::Qiga,
        Self::Sga,
        Self::Dpga,
        Self::MaSwChains,
    ];

    /// The name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Self::De => "de",
            Self::Ga => "ga",
            Self::Qiga => "qiga",
            Self::Sga => "sga",
            Self::Dpga => "dpga",
            Self::MaSwChains => "ma-sw-chains",
        }
    }

    /// One line for `evo list`.
    pub const fn description(self) -> &'static str {
        match self {
            Self::De => "many-threaded differential evolution (Kromer et al.), evo_de::DeParams",
            Self::Ga => "the GA paper's binary GA, evo_ga::GaParams",
            Self::Qiga => {
                "quantum-inspired GA on the 0/1 knapsack (Han & Kim), evo_qiga::QigaParams"
            }
            Self::Sga => "the QIGA paper's simple GA baseline, evo_qiga::SgaParams",
            Self::Dpga => "dual-population GA for constrained problems, evo_dpga::DpgaParams",
            Self::MaSwChains => {
                "MA-SW-Chains memetic algorithm (SSGA + Solis-Wets chains), evo_ma_sw_chains::MaParams"
            }
        }
    }

    /// The problem kinds the algorithm's engines accept.
    pub const fn accepts(self) -> &'static [ProblemKind] {
        match self {
            Self::De => &[
                ProblemKind::Rastrigin,
                ProblemKind::Shifted,
                ProblemKind::Cec2010,
                ProblemKind::GaFunction,
                ProblemKind::Etc,
                ProblemKind::User,
            ],
            Self::Ga => &[
                ProblemKind::GaFunction,
                ProblemKind::Knapsack,
                ProblemKind::User,
            ],
            Self::Qiga | Self::Sga => &[ProblemKind::Knapsack],
            Self::Dpga => &[ProblemKind::Cec2006, ProblemKind::User],
            Self::MaSwChains => &[
                ProblemKind::Rastrigin,
                ProblemKind::Shifted,
                ProblemKind::Cec2010,
                ProblemKind::GaFunction,
                ProblemKind::User,
            ],
        }
    }

    /// The kind of `user:` problem the algorithm runs, if any.
    pub const fn user_kind(self) -> Option<Kind> {
        match self {
            Self::De | Self::MaSwChains => Some(Kind::Real),
            Self::Ga => Some(Kind::Bits),
            Self::Dpga => Some(Kind::Constrained),
            Self::Qiga | Self::Sga => None,
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
