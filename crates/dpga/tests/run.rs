//! `evo_dpga::run`: the backend choice and its errors (no GPU needed).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::Cec2006Problem;
use evo_core::{Backend, Bounds, ConstrainedProblem, Error, Termination};
use evo_dpga::{DpgaParams, run};

fn small() -> DpgaParams {
    DpgaParams::default()
        .with_main_size(16)
        .unwrap()
        .with_reserve_size(16)
        .unwrap()
        .with_crossbreed_rate(0.25)
        .unwrap()
        .with_init_max_draws(200)
        .unwrap()
}

struct Hyperbola {
    bounds: Bounds,
}

impl ConstrainedProblem for Hyperbola {
    fn name(&self) -> &str {
        "hyperbola"
    }
    fn dimension(&self) -> usize {
        2
    }
    fn bounds(&self) -> &Bounds {
        &self.bounds
    }
    fn inequality_count(&self) -> usize {
        1
    }
    fn equality_count(&self) -> usize {
        0
    }
    fn evaluate(&self, x: &[f32], g: &mut [f64], _h: &mut [f64]) -> f64 {
        let (a, b) = (f64::from(x[0]), f64::from(x[1]));
        g[0] = 1.0 - a * b;
        a + b
    }
}

#[test]
fn the_cuda_backend_refuses_a_problem_that_is_not_cec_2006() {
    let problem = Hyperbola {
        bounds: Bounds::uniform(2, 0.0, 4.0).unwrap(),
    };
    let termination = Termination::new().with_max_generations(3);
    let error = run(
        small(),
        problem,
        1,
        Backend::Cuda { device: 0 },
        termination,
    )
    .unwrap_err();
    assert!(matches!(error, Error::InvalidParameter { .. }), "{error}");
    assert!(error.to_string().contains("CEC 2006"), "{error}");
}

#[test]
fn the_cpu_backend_runs_to_the_termination_and_equals_the_engine() {
    let termination = Termination::new().with_max_generations(5);
    let report = run(
        small(),
        Cec2006Problem::new(7).unwrap(),
        3,
        Backend::cpu(),
        termination.clone(),
    )
    .unwrap();
    let mut engine =
        evo_dpga::DpgaCpu::new(small(), Cec2006Problem::new(7).unwrap(), 3, 1).unwrap();
    for _ in 0..5 {
        evo_core::Engine::step(&mut engine).unwrap();
    }
    assert_eq!(
        report.best_fitness,
        evo_core::Engine::progress(&engine).best_fitness
    );
    // A user problem under Auto goes to the CPU even on a GPU machine.
    let problem = Hyperbola {
        bounds: Bounds::uniform(2, 0.0, 4.0).unwrap(),
    };
    assert!(run(small(), problem, 1, Backend::Auto, termination).is_ok());
}
