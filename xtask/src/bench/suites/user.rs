//! Suite `user`: a user's own problem beside the built-in one, in every engine that takes it (issue #29,
//! "Speed").
//!
//! - [`compile`]: the first compile of a user module (NVRTC into an empty cache directory) and the time when
//!   its cached PTX is reused, measured in this process with the runtime's own disk-cache call; on the GPU
//!   also the first load of the module on the device, with where it came from.
//! - [`real`]: DE at the sizes of the `de` suite's per-generation timing, Rastrigin four ways: the built-in
//!   (fused into the one-launch generation), the same function as user CUDA source ([`UserProblem`], once
//!   with the general cosine `evo_cos_f64` and once with the fast `evo_cos_pi_f64`), the same function as a
//!   user's separable term ([`UserFunction`], `evo_cos_pi_f64`, fused on the built-in's path), and a
//!   Rust closure evaluated on the host ([`HostEvaluated`](evo_de::HostEvaluated)), with the bytes the host
//!   path copies per generation, the copies alone and the closure's own time; on the CPU, the CPU engine on
//!   the built-in and on the user problem's Rust twin.
//! - [`ma`]: MA-SW-Chains at the `ma` suite's numbers of variables, time per cycle on the built-in Rastrigin,
//!   the built-in shifted Rastrigin and the user source.
//! - [`ga`]: the GA at the `ga` suite's sizes (N = 256, n = 32 and 128 variables of 16 bits), f1
//!   (Hypersphere) built in, as user CUDA source ([`evo_ga::UserBits`]) and as a host closure
//!   ([`evo_ga::HostEvaluated`] of a [`evo_ga::BatchFn`]).
//!
//! GPU figures are CUDA-event medians after warm-up (the framework's [`BenchContext::time_gpu`]), CPU ones
//! wall-clock medians ([`BenchContext::time_cpu`]). Without a GPU the GPU rows print `-` and a note says why.

use evo_benchmarks::cuda::{UserData, UserFunction, UserProblem, UserTwin};
use evo_benchmarks::functions::cos_pi;
use evo_core::Bounds;
use evo_core::math::cos_f64;

use crate::bench::{Backend, BenchContext, Reference, Row, Suite, SuiteResult, Timing};

mod compile;
mod ga;
mod ma;
mod real;

/// The seed of every engine.
const SEED: u64 = 29;

/// The domain of Rastrigin, as the built-in `DeRastrigin`: `[−5.12, 5.12]^D`.
const RASTRIGIN_LIMIT: f32 = 5.12;

/// Rastrigin as a new user writes it: one term per coordinate, `x² + 10 − 10 cos 2πx`, with the runtime's
/// `evo_cos_f64` so that the Rust twin ([`RastriginTwin`]) gives the same bits.
const RASTRIGIN_SOURCE: &str = r#"// Rastrigin: one term per coordinate.
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double z = (double)x[i];
    t[0] = z * z + (10.0 - 10.0 * evo_cos_f64(6.283185307179586 * z));
}
"#;

/// The same Rastrigin with the fast cosine the user docs recommend for `cos(2πx)`: `evo_cos_pi_f64(2x)`
/// (twin [`cos_pi`]).
const RASTRIGIN_COS_PI_SOURCE: &str = r#"// Rastrigin: one term per coordinate, cos(2 pi z) as cos(pi u) of u = 2z.
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double z = (double)x[i];
    t[0] = z * z + (10.0 - 10.0 * evo_cos_pi_f64(2.0 * z));
}
"#;

/// Rastrigin as a user's separable term (`UserFunction`'s contract) with the fast cosine: the term of
/// coordinate `i` at `z = (double)x_i`.
const RASTRIGIN_TERM_SOURCE: &str = r#"// Rastrigin's term, cos(2 pi z) as cos(pi u) of u = 2z.
__device__ double evo_user_term(unsigned long long i, double z)
{
    return z * z + (10.0 - 10.0 * evo_cos_pi_f64(2.0 * z));
}
"#;

/// The Rust twin of [`RASTRIGIN_TERM_SOURCE`]: the same operations in the same order.
type TermTwin = fn(usize, f64) -> f64;

/// Rastrigin of `D` variables as a user's separable term with its twin.
fn user_rastrigin_term(dimension: usize) -> anyhow::Result<UserFunction<TermTwin>> {
    let twin: TermTwin = |_, z| z * z + (10.0 - 10.0 * cos_pi(2.0 * z));
    Ok(UserFunction::new(
        "rastrigin_term_cos_pi",
        Bounds::uniform(dimension, -RASTRIGIN_LIMIT, RASTRIGIN_LIMIT)?,
        RASTRIGIN_TERM_SOURCE,
        twin,
    )?)
}

/// Which cosine the user's Rastrigin source calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cosine {
    /// `evo_cos_f64(2π·x)`, the general cosine ([`RASTRIGIN_SOURCE`]).
    General,
    /// `evo_cos_pi_f64(2·x)`, `cos(πu)` with an absolute bound ([`RASTRIGIN_COS_PI_SOURCE`]).
    Pi,
}

/// The Rust twin of the user's Rastrigin source: the same operations in the same order.
#[derive(Clone, Copy, Debug)]
struct RastriginTwin(Cosine);

impl UserTwin for RastriginTwin {
    fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
        t[0] = match self.0 {
            Cosine::General => rastrigin_term(x[i]),
            Cosine::Pi => {
                let z = f64::from(x[i]);
                z * z + (10.0 - 10.0 * cos_pi(2.0 * z))
            }
        };
    }
}

/// One Rastrigin term, as [`RASTRIGIN_SOURCE`] computes it.
fn rastrigin_term(x: f32) -> f64 {
    let z = f64::from(x);
    z * z + (10.0 - 10.0 * cos_f64(std::f64::consts::TAU * z))
}

/// Rastrigin of `D` variables as user CUDA source with its twin, with the cosine `cosine`.
fn user_rastrigin(dimension: usize, cosine: Cosine) -> anyhow::Result<UserProblem<RastriginTwin>> {
    let (name, source) = match cosine {
        Cosine::General => ("rastrigin", RASTRIGIN_SOURCE),
        Cosine::Pi => ("rastrigin_cos_pi", RASTRIGIN_COS_PI_SOURCE),
    };
    Ok(UserProblem::new(
        name,
        Bounds::uniform(dimension, -RASTRIGIN_LIMIT, RASTRIGIN_LIMIT)?,
        source,
        RastriginTwin(cosine),
    )?)
}

/// The note of a GPU part that did not run.
fn no_gpu_note(part: &str) -> String {
    format!("{part}: GPU rows not measured (no GPU, or `--backend cpu`); they print `-`.")
}

/// A per-generation (or per-cycle) measurement: the timing of `steps` steps per sample, or `None` when it
/// was not measured.
struct PerStep {
    timing: Option<Timing>,
    steps: u64,
}

impl PerStep {
    /// Not measured.
    fn missing() -> Self {
        Self {
            timing: None,
            steps: 1,
        }
    }

    /// Measured: `timing` of `steps` steps per sample.
    fn measured(timing: Timing, steps: u64) -> Self {
        Self {
            timing: Some(timing),
            steps,
        }
    }

    /// The median time of one step in µs, NaN when not measured.
    fn us(&self) -> f64 {
        self.timing
            .as_ref()
            .map_or(f64::NAN, |t| t.median_ms() * 1e3 / self.steps as f64)
    }

    /// The timed samples, 0 when not measured.
    fn samples(&self) -> usize {
        self.timing.as_ref().map_or(0, Timing::count)
    }
}

/// A row of µs per step (`unit`, e.g. "µs/generation"), `-` when not measured, compared with `reference`
/// (source, µs) when given.
fn step_row(
    (case, unit): (String, &str),
    (backend, device): (Backend, String),
    size: u64,
    measured: &PerStep,
    reference: Option<(&str, f64)>,
    check: Option<String>,
) -> Row {
    let us = measured.us();
    Row {
        case,
        backend,
        device,
        size,
        median_ms: us * 1e-3,
        samples: measured.samples(),
        throughput: us,
        unit: unit.to_string(),
        reference: reference
            .filter(|(_, value)| value.is_finite() && us.is_finite())
            .map(|(source, value)| Reference::new(source, value, us)),
        check,
    }
}

/// `value` with two decimals, or `-` when not measured.
fn cell(value: f64) -> String {
    crate::bench::markdown::fixed(value, 2)
}

/// `a / b` as `1.23x`, or `-` when either is missing.
fn ratio(a: f64, b: f64) -> String {
    crate::bench::markdown::times(a / b)
}

/// The `user` suite.
pub struct User;

impl Suite for User {
    fn name(&self) -> &'static str {
        "user"
    }

    fn description(&self) -> &'static str {
        "issue #29: Rastrigin as user CUDA source and as a host closure beside the built-in in DE and MA-SW-Chains, f1 as user bits in the GA, and a user module's first compile against its cached PTX"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let mut result = SuiteResult::default();
        result.notes.push(
            "In the rows, `throughput` is a time and `ratio` is this row's time over the reference's: above 1 \
             is slower than the reference (the user's problem against the built-in)."
                .to_string(),
        );
        // First, so that the device load of the user module is the process's first.
        compile::run(ctx, &mut result)?;
        real::run(ctx, &mut result)?;
        ma::run(ctx, &mut result)?;
        ga::run(ctx, &mut result)?;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evo_benchmarks::DeRastrigin;
    use evo_core::ContinuousProblem;

    #[test]
    fn the_user_rastrigin_twins_are_rastrigin() {
        for cosine in [Cosine::General, Cosine::Pi] {
            let user = user_rastrigin(3, cosine).expect("valid problem");
            assert_eq!(user.evaluate(&[0.0; 3]), 0.0);
            let x = [1.0f32, -0.5, 2.5];
            let builtin = DeRastrigin::new(3).expect("valid").evaluate(&x);
            assert!(
                (user.evaluate(&x) - builtin).abs() < 1e-9,
                "{cosine:?}: {} vs {builtin}",
                user.evaluate(&x)
            );
        }
    }

    #[test]
    fn the_user_rastrigin_term_is_rastrigin() {
        let user = user_rastrigin_term(3).expect("valid problem");
        assert_eq!(user.evaluate(&[0.0; 3]), 0.0);
        let x = [1.0f32, -0.5, 2.5];
        let builtin = DeRastrigin::new(3).expect("valid").evaluate(&x);
        assert!((user.evaluate(&x) - builtin).abs() < 1e-9);
    }

    #[test]
    fn a_missing_measurement_is_a_dash_and_has_no_reference() {
        let row = step_row(
            ("x".into(), "µs/generation"),
            (Backend::Cuda, "none".into()),
            1,
            &PerStep::missing(),
            Some(("built-in", 3.0)),
            None,
        );
        assert!(row.median_ms.is_nan() && row.reference.is_none());
        assert_eq!(row.samples, 0);
        assert_eq!(cell(row.throughput), "-");
        assert_eq!(ratio(f64::NAN, 2.0), "-");
    }

    #[test]
    fn a_measurement_is_per_step() {
        let timing = Timing {
            samples_ms: vec![2.0, 4.0, 3.0],
        };
        let measured = PerStep::measured(timing, 10);
        assert_eq!(measured.us(), 300.0);
        let row = step_row(
            ("x".into(), "µs/generation"),
            (Backend::Cuda, "gpu".into()),
            1,
            &measured,
            Some(("built-in", 150.0)),
            None,
        );
        assert_eq!(row.median_ms, 0.3);
        assert_eq!(row.reference.map(|r| r.ratio), Some(2.0));
    }
}
