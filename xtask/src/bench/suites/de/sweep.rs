//! Opt-in configuration sweep of Table 1: many configurations compared in one call, each cell run the way
//! the suite runs its own Table 1 cells ([`run_once`]: same seed, `step_many` batches on the GPU) for
//! [`SWEEP_BUDGET`], its best fitness after 1 s set beside the paper's GPU value after 30 s.
//!
//! - `--de-table1-configs`: configurations separated by `;`, each in [`DeConfig`]'s form
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
//! - `--de-table1-populations`: a `,`-separated subset of 64, 512, 1024 (default all three).
//! - `--de-table1-instances`: a `,`-separated subset of the instance files, e.g. `u_c_hihi.0,u_s_lolo.0`
//!   (default all twelve); it also selects the rows of the suite's own Table 1 ([`chosen_instances`]; three
//!   by default with `--quick`), so that the full-mode table (30 s per cell) can be split over calls or GPUs.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use evo_benchmarks::scheduling::{EtcInstance, EtcProblem};
use evo_de::{DeConfig, DeParams, LocalSearch, Scope};
use statrs::statistics::Statistics;

use super::{INSTANCES, Instance, POPULATIONS, SEED, fitness_row, run_once, table1_params};
use crate::bench::{BenchContext, SuiteResult};

/// The word naming the suite's own configuration.
const DEFAULT_CONFIG: &str = "default";

/// Each cell's wall time: the target compares the best after 1 s, in quick and full mode alike.
const SWEEP_BUDGET: Duration = Duration::from_secs(1);

/// One configuration of the sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SweepConfig {
    /// The suite's own, which depends on the population ([`table1_params`]), with the local search of a
    /// `default+ls…` item.
    Table1(Option<LocalSearch>),
    /// A configuration given as text.
    Given(DeConfig),
}

impl FromStr for SweepConfig {
    type Err = String;

    /// The configuration of one item of the list: `default`, `default+ls…` or a [`DeConfig`].
    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
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
                .map_err(|error| format!("`{text}`: {error}"))?;
            return Ok(Self::Table1(config.local_search()));
        }
        text.parse().map(Self::Given).map_err(|error| {
            format!("`{text}`: {error} (or `{DEFAULT_CONFIG}`, the suite's own configuration)")
        })
    }
}

impl SweepConfig {
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

/// The instances of a quick Table 1 when `--de-table1-instances` is absent: one of each consistency
/// (consistent, inconsistent, semi-consistent), each with another task and machine heterogeneity.
const QUICK_INSTANCES: [&str; 3] = ["u_c_hihi.0", "u_i_lohi.0", "u_s_lolo.0"];

/// One population of `--de-table1-populations`: one of the paper's.
pub fn parse_population(text: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|population| POPULATIONS.contains(population))
        .ok_or_else(|| format!("`{text}` is not one of the paper's populations {POPULATIONS:?}"))
}

/// One instance file of `--de-table1-instances`: one of the twelve.
pub fn parse_instance(text: &str) -> Result<&'static str, String> {
    let text = text.trim();
    INSTANCES
        .iter()
        .map(|instance| instance.1)
        .find(|file| *file == text)
        .ok_or_else(|| {
            format!(
                "unknown instance `{text}`; allowed: {}",
                INSTANCES.map(|instance| instance.1).join(", ")
            )
        })
}

/// The instances of Table 1: those `named` by `--de-table1-instances`, in the paper's order; when it names
/// none, all twelve, or [`QUICK_INSTANCES`] in a quick run.
pub(super) fn chosen_instances(quick: bool, named: &[&str]) -> Vec<Instance> {
    if named.is_empty() && quick {
        instances_from(&QUICK_INSTANCES)
    } else {
        instances_from(named)
    }
}

/// The instances whose files are `named` (none named: all twelve), in the paper's order, each once.
fn instances_from(named: &[&str]) -> Vec<Instance> {
    INSTANCES
        .into_iter()
        .filter(|instance| named.is_empty() || named.contains(&instance.1))
        .collect()
}

impl Sweep {
    /// The sweep of `configs` (`None` when there is none) over `populations` and `instances` (each: all
    /// when empty), in the paper's order, each once.
    pub(super) fn new(
        configs: &[SweepConfig],
        populations: &[usize],
        instances: &[&str],
    ) -> Option<Self> {
        (!configs.is_empty()).then(|| Self {
            configs: configs.to_vec(),
            populations: POPULATIONS
                .into_iter()
                .filter(|p| populations.is_empty() || populations.contains(p))
                .collect(),
            instances: instances_from(instances),
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
            "Table 1 configuration sweep (--de-table1-configs; one run per cell, seed {SEED}, random initial \
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

    /// The configurations of a `;`-separated list, as clap splits `--de-table1-configs`.
    fn configs(list: &str) -> Result<Vec<SweepConfig>, String> {
        list.split(';').map(str::parse).collect()
    }

    /// The sweep of `list` over every population and instance, and its configurations' labels.
    fn sweep_and_labels(list: &str) -> (Sweep, Vec<String>) {
        let configs = configs(list).expect("valid configurations");
        let sweep = Sweep::new(&configs, &[], &[]).expect("a sweep");
        let labels = sweep.configs.iter().map(SweepConfig::label).collect();
        (sweep, labels)
    }

    #[test]
    fn configurations_are_trimmed_and_default_is_the_suites() {
        let (sweep, labels) =
            sweep_and_labels(" rand1/0.5/0.005/bin/fixed ; default;best1/0.3/0.01/exp/jde+eq");
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
        assert!(Sweep::new(&[], &[64], &["u_c_hihi.0"]).is_none());
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
        let bad = configs("default+ls0x4").expect_err("period 0");
        assert!(bad.contains("period"), "{bad}");
        assert!(configs("default+eq").is_err());
        assert!(configs("default+ls500x64every").is_err());
    }

    #[test]
    fn a_quick_table_1_runs_three_valid_instances() {
        let files = |instances: Vec<Instance>| -> Vec<&str> {
            instances.iter().map(|instance| instance.1).collect()
        };
        assert_eq!(
            files(chosen_instances(true, &[])),
            ["u_c_hihi.0", "u_i_lohi.0", "u_s_lolo.0"]
        );
        assert_eq!(chosen_instances(false, &[]).len(), 12);
        assert_eq!(
            files(chosen_instances(true, &["u_s_hihi.0"])),
            ["u_s_hihi.0"]
        );
    }

    #[test]
    fn instance_lists_keep_the_papers_order_and_reject_unknown_files() {
        let chosen = instances_from(&["u_s_lolo.0", "u_c_hihi.0", "u_s_lolo.0"]);
        let files: Vec<&str> = chosen.iter().map(|instance| instance.1).collect();
        assert_eq!(files, ["u_c_hihi.0", "u_s_lolo.0"]);
        assert_eq!(parse_instance(" u_c_hihi.0 "), Ok("u_c_hihi.0"));
        let unknown = parse_instance("u_x_hihi.0").expect_err("unknown file");
        assert!(
            unknown.contains("`u_x_hihi.0`") && unknown.contains("allowed: u_c_hihi.0"),
            "{unknown}"
        );
        assert!(parse_instance("").is_err());
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
        assert!(configs("default+ls500x64k32x0").is_err());
    }

    #[test]
    fn default_gives_the_suites_parameters_at_each_population() {
        let (sweep, _) = sweep_and_labels("default");
        for population in POPULATIONS {
            assert_eq!(
                sweep.configs[0].params(population).expect("valid"),
                table1_params(population).expect("valid")
            );
        }
    }

    #[test]
    fn subsets_keep_the_papers_order_once() {
        let sweep = Sweep::new(
            &configs("default").expect("valid"),
            &[1024, 64, 1024],
            &["u_s_lolo.0", "u_c_hihi.0"],
        )
        .expect("a sweep");
        assert_eq!(sweep.populations, [64, 1024]);
        let files: Vec<&str> = sweep.instances.iter().map(|instance| instance.1).collect();
        assert_eq!(files, ["u_c_hihi.0", "u_s_lolo.0"]);
        assert_eq!(sweep.cells(), 4);
    }

    #[test]
    fn bad_values_say_what_is_allowed() {
        let bad_config = configs("rand1/0.5/0.005/bin").expect_err("four fields");
        assert!(
            bad_config.contains("`rand1/0.5/0.005/bin`")
                && bad_config.contains("expected 5")
                && bad_config.contains("default"),
            "{bad_config}"
        );
        assert!(configs("").is_err());
        assert_eq!(parse_population(" 512"), Ok(512));
        let bad_population = parse_population("128").expect_err("not the paper's");
        assert!(
            bad_population.contains("`128`") && bad_population.contains("[64, 512, 1024]"),
            "{bad_population}"
        );
        assert!(parse_population("6x").is_err());
    }

    #[test]
    fn the_note_counts_cells_and_instances_better_than_the_paper() {
        let sweep = Sweep::new(
            &configs("default").expect("valid"),
            &[64, 512],
            &["u_c_hihi.0", "u_s_lolo.0"],
        )
        .expect("a sweep");
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
