//! The serde forms of `QigaParams` and `SgaParams`: unchanged on the wire, and validated by the setters
//! when read.

use evo_qiga::{KnapsackOptions, QigaParams, SgaParams};

/// The default params as serialized before deserialization was routed through the setters (the paper's
/// options are skipped, which keeps fingerprints unchanged).
const QIGA_DEFAULT_JSON: &str = r#"{"population":10,"angles":[0.15707964,0.03141593,0.07853982,0.015707964,0.07853982],"sign":"Plus","quadrant":"TrueSign","generations":500,"block":256}"#;
const SGA_DEFAULT_JSON: &str =
    r#"{"population":100,"generations":50,"crossover_rate":0.65,"mutation_rate":0.05}"#;

#[test]
fn the_default_serializes_as_before_and_round_trips() {
    let json = serde_json::to_string(&QigaParams::default()).unwrap();
    assert_eq!(json, QIGA_DEFAULT_JSON);
    let back: QigaParams = serde_json::from_str(&json).unwrap();
    assert_eq!(back, QigaParams::default());
    let practical = QigaParams::default().with_options(KnapsackOptions::PRACTICAL);
    let json = serde_json::to_string(&practical).unwrap();
    assert!(json.contains(r#""options":"#), "{json}");
    let back: QigaParams = serde_json::from_str(&json).unwrap();
    assert_eq!(back, practical);

    let json = serde_json::to_string(&SgaParams::default()).unwrap();
    assert_eq!(json, SGA_DEFAULT_JSON);
    let back: SgaParams = serde_json::from_str(&json).unwrap();
    assert_eq!(back, SgaParams::default());
}

#[test]
fn out_of_range_values_are_refused_with_the_setters_message() {
    let n = serde_json::from_str::<QigaParams>(r#"{"population":0}"#).unwrap_err();
    assert_eq!(
        n.to_string(),
        "QIGA: population size must be in 1 ..= 64, got 0"
    );
    let generations = serde_json::from_str::<QigaParams>(r#"{"generations":0}"#).unwrap_err();
    assert!(
        generations
            .to_string()
            .starts_with("QIGA: number of generations"),
        "{generations}"
    );
    let block = serde_json::from_str::<QigaParams>(r#"{"block":100}"#).unwrap_err();
    assert!(
        block.to_string().starts_with("QIGA: CUDA block size"),
        "{block}"
    );
    let angle =
        serde_json::from_str::<QigaParams>(r#"{"angles":[0.1,0.1,0.5,0.1,0.1]}"#).unwrap_err();
    assert!(
        angle
            .to_string()
            .contains("rotation angle θ3 must be in [0, 0.349] rad, got 0.5"),
        "{angle}"
    );

    let pm = serde_json::from_str::<SgaParams>(r#"{"mutation_rate":2.0}"#).unwrap_err();
    assert_eq!(
        pm.to_string(),
        "SGA: mutation probability P_m must be in [0, 1], got 2"
    );
    let n = serde_json::from_str::<SgaParams>(r#"{"population":1}"#).unwrap_err();
    assert!(
        n.to_string()
            .starts_with("SGA: population size must be in 2 ..= 1024"),
        "{n}"
    );
}

#[test]
fn a_missing_field_takes_its_default_and_an_unknown_one_is_refused() {
    let partial: QigaParams = serde_json::from_str(r#"{"population":20}"#).unwrap();
    assert_eq!(partial, QigaParams::default().with_population(20).unwrap());
    let typo = serde_json::from_str::<QigaParams>(r#"{"option":{}}"#).unwrap_err();
    assert!(
        typo.to_string().contains("unknown field `option`"),
        "{typo}"
    );

    let partial: SgaParams = serde_json::from_str(r#"{"crossover_rate":0.9}"#).unwrap();
    assert_eq!(
        partial,
        SgaParams::default().with_crossover_rate(0.9).unwrap()
    );
    let typo = serde_json::from_str::<SgaParams>(r#"{"mutation":0.1}"#).unwrap_err();
    assert!(
        typo.to_string().contains("unknown field `mutation`"),
        "{typo}"
    );
}
