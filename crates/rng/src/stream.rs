//! The table of stream ids: one per purpose of a random draw, for every operator of the workspace.
//!
//! A stream id is word 3 of the Philox counter (see [`crate::Philox`]), so two operators never read the same
//! words, whatever the step, individual or lane. Ids are grouped by crate in blocks of 0x100; an id, once
//! given, never changes meaning (checkpoints and published results depend on it). Device code receives the
//! id as a plain `u32` from the host.

/// The purpose of a random draw: word 3 of the Philox counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
#[non_exhaustive]
pub enum Stream {
    /// GA: the initial population, one word per 32 bits.
    GaInit = 0x0100,
    /// GA: tournament selection, two words per slot.
    GaTournament = 0x0101,
    /// GA: the one-point crossover point, one word per pair (individual = pair index).
    GaCrossover = 0x0102,
    /// GA: bit mutation, one word per bit (lane = bit div 4).
    GaMutation = 0x0103,
    /// GA paper mode: the seeds of the per-thread xor128 states (counter = (thread, 0, 0, this id)).
    GaXor128Seed = 0x0104,

    /// QIGA: observation of the qubit angles, one word per gene (lane = gene div 4).
    QigaObserve = 0x0200,
    /// QIGA: the random sign of the rotation table's ±1 cells.
    QigaSign = 0x0201,
    /// SGA baseline: the initial population.
    SgaInit = 0x0210,
    /// SGA baseline: roulette-wheel selection.
    SgaSelection = 0x0211,
    /// SGA baseline: one-point crossover (decision and point).
    SgaCrossover = 0x0212,
    /// SGA baseline: bit mutation.
    SgaMutation = 0x0213,
    /// QIGA meta-optimisation: the outer EA's initial angles.
    MetaInit = 0x0220,
    /// QIGA meta-optimisation: the outer EA's selection.
    MetaSelection = 0x0221,
    /// QIGA meta-optimisation: the outer EA's crossover.
    MetaCrossover = 0x0222,
    /// QIGA meta-optimisation: the outer EA's Gaussian mutation.
    MetaMutation = 0x0223,

    /// DPGA: the initial populations.
    DpgaInit = 0x0300,
    /// DPGA: tournaments in the main population.
    DpgaTournamentMain = 0x0301,
    /// DPGA: tournaments in the reserve population.
    DpgaTournamentReserve = 0x0302,
    /// DPGA: crossover within a population (inbreeding).
    DpgaCross = 0x0303,
    /// DPGA: crossover between the populations (crossbreeding).
    DpgaCrossbreed = 0x0304,
    /// DPGA: mutation.
    DpgaMutate = 0x0305,
    /// DPGA: the random parts of the MCSM constraint handling.
    DpgaMcsm = 0x0306,

    /// DE: the initial population.
    DeInit = 0x0400,
    /// DE: the mutually distinct indices r1, r2, r3 (three words per vector).
    DeIndices = 0x0401,
    /// DE: the coordinate that is always crossed over (one word per vector).
    DeJrand = 0x0402,
    /// DE: the binomial or exponential crossover decisions (one word per coordinate).
    DeCross = 0x0403,
    /// DE: jDE's self-adaptation of F and CR (four words per vector).
    DeJde = 0x0404,

    /// MA-SW-Chains: the initial population.
    MaInit = 0x0500,
    /// MA-SW-Chains: the mother and the negative assortative mating candidates.
    MaSelection = 0x0501,
    /// MA-SW-Chains: BLX-α crossover.
    MaCrossover = 0x0502,
    /// MA-SW-Chains: BGA mutation.
    MaMutation = 0x0503,
    /// MA-SW-Chains: the Solis–Wets noise d (lane = variable div 4, four normals per counter).
    MaSwNoise = 0x0504,
    /// MA-SW-Chains: the choice of c_LS when S_LS is empty.
    MaLsChoice = 0x0505,
    /// MA-SW-Chains: the population restart.
    MaRestart = 0x0506,

    /// evo-benchmarks: the knapsack instance generator (word i → item i).
    KnapsackGenerator = 0x0600,
    /// evo-benchmarks: the ETC matrix generator (individual = task; word 0 → baseline, word 1 + m → machine m).
    EtcGenerator = 0x0601,

    /// evo-rng's fill kernels, tests and benchmarks.
    Fill = 0xF000,
}

impl Stream {
    /// Every stream, in id order.
    pub const ALL: &'static [Stream] = &[
        Stream::GaInit,
        Stream::GaTournament,
        Stream::GaCrossover,
        Stream::GaMutation,
        Stream::GaXor128Seed,
        Stream::QigaObserve,
        Stream::QigaSign,
        Stream::SgaInit,
        Stream::SgaSelection,
        Stream::SgaCrossover,
        Stream::SgaMutation,
        Stream::MetaInit,
        Stream::MetaSelection,
        Stream::MetaCrossover,
        Stream::MetaMutation,
        Stream::DpgaInit,
        Stream::DpgaTournamentMain,
        Stream::DpgaTournamentReserve,
        Stream::DpgaCross,
        Stream::DpgaCrossbreed,
        Stream::DpgaMutate,
        Stream::DpgaMcsm,
        Stream::DeInit,
        Stream::DeIndices,
        Stream::DeJrand,
        Stream::DeCross,
        Stream::DeJde,
        Stream::MaInit,
        Stream::MaSelection,
        Stream::MaCrossover,
        Stream::MaMutation,
        Stream::MaSwNoise,
        Stream::MaLsChoice,
        Stream::MaRestart,
        Stream::KnapsackGenerator,
        Stream::EtcGenerator,
        Stream::Fill,
    ];

    /// The id: word 3 of the Philox counter.
    #[inline]
    pub const fn id(self) -> u32 {
        self as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_listed_in_order() {
        for pair in Stream::ALL.windows(2) {
            assert!(
                pair[0].id() < pair[1].id(),
                "{:?} and {:?} are out of order",
                pair[0],
                pair[1]
            );
        }
    }
}
