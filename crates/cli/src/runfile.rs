//! The run's resolved configuration: what `evo run` decided, saved next to the checkpoint as
//! `<checkpoint>.run.json` so that `evo resume` rebuilds the same engine.
//!
//! The file is a convenience, not a trust anchor: the checkpoint's own fingerprint (seed, parameters,
//! problem) is checked on resume, so an edited run file that describes another run is refused.

use anyhow::{Context, Result, bail};
use evo_core::{Backend, Termination};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::algorithm::Algorithm;
use crate::args::BudgetArgs;
use crate::islands::IslandConfig;
use crate::split::SplitConfig;

/// The file format version of the run file.
pub const RUN_FILE_VERSION: u32 = 1;

/// Everything that identifies and drives a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The run file's format version.
    pub version: u32,
    /// The evo-cli version that wrote it.
    pub evo_version: String,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The problem spec, with any file replaced by the absolute path that was found.
    pub problem: String,
    /// The validated parameters, keyed as the crate's params type.
    pub params: Value,
    /// The seed.
    pub seed: u64,
    /// The backend as requested (`auto` stays `auto`; result.json records what it resolved to).
    pub backend: Backend,
    /// The stopping rules.
    pub budget: Budget,
    /// Where and how often checkpoints are written.
    pub checkpoint: Option<CheckpointConfig>,
    /// The output folder.
    pub out: PathBuf,
    /// Generations between two history points.
    pub history_every: u64,
    /// A `user:` problem's files as they were when the run started ([`crate::user::files_digest`]): the
    /// checkpoint's fingerprint knows the problem by its name and bounds only, so `evo resume` compares
    /// this to refuse a source, manifest or data file edited since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_files: Option<String>,
    /// The island model (`evo run --islands K`); none for a run of one engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub islands: Option<IslandConfig>,
    /// The dimension split (`evo run --split dimension --gpus LIST`); none for an unsplit run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitConfig>,
}

/// The stopping rules of a run; at least one is set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Generations.
    pub generations: Option<u64>,
    /// Objective evaluations.
    pub evaluations: Option<u64>,
    /// Wall-time seconds.
    pub seconds: Option<f64>,
    /// Target fitness.
    pub target: Option<f64>,
}

/// The checkpoint file and its cadence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointConfig {
    /// The checkpoint file (absolute).
    pub path: PathBuf,
    /// Generations between two checkpoints.
    pub every: u64,
}

impl Budget {
    /// The rules given on the command line.
    pub fn from_args(args: &BudgetArgs) -> Self {
        Self {
            generations: args.generations,
            evaluations: args.evaluations,
            seconds: args.seconds,
            target: args.target,
        }
    }

    /// Whether no rule is set.
    pub fn is_empty(&self) -> bool {
        self.generations.is_none()
            && self.evaluations.is_none()
            && self.seconds.is_none()
            && self.target.is_none()
    }

    /// The executor's termination: these rules and Ctrl-C.
    ///
    /// # Errors
    /// A negative or non-finite number of seconds, a non-finite target, or no rule.
    pub fn termination(&self) -> Result<Termination> {
        let mut termination = Termination::new().with_ctrl_c(true);
        if let Some(generations) = self.generations {
            termination = termination.with_max_generations(generations);
        }
        if let Some(evaluations) = self.evaluations {
            termination = termination.with_max_evaluations(evaluations);
        }
        if let Some(seconds) = self.seconds {
            let duration = Duration::try_from_secs_f64(seconds)
                .ok()
                .filter(|d| !d.is_zero());
            let Some(duration) = duration else {
                bail!(
                    "--seconds {seconds} is not allowed; expected a finite number of seconds above 0"
                );
            };
            termination = termination.with_max_wall_time(duration)?;
        }
        if let Some(target) = self.target {
            termination = termination
                .with_target_fitness(target)
                .context("--target")?;
        }
        termination.validate()?;
        Ok(termination)
    }
}

/// The run file of a checkpoint: `<checkpoint>.run.json`.
pub fn path_for(checkpoint: &Path) -> PathBuf {
    let mut name = checkpoint.as_os_str().to_owned();
    name.push(".run.json");
    PathBuf::from(name)
}

impl RunConfig {
    /// Writes the run file next to `checkpoint` (atomically: a temporary file renamed over it).
    pub fn save(&self, checkpoint: &Path) -> Result<()> {
        let path = path_for(checkpoint);
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(format!(".tmp{}", std::process::id()));
        let temporary = PathBuf::from(temporary);
        std::fs::write(&temporary, text)
            .with_context(|| format!("cannot write the run file {}", temporary.display()))?;
        std::fs::rename(&temporary, &path)
            .with_context(|| format!("cannot write the run file {}", path.display()))?;
        Ok(())
    }

    /// Reads the run file of `checkpoint`.
    pub fn load(checkpoint: &Path) -> Result<Self> {
        let path = path_for(checkpoint);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "cannot read the run file {} that `evo run --checkpoint` writes next to the checkpoint",
                path.display()
            )
        })?;
        let config: Self = serde_json::from_str(&text)
            .with_context(|| format!("the run file {} is not valid", path.display()))?;
        if config.version != RUN_FILE_VERSION {
            bail!(
                "the run file {} has format version {}; this evo reads version {RUN_FILE_VERSION}",
                path.display(),
                config.version
            );
        }
        Ok(config)
    }
}
