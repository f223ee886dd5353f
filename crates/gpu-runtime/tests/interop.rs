//! Sharing memory with another library (DLPack): a buffer's device address is where its elements are (a
//! kernel given only the address reads them), the main stream has a real handle, and a foreign stream (here
//! the special default-stream handles) can be ordered after the main stream. Skips (printing SKIPPED) without
//! a GPU; fails instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use evo_gpu_runtime::{
    KernelParams, LEGACY_DEFAULT_STREAM, LaunchConfig, PER_THREAD_DEFAULT_STREAM, Profile,
};

const SOURCE: &str = r#"
struct AddressProbe { unsigned long long address; unsigned long long n; };
extern "C" __global__ void interop_read_address(double* out, AddressProbe p) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < p.n) out[i] = 2.0 * ((const double*)p.address)[i];
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct AddressProbe {
    address: u64,
    n: u64,
}
const _: () = assert!(size_of::<AddressProbe>() == 16);
// SAFETY: repr(C), two u64, the layout of `AddressProbe` in SOURCE; the address is a device address.
unsafe impl KernelParams for AddressProbe {}

#[test]
fn a_device_address_is_where_the_buffer_elements_are() {
    let Some(gpu) = common::gpu_or_skip("a_device_address_is_where_the_buffer_elements_are") else {
        return;
    };
    let values: Vec<f64> = (0..1000).map(|i| f64::from(i) + 0.5).collect();
    let source = gpu.upload(&values).unwrap();
    let mut out = gpu.alloc_zeroed::<f64>(values.len()).unwrap();
    assert_ne!(source.device_address(), out.device_address());
    let kernel = gpu
        .user_kernel(
            "interop_probe",
            SOURCE,
            "interop_read_address",
            Profile::Exact,
        )
        .unwrap();
    let params = AddressProbe {
        address: source.device_address(),
        n: values.len() as u64,
    };
    // SAFETY: the kernel reads n doubles at the address of `source` (n elements, alive until the copy back
    // below waits) and writes n doubles of `out`.
    unsafe {
        kernel
            .launch()
            .output(&mut out)
            .params(&params)
            .run(LaunchConfig::linear(4, 256, 0))
            .unwrap();
    }
    let doubled: Vec<f64> = values.iter().map(|v| 2.0 * v).collect();
    assert_eq!(out.to_vec().unwrap(), doubled);
}

#[test]
fn default_streams_can_be_ordered_after_the_main_stream() {
    let Some(gpu) = common::gpu_or_skip("default_streams_can_be_ordered_after_the_main_stream")
    else {
        return;
    };
    let handle = gpu.main_stream_handle();
    assert!(
        handle > PER_THREAD_DEFAULT_STREAM,
        "the main stream is a created stream, got {handle:#x}"
    );
    for foreign in [LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM] {
        // SAFETY: the special handles name the default streams of the current context.
        unsafe { gpu.order_after_main(foreign) }.unwrap();
    }
    gpu.synchronize().unwrap();
}

#[test]
fn one_stream_order_event_serves_many_hand_offs_both_ways() {
    let Some(gpu) = common::gpu_or_skip("one_stream_order_event_serves_many_hand_offs_both_ways")
    else {
        return;
    };
    let order = evo_gpu_runtime::StreamOrder::new(&gpu).unwrap();
    assert_eq!(order.gpu().index(), gpu.index());
    let values: Vec<f64> = (0..4096).map(f64::from).collect();
    let mut buffer = gpu.alloc_zeroed::<f64>(values.len()).unwrap();
    for round in 0..1000 {
        let foreign = if round % 2 == 0 {
            LEGACY_DEFAULT_STREAM
        } else {
            PER_THREAD_DEFAULT_STREAM
        };
        buffer.copy_from_host(&values).unwrap();
        // SAFETY: the special handles name the default streams of the current context.
        unsafe {
            order.order_after_main(foreign).unwrap();
            order.order_main_after(foreign).unwrap();
        }
    }
    gpu.synchronize().unwrap();
    assert_eq!(buffer.to_vec().unwrap(), values);
}
