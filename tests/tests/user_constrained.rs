//! User constrained problems in evo-dpga (issue 29, ARCHITECTURE §5) through the `ConstrainedEvaluator`
//! contract: CUDA source compiled by NVRTC (way 1), a user's own kernel (way 2), a host callback (way 3) and
//! CEC 2006 itself, each with a CPU twin that `DpgaCpu` runs. CPU-side checks (the twins, NVRTC compiles, bad
//! input) run anywhere; GPU checks skip without a device and fail under `EVO_REQUIRE_GPU=1`.

use evo_benchmarks::Cec2006Problem;
use evo_core::{Bounds, ConstrainedProblem, Engine, Error, Result};
use evo_dpga::{ConstrainedEvaluator, DeviceConstrainedProblem, EvalSettings};
use evo_dpga::{DpgaBatchCuda, DpgaCpu, DpgaCuda, DpgaParams, HostConstrained, UserConstrained};
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_gpu_runtime::{Gpu, Profile};

/// Any architecture NVRTC knows compiles the modules; sm_80 is the oldest the project targets.
const ARCH: &str = "sm_80";
/// Generations compared after the initialisation (the issue's must-show).
const GENERATIONS: u64 = 200;

/// The pressure vessel (Sandgren's design problem, continuous form): x = (T_s, T_h, R, L), shell and head
/// thickness, inner radius and length; minimise the cost of material, forming and welding.
const VESSEL_SOURCE: &str = r#"// pressure vessel: cost of a cylindrical vessel capped by hemispherical heads
__device__ double evo_user_constrained(const double* x, double* g, double* h) {
    const double pi = 3.141592653589793;
    const double ts = x[0], th = x[1], r = x[2], l = x[3];
    g[0] = -ts + 0.0193 * r;
    g[1] = -th + 0.00954 * r;
    g[2] = -pi * r * r * l - 4.0 / 3.0 * pi * r * r * r + 1296000.0;
    g[3] = l - 240.0;
    return 0.6224 * ts * r * l + 1.7781 * th * r * r + 3.1661 * ts * ts * l + 19.84 * ts * ts * r;
}
"#;

fn vessel(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let pi = std::f64::consts::PI;
    let (ts, th, r, l) = (x[0], x[1], x[2], x[3]);
    g[0] = -ts + 0.0193 * r;
    g[1] = -th + 0.00954 * r;
    g[2] = -pi * r * r * l - 4.0 / 3.0 * pi * r * r * r + 1_296_000.0;
    g[3] = l - 240.0;
    0.6224 * ts * r * l + 1.7781 * th * r * r + 3.1661 * ts * ts * l + 19.84 * ts * ts * r
}

/// The welded beam (Ragsdell and Phillips): x = (h, l, t, b), weld size and length, bar height and thickness;
/// minimise the fabrication cost under shear stress, bending stress, buckling and deflection limits.
const BEAM_SOURCE: &str = r#"// welded beam
__device__ double evo_user_constrained(const double* x, double* g, double* h) {
    const double P = 6000.0, L = 14.0, E = 30e6, G = 12e6;
    const double hw = x[0], l = x[1], t = x[2], b = x[3];
    const double tau1 = P / (sqrt(2.0) * hw * l);
    const double M = P * (L + l / 2.0);
    const double R = sqrt(l * l / 4.0 + (hw + t) * (hw + t) / 4.0);
    const double J = 2.0 * (sqrt(2.0) * hw * l * (l * l / 12.0 + (hw + t) * (hw + t) / 4.0));
    const double tau2 = M * R / J;
    const double tau = sqrt(tau1 * tau1 + 2.0 * tau1 * tau2 * l / (2.0 * R) + tau2 * tau2);
    const double sigma = 6.0 * P * L / (b * t * t);
    const double delta = 4.0 * P * L * L * L / (E * t * t * t * b);
    const double pc = 4.013 * E * sqrt(t * t * b * b * b * b * b * b / 36.0) / (L * L)
        * (1.0 - t / (2.0 * L) * sqrt(E / (4.0 * G)));
    g[0] = tau - 13600.0;
    g[1] = sigma - 30000.0;
    g[2] = hw - b;
    g[3] = 0.10471 * hw * hw + 0.04811 * t * b * (14.0 + l) - 5.0;
    g[4] = 0.125 - hw;
    g[5] = delta - 0.25;
    g[6] = P - pc;
    return 1.10471 * hw * hw * l + 0.04811 * t * b * (14.0 + l);
}
"#;

fn beam(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let (p, big_l, e, shear) = (6000.0, 14.0, 30e6, 12e6);
    let (hw, l, t, b) = (x[0], x[1], x[2], x[3]);
    let tau1 = p / (2.0f64.sqrt() * hw * l);
    let m = p * (big_l + l / 2.0);
    let r = (l * l / 4.0 + (hw + t) * (hw + t) / 4.0).sqrt();
    let j = 2.0 * (2.0f64.sqrt() * hw * l * (l * l / 12.0 + (hw + t) * (hw + t) / 4.0));
    let tau2 = m * r / j;
    let tau = (tau1 * tau1 + 2.0 * tau1 * tau2 * l / (2.0 * r) + tau2 * tau2).sqrt();
    let sigma = 6.0 * p * big_l / (b * t * t);
    let delta = 4.0 * p * big_l * big_l * big_l / (e * t * t * t * b);
    let pc = 4.013 * e * (t * t * b * b * b * b * b * b / 36.0).sqrt() / (big_l * big_l)
        * (1.0 - t / (2.0 * big_l) * (e / (4.0 * shear)).sqrt());
    g[0] = tau - 13600.0;
    g[1] = sigma - 30000.0;
    g[2] = hw - b;
    g[3] = 0.10471 * hw * hw + 0.04811 * t * b * (14.0 + l) - 5.0;
    g[4] = 0.125 - hw;
    g[5] = delta - 0.25;
    g[6] = p - pc;
    1.10471 * hw * hw * l + 0.04811 * t * b * (14.0 + l)
}

/// The pressure vessel holding exactly the required volume: the volume limit as an equality (within a
/// tolerance of 1 in³), the contract's equality path.
const EXACT_VESSEL_SOURCE: &str = r#"__device__ double evo_user_constrained(const double* x, double* g, double* h) {
    const double pi = 3.141592653589793;
    const double ts = x[0], th = x[1], r = x[2], l = x[3];
    g[0] = -ts + 0.0193 * r;
    g[1] = -th + 0.00954 * r;
    g[2] = l - 240.0;
    h[0] = -pi * r * r * l - 4.0 / 3.0 * pi * r * r * r + 1296000.0;
    return 0.6224 * ts * r * l + 1.7781 * th * r * r + 3.1661 * ts * ts * l + 19.84 * ts * ts * r;
}
"#;

fn exact_vessel(x: &[f64], g: &mut [f64], h: &mut [f64]) -> f64 {
    let mut all = [0.0; 4];
    let cost = vessel(x, &mut all, &mut []);
    g.copy_from_slice(&[all[0], all[1], all[3]]);
    h[0] = all[2];
    cost
}

type Twin = fn(&[f64], &mut [f64], &mut [f64]) -> f64;

fn vessel_problem() -> Result<UserConstrained<Twin>> {
    UserConstrained::new(
        "pressure_vessel",
        vessel_bounds(),
        4,
        0,
        VESSEL_SOURCE,
        vessel as Twin,
    )
}

fn beam_problem() -> Result<UserConstrained<Twin>> {
    let bounds = Bounds::new(vec![0.1, 0.1, 0.1, 0.1], vec![2.0, 10.0, 10.0, 2.0])?;
    UserConstrained::new("welded_beam", bounds, 7, 0, BEAM_SOURCE, beam as Twin)
}

fn vessel_bounds() -> Bounds {
    Bounds::new(
        vec![0.0625, 0.0625, 10.0, 10.0],
        vec![6.1875, 6.1875, 200.0, 200.0],
    )
    .unwrap()
}

fn exact_vessel_problem() -> Result<UserConstrained<Twin>> {
    UserConstrained::new(
        "exact_vessel",
        vessel_bounds(),
        3,
        1,
        EXACT_VESSEL_SOURCE,
        exact_vessel as Twin,
    )?
    .with_equality_tolerance(1.0)
}

/// A problem of two variables in [0, 1] with one inequality, named `name`, from `source`, the vessel's twin
/// standing in: the cases of bad source.
fn two_variable_problem(name: &str, source: &str) -> Result<UserConstrained<Twin>> {
    let bounds = Bounds::uniform(2, 0.0, 1.0)?;
    UserConstrained::new(name, bounds, 1, 0, source, vessel as Twin)
}

/// The pressure vessel as a plain Rust problem named `name`: on the host behind [`HostConstrained`] (way 3),
/// or with its own kernel as the device evaluation (way 2, [`DeviceConstrainedProblem`] below).
struct RustVessel {
    name: &'static str,
    bounds: Bounds,
}

impl RustVessel {
    fn new(name: &'static str) -> Self {
        Self {
            name,
            bounds: vessel_bounds(),
        }
    }
}

impl ConstrainedProblem for RustVessel {
    fn name(&self) -> &str {
        self.name
    }
    fn dimension(&self) -> usize {
        4
    }
    fn bounds(&self) -> &Bounds {
        &self.bounds
    }
    fn inequality_count(&self) -> usize {
        4
    }
    fn equality_count(&self) -> usize {
        0
    }
    fn evaluate(&self, x: &[f32], g: &mut [f64], h: &mut [f64]) -> f64 {
        let wide: Vec<f64> = x.iter().copied().map(f64::from).collect();
        vessel(&wide, g, h)
    }
}

fn params() -> DpgaParams {
    DpgaParams::default()
        .with_main_size(64)
        .and_then(|p| p.with_reserve_size(64))
        .and_then(|p| p.with_bits_per_variable(16))
        .unwrap()
}

/// Builds the CPU engine on `twin` and the CUDA engine on `device` from `seed` and runs both `GENERATIONS`
/// generations, comparing the snapshots after the initialisation and after every generation; returns the CUDA
/// engine.
fn assert_same_runs<P, D>(what: &str, gpu: &Gpu, twin: P, device: &D, seed: u64) -> DpgaCuda
where
    P: ConstrainedProblem,
    D: DeviceConstrainedProblem,
{
    let mut cpu = DpgaCpu::new(params(), twin, seed, 1).unwrap();
    let mut cuda = DpgaCuda::for_problem(params(), device, seed, gpu).unwrap();
    assert_eq!(
        cpu.snapshot().unwrap(),
        cuda.snapshot().unwrap(),
        "{what}: initialisation"
    );
    for generation in 1..=GENERATIONS {
        cpu.step().unwrap();
        cuda.step().unwrap();
        assert_eq!(
            cpu.snapshot().unwrap(),
            cuda.snapshot().unwrap(),
            "{what}: generation {generation}"
        );
    }
    assert_eq!(cpu.progress(), cuda.progress(), "{what}");
    cuda
}

#[test]
fn the_twins_should_give_the_known_designs() {
    // A feasible vessel (the literature's near-optimal design) costs about 6059.7.
    let problem = vessel_problem().unwrap();
    let mut g = [0.0; 4];
    let cost = problem.evaluate(&[0.8125, 0.4375, 42.098_446, 176.636_6], &mut g, &mut []);
    assert!((cost - 6059.7).abs() < 1.0, "{cost}");
    assert!(g.iter().all(|&gj| gj <= 1e-2), "{g:?}");
    // A feasible beam (the literature's near-optimal design) costs about 1.7249.
    let problem = beam_problem().unwrap();
    let mut g = [0.0; 7];
    let cost = problem.evaluate(&[0.205_73, 3.470_49, 9.036_62, 0.205_73], &mut g, &mut []);
    assert!((cost - 1.7249).abs() < 1e-3, "{cost}");
    assert!(g.iter().all(|&gj| gj <= 1.0), "{g:?}");
    // The exact-volume vessel moves the volume limit into h, with the same value.
    let (mut all, mut g, mut h) = ([0.0; 4], [0.0; 3], [0.0; 1]);
    let x = [1.0, 0.5, 50.0, 100.0];
    let cost = exact_vessel_problem().unwrap().evaluate(&x, &mut g, &mut h);
    assert_eq!(
        cost,
        vessel_problem().unwrap().evaluate(&x, &mut all, &mut [])
    );
    assert_eq!((g, h[0]), ([all[0], all[1], all[3]], all[2]));
}

#[test]
fn user_constrained_sources_should_compile_with_nvrtc() {
    if !nvrtc_or_skip("user_constrained_sources_should_compile_with_nvrtc") {
        return;
    }
    for profile in [Profile::Exact, Profile::Fast] {
        vessel_problem()
            .unwrap()
            .check_compiles(profile, ARCH)
            .unwrap();
        beam_problem()
            .unwrap()
            .check_compiles(profile, ARCH)
            .unwrap();
        exact_vessel_problem()
            .unwrap()
            .check_compiles(profile, ARCH)
            .unwrap();
        let vessel = vessel_problem().unwrap();
        let ptx = evo_gpu_runtime::compile_to_ptx(
            &vessel.module_name(),
            &vessel.module_source(),
            profile,
            ARCH,
        )
        .unwrap();
        assert!(
            ptx.contains(".entry evo_user_constrained_evaluate"),
            "{ptx}"
        );
        assert!(!ptx.contains(".extern .func"), "{ptx}");
    }
    // A problem without constraints of either kind still compiles (the kernel's arrays keep one slot).
    let bounds = Bounds::uniform(3, -1.0, 1.0).unwrap();
    let sphere = "__device__ double evo_user_constrained(const double* x, double* g, double* h) {\n    return x[0] * x[0] + x[1] * x[1] + x[2] * x[2];\n}\n";
    UserConstrained::new("sphere", bounds, 0, 0, sphere, vessel as Twin)
        .and_then(|p| p.check_compiles(Profile::Exact, ARCH))
        .unwrap();
    // DPGA's contract kernels (decode, summary) compile on their own.
    let ptx = evo_gpu_runtime::compile_to_ptx(
        "dpga_contract",
        "#define EVO_CONSTRAINED_DPGA_KERNELS 1\n#include \"common/problems/user_constrained.cuh\"\n",
        Profile::Exact,
        ARCH,
    )
    .unwrap();
    assert!(ptx.contains(".entry evo_dpga_contract_decode"), "{ptx}");
    assert!(ptx.contains(".entry evo_dpga_contract_summarise"), "{ptx}");
}

const BROKEN_SOURCE: &str = "// line 1\n__device__ double evo_user_constrained(const double* x, double* g, double* h) {\n    g[0] = x[0];\n    return undefined_name;\n}\n";

#[test]
fn a_compile_error_should_carry_the_log_with_the_users_line_number() {
    if !nvrtc_or_skip("a_compile_error_should_carry_the_log_with_the_users_line_number") {
        return;
    }
    let problem = two_variable_problem("broken", BROKEN_SOURCE).unwrap();
    match problem.check_compiles(Profile::Exact, ARCH) {
        Err(Error::KernelCompile { kernel, log, .. }) => {
            assert_eq!(kernel, "user_broken");
            assert!(log.contains("user_broken.cu(4)"), "{log}");
            assert!(log.contains("undefined_name"), "{log}");
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}

#[test]
fn a_definition_with_other_parameters_should_be_a_compile_error() {
    if !nvrtc_or_skip("a_definition_with_other_parameters_should_be_a_compile_error") {
        return;
    }
    // `float*` for the inequalities: an overload the kernel would not call.
    let source = "__device__ double evo_user_constrained(const double* x, float* g, double* h) {\n    return x[0];\n}\n";
    let problem = two_variable_problem("overload", source).unwrap();
    match problem.check_compiles(Profile::Exact, ARCH) {
        Err(Error::KernelCompile { log, .. }) => {
            assert!(log.contains("evo_user_constrained"), "{log}")
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}

#[test]
fn a_missing_entry_point_should_be_a_typed_error() {
    let result = two_variable_problem(
        "nothing",
        "__device__ double f(const double* x) { return x[0]; }",
    );
    assert!(
        matches!(&result, Err(Error::MissingEntryPoint { module, .. }) if module == "user_nothing"),
        "{:?}",
        result.err()
    );
}

#[test]
fn user_pressure_vessel_and_welded_beam_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) = gpu_or_skip(
        "user_pressure_vessel_and_welded_beam_on_the_gpu_should_match_cpu_for_200_generations",
    ) else {
        return;
    };
    let vessel = vessel_problem().unwrap();
    let cuda = assert_same_runs("pressure vessel (way 1)", &gpu, vessel.clone(), &vessel, 31);
    assert!(
        cuda.best_evaluation().feasible,
        "the vessel run found a feasible design"
    );
    let beam = beam_problem().unwrap();
    assert_same_runs("welded beam (way 1)", &gpu, beam.clone(), &beam, 32);
    let exact = exact_vessel_problem().unwrap();
    let what = "exact-volume vessel, an equality (way 1)";
    assert_same_runs(what, &gpu, exact.clone(), &exact, 34);
}

#[test]
fn a_host_evaluated_vessel_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) =
        gpu_or_skip("a_host_evaluated_vessel_on_the_gpu_should_match_cpu_for_200_generations")
    else {
        return;
    };
    let name = "pressure-vessel-host";
    let host = HostConstrained::new(RustVessel::new(name));
    assert_same_runs(
        "pressure vessel (way 3)",
        &gpu,
        RustVessel::new(name),
        &host,
        33,
    );
}

#[test]
fn cec2006_through_the_contract_should_match_the_fused_engine_and_the_cpu() {
    let Some(gpu) =
        gpu_or_skip("cec2006_through_the_contract_should_match_the_fused_engine_and_the_cpu")
    else {
        return;
    };
    // g01 (inequalities only), g03 (an equality), g14 (non-finite values at x_i = 0, ranked last).
    for number in [1, 3, 14] {
        let problem = Cec2006Problem::new(number).unwrap();
        let mut cpu = DpgaCpu::new(params(), problem.clone(), 40, 1).unwrap();
        let mut contract = DpgaCuda::for_problem(params(), &problem, 40, &gpu).unwrap();
        let mut fused = DpgaCuda::new(params(), &problem, 40, &gpu).unwrap();
        for generation in 0..50 {
            let want = cpu.snapshot().unwrap();
            assert_eq!(
                want,
                contract.snapshot().unwrap(),
                "g{number:02} contract, generation {generation}"
            );
            assert_eq!(
                want,
                fused.snapshot().unwrap(),
                "g{number:02} fused, generation {generation}"
            );
            cpu.step().unwrap();
            contract.step().unwrap();
            fused.step().unwrap();
        }
    }
}

#[test]
fn a_nan_from_user_source_should_be_a_typed_error_naming_the_problem() {
    let Some(gpu) =
        gpu_or_skip("a_nan_from_user_source_should_be_a_typed_error_naming_the_problem")
    else {
        return;
    };
    // NaN for every point (sqrt of a negative number).
    let source = "__device__ double evo_user_constrained(const double* x, double* g, double* h) {\n    g[0] = 0.0;\n    return sqrt(-1.0 - x[0]);\n}\n";
    let problem = two_variable_problem("nan", source).unwrap();
    match DpgaCuda::for_problem(params(), &problem, 1, &gpu) {
        Err(Error::NonFiniteFitness { problem, value, .. }) => {
            assert_eq!(problem, "nan");
            assert!(value.is_nan(), "{value}");
        }
        Err(other) => panic!("expected NonFiniteFitness, got {other:?}"),
        Ok(_) => panic!("expected NonFiniteFitness, got an engine"),
    }
}

#[test]
fn bad_sources_should_be_typed_errors_when_the_engine_is_built() {
    let Some(gpu) = gpu_or_skip("bad_sources_should_be_typed_errors_when_the_engine_is_built")
    else {
        return;
    };
    let broken = two_variable_problem("broken", BROKEN_SOURCE).unwrap();
    let result = DpgaCuda::for_problem(params(), &broken, 1, &gpu);
    assert!(
        matches!(&result, Err(Error::KernelCompile { .. })),
        "{:?}",
        result.err()
    );
}

/// A problem whose device evaluator writes another constraint count than the problem declares.
struct WrongCount(UserConstrained<Twin>, Bounds);

impl ConstrainedProblem for WrongCount {
    fn name(&self) -> &str {
        "wrong-count"
    }
    fn dimension(&self) -> usize {
        4
    }
    fn bounds(&self) -> &Bounds {
        &self.1
    }
    fn inequality_count(&self) -> usize {
        3
    }
    fn equality_count(&self) -> usize {
        0
    }
    fn evaluate(&self, x: &[f32], g: &mut [f64], h: &mut [f64]) -> f64 {
        let mut all = [0.0; 4];
        let f = self.0.evaluate(x, &mut all, h);
        g.copy_from_slice(&all[..3]);
        f
    }
}

impl DeviceConstrainedProblem for WrongCount {
    fn constrained_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn ConstrainedEvaluator>> {
        self.0.constrained_evaluator(gpu)
    }
}

#[test]
fn an_evaluator_with_the_wrong_constraint_count_should_be_refused() {
    let Some(gpu) = gpu_or_skip("an_evaluator_with_the_wrong_constraint_count_should_be_refused")
    else {
        return;
    };
    let vessel = vessel_problem().unwrap();
    let bounds = vessel.bounds().clone();
    let result = DpgaCuda::for_problem(params(), &WrongCount(vessel, bounds), 1, &gpu);
    assert!(
        matches!(
            &result,
            Err(Error::InvalidParameter {
                name: "inequality count",
                ..
            })
        ),
        "{:?}",
        result.err()
    );
}

/// Way 2: the user's own kernel over the device points, launched from a Rust `ConstrainedEvaluator`.
const VESSEL_KERNEL: &str = r#"
struct VesselRows { unsigned long long rows; };
extern "C" __global__ void my_vessel(const float* points, double* objective, double* constraints, VesselRows p) {
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= p.rows) return;
    const double pi = 3.141592653589793;
    const double ts = points[4 * r], th = points[4 * r + 1], rad = points[4 * r + 2], l = points[4 * r + 3];
    double* g = constraints + 4 * r;
    g[0] = -ts + 0.0193 * rad;
    g[1] = -th + 0.00954 * rad;
    g[2] = -pi * rad * rad * l - 4.0 / 3.0 * pi * rad * rad * rad + 1296000.0;
    g[3] = l - 240.0;
    objective[r] = 0.6224 * ts * rad * l + 1.7781 * th * rad * rad + 3.1661 * ts * ts * l + 19.84 * ts * ts * rad;
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct VesselRows {
    rows: u64,
}
// SAFETY: repr(C), one integer, the layout of the kernel's `VesselRows`.
unsafe impl evo_gpu_runtime::KernelParams for VesselRows {}

struct MyVesselEvaluator {
    kernel: evo_gpu_runtime::Kernel,
}

impl ConstrainedEvaluator for MyVesselEvaluator {
    fn dimension(&self) -> usize {
        4
    }
    fn inequality_count(&self) -> usize {
        4
    }
    fn equality_count(&self) -> usize {
        0
    }
    fn evaluate(
        &mut self,
        points: &evo_gpu_runtime::DeviceBuffer<f32>,
        objective: &mut evo_gpu_runtime::DeviceBuffer<f64>,
        constraints: &mut evo_gpu_runtime::DeviceBuffer<f64>,
        _settings: EvalSettings,
    ) -> Result<()> {
        let rows = objective.len();
        assert_eq!((points.len(), constraints.len()), (4 * rows, 4 * rows));
        let grid = u32::try_from(rows.div_ceil(64)).unwrap();
        // SAFETY: thread r < rows reads points[4r..4r+4] and writes objective[r] and constraints[4r..4r+4]
        // (lengths asserted above); the scalars are one `VesselRows`.
        unsafe {
            self.kernel
                .launch()
                .input(points)
                .output(objective)
                .output(constraints)
                .params(&VesselRows { rows: rows as u64 })
                .run(evo_gpu_runtime::LaunchConfig::linear(grid, 64, 0))
        }
    }
    fn stream_ordered(&self) -> bool {
        true
    }
}

/// Way 2: the Rust vessel's device evaluation is the user's own kernel.
impl DeviceConstrainedProblem for RustVessel {
    fn constrained_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn ConstrainedEvaluator>> {
        let kernel = gpu.user_kernel("my_vessel", VESSEL_KERNEL, "my_vessel", Profile::Exact)?;
        Ok(Box::new(MyVesselEvaluator { kernel }))
    }
}

#[test]
fn the_users_own_kernel_should_compile_with_nvrtc() {
    if !nvrtc_or_skip("the_users_own_kernel_should_compile_with_nvrtc") {
        return;
    }
    let ptx =
        evo_gpu_runtime::compile_to_ptx("my_vessel", VESSEL_KERNEL, Profile::Exact, ARCH).unwrap();
    assert!(ptx.contains(".entry my_vessel"), "{ptx}");
}

#[test]
fn a_users_own_kernel_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) =
        gpu_or_skip("a_users_own_kernel_on_the_gpu_should_match_cpu_for_200_generations")
    else {
        return;
    };
    let kernel = RustVessel::new("pressure-vessel-kernel");
    let twin = RustVessel::new("pressure-vessel-kernel");
    assert_same_runs("pressure vessel (way 2)", &gpu, twin, &kernel, 35);
}

/// A problem without constraints, evaluated on the host: the host path's empty constraint buffers.
struct HostSphere(Bounds);

impl ConstrainedProblem for HostSphere {
    fn name(&self) -> &str {
        "sphere-host"
    }
    fn dimension(&self) -> usize {
        3
    }
    fn bounds(&self) -> &Bounds {
        &self.0
    }
    fn inequality_count(&self) -> usize {
        0
    }
    fn equality_count(&self) -> usize {
        0
    }
    fn evaluate(&self, x: &[f32], _g: &mut [f64], _h: &mut [f64]) -> f64 {
        x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
    }
}

#[test]
fn an_unconstrained_host_problem_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) = gpu_or_skip(
        "an_unconstrained_host_problem_on_the_gpu_should_match_cpu_for_200_generations",
    ) else {
        return;
    };
    let bounds = Bounds::uniform(3, -1.0, 1.0).unwrap();
    let host = HostConstrained::new(HostSphere(bounds.clone()));
    let what = "sphere without constraints (way 3)";
    assert_same_runs(what, &gpu, HostSphere(bounds), &host, 36);
}

#[test]
fn a_batch_of_user_runs_should_match_one_cpu_run_per_seed() {
    let Some(gpu) = gpu_or_skip("a_batch_of_user_runs_should_match_one_cpu_run_per_seed") else {
        return;
    };
    // Run r of the batch starts from seed 50 + r; every run is a DpgaCpu of that seed.
    let problem = vessel_problem().unwrap();
    let runs = 3;
    let mut batch = DpgaBatchCuda::for_problem(params(), &problem, 50, runs, &gpu, 128).unwrap();
    let mut cpus: Vec<_> = (0..runs as u64)
        .map(|r| DpgaCpu::new(params(), problem.clone(), 50 + r, 1).unwrap())
        .collect();
    for generation in 0..=50 {
        let snapshots = batch.snapshots().unwrap();
        for (r, cpu) in cpus.iter_mut().enumerate() {
            assert_eq!(
                cpu.snapshot().unwrap(),
                snapshots[r],
                "run {r}, generation {generation}"
            );
            cpu.step().unwrap();
        }
        batch.step().unwrap();
    }
}
