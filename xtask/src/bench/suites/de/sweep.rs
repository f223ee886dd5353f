//! Opt-in configuration sweep of Table 1: many configurations compared in one call, each cell run the way
//! the suite runs its own Table 1 cells ([`run_once`]: same seed, `step_many` batches on the GPU) for
//! [`SWEEP_BUDGET`], its best fitness after 1 s set beside the paper's GPU value after 30 s.
//!
//! - `EVO_DE_TABLE1_CONFIGS`: configurations separated by `;`, each in [`DeConfig`]'s form
//!   `strategy/F/CR/crossover/adaptation[+eq]` (e.g. `rand1/0.5/0.005/bin/fixed;best1/0.3/0.01/exp/jde`), or
//!   `default` for the suite's own per-population configuration ([`table1_params`]). Set, the sweep replaces
//!   the default Table 1 and Min-Min tables; Table 2 and the timing tables run as usual. A configuration
//!   ending in `+ls<period>x<moves>` (after `+eq` if any) also runs the opt-in local search of the best
//!   schedule every `period` generations with at most `moves` moves ([`evo_de::LocalSearch`], an extension
//!   beyond the paper), e.g. `default;rand1/0.1/0.01/bin/fixed+ls500x64`; its rows and table lines carry the
//!   suffix and say "local search on". `+ls<period>x<moves>all` searches every vector's schedule instead of
//!   the best one's ([`evo_de::Scope::All`]; on the GPU one block per vector in one launch), e.g.
//!   `default+ls500x64all`. `+ls<period>x<moves>k<kicks>x<kick moves>` adds kicks to the search of the best
//!   (an iterated local search: `kicks` perturbed restarts of `kick moves` random task moves each, the best
//!   candidate kept; [`LocalSearch::with_kicks`]; on the GPU one block per kick), e.g.
//!   `default+ls500x64k32x4`. `default+ls<period>x<moves>[…]` is the suite's own configuration with the
//!   local search.
//! - `EVO_DE_TABLE1_POPULATIONS`: a `,`-separated subset of 64, 512, 1024 (default all three).
//! - `EVO_DE_TABLE1_INSTANCES`: a `,`-separated subset of the instance files, e.g. `u_c_hihi.0,u_s_lolo.0`
//!   (default all twelve); it also selects the rows of the suite's own Table 1 ([`chosen_instances`]; three
//!   by default with `--quick`), so that the full-mode table (30 s per cell) can be split over calls or GPUs.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use evo_benchmarks::scheduling::{EtcInstance, EtcProblem};
use evo_de::{DeConfig, DeParams, LocalSearch, Scope};
use statrs::statistics::Statistics;

use super::{INSTANCES, Instance, POPULATIONS, SEED, fitness_row, run_once, table1_params};
use crate::bench::{BenchContext, SuiteResult};

/// The variable holding the configurations.
const CONFIGS_VAR: &str = "EVO_DE_TABLE1_CONFIGS";
/// The variable holding the populations.
const POPULATIONS_VAR: &str = "EVO_DE_TABLE1_POPULATIONS";
/// The variable holding the instance files.
const INSTANCES_VAR: &str = "EVO_DE_TABLE1_INSTANCES";
/// The word naming the suite's own configuration.
const DEFAULT_CONFIG: &str = "default";

/// Each cell's wall time: the target compares the best after 1 s, in quick and full mode alike.
const SWEEP_BUDGET: Duration = Duration::from_secs(1);

/// One configuration of the sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SweepConfig {
    /// The suite's own, which depends on the population ([`table1_params`]), with the local search of a
    /// `default+ls…` item.
    Table1(Option<LocalSearch>),
    /// A configuration given as text.
    Given(DeConfig),
}

impl SweepConfig {
    /// The configuration of one item of the list.
    fn parse(text: &str) -> anyhow::Result<Self> {
        if text == DEFAULT_CONFIG {
            return Ok(Self::Table1(None));
        }
        if let Some(suffix) = text
            .strip_prefix(DEFAULT_CONFIG)
            .filter(|s| s.starts_with("+ls"))
        {
            // The local search suffix, read by DeConfig's parser on any valid configuration.
            let config: DeConfig = format!("rand1/0.5/0.5/bin/fixed{suffix}")
                .parse()
                .with_context(|| format!("{CONFIGS_VAR}: `{text}`"))?;
            return Ok(Self::Table1(config.local_search()));
        }
        text.parse()
            .map(Self::Given)
            .with_context(|| format!("{CONFIGS_VAR}: `{text}`"))
    }

    /// The parameters at `population`.
    fn params(&self, population: usize) -> anyhow::Result<DeParams> {
        match self {
            Self::Table1(_) => table1_params(population),
            Self::Given(config) => Ok(config.params(population)?),
        }
    }

    /// The local search, if on.
    fn local_search(&self) -> Option<LocalSearch> {
        match self {
            Self::Table1(search) => *search,
            Self::Given(config) => config.local_search(),
        }
    }

    /// The name in the tables: `default` or the configuration's text (with its `+ls` suffix).
    fn label(&self) -> String {
        match self {
            Self::Table1(None) => DEFAULT_CONFIG.to_string(),
            Self::Table1(Some(search)) => format!(
                "{DEFAULT_CONFIG}+ls{}x{}{}{}",
                search.period(),
                search.max_moves(),
                if search.kicks() > 0 {
                    format!("k{}x{}", search.kicks(), search.kick_moves())
                } else {
                    String::new()
                },
                match search.scope() {
                    Scope::Best => "",
                    Scope::All => "all",
                }
            ),
            Self::Given(config) => config.to_string(),
        }
    }
}

/// The cells to run: every configuration on every instance at every population.
#[derive(Debug)]
pub(super) struct Sweep {
    configs: Vec<SweepConfig>,
    populations: Vec<usize>,
    instances: Vec<Instance>,
}

/// One cell's outcome.
struct Cell {
    label: String,
    file: &'static str,
    population: usize,
    fitness: f64,
    generations: u64,
    paper_gpu: f64,
}

impl Cell {
    fn ratio(&self) -> f64 {
        self.fitness / self.paper_gpu
    }
}

/// The value of `name`, `None` when unset or blank.
fn variable(name: &str) -> anyhow::Result<Option<String>> {
    match std::env::var(name) {
        Ok(value) if value.trim().is_empty() => Ok(None),
        Ok(value) => Ok(Some(value)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(error) => Err(error).with_context(|| format!("reading {name}")),
    }
}

/// The non-empty trimmed items of `list` split at `separator`.
fn items(list: &str, separator: char) -> impl Iterator<Item = &str> {
    list.split(separator)
        .map(str::trim)
        .filter(|item| !item.is_empty())
}

/// The instances of a quick Table 1 when `EVO_DE_TABLE1_INSTANCES` is unset: one of each consistency
/// (consistent, inconsistent, semi-consistent), each with another task and machine heterogeneity.
const QUICK_INSTANCES: &str = "u_c_hihi.0,u_i_lohi.0,u_s_lolo.0";

/// The instances `EVO_DE_TABLE1_INSTANCES` selects, in the paper's order; when unset or blank all twelve, or
/// [`QUICK_INSTANCES`] in a quick run.
pub(super) fn chosen_instances(quick: bool) -> anyhow::Result<Vec<Instance>> {
    let list = variable(INSTANCES_VAR)?;
    let default = quick.then_some(QUICK_INSTANCES);
    instances_from(list.as_deref().or(default))
}

/// The instances of a `,`-separated list of instance files (`None`: all twelve), in the paper's order,
/// each once; an unknown file or an empty list is an error naming the valid files.
fn instances_from(list: Option<&str>) -> anyhow::Result<Vec<Instance>> {
    let Some(list) = list else {
        return Ok(INSTANCES.to_vec());
    };
    let chosen: Vec<&str> = items(list, ',').collect();
    if let Some(unknown) = chosen
        .iter()
        .find(|file| !INSTANCES.iter().any(|instance| instance.1 == **file))
    {
        anyhow::bail!(
            "{INSTANCES_VAR}: unknown instance `{unknown}`; valid: {}",
            INSTANCES.map(|instance| instance.1).join(", ")
        );
    }
    let instances: Vec<Instance> = INSTANCES
        .into_iter()
        .filter(|instance| chosen.contains(&instance.1))
        .collect();
    anyhow::ensure!(!instances.is_empty(), "{INSTANCES_VAR} names no instance");
    Ok(instances)
}

impl Sweep {
    /// The sweep the environment asks for, `None` when `EVO_DE_TABLE1_CONFIGS` is unset or blank.
    pub(super) fn from_env() -> anyhow::Result<Option<Self>> {
        let Some(configs) = variable(CONFIGS_VAR)? else {
            return Ok(None);
        };
        let populations = variable(POPULATIONS_VAR)?;
        let instances = variable(INSTANCES_VAR)?;
        Self::parse(&configs, populations.as_deref(), instances.as_deref()).map(Some)
    }

    /// The sweep of these variables' values (`None`: every population, every instance).
    fn parse(
        configs: &str,
        populations: Option<&str>,
        instances: Option<&str>,
    ) -> anyhow::Result<Self> {
        let configs = items(configs, ';')
            .map(SweepConfig::parse)
            .collect::<anyhow::Result<Vec<_>>>()?;
        anyhow::ensure!(!configs.is_empty(), "{CONFIGS_VAR} names no configuration");
        let populations = match populations {
            None => POPULATIONS.to_vec(),
            Some(list) => {
                let mut chosen = Vec::new();
                for text in items(list, ',') {
                    let population: usize = text
                        .parse()
                        .with_context(|| format!("{POPULATIONS_VAR}: `{text}` is not a number"))?;
                    anyhow::ensure!(
                        POPULATIONS.contains(&population),
                        "{POPULATIONS_VAR}: {population} is not one of the paper's populations {POPULATIONS:?}"
                    );
                    chosen.push(population);
                }
                // The paper's order, each once.
                POPULATIONS
                    .into_iter()
                    .filter(|p| chosen.contains(p))
                    .collect()
            }
        };
        anyhow::ensure!(
            !populations.is_empty(),
            "{POPULATIONS_VAR} names no population"
        );
        let instances = instances_from(instances)?;
        Ok(Self {
            configs,
            populations,
            instances,
        })
    }

    /// How many cells the sweep runs.
    fn cells(&self) -> usize {
        self.configs.len() * self.populations.len() * self.instances.len()
    }

    /// Runs every cell from the instances in `dir` and adds its rows and tables to `result`.
    pub(super) fn run(
        &self,
        ctx: &BenchContext,
        dir: &Path,
        result: &mut SuiteResult,
    ) -> anyhow::Result<()> {
        let bar = ctx.progress(self.cells() as u64, "de sweep");
        let mut cells = Vec::with_capacity(self.cells());
        for (_, file, paper, _, _) in &self.instances {
            let instance = EtcInstance::from_file(dir.join(file))
                .with_context(|| format!("loading {file}"))?;
            let problem = EtcProblem::new(instance, 0.75)?;
            for &population in &self.populations {
                let k = POPULATIONS
                    .iter()
                    .position(|&p| p == population)
                    .context("populations are the paper's")?;
                let paper_gpu = paper[3 * k + 2];
                for config in &self.configs {
                    let label = config.label();
                    bar.set_message(format!("{label} {file} p{population}"));
                    let params = config.params(population)?;
                    let search = config.local_search();
                    let (outcome, device, backend) =
                        run_once(ctx, params, &problem, None, search, SWEEP_BUDGET)?;
                    let cell = Cell {
                        label,
                        file,
                        population,
                        fitness: outcome.fitness_at(SWEEP_BUDGET.as_secs_f64()),
                        generations: outcome.generations,
                        paper_gpu,
                    };
                    result.rows.push(fitness_row(
                        format!(
                            "sweep {} {file} p{population} fitness after {} s{}",
                            cell.label,
                            SWEEP_BUDGET.as_secs(),
                            match search.map(|s| s.scope()) {
                                Some(Scope::Best) => " (local search on)",
                                Some(Scope::All) => " (local search of every vector on)",
                                None => "",
                            }
                        ),
                        (device, backend),
                        population,
                        &outcome,
                        cell.fitness,
                        paper_gpu,
                    ));
                    cells.push(cell);
                    bar.inc(1);
                }
            }
        }
        bar.finish_and_clear();
        result.notes.push(self.note(&cells));
        Ok(())
    }

    /// The summary per configuration and the table of every cell.
    fn note(&self, cells: &[Cell]) -> String {
        let mut by_config: BTreeMap<&str, Vec<&Cell>> = BTreeMap::new();
        for cell in cells {
            by_config.entry(&cell.label).or_default().push(cell);
        }
        let mut summary = vec![
            "| configuration | cells better than the paper's GPU 30 s | instances better at every population swept | geometric mean ours / paper | worst ours / paper |"
                .to_string(),
            "| --- | --- | --- | --- | --- |".to_string(),
        ];
        for config in &self.configs {
            let label = config.label();
            let Some(mine) = by_config.get(label.as_str()) else {
                continue;
            };
            let better = mine.iter().filter(|cell| cell.ratio() < 1.0).count();
            let instances_better = self
                .instances
                .iter()
                .filter(|instance| {
                    mine.iter()
                        .filter(|cell| cell.file == instance.1)
                        .all(|cell| cell.ratio() < 1.0)
                })
                .count();
            let mean = mine.iter().map(|cell| cell.ratio()).geometric_mean();
            let worst = mine
                .iter()
                .max_by(|a, b| a.ratio().total_cmp(&b.ratio()))
                .map_or(String::new(), |cell| {
                    format!("{:.3} ({} p{})", cell.ratio(), cell.file, cell.population)
                });
            summary.push(format!(
                "| {label} | {better} of {} | {instances_better} of {} | {mean:.4} | {worst} |",
                mine.len(),
                self.instances.len()
            ));
        }
        let mut table = vec![
            "| configuration | ETC | pop | ours 1 s | generations | paper GPU 30 s | ours / paper |"
                .to_string(),
            "| --- | --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        for mine in by_config.values() {
            for cell in mine {
                table.push(format!(
                    "| {} | {} | {} | {:.2} | {} | {} | {:.3}{} |",
                    cell.label,
                    cell.file,
                    cell.population,
                    cell.fitness,
                    cell.generations,
                    cell.paper_gpu,
                    cell.ratio(),
                    if cell.ratio() < 1.0 { " (better)" } else { "" }
                ));
            }
        }
        format!(
            "Table 1 configuration sweep ({CONFIGS_VAR}; one run per cell, seed {SEED}, random initial \
             population, λ = 0.75, budget {} s, the best fitness read at the last check within 1 s; \
             `default` is the suite's own configuration per population; a `+ls<period>x<moves>` suffix: local \
             search on, the best schedule improved every `period` generations, an extension beyond the \
             paper; `+ls<period>x<moves>all`: every vector's schedule): {} configuration(s) × {} \
             instance(s) × populations {:?} = {} cells. A ratio below 1 beats the paper's GPU value after 30 s.\n\n{}\n\n{}",
            SWEEP_BUDGET.as_secs(),
            self.configs.len(),
            self.instances.len(),
            self.populations,
            cells.len(),
            summary.join("\n"),
            table.join("\n")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweep of `configs` over every population and instance, and its configurations' labels.
    fn sweep_and_labels(configs: &str) -> (Sweep, Vec<String>) {
        let sweep = Sweep::parse(configs, None, None).expect("valid sweep");
        let labels = sweep.configs.iter().map(SweepConfig::label).collect();
        (sweep, labels)
    }

    #[test]
    fn configurations_are_split_at_semicolons_and_default_is_the_suites() {
        let (sweep, labels) =
            sweep_and_labels(" rand1/0.5/0.005/bin/fixed ; default;best1/0.3/0.01/exp/jde+eq;");
        assert_eq!(
            labels,
            [
                "rand1/0.5/0.005/bin/fixed",
                "default",
                "best1/0.3/0.01/exp/jde+eq"
            ]
        );
        assert_eq!(sweep.populations, POPULATIONS);
        assert_eq!(sweep.instances.len(), 12);
        assert_eq!(sweep.cells(), 3 * 3 * 12);
    }

    #[test]
    fn local_search_suffixes_turn_the_search_on_and_stay_in_the_label() {
        let (sweep, labels) = sweep_and_labels(
            "default;default+ls500x64;rand1/0.1/0.01/bin/fixed+eq+ls100x16;default+ls500x64all;\
             rand1/0.1/0.01/bin/fixed+ls100x16all",
        );
        assert_eq!(
            labels,
            [
                "default",
                "default+ls500x64",
                "rand1/0.1/0.01/bin/fixed+eq+ls100x16",
                "default+ls500x64all",
                "rand1/0.1/0.01/bin/fixed+ls100x16all"
            ]
        );
        let searches: Vec<Option<(u32, u32, Scope)>> = sweep
            .configs
            .iter()
            .map(|c| {
                c.local_search()
                    .map(|s| (s.period(), s.max_moves(), s.scope()))
            })
            .collect();
        assert_eq!(
            searches,
            [
                None,
                Some((500, 64, Scope::Best)),
                Some((100, 16, Scope::Best)),
                Some((500, 64, Scope::All)),
                Some((100, 16, Scope::All))
            ]
        );
        assert_eq!(
            sweep.configs[1].params(512).expect("valid"),
            table1_params(512).expect("valid")
        );
        let bad = Sweep::parse("default+ls0x4", None, None).expect_err("period 0");
        assert!(format!("{bad:#}").contains("period"), "{bad:#}");
        assert!(Sweep::parse("default+eq", None, None).is_err());
        assert!(Sweep::parse("default+ls500x64every", None, None).is_err());
    }

    #[test]
    fn a_quick_table_1_runs_three_valid_instances() {
        let quick = instances_from(Some(QUICK_INSTANCES)).expect("valid files");
        let files: Vec<&str> = quick.iter().map(|instance| instance.1).collect();
        assert_eq!(files, ["u_c_hihi.0", "u_i_lohi.0", "u_s_lolo.0"]);
    }

    #[test]
    fn instance_lists_keep_the_papers_order_and_reject_unknown_files() {
        let chosen = instances_from(Some(" u_s_lolo.0, u_c_hihi.0 ,u_s_lolo.0")).expect("valid");
        let files: Vec<&str> = chosen.iter().map(|instance| instance.1).collect();
        assert_eq!(files, ["u_c_hihi.0", "u_s_lolo.0"]);
        assert_eq!(instances_from(None).expect("valid").len(), 12);
        let unknown = instances_from(Some("u_c_hihi.0,u_x_hihi.0")).expect_err("unknown file");
        assert!(format!("{unknown:#}").contains("u_x_hihi.0"), "{unknown:#}");
        assert!(instances_from(Some(" , ")).is_err());
    }

    #[test]
    fn kicks_stay_in_the_label() {
        let (sweep, labels) =
            sweep_and_labels("default+ls500x64k32x4;rand1/0.1/0.01/bin/fixed+ls500x64k8x2");
        assert_eq!(
            labels,
            [
                "default+ls500x64k32x4",
                "rand1/0.1/0.01/bin/fixed+ls500x64k8x2"
            ]
        );
        let kicks: Vec<Option<(u32, u32)>> = sweep
            .configs
            .iter()
            .map(|c| c.local_search().map(|s| (s.kicks(), s.kick_moves())))
            .collect();
        assert_eq!(kicks, [Some((32, 4)), Some((8, 2))]);
        assert!(Sweep::parse("default+ls500x64k32x0", None, None).is_err());
    }

    #[test]
    fn default_gives_the_suites_parameters_at_each_population() {
        let sweep = Sweep::parse("default", None, None).expect("valid sweep");
        for population in POPULATIONS {
            assert_eq!(
                sweep.configs[0].params(population).expect("valid"),
                table1_params(population).expect("valid")
            );
        }
    }

    #[test]
    fn subsets_keep_the_papers_order_once() {
        let sweep = Sweep::parse(
            "default",
            Some("1024, 64,1024"),
            Some("u_s_lolo.0,u_c_hihi.0"),
        )
        .expect("valid sweep");
        assert_eq!(sweep.populations, [64, 1024]);
        let files: Vec<&str> = sweep.instances.iter().map(|instance| instance.1).collect();
        assert_eq!(files, ["u_c_hihi.0", "u_s_lolo.0"]);
        assert_eq!(sweep.cells(), 4);
    }

    #[test]
    fn bad_values_are_errors_naming_the_variable() {
        let message = |result: anyhow::Result<Sweep>| format!("{:#}", result.expect_err("invalid"));
        let bad_config = message(Sweep::parse("rand1/0.5/0.005/bin", None, None));
        assert!(
            bad_config.contains(CONFIGS_VAR) && bad_config.contains("expected 5"),
            "{bad_config}"
        );
        assert!(message(Sweep::parse(" ; ", None, None)).contains("no configuration"));
        let bad_population = message(Sweep::parse("default", Some("128"), None));
        assert!(
            bad_population.contains(POPULATIONS_VAR) && bad_population.contains("128"),
            "{bad_population}"
        );
        assert!(message(Sweep::parse("default", Some("6x"), None)).contains("not a number"));
        let bad_instance = message(Sweep::parse("default", None, Some("u_c_hihi.1")));
        assert!(
            bad_instance.contains(INSTANCES_VAR) && bad_instance.contains("u_c_hihi.0"),
            "{bad_instance}"
        );
    }

    #[test]
    fn the_note_counts_cells_and_instances_better_than_the_paper() {
        let sweep = Sweep::parse("default", Some("64,512"), Some("u_c_hihi.0,u_s_lolo.0"))
            .expect("valid sweep");
        let cell = |file, population, fitness| Cell {
            label: DEFAULT_CONFIG.to_string(),
            file,
            population,
            fitness,
            generations: 1000,
            paper_gpu: 100.0,
        };
        let cells = [
            cell("u_c_hihi.0", 64, 50.0),
            cell("u_c_hihi.0", 512, 200.0),
            cell("u_s_lolo.0", 64, 50.0),
            cell("u_s_lolo.0", 512, 50.0),
        ];
        let note = sweep.note(&cells);
        assert!(
            note.contains("| default | 3 of 4 | 1 of 2 | 0.7071 | 2.000 (u_c_hihi.0 p512) |"),
            "{note}"
        );
        assert!(
            note.contains("| default | u_s_lolo.0 | 512 | 50.00 | 1000 | 100 | 0.500 (better) |")
        );
    }
}
