//! `evo run ma-sw-chains --split dimension --gpus LIST`: MA-SW-Chains with every individual's variables cut
//! into slices over GPUs (evo-distributed's [`MaDimensionSplit`], an even [`SliceLayout`], one slice per
//! entry of the list, so a GPU listed twice holds two slices). Its snapshot is `MaCuda`'s and `MaCpu`'s, so
//! checkpoints and `evo resume` work as for any MA-SW-Chains run, and a resume may take another list.

use anyhow::{Context, Result, anyhow, bail};
use evo_core::{
    BACKEND_REASON, Backend, Error, GpuPresence, OnDevice, Report, RunAlgorithm, RunBuilder,
};
use evo_distributed::dimension::{MaDimensionSplit, SeparableProblem, SliceLayout};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::MaParams;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

use crate::algorithm::Algorithm;
use crate::args::{IslandArgs, Split};
use crate::problem::Problem;
use crate::run::Session;

/// A split run's configuration, as the run file keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitConfig {
    /// What is split.
    pub split: Split,
    /// One slice per entry: the CUDA device that holds it.
    pub gpus: Vec<usize>,
}

/// The split's part of result.json.
#[derive(Debug, Serialize)]
pub struct SplitResult<'a> {
    /// What was split.
    pub split: Split,
    /// One slice per entry: the CUDA device that held it.
    pub gpus: &'a [usize],
    /// The slices on each GPU (`"cuda:0": 2`).
    pub slices_per_gpu: BTreeMap<String, usize>,
}

impl<'a> SplitResult<'a> {
    /// The result of a run under `config` (its layout is [`SliceLayout::even`] over the list).
    pub fn new(config: &'a SplitConfig) -> Self {
        let mut slices_per_gpu = BTreeMap::new();
        for gpu in &config.gpus {
            *slices_per_gpu.entry(format!("cuda:{gpu}")).or_insert(0) += 1;
        }
        Self {
            split: config.split,
            gpus: &config.gpus,
            slices_per_gpu,
        }
    }
}

/// The split of `evo run`: `None` without `--split`. `islands` are the island flags (`--gpus` among them)
/// and `island_keys` whether `--set`/`--config` named an island key.
///
/// # Errors
/// `--split` with another algorithm than ma-sw-chains, with an island option, with a CPU backend, with a
/// CUDA backend on a device the list lacks, or without `--gpus`; a malformed `--gpus`.
pub fn resolve(
    split: Option<Split>,
    algorithm: Algorithm,
    islands: &IslandArgs,
    island_keys: bool,
    backend: Backend,
) -> Result<Option<SplitConfig>> {
    let Some(split) = split else {
        return Ok(None);
    };
    if algorithm != Algorithm::MaSwChains {
        bail!("--split dimension runs ma-sw-chains only; {algorithm} has no dimension split");
    }
    if islands.islands.is_some()
        || islands.migration_interval.is_some()
        || islands.migrants.is_some()
        || islands.placement.is_some()
        || island_keys
    {
        bail!(
            "--split dimension runs one population over its --gpus; it does not combine with the island \
             model (--islands, --migration-interval, --migrants, --placement and their keys)"
        );
    }
    let Some(list) = &islands.gpus else {
        bail!(
            "--split dimension needs --gpus LIST, one CUDA device per slice (e.g. 0,1, or 0,0 for two slices on device 0)"
        );
    };
    let gpus = parse_gpus(list)?;
    check_backend(backend, &gpus)?;
    Ok(Some(SplitConfig { split, gpus }))
}

/// `--gpus 0,1,1`: the device of each slice.
///
/// # Errors
/// An entry that is not a device number.
pub fn parse_gpus(list: &str) -> Result<Vec<usize>> {
    list.split(',')
        .map(|device| device.trim().parse::<usize>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| {
            anyhow!(
                "--gpus {list}: expected CUDA device numbers separated by commas, one per slice (e.g. 0,1 \
                 or 0,0; `evo devices` lists them)"
            )
        })
}

/// The split runs on the GPUs of its list: a CPU backend is refused, a CUDA one must name one of them.
///
/// # Errors
/// As above.
pub fn check_backend(backend: Backend, gpus: &[usize]) -> Result<()> {
    match backend {
        Backend::Auto => Ok(()),
        Backend::Cuda { device } if gpus.contains(&device) => Ok(()),
        Backend::Cuda { device } => bail!(
            "--backend cuda:{device} names a device that --gpus {} lacks; the dimension split runs on the \
             devices of --gpus (give --backend auto or cuda)",
            join(gpus)
        ),
        Backend::Cpu { .. } => bail!(
            "--split dimension runs on CUDA GPUs only (--gpus); --backend {backend} is not allowed, give auto \
             or cuda"
        ),
    }
}

fn join(gpus: &[usize]) -> String {
    gpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A problem with the layout of its variables.
pub struct Sliced<'a, P: ?Sized> {
    problem: &'a P,
    layout: SliceLayout,
}

/// MA-SW-Chains over a [`SliceLayout`], under exactly the stopping rules the command was given. The
/// builder is handed `Backend::Cuda` on the list's first device; the engine opens every device of the layout.
pub struct MaSplitRun<'a, P: ?Sized>(std::marker::PhantomData<&'a P>);

const NAME: &str = "evo run --split dimension";

impl<'a, P: SeparableProblem + ?Sized> RunAlgorithm for MaSplitRun<'a, P> {
    const NAME: &'static str = NAME;
    type Params = MaParams;
    type Problem = Sliced<'a, P>;
    type Solution = Vec<f32>;
    type CpuEngine = MaDimensionSplit<'a, P>;
    type CudaEngine = MaDimensionSplit<'a, P>;

    fn gpu_presence() -> evo_core::Result<GpuPresence> {
        GpuPresence::from_device_count(evo_gpu_runtime::device_count())
    }

    fn problem_name(problem: &Self::Problem) -> String {
        problem.problem.name().to_string()
    }

    fn problem_metadata(problem: &Self::Problem) -> Vec<(&'static str, String)> {
        let per_gpu: Vec<String> = problem
            .layout
            .slices_per_gpu()
            .into_iter()
            .map(|(gpu, slices)| format!("cuda:{gpu}={slices}"))
            .collect();
        vec![
            ("dimension", problem.problem.dimension().to_string()),
            ("slices_per_gpu", per_gpu.join(",")),
            ("split_block", problem.layout.block().to_string()),
        ]
    }

    /// Never asked for: [`run`] hands the builder a CUDA backend.
    fn cpu_engine(
        _params: MaParams,
        _problem: Self::Problem,
        _seed: u64,
        backend: Backend,
    ) -> evo_core::Result<Self::CpuEngine> {
        Err(Error::invalid_parameter(
            NAME,
            "backend",
            backend,
            "the CUDA devices of --gpus",
        ))
    }

    fn cuda_engine(
        params: MaParams,
        problem: Self::Problem,
        seed: u64,
        device: usize,
    ) -> evo_core::Result<OnDevice<Self::CudaEngine>> {
        let engine = MaDimensionSplit::new(params, problem.problem, seed, &problem.layout)?;
        let name = Gpu::open(device)?.info().name.clone();
        Ok(OnDevice::new(engine, name).with_profile("exact"))
    }
}

/// Runs the split of `config` on `problem` and records the layout and why it runs where it does.
///
/// # Errors
/// A problem the split does not take (CEC 2010, knapsack and the other non-continuous problems), a layout the
/// dimension does not allow, GPU and engine errors.
pub fn run(
    config: &SplitConfig,
    params: MaParams,
    problem: Problem,
    session: &Session<'_>,
) -> Result<Report<Value>> {
    match problem {
        Problem::Rastrigin(problem) => on(config, params, &problem, session),
        Problem::Shifted(problem) => on(config, params, &problem, session),
        Problem::GaFunction {
            function,
            variables,
        } => on(
            config,
            params,
            &evo_benchmarks::GaProblem::new(function, variables)?,
            session,
        ),
        _ => bail!(
            "--split dimension runs the fitness of trees over the variables: rastrigin:D, shifted-*:D and \
             ga:fN:n (the split's SeparableProblem); {} is not one",
            session.config.problem
        ),
    }
}

fn on<P: SeparableProblem + ?Sized>(
    config: &SplitConfig,
    params: MaParams,
    problem: &P,
    session: &Session<'_>,
) -> Result<Report<Value>> {
    check_backend(session.config.backend, &config.gpus)?;
    let layout = SliceLayout::even(problem.dimension(), &config.gpus)
        .with_context(|| format!("--split dimension --gpus {}", join(&config.gpus)))?;
    let first = config.gpus[0];
    let builder = RunBuilder::<MaSplitRun<'_, P>>::new(
        params,
        Sliced { problem, layout },
        session.config.seed,
    );
    let mut report = session.launch_on(builder, Backend::cuda(first))?;
    report.metadata.insert(
        "backend".to_string(),
        format!("cuda:{}", join(&config.gpus)),
    );
    report.metadata.insert(
        BACKEND_REASON.to_string(),
        format!(
            "--split dimension --gpus {}: one slice of the variables per entry, on CUDA devices only",
            join(&config.gpus)
        ),
    );
    Ok(report)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_result_counts_the_slices_of_each_gpu() {
        let config = SplitConfig {
            split: Split::Dimension,
            gpus: vec![1, 0, 1],
        };
        let result = SplitResult::new(&config);
        assert_eq!(
            result.slices_per_gpu,
            BTreeMap::from([("cuda:0".to_string(), 1), ("cuda:1".to_string(), 2)])
        );
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            serde_json::json!({"split": "dimension", "gpus": [1, 0, 1], "slices_per_gpu": {"cuda:0": 1, "cuda:1": 2}})
        );
    }

    #[test]
    fn the_backend_must_be_auto_or_a_device_of_the_list() {
        assert!(check_backend(Backend::Auto, &[0, 1]).is_ok());
        assert!(check_backend(Backend::cuda(1), &[0, 1]).is_ok());
        let other = check_backend(Backend::cuda(2), &[0, 1])
            .unwrap_err()
            .to_string();
        assert!(
            other.contains("cuda:2 names a device that --gpus 0,1 lacks"),
            "{other}"
        );
        let cpu = check_backend(Backend::cpu(), &[0]).unwrap_err().to_string();
        assert!(cpu.contains("runs on CUDA GPUs only"), "{cpu}");
    }

    #[test]
    fn the_run_file_keeps_the_split() {
        let config = SplitConfig {
            split: Split::Dimension,
            gpus: vec![0, 0],
        };
        let text = serde_json::to_string(&config).unwrap();
        assert_eq!(text, r#"{"split":"dimension","gpus":[0,0]}"#);
        assert_eq!(serde_json::from_str::<SplitConfig>(&text).unwrap(), config);
    }
}
