//! The `de` kernel module, a user's DE module (a `UserProblem`'s terms fused into DE's one-launch
//! generation, `cuda/de.cu` under `EVO_DE_USER`) and a user's term module (a `UserFunction`'s separable term
//! on the built-in Rastrigin's path, `cuda/de.cu` under `EVO_DE_USER_TERM`) compile under both profiles for
//! sm_80 and sm_90 wherever NVRTC is installed (no GPU needed); without NVRTC the tests say so and pass.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::cuda::{UserData, UserFunction, UserProblem, UserTwin};
use evo_core::{Bounds, Error};
use evo_de::{TermFusion, UserFusion};
use evo_gpu_runtime::{Profile, compile_to_ptx, nvrtc_present};
use evo_kernels::ModuleId;
use evo_kernels::entry::de;

/// The entry point of a user's DE module.
const USER_GENERATION: &str = "de_generation_user_f32";

/// A twin that is never evaluated here (only the CUDA side compiles).
struct Unused;

impl UserTwin for Unused {
    fn terms(&self, _: usize, _: &[f32], _: &UserData, t: &mut [f64]) {
        t.fill(0.0);
    }
}

/// Rastrigin as user CUDA source, one term per coordinate.
const RASTRIGIN: &str = "__device__ void evo_user_terms(unsigned long long i, const float* x, \
     unsigned long long d, const EvoUserData& data, double* t)\n{\n    const double z = (double)x[i];\n    \
     t[0] = z * z + (10.0 - 10.0 * evo_cos_f64(6.283185307179586 * z));\n}\n";

/// The PTX of entry `entry` alone (from its `.entry` to the next one, or the end).
fn entry_ptx<'a>(ptx: &'a str, entry: &str) -> &'a str {
    let start = ptx.find(&format!(".entry {entry}(")).unwrap_or(0);
    let rest = &ptx[start..];
    let end = rest[1..].find(".entry").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

#[test]
fn de_module_compiles() {
    if !nvrtc_present() {
        eprintln!("SKIPPED (no NVRTC): de_module_compiles");
        return;
    }
    let module = ModuleId::De.module();
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

/// The one-launch generations are launched overlapping the previous kernel (Programmatic Dependent
/// Launch): on sm_90 they must wait for it before touching memory and let the next one start.
#[test]
fn fused_generations_wait_for_the_previous_grid_on_sm_90() {
    if !nvrtc_present() {
        eprintln!("SKIPPED (no NVRTC): fused_generations_wait_for_the_previous_grid_on_sm_90");
        return;
    }
    let module = ModuleId::De.module();
    let problem = UserProblem::new(
        "rastrigin",
        Bounds::uniform(64, -5.12, 5.12).unwrap(),
        RASTRIGIN,
        Unused,
    )
    .unwrap();
    let fusion = UserFusion::of(&problem);
    for profile in [Profile::Exact, Profile::Fast] {
        let builtin = compile_to_ptx(module.name, module.source, profile, "sm_90").unwrap();
        let user = compile_to_ptx(&fusion.module, &fusion.source, profile, "sm_90")
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        for (ptx, entry) in [
            (&builtin, de::GENERATION_F32.name()),
            (&user, USER_GENERATION),
        ] {
            let body = entry_ptx(ptx, entry);
            assert!(
                body.contains(&format!(".entry {entry}(")),
                "{entry} missing"
            );
            for instruction in ["griddepcontrol.wait", "griddepcontrol.launch_dependents"] {
                assert!(
                    body.contains(instruction),
                    "{entry} ({profile:?}) lacks {instruction}"
                );
            }
        }
        let sm80 = compile_to_ptx(&fusion.module, &fusion.source, profile, "sm_80").unwrap();
        assert!(
            sm80.contains(USER_GENERATION),
            "{profile:?}: sm_80 user module"
        );
    }
}

/// Rastrigin as a user's separable term with the fast cosine.
const RASTRIGIN_TERM: &str = "__device__ double evo_user_term(unsigned long long i, double z)\n{\n    \
     return z * z + (10.0 - 10.0 * evo_cos_pi_f64(2.0 * z));\n}\n";

/// The entry points of a PTX text, in order.
fn entries(ptx: &str) -> Vec<&str> {
    ptx.match_indices(".entry ")
        .filter_map(|(at, _)| ptx[at + 7..].split('(').next())
        .collect()
}

#[test]
fn a_user_term_module_should_hold_only_the_fused_generation() {
    if !nvrtc_present() {
        eprintln!("SKIPPED (no NVRTC): a_user_term_module_should_hold_only_the_fused_generation");
        return;
    }
    let problem = UserFunction::new(
        "rastrigin",
        Bounds::uniform(64, -5.12, 5.12).unwrap(),
        RASTRIGIN_TERM,
        |_, z| z,
    )
    .unwrap();
    let fusion = TermFusion::of(&problem);
    assert_eq!(fusion.module, "de_term_user_rastrigin");
    for arch in ["sm_80", "sm_90"] {
        for profile in [Profile::Exact, Profile::Fast] {
            let ptx = compile_to_ptx(&fusion.module, &fusion.source, profile, arch)
                .unwrap_or_else(|e| panic!("{arch} {profile:?}: {e}"));
            assert_eq!(
                entries(&ptx),
                [de::GENERATION_F32.name()],
                "{arch} {profile:?}"
            );
            if arch == "sm_90" {
                let body = entry_ptx(&ptx, de::GENERATION_F32.name());
                for instruction in ["griddepcontrol.wait", "griddepcontrol.launch_dependents"] {
                    assert!(
                        body.contains(instruction),
                        "{profile:?} lacks {instruction}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_user_terms_compile_error_should_carry_the_users_line_number() {
    if !nvrtc_present() {
        eprintln!(
            "SKIPPED (no NVRTC): a_user_terms_compile_error_should_carry_the_users_line_number"
        );
        return;
    }
    let source = "__device__ double evo_user_term(unsigned long long i, double z)\n{\n    \
                  return z * undefined_name;\n}\n";
    let problem = UserFunction::new(
        "broken",
        Bounds::uniform(8, -1.0, 1.0).unwrap(),
        source,
        |_, z| z,
    )
    .unwrap();
    let fusion = TermFusion::of(&problem);
    match compile_to_ptx(&fusion.module, &fusion.source, Profile::Exact, "sm_80") {
        Err(Error::KernelCompile { log, .. }) => {
            assert!(log.contains("user_broken(3)"), "{log}");
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}
