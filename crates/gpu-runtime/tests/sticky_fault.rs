//! A kernel that writes through a null pointer on a real GPU: the fault is reported as a poisoned device naming
//! that kernel (not `cuMemcpyDtoH`), every later call fails fast with the same error, `Gpu::reopen` refuses
//! while handles are alive and gives a working device once they are dropped. Alone in its binary, because the
//! fault kills the device's context for the whole process. Skips (printing SKIPPED) without a GPU; fails
//! instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use evo_core::Error;
use evo_gpu_runtime::{Gpu, KernelParams, LaunchConfig, Profile, core_kernels};

const SOURCE: &str = r#"
struct FaultParams { unsigned long long address; unsigned int n; };
extern "C" __global__ void fault_probe_fill(unsigned int* out, FaultParams p) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) out[i] = i;
}
extern "C" __global__ void fault_probe_null_write(unsigned int* out, FaultParams p) {
    // The address comes from the host (0), so the compiler cannot see that it is null and drop the store.
    unsigned int* target = reinterpret_cast<unsigned int*>(p.address);
    target[threadIdx.x] = p.n;
    out[0] = 1u;
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct FaultParams {
    address: u64,
    n: u32,
    _pad: u32,
}
const _: () = assert!(size_of::<FaultParams>() == 16);
// SAFETY: repr(C), plain integers, the layout of `FaultParams` in SOURCE (8 + 4 bytes, padded to 16 there
// too by the alignment of the 64-bit field).
unsafe impl KernelParams for FaultParams {}

fn launch(
    gpu: &Gpu,
    entry: &str,
    out: &mut evo_gpu_runtime::DeviceBuffer<u32>,
    address: u64,
) -> evo_core::Result<()> {
    let kernel = gpu.user_kernel("fault_probe", SOURCE, entry, Profile::Exact)?;
    let n = u32::try_from(out.len()).unwrap();
    // SAFETY: the arguments follow `(unsigned int*, FaultParams)`; `fault_probe_fill` writes indices below n,
    // the buffer's length; `fault_probe_null_write` writes through `address`, which is the fault under test.
    unsafe {
        kernel
            .launch()
            .output(out)
            .params(&FaultParams {
                address,
                n,
                _pad: 0,
            })
            .run(LaunchConfig::linear(1, 32, 0))
    }
}

fn assert_poisoned_by_null_write(error: &Error, index: usize) {
    match error {
        Error::DevicePoisoned { device, kernel, .. } => {
            assert_eq!(*device, index, "{error}");
            assert_eq!(kernel, "fault_probe_null_write", "{error}");
        }
        other => panic!("expected a poisoned device naming the faulting kernel, got: {other}"),
    }
}

const TEST: &str = "a_sticky_fault_poisons_the_device_names_the_kernel_and_reopen_recovers";
/// Set in a child process, which only checks that the device works.
const CHILD: &str = "EVO_GPU_RUNTIME_FAULT_CHILD";

/// Some work that must succeed on a healthy device.
fn check_healthy(gpu: &Gpu) {
    let terms: Vec<f64> = (1..=10_000).map(f64::from).collect();
    let sum = core_kernels::reduce_sum_f64(gpu, &gpu.upload(&terms).unwrap(), 256).unwrap();
    assert_eq!(
        sum.to_bits(),
        evo_core::reduce::pairwise_sum_f64(&terms).to_bits()
    );
}

/// Runs this test again in a new process, in child mode, and checks that it succeeds.
fn healthy_in_a_new_process() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "a new process could not use the device:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_sticky_fault_poisons_the_device_names_the_kernel_and_reopen_recovers() {
    let Some(gpu) = common::gpu_or_skip(TEST) else {
        return;
    };
    if std::env::var_os(CHILD).is_some() {
        check_healthy(&gpu);
        return;
    }
    let index = gpu.index();
    let mut out = gpu.alloc::<u32>(32).unwrap();
    launch(&gpu, "fault_probe_fill", &mut out, 0).unwrap();
    assert_eq!(out.to_vec().unwrap()[31], 31);

    launch(&gpu, "fault_probe_null_write", &mut out, 0).unwrap();
    let first = out.to_vec().unwrap_err();
    assert_poisoned_by_null_write(&first, index);
    assert!(gpu.is_poisoned());

    // Every later call fails fast with the same error.
    let same = |result: evo_core::Result<()>, what: &str| {
        let error = result.unwrap_err();
        assert_eq!(error.to_string(), first.to_string(), "{what}");
    };
    same(gpu.alloc::<f64>(1000).map(drop), "alloc");
    same(gpu.synchronize(), "synchronize");
    same(launch(&gpu, "fault_probe_fill", &mut out, 0), "launch");
    same(out.copy_from_host(&[0; 32]), "copy to the device");
    same(gpu.memory().map(drop), "memory");

    // Reopening refuses while handles of the poisoned device are alive, and changes nothing.
    let refused = Gpu::reopen(index).unwrap_err();
    assert!(
        matches!(refused, Error::InvalidParameter { .. }),
        "{refused}"
    );
    assert!(gpu.is_poisoned());

    drop(out);
    drop(gpu);
    let fresh = match Gpu::reopen(index) {
        Ok(fresh) => fresh,
        // The driver may refuse any new context for the rest of the process, as NVIDIA documents.
        Err(Error::DeviceLost { device, kernel, .. }) => {
            assert_eq!((device, kernel.as_str()), (index, "fault_probe_null_write"));
            let again = Gpu::open(index).unwrap_err();
            assert!(matches!(again, Error::DeviceLost { .. }), "{again}");
            assert!(Gpu::reopen(index).is_err());
            // The recovery left: a new process has the device back.
            healthy_in_a_new_process();
            return;
        }
        Err(other) => panic!("reopen failed: {other}"),
    };
    assert!(!fresh.is_poisoned());
    check_healthy(&fresh);
    let mut out = fresh.alloc::<u32>(32).unwrap();
    launch(&fresh, "fault_probe_fill", &mut out, 0).unwrap();
    assert_eq!(out.to_vec().unwrap()[7], 7);
    // A second open returns the same, healthy device.
    assert!(!Gpu::open(index).unwrap().is_poisoned());
}
