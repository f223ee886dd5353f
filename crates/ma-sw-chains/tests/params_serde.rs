//! The serde form of `MaParams`: unchanged on the wire, and validated by the setters when read.

use evo_ma_sw_chains::MaParams;

/// The default params as serialized before deserialization was routed through the setters.
const DEFAULT_JSON: &str = r#"{"population":60,"blx_alpha":0.5,"nam_candidates":3,"mutation_probability":0.125,"mutation_range":0.1,"ls_ratio":0.5,"ls_intensity":500,"min_improvement":1e-9,"rho_init":0.2,"rho_half_nearest":false,"success_limit":5,"failure_limit":3,"rho_expand":2.0,"rho_contract":0.5,"restart":true,"children_per_step":20,"max_evaluations":500000}"#;

#[test]
fn the_default_serializes_as_before_and_round_trips() {
    let json = serde_json::to_string(&MaParams::default()).unwrap();
    assert_eq!(json, DEFAULT_JSON);
    let back: MaParams = serde_json::from_str(&json).unwrap();
    assert_eq!(back, MaParams::default());
    let tuned = MaParams::new()
        .with_max_evaluations(100)
        .unwrap()
        .with_rho_half_nearest(true);
    let back: MaParams = serde_json::from_str(&serde_json::to_string(&tuned).unwrap()).unwrap();
    assert_eq!(back, tuned);
}

#[test]
fn out_of_range_values_are_refused_with_the_setters_message() {
    let n = serde_json::from_str::<MaParams>(r#"{"population":2}"#).unwrap_err();
    assert_eq!(
        n.to_string(),
        "MA-SW-Chains: population must be at least 4, got 2"
    );
    let pm = serde_json::from_str::<MaParams>(r#"{"mutation_probability":1.5}"#).unwrap_err();
    assert!(
        pm.to_string()
            .starts_with("MA-SW-Chains: mutation probability"),
        "{pm}"
    );
    let rho = serde_json::from_str::<MaParams>(r#"{"rho_expand":1.0}"#).unwrap_err();
    assert!(rho.to_string().contains("rho expansion"), "{rho}");
    let budget = serde_json::from_str::<MaParams>(r#"{"population":1000,"max_evaluations":500}"#)
        .unwrap_err();
    assert!(budget.to_string().contains("evaluation budget"), "{budget}");
}

#[test]
fn only_the_final_combination_is_judged() {
    // Set field by field in the struct's order, each of these passes through a refused state.
    let big: MaParams =
        serde_json::from_str(r#"{"population":2000000,"max_evaluations":10000000}"#).unwrap();
    assert_eq!(big.population(), 2_000_000);
    let small: MaParams =
        serde_json::from_str(r#"{"population":10,"max_evaluations":30}"#).unwrap();
    assert_eq!(small.max_evaluations(), 30);
    let nam: MaParams = serde_json::from_str(r#"{"population":100,"nam_candidates":80}"#).unwrap();
    assert_eq!(nam.nam_candidates(), 80);
    let ls: MaParams = serde_json::from_str(r#"{"ls_ratio":0.01,"ls_intensity":1000}"#).unwrap();
    assert_eq!(ls.ssga_evaluations(), 10);
}

#[test]
fn a_missing_field_takes_its_default_and_an_unknown_one_is_refused() {
    let partial: MaParams = serde_json::from_str(r#"{"blx_alpha":0.3}"#).unwrap();
    assert_eq!(partial, MaParams::new().with_blx_alpha(0.3).unwrap());
    let typo = serde_json::from_str::<MaParams>(r#"{"restarts":false}"#).unwrap_err();
    assert!(
        typo.to_string().contains("unknown field `restarts`"),
        "{typo}"
    );
}
