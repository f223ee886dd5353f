//! Tests of the manifest's parsing and checks.

#![allow(clippy::unwrap_used)]

use super::*;

/// A folder with `f.cu` and `y.csv`, and the manifest path in it.
fn folder() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.cu"), "").unwrap();
    std::fs::write(dir.path().join("y.csv"), "1, 2").unwrap();
    let path = dir.path().join("p.toml");
    (dir, path)
}

fn parse(text: &str) -> Result<Manifest, ManifestError> {
    let (_dir, path) = folder();
    Manifest::parse(&path, text)
}

fn refused(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn a_real_manifest_with_every_key_parses() {
    let (dir, path) = folder();
    let manifest = Manifest::parse(
        &path,
        "kind = \"real\"\nsource = \"f.cu\"\ndimension = 3\nlower = -5\nupper = [1, 2, 3.5]\n\
         terms = \"D-1\"\nsums = 2\n[[data]]\nname = \"y\"\nfile = \"y.csv\"\ntype = \"f64\"\n\
         length = \"terms\"\n",
    )
    .unwrap();
    assert_eq!(manifest.name, "f");
    assert_eq!(manifest.source, dir.path().join("f.cu"));
    assert_eq!(
        manifest.shape,
        Shape::Real {
            dimension: 3,
            lower: Limit::One(-5.0),
            upper: Limit::Each(vec![1.0, 2.0, 3.5]),
            terms: Terms::DimensionMinus(1),
            sums: Some(2),
        }
    );
    assert_eq!(
        manifest.data,
        vec![DataEntry {
            name: "y".into(),
            file: dir.path().join("y.csv"),
            element: Some(Element::F64),
            length: DataLength::Terms,
        }]
    );
}

#[test]
fn bits_and_constrained_manifests_parse_with_their_defaults() {
    let bits = parse("kind = \"bits\"\nsource = \"f.cu\"\nname = \"trap\"\nbits = 40\n").unwrap();
    assert_eq!(bits.name, "trap");
    assert_eq!(
        bits.shape,
        Shape::Bits {
            bits: 40,
            optimum: None
        }
    );
    let constrained = parse(
        "kind = \"constrained\"\nsource = \"f.cu\"\ndimension = 2\nlower = 0\nupper = 1\n\
         inequalities = 1\n",
    )
    .unwrap();
    assert!(matches!(
        constrained.shape,
        Shape::Constrained {
            inequalities: 1,
            equalities: 0,
            ..
        }
    ));
}

#[test]
fn bad_manifests_name_the_key_and_what_is_allowed() {
    let real = "kind = \"real\"\nsource = \"f.cu\"\n";
    let error = refused(&format!("{real}dimension = 0\nlower = 0\nupper = 1\n"));
    assert!(
        error.contains("dimension = 0 is not allowed; expected at least 1"),
        "{error}"
    );
    let error = refused(&format!("{real}lower = 0\nupper = 1\n"));
    assert!(error.contains("kind \"real\" needs `dimension`"), "{error}");
    let error = refused(&format!("{real}dimension = 2\nlower = [0]\nupper = 1\n"));
    assert!(
        error.contains("lower = a list of 1 numbers is not allowed"),
        "{error}"
    );
    let error = refused(&format!(
        "{real}dimension = 2\nlower = 0\nupper = 1\nterms = \"D+1\"\n"
    ));
    assert!(
        error.contains("terms = \"D+1\" is not allowed; expected \"D\""),
        "{error}"
    );
    let error = refused(&format!(
        "{real}dimension = 2\nlower = 0\nupper = 1\nsums = 5\n"
    ));
    assert!(error.contains("sums = 5"), "{error}");
    let error = refused(&format!(
        "{real}dimension = 2\nlower = 0\nupper = 1\nbits = 5\n"
    ));
    assert!(error.contains("kind \"real\" takes no `bits`"), "{error}");
    let error = refused(&format!(
        "{real}dimension = 2\nlower = 0\nupper = 1\ncolour = 5\n"
    ));
    assert!(error.contains("unknown field `colour`"), "{error}");
    let error = refused("kind = \"tree\"\nsource = \"f.cu\"\n");
    assert!(error.contains("unknown variant `tree`"), "{error}");
    let error = refused("kind = \"bits\"\nsource = \"none.cu\"\nbits = 3\n");
    assert!(
        error.contains("source file") && error.contains("none.cu"),
        "{error}"
    );
    let error = refused(
        "kind = \"bits\"\nsource = \"f.cu\"\nbits = 3\n[[data]]\nname = \"w\"\nfile = \"w.npy\"\n",
    );
    assert!(
        error.contains("data \"w\" file") && error.contains("does not exist"),
        "{error}"
    );
    let error = refused(&format!(
        "{real}dimension = 2\nlower = 0\nupper = 1\n[[data]]\nname = \"y\"\nfile = \"y.csv\"\nlength = \"all\"\n"
    ));
    assert!(error.contains("data \"y\" length = \"all\""), "{error}");
}
