//! The kernel parameter struct of a batch, built from [`DpgaParams`] and the problem when an engine is
//! built: every size converted to the `u32` the kernels take once, with a typed error instead of a cast,
//! and every enum to the code `kernels/cuda/dpga.cu` switches on.

use evo_core::{ConstrainedProblem, Error, Result};
use evo_rng::Stream;

use super::launch::DpgaKernelParams;
use crate::params::{
    ALGORITHM, ConstraintHandling, Crossover, DpgaParams, Encoding, Initialisation,
};

/// `value` as the `u32` the kernels take.
///
/// # Errors
/// [`Error::InvalidParameter`] naming the DPGA and `what` when `value` exceeds `u32::MAX`.
fn to_u32(what: &'static str, value: usize) -> Result<u32> {
    u32::try_from(value).map_err(|_| {
        Error::invalid_parameter(ALGORITHM, what, value, "below 2^32 for the CUDA engine")
    })
}

fn handling_code(handling: ConstraintHandling) -> u32 {
    match handling {
        ConstraintHandling::Mcsm => 0,
        ConstraintHandling::Deb => 1,
    }
}

fn encoding_code(encoding: Encoding) -> u32 {
    match encoding {
        Encoding::Binary => 0,
        Encoding::Gray => 1,
    }
}

fn crossover_code(crossover: Crossover) -> u32 {
    match crossover {
        Crossover::OnePoint => 0,
        Crossover::TwoPoint => 1,
        Crossover::Uniform => 2,
    }
}

impl DpgaKernelParams {
    /// The parameters of `runs` runs of `problem` from `seed` (run `r` from `seed + r`), before any
    /// generation: the per-launch fields (step, phase, rows, selection sizes) 0. `number` is the CEC 2006
    /// problem number that `dpga_evaluate` switches on (0 for a problem evaluated through the contract,
    /// whose kernels do not read it).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when a size exceeds `u32::MAX`.
    pub(crate) fn new<P: ConstrainedProblem + ?Sized>(
        params: &DpgaParams,
        problem: &P,
        number: u32,
        seed: u64,
        runs: usize,
    ) -> Result<Self> {
        let dimension = problem.dimension();
        let length = dimension * params.bits_per_variable() as usize;
        Ok(Self {
            seed,
            max_draws: match params.initialisation() {
                Initialisation::Feasible => params.init_max_draws(),
                Initialisation::Random => params.main_size() as u64,
            },
            tolerance: problem.equality_tolerance(),
            learning_rate: params.distance_learning_rate(),
            delta_min: params.target_distance_range().0,
            delta_max: params.target_distance_range().1,
            runs: to_u32("runs", runs)?,
            main_size: to_u32("main population size", params.main_size())?,
            reserve_size: to_u32("reserve population size", params.reserve_size())?,
            length: to_u32("bits per individual", length)?,
            bits: params.bits_per_variable(),
            dimension: to_u32("dimension", dimension)?,
            number,
            inequalities: to_u32("inequalities", problem.inequality_count())?,
            equalities: to_u32("equalities", problem.equality_count())?,
            crossbreed: to_u32("crossbreed size", params.crossbreed_size())?,
            main_elites: to_u32("main elites", params.main_elites())?,
            reserve_elites: to_u32("reserve elites", params.reserve_elites())?,
            tournament: to_u32("tournament size", params.tournament_size())?,
            crossover: crossover_code(params.crossover()),
            handling: handling_code(params.constraint_handling()),
            encoding: encoding_code(params.encoding()),
            crossover_rate: params.crossover_rate(),
            mutation_rate: params.mutation_rate(length),
            stream_init: Stream::DpgaInit.id(),
            stream_tournament_main: Stream::DpgaTournamentMain.id(),
            stream_tournament_reserve: Stream::DpgaTournamentReserve.id(),
            stream_cross: Stream::DpgaCross.id(),
            stream_crossbreed: Stream::DpgaCrossbreed.id(),
            stream_mutate: Stream::DpgaMutate.id(),
            ..Self::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evo_benchmarks::Cec2006Problem;

    #[test]
    fn the_parameters_carry_the_sizes_and_the_codes_of_the_kernels() {
        let params = DpgaParams::default()
            .with_crossover(Crossover::Uniform)
            .with_encoding(Encoding::Gray)
            .with_constraint_handling(ConstraintHandling::Deb)
            .with_initialisation(Initialisation::Random);
        let problem = Cec2006Problem::new(1).unwrap();
        let p = DpgaKernelParams::new(&params, &problem, 1, 7, 3).unwrap();
        let length = 13 * params.bits_per_variable();
        assert_eq!((p.seed, p.runs, p.dimension, p.length), (7, 3, 13, length));
        assert_eq!((p.crossover, p.encoding, p.handling), (2, 1, 1));
        assert_eq!(p.max_draws, params.main_size() as u64);
        assert_eq!(p.main_size as usize, params.main_size());
        assert_eq!(p.crossbreed as usize, params.crossbreed_size());
        assert_eq!((p.step, p.phase, p.rows, p.select_count), (0, 0, 0, 0));
        assert_eq!(p.stream_mutate, Stream::DpgaMutate.id());
    }

    #[test]
    fn runs_beyond_u32_are_refused_by_name() {
        let problem = Cec2006Problem::new(1).unwrap();
        let e =
            DpgaKernelParams::new(&DpgaParams::default(), &problem, 1, 0, usize::MAX).unwrap_err();
        assert!(e.to_string().contains("runs"), "{e}");
    }
}
