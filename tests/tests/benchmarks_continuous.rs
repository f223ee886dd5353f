//! GPU evaluation of the continuous test problems equals the CPU reference bit for bit (Exact profile), at
//! two block sizes; `suite::benchmarks_continuous` lists the sizes.

use evo_benchmarks::cuda::{CudaProblem, UserFunction};
use evo_benchmarks::{GaFunction, ShiftedFunction};
use evo_core::{Bounds, Error};
use evo_equivalence::equivalence_test;
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_equivalence::suite::benchmarks_continuous::{
    CEC_FUNCTIONS, Case, check_binary, check_case, check_fast_profile,
    check_finish_block_independence, check_finish_layout, check_large, check_reused_evaluator,
    check_user_function, user_term,
};
use evo_gpu_runtime::Profile;

fn assert_all(reports: Vec<evo_equivalence::suite::CheckReport>) {
    for report in reports {
        report.assert_passed();
    }
}

equivalence_test!(ga_functions_should_match_cpu, [128, 256], |gpu, block| {
    for function in GaFunction::ALL {
        assert_all(check_case(gpu, Case::Ga(function), block));
    }
});

equivalence_test!(ga_binary_should_match_cpu, [128, 256], |gpu, block| {
    for function in GaFunction::ALL {
        assert_all(check_binary(gpu, function, block));
    }
});

equivalence_test!(de_rastrigin_should_match_cpu, [128, 256], |gpu, block| {
    assert_all(check_case(gpu, Case::DeRastrigin, block));
});

equivalence_test!(
    shifted_functions_should_match_cpu,
    [128, 256],
    |gpu, block| {
        for function in ShiftedFunction::ALL {
            assert_all(check_case(gpu, Case::Shifted(function), block));
        }
    }
);

equivalence_test!(cec2010_should_match_cpu, [128, 256], |gpu, block| {
    for number in CEC_FUNCTIONS {
        assert_all(check_case(gpu, Case::Cec(number), block));
    }
});

equivalence_test!(
    large_dimensions_should_match_cpu,
    [128, 256],
    |gpu, block| {
        assert_all(check_large(gpu, block));
    }
);

equivalence_test!(
    reused_evaluator_should_match_cpu_every_call,
    [128, 256],
    |gpu, block| {
        assert_all(check_reused_evaluator(gpu, block));
    }
);

equivalence_test!(
    finish_should_read_the_leaf_slot_layout,
    [256],
    |gpu, _block| {
        assert_all(vec![check_finish_layout(gpu)]);
    }
);

equivalence_test!(
    finish_kernels_should_not_depend_on_the_block_size,
    [256],
    |gpu, _block| {
        assert_all(check_finish_block_independence(gpu));
    }
);

equivalence_test!(
    fast_profile_should_stay_within_documented_ulps,
    [256],
    |gpu, block| {
        for report in check_fast_profile(gpu, block) {
            eprintln!("{}: max {}", report.check, report.max_difference);
            report.assert_passed();
        }
    }
);

equivalence_test!(user_function_should_match_cpu, [128, 256], |gpu, block| {
    assert_all(check_user_function(gpu, block));
});

const BROKEN_TERM: &str =
    "__device__ double evo_user_term(unsigned long long i, double z) { return z * missing; }";

fn broken() -> UserFunction<fn(usize, f64) -> f64> {
    UserFunction::new(
        "broken-term",
        Bounds::uniform(8, -1.0, 1.0).unwrap(),
        BROKEN_TERM,
        user_term as fn(usize, f64) -> f64,
    )
    .unwrap()
}

fn assert_compile_error_with_log(result: Result<(), Error>) {
    match result {
        Err(Error::KernelCompile { log, kernel, .. }) => {
            assert_eq!(kernel, "user_broken-term");
            assert!(
                log.contains("missing"),
                "the log names the undefined identifier: {log}"
            );
        }
        other => panic!("expected a KernelCompile error with the NVRTC log, got {other:?}"),
    }
}

#[test]
fn user_function_compile_error_carries_the_nvrtc_log() {
    if nvrtc_or_skip("user_function_compile_error_carries_the_nvrtc_log") {
        assert_compile_error_with_log(broken().check_compiles(Profile::Exact, "sm_80"));
    }
}

#[test]
fn user_function_compile_error_on_the_gpu_carries_the_nvrtc_log() {
    if let Some(gpu) = gpu_or_skip("user_function_compile_error_on_the_gpu_carries_the_nvrtc_log") {
        assert_compile_error_with_log(broken().cuda_evaluator(&gpu).map(|_| ()));
    }
}

#[test]
fn finish_prefix_rejects_summaries_per_thread_other_than_4_or_8() {
    let Some(gpu) = gpu_or_skip("finish_prefix_rejects_summaries_per_thread_other_than_4_or_8")
    else {
        return;
    };
    let nodes = gpu.upload(&[0.0f64; 4]).unwrap();
    let mut fitness = gpu.alloc::<f64>(1).unwrap();
    for leaves in [0u64, 2, 5, 16] {
        let params = evo_benchmarks::cuda::launch::FinishParams {
            tiles: 1,
            n: 0,
            bias: 0.0,
            combine: 0,
            add_bias: 0,
            leaves,
        };
        let error = evo_benchmarks::cuda::launch::finish_prefix(
            &gpu,
            &nodes,
            &mut fitness,
            params,
            1,
            Profile::Exact,
            32,
        )
        .unwrap_err();
        assert!(
            matches!(error, Error::InvalidParameter { .. }) && error.to_string().contains("4 or 8"),
            "leaves {leaves}: {error}"
        );
    }
}
