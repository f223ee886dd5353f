//! A parsed spec turned into a problem value: instances built, files found and read.

use anyhow::{Context, Result, bail};
use evo_benchmarks::scheduling::DEFAULT_LAMBDA;
use evo_benchmarks::shifted::ShiftedProblem;
use evo_benchmarks::{
    Cec2006Problem, Cec2010Problem, DeRastrigin, EtcInstance, EtcProblem, GaFunction, Knapsack,
};
use std::path::{Path, PathBuf};

use crate::algorithm::Algorithm;
use crate::spec::ProblemSpec;
use crate::user::UserSource;

/// A built-in problem, ready for an engine.
pub enum Problem {
    /// `rastrigin:D`.
    Rastrigin(DeRastrigin),
    /// `shifted-*:D`.
    Shifted(ShiftedProblem),
    /// `cec2010:fN:D`.
    Cec2010(Box<Cec2010Problem>),
    /// `cec2006:gNN`.
    Cec2006(Cec2006Problem),
    /// `ga:fN:n`: built as the binary or the continuous form by the algorithm that runs it.
    GaFunction {
        /// The function.
        function: GaFunction,
        /// Its variables.
        variables: usize,
    },
    /// `knapsack:FILE`.
    Knapsack(Knapsack),
    /// `etc:FILE`.
    Etc(Box<EtcProblem>),
    /// `user:MANIFEST.toml`.
    User(Box<UserSource>),
}

/// The spec with its file, if any, replaced by the file that was found (so a resumed run reads the same file
/// from any folder).
pub fn resolve_paths(spec: &ProblemSpec) -> Result<ProblemSpec> {
    Ok(match spec {
        ProblemSpec::Knapsack { path } => ProblemSpec::Knapsack {
            path: find_file(spec, path)?,
        },
        ProblemSpec::Etc { path } => ProblemSpec::Etc {
            path: find_file(spec, path)?,
        },
        ProblemSpec::User { path } => ProblemSpec::User {
            path: find_file(spec, path)?,
        },
        other => other.clone(),
    })
}

/// `path` as given when it exists; a relative path that does not is looked up in the benchmark data folder.
fn find_file(spec: &ProblemSpec, path: &Path) -> Result<PathBuf> {
    if path.is_file() {
        return absolute(path);
    }
    let data_dir = evo_benchmarks::data::shared_data_dir();
    if path.is_relative()
        && let Some(dir) = &data_dir
    {
        let candidate = dir.join(path);
        if candidate.is_file() {
            return absolute(&candidate);
        }
    }
    let looked = match (&data_dir, path.is_relative()) {
        (Some(dir), true) => format!("{} and {}", path.display(), dir.join(path).display()),
        _ => path.display().to_string(),
    };
    bail!(
        "problem `{spec}`: no such file (looked for {looked}; relative paths are also looked up in \
         $EVO_DATA_DIR)"
    )
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot make {} absolute", path.display()))
}

/// Checks that `algorithm` runs problems of this spec's kind.
pub fn check_accepted(algorithm: Algorithm, spec: &ProblemSpec) -> Result<()> {
    let kind = spec.kind();
    if algorithm.accepts().contains(&kind) {
        return Ok(());
    }
    let allowed: Vec<&str> = algorithm
        .accepts()
        .iter()
        .map(|kind| kind.syntax())
        .collect();
    bail!(
        "{algorithm} does not run `{spec}` ({}); {algorithm} accepts {}",
        kind.syntax(),
        allowed.join(", ")
    )
}

/// Builds the problem of `spec` (files read, instances generated).
pub fn load(spec: &ProblemSpec) -> Result<Problem> {
    let context = || format!("problem `{spec}`");
    Ok(match spec {
        ProblemSpec::Rastrigin { dimension } => {
            Problem::Rastrigin(DeRastrigin::new(*dimension).with_context(context)?)
        }
        ProblemSpec::Shifted {
            function,
            dimension,
        } => Problem::Shifted(ShiftedProblem::new(*function, *dimension).with_context(context)?),
        ProblemSpec::Cec2010 { number, dimension } => Problem::Cec2010(Box::new(
            Cec2010Problem::new(*number, *dimension).with_context(context)?,
        )),
        ProblemSpec::Cec2006 { number } => {
            Problem::Cec2006(Cec2006Problem::new(*number).with_context(context)?)
        }
        ProblemSpec::GaFunction {
            function,
            variables,
        } => Problem::GaFunction {
            function: *function,
            variables: *variables,
        },
        ProblemSpec::Knapsack { path } => {
            Problem::Knapsack(Knapsack::from_file(path).with_context(context)?)
        }
        ProblemSpec::Etc { path } => {
            let instance = EtcInstance::from_file(path).with_context(context)?;
            Problem::Etc(Box::new(
                EtcProblem::new(instance, DEFAULT_LAMBDA).with_context(context)?,
            ))
        }
        ProblemSpec::User { path } => {
            Problem::User(Box::new(UserSource::load(path, &spec.to_string())?))
        }
    })
}

/// Checks that `algorithm` runs a `user:` problem of `source`'s kind.
pub fn check_user_kind(algorithm: Algorithm, spec: &str, source: &UserSource) -> Result<()> {
    let kind = source.kind();
    match algorithm.user_kind() {
        Some(runs) if runs == kind => Ok(()),
        runs => {
            let runs = runs.map_or("no user problems".to_string(), |runs| {
                format!("user problems of kind \"{}\"", runs.name())
            });
            bail!(
                "{algorithm} does not run `{spec}`, a problem of kind \"{}\"; {algorithm} runs {runs} \
                 (real: de, ma-sw-chains; bits: ga; constrained: dpga)",
                kind.name()
            )
        }
    }
}
