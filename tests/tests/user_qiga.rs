//! User bit-string problems in evo-qiga (issue 29, ARCHITECTURE §5): the QIGA CUDA engine on the bit-string
//! device-evaluation contract in its three ways (user CUDA source with a Rust twin, a user's own kernel, a
//! host closure), with and without a repair step, against the CPU engine bit for bit. CPU-side checks run
//! anywhere; GPU checks skip without a device and fail under `EVO_REQUIRE_GPU=1`.

use std::sync::Arc;

use evo_benchmarks::Knapsack;
use evo_core::{Bits, Engine, Error, Result};
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_equivalence::suite::qiga::{compare_snapshots, random_angles};
use evo_equivalence::user_bits::{
    self, MinusOnes, Twin, VERTICES, cut_row, graph, max_cut_rows, trap5,
};
use evo_gpu_runtime::{Gpu, Profile};
use evo_qiga::bits::HostRepairer;
use evo_qiga::{
    BatchFn, BitRepair, HostEvaluated, KnapsackRepair, QigaBitsCpu, QigaBitsCuda, QigaCpu,
    QigaCuda, QigaParams, QigaSnapshot, RowRepairer, RunConfig, SignChoice, UserBits,
};

/// Any architecture NVRTC knows compiles the modules; sm_80 is the oldest the project targets.
const ARCH: &str = "sm_80";
/// Generations compared after the initial one (the must-show).
const GENERATIONS: u64 = 200;
/// The seed of the max-cut graph.
const GRAPH_SEED: u64 = 0x9a1d;
/// The name of way 2's kernel (and of its module).
const ONES_KERNEL: &str = "my_qiga_minus_ones";

/// Source that does not compile: an undefined name on the user's line 3.
const BROKEN_SOURCE: &str = "__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {\n\
    double sum = 0.0;\n\
    return sum + undefined_name;\n\
}\n";

fn trap5_problem() -> Result<UserBits<Twin>> {
    user_bits::trap5_problem("qiga-trap5")
}

fn max_cut_problem() -> Result<UserBits<impl Fn(&Bits) -> f64 + Sync + Send + Clone>> {
    user_bits::max_cut_problem("qiga-max-cut", GRAPH_SEED, |edges, bits| {
        cut_row(edges, bits.words())
    })
}

/// A batch that is a plain function.
type Batch = fn(&[u32], &mut [f64]);

/// The way-3 max-cut problem: a closure over the whole population.
fn max_cut_batch() -> Result<BatchFn<Batch>> {
    let batch: Batch = |rows, fitness| max_cut_rows(&graph(GRAPH_SEED), rows, fitness);
    BatchFn::new("qiga-max-cut-host", VERTICES, batch)
}

/// OneMax (minus the ones) of `bits` bits evaluated by the user's own kernel (way 2), its evaluator
/// reporting `evaluator_bits`.
fn minus_ones(bits: usize, evaluator_bits: usize) -> MinusOnes {
    MinusOnes {
        name: "qiga-minus-ones",
        kernel: ONES_KERNEL,
        bits,
        evaluator_bits,
    }
}

/// Three runs, each with its own seed and random angles (one launch evaluates many parameter sets).
fn runs(seed: u64) -> Vec<RunConfig> {
    RunConfig::batch(seed, &random_angles(seed, 3))
}

/// Steps `cpu` and `gpu` side by side, comparing every generation's snapshot bit for bit.
fn assert_same_runs(
    case: &str,
    cpu: &mut impl Engine<Snapshot = QigaSnapshot>,
    gpu: &mut impl Engine<Snapshot = QigaSnapshot>,
    generations: u64,
) {
    user_bits::assert_same_runs(case, cpu, gpu, generations, compare_snapshots);
}

fn params() -> QigaParams {
    QigaParams::default().with_sign_choice(SignChoice::Random)
}

#[test]
fn the_cpu_engine_should_solve_trap5_through_its_twin() {
    let trap = trap5_problem().unwrap();
    let mut cpu = QigaBitsCpu::batch(&params(), trap, None, runs(3), 2).unwrap();
    let start = cpu.progress().best_fitness;
    for _ in 0..GENERATIONS {
        cpu.step().unwrap();
    }
    let (best, fitness) = cpu.best().unwrap();
    assert_eq!(fitness, trap5(&best));
    assert!(fitness < start, "{fitness} vs {start}");
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
        matches!(&result, Err(Error::MissingEntryPoint { function, .. }) if function == "evo_user_fitness"),
        "{:?}",
        result.err()
    );
}

#[test]
fn a_compile_error_should_carry_nvrtcs_log_with_the_users_line_number() {
    if !nvrtc_or_skip("a_compile_error_should_carry_nvrtcs_log_with_the_users_line_number") {
        return;
    }
    let broken = UserBits::new("qiga-broken", 8, BROKEN_SOURCE, trap5).unwrap();
    match broken.check_compiles(Profile::Exact, ARCH) {
        Err(Error::KernelCompile { log, .. }) => {
            assert!(log.contains("user_qiga-broken.cu(3)"), "{log}");
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
    for problem in [
        trap5_problem()
            .unwrap()
            .check_compiles(Profile::Exact, ARCH),
        max_cut_problem()
            .unwrap()
            .check_compiles(Profile::Exact, ARCH),
    ] {
        problem.unwrap();
    }
}

#[test]
fn a_repair_of_another_length_should_be_refused() {
    let trap = trap5_problem().unwrap();
    let repair: Arc<dyn BitRepair> =
        Arc::new(KnapsackRepair::new(&Knapsack::generate(30, 1).unwrap()));
    let result = QigaBitsCpu::batch(&params(), trap, Some(repair), runs(1), 1);
    assert!(
        matches!(
            &result,
            Err(Error::InvalidParameter {
                name: "repair bit count",
                ..
            })
        ),
        "{:?}",
        result.err()
    );
}

#[test]
fn user_trap5_and_max_cut_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) =
        gpu_or_skip("user_trap5_and_max_cut_on_the_gpu_should_match_cpu_for_200_generations")
    else {
        return;
    };
    let trap = trap5_problem().unwrap();
    let mut cpu = QigaBitsCpu::batch(&params(), trap.clone(), None, runs(21), 0).unwrap();
    let mut cuda = QigaBitsCuda::batch(&params(), &trap, None, runs(21), &gpu).unwrap();
    assert_same_runs("trap-5 (way 1)", &mut cpu, &mut cuda, GENERATIONS);
    let cut = max_cut_problem().unwrap();
    let mut cpu = QigaBitsCpu::batch(&params(), cut.clone(), None, runs(22), 0).unwrap();
    let mut cuda = QigaBitsCuda::batch(&params(), &cut, None, runs(22), &gpu).unwrap();
    assert_same_runs("max-cut (way 1)", &mut cpu, &mut cuda, GENERATIONS);
    // The same run in one call (one read-back) ends in the same state, and a snapshot restores on the GPU.
    let mut batched = QigaBitsCuda::batch(&params(), &cut, None, runs(22), &gpu).unwrap();
    batched.run_generations(GENERATIONS as u32).unwrap();
    assert!(compare_snapshots(&cpu.snapshot().unwrap(), &batched.snapshot().unwrap()).passed());
    let middle = QigaBitsCpu::batch(&params(), cut.clone(), None, runs(22), 0).unwrap();
    batched.restore(&middle.snapshot().unwrap()).unwrap();
    assert!(compare_snapshots(&middle.snapshot().unwrap(), &batched.snapshot().unwrap()).passed());
}

#[test]
fn a_host_callback_on_the_gpu_should_match_cpu_for_200_generations() {
    let Some(gpu) = gpu_or_skip("a_host_callback_on_the_gpu_should_match_cpu_for_200_generations")
    else {
        return;
    };
    let problem = HostEvaluated::new(max_cut_batch().unwrap());
    let mut cpu =
        QigaBitsCpu::batch(&params(), max_cut_batch().unwrap(), None, runs(23), 0).unwrap();
    let mut cuda = QigaBitsCuda::batch(&params(), &problem, None, runs(23), &gpu).unwrap();
    assert_same_runs("max-cut (way 3)", &mut cpu, &mut cuda, GENERATIONS);
}

/// The knapsack's repair as a user repair: QIGA on bit strings, the knapsack's fitness evaluated on the host
/// and its index-order repair on the device, runs the paper engines' bits on both backends.
#[test]
fn the_knapsack_repair_on_the_gpu_should_give_the_paper_engines_bits() {
    let Some(gpu) =
        gpu_or_skip("the_knapsack_repair_on_the_gpu_should_give_the_paper_engines_bits")
    else {
        return;
    };
    let knapsack = Knapsack::generate(100, 5).unwrap();
    let repair = KnapsackRepair::new(&knapsack);
    let problem = HostEvaluated::new(knapsack.clone());
    let mut paper = QigaCuda::batch(&params(), &knapsack, runs(24), &gpu).unwrap();
    let mut cuda = QigaBitsCuda::batch(&params(), &problem, Some(&repair), runs(24), &gpu).unwrap();
    assert_same_runs("knapsack (way 3 + repair)", &mut paper, &mut cuda, 50);
    let mut paper_cpu = QigaCpu::batch(&params(), &knapsack, runs(24), 0).unwrap();
    for _ in 0..50 {
        paper_cpu.step().unwrap();
    }
    assert!(compare_snapshots(&paper_cpu.snapshot().unwrap(), &cuda.snapshot().unwrap()).passed());
}

/// The knapsack's repair written for the host only: its device half is a [`HostRepairer`].
#[derive(Clone)]
struct RepairOnHost(KnapsackRepair);

impl BitRepair for RepairOnHost {
    fn name(&self) -> &str {
        "knapsack repair on the host"
    }

    fn bit_count(&self) -> usize {
        self.0.bit_count()
    }

    fn repair(&self, row: &mut [u32]) {
        self.0.repair(row);
    }

    fn device_repairer(&self, _gpu: &Gpu) -> Result<Box<dyn RowRepairer>> {
        Ok(Box::new(HostRepairer::new(self.clone())))
    }
}

/// A repair run on the host between the device's observation and evaluation gives the same bits as the
/// device repair (here, the paper engine's).
#[test]
fn a_host_repair_on_the_gpu_should_give_the_paper_engines_bits() {
    let Some(gpu) = gpu_or_skip("a_host_repair_on_the_gpu_should_give_the_paper_engines_bits")
    else {
        return;
    };
    let knapsack = Knapsack::generate(100, 6).unwrap();
    let repair = RepairOnHost(KnapsackRepair::new(&knapsack));
    let problem = HostEvaluated::new(knapsack.clone());
    let mut paper = QigaCuda::batch(&params(), &knapsack, runs(25), &gpu).unwrap();
    let mut cuda = QigaBitsCuda::batch(&params(), &problem, Some(&repair), runs(25), &gpu).unwrap();
    assert_same_runs("knapsack (host repair)", &mut paper, &mut cuda, 30);
}

#[test]
fn bad_user_code_on_the_gpu_should_be_typed_errors() {
    let Some(gpu) = gpu_or_skip("bad_user_code_on_the_gpu_should_be_typed_errors") else {
        return;
    };
    let broken = UserBits::new("qiga-broken-gpu", 8, BROKEN_SOURCE, trap5).unwrap();
    match QigaBitsCuda::new(&params(), &broken, 1, &gpu) {
        Err(Error::KernelCompile { log, .. }) => {
            assert!(log.contains("user_qiga-broken-gpu.cu(3)"), "{log}");
        }
        Err(other) => panic!("expected KernelCompile, got {other}"),
        Ok(_) => panic!("expected KernelCompile, got an engine"),
    }
    // An evaluator for another length than its problem's.
    let liar = minus_ones(150, 149);
    let result = QigaBitsCuda::new(&params(), &liar, 1, &gpu);
    assert!(
        matches!(
            &result,
            Err(Error::InvalidParameter {
                name: "evaluator bit count",
                ..
            })
        ),
        "{:?}",
        result.err()
    );
    // A repair for another length.
    let repair = KnapsackRepair::new(&Knapsack::generate(40, 2).unwrap());
    let trap = trap5_problem().unwrap();
    let result = QigaBitsCuda::batch(&params(), &trap, Some(&repair), runs(1), &gpu);
    assert!(
        matches!(
            &result,
            Err(Error::InvalidParameter {
                name: "repair bit count",
                ..
            })
        ),
        "{:?}",
        result.err()
    );
    // A NaN fitness is reported naming the problem; the device stays usable afterwards.
    let nan = HostEvaluated::new(
        BatchFn::new("qiga-host-nan", 40, |_: &[u32], fitness: &mut [f64]| {
            fitness.fill(f64::NAN)
        })
        .unwrap(),
    );
    let result = QigaBitsCuda::new(&params(), &nan, 1, &gpu);
    assert!(
        matches!(&result, Err(Error::NonFiniteFitness { problem, .. }) if problem == "qiga-host-nan"),
        "{:?}",
        result.err()
    );
    let mut fine = QigaBitsCuda::new(&params(), &trap, 2, &gpu).unwrap();
    fine.run_generations(10).unwrap();
    assert_eq!(fine.progress().generation, 10);
}

#[test]
fn a_users_own_kernel_should_evaluate_the_population_in_qiga() {
    let Some(gpu) = gpu_or_skip("a_users_own_kernel_should_evaluate_the_population_in_qiga") else {
        return;
    };
    let problem = minus_ones(150, 150);
    let twin = minus_ones(150, 150);
    let mut cpu = QigaBitsCpu::batch(&params(), twin, None, runs(31), 0).unwrap();
    let mut cuda = QigaBitsCuda::batch(&params(), &problem, None, runs(31), &gpu).unwrap();
    assert_same_runs("minus-ones (way 2)", &mut cpu, &mut cuda, GENERATIONS);
}
