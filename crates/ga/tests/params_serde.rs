//! The serde form of `GaParams`: unchanged on the wire, and validated by the setters when read.

use evo_ga::GaParams;

/// The default params as serialized before deserialization was routed through the setters.
const DEFAULT_JSON: &str = r#"{"population":256,"tournament_size":2,"elite":1,"crossover_rate":1.0,"mutation_rate":null,"generations":5000,"block":256,"rng":"Philox"}"#;

#[test]
fn the_default_serializes_as_before_and_round_trips() {
    let json = serde_json::to_string(&GaParams::default()).unwrap();
    assert_eq!(json, DEFAULT_JSON);
    let back: GaParams = serde_json::from_str(&json).unwrap();
    assert_eq!(back, GaParams::default());
    let tuned = GaParams::new()
        .with_mutation_rate(0.01)
        .unwrap()
        .with_paper_rng(64)
        .unwrap();
    let back: GaParams = serde_json::from_str(&serde_json::to_string(&tuned).unwrap()).unwrap();
    assert_eq!(back, tuned);
}

#[test]
fn out_of_range_values_are_refused_with_the_setters_message() {
    let rate = serde_json::from_str::<GaParams>(r#"{"mutation_rate":1.5}"#).unwrap_err();
    assert_eq!(
        rate.to_string(),
        "GA: mutation rate must be in [0, 1], got 1.5"
    );
    let n = serde_json::from_str::<GaParams>(r#"{"population":1}"#).unwrap_err();
    assert!(
        n.to_string()
            .starts_with("GA: population size must be in 2..=4096"),
        "{n}"
    );
    let threads = serde_json::from_str::<GaParams>(r#"{"rng":{"PaperXor128":{"threads":0}}}"#);
    assert!(threads.unwrap_err().to_string().contains("xor128 threads"));
    let elite = serde_json::from_str::<GaParams>(r#"{"population":4,"elite":4}"#).unwrap_err();
    assert!(
        elite
            .to_string()
            .starts_with("GA: elite size must be in 0..4"),
        "{elite}"
    );
}

#[test]
fn only_the_final_combination_is_judged() {
    // The tournament size comes before the population in the struct, yet exceeds the default population.
    let params: GaParams =
        serde_json::from_str(r#"{"tournament_size":300,"elite":299,"population":512}"#).unwrap();
    assert_eq!(
        (
            params.population(),
            params.tournament_size(),
            params.elite()
        ),
        (512, 300, 299)
    );
    let small: GaParams =
        serde_json::from_str(r#"{"population":2,"tournament_size":1,"elite":0}"#).unwrap();
    assert_eq!(small.population(), 2);
}

#[test]
fn a_missing_field_takes_its_default_and_an_unknown_one_is_refused() {
    let partial: GaParams = serde_json::from_str(r#"{"population":8}"#).unwrap();
    assert_eq!(partial, GaParams::new().with_population(8).unwrap());
    let typo = serde_json::from_str::<GaParams>(r#"{"elites":2}"#).unwrap_err();
    assert!(
        typo.to_string().contains("unknown field `elites`"),
        "{typo}"
    );
}
