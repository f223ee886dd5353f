//! What a checkpoint of a large MA-SW-Chains run costs: the binary checkpoint the executor writes against a
//! JSON file of the same snapshot (size, time to write with `fsync`, time to read back), at each size given.
//!
//! `cargo run --release -p evo-ma-sw-chains --example checkpoint_cost -- [--cycles N] [VARIABLES]...`
//! (defaults: 3 cycles, 10^6 variables). The engine runs on the GPU when there is one, else on the CPU. Files
//! go to `--dir` (default: the system's temporary folder) and are removed afterwards.

use clap::Parser;
use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
use evo_core::{Checkpointing, Engine, Executor, Termination};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::{MaCpu, MaCuda, MaParams, MaSnapshot};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Checkpoint size and time, binary against JSON.
#[derive(Parser)]
struct Args {
    /// Cycles run before the checkpoint (chains form as the run goes).
    #[arg(long, default_value_t = 3)]
    cycles: u64,
    /// Folder for the checkpoint files.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Variables of each case.
    #[arg(default_values_t = vec![1_000_000])]
    variables: Vec<usize>,
}

/// One case's figures.
struct Row {
    variables: usize,
    backend: &'static str,
    snapshot_s: f64,
    binary_bytes: u64,
    binary_write_s: f64,
    binary_read_s: f64,
    json_bytes: u64,
    json_write_s: f64,
    json_read_s: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let dir = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let gpu = Gpu::first_available()?;
    println!(
        "| variables | backend | snapshot to host (s) | binary (bytes) | binary write (s) | binary read + restore (s) | JSON (bytes) | JSON write (s) | JSON read (s) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for &variables in &args.variables {
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, variables)?;
        let row = match &gpu {
            Some(gpu) => measure("cuda", variables, args.cycles, &dir, || {
                MaCuda::new(MaParams::new(), &problem, 42, gpu)
            })?,
            None => measure("cpu", variables, args.cycles, &dir, || {
                MaCpu::new(MaParams::new(), &problem, 42, 0)
            })?,
        };
        println!(
            "| {} | {} | {:.3} | {} | {:.3} | {:.3} | {} | {:.3} | {:.3} |",
            row.variables,
            row.backend,
            row.snapshot_s,
            row.binary_bytes,
            row.binary_write_s,
            row.binary_read_s,
            row.json_bytes,
            row.json_write_s,
            row.json_read_s
        );
    }
    Ok(())
}

/// Runs `cycles` cycles on a new engine, then times one binary checkpoint (the executor's final save: the
/// snapshot copied to the host, encoded, written and synced), a resume from it, and the same snapshot as JSON.
fn measure<E, F>(
    backend: &'static str,
    variables: usize,
    cycles: u64,
    dir: &Path,
    build: F,
) -> Result<Row, Box<dyn std::error::Error>>
where
    E: Engine<Snapshot = MaSnapshot>,
    F: Fn() -> evo_core::Result<E>,
{
    let binary = dir.join(format!("ma-{variables}.ckpt"));
    let json = dir.join(format!("ma-{variables}.json"));
    let termination = Termination::new().with_max_generations(cycles);
    // A period longer than the run: the only checkpoint is the final one, written by the second `run`.
    let checkpointing = Checkpointing::new(&binary, cycles + 1)?.with_last_good_snapshot(false);
    let mut executor = Executor::new(build()?)
        .with_termination(termination.clone())?
        .with_checkpointing(checkpointing.clone());
    executor.run()?;

    let started = Instant::now();
    let snapshot = executor.engine().snapshot()?;
    let snapshot_s = started.elapsed().as_secs_f64();

    // The run already ended: this call only takes the snapshot and saves the final checkpoint.
    let started = Instant::now();
    executor.run()?;
    let binary_write_s = started.elapsed().as_secs_f64();
    let binary_bytes = fs::metadata(&binary)?.len();
    drop(executor);

    let fresh = build()?;
    let started = Instant::now();
    let resumed = Executor::new(fresh)
        .with_termination(termination)?
        .with_checkpointing(checkpointing)
        .resume_from(&binary)?;
    let binary_read_s = started.elapsed().as_secs_f64();
    drop(resumed);

    let started = Instant::now();
    let text = serde_json::to_vec(&snapshot)?;
    let mut file = File::create(&json)?;
    file.write_all(&text)?;
    file.sync_all()?;
    let json_write_s = started.elapsed().as_secs_f64();
    let json_bytes = fs::metadata(&json)?.len();
    drop(text);

    let started = Instant::now();
    let read_back: MaSnapshot = serde_json::from_slice(&fs::read(&json)?)?;
    let json_read_s = started.elapsed().as_secs_f64();
    if read_back.population != snapshot.population {
        return Err("the JSON round trip changed the population".into());
    }

    for path in [&binary, &json] {
        fs::remove_file(path)?;
    }
    let mut lock = binary.into_os_string();
    lock.push(".lock");
    // The executor leaves its lock file on purpose; this measurement's folder should not keep it.
    let _ = fs::remove_file(lock);
    Ok(Row {
        variables,
        backend,
        snapshot_s,
        binary_bytes,
        binary_write_s,
        binary_read_s,
        json_bytes,
        json_write_s,
        json_read_s,
    })
}
