//! User bit-string problems in evo-qiga (issue 29, ARCHITECTURE §5): the QIGA CUDA engine on the bit-string
//! device-evaluation contract in its three ways (user CUDA source with a Rust twin, a user's own kernel, a
//! host closure), with and without a repair step, against the CPU engine bit for bit. CPU-side checks run
//! anywhere; GPU checks skip without a device and fail under `EVO_REQUIRE_GPU=1`.

use std::sync::Arc;

use evo_benchmarks::Knapsack;
use evo_core::{BinaryProblem, Bits, Engine, Error, Result};
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_equivalence::suite::qiga::{compare_snapshots, random_angles};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};
use evo_qiga::bits::HostRepairer;
use evo_qiga::{
    BatchFn, BitEvaluator, BitRepair, DeviceBitProblem, EvalSettings, HostEvaluated,
    KnapsackRepair, QigaBitsCpu, QigaBitsCuda, QigaCpu, QigaCuda, QigaParams, QigaSnapshot,
    RowRepairer, RunConfig, SignChoice, UserBits,
};

/// Any architecture NVRTC knows compiles the modules; sm_80 is the oldest the project targets.
const ARCH: &str = "sm_80";
/// Generations compared after the initial one (the issue's must-show).
const GENERATIONS: u64 = 200;
/// Trap-5 blocks: 20 blocks of 5 bits.
const TRAP_BLOCKS: usize = 20;
/// Max-cut graph: vertices (one bit each) and edges.
const VERTICES: usize = 70;
const EDGES: usize = 300;

/// Deceptive trap-5 as a minimisation: block k (bits 5k..5k+4) with u ones scores 5 when u = 5, else 4 − u;
/// the fitness is minus the sum (optimum −5 · blocks, all ones).
const TRAP5_SOURCE: &str = r#"// trap-5, one block of five bits at a time
__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {
    double sum = 0.0;
    for (unsigned long long block = 0; block < n_bits / 5; ++block) {
        unsigned int ones = 0;
        for (unsigned long long i = 5 * block; i < 5 * block + 5; ++i) {
            ones += evo_bit(bits, i);
        }
        sum += ones == 5u ? 5.0 : (double)(4u - ones);
    }
    return -sum;
}
"#;

/// Source that does not compile: an undefined name on the user's line 3.
const BROKEN_SOURCE: &str = "__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {\n\
    double sum = 0.0;\n\
    return sum + undefined_name;\n\
}\n";

fn trap5(bits: &Bits) -> f64 {
    let mut sum = 0.0;
    for block in 0..bits.len() / 5 {
        let ones = (5 * block..5 * block + 5)
            .filter(|&i| bits.get(i) == Some(true))
            .count();
        sum += if ones == 5 { 5.0 } else { (4 - ones) as f64 };
    }
    -sum
}

/// A twin that is a plain function.
type Twin = fn(&Bits) -> f64;

fn trap5_problem() -> Result<UserBits<Twin>> {
    UserBits::new("qiga-trap5", 5 * TRAP_BLOCKS, TRAP5_SOURCE, trap5 as Twin)?
        .with_optimum(-5.0 * TRAP_BLOCKS as f64)
}

/// A random weighted graph from a fixed seed (splitmix64): `(u, v, w)` with `u ≠ v` and `w` in 1..=10.
fn graph() -> Vec<(usize, usize, u32)> {
    evo_equivalence::inputs::random_graph(0x9a1d, VERTICES, EDGES)
        .into_iter()
        .map(|(u, v, r)| (u, v, (r % 10 + 1) as u32))
        .collect()
}

/// Max-cut as a minimisation over one packed row: minus the weight of the edges cut.
fn cut_row(edges: &[(usize, usize, u32)], row: &[u32]) -> f64 {
    let bit = |i: usize| (row[i / 32] >> (i % 32)) & 1;
    let mut sum = 0.0;
    for &(u, v, w) in edges {
        if bit(u) != bit(v) {
            sum += f64::from(w);
        }
    }
    -sum
}

/// The CUDA source of max-cut on `edges`, the graph written into it as a constant table.
fn max_cut_source(edges: &[(usize, usize, u32)]) -> String {
    let table: Vec<String> = edges
        .iter()
        .map(|(u, v, w)| format!("{{{u}, {v}, {w}}}"))
        .collect();
    format!(
        "__device__ const unsigned int EDGES[{}][3] = {{{}}};\n\
         __device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {{\n\
         \x20   double sum = 0.0;\n\
         \x20   for (int e = 0; e < {}; ++e) {{\n\
         \x20       if (evo_bit(bits, EDGES[e][0]) != evo_bit(bits, EDGES[e][1])) sum += (double)EDGES[e][2];\n\
         \x20   }}\n\
         \x20   return -sum;\n\
         }}\n",
        edges.len(),
        table.join(", "),
        edges.len()
    )
}

fn max_cut_problem() -> Result<UserBits<impl Fn(&Bits) -> f64 + Sync + Send + Clone>> {
    let edges = graph();
    let source = max_cut_source(&edges);
    UserBits::new("qiga-max-cut", VERTICES, &source, move |bits: &Bits| {
        cut_row(&edges, bits.words())
    })
}

/// A batch that is a plain function.
type Batch = fn(&[u32], &mut [f64]);

/// The way-3 max-cut problem: a closure over the whole population.
fn max_cut_batch() -> Result<BatchFn<Batch>> {
    let batch: Batch = |rows, fitness| {
        let edges = graph();
        let words = Bits::word_count(VERTICES);
        for (row, f) in rows.chunks_exact(words).zip(fitness.iter_mut()) {
            *f = cut_row(&edges, row);
        }
    };
    BatchFn::new("qiga-max-cut-host", VERTICES, batch)
}

/// Three runs, each with its own seed and random angles (one launch evaluates many parameter sets).
fn runs(seed: u64) -> Vec<RunConfig> {
    RunConfig::batch(seed, &random_angles(seed, 3))
}

fn params() -> QigaParams {
    QigaParams::default().with_sign_choice(SignChoice::Random)
}

/// Steps `cpu` and `gpu` side by side, comparing every generation's snapshot bit for bit.
fn assert_same_runs<E: Engine<Snapshot = QigaSnapshot>, F: Engine<Snapshot = QigaSnapshot>>(
    case: &str,
    cpu: &mut E,
    gpu: &mut F,
    generations: u64,
) {
    for generation in 0..=generations {
        if generation > 0 {
            cpu.step().unwrap();
            gpu.step().unwrap();
        }
        let comparison = compare_snapshots(&cpu.snapshot().unwrap(), &gpu.snapshot().unwrap());
        assert!(
            comparison.passed(),
            "{case}: generation {generation}: {:?}",
            comparison.first_mismatch
        );
    }
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
    let liar = MinusOnes {
        bits: 150,
        evaluator_bits: 149,
    };
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

/// Way 2: a user's own kernel, one thread per row, minus the ones of the row (`__popc` per word).
const ONES_KERNEL: &str = r#"
struct OnesParams {
    unsigned long long rows;
    unsigned long long words;
};

extern "C" __global__ void my_qiga_minus_ones(const unsigned int* population, double* fitness, OnesParams p)
{
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= p.rows) {
        return;
    }
    int ones = 0;
    for (unsigned long long w = 0; w < p.words; ++w) {
        ones += __popc(population[r * p.words + w]);
    }
    fitness[r] = -(double)ones;
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct OnesParams {
    rows: u64,
    words: u64,
}
// SAFETY: repr(C), two integers, the layout of the kernel's `OnesParams` struct (its last argument, by value).
unsafe impl KernelParams for OnesParams {}

/// OneMax (minus the ones) evaluated by the user's own kernel; `evaluator_bits` lets a test build an
/// evaluator that disagrees with its problem.
struct MinusOnes {
    bits: usize,
    evaluator_bits: usize,
}

struct OnesEvaluator {
    kernel: Kernel,
    bits: usize,
}

impl BitEvaluator for OnesEvaluator {
    fn bit_count(&self) -> usize {
        self.bits
    }

    fn evaluate(
        &mut self,
        population: &DeviceBuffer<u32>,
        fitness: &mut DeviceBuffer<f64>,
        _: EvalSettings,
    ) -> Result<()> {
        let rows = fitness.len();
        let words = Bits::word_count(self.bits);
        assert_eq!(population.len(), rows * words);
        let params = OnesParams {
            rows: rows as u64,
            words: words as u64,
        };
        // SAFETY: thread r < rows reads population[r·words .. (r+1)·words] (rows·words words, asserted) and
        // writes fitness[r]; the arguments follow the kernel's list.
        unsafe {
            self.kernel
                .launch()
                .input(population)
                .output(fitness)
                .params(&params)
                .run(LaunchConfig::linear((rows as u32).div_ceil(64), 64, 0))
        }
    }

    fn stream_ordered(&self) -> bool {
        true
    }
}

impl BinaryProblem for MinusOnes {
    fn name(&self) -> &str {
        "qiga-minus-ones"
    }

    fn bit_count(&self) -> usize {
        self.bits
    }

    fn evaluate(&self, bits: &Bits) -> f64 {
        -(bits.count_ones() as f64)
    }
}

impl DeviceBitProblem for MinusOnes {
    fn bit_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn BitEvaluator>> {
        let kernel = gpu.user_kernel(
            "my_qiga_minus_ones",
            ONES_KERNEL,
            "my_qiga_minus_ones",
            Profile::Exact,
        )?;
        Ok(Box::new(OnesEvaluator {
            kernel,
            bits: self.evaluator_bits,
        }))
    }
}

#[test]
fn a_users_own_kernel_should_evaluate_the_population_in_qiga() {
    let Some(gpu) = gpu_or_skip("a_users_own_kernel_should_evaluate_the_population_in_qiga") else {
        return;
    };
    let problem = MinusOnes {
        bits: 150,
        evaluator_bits: 150,
    };
    let twin = MinusOnes {
        bits: 150,
        evaluator_bits: 150,
    };
    let mut cpu = QigaBitsCpu::batch(&params(), twin, None, runs(31), 0).unwrap();
    let mut cuda = QigaBitsCuda::batch(&params(), &problem, None, runs(31), &gpu).unwrap();
    assert_same_runs("minus-ones (way 2)", &mut cpu, &mut cuda, GENERATIONS);
}
