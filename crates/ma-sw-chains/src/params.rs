//! The parameters of MA-SW-Chains, validated by `with_*` setters (spec ma-sw-chains.md §1).

use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

mod raw;

/// The algorithm's name in errors and reports.
pub const ALGORITHM: &str = "MA-SW-Chains";

/// Every parameter of a run; [`MaParams::default`] is the paper's set-up (§6.2) with librealea's population.
///
/// | parameter | default | allowed |
/// | --- | --- | --- |
/// | population N | 60 | ≥ 4 |
/// | BLX-α | 0.5 | finite, ≥ 0 |
/// | NAM candidates n_ass | 3 | 1 ..= N − 1 |
/// | mutation probability (per child) | 0.125 | [0, 1] |
/// | mutation range (fraction of b − a) | 0.1 | finite, > 0 |
/// | r_L/G | 0.5 | (0, 1) with n_frec = ⌊r·I_str/(1 − r)⌋ ≥ 1 |
/// | I_str (FEs per LS application) | 500 | 1 ..= 2^32 − 1 |
/// | minimum LS improvement | 1e-9 | finite, ≥ 0 |
/// | Solis–Wets ρ0 | 0.2 | finite, > 0 |
/// | ρ0 capped by half the nearest distance (librealea option) | off | on, off |
/// | success / failure limits | 5 / 3 | ≥ 1 |
/// | ρ expansion / contraction | 2 / 0.5 | > 1 / in (0, 1) |
/// | restart | on | on, off |
/// | children per crossover step | 20 | 1 ..= 1024 (1 = the sequential SSGA) |
/// | evaluation budget | 500 000 | ≥ N |
///
/// Deserialization (a TOML or JSON file, the CLI's `--set`) runs every field through the `with_*` setters,
/// so it refuses what they refuse with the same message; only the final combination of the fields is
/// judged. A missing field takes its default and an unknown field is refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "raw::MaParamsRaw")]
pub struct MaParams {
    population: usize,
    blx_alpha: f32,
    nam_candidates: usize,
    mutation_probability: f32,
    mutation_range: f32,
    ls_ratio: f64,
    ls_intensity: u64,
    min_improvement: f64,
    rho_init: f32,
    rho_half_nearest: bool,
    success_limit: u32,
    failure_limit: u32,
    rho_expand: f32,
    rho_contract: f32,
    restart: bool,
    children_per_step: usize,
    max_evaluations: u64,
}

impl Default for MaParams {
    fn default() -> Self {
        Self {
            population: 60,
            blx_alpha: 0.5,
            nam_candidates: 3,
            mutation_probability: 0.125,
            mutation_range: 0.1,
            ls_ratio: 0.5,
            ls_intensity: 500,
            min_improvement: 1e-9,
            rho_init: 0.2,
            rho_half_nearest: false,
            success_limit: 5,
            failure_limit: 3,
            rho_expand: 2.0,
            rho_contract: 0.5,
            restart: true,
            children_per_step: 20,
            max_evaluations: 500_000,
        }
    }
}

fn invalid(
    name: &'static str,
    value: impl std::fmt::Display,
    allowed: impl std::fmt::Display,
) -> Error {
    Error::invalid_parameter(ALGORITHM, name, value, allowed)
}

impl MaParams {
    /// The defaults (same as [`Default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Population size N.
    ///
    /// # Errors
    /// Below 4 (the mother and three distinct NAM candidates), or too small for the NAM candidates or the
    /// budget already set.
    pub fn with_population(mut self, population: usize) -> Result<Self> {
        if population < 4 {
            return Err(invalid("population", population, "at least 4"));
        }
        if population > u32::MAX as usize {
            return Err(invalid("population", population, "at most 2^32 - 1"));
        }
        if self.nam_candidates > population - 1 {
            return Err(invalid(
                "population",
                population,
                format!("at least NAM candidates + 1 = {}", self.nam_candidates + 1),
            ));
        }
        if (population as u64) > self.max_evaluations {
            return Err(invalid(
                "population",
                population,
                format!("at most the evaluation budget {}", self.max_evaluations),
            ));
        }
        self.population = population;
        Ok(self)
    }

    /// BLX-α (the interval is widened by α·(hi − lo) on each side).
    ///
    /// # Errors
    /// Negative or non-finite.
    pub fn with_blx_alpha(mut self, alpha: f32) -> Result<Self> {
        if !(alpha.is_finite() && alpha >= 0.0) {
            return Err(invalid("BLX-alpha", alpha, "finite and >= 0"));
        }
        self.blx_alpha = alpha;
        Ok(self)
    }

    /// The number n_ass of negative assortative mating candidates.
    ///
    /// # Errors
    /// Zero, or more than N − 1.
    pub fn with_nam_candidates(mut self, candidates: usize) -> Result<Self> {
        if candidates == 0 || candidates > self.population - 1 {
            return Err(invalid(
                "NAM candidates",
                candidates,
                format!("in 1..={} (population - 1)", self.population - 1),
            ));
        }
        self.nam_candidates = candidates;
        Ok(self)
    }

    /// The probability that a child receives one BGA mutation.
    ///
    /// # Errors
    /// Outside [0, 1].
    pub fn with_mutation_probability(mut self, probability: f32) -> Result<Self> {
        if !(0.0..=1.0).contains(&probability) {
            return Err(invalid("mutation probability", probability, "in [0, 1]"));
        }
        self.mutation_probability = probability;
        Ok(self)
    }

    /// The BGA range as a fraction of each variable's domain width (rang = fraction·(b − a)).
    ///
    /// # Errors
    /// Not finite and positive.
    pub fn with_mutation_range(mut self, fraction: f32) -> Result<Self> {
        if !(fraction.is_finite() && fraction > 0.0) {
            return Err(invalid("mutation range", fraction, "finite and > 0"));
        }
        self.mutation_range = fraction;
        Ok(self)
    }

    /// The local/global effort ratio r_L/G.
    ///
    /// # Errors
    /// Outside (0, 1), or so small that n_frec = ⌊r·I_str/(1 − r)⌋ is 0.
    pub fn with_ls_ratio(mut self, ratio: f64) -> Result<Self> {
        if !(ratio > 0.0 && ratio < 1.0) {
            return Err(invalid("r_L/G", ratio, "in (0, 1)"));
        }
        if ssga_evaluations_per_cycle(ratio, self.ls_intensity) == 0 {
            return Err(invalid(
                "r_L/G",
                ratio,
                format!(
                    "large enough that floor(r*I_str/(1-r)) >= 1 with I_str = {}",
                    self.ls_intensity
                ),
            ));
        }
        self.ls_ratio = ratio;
        Ok(self)
    }

    /// I_str, the evaluations of one local-search application.
    ///
    /// # Errors
    /// Zero, more than 2^32 − 1 (the LS counters are 32-bit on both backends), or so small that n_frec
    /// is 0.
    pub fn with_ls_intensity(mut self, evaluations: u64) -> Result<Self> {
        if evaluations == 0
            || evaluations > u64::from(u32::MAX)
            || ssga_evaluations_per_cycle(self.ls_ratio, evaluations) == 0
        {
            return Err(invalid(
                "I_str",
                evaluations,
                format!(
                    "1..=4294967295 with floor(r*I_str/(1-r)) >= 1 for r = {}",
                    self.ls_ratio
                ),
            ));
        }
        self.ls_intensity = evaluations;
        Ok(self)
    }

    /// The minimum improvement for an LS to count as improving (absolute).
    ///
    /// # Errors
    /// Negative or non-finite.
    pub fn with_min_improvement(mut self, threshold: f64) -> Result<Self> {
        if !(threshold.is_finite() && threshold >= 0.0) {
            return Err(invalid(
                "minimum LS improvement",
                threshold,
                "finite and >= 0",
            ));
        }
        self.min_improvement = threshold;
        Ok(self)
    }

    /// Solis–Wets' initial step size ρ0 (the standard deviation of the noise d).
    ///
    /// # Errors
    /// Not finite and positive.
    pub fn with_rho_init(mut self, rho: f32) -> Result<Self> {
        if !(rho.is_finite() && rho > 0.0) {
            return Err(invalid("Solis-Wets rho0", rho, "finite and > 0"));
        }
        self.rho_init = rho;
        Ok(self)
    }

    /// Decision 1's option `HalfNearest` (librealea `SolisWets::getInitOptions`): a fresh chain starts with
    /// ρ0 = min(ρ_init, ½·dist(x, nearest other member at non-zero distance)), dist(x, y) = ‖x − y‖₂ / D.
    /// Off by default (ρ0 = ρ_init, the paper's §4.2).
    pub fn with_rho_half_nearest(mut self, enabled: bool) -> Self {
        self.rho_half_nearest = enabled;
        self
    }

    /// Consecutive successes before ρ expands and failures before it contracts.
    ///
    /// # Errors
    /// Either is 0.
    pub fn with_sw_limits(mut self, successes: u32, failures: u32) -> Result<Self> {
        if successes == 0 {
            return Err(invalid("Solis-Wets success limit", successes, "at least 1"));
        }
        if failures == 0 {
            return Err(invalid("Solis-Wets failure limit", failures, "at least 1"));
        }
        self.success_limit = successes;
        self.failure_limit = failures;
        Ok(self)
    }

    /// ρ's expansion factor (after the success limit) and contraction factor (after the failure limit).
    ///
    /// # Errors
    /// Expansion not finite and > 1, contraction not in (0, 1).
    pub fn with_rho_factors(mut self, expand: f32, contract: f32) -> Result<Self> {
        if !(expand.is_finite() && expand > 1.0) {
            return Err(invalid(
                "Solis-Wets rho expansion",
                expand,
                "finite and > 1",
            ));
        }
        if !(contract > 0.0 && contract < 1.0) {
            return Err(invalid("Solis-Wets rho contraction", contract, "in (0, 1)"));
        }
        self.rho_expand = expand;
        self.rho_contract = contract;
        Ok(self)
    }

    /// Whether the population restarts when the LS stalls (spec step 13).
    pub fn with_restart(mut self, restart: bool) -> Self {
        self.restart = restart;
        self
    }

    /// Children per crossover step (1 = the sequential SSGA; the paper's GPU variant: 20).
    ///
    /// # Errors
    /// Outside 1..=1024.
    pub fn with_children_per_step(mut self, children: usize) -> Result<Self> {
        if !(1..=1024).contains(&children) {
            return Err(invalid(
                "children per crossover step",
                children,
                "in 1..=1024",
            ));
        }
        self.children_per_step = children;
        Ok(self)
    }

    /// The evaluation budget of a run (initialisation included); the run stops as soon as it is spent.
    ///
    /// # Errors
    /// Smaller than the population or at least 2^32 (the RNG event counters are 32-bit).
    pub fn with_max_evaluations(mut self, budget: u64) -> Result<Self> {
        if budget < self.population as u64 {
            return Err(invalid(
                "evaluation budget",
                budget,
                format!("at least the population size {}", self.population),
            ));
        }
        if budget > u64::from(u32::MAX) {
            return Err(invalid("evaluation budget", budget, "below 2^32"));
        }
        self.max_evaluations = budget;
        Ok(self)
    }

    /// Population size N.
    pub fn population(&self) -> usize {
        self.population
    }
    /// BLX-α.
    pub fn blx_alpha(&self) -> f32 {
        self.blx_alpha
    }
    /// NAM candidates n_ass.
    pub fn nam_candidates(&self) -> usize {
        self.nam_candidates
    }
    /// Mutation probability per child.
    pub fn mutation_probability(&self) -> f32 {
        self.mutation_probability
    }
    /// BGA range as a fraction of the domain width.
    pub fn mutation_range(&self) -> f32 {
        self.mutation_range
    }
    /// r_L/G.
    pub fn ls_ratio(&self) -> f64 {
        self.ls_ratio
    }
    /// I_str.
    pub fn ls_intensity(&self) -> u64 {
        self.ls_intensity
    }
    /// n_frec = ⌊r·I_str/(1 − r)⌋, the SSGA evaluations per cycle.
    pub fn ssga_evaluations(&self) -> u64 {
        ssga_evaluations_per_cycle(self.ls_ratio, self.ls_intensity)
    }
    /// The minimum LS improvement.
    pub fn min_improvement(&self) -> f64 {
        self.min_improvement
    }
    /// ρ0.
    pub fn rho_init(&self) -> f32 {
        self.rho_init
    }
    /// Whether a fresh chain's ρ0 is capped by half the distance to the nearest member.
    pub fn rho_half_nearest(&self) -> bool {
        self.rho_half_nearest
    }
    /// Success limit.
    pub fn success_limit(&self) -> u32 {
        self.success_limit
    }
    /// Failure limit.
    pub fn failure_limit(&self) -> u32 {
        self.failure_limit
    }
    /// ρ expansion factor.
    pub fn rho_expand(&self) -> f32 {
        self.rho_expand
    }
    /// ρ contraction factor.
    pub fn rho_contract(&self) -> f32 {
        self.rho_contract
    }
    /// Whether restarts are on.
    pub fn restart(&self) -> bool {
        self.restart
    }
    /// Children per crossover step.
    pub fn children_per_step(&self) -> usize {
        self.children_per_step
    }
    /// The evaluation budget.
    pub fn max_evaluations(&self) -> u64 {
        self.max_evaluations
    }
}

/// n_frec = ⌊r·I_str/(1 − r)⌋ (librealea `src/malschains.cc`).
fn ssga_evaluations_per_cycle(ratio: f64, intensity: u64) -> u64 {
    (ratio * intensity as f64 / (1.0 - ratio)).floor() as u64
}

/// Checks a problem dimension: at least 1 and at most 2^32 − 1 (RNG word indices are 32-bit); returns it as
/// the `u32` the cycle and the kernels take.
///
/// # Errors
/// [`Error::InvalidParameter`] naming the dimension.
pub fn check_dimension(dimension: usize) -> Result<u32> {
    if dimension == 0 {
        return Err(invalid("dimension D", dimension, "at least 1"));
    }
    u32::try_from(dimension).map_err(|_| invalid("dimension D", dimension, "at most 2^32 - 1"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_give_500_ssga_evaluations_per_cycle() {
        assert_eq!(MaParams::default().ssga_evaluations(), 500);
    }

    #[test]
    fn population_below_four_is_rejected_with_its_message() {
        let error = MaParams::new().with_population(2).unwrap_err().to_string();
        assert_eq!(error, "MA-SW-Chains: population must be at least 4, got 2");
    }

    #[test]
    fn budget_below_population_is_rejected() {
        assert!(MaParams::new().with_max_evaluations(59).is_err());
        assert!(MaParams::new().with_max_evaluations(60).is_ok());
        let small = MaParams::new().with_max_evaluations(100).unwrap();
        assert!(small.with_population(101).is_err());
    }

    #[test]
    fn bad_values_are_rejected() {
        assert!(MaParams::new().with_ls_ratio(1.0).is_err());
        assert!(MaParams::new().with_ls_ratio(0.0001).is_err());
        assert!(MaParams::new().with_blx_alpha(-0.1).is_err());
        assert!(MaParams::new().with_mutation_probability(1.5).is_err());
        assert!(MaParams::new().with_rho_init(0.0).is_err());
        assert!(MaParams::new().with_rho_factors(1.0, 0.5).is_err());
        assert!(MaParams::new().with_children_per_step(0).is_err());
        assert!(MaParams::new().with_nam_candidates(60).is_err());
        assert!(
            MaParams::new()
                .with_population(4)
                .unwrap()
                .with_nam_candidates(3)
                .is_ok()
        );
        assert!(check_dimension(0).is_err());
        assert_eq!(check_dimension(7).ok(), Some(7));
        #[cfg(target_pointer_width = "64")]
        assert!(check_dimension(u32::MAX as usize + 1).is_err());
    }
}
