//! `--de-parts makespan`: what a user who wants short schedules gets (issue #33). On each of the 12
//! instances, one run of DE minimising the makespan alone (`EtcObjective::Makespan`), its initial
//! population seeded with the Min-Min and Sufferage schedules ([`makespan_local_search`] and the
//! configuration of [`makespan_params`]), for [`budgets`]`.1` of wall time; the makespan of the best schedule
//! after [`budgets`]`.0` and at the end, beside Min-Min's, Sufferage's and the best known schedule's (the
//! `.sol` files shipped with the instances, makespans recomputed from the ETC matrix). The clock starts
//! after the engine is built (the heuristics, a few milliseconds each, run before it).
//!
//! `--de-makespan-search JSON` replaces the local search by any [`LocalSearch`] in its serde form
//! ([`parse_makespan_search`]), e.g. the any-pair neighbourhood with iterations:
//! `{"period": 20, "max_moves": 64, "kicks": 64, "kick_moves": 4, "neighbourhood": "AnyPair",
//! "iterations": 8, "iteration_moves": 3}`, or the load-balancing descents (`"neighbourhood": "Balance"`,
//! the same candidates ranked by the change of the squared loads after the makespan, or
//! `"MakespanBalance"`, the makespan machine's candidates ranked so); the notes name the search that ran.
//! `--de-makespan-instances` picks the instances (default all 12) and `--de-makespan-seeds` the seeds (one
//! run per instance and seed; default the suite's 2011), so that a setting's spread over seeds is measured
//! in one call; the rows of named seeds carry the seed in their case.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use evo_benchmarks::scheduling::{EtcInstance, EtcObjective, EtcProblem, min_min, sufferage};
use evo_de::{DeCpu, DeCuda, DeParams, Heuristic, LocalSearch, Neighbourhood, Selection};

use super::{INSTANCES, Outcome, SEED, execute, run_timed};
use crate::bench::{Backend, BenchContext, Reference, Row, SuiteResult};

/// The population of the makespan runs.
const MAKESPAN_POPULATION: usize = 64;
/// The crossover rate of the makespan runs: the seeds improve by moving a task or two at a time.
const MAKESPAN_CROSSOVER_RATE: f32 = 0.002;
/// The differential weight of the makespan runs.
const MAKESPAN_DIFFERENTIAL_WEIGHT: f32 = 0.1;

/// The configuration of the makespan runs. Better-or-equal selection lets the population drift across the
/// plateaus of the makespan (a move off a machine other than the longest leaves it unchanged).
fn makespan_params() -> anyhow::Result<DeParams> {
    Ok(DeParams::default()
        .with_population(MAKESPAN_POPULATION)?
        .with_differential_weight(MAKESPAN_DIFFERENTIAL_WEIGHT)?
        .with_crossover_rate(MAKESPAN_CROSSOVER_RATE)?
        .with_selection(Selection::BetterOrEqual))
}

/// The default local search of the makespan runs on the GPU, chosen by the sweeps of `docs/results/de.md`
/// (issue #33): every 50 generations the best schedule descends by at most 64 moves (`MakespanBalance`: the
/// makespan machine's moves and swaps, ranked by makespan, then by the change of the sum of squared machine
/// loads), and so do 256 kicked copies of it (4 random task moves each); every candidate then runs 32
/// perturb-and-descend iterations of 2 moves. Under the makespan alone DE's trials mostly drift across
/// plateaus, and the search is what lowers the longest machine.
fn gpu_local_search() -> anyhow::Result<LocalSearch> {
    Ok(LocalSearch::new(50, 64)?
        .with_neighbourhood(Neighbourhood::MakespanBalance)
        .with_kicks(256, 4)?
        .with_iterations(32, 2)?)
}

/// The default local search of the makespan runs on the CPU: every 20 generations at most 64 moves, then 64
/// kicks of 4 random task moves. The GPU's search descends from its 257 candidates in parallel blocks; the
/// CPU twin's 8 481 descents would take minutes per search on a few cores, longer than the whole budget.
fn cpu_local_search() -> anyhow::Result<LocalSearch> {
    Ok(LocalSearch::new(20, 64)?.with_kicks(64, 4)?)
}

/// The local search of the makespan runs: the one `--de-makespan-search` gives, else the default of the
/// backend that runs them ([`gpu_local_search`], [`cpu_local_search`]).
fn makespan_local_search(ctx: &BenchContext) -> anyhow::Result<LocalSearch> {
    match (ctx.flags().de.makespan_search, ctx.gpu()) {
        (Some(search), _) => Ok(search),
        (None, Some(_)) => gpu_local_search(),
        (None, None) => cpu_local_search(),
    }
}

/// The local search's description in the notes: every setting, by the names of its serde form.
fn describe(search: &LocalSearch) -> String {
    format!(
        "period {}, max_moves {}, neighbourhood {:?}, {} kicks of {} moves, {} iterations of {} moves",
        search.period(),
        search.max_moves(),
        search.neighbourhood(),
        search.kicks(),
        search.kick_moves(),
        search.iterations(),
        search.iteration_moves()
    )
}

/// The value of `--de-makespan-search`: a [`LocalSearch`] as JSON, validated by its setters (the error names
/// the setting and its allowed range, or the unknown key).
pub fn parse_makespan_search(text: &str) -> Result<LocalSearch, String> {
    serde_json::from_str(text).map_err(|error| {
        format!(
            "{error} (a JSON LocalSearch, e.g. {{\"period\": 20, \"max_moves\": 64, \"neighbourhood\": \
             \"AnyPair\", \"iterations\": 8, \"iteration_moves\": 3}})"
        )
    })
}

/// The two reading times: 1 s and 10 s (`--quick`: 0.1 s and 0.25 s, about 3 s for the 12 instances).
fn budgets(quick: bool) -> (Duration, Duration) {
    if quick {
        (Duration::from_millis(100), Duration::from_millis(250))
    } else {
        (Duration::from_secs(1), Duration::from_secs(10))
    }
}

/// The instances of the makespan part: those `named` by `--de-makespan-instances`, in the paper's order, or
/// all twelve when it names none, as (paper name, file).
fn chosen_instances(named: &[&str]) -> Vec<(&'static str, &'static str)> {
    INSTANCES
        .iter()
        .filter(|instance| named.is_empty() || named.contains(&instance.1))
        .map(|instance| (instance.0, instance.1))
        .collect()
}

/// The makespan table on the chosen instances of `dir`, one run per instance and seed.
pub(super) fn makespan_table(
    ctx: &BenchContext,
    dir: &Path,
    result: &mut SuiteResult,
) -> anyhow::Result<()> {
    let (short, long) = budgets(ctx.quick());
    let (short_s, long_s) = (short.as_secs_f64(), long.as_secs_f64());
    let mut table = vec![
        format!(
            "| ETC | seed | Min-Min | Sufferage | ours {short_s} s | ours {long_s} s | best known | ours {long_s} s / best known | within 1 % | better than best known | generations |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    let (mut within, mut better, mut generations) = (0, 0, Vec::new());
    let search = makespan_local_search(ctx)?;
    let flags = &ctx.flags().de;
    let instances = chosen_instances(&flags.makespan_instances);
    let named_seeds = !flags.makespan_seeds.is_empty();
    let seeds = if named_seeds {
        flags.makespan_seeds.clone()
    } else {
        vec![SEED]
    };
    let mut worst = Vec::new();
    let bar = ctx.progress((instances.len() * seeds.len()) as u64, "de makespan");
    for &(name, file) in &instances {
        let instance =
            EtcInstance::from_file(dir.join(file)).with_context(|| format!("loading {file}"))?;
        let best_known = instance
            .best_known(dir)
            .with_context(|| format!("loading the best known schedule of {file}"))?;
        let heuristics = [min_min(&instance).makespan, sufferage(&instance).makespan];
        let problem = EtcProblem::with_objective(instance, EtcObjective::Makespan)?;
        let mut instance_worst = 0.0f64;
        for &seed in &seeds {
            bar.set_message(format!("{file} seed {seed}"));
            let (outcome, device, backend) = run_seeded(ctx, &problem, search, seed, long)?;
            let at_short = outcome.fitness_at(short_s);
            let schedule = problem.schedule_of(&outcome.best);
            let at_end = problem.instance().makespan(&schedule)?;
            anyhow::ensure!(
                (at_end - outcome.best_fitness).abs() <= 1e-9 * at_end,
                "{file} seed {seed}: the engine's best fitness {} is not its schedule's makespan {at_end}",
                outcome.best_fitness
            );
            let ratio = at_end / best_known.makespan;
            instance_worst = instance_worst.max(ratio);
            within += usize::from(ratio <= 1.01);
            better += usize::from(at_end < best_known.makespan);
            generations.push(outcome.generations);
            table.push(format!(
                "| {name} ({file}) | {seed} | {:.1} | {:.1} | {at_short:.1} | {at_end:.1} | {:.1} | {ratio:.4} | {} | {} | {} |",
                heuristics[0],
                heuristics[1],
                best_known.makespan,
                if ratio <= 1.01 { "yes" } else { "no" },
                if at_end < best_known.makespan { "yes" } else { "no" },
                outcome.generations,
            ));
            let label = if named_seeds {
                format!("{file} seed {seed}")
            } else {
                file.to_string()
            };
            for (at, value) in [(short_s, at_short), (long_s, at_end)] {
                result.rows.push(makespan_row(
                    format!("{label} makespan after {at} s (Min-Min/Sufferage seeded)"),
                    (device.clone(), backend),
                    &outcome,
                    value,
                    best_known.makespan,
                    heuristics,
                ));
            }
            bar.inc(1);
        }
        worst.push(format!("{file} {instance_worst:.4}"));
    }
    bar.finish_and_clear();
    let seed_list: Vec<String> = seeds.iter().map(u64::to_string).collect();
    result.notes.push(format!(
        "Makespans (issue #33; lower is better): DE minimising the makespan alone, the initial population \
         seeded with the Min-Min and Sufferage schedules, M = {MAKESPAN_POPULATION}, F = \
         {MAKESPAN_DIFFERENTIAL_WEIGHT}, CR = {MAKESPAN_CROSSOVER_RATE}, DE/rand/1/bin, better-or-equal \
         selection, the local search of the best schedule ({}), seeds {}, \
         one run per instance and seed of {long_s} s read at {short_s} s and at the end ({} to {} generations). \
         Best known: the lowest makespan of the instance's shipped `.sol` schedules, recomputed from the ETC \
         matrix. Within 1 % of the best known in {within} of {} runs, better in {better}; the worst \
         ratio per instance: {}.\n\n{}",
        describe(&search),
        seed_list.join(", "),
        generations.iter().min().copied().unwrap_or(0),
        generations.iter().max().copied().unwrap_or(0),
        generations.len(),
        worst.join(", "),
        table.join("\n")
    ));
    Ok(())
}

/// One run of [`makespan_params`] from `seed` with the heuristic seeds and the local search `search`, on the GPU when
/// there is one, else on the CPU.
fn run_seeded(
    ctx: &BenchContext,
    problem: &EtcProblem,
    search: LocalSearch,
    seed: u64,
    budget: Duration,
) -> anyhow::Result<(Outcome, String, Backend)> {
    let params = makespan_params()?;
    match ctx.gpu() {
        Some(gpu) => {
            let engine = DeCuda::new(params, problem.clone(), seed, gpu)?
                .with_heuristic_seeds(&Heuristic::ALL)?
                .with_local_search(search)?;
            Ok((run_timed(engine, budget)?, ctx.gpu_device(), Backend::Cuda))
        }
        None => {
            let engine = DeCpu::new(params, problem.clone(), seed, 0)?
                .with_heuristic_seeds(&Heuristic::ALL)?
                .with_local_search(search)?;
            Ok((
                execute(engine, budget)?,
                ctx.cpu_device().to_string(),
                Backend::Cpu,
            ))
        }
    }
}

/// The row of one reading: `makespan` beside the best known, with the heuristics' in the check.
fn makespan_row(
    case: String,
    (device, backend): (String, Backend),
    outcome: &Outcome,
    makespan: f64,
    best_known: f64,
    [min_min, sufferage]: [f64; 2],
) -> Row {
    Row {
        case,
        backend,
        device,
        size: MAKESPAN_POPULATION as u64,
        median_ms: outcome.wall_time_s * 1e3,
        samples: 1,
        throughput: makespan,
        unit: "makespan".to_string(),
        reference: Some(Reference::new("best known", best_known, makespan)),
        check: Some(format!(
            "Min-Min {min_min:.1}, Sufferage {sufferage:.1}; {} generations in the run",
            outcome.generations
        )),
    }
}
