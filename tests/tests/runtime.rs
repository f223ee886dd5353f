//! The GPU runtime's contracts that a user meets directly: typed errors for bad input, the PTX cache, the
//! buffer pool's steady state, the device pool.

use evo_core::{Backend, Error};
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_gpu_runtime::{
    DevicePool, Gpu, LaunchConfig, Profile, cached_ptx_in, compile_to_ptx, core_kernels,
    resolve_backend,
};
use evo_kernels::ModuleId;

/// A source with a deliberate error on a known line.
const BROKEN_SOURCE: &str =
    "extern \"C\" __global__ void broken_kernel(float* out)\n{\n    out[0] = undeclared_name;\n}\n";

/// The tests below that use the device run one at a time: the buffer pool's counters and a graph recording's
/// pool are the device's, shared by every thread of this test binary.
static DEVICE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The device (or `None` without one, as `gpu_or_skip`), held by this test until the guard drops.
fn device_for(test: &str) -> Option<(std::sync::MutexGuard<'static, ()>, Gpu)> {
    let guard = DEVICE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    gpu_or_skip(test).map(|gpu| (guard, gpu))
}

#[test]
fn opening_a_device_that_does_not_exist_is_a_typed_error() {
    match Gpu::open(1000) {
        Err(Error::NoSuchDevice { index, count, .. }) => {
            assert_eq!(index, 1000);
            let message = Gpu::open(1000).unwrap_err().to_string();
            assert!(message.contains("device 1000 does not exist"), "{message}");
            assert!(message.contains(&format!("{count} device(s)")), "{message}");
        }
        Err(Error::NoGpu { reason }) => {
            assert!(!reason.is_empty());
            println!("no driver on this machine, so device 1000 gives NoGpu: {reason}");
        }
        other => panic!("expected NoSuchDevice or NoGpu, got {other:?}"),
    }
}

#[test]
fn a_kernel_that_does_not_compile_returns_nvrtc_log() {
    if !nvrtc_or_skip("a_kernel_that_does_not_compile_returns_nvrtc_log") {
        return;
    }
    // sm_80 is accepted by NVRTC 12 (CI's PyPI wheel) and NVRTC 13 (which dropped sm_70).
    let error = compile_to_ptx("broken", BROKEN_SOURCE, Profile::Exact, "sm_80").unwrap_err();
    match &error {
        Error::KernelCompile {
            kernel,
            arch,
            options,
            log,
        } => {
            assert_eq!(kernel, "broken");
            assert_eq!(arch, "sm_80");
            assert!(options.contains("--fmad=false"), "{options}");
            assert!(log.contains("undeclared_name"), "{log}");
            assert!(
                log.contains("broken.cu(3)"),
                "the log locates the line: {log}"
            );
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
    assert!(error.to_string().contains("undeclared_name"));
}

#[test]
fn registry_modules_compile_and_the_disk_cache_serves_the_second_request() {
    if !nvrtc_or_skip("registry_modules_compile_and_the_disk_cache_serves_the_second_request") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("evo-ptx-cache-test-{}", std::process::id()));
    let module = ModuleId::Reduce.module();
    let first = cached_ptx_in(
        Some(&dir),
        module.name,
        module.source,
        Profile::Exact,
        "sm_80",
    )
    .unwrap();
    let second = cached_ptx_in(
        Some(&dir),
        module.name,
        module.source,
        Profile::Exact,
        "sm_80",
    )
    .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!first.from_cache);
    assert!(second.from_cache);
    assert_eq!(first.ptx, second.ptx);
    assert!(first.ptx.contains(".entry reduce_sum_f64"));
}

#[test]
fn auto_backend_resolves_to_an_existing_device_or_the_cpu() {
    match resolve_backend(Backend::Auto).unwrap() {
        Backend::Cpu { threads } => assert_eq!(threads, 0),
        Backend::Cuda { device } => assert!(Gpu::open(device).is_ok()),
        other => panic!("Auto must resolve to Cpu or Cuda, got {other:?}"),
    }
}

#[test]
fn allocation_larger_than_the_gpu_is_out_of_memory_with_the_facts() {
    let Some((_device, gpu)) =
        device_for("allocation_larger_than_the_gpu_is_out_of_memory_with_the_facts")
    else {
        return;
    };
    let (_, total) = gpu.memory().unwrap();
    let requested = total as usize + (1 << 30);
    match gpu.alloc::<u8>(requested) {
        Err(Error::GpuOutOfMemory {
            device,
            requested: asked,
            free,
            total: reported,
        }) => {
            assert_eq!(device, gpu.index());
            assert_eq!(asked, requested as u64);
            assert!(free <= reported);
            let message = gpu.alloc::<u8>(requested).unwrap_err().to_string();
            assert!(
                message.contains(&format!("asked for {requested} bytes")),
                "{message}"
            );
            println!("{message}");
        }
        other => panic!("expected GpuOutOfMemory, got {other:?}"),
    }
}

#[test]
fn user_source_that_does_not_compile_gives_the_log_on_the_gpu_path() {
    let Some((_device, gpu)) =
        device_for("user_source_that_does_not_compile_gives_the_log_on_the_gpu_path")
    else {
        return;
    };
    let error = gpu
        .user_kernel("broken", BROKEN_SOURCE, "broken_kernel", Profile::Exact)
        .unwrap_err();
    assert!(
        matches!(&error, Error::KernelCompile { log, .. } if log.contains("undeclared_name")),
        "{error}"
    );
}

#[test]
fn unknown_entry_point_and_bad_launch_shape_name_the_kernel() {
    let Some((_device, gpu)) =
        device_for("unknown_entry_point_and_bad_launch_shape_name_the_kernel")
    else {
        return;
    };
    let missing = gpu
        .kernel(ModuleId::Reduce, "reduce_nothing", Profile::Exact)
        .unwrap_err();
    assert!(missing.to_string().contains("reduce_nothing"), "{missing}");

    let kernel = gpu
        .kernel(ModuleId::Reduce, "reduce_sum_f64", Profile::Exact)
        .unwrap();
    let terms = gpu.upload(&[1.0f64; 4]).unwrap();
    let mut out = gpu.alloc::<f64>(1).unwrap();
    let params = core_kernels::ReduceParams { n: 4 };
    // SAFETY: the arguments match reduce_sum_f64's signature; the launch is rejected before it is queued.
    let error = unsafe {
        kernel
            .launch()
            .input(&terms)
            .output(&mut out)
            .params(&params)
            .run(LaunchConfig::linear(1, 2048, 0))
    }
    .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("reduce_sum_f64") && message.contains("2048"),
        "{message}"
    );
}

#[test]
fn the_dynamic_shared_memory_limit_of_a_kernel_only_rises() {
    let Some((_device, gpu)) = device_for("the_dynamic_shared_memory_limit_of_a_kernel_only_rises")
    else {
        return;
    };
    let most = gpu.max_shared_bytes_per_block().unwrap();
    let large = most.min(100_000);
    let small = large / 2;
    // Two handles of one function, as two threads would hold: the limit is the function's.
    let first = gpu
        .kernel(ModuleId::Reduce, "reduce_sum_f64", Profile::Exact)
        .unwrap();
    let second = gpu
        .kernel(ModuleId::Reduce, "reduce_sum_f64", Profile::Exact)
        .unwrap();
    first.allow_dynamic_shared_bytes(large).unwrap();
    assert!(first.dynamic_shared_bytes_allowed().unwrap() >= large);
    // A smaller request (another thread's launch) must not lower it under the first one's launch.
    second.allow_dynamic_shared_bytes(small).unwrap();
    assert!(
        first.dynamic_shared_bytes_allowed().unwrap() >= large,
        "lowered to {}",
        first.dynamic_shared_bytes_allowed().unwrap()
    );
    assert!(second.dynamic_shared_bytes_allowed().unwrap() >= large);
}

#[test]
fn a_steady_pooled_loop_makes_no_device_allocations() {
    let Some((_device, gpu)) = device_for("a_steady_pooled_loop_makes_no_device_allocations")
    else {
        return;
    };
    let host: Vec<f64> = (0..100_000).map(|i| i as f64).collect();
    let iteration = || {
        let population = gpu.upload(&host).unwrap();
        let scratch = gpu.alloc::<f32>(3 * host.len()).unwrap();
        let sum = core_kernels::reduce_sum_f64(&gpu, &population, 256).unwrap();
        drop(scratch);
        sum
    };
    let expected = iteration();
    let before = gpu.buffer_pool_stats();
    for _ in 0..1000 {
        assert_eq!(iteration().to_bits(), expected.to_bits());
    }
    let after = gpu.buffer_pool_stats();
    println!(
        "1000 steady iterations: {} new device allocations, {} pool reuses",
        after.device_allocations - before.device_allocations,
        after.reuses - before.reuses
    );
    assert_eq!(after.device_allocations, before.device_allocations);
    assert!(after.reuses >= before.reuses + 4000);
}

#[test]
fn device_pool_returns_results_in_job_order() {
    let Some((_device, _gpu)) = device_for("device_pool_returns_results_in_job_order") else {
        return;
    };
    let pool = DevicePool::all().unwrap();
    let sums = pool
        .run((1..=20usize).collect(), |gpu, n| {
            let terms: Vec<f64> = (1..=n).map(|i| i as f64).collect();
            core_kernels::reduce_sum_f64(gpu, &gpu.upload(&terms)?, 128)
        })
        .unwrap();
    let expected: Vec<f64> = (1..=20usize).map(|n| (n * (n + 1) / 2) as f64).collect();
    assert_eq!(sums, expected);
    let failing = pool.run(vec![1, 2, 3], |_, job| {
        if job == 2 {
            Err(Error::invalid_parameter("test", "job", job, "not 2"))
        } else {
            Ok(job)
        }
    });
    assert!(matches!(failing, Err(Error::InvalidParameter { .. })));
}

#[test]
fn a_recorded_graph_runs_only_when_launched_and_replays_in_order() {
    use evo_core::math::MathFunction;
    let Some((_device, gpu)) =
        device_for("a_recorded_graph_runs_only_when_launched_and_replays_in_order")
    else {
        return;
    };
    let start = [0.1f64, -0.5, 0.0, 1.25];
    let mut x = gpu.upload(&start).unwrap();
    let y = gpu.upload(&[0.0f64; 4]).unwrap();
    let mut out = gpu.upload(&[0.0f64; 4]).unwrap();
    // One step x ← exp(x), queued once outside a recording so that the temporary below is pooled.
    let step = |x: &mut evo_gpu_runtime::DeviceBuffer<f64>,
                out: &mut evo_gpu_runtime::DeviceBuffer<f64>|
     -> evo_core::Result<()> {
        let scratch = gpu.alloc::<f64>(1000)?;
        core_kernels::math_eval_f64(&gpu, MathFunction::Exp, x, &y, out, Profile::Exact, 128)?;
        x.copy_from_device(out)?;
        drop(scratch);
        Ok(())
    };
    step(&mut x, &mut out).unwrap();
    let once = x.to_vec().unwrap();
    let other_x = gpu.upload(&[0.0f64, 1.0]).unwrap();
    let other_y = gpu.upload(&[0.0f64; 2]).unwrap();
    let mut other_out = gpu.upload(&[9.0f64; 2]).unwrap();
    let graph = gpu
        .record_graph(|| {
            step(&mut x, &mut out)?;
            // Another thread's launch meanwhile goes to the real main stream and runs, unrecorded; its
            // waits (a whole-device synchronize, a copy to the host) work while this thread records.
            let seen = std::thread::scope(|scope| {
                scope
                    .spawn(|| {
                        core_kernels::math_eval_f64(
                            &gpu,
                            MathFunction::Exp,
                            &other_x,
                            &other_y,
                            &mut other_out,
                            Profile::Exact,
                            128,
                        )?;
                        gpu.synchronize()?;
                        other_out.to_vec()
                    })
                    .join()
                    .unwrap()
            })?;
            assert_eq!(seen, vec![1.0, evo_core::math::exp_f64(1.0)]);
            Ok(())
        })
        .unwrap();
    assert_eq!(
        graph.kept_buffers(),
        1,
        "the dropped temporary stays with the graph"
    );
    assert_eq!(x.to_vec().unwrap(), once, "recording runs nothing");
    assert_eq!(
        other_out.to_vec().unwrap(),
        vec![1.0, evo_core::math::exp_f64(1.0)],
        "the other thread's work ran"
    );
    for _ in 0..3 {
        // SAFETY: x, y and out outlive the graph.
        unsafe { graph.launch().unwrap() };
    }
    let mut expected = start.to_vec();
    for _ in 0..4 {
        expected = expected
            .iter()
            .map(|&v| evo_core::math::exp_f64(v))
            .collect();
    }
    let got = x.to_vec().unwrap();
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        "one step and three replays = four steps, in order"
    );
    drop(graph);
}

#[test]
fn a_recording_refuses_host_waits_driver_allocations_and_nesting() {
    let Some((_device, gpu)) =
        device_for("a_recording_refuses_host_waits_driver_allocations_and_nesting")
    else {
        return;
    };
    let data = gpu.upload(&[1.0f64, 2.0, 3.0]).unwrap();
    let waits = gpu.record_graph(|| data.to_vec().map(|_| ()));
    assert!(
        waits.is_err(),
        "a copy to the host inside a recording fails"
    );
    // A size class no pool holds: 3 GiB + 1 byte.
    let allocates = gpu.record_graph(|| gpu.alloc::<u8>((3 << 30) + 1).map(|_| ()));
    match allocates {
        Err(Error::InvalidParameter { name, .. }) => {
            assert!(name.contains("recording"), "{name}")
        }
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
    let nested = gpu.record_graph(|| gpu.record_graph(|| Ok(())).map(|_| ()));
    assert!(matches!(nested, Err(Error::InvalidParameter { .. })));
    let sum = core_kernels::reduce_sum_f64(&gpu, &data, 128).unwrap();
    assert_eq!(sum, 6.0, "the device works after the failed recordings");
}
