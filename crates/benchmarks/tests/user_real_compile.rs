//! A user real-vector module (`UserProblem`: the prelude, the user's terms and `user_real.cuh`'s kernel)
//! compiles for one to four combined sums and with data arrays, under both profiles, for the oldest and newest
//! supported architectures, wherever NVRTC is installed (no GPU needed); without NVRTC the test says so and
//! passes.

use evo_benchmarks::cuda::{DataLength, USER_REAL_TILES, UserData, UserProblem, UserTwin};
use evo_core::Bounds;
use evo_gpu_runtime::{Profile, compile_to_ptx, nvrtc_present};

/// A twin that is never evaluated here (only the CUDA side compiles).
struct Unused;

impl UserTwin for Unused {
    fn terms(&self, _: usize, _: &[f32], _: &UserData, t: &mut [f64]) {
        t.fill(0.0);
    }
}

/// Terms writing `sums` values (reading a data array), with a combine when `sums > 1`.
fn source(sums: usize) -> String {
    let writes: String = (0..sums)
        .map(|k| format!("    t[{k}] = z * (double)data.w[i] + {k}.0;\n"))
        .collect();
    let mut text = format!(
        "__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,\n\
         const EvoUserData& data, double* t)\n{{\n    const double z = (double)x[i];\n{writes}}}\n"
    );
    if sums > 1 {
        text.push_str(
            "__device__ double evo_user_combine(const double* sums, unsigned long long d, \
             const EvoUserData& data) { return sums[0] + sums[1]; }\n",
        );
    }
    text
}

#[test]
fn user_real_modules_compile_for_every_sum_count() {
    if !nvrtc_present() {
        eprintln!("SKIPPED (no NVRTC): user_real_modules_compile_for_every_sum_count");
        return;
    }
    for sums in 1..=4 {
        let data = UserData::new()
            .with_f32("w", vec![1.0; 40], DataLength::Dimension)
            .unwrap();
        let mut problem = UserProblem::new(
            "compile",
            Bounds::uniform(40, -1.0, 1.0).unwrap(),
            &source(sums),
            Unused,
        )
        .and_then(|p| p.with_data(data))
        .unwrap();
        if sums > 1 {
            problem = problem.with_combined_sums(sums).unwrap();
        }
        for arch in ["sm_80", "sm_90"] {
            for profile in [Profile::Exact, Profile::Fast] {
                let ptx = compile_to_ptx(
                    &problem.module_name(),
                    &problem.module_source(),
                    profile,
                    arch,
                )
                .unwrap_or_else(|e| panic!("{sums} sums, {arch} {profile:?}: {e}"));
                assert!(
                    ptx.contains(USER_REAL_TILES),
                    "{sums} sums, {arch}: no {USER_REAL_TILES}"
                );
                // The kernel keeps its rounds in registers and the last block's stack of segments in shared
                // memory: no local-memory stack.
                assert!(
                    !tiles_ptx(&ptx).contains(".local"),
                    "{sums} sums, {arch} {profile:?}: the tiles kernel uses local memory"
                );
            }
        }
    }
}

/// The PTX of the tiles kernel alone (from its entry to the next entry, or the end).
fn tiles_ptx(ptx: &str) -> &str {
    let start = ptx.find(&format!(".entry {USER_REAL_TILES}")).unwrap_or(0);
    let rest = &ptx[start..];
    let end = rest[1..].find(".entry").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}
