//! The discrete-benchmarks kernel module compiles under both profiles for the oldest and newest supported
//! architectures, wherever NVRTC is installed (no GPU needed); without NVRTC the test says so and passes.

use evo_gpu_runtime::{Profile, compile_to_ptx, nvrtc_present};
use evo_kernels::ModuleId;

#[test]
fn benchmarks_discrete_module_compiles() {
    if !nvrtc_present() {
        eprintln!("SKIPPED (no NVRTC): benchmarks_discrete_module_compiles");
        return;
    }
    let module = ModuleId::BenchmarksDiscrete.module();
    for arch in ["sm_80", "sm_90"] {
        for profile in [Profile::Exact, Profile::Fast] {
            let ptx = compile_to_ptx(module.name, module.source, profile, arch)
                .unwrap_or_else(|e| panic!("{arch} {profile:?}: {e}"));
            for entry in module.entry_points {
                assert!(
                    ptx.contains(entry),
                    "{arch}: entry {entry} missing from the PTX"
                );
            }
        }
    }
}
