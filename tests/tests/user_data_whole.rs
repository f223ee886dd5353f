//! Read-only data arrays in whole-individual user modules (issue 29, way 1): a bit-string problem whose graph
//! and a constrained problem whose coefficients live in `UserData` arrays uploaded once, instead of being
//! written into the source. CPU-side checks (twins, NVRTC compiles, bad input) run anywhere; GPU checks skip
//! without a device and fail under `EVO_REQUIRE_GPU=1`.

use evo_core::{BinaryProblem, Bits, Bounds, ConstrainedProblem, Engine, Error, Result};
use evo_dpga::{DpgaCpu, DpgaCuda, DpgaParams, UserConstrained};
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_equivalence::suite::ga::compare_snapshots;
use evo_ga::{DataLength, GaCpu, GaCuda, GaParams, UserBits, UserData};
use evo_gpu_runtime::Profile;

/// Any architecture NVRTC knows compiles the modules; sm_80 is the oldest the project targets.
const ARCH: &str = "sm_80";
/// Generations compared after the initialisation (the issue's must-show).
const GENERATIONS: u64 = 200;
/// Vertices and edges of the max-cut graph.
const VERTICES: usize = 90;
const EDGES: usize = 400;

/// Max-cut reading its graph from data arrays: ends `u`, `v` (exact small integers in f32) and weights `w`.
const MAX_CUT_SOURCE: &str = r#"// max-cut, the graph in data arrays
__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits, const EvoUserData& data) {
    double sum = 0.0;
    for (unsigned long long e = 0; e < data.w_len; ++e) {
        if (evo_bit(bits, (unsigned long long)data.u[e]) != evo_bit(bits, (unsigned long long)data.v[e])) {
            sum += data.w[e];
        }
    }
    return -sum;
}
"#;

/// A random weighted graph from a fixed seed (splitmix64): `(u, v, w)` with `u ≠ v`, `w` in 0.5..10.5.
fn graph() -> Vec<(usize, usize, f64)> {
    evo_equivalence::inputs::random_graph(0xda7a, VERTICES, EDGES)
        .into_iter()
        .map(|(u, v, r)| (u, v, 0.5 + (r % 1000) as f64 / 100.0))
        .collect()
}

fn graph_data(edges: &[(usize, usize, f64)]) -> Result<UserData> {
    UserData::new()
        .with_f32(
            "u",
            edges.iter().map(|e| e.0 as f32).collect(),
            DataLength::Any,
        )?
        .with_f32(
            "v",
            edges.iter().map(|e| e.1 as f32).collect(),
            DataLength::Any,
        )?
        .with_f64("w", edges.iter().map(|e| e.2).collect(), DataLength::Any)
}

fn max_cut_problem() -> Result<UserBits<impl Fn(&Bits) -> f64 + Sync + Send + Clone>> {
    let edges = graph();
    let data = graph_data(&edges)?;
    UserBits::new(
        "max-cut-data",
        VERTICES,
        MAX_CUT_SOURCE,
        move |bits: &Bits| {
            let mut sum = 0.0;
            for &(u, v, w) in &edges {
                if bits.get(u) != bits.get(v) {
                    sum += w;
                }
            }
            -sum
        },
    )?
    .with_data(data)
}

/// A small linear design problem with its coefficients in data arrays: minimise c·x subject to A x ≤ b
/// (`g_j = (A x)_j − b_j`), A row-major, sums in index order on both sides.
const LINEAR_SOURCE: &str = r#"// min c.x subject to A x <= b
__device__ double evo_user_constrained(const double* x, double* g, double* h, const EvoUserData& data) {
    for (int j = 0; j < EVO_USER_INEQUALITIES; ++j) {
        double row = 0.0;
        for (int i = 0; i < EVO_USER_DIMENSION; ++i) row += data.a[j * EVO_USER_DIMENSION + i] * x[i];
        g[j] = row - data.b[j];
    }
    double cost = 0.0;
    for (int i = 0; i < EVO_USER_DIMENSION; ++i) cost += data.c[i] * x[i];
    return cost;
}
"#;

const LINEAR_D: usize = 5;
const LINEAR_M: usize = 3;
const COST: [f64; LINEAR_D] = [-3.0, -2.0, -4.0, -1.5, -2.5];
const A: [f64; LINEAR_D * LINEAR_M] = [
    1.0, 1.0, 2.0, 0.5, 1.0, //
    2.0, 0.5, 1.0, 1.0, 0.0, //
    0.0, 1.0, 1.0, 2.0, 1.5,
];
const B: [f64; LINEAR_M] = [10.0, 8.0, 9.0];

fn linear_twin(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    for (j, gj) in g.iter_mut().enumerate() {
        let mut row = 0.0;
        for (i, xi) in x.iter().enumerate() {
            row += A[j * LINEAR_D + i] * xi;
        }
        *gj = row - B[j];
    }
    let mut cost = 0.0;
    for (ci, xi) in COST.iter().zip(x) {
        cost += ci * xi;
    }
    cost
}

type Twin = fn(&[f64], &mut [f64], &mut [f64]) -> f64;

fn linear_data() -> Result<UserData> {
    UserData::new()
        .with_f64("c", COST.to_vec(), DataLength::Dimension)?
        .with_f64("a", A.to_vec(), DataLength::Exactly(LINEAR_D * LINEAR_M))?
        .with_f64("b", B.to_vec(), DataLength::Terms)
}

fn linear_problem() -> Result<UserConstrained<Twin>> {
    UserConstrained::new(
        "linear_design",
        Bounds::uniform(LINEAR_D, 0.0, 6.0)?,
        LINEAR_M,
        0,
        LINEAR_SOURCE,
        linear_twin as Twin,
    )?
    .with_data(linear_data()?)
}

#[test]
fn the_data_twins_should_give_the_expected_values() {
    let cut = max_cut_problem().unwrap();
    assert_eq!(cut.evaluate(&Bits::zeros(VERTICES)), 0.0);
    let all_weight: f64 = graph().iter().map(|e| e.2).sum();
    let mut alternating = Bits::zeros(VERTICES);
    for i in (0..VERTICES).step_by(2) {
        alternating.set(i, true).unwrap();
    }
    let value = cut.evaluate(&alternating);
    assert!(value < 0.0 && value >= -all_weight, "{value}");

    let linear = linear_problem().unwrap();
    let mut g = [0.0; LINEAR_M];
    let cost = linear.evaluate(&[1.0; LINEAR_D], &mut g, &mut []);
    assert_eq!(cost, -13.0);
    assert_eq!(g, [-4.5, -3.5, -3.5]);
}

#[test]
fn data_of_the_wrong_length_should_be_refused_naming_the_array() {
    let short = UserData::new()
        .with_f64("bias", vec![0.0; VERTICES - 1], DataLength::Dimension)
        .unwrap();
    let problem = UserBits::new("bias", VERTICES, MAX_CUT_SOURCE, |_: &Bits| 0.0).unwrap();
    match problem.with_data(short) {
        Err(Error::InvalidParameter { value, allowed, .. }) => {
            assert!(value.contains("bias"), "{value}");
            assert!(allowed.contains(&VERTICES.to_string()), "{allowed}");
        }
        other => panic!("expected InvalidParameter, got {:?}", other.err()),
    }
    let wrong_terms = UserData::new()
        .with_f64("b", vec![1.0; LINEAR_M + 1], DataLength::Terms)
        .unwrap();
    let result = UserConstrained::new(
        "linear_design",
        Bounds::uniform(LINEAR_D, 0.0, 6.0).unwrap(),
        LINEAR_M,
        0,
        LINEAR_SOURCE,
        linear_twin as Twin,
    )
    .unwrap()
    .with_data(wrong_terms);
    assert!(
        matches!(&result, Err(Error::InvalidParameter { value, .. }) if value.contains("`b`")),
        "{:?}",
        result.err()
    );
}

#[test]
fn data_modules_should_compile_and_the_contracts_forms_should_not_mix() {
    if !nvrtc_or_skip("data_modules_should_compile_and_the_contracts_forms_should_not_mix") {
        return;
    }
    for profile in [Profile::Exact, Profile::Fast] {
        max_cut_problem()
            .unwrap()
            .check_compiles(profile, ARCH)
            .unwrap();
        linear_problem()
            .unwrap()
            .check_compiles(profile, ARCH)
            .unwrap();
    }
    // A source written for data, given no data: the data form does not match the contract without data.
    let bare = UserBits::new("no-data", VERTICES, MAX_CUT_SOURCE, |_: &Bits| 0.0).unwrap();
    match bare.check_compiles(Profile::Exact, ARCH) {
        Err(Error::KernelCompile { log, .. }) => assert!(log.contains("EvoUserData"), "{log}"),
        other => panic!("expected KernelCompile, got {other:?}"),
    }
    // A source without the data parameter, given data: the signature check refuses it.
    let old_form = "__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) { return 0.0; }";
    let mixed = UserBits::new("mixed", VERTICES, old_form, |_: &Bits| 0.0)
        .unwrap()
        .with_data(graph_data(&graph()).unwrap())
        .unwrap();
    match mixed.check_compiles(Profile::Exact, ARCH) {
        Err(Error::KernelCompile { log, .. }) => assert!(log.contains("evo_user_fitness"), "{log}"),
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}

#[test]
fn a_data_max_cut_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) = gpu_or_skip("a_data_max_cut_on_the_gpu_should_match_cpu_for_200_generations")
    else {
        return;
    };
    let params = GaParams::new()
        .with_population(128)
        .and_then(|p| p.with_tournament_size(3))
        .and_then(|p| p.with_elite(2))
        .unwrap();
    let cut = max_cut_problem().unwrap();
    let mut cpu = GaCpu::new(params.clone(), cut.clone(), 41).unwrap();
    let mut cuda = GaCuda::new(params, &cut, 41, &gpu).unwrap();
    for generation in 0..=GENERATIONS {
        if generation > 0 {
            cpu.step().unwrap();
            cuda.step().unwrap();
        }
        let comparison = compare_snapshots(&cpu.snapshot().unwrap(), &cuda.snapshot().unwrap());
        assert!(
            comparison.passed(),
            "generation {generation}: {:?}",
            comparison.first_mismatch
        );
    }
}

#[test]
fn a_data_linear_design_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) =
        gpu_or_skip("a_data_linear_design_on_the_gpu_should_match_cpu_for_200_generations")
    else {
        return;
    };
    let params = DpgaParams::default()
        .with_main_size(64)
        .and_then(|p| p.with_reserve_size(64))
        .and_then(|p| p.with_bits_per_variable(16))
        .unwrap();
    let linear = linear_problem().unwrap();
    let mut cpu = DpgaCpu::new(params.clone(), linear.clone(), 43, 1).unwrap();
    let mut cuda = DpgaCuda::for_problem(params, &linear, 43, &gpu).unwrap();
    assert_eq!(cpu.snapshot().unwrap(), cuda.snapshot().unwrap());
    for generation in 1..=GENERATIONS {
        cpu.step().unwrap();
        cuda.step().unwrap();
        assert_eq!(
            cpu.snapshot().unwrap(),
            cuda.snapshot().unwrap(),
            "generation {generation}"
        );
    }
}
