//! `evo run --islands K`: the run as evo-distributed's island model of `K` islands of DE, GA or
//! MA-SW-Chains, placed on CPU pools or the listed GPUs, and with the `mpi` feature spread over the ranks of
//! `mpiexec`. The island keys (`islands`, `migration_interval`, `migrants`) are evo-distributed's
//! `IslandParams` names, in `--set`/`--config` as on the command line.
//!
//! Under `mpiexec` the ranks of a machine divide the GPUs (evo-distributed's `RankShare`): `--gpus LIST`
//! is split among them (one device each when there are as many ranks as devices), a CUDA `--backend`
//! without `--gpus`/`--placement` gives node-local rank `l` the device `l` after the backend's, and
//! `--placement` is used whole by every rank. In one process each gives the placement itself.

use anyhow::{Context, Result, anyhow, bail};
use evo_core::Backend;
use evo_distributed::{IslandParams, NodeRank, Placement, RankPlacement, RankShare};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::algorithm::Algorithm;
use crate::args::IslandArgs;
use crate::params::AlgorithmParams;

/// The island model's keys among a run's parameters (`--set islands=4`, or in the `--config` file).
pub const KEYS: [&str; 3] = ["islands", "migration_interval", "migrants"];

/// The island model of a run as `evo run` resolved it; saved in the run file, so `evo resume` rebuilds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IslandConfig {
    /// The island count `K`.
    pub islands: usize,
    /// Generations (MA-SW-Chains: memetic cycles) between two migrations.
    pub migration_interval: u64,
    /// Individuals each island sends along the ring at a migration.
    pub migrants: usize,
    /// Where the islands run, in evo-distributed's placement syntax (`cpu:0`, `cuda:0,cuda:1`).
    pub placement: String,
    /// How the ranks of a machine divide the placement under `mpiexec` (`same`, `local-gpu`, `split`);
    /// absent in run files written before it existed, which meant `same`.
    #[serde(default)]
    pub share: RankShare,
}

/// Reads a whole number given to an island key.
fn whole(key: &str, value: &Value) -> Result<u64> {
    value.as_u64().ok_or_else(|| {
        anyhow!("parameter `{key}`: expected a whole number at least 1, got {value}")
    })
}

/// The island model of `evo run`: `None` without `islands` (flag or key); the flags override the keys
/// from `--set` and `--config` (`keys`).
///
/// # Errors
/// An island option without `islands`, an algorithm without an island model, a value out of range (the
/// message names the key and the allowed range), a malformed `--gpus` or `--placement`.
pub fn resolve(
    algorithm: Algorithm,
    args: &IslandArgs,
    keys: &Map<String, Value>,
    params: &AlgorithmParams,
    backend: Backend,
) -> Result<Option<IslandConfig>> {
    let key = |name: &str| keys.get(name).map(|value| whole(name, value)).transpose();
    let islands = args.islands.map(|k| k as u64).or(key("islands")?);
    let interval = args.migration_interval.or(key("migration_interval")?);
    let migrants = args.migrants.map(|k| k as u64).or(key("migrants")?);
    let Some(islands) = islands else {
        if interval.is_some()
            || migrants.is_some()
            || args.gpus.is_some()
            || args.placement.is_some()
        {
            bail!(
                "--migration-interval, --migrants, --gpus and --placement (and the keys \
                 migration_interval, migrants) configure an island model: give --islands K as well (or --split dimension, whose slices --gpus \
                 lists)"
            );
        }
        return Ok(None);
    };
    let population = match params {
        AlgorithmParams::De(p) => p.population(),
        AlgorithmParams::Ga(p) => p.population(),
        AlgorithmParams::Ma(p) => p.population(),
        _ => bail!(
            "--islands runs de, ga and ma-sw-chains; {algorithm} has no island model (evo-distributed)"
        ),
    };
    let size = |name: &str, value: u64| {
        usize::try_from(value).map_err(|_| anyhow!("parameter `{name}`: {value} is too large"))
    };
    let mut model = IslandParams::default()
        .with_islands(size("islands", islands)?)
        .context("parameter `islands` (--islands)")?;
    if let Some(interval) = interval {
        model = model
            .with_migration_interval(interval)
            .context("parameter `migration_interval` (--migration-interval)")?;
    }
    if let Some(migrants) = migrants {
        model = model
            .with_migrants(size("migrants", migrants)?)
            .context("parameter `migrants` (--migrants)")?;
    }
    model
        .check_population(population)
        .context("parameter `migrants` (--migrants)")?;
    let (placement, share) = match (&args.gpus, &args.placement) {
        (Some(gpus), _) => (gpu_placement(gpus)?, RankShare::Split),
        (None, Some(text)) => (
            text.parse::<Placement>()
                .with_context(|| format!("--placement {text}"))?,
            RankShare::Same,
        ),
        (None, None) => backend_placement(backend)?,
    };
    let config = IslandConfig {
        islands: model.islands(),
        migration_interval: model.migration_interval(),
        migrants: model.migrants(),
        placement: placement.to_string(),
        share,
    };
    config.placement(NodeRank::alone())?;
    Ok(Some(config))
}

/// `--gpus 0,1,3`: one placement entry per device.
fn gpu_placement(gpus: &str) -> Result<Placement> {
    let devices: Vec<usize> = gpus
        .split(',')
        .map(|device| device.trim().parse::<usize>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| {
            anyhow!(
                "--gpus {gpus}: expected CUDA device numbers separated by commas (e.g. 0,1,2,3; `evo \
                 devices` lists them)"
            )
        })?;
    Placement::new(devices.into_iter().map(|device| Backend::Cuda { device }))
        .with_context(|| format!("--gpus {gpus}"))
}

/// The islands' placement when neither `--gpus` nor `--placement` is given, and how ranks share it: the
/// `--backend`, where `auto` is the CPU's cores (islands go to GPUs only where the command names them);
/// a CUDA backend is each rank's own GPU under `mpiexec` (`local-gpu`), a CPU backend every rank's.
pub fn backend_placement(backend: Backend) -> Result<(Placement, RankShare)> {
    let (backend, share) = match backend {
        Backend::Auto => (Backend::Cpu { threads: 0 }, RankShare::Same),
        cuda @ Backend::Cuda { .. } => (cuda, RankShare::LocalGpu),
        cpu @ Backend::Cpu { .. } => (cpu, RankShare::Same),
    };
    let placement = Placement::new([backend]).with_context(|| format!("--backend {backend}"))?;
    Ok((placement, share))
}

impl IslandConfig {
    /// evo-distributed's parameters.
    ///
    /// # Errors
    /// A value out of range (an edited run file), naming its key.
    pub fn params(&self) -> Result<IslandParams> {
        IslandParams::default()
            .with_islands(self.islands)
            .context("parameter `islands`")?
            .with_migration_interval(self.migration_interval)
            .context("parameter `migration_interval`")?
            .with_migrants(self.migrants)
            .context("parameter `migrants`")
    }

    /// The placement of node-local rank `node` ([`NodeRank::alone`] in one process, which gets the whole
    /// placement), with every CUDA device it names checked to exist: the islands never fall back to the
    /// CPU.
    ///
    /// # Errors
    /// A malformed placement, more placement entries than islands, a CUDA device that is not there, a
    /// share that does not fit the placement or the node (more ranks on the node than GPUs for one GPU
    /// each).
    pub fn placement(&self, node: NodeRank) -> Result<Placement> {
        let placement: Placement = self
            .placement
            .parse()
            .with_context(|| format!("placement {}", self.placement))?;
        if placement.len() > self.islands {
            bail!(
                "placement {}: {} entries for {} islands; give at most as many entries (--gpus, \
                 --placement) as islands (--islands)",
                self.placement,
                placement.len(),
                self.islands
            );
        }
        let wanted = placement
            .backends()
            .iter()
            .filter_map(|backend| match backend {
                Backend::Cuda { device } => Some(*device),
                _ => None,
            });
        let mut devices = 0;
        if let Some(highest) = wanted.max() {
            let found = evo_gpu_runtime::device_count().map_err(|error| {
                anyhow!(
                    "placement {} names CUDA device {highest}, but no CUDA device is usable ({error}); the \
                     islands do not fall back to the CPU: run them there with --placement cpu:N",
                    self.placement
                )
            })?;
            if highest >= found {
                bail!(
                    "placement {} names CUDA device {highest}, but this machine has {found} CUDA device(s) \
                     (`evo devices` lists them); the islands do not fall back to the CPU: run them there \
                     with --placement cpu:N",
                    self.placement
                );
            }
            devices = found;
        }
        let share = self.share;
        RankPlacement::new(placement, share)
            .and_then(|shared| shared.for_rank(node, devices))
            .with_context(|| {
                format!(
                    "placement {} shared as `{share}` by node-local rank {} of {} (--gpus splits its list \
                     among a machine's ranks, a CUDA --backend gives each rank its own GPU, --placement is \
                     every rank's)",
                    self.placement,
                    node.local_rank(),
                    node.local_size()
                )
            })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn args(islands: Option<usize>) -> IslandArgs {
        IslandArgs {
            islands,
            ..IslandArgs::default()
        }
    }

    fn de() -> AlgorithmParams {
        AlgorithmParams::De(evo_de::DeParams::default().with_population(16).unwrap())
    }

    fn refused(args: &IslandArgs, keys: &Map<String, Value>) -> String {
        let error = resolve(Algorithm::De, args, keys, &de(), Backend::Auto).unwrap_err();
        format!("{error:#}")
    }

    #[test]
    fn the_keys_give_the_model_and_the_flags_override_them() {
        let mut keys = Map::new();
        keys.insert("islands".into(), Value::from(3));
        keys.insert("migrants".into(), Value::from(2));
        let from_keys = resolve(Algorithm::De, &args(None), &keys, &de(), Backend::Auto)
            .unwrap()
            .unwrap();
        assert_eq!(
            (
                from_keys.islands,
                from_keys.migration_interval,
                from_keys.migrants
            ),
            (3, 25, 2)
        );
        assert_eq!(from_keys.placement, "cpu");
        assert_eq!(from_keys.share, RankShare::Same);
        let flags = IslandArgs {
            islands: Some(5),
            migration_interval: Some(7),
            placement: Some("cpu:1,cpu:2".into()),
            ..IslandArgs::default()
        };
        let config = resolve(Algorithm::De, &flags, &keys, &de(), Backend::Auto)
            .unwrap()
            .unwrap();
        assert_eq!(
            (config.islands, config.migration_interval, config.migrants),
            (5, 7, 2)
        );
        assert_eq!(config.placement, "cpu:1,cpu:2");
        assert!(
            resolve(
                Algorithm::De,
                &args(None),
                &Map::new(),
                &de(),
                Backend::Auto
            )
            .unwrap()
            .is_none()
        );
    }

    #[test]
    fn values_out_of_range_name_the_key_and_the_range() {
        let text = refused(&args(Some(0)), &Map::new());
        assert!(text.contains("parameter `islands` (--islands)"), "{text}");
        assert!(text.contains("must be at least 1, got 0"), "{text}");
        let zero_interval = IslandArgs {
            migration_interval: Some(0),
            ..args(Some(2))
        };
        let text = refused(&zero_interval, &Map::new());
        assert!(text.contains("parameter `migration_interval`"), "{text}");
        let many = IslandArgs {
            migrants: Some(9),
            ..args(Some(2))
        };
        let text = refused(&many, &Map::new());
        assert!(text.contains("parameter `migrants` (--migrants)"), "{text}");
        assert!(text.contains("at most 8, got 9"), "{text}");
        let mut keys = Map::new();
        keys.insert("islands".into(), Value::from(-2));
        let text = refused(&args(None), &keys);
        assert!(
            text.contains("parameter `islands`: expected a whole number"),
            "{text}"
        );
    }

    #[test]
    fn island_options_need_islands_and_an_algorithm_with_islands() {
        let gpus = IslandArgs {
            gpus: Some("0".into()),
            ..IslandArgs::default()
        };
        assert!(refused(&gpus, &Map::new()).contains("give --islands K"));
        let qiga = AlgorithmParams::Qiga(evo_qiga::QigaParams::default());
        let error = resolve(
            Algorithm::Qiga,
            &args(Some(2)),
            &Map::new(),
            &qiga,
            Backend::Auto,
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("qiga has no island model"),
            "{error}"
        );
    }

    #[test]
    fn each_source_of_the_placement_says_how_ranks_share_it() {
        let placed = IslandArgs {
            placement: Some("cpu:1,cpu:1".into()),
            ..args(Some(2))
        };
        let config = resolve(Algorithm::De, &placed, &Map::new(), &de(), Backend::Auto)
            .unwrap()
            .unwrap();
        assert_eq!(config.share, RankShare::Same);
        // Every rank of a machine runs a CPU placement whole.
        let rank2 = config.placement(NodeRank::new(2, 3).unwrap()).unwrap();
        assert_eq!(rank2.to_string(), "cpu:1,cpu:1");
        let (cuda, share) = backend_placement(Backend::Cuda { device: 1 }).unwrap();
        assert_eq!(
            (cuda.to_string(), share),
            ("cuda:1".into(), RankShare::LocalGpu)
        );
        let (cpu, share) = backend_placement(Backend::Auto).unwrap();
        assert_eq!((cpu.to_string(), share), ("cpu".into(), RankShare::Same));
        assert_eq!(
            backend_placement(Backend::cpu()).unwrap().1,
            RankShare::Same
        );
        // A run file written before the share existed meant every rank's placement whole.
        let old: IslandConfig = serde_json::from_value(serde_json::json!({
            "islands": 2, "migration_interval": 5, "migrants": 1, "placement": "cpu:1"
        }))
        .unwrap();
        assert_eq!(old.share, RankShare::Same);
        let split_cpu = IslandConfig {
            share: RankShare::Split,
            ..old
        };
        let text = format!("{:#}", split_cpu.placement(NodeRank::alone()).unwrap_err());
        assert!(
            text.contains("shared as `split` by node-local rank 0 of 1"),
            "{text}"
        );
        assert!(text.contains("CUDA devices only"), "{text}");
    }

    #[test]
    fn malformed_gpus_and_placements_are_refused() {
        let bad = IslandArgs {
            gpus: Some("0,x".into()),
            ..args(Some(2))
        };
        assert!(refused(&bad, &Map::new()).contains("--gpus 0,x: expected CUDA device numbers"));
        let twice = IslandArgs {
            gpus: Some("0,0".into()),
            ..args(Some(2))
        };
        assert!(refused(&twice, &Map::new()).contains("listed twice"));
        let wide = IslandArgs {
            placement: Some("cpu:1,cpu:1,cpu:1".into()),
            ..args(Some(2))
        };
        assert!(refused(&wide, &Map::new()).contains("3 entries for 2 islands"));
    }
}
