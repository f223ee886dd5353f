//! The kernel parameter structs of a GA run, built from [`GaParams`] and the problem when an engine is
//! built: every size converted to the `u32` the kernels take once, with a typed error instead of a cast.

use evo_benchmarks::ga_functions::GaFunction;
use evo_core::{BinaryProblem, Bits, Error, Result};

use super::launch::{GaFusedParams, GaKernelParams};
use crate::params::{COMPONENT, GaParams};
use crate::problem::PaperFunction;

/// `value` as the `u32` the kernels take.
///
/// # Errors
/// [`Error::InvalidParameter`] naming the GA and `name` when `value` exceeds `u32::MAX`.
pub(crate) fn kernel_u32(name: &'static str, value: usize) -> Result<u32> {
    u32::try_from(value).map_err(|_| {
        Error::invalid_parameter(
            COMPONENT,
            name,
            value,
            format!("at most {} for the CUDA engines", u32::MAX),
        )
    })
}

/// A rate in [0, 1] as the f32 the kernels compare draws with: rounded to nearest, as `GaCpu` rounds it.
// An f64 in [0, 1] rounds to the nearest f32 and cannot overflow; the precision loss is the CPU twin's too.
#[allow(clippy::cast_possible_truncation)]
fn rate_f32(rate: f64) -> f32 {
    rate as f32
}

/// The fields both parameter structs share.
struct Shared {
    population: u32,
    words: u32,
    bits: u32,
    variables: u32,
    tournament: u32,
    elite: u32,
    crossover_rate: f32,
    mutation_rate: f32,
}

impl Shared {
    /// The fields for `bits` bits per individual, `variables` of them decoded (0 when the problem reads the
    /// bits itself).
    fn new(params: &GaParams, bits: usize, variables: usize) -> Result<Self> {
        Ok(Self {
            population: kernel_u32("population size", params.population())?,
            words: kernel_u32("words per individual", Bits::word_count(bits))?,
            bits: kernel_u32("bit count L", bits)?,
            variables: kernel_u32("variables", variables)?,
            tournament: kernel_u32("tournament size", params.tournament_size())?,
            elite: kernel_u32("elite size", params.elite())?,
            crossover_rate: rate_f32(params.crossover_rate()),
            mutation_rate: rate_f32(params.mutation_rate(bits)),
        })
    }
}

impl GaKernelParams {
    /// The parameters of one run of `problem` from `seed`, before any generation (step 0, one run, the
    /// paper-mode fields 0).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when a size exceeds `u32::MAX`.
    pub(crate) fn for_run(params: &GaParams, problem: &PaperFunction, seed: u64) -> Result<Self> {
        let shared = Shared::new(params, problem.bit_count(), problem.variables())?;
        let (lo, hi) = problem.range();
        Ok(Self {
            seed,
            lo,
            hi,
            population: shared.population,
            words: shared.words,
            bits: shared.bits,
            variables: shared.variables,
            step: 0,
            tournament: shared.tournament,
            elite: shared.elite,
            crossover_rate: shared.crossover_rate,
            mutation_rate: shared.mutation_rate,
            runs: 1,
            array_len: 0,
            xor_threads: 0,
            pad: 0,
        })
    }
}

impl GaKernelParams {
    /// The parameters of one run from `seed` over `bits` bits per individual, for a problem that evaluates
    /// the packed rows itself (no decoding: `variables`, `lo` and `hi` are 0).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when a size exceeds `u32::MAX`.
    pub(crate) fn for_bits(params: &GaParams, bits: usize, seed: u64) -> Result<Self> {
        let shared = Shared::new(params, bits, 0)?;
        Ok(Self {
            seed,
            population: shared.population,
            words: shared.words,
            bits: shared.bits,
            variables: 0,
            tournament: shared.tournament,
            elite: shared.elite,
            crossover_rate: shared.crossover_rate,
            mutation_rate: shared.mutation_rate,
            runs: 1,
            ..Self::default()
        })
    }
}

impl GaFusedParams {
    /// The parameters of `runs` runs of `problem` (seeds `seed`, `seed + 1`, …) whose first launch builds the
    /// initial populations and runs no generation, drawing inside the fused kernel.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when a size or `runs` exceeds `u32::MAX`.
    pub(crate) fn for_runs(
        params: &GaParams,
        problem: &PaperFunction,
        seed: u64,
        runs: usize,
    ) -> Result<Self> {
        let shared = Shared::new(params, problem.bit_count(), problem.variables())?;
        let (lo, hi) = problem.range();
        let function = GaFunction::ALL
            .iter()
            .position(|&f| f == problem.function())
            .ok_or_else(|| {
                Error::invalid_parameter(
                    COMPONENT,
                    "function",
                    problem.function().name(),
                    "one of the paper's eight functions",
                )
            })?;
        Ok(Self {
            seed,
            lo,
            hi,
            population: shared.population,
            words: shared.words,
            bits: shared.bits,
            variables: shared.variables,
            initialise: 1,
            first_step: 0,
            generations: 0,
            tournament: shared.tournament,
            elite: shared.elite,
            crossover_rate: shared.crossover_rate,
            mutation_rate: shared.mutation_rate,
            function: kernel_u32("function index", function)?,
            scratch: kernel_u32(
                "evaluation scratch",
                problem.variables().next_power_of_two(),
            )?,
            draws: 0,
            runs: kernel_u32("runs", runs)?,
            pad: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_run_params_carry_the_run_and_the_problem() -> Result<()> {
        let params = GaParams::new()
            .with_population(128)?
            .with_tournament_size(3)?
            .with_elite(2)?
            .with_crossover_rate(0.9)?;
        let problem = PaperFunction::new(GaFunction::ALL[4], 32)?;
        let p = GaKernelParams::for_run(&params, &problem, 7)?;
        assert_eq!(
            (p.seed, p.population, p.words, p.bits, p.variables),
            (7, 128, 16, 512, 32)
        );
        assert_eq!((p.tournament, p.elite, p.step, p.runs), (3, 2, 0, 1));
        assert_eq!((p.lo, p.hi), problem.range());
        assert_eq!(p.crossover_rate.to_bits(), 0.9f32.to_bits());
        assert_eq!(p.mutation_rate.to_bits(), (1.0f32 / 512.0).to_bits());
        assert_eq!((p.array_len, p.xor_threads), (0, 0));
        Ok(())
    }

    #[test]
    fn bit_params_carry_the_run_without_a_decoding() -> Result<()> {
        let params = GaParams::new().with_population(64)?.with_elite(3)?;
        let p = GaKernelParams::for_bits(&params, 100, 9)?;
        assert_eq!(
            (p.seed, p.population, p.words, p.bits, p.variables),
            (9, 64, 4, 100, 0)
        );
        assert_eq!((p.elite, p.step, p.runs), (3, 0, 1));
        assert_eq!(p.mutation_rate.to_bits(), (1.0f32 / 100.0).to_bits());
        Ok(())
    }

    #[test]
    fn fused_params_index_the_function_and_size_the_scratch() -> Result<()> {
        let problem = PaperFunction::new(GaFunction::ALL[6], 100)?;
        let p = GaFusedParams::for_runs(&GaParams::new(), &problem, 3, 5)?;
        assert_eq!(
            (p.function, p.scratch, p.runs, p.variables),
            (6, 128, 5, 100)
        );
        assert_eq!(
            (p.initialise, p.first_step, p.generations, p.draws),
            (1, 0, 0, 0)
        );
        Ok(())
    }

    #[test]
    fn runs_beyond_u32_are_refused_not_wrapped() -> Result<()> {
        let problem = PaperFunction::new(GaFunction::ALL[0], 2)?;
        let too_many = u32::MAX as usize + 2;
        let message = GaFusedParams::for_runs(&GaParams::new(), &problem, 0, too_many)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            message.contains("GA") && message.contains("runs") && message.contains("4294967297"),
            "{message}"
        );
        Ok(())
    }
}
