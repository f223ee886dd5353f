//! User bit-string problems in evo-ga (issue 29, ARCHITECTURE §5): CUDA source compiled by NVRTC (way 1) and
//! a batched host callback (way 3) through the `BitEvaluator` contract, each with a CPU twin that `GaCpu`
//! runs. CPU-side checks (the twins, NVRTC compiles, bad input) run anywhere; GPU checks skip without a
//! device and fail under `EVO_REQUIRE_GPU=1`.

use evo_core::{BinaryProblem, Bits, Engine, Error, Result};
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_equivalence::suite::ga::compare_snapshots;
use evo_equivalence::user_bits::{
    self, Edges, MinusOnes, Twin, VERTICES, graph, max_cut_rows, ones_kernel_source, trap5,
};
use evo_ga::{
    BatchFn, DeviceBitProblem, GaCpu, GaCuda, GaParams, GaSnapshot, HostEvaluated, UserBits,
};
use evo_gpu_runtime::Profile;

/// Any architecture NVRTC knows compiles the modules; sm_80 is the oldest the project targets.
const ARCH: &str = "sm_80";
/// Generations compared after the initial population (the must-show).
const GENERATIONS: u64 = 200;
/// The seed of the max-cut graph.
const GRAPH_SEED: u64 = 0x5eed;
/// The name of way 2's kernel (and of its module).
const ONES_KERNEL: &str = "my_minus_ones";

/// The trap-5 user problem.
fn trap5_problem() -> Result<UserBits<Twin>> {
    user_bits::trap5_problem("trap5")
}

/// Max-cut as a minimisation: minus the weight of the edges whose ends lie on different sides. It reads the
/// bits through `Bits::get`, so that this twin and the way-3 batch, which reads packed words, check each other.
fn cut(edges: &Edges, bits: &Bits) -> f64 {
    let mut sum = 0.0;
    for &(u, v, w) in edges {
        if bits.get(u) != bits.get(v) {
            sum += f64::from(w);
        }
    }
    -sum
}

fn max_cut_problem() -> Result<UserBits<impl Fn(&Bits) -> f64 + Sync + Send + Clone>> {
    user_bits::max_cut_problem("max-cut", GRAPH_SEED, cut)
}

/// A batch that is a plain function.
type Batch = fn(&[u32], &mut [f64]);

/// The way-3 max-cut problem: the graph rebuilt per batch (a few hundred edges), so the batch is a plain
/// function.
fn max_cut_batch() -> Result<BatchFn<Batch>> {
    let batch: Batch = |rows, fitness| max_cut_rows(&graph(GRAPH_SEED), rows, fitness);
    BatchFn::new("max-cut", VERTICES, batch)
}

/// OneMax (minus the ones) of `bits` bits evaluated by the user's own kernel (way 2).
fn minus_ones(bits: usize) -> MinusOnes {
    MinusOnes {
        name: "minus-ones",
        kernel: ONES_KERNEL,
        bits,
        evaluator_bits: bits,
    }
}

/// Runs `cpu` and `gpu` side by side, comparing every generation's snapshot bit for bit.
fn assert_same_runs(
    case: &str,
    cpu: &mut impl Engine<Snapshot = GaSnapshot>,
    gpu: &mut impl Engine<Snapshot = GaSnapshot>,
) {
    user_bits::assert_same_runs(case, cpu, gpu, GENERATIONS, compare_snapshots);
}

fn params() -> GaParams {
    GaParams::new()
        .with_population(128)
        .and_then(|p| p.with_tournament_size(3))
        .and_then(|p| p.with_elite(2))
        .unwrap()
}

#[test]
fn the_twins_should_give_trap5_and_max_cut() {
    let trap = trap5_problem().unwrap();
    assert_eq!(trap.evaluate(&Bits::zeros(100)), -80.0);
    let mut ones = Bits::zeros(100);
    for i in 0..100 {
        ones.set(i, true).unwrap();
    }
    assert_eq!(trap.evaluate(&ones), -100.0);
    assert_eq!(trap.optimum(), Some(-100.0));
    // The way-1 twin and the way-3 batch agree on max-cut, row by row, in a batch of several rows.
    let single = max_cut_problem().unwrap();
    let batch = max_cut_batch().unwrap();
    let rows: Vec<u32> = (0..5 * 3u32)
        .map(|k| k.wrapping_mul(2_654_435_761) & if k % 3 == 2 { 0x3f } else { u32::MAX })
        .collect();
    let mut fitness = vec![0.0; 5];
    batch.evaluate_batch(&rows, &mut fitness);
    for (r, f) in fitness.iter().enumerate() {
        let bits = Bits::from_words(rows[3 * r..3 * r + 3].to_vec(), VERTICES).unwrap();
        assert_eq!(single.evaluate(&bits).to_bits(), f.to_bits(), "row {r}");
        assert!(*f < 0.0);
    }
}

#[test]
fn the_cpu_engine_should_run_the_user_problems_through_their_twins() {
    let report = evo_ga::run(
        params().with_generations(300).unwrap(),
        trap5_problem().unwrap(),
        11,
        evo_core::Backend::cpu(),
    )
    .unwrap();
    // Past the deceptive attractor (all zeros, −80), and the reported fitness is the twin's.
    assert!(report.best_fitness < -80.0, "{}", report.best_fitness);
    assert_eq!(report.best_fitness.to_bits(), trap5(&report.best).to_bits());
    // The CPU engine over the way-1 twin and over the way-3 batch: the same function, the same run.
    let mut twin = GaCpu::new(params(), max_cut_problem().unwrap(), 5).unwrap();
    let mut batch = GaCpu::new(params(), HostEvaluated::new(max_cut_batch().unwrap()), 5).unwrap();
    for _ in 0..50 {
        twin.step().unwrap();
        batch.step().unwrap();
    }
    assert!(
        twin.snapshot()
            .unwrap()
            .bit_identical(&batch.snapshot().unwrap())
    );
}

#[test]
fn a_missing_entry_point_should_be_a_typed_error() {
    let result = UserBits::new(
        "no-entry",
        8,
        "__device__ double f() { return 0.0; }",
        trap5,
    );
    assert!(
        matches!(&result, Err(Error::MissingEntryPoint { module, function })
            if module == "user_no-entry" && function == "evo_user_fitness"),
        "{:?}",
        result.err()
    );
}

#[test]
fn user_bit_sources_should_compile_with_nvrtc() {
    if !nvrtc_or_skip("user_bit_sources_should_compile_with_nvrtc") {
        return;
    }
    for profile in [Profile::Exact, Profile::Fast] {
        trap5_problem()
            .unwrap()
            .check_compiles(profile, ARCH)
            .unwrap();
        max_cut_problem()
            .unwrap()
            .check_compiles(profile, ARCH)
            .unwrap();
        UserBits::new("nan", 8, NAN_SOURCE, trap5)
            .and_then(|p| p.check_compiles(profile, ARCH))
            .unwrap();
        // One entry point, and the user's function resolved inside the module (nothing left to link).
        let trap = trap5_problem().unwrap();
        let ptx = evo_gpu_runtime::compile_to_ptx(
            &trap.module_name(),
            &trap.module_source(),
            profile,
            ARCH,
        )
        .unwrap();
        assert!(ptx.contains(".entry evo_user_bits_fitness"), "{ptx}");
        assert!(!ptx.contains(".extern .func"), "{ptx}");
        evo_gpu_runtime::compile_to_ptx(
            ONES_KERNEL,
            &ones_kernel_source(ONES_KERNEL),
            profile,
            ARCH,
        )
        .unwrap();
    }
}

/// NaN for every row.
const NAN_SOURCE: &str = "__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) { return sqrt(-1.0 - (double)evo_bit(bits, 0)); }";

const BROKEN_SOURCE: &str = "// line 1\n__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {\n    return undefined_name;\n}\n";

#[test]
fn a_definition_with_other_parameters_should_be_a_compile_error() {
    if !nvrtc_or_skip("a_definition_with_other_parameters_should_be_a_compile_error") {
        return;
    }
    let source = "__device__ double evo_user_fitness(const unsigned int* bits, unsigned int n_bits) {\n    return 0.0;\n}\n";
    let problem = UserBits::new("overload", 8, source, trap5).unwrap();
    match problem.check_compiles(Profile::Exact, ARCH) {
        Err(Error::KernelCompile { log, .. }) => {
            // The header's signature check names the function and the contract's parameter types.
            assert!(log.contains("evo_user_fitness"), "{log}");
            assert!(log.contains("unsigned long long"), "{log}");
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}

#[test]
fn a_compile_error_should_carry_the_log_with_the_users_line_number() {
    if !nvrtc_or_skip("a_compile_error_should_carry_the_log_with_the_users_line_number") {
        return;
    }
    let problem = UserBits::new("broken", 8, BROKEN_SOURCE, trap5).unwrap();
    match problem.check_compiles(Profile::Exact, ARCH) {
        Err(Error::KernelCompile { kernel, log, .. }) => {
            assert_eq!(kernel, "user_broken");
            assert!(log.contains("user_broken.cu(3)"), "{log}");
            assert!(log.contains("undefined_name"), "{log}");
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}

#[test]
fn user_trap5_and_max_cut_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) =
        gpu_or_skip("user_trap5_and_max_cut_on_the_gpu_should_match_cpu_for_200_generations")
    else {
        return;
    };
    let trap = trap5_problem().unwrap();
    let mut cpu = GaCpu::new(params(), trap.clone(), 21).unwrap();
    let mut cuda = GaCuda::new(params(), &trap, 21, &gpu).unwrap();
    assert!(cuda.graph_replay(), "a user module is stream-ordered");
    assert_same_runs("trap-5 (way 1)", &mut cpu, &mut cuda);
    let cut = max_cut_problem().unwrap();
    let mut cpu = GaCpu::new(params(), cut.clone(), 22).unwrap();
    let mut cuda = GaCuda::new(params(), &cut, 22, &gpu).unwrap();
    assert_same_runs("max-cut (way 1)", &mut cpu, &mut cuda);
    // The same run batched through advance (one read-back for many generations) ends in the same state.
    let mut batched = GaCuda::new(params(), &cut, 22, &gpu).unwrap();
    batched.advance(GENERATIONS as u32).unwrap();
    assert!(
        batched
            .snapshot()
            .unwrap()
            .bit_identical(&cpu.snapshot().unwrap())
    );
}

#[test]
fn a_host_callback_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) = gpu_or_skip("a_host_callback_on_the_gpu_should_match_cpu_for_200_generations")
    else {
        return;
    };
    let problem = HostEvaluated::new(max_cut_batch().unwrap());
    let mut cpu = GaCpu::new(params(), HostEvaluated::new(max_cut_batch().unwrap()), 23).unwrap();
    let mut cuda = GaCuda::new(params(), &problem, 23, &gpu).unwrap();
    assert!(!cuda.graph_replay(), "a host evaluation cannot be recorded");
    assert_same_runs("max-cut (way 3)", &mut cpu, &mut cuda);
}

#[test]
fn bad_user_code_on_the_gpu_should_be_typed_errors() {
    let Some(gpu) = gpu_or_skip("bad_user_code_on_the_gpu_should_be_typed_errors") else {
        return;
    };
    let broken = UserBits::new("broken-gpu", 8, BROKEN_SOURCE, trap5).unwrap();
    match broken.bit_evaluator(&gpu) {
        Err(Error::KernelCompile { log, .. }) => {
            assert!(log.contains("user_broken-gpu.cu(3)"), "{log}");
        }
        Err(other) => panic!("expected KernelCompile, got {other}"),
        Ok(_) => panic!("expected KernelCompile, got an evaluator"),
    }
    // NaN for every row: reported at the first read-back, naming the problem and the lowest row.
    let nan = UserBits::new("nan-bits", 40, NAN_SOURCE, |bits: &Bits| {
        (-1.0 - f64::from(u8::from(bits.get(0) == Some(true)))).sqrt()
    })
    .unwrap();
    match GaCuda::new(params(), &nan, 1, &gpu) {
        Err(Error::NonFiniteFitness {
            problem,
            individual,
            value,
        }) => {
            assert_eq!((problem.as_str(), individual), ("nan-bits", 0));
            assert!(value.is_nan());
        }
        Err(other) => panic!("expected NonFiniteFitness, got {other}"),
        Ok(_) => panic!("expected NonFiniteFitness, got an engine"),
    }
    // The host path reports it before uploading anything, and a panic in the callback is an error too.
    let host_nan = HostEvaluated::new(
        BatchFn::new("host-nan", 40, |_: &[u32], fitness: &mut [f64]| {
            fitness.fill(f64::NAN)
        })
        .unwrap(),
    );
    let result = GaCuda::new(params(), &host_nan, 1, &gpu);
    assert!(
        matches!(&result, Err(Error::NonFiniteFitness { problem, .. }) if problem == "host-nan"),
        "{:?}",
        result.err()
    );
    let panics = HostEvaluated::new(
        BatchFn::new("host-panic", 40, |_: &[u32], _: &mut [f64]| {
            panic!("no model file")
        })
        .unwrap(),
    );
    let result = GaCuda::new(params(), &panics, 1, &gpu);
    assert!(
        matches!(&result, Err(Error::ProblemPanicked { message, .. }) if message == "no model file"),
        "{:?}",
        result.err()
    );
}

/// The device must be usable after the errors above (a later engine runs).
#[test]
fn the_gpu_should_stay_usable_after_a_user_error() {
    let Some(gpu) = gpu_or_skip("the_gpu_should_stay_usable_after_a_user_error") else {
        return;
    };
    let broken = UserBits::new("broken-then-fine", 8, BROKEN_SOURCE, trap5).unwrap();
    assert!(GaCuda::new(params(), &broken, 1, &gpu).is_err());
    let trap = trap5_problem().unwrap();
    let mut cuda = GaCuda::new(params(), &trap, 2, &gpu).unwrap();
    cuda.advance(10).unwrap();
    assert_eq!(cuda.progress().generation, 10);
}

#[test]
fn a_users_own_kernel_should_evaluate_the_population_in_ga() {
    let Some(gpu) = gpu_or_skip("a_users_own_kernel_should_evaluate_the_population_in_ga") else {
        return;
    };
    let problem = minus_ones(150);
    let mut cpu = GaCpu::new(params(), minus_ones(150), 31).unwrap();
    let mut cuda = GaCuda::new(params(), &problem, 31, &gpu).unwrap();
    assert!(cuda.graph_replay());
    assert_same_runs("minus-ones (way 2)", &mut cpu, &mut cuda);
}
