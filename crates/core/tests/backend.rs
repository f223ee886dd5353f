//! Backend parsing, display, serde and the CPU thread pool.

// Helpers outside `#[test]` functions unwrap too: a failure there is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_core::{Backend, Error};
use proptest::prelude::*;

#[test]
fn every_documented_form_parses() {
    let cases = [
        ("auto", Backend::Auto),
        ("cpu", Backend::Cpu { threads: 0 }),
        ("cpu:4", Backend::Cpu { threads: 4 }),
        ("cpu:0", Backend::Cpu { threads: 0 }),
        ("cuda", Backend::Cuda { device: 0 }),
        ("cuda:1", Backend::Cuda { device: 1 }),
        (" CUDA : 2 ", Backend::Cuda { device: 2 }),
        ("Cpu", Backend::cpu()),
    ];
    for (text, expected) in cases {
        assert_eq!(text.parse::<Backend>().unwrap(), expected, "{text:?}");
    }
    assert_eq!(Backend::default(), Backend::auto());
    assert_eq!(Backend::cuda(3), Backend::Cuda { device: 3 });
}

#[test]
fn bad_forms_are_refused_with_the_allowed_forms_listed() {
    for text in [
        "", "gpu", "cpu:", "cpu:x", "cuda:-1", "auto:1", "cpu:4:2", "cuda1",
    ] {
        let error = text.parse::<Backend>().unwrap_err();
        assert!(
            matches!(
                error,
                Error::InvalidParameter {
                    algorithm: "Backend",
                    name: "backend",
                    ..
                }
            ),
            "{text:?}: {error}"
        );
        let message = error.to_string();
        assert!(
            message.contains("`cpu:<threads>`") && message.contains("`cuda:<device>`"),
            "{message}"
        );
    }
}

#[test]
fn display_writes_the_canonical_form() {
    assert_eq!(Backend::cpu().to_string(), "cpu");
    assert_eq!(Backend::Cpu { threads: 8 }.to_string(), "cpu:8");
    assert_eq!(Backend::cuda(0).to_string(), "cuda:0");
    assert_eq!(Backend::auto().to_string(), "auto");
}

#[test]
fn serde_uses_the_string_form() {
    assert_eq!(
        serde_json::to_string(&Backend::cuda(1)).unwrap(),
        r#""cuda:1""#
    );
    assert_eq!(
        serde_json::from_str::<Backend>(r#""cpu:2""#).unwrap(),
        Backend::Cpu { threads: 2 }
    );
    assert!(serde_json::from_str::<Backend>(r#""tpu""#).is_err());
}

#[test]
fn cpu_backends_build_a_pool_of_the_requested_size() {
    let pool = Backend::Cpu { threads: 2 }
        .cpu_thread_pool()
        .unwrap()
        .unwrap();
    assert_eq!(pool.current_num_threads(), 2);
    assert!(Backend::cuda(0).cpu_thread_pool().unwrap().is_none());
    assert!(Backend::auto().cpu_thread_pool().unwrap().is_none());
}

fn any_backend() -> impl Strategy<Value = Backend> {
    prop_oneof![
        Just(Backend::Auto),
        any::<usize>().prop_map(|threads| Backend::Cpu { threads }),
        any::<usize>().prop_map(|device| Backend::Cuda { device }),
    ]
}

proptest! {
    #[test]
    fn display_then_parse_is_the_identity(backend in any_backend()) {
        prop_assert_eq!(backend.to_string().parse::<Backend>().unwrap(), backend);
    }
}

#[test]
fn absurd_thread_counts_are_refused_before_any_thread_starts() {
    let limit = evo_core::backend::max_cpu_threads();
    assert!(limit >= evo_core::backend::MIN_THREAD_LIMIT);
    // `cpu:30000` used to start 30000 rayon workers and stall for minutes; any count above the limit (30000
    // on any machine with fewer than 3750 hardware threads) is now refused at once.
    for threads in [limit + 1, 30_000.max(limit + 1), usize::MAX] {
        let backend = Backend::Cpu { threads };
        for error in [
            backend.validate().unwrap_err(),
            backend.cpu_thread_pool().unwrap_err(),
            evo_core::backend::thread_pool(threads).unwrap_err(),
        ] {
            assert!(
                matches!(
                    &error,
                    Error::InvalidParameter { name: "CPU thread count", allowed, .. }
                        if allowed.starts_with(&format!("in 0..={limit} "))
                ),
                "{error}"
            );
            assert!(error.to_string().ends_with(&format!("got {threads}")));
        }
    }
    assert!(Backend::cuda(7).validate().is_ok());
    assert!(Backend::auto().validate().is_ok());
}

#[test]
fn every_machine_accepts_the_floor_of_the_limit() {
    let threads = evo_core::backend::MIN_THREAD_LIMIT;
    Backend::Cpu { threads }.validate().unwrap();
    let pool = evo_core::backend::thread_pool(threads).unwrap();
    assert_eq!(pool.current_num_threads(), threads);
}
