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
