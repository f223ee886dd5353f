//! `evo run --islands K`: the run as evo-distributed's island model of `K` islands of DE, GA or
//! MA-SW-Chains, placed on CPU pools or the listed GPUs, and with the `mpi` feature spread over the ranks of
//! `mpiexec`. The island keys (`islands`, `migration_interval`, `migrants`) are evo-distributed's
//! `IslandParams` names, in `--set`/`--config` as on the command line.

use anyhow::{Context, Result, anyhow, bail};
use evo_core::Backend;
use evo_distributed::{IslandParams, Placement};
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
                 migration_interval, migrants) configure an island model: give --islands K as well"
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
    let placement = match (&args.gpus, &args.placement) {
        (Some(gpus), _) => gpu_placement(gpus)?,
        (None, Some(text)) => text
            .parse::<Placement>()
            .with_context(|| format!("--placement {text}"))?,
        (None, None) => backend_placement(backend)?,
    };
    let config = IslandConfig {
        islands: model.islands(),
        migration_interval: model.migration_interval(),
        migrants: model.migrants(),
        placement: placement.to_string(),
    };
    config.placement()?;
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

/// The islands' placement when neither `--gpus` nor `--placement` is given: the `--backend`, where `auto`
/// is the CPU's cores (islands go to GPUs only where the command names them).
pub fn backend_placement(backend: Backend) -> Result<Placement> {
    let backend = match backend {
        Backend::Auto => Backend::Cpu { threads: 0 },
        other => other,
    };
    Placement::new([backend]).with_context(|| format!("--backend {backend}"))
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

    /// The placement, with every CUDA device it names checked to exist: the islands never fall back to
    /// the CPU.
    ///
    /// # Errors
    /// A malformed placement, more placement entries than islands, a CUDA device that is not there.
    pub fn placement(&self) -> Result<Placement> {
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
        }
        Ok(placement)
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
