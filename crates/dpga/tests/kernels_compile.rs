//! The `dpga` kernel module compiles under the Exact profile (the only one the engines use) for sm_80 and
//! sm_90 wherever NVRTC is installed (no GPU needed); without NVRTC the test says so and passes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_gpu_runtime::{Profile, compile_to_ptx, nvrtc_present};
use evo_kernels::ModuleId;

#[test]
fn dpga_module_compiles() {
    if !nvrtc_present() {
        eprintln!("SKIPPED (no NVRTC): dpga_module_compiles");
        return;
    }
    let module = ModuleId::Dpga.module();
    for arch in ["sm_80", "sm_90"] {
        let ptx = compile_to_ptx(module.name, module.source, Profile::Exact, arch)
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
        for entry in module.entry_points {
            assert!(
                ptx.contains(entry),
                "{arch}: entry {entry} missing from the PTX"
            );
        }
    }
}
