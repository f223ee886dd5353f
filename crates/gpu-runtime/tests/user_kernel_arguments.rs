//! A user kernel launched with arguments that do not match its parameter list is refused with
//! `Error::KernelArguments` before the driver sees the launch (which would read past the argument array: a
//! segfault of the whole process), and the device stays usable; the matching launch computes the right values.
//! Skips (printing SKIPPED) without a GPU; fails instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use evo_core::Error;
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, Launch, LaunchConfig, Profile};

const SOURCE: &str = r#"
struct ArgsProbeShape { unsigned long long rows; unsigned long long columns; };

// The mistake of the issue: the scalars declared one by one, which one struct by value does not fill.
extern "C" __global__ void args_probe_scalars(const float* x, float* sums, unsigned long long rows,
                                              unsigned long long columns) {
    unsigned long long row = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (row < rows) sums[row] = x[row * columns];
}

// The rule: every scalar in one struct passed by value. Each row's sum of squares, in column order.
extern "C" __global__ void args_probe_squares(const float* x, float* sums, ArgsProbeShape shape) {
    unsigned long long row = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (row >= shape.rows) return;
    float sum = 0.0f;
    for (unsigned long long column = 0; column < shape.columns; ++column) {
        float value = x[row * shape.columns + column];
        sum += value * value;
    }
    sums[row] = sum;
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct Shape {
    rows: u64,
    columns: u64,
}
const _: () = assert!(size_of::<Shape>() == 16);
// SAFETY: repr(C), two u64, the layout of `ArgsProbeShape` in SOURCE.
unsafe impl KernelParams for Shape {}

/// A struct of the wrong size for `ArgsProbeShape`: two 32-bit fields, 8 bytes.
#[repr(C)]
#[derive(Clone, Copy)]
struct NarrowShape {
    rows: u32,
    columns: u32,
}
const _: () = assert!(size_of::<NarrowShape>() == 8);
// SAFETY: repr(C), two u32; never reaches a kernel, the launches that pass it are refused before the driver.
unsafe impl KernelParams for NarrowShape {}

const ROWS: usize = 300;
const COLUMNS: usize = 7;

/// `entry` of SOURCE, or `None` (printing SKIPPED) where the driver cannot report parameter lists (before CUDA
/// 12.4): then nothing is checked, and a mismatched launch would crash the test. Under `EVO_REQUIRE_GPU=1`
/// the missing list fails the test instead.
fn checked_kernel(gpu: &Gpu, test: &str, entry: &str) -> Option<Kernel> {
    let kernel = gpu
        .user_kernel("args_probe", SOURCE, entry, Profile::Exact)
        .unwrap();
    if kernel.parameter_sizes().is_some() {
        return Some(kernel);
    }
    assert!(
        !common::gpu_required(),
        "{test}: the driver does not report kernel parameter lists (cuFuncGetParamInfo, CUDA 12.4), but \
         EVO_REQUIRE_GPU=1 requires the check"
    );
    common::announce(&format!("SKIPPED (driver before CUDA 12.4): {test}"));
    None
}

fn input() -> Vec<f32> {
    (0..ROWS * COLUMNS)
        .map(|i| (i % 23) as f32 * 0.37 - 2.5)
        .collect()
}

fn config() -> LaunchConfig {
    LaunchConfig::linear(u32::try_from(ROWS.div_ceil(128)).unwrap(), 128, 0)
}

fn shape() -> Shape {
    Shape {
        rows: ROWS as u64,
        columns: COLUMNS as u64,
    }
}

/// Runs `launch` and returns the `KernelArguments` error's fields, failing on anything else.
fn refused(launch: Launch<'_>) -> (String, String, String) {
    // SAFETY: the launch does not match the kernel and must be refused before it reaches the driver; were it
    // not, the test would crash, which is the failure this test exists to catch.
    match unsafe { launch.run(config()) } {
        Err(Error::KernelArguments {
            kernel,
            expected,
            given,
        }) => (kernel, expected, given),
        other => panic!("expected Error::KernelArguments, got {other:?}"),
    }
}

/// The matching launch of `args_probe_squares`, and its result checked against the host's sums in the same
/// order (the Exact profile contracts nothing, so the bits agree).
fn check_squares(gpu: &Gpu) {
    let kernel = gpu
        .user_kernel("args_probe", SOURCE, "args_probe_squares", Profile::Exact)
        .unwrap();
    let host = input();
    let x = gpu.upload(&host).unwrap();
    let mut sums: DeviceBuffer<f32> = gpu.alloc_zeroed(ROWS).unwrap();
    // SAFETY: the arguments follow `(const float*, float*, ArgsProbeShape)`; the kernel reads rows × columns
    // values of x and writes rows sums, the buffers' lengths.
    unsafe {
        kernel
            .launch()
            .input(&x)
            .output(&mut sums)
            .params(&shape())
            .run(config())
    }
    .unwrap();
    let expected: Vec<u32> = host
        .chunks(COLUMNS)
        .map(|row| row.iter().fold(0.0f32, |sum, v| sum + v * v).to_bits())
        .collect();
    let got: Vec<u32> = sums.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, expected);
}

#[test]
fn two_scalar_parameters_launched_with_one_struct_are_refused_and_the_device_stays_usable() {
    const TEST: &str =
        "two_scalar_parameters_launched_with_one_struct_are_refused_and_the_device_stays_usable";
    let Some(gpu) = common::gpu_or_skip(TEST) else {
        return;
    };
    let Some(kernel) = checked_kernel(&gpu, TEST, "args_probe_scalars") else {
        return;
    };
    assert_eq!(kernel.parameter_sizes(), Some(&[8, 8, 8, 8][..]));
    let x = gpu.upload(&input()).unwrap();
    let mut sums: DeviceBuffer<f32> = gpu.alloc_zeroed(ROWS).unwrap();
    let (name, expected, given) =
        refused(kernel.launch().input(&x).output(&mut sums).params(&shape()));
    assert_eq!(name, "args_probe_scalars");
    assert_eq!(expected, "4 parameters of 8, 8, 8, 8 bytes");
    assert!(given.starts_with("3 arguments: "), "{given}");
    assert!(given.contains("a params struct of 16 bytes"), "{given}");
    // The overlapping launch path is checked the same way.
    let (_, _, given) = refused(
        kernel
            .launch()
            .overlapping_previous()
            .input(&x)
            .output(&mut sums)
            .params(&shape()),
    );
    assert!(given.starts_with("3 arguments: "), "{given}");
    assert!(!gpu.is_poisoned());
    check_squares(&gpu);
}

#[test]
fn too_few_buffers_are_refused() {
    const TEST: &str = "too_few_buffers_are_refused";
    let Some(gpu) = common::gpu_or_skip(TEST) else {
        return;
    };
    let Some(kernel) = checked_kernel(&gpu, TEST, "args_probe_squares") else {
        return;
    };
    assert_eq!(kernel.parameter_sizes(), Some(&[8, 8, 16][..]));
    let x = gpu.upload(&input()).unwrap();
    let (name, expected, given) = refused(kernel.launch().input(&x).params(&shape()));
    assert_eq!(name, "args_probe_squares");
    assert_eq!(expected, "3 parameters of 8, 8, 16 bytes");
    assert!(given.starts_with("2 arguments: "), "{given}");
    let (_, _, given) = refused(kernel.launch().params(&shape()));
    assert_eq!(
        given,
        "1 argument: a params struct of 16 bytes (argument 1 is 16 bytes where the kernel's parameter is 8 bytes)"
    );
    assert!(!gpu.is_poisoned());
}

#[test]
fn a_params_struct_of_the_wrong_size_is_refused() {
    const TEST: &str = "a_params_struct_of_the_wrong_size_is_refused";
    let Some(gpu) = common::gpu_or_skip(TEST) else {
        return;
    };
    let Some(kernel) = checked_kernel(&gpu, TEST, "args_probe_squares") else {
        return;
    };
    let x = gpu.upload(&input()).unwrap();
    let mut sums: DeviceBuffer<f32> = gpu.alloc_zeroed(ROWS).unwrap();
    let narrow = NarrowShape {
        rows: u32::try_from(ROWS).unwrap(),
        columns: u32::try_from(COLUMNS).unwrap(),
    };
    let (_, expected, given) = refused(kernel.launch().input(&x).output(&mut sums).params(&narrow));
    assert_eq!(expected, "3 parameters of 8, 8, 16 bytes");
    assert!(
        given.ends_with("(argument 3 is 8 bytes where the kernel's parameter is 16 bytes)"),
        "{given}"
    );
    let message = Error::KernelArguments {
        kernel: "args_probe_squares".into(),
        expected,
        given,
    }
    .to_string();
    assert!(message.contains("ONE #[repr(C)] struct"), "{message}");
    assert!(!gpu.is_poisoned());
}

#[test]
fn the_matching_launch_computes_the_sums_of_squares() {
    const TEST: &str = "the_matching_launch_computes_the_sums_of_squares";
    let Some(gpu) = common::gpu_or_skip(TEST) else {
        return;
    };
    // The matching launch works whether or not the driver reports the parameter list.
    check_squares(&gpu);
}
