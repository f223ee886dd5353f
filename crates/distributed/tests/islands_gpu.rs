//! The island model on CUDA placements equals the model on the CPU, bit for bit (Exact profile): on one
//! device, mixed with CPU pools, and on every pair or quadruple of the devices there are. Without a GPU each
//! test prints `SKIPPED (no CUDA device)` and passes; under `EVO_REQUIRE_GPU=1` it fails instead.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{assert_same_report, cuda_placements, devices_or_skip, model, run, run_checkpointed};

#[test]
fn islands_on_cuda_placements_should_match_cpu_islands() {
    let test = "islands_on_cuda_placements_should_match_cpu_islands";
    let Some(devices) = devices_or_skip(test) else {
        return;
    };
    let cpu = run(model("cpu:1"), 42);
    for placement in cuda_placements(devices, common::island_params().islands()) {
        eprintln!("{test}: {placement} ({devices} device(s))");
        let cuda = run(model(&placement), 42);
        assert_same_report(&placement, &cpu, &cuda);
    }
}

#[test]
fn a_cpu_island_checkpoint_should_resume_on_cuda_as_uninterrupted() {
    let test = "a_cpu_island_checkpoint_should_resume_on_cuda_as_uninterrupted";
    let Some(devices) = devices_or_skip(test) else {
        return;
    };
    let uninterrupted = run(model("cpu:1"), 37);
    let resume_on = if devices >= 2 {
        "cuda:1,cuda:0"
    } else {
        "cuda:0"
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("islands.ckpt");
    run_checkpointed(model("cpu:2"), 23, &path, 10);
    let resumed = run_checkpointed(model(resume_on), 37, &path, 10);
    assert_same_report(&format!("cpu:2 then {resume_on}"), &resumed, &uninterrupted);
}
