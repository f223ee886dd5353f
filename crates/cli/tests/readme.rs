//! The commands of the README's "Command line" section, run as written (in a fresh folder, in order).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{ok_in, result};

/// The parameter file the README shows next to the commands.
const DPGA_TOML: &str = "main_size = 64\nreserve_size = 64\nconstraint_handling = \"Deb\"\n";

/// The README's commands, each run by `every_readme_command_runs`.
const README_COMMANDS: &[&str] = &[
    "evo list",
    "evo devices",
    "evo run de --problem rastrigin:128 --generations 100 --set population=64 --backend cpu --out runs/de",
    "evo run ga --problem ga:f1:32 --generations 50 --set population=64 --out runs/ga",
    "evo run dpga --problem cec2006:g01 --generations 50 --config dpga.toml --out runs/dpga",
    "evo run ma-sw-chains --problem shifted-rastrigin:100 --evaluations 5000 --checkpoint ma.ckpt --every 5 --out runs/ma",
    "evo resume ma.ckpt",
    "evo run de --problem rastrigin:64 --generations 200 --islands 4 --migration-interval 20 --migrants 2 --backend cpu --out runs/islands",
];

/// The README's knapsack command, which needs the data folder ($EVO_DATA_DIR).
const README_KNAPSACK: &str =
    "evo run qiga --problem knapsack:knapsack/knapsack-250.txt --set population=16 --out runs/qiga";

#[test]
fn every_readme_command_runs() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("dpga.toml"), DPGA_TOML).unwrap();
    for command in README_COMMANDS {
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        ok_in(dir, &args);
    }
    assert_eq!(result(&dir.join("runs/de"))["generations"], 100);
    assert_eq!(
        result(&dir.join("runs/dpga"))["params"]["constraint_handling"],
        "Deb"
    );
    assert_eq!(result(&dir.join("runs/ma"))["evaluations"], 5000);
    assert!(dir.join("runs/ma/convergence.svg").is_file());
    let islands = result(&dir.join("runs/islands"));
    assert_eq!(islands["islands"]["islands"], 4);
    assert_eq!(islands["evaluations"], 4 * 64 * 201);
}

#[test]
fn the_readme_knapsack_command_runs_with_the_data_folder() {
    let Some(data) =
        evo_benchmarks::data::shared_data_dir_or_skip("the_readme_knapsack_command_runs")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<&str> = README_KNAPSACK.split_whitespace().skip(1).collect();
    let output = common::evo()
        .current_dir(dir.path())
        .env("EVO_DATA_DIR", &data)
        .args(&args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = result(&dir.path().join("runs/qiga"));
    assert_eq!(result["generations"], 500);
    assert!(
        result["best_fitness"].as_f64().unwrap() < -1000.0,
        "{result}"
    );
}

/// The `evo` lines of the README's "Command line" section, without an environment prefix.
fn readme_commands() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let section = readme
        .split("\n## Command line\n")
        .nth(1)
        .expect("the README has a \"Command line\" section");
    let section = section.split("\n## ").next().unwrap();
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the section has a sh block");
    block
        .lines()
        .map(|line| {
            line.split_whitespace()
                .skip_while(|word| word.contains('='))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|line| line.starts_with("evo "))
        .collect()
}

#[test]
fn the_readme_shows_exactly_the_tested_commands() {
    let tested: Vec<String> = README_COMMANDS
        .iter()
        .chain(std::iter::once(&README_KNAPSACK))
        .map(|command| command.to_string())
        .collect();
    assert_eq!(readme_commands(), tested);
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    assert!(
        readme.contains(&format!("```toml\n{DPGA_TOML}```")),
        "the README's dpga.toml differs from the tested one"
    );
}
