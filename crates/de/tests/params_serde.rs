//! The serde form of `DeParams`: unchanged on the wire, and validated by the setters when read.

use evo_de::DeParams;

/// The default params as serialized before deserialization was routed through the setters.
const DEFAULT_JSON: &str = r#"{"population":64,"differential_weight":0.5,"crossover_rate":0.9,"strategy":"Rand1","crossover":"Binomial","selection":"StrictlyBetter","adaptation":"Fixed","block":256}"#;

#[test]
fn the_default_serializes_as_before_and_round_trips() {
    let json = serde_json::to_string(&DeParams::default()).unwrap();
    assert_eq!(json, DEFAULT_JSON);
    let back: DeParams = serde_json::from_str(&json).unwrap();
    assert_eq!(back, DeParams::default());
    let tuned = DeParams::default()
        .with_population(512)
        .unwrap()
        .with_crossover_rate(0.3)
        .unwrap();
    let back: DeParams = serde_json::from_str(&serde_json::to_string(&tuned).unwrap()).unwrap();
    assert_eq!(back, tuned);
}

#[test]
fn out_of_range_values_are_refused_with_the_setters_message() {
    let cr = serde_json::from_str::<DeParams>(r#"{"crossover_rate":7.5}"#).unwrap_err();
    assert_eq!(
        cr.to_string(),
        "DE: crossover rate CR must be in [0, 1], got 7.5"
    );
    let m = serde_json::from_str::<DeParams>(r#"{"population":2}"#).unwrap_err();
    assert!(
        m.to_string()
            .starts_with("DE: population size M must be in 4 ..= 2^31"),
        "{m}"
    );
    let block = serde_json::from_str::<DeParams>(r#"{"block":96}"#).unwrap_err();
    assert!(block.to_string().contains("CUDA block size"), "{block}");
}

#[test]
fn a_missing_field_takes_its_default_and_an_unknown_one_is_refused() {
    let partial: DeParams = serde_json::from_str(r#"{"population":8}"#).unwrap();
    assert_eq!(partial, DeParams::default().with_population(8).unwrap());
    let typo = serde_json::from_str::<DeParams>(r#"{"populaton":8}"#).unwrap_err();
    assert!(
        typo.to_string().contains("unknown field `populaton`"),
        "{typo}"
    );
}
