//! What the ETC scheduling tests of DE (`tests/scheduling.rs`, `tests/scheduling_ls.rs`) share: the generated
//! instances, the engines' parameters and the lockstep that compares a CPU and a CUDA engine at every
//! generation. Each test builds its own engines (seeds, local search) and names its runs.

use evo_benchmarks::scheduling::{Consistency, EtcClass, EtcInstance, Heterogeneity};
use evo_core::{Engine, Result};
use evo_de::{DeParams, DeSnapshot};

use crate::compare::{assert_matches, compare_slices};
use crate::suite::de::compare_snapshots;
use crate::tolerance::Tolerance;

/// The seed of every instance and run.
pub const SEED: u64 = 2011;
/// Generations compared.
pub const GENERATIONS: u64 = 200;

/// A generated semi-consistent instance of `tasks × machines`, high task and low machine heterogeneity.
pub fn instance(tasks: usize, machines: usize) -> Result<EtcInstance> {
    let class = EtcClass {
        consistency: Consistency::SemiConsistent,
        tasks: Heterogeneity::High,
        machines: Heterogeneity::Low,
    };
    EtcInstance::generate(class, tasks, machines, SEED)
}

/// The engines' parameters: 64 vectors, `F` = 0.1, `CR` = 0.01, `block` threads a block.
pub fn params(block: u32) -> Result<DeParams> {
    DeParams::default()
        .with_population(64)?
        .with_differential_weight(0.1)?
        .with_crossover_rate(0.01)?
        .with_block_size(block)
}

/// Steps both engines [`GENERATIONS`] times, comparing snapshots and the best vector before the first
/// generation and after every one; a mismatch panics naming `what`, a failed step is the error.
pub fn assert_lockstep<C, G>(what: &str, cpu: &mut C, on_gpu: &mut G) -> Result<()>
where
    C: Engine<Snapshot = DeSnapshot, Solution = Vec<f32>>,
    G: Engine<Snapshot = DeSnapshot, Solution = Vec<f32>>,
{
    for generation in 0..=GENERATIONS {
        if generation > 0 {
            cpu.step()?;
            on_gpu.step()?;
        }
        let (c, g) = (cpu.snapshot()?, on_gpu.snapshot()?);
        if let Some(mismatch) = compare_snapshots(what, &c, &g) {
            assert_matches(&mismatch);
        }
        let ((vc, fc), (vg, fg)) = (cpu.best()?, on_gpu.best()?);
        assert_matches(&compare_slices(
            "best",
            generation,
            vc.len() + 1,
            &[vc.iter().map(|&v| f64::from(v)).collect(), vec![fc]].concat(),
            &[vg.iter().map(|&v| f64::from(v)).collect(), vec![fg]].concat(),
            Tolerance::Exact,
            |_| what.to_string(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use evo_benchmarks::scheduling::{EtcObjective, EtcProblem};
    use evo_de::DeCpu;

    use super::*;

    fn engine(seed: u64) -> DeCpu<EtcProblem> {
        let problem = EtcProblem::with_objective(instance(32, 4).unwrap(), EtcObjective::Makespan);
        DeCpu::new(params(64).unwrap(), problem.unwrap(), seed, 0).unwrap()
    }

    #[test]
    fn two_engines_of_one_seed_should_pass_the_lockstep() {
        assert_lockstep("cpu twins", &mut engine(SEED), &mut engine(SEED)).unwrap();
    }

    #[test]
    #[should_panic(expected = "population differs at generation 0")]
    fn engines_of_other_seeds_should_fail_the_lockstep() {
        assert_lockstep("cpu seeds apart", &mut engine(SEED), &mut engine(SEED + 1)).unwrap();
    }
}
