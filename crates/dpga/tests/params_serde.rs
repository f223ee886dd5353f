//! The serde form of `DpgaParams`: unchanged on the wire, and validated by the setters when read.

use evo_dpga::{DpgaParams, Encoding};

/// The default params as serialized before deserialization was routed through the setters.
const DEFAULT_JSON: &str = r#"{"main_size":128,"reserve_size":128,"bits_per_variable":20,"crossover_rate":0.8,"mutation_rate":null,"elitism_rate":0.1,"crossbreed_rate":0.1,"tournament_size":2,"crossover":"OnePoint","encoding":"Gray","constraint_handling":"Mcsm","initialisation":"Feasible","init_max_draws":50000,"initial_target_distance":0.5,"distance_learning_rate":0.1,"min_target_distance":0.05,"max_target_distance":0.95}"#;

#[test]
fn the_default_serializes_as_before_and_round_trips() {
    let json = serde_json::to_string(&DpgaParams::default()).unwrap();
    assert_eq!(json, DEFAULT_JSON);
    let back: DpgaParams = serde_json::from_str(&json).unwrap();
    assert_eq!(back, DpgaParams::default());
    let paper = DpgaParams::paper();
    let back: DpgaParams = serde_json::from_str(&serde_json::to_string(&paper).unwrap()).unwrap();
    assert_eq!(back, paper);
}

#[test]
fn out_of_range_values_are_refused_with_the_setters_message() {
    let pc = serde_json::from_str::<DpgaParams>(r#"{"crossover_rate":1.5}"#).unwrap_err();
    assert_eq!(
        pc.to_string(),
        "DPGA: crossover rate must be in [0, 1], got 1.5"
    );
    let m = serde_json::from_str::<DpgaParams>(r#"{"main_size":7}"#).unwrap_err();
    assert!(
        m.to_string()
            .starts_with("DPGA: main population size m must be an even number"),
        "{m}"
    );
    let pm = serde_json::from_str::<DpgaParams>(r#"{"mutation_rate":-0.5}"#).unwrap_err();
    assert!(
        pm.to_string()
            .starts_with("DPGA: mutation rate must be in [0, 1]"),
        "{pm}"
    );
    let delta =
        serde_json::from_str::<DpgaParams>(r#"{"initial_target_distance":0.01}"#).unwrap_err();
    assert!(
        delta.to_string().contains("initial target distance δ0"),
        "{delta}"
    );
}

#[test]
fn a_missing_field_takes_its_default_and_an_unknown_one_is_refused() {
    let partial: DpgaParams = serde_json::from_str(r#"{"main_size":64}"#).unwrap();
    let expected = DpgaParams::default().with_main_size(64).unwrap();
    // A missing encoding reads as binary (snapshots written before the option existed).
    assert_eq!(partial, expected.with_encoding(Encoding::Binary));
    let typo =
        serde_json::from_str::<DpgaParams>(r#"{"encoding":"Gray","mainsize":64}"#).unwrap_err();
    assert!(
        typo.to_string().contains("unknown field `mainsize`"),
        "{typo}"
    );
}
