//! Tests of the suite flags of `cargo xtask bench` (`bench.rs`).

use clap::Parser;
use evo_benchmarks::ShiftedFunction;

use super::*;
use crate::flags::{Cli, Command};

/// The suite flags of `cargo xtask bench <args>`, or clap's message.
fn parse(args: &[&str]) -> Result<SuiteFlags, String> {
    let cli = Cli::try_parse_from(["xtask", "bench"].iter().chain(args).copied())
        .map_err(|error| error.to_string())?;
    match cli.command {
        Command::Bench(bench) => Ok(bench.suite_flags),
        other => Err(format!("parsed as another command: {other:?}")),
    }
}

/// clap's message for `args`, which must be refused.
fn refused(args: &[&str]) -> String {
    parse(args).expect_err("invalid arguments")
}

#[test]
fn no_suite_flag_means_every_default() {
    let flags = parse(&[]).expect("valid");
    assert!(flags.given().is_empty());
    assert!(flags.ma.cases.is_empty() && flags.ma.runs.is_none() && flags.ma.first_run == 0);
    assert!(flags.de.parts.is_empty() && flags.de.table1_configs.is_empty());
    assert!(!flags.ga.fused_only && flags.dpga.parts.is_empty());
    flags.check(&[]).expect("nothing to check");
}

#[test]
fn ma_flags_parse_into_selectors_and_counts() {
    let flags = parse(&[
        "--ma-cases",
        "shifted:rastrigin:3000000,cec:f8",
        "--ma-cases",
        "scale:*:100000000",
        "--ma-runs",
        "5",
        "--ma-first-run",
        "5",
    ])
    .expect("valid");
    let expected: Vec<ma::Selector> = ["shifted:rastrigin:3000000", "cec:f8", "scale:*:100000000"]
        .iter()
        .map(|item| item.parse().expect("valid selector"))
        .collect();
    assert_eq!(flags.ma.cases, expected);
    assert_eq!((flags.ma.runs, flags.ma.first_run), (Some(5), 5));
}

#[test]
fn bad_ma_values_name_the_flag_and_what_is_allowed() {
    let case = refused(&["--ma-cases", "shifted:rastrigin:300000"]);
    assert!(
        case.contains("--ma-cases") && case.contains("allowed: 100000, 500000"),
        "{case}"
    );
    let runs = refused(&["--ma-runs", "0"]);
    assert!(
        runs.contains("--ma-runs") && runs.contains("positive integer"),
        "{runs}"
    );
    let first = refused(&["--ma-first-run", "two"]);
    assert!(first.contains("--ma-first-run"), "{first}");
}

#[test]
fn de_flags_parse_into_parts_configs_populations_and_instances() {
    let flags = parse(&[
        "--de-parts",
        "table1,timing",
        "--de-table1-configs",
        "default;rand1/0.5/0.005/bin/fixed",
        "--de-table1-populations",
        "1024,64",
        "--de-table1-instances",
        "u_s_lolo.0,u_c_hihi.0",
    ])
    .expect("valid");
    assert_eq!(flags.de.parts, [de::Part::Table1, de::Part::Timing]);
    assert_eq!(flags.de.table1_configs.len(), 2);
    assert_eq!(flags.de.table1_populations, [1024, 64]);
    assert_eq!(flags.de.table1_instances, ["u_s_lolo.0", "u_c_hihi.0"]);
    flags.check(&["de"]).expect("de selected, Table 1 kept");
}

#[test]
fn the_makespan_search_flag_is_a_validated_json_local_search() {
    let text = r#"{"period": 20, "max_moves": 64, "neighbourhood": "AnyPair", "iterations": 8, "iteration_moves": 3}"#;
    let flags = parse(&["--de-parts", "makespan", "--de-makespan-search", text]).expect("valid");
    let search = flags.de.makespan_search.expect("given");
    assert_eq!(search.neighbourhood(), evo_de::Neighbourhood::AnyPair);
    assert_eq!((search.iterations(), search.iteration_moves()), (8, 3));
    flags
        .check(&["de"])
        .expect("de selected, the makespan part kept");
    let elsewhere = parse(&["--de-parts", "timing", "--de-makespan-search", text]).expect("valid");
    let error = elsewhere.check(&["de"]).unwrap_err().to_string();
    assert!(error.contains("add makespan to --de-parts"), "{error}");
    let range = refused(&[
        "--de-makespan-search",
        r#"{"period": 20, "max_moves": 64, "iterations": 4, "iteration_moves": 0}"#,
    ]);
    assert!(
        range.contains("--de-makespan-search")
            && range.contains("local search iteration moves must be 1 ..= 256, got 0"),
        "{range}"
    );
    let key = refused(&[
        "--de-makespan-search",
        r#"{"period": 20, "max_moves": 64, "kick": 4}"#,
    ]);
    assert!(key.contains("unknown field `kick`"), "{key}");
}

#[test]
fn makespan_instances_and_seeds_parse_and_need_the_makespan_part() {
    let args = [
        "--de-makespan-instances",
        "u_c_lohi.0,u_s_hihi.0",
        "--de-makespan-seeds",
        "1,2,2011",
    ];
    let flags = parse(&args).expect("valid");
    assert_eq!(flags.de.makespan_instances, ["u_c_lohi.0", "u_s_hihi.0"]);
    assert_eq!(flags.de.makespan_seeds, [1, 2, 2011]);
    flags.check(&["de"]).expect("every part runs");
    for pair in args.chunks(2) {
        let (flag, value) = (pair[0], pair[1]);
        let elsewhere = parse(&["--de-parts", "table2", flag, value]).expect("valid");
        let error = elsewhere.check(&["de"]).unwrap_err().to_string();
        assert!(
            error.contains("add makespan to --de-parts"),
            "{flag}: {error}"
        );
    }
    let instance = refused(&["--de-makespan-instances", "u_c_lohi.9"]);
    assert!(
        instance.contains("--de-makespan-instances") && instance.contains("unknown instance"),
        "{instance}"
    );
    let seed = refused(&["--de-makespan-seeds", "1,two"]);
    assert!(seed.contains("--de-makespan-seeds"), "{seed}");
}

#[test]
fn bad_de_values_name_the_flag_and_what_is_allowed() {
    let part = refused(&["--de-parts", "table3"]);
    assert!(
        part.contains("--de-parts") && part.contains("table1, table2, timing"),
        "{part}"
    );
    let config = refused(&["--de-table1-configs", "rand1/0.5"]);
    assert!(
        config.contains("--de-table1-configs") && config.contains("expected 5"),
        "{config}"
    );
    let population = refused(&[
        "--de-table1-configs",
        "default",
        "--de-table1-populations",
        "128",
    ]);
    assert!(
        population.contains("--de-table1-populations") && population.contains("[64, 512, 1024]")
    );
    let instance = refused(&["--de-table1-instances", "u_x_hihi.0"]);
    assert!(instance.contains("--de-table1-instances") && instance.contains("u_c_hihi.0"));
    let alone = refused(&["--de-table1-populations", "64"]);
    assert!(alone.contains("--de-table1-configs"), "{alone}");
}

#[test]
fn eval_ga_and_dpga_flags_parse() {
    let flags = parse(&[
        "--eval-functions",
        "shifted-griewank",
        "--eval-dimensions",
        "10000000",
        "--eval-batches",
        "20,1",
        "--ga-fused-only",
        "--dpga-parts",
        "b,c",
    ])
    .expect("valid");
    assert_eq!(flags.eval.functions, [ShiftedFunction::Griewank]);
    assert_eq!(flags.eval.dimensions, [10_000_000]);
    assert_eq!(flags.eval.batches, [20, 1]);
    assert!(flags.ga.fused_only);
    assert_eq!(flags.dpga.parts, [dpga::Part::B, dpga::Part::C]);
    let function = refused(&["--eval-functions", "rastrigin"]);
    assert!(function.contains("--eval-functions") && function.contains("shifted-rastrigin"));
    let batch = refused(&["--eval-batches", "2"]);
    assert!(
        batch.contains("--eval-batches") && batch.contains("[1, 20]"),
        "{batch}"
    );
    let part = refused(&["--dpga-parts", "abc"]);
    assert!(
        part.contains("--dpga-parts") && part.contains("a, b, c"),
        "{part}"
    );
    assert!(refused(&["--ga-fused-only=1"]).contains("--ga-fused-only"));
}

#[test]
fn a_flag_of_a_suite_that_does_not_run_is_an_error() {
    let flags = parse(&["--ma-runs", "3", "--ga-fused-only"]).expect("valid");
    flags.check(&["ma", "ga"]).expect("both selected");
    let one = flags
        .check(&["ma", "core"])
        .expect_err("ga not selected")
        .to_string();
    assert!(
        one.contains("--ga-fused-only (suite ga)") && !one.contains("--ma-runs"),
        "{one}"
    );
    let both = flags
        .check(&["core"])
        .expect_err("neither selected")
        .to_string();
    assert!(
        both.contains("--ma-runs (suite ma), --ga-fused-only (suite ga)"),
        "{both}"
    );
}

#[test]
fn a_replaced_variable_is_an_error_naming_its_flag() {
    check_replaced_variables(|_| false).expect("none set");
    check_replaced_variables(|variable| variable == "EVO_DATA_DIR").expect("not a replaced one");
    let error = check_replaced_variables(|variable| {
        ["EVO_MA_CASES", "EVO_DPGA_BENCH_PARTS"].contains(&variable)
    })
    .expect_err("two set")
    .to_string();
    assert!(
        error.contains("EVO_MA_CASES (now --ma-cases), EVO_DPGA_BENCH_PARTS (now --dpga-parts)"),
        "{error}"
    );
}

#[test]
fn every_replaced_variable_names_a_flag_of_bench() {
    use clap::CommandFactory;
    let cli = Cli::command();
    let bench = cli.find_subcommand("bench").expect("bench exists");
    for (variable, flag) in REPLACED_VARIABLES {
        assert!(
            bench.get_arguments().any(|arg| arg
                .get_long()
                .is_some_and(|long| format!("--{long}") == flag)),
            "{variable}: {flag} is not a flag of bench"
        );
    }
}

#[test]
fn a_table_1_flag_needs_table_1() {
    let flags = parse(&[
        "--de-parts",
        "timing",
        "--de-table1-instances",
        "u_c_hihi.0",
    ])
    .expect("valid");
    let error = flags
        .check(&["de"])
        .expect_err("Table 1 left out")
        .to_string();
    assert!(
        error.contains("--de-parts") && error.contains("table1"),
        "{error}"
    );
    let kept = parse(&[
        "--de-parts",
        "table1",
        "--de-table1-instances",
        "u_c_hihi.0",
    ])
    .expect("valid");
    kept.check(&["de"]).expect("Table 1 kept");
}
