//! Test engines shared by the integration tests: deterministic, tiny, and able to fail or sleep on demand.

// Each test binary uses a different subset of these helpers, and test helpers may unwrap.
#![allow(dead_code, clippy::unwrap_used)]

use evo_core::{
    Engine, Error, ProblemIdentity, Progress, Result, RunFingerprint, check_fitness,
    snapshot_checks,
};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// SplitMix64 of a counter: a counter-based generator, so a draw depends only on its address.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform f32 in [-1, 1) addressed by (seed, generation, individual, gene).
fn uniform(seed: u64, generation: u64, individual: u64, gene: u64) -> f32 {
    let key = splitmix64(seed ^ splitmix64(generation ^ splitmix64(individual ^ splitmix64(gene))));
    ((key >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

fn sphere(x: &[f32]) -> f64 {
    x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
}

/// The whole state of a [`SphereEngine`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SphereSnapshot {
    pub x: Vec<f32>,
    pub fx: f64,
    pub sigma: f32,
    pub generation: u64,
    pub evaluations: u64,
}

/// A (1, lambda)-elitist search on the sphere with step-size adaptation; every random number is addressed by
/// (seed, generation, offspring, gene), so the engine is deterministic and resumable bit for bit.
pub struct SphereEngine {
    seed: u64,
    lambda: u64,
    /// A generation budget carried as a parameter, as algorithms with a built-in budget do; only the
    /// fingerprint reads it (the executor's termination ends the run).
    budget: u64,
    state: SphereSnapshot,
    /// Fail (after corrupting the state, as a half-done step would) when asked to take this generation.
    pub fail_at: Option<u64>,
    /// Sleep this long in every step, for wall-time tests.
    pub sleep: Duration,
    /// Send SIGINT to this process when taking this generation.
    pub sigint_at: Option<u64>,
    /// Report a fixed best fitness, so nothing ever improves (stagnation tests).
    pub frozen: bool,
}

impl SphereEngine {
    pub fn new(dimension: usize, seed: u64) -> Self {
        let x: Vec<f32> = (0..dimension as u64)
            .map(|j| 3.0 * uniform(seed, u64::MAX, 0, j))
            .collect();
        let fx = sphere(&x);
        Self {
            seed,
            lambda: 10,
            budget: 1000,
            state: SphereSnapshot {
                x,
                fx,
                sigma: 1.0,
                generation: 0,
                evaluations: 1,
            },
            fail_at: None,
            sleep: Duration::ZERO,
            sigint_at: None,
            frozen: false,
        }
    }

    pub fn failing_at(mut self, generation: u64) -> Self {
        self.fail_at = Some(generation);
        self
    }

    /// Another offspring count (a parameter of the run's fingerprint).
    pub fn with_lambda(mut self, lambda: u64) -> Self {
        self.lambda = lambda;
        self
    }

    /// Another generation budget (a parameter a resume may override).
    pub fn with_budget(mut self, budget: u64) -> Self {
        self.budget = budget;
        self
    }
}

/// The sphere engine's parameters, as an algorithm crate's params struct.
#[derive(Serialize)]
struct SphereParams {
    lambda: u64,
    budget: u64,
}

impl Engine for SphereEngine {
    type Solution = Vec<f32>;
    type Snapshot = SphereSnapshot;

    fn algorithm(&self) -> &'static str {
        "sphere-toy"
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        RunFingerprint::new(
            self.seed,
            &SphereParams {
                lambda: self.lambda,
                budget: self.budget,
            },
            ProblemIdentity::new("sphere", self.state.x.len()),
        )
    }

    fn step(&mut self) -> Result<()> {
        let generation = self.state.generation + 1;
        if self.fail_at == Some(generation) {
            // A half-done step: the state is already damaged when the error surfaces.
            self.state.x[0] = 1.0e9;
            self.state.generation += 100;
            return check_fitness("sphere", 3, f64::NAN).map(|_| ());
        }
        if self.sigint_at == Some(generation) {
            let pid = std::process::id().to_string();
            let status = std::process::Command::new("kill")
                .args(["-INT", &pid])
                .status();
            assert!(status.is_ok_and(|s| s.success()), "kill -INT failed");
        }
        if !self.sleep.is_zero() {
            std::thread::sleep(self.sleep);
        }
        if self.frozen {
            self.state.generation = generation;
            self.state.evaluations += self.lambda;
            return Ok(());
        }
        let mut best: Option<(Vec<f32>, f64)> = None;
        for i in 0..self.lambda {
            let candidate: Vec<f32> = (0..self.state.x.len() as u64)
                .map(|j| {
                    self.state.x[j as usize]
                        + self.state.sigma * uniform(self.seed, generation, i, j)
                })
                .collect();
            let f = check_fitness("sphere", i as usize, sphere(&candidate))?;
            if best.as_ref().is_none_or(|(_, bf)| f < *bf) {
                best = Some((candidate, f));
            }
        }
        if let Some((x, f)) = best.filter(|(_, f)| *f < self.state.fx) {
            self.state.x = x;
            self.state.fx = f;
            self.state.sigma *= 1.5;
        } else {
            self.state.sigma *= 0.8;
        }
        self.state.generation = generation;
        self.state.evaluations += self.lambda;
        Ok(())
    }

    fn progress(&self) -> Progress {
        Progress {
            generation: self.state.generation,
            evaluations: self.state.evaluations,
            best_fitness: self.state.fx,
        }
    }

    fn best(&self) -> Result<(Vec<f32>, f64)> {
        Ok((self.state.x.clone(), self.state.fx))
    }

    fn snapshot(&self) -> Result<SphereSnapshot> {
        Ok(self.state.clone())
    }

    fn restore(&mut self, snapshot: &SphereSnapshot) -> Result<()> {
        if snapshot.x.len() != self.state.x.len() {
            return Err(Error::invalid_parameter(
                "sphere-toy",
                "snapshot dimension",
                snapshot.x.len(),
                self.state.x.len(),
            ));
        }
        snapshot_checks::finite("sphere-toy", "fx", &[snapshot.fx])?;
        snapshot_checks::counter(
            "sphere-toy",
            "evaluations",
            snapshot.evaluations,
            snapshot
                .generation
                .checked_mul(self.lambda)
                .and_then(|e| e.checked_add(1)),
            "1 + lambda * generation",
        )?;
        self.state = snapshot.clone();
        Ok(())
    }
}

/// An engine whose best fitness after generation `g` is `script[g]` (the last value repeats), for exact
/// stagnation and target tests.
pub struct ScriptedEngine {
    pub script: Vec<f64>,
    pub generation: u64,
}

impl ScriptedEngine {
    pub fn new(script: &[f64]) -> Self {
        Self {
            script: script.to_vec(),
            generation: 0,
        }
    }

    fn current(&self) -> f64 {
        let index = (self.generation as usize).min(self.script.len() - 1);
        self.script[index]
    }
}

impl Engine for ScriptedEngine {
    type Solution = u64;
    type Snapshot = u64;

    fn algorithm(&self) -> &'static str {
        "scripted"
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        RunFingerprint::new(
            0,
            &self.script,
            ProblemIdentity::new("script", self.script.len()),
        )
    }

    fn step(&mut self) -> Result<()> {
        self.generation += 1;
        Ok(())
    }

    fn progress(&self) -> Progress {
        Progress {
            generation: self.generation,
            evaluations: 5 * (self.generation + 1),
            best_fitness: self.current(),
        }
    }

    fn best(&self) -> Result<(u64, f64)> {
        Ok((self.generation, self.current()))
    }

    fn snapshot(&self) -> Result<u64> {
        Ok(self.generation)
    }

    fn restore(&mut self, snapshot: &u64) -> Result<()> {
        self.generation = *snapshot;
        Ok(())
    }
}

/// A fresh path under Cargo's per-target temporary directory; `name` must be unique per test.
pub fn temp_path(name: &str) -> PathBuf {
    let directory = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("evo-core-tests");
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join(name);
    let _ = std::fs::remove_file(&path);
    path
}
