//! User bit-string problems in evo-ga (issue 29, ARCHITECTURE §5): CUDA source compiled by NVRTC (way 1) and
//! a batched host callback (way 3) through the `BitEvaluator` contract, each with a CPU twin that `GaCpu`
//! runs. CPU-side checks (the twins, NVRTC compiles, bad input) run anywhere; GPU checks skip without a
//! device and fail under `EVO_REQUIRE_GPU=1`.

use evo_core::{BinaryProblem, Bits, Engine, Error, Result};
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_equivalence::suite::ga::compare_snapshots;
use evo_ga::{
    BatchFn, BitEvaluator, DeviceBitProblem, EvalSettings, GaCpu, GaCuda, GaParams, GaSnapshot,
    HostEvaluated, UserBits,
};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};

/// Any architecture NVRTC knows compiles the modules; sm_80 is the oldest the project targets.
const ARCH: &str = "sm_80";
/// Generations compared after the initial population (the issue's must-show).
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

/// The trap-5 user problem.
fn trap5_problem() -> Result<UserBits<Twin>> {
    UserBits::new("trap5", 5 * TRAP_BLOCKS, TRAP5_SOURCE, trap5 as Twin)?
        .with_optimum(-5.0 * TRAP_BLOCKS as f64)
}

/// A random weighted graph from a fixed seed (splitmix64): `(u, v, w)` with `u ≠ v` and `w` in 1..=10.
fn graph() -> Vec<(usize, usize, u32)> {
    evo_equivalence::inputs::random_graph(0x5eed, VERTICES, EDGES)
        .into_iter()
        .map(|(u, v, r)| (u, v, (r % 10 + 1) as u32))
        .collect()
}

/// Max-cut as a minimisation: minus the weight of the edges whose ends lie on different sides.
fn cut(edges: &[(usize, usize, u32)], bits: &Bits) -> f64 {
    let mut sum = 0.0;
    for &(u, v, w) in edges {
        if bits.get(u) != bits.get(v) {
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
    UserBits::new("max-cut", VERTICES, &source, move |bits: &Bits| {
        cut(&edges, bits)
    })
}

/// Max-cut as a closure over the whole population (way 3): rows of ⌈70/32⌉ = 3 words.
fn max_cut_rows(edges: &[(usize, usize, u32)], rows: &[u32], fitness: &mut [f64]) {
    let words = Bits::word_count(VERTICES);
    for (row, f) in rows.chunks_exact(words).zip(fitness.iter_mut()) {
        let bit = |i: usize| (row[i / 32] >> (i % 32)) & 1;
        let mut sum = 0.0;
        for &(u, v, w) in edges {
            if bit(u) != bit(v) {
                sum += f64::from(w);
            }
        }
        *f = -sum;
    }
}

/// A batch that is a plain function.
type Batch = fn(&[u32], &mut [f64]);

/// The way-3 max-cut problem: the graph rebuilt per batch (a few hundred edges), so the batch is a plain
/// function.
fn max_cut_batch() -> Result<BatchFn<Batch>> {
    let batch: Batch = |rows, fitness| max_cut_rows(&graph(), rows, fitness);
    BatchFn::new("max-cut", VERTICES, batch)
}

/// Runs `cpu` and `gpu` side by side, comparing every generation's snapshot bit for bit.
fn assert_same_runs<E: Engine<Snapshot = GaSnapshot>, F: Engine<Snapshot = GaSnapshot>>(
    case: &str,
    cpu: &mut E,
    gpu: &mut F,
) {
    for generation in 0..=GENERATIONS {
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
        evo_gpu_runtime::compile_to_ptx("my_minus_ones", ONES_KERNEL, profile, ARCH).unwrap();
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

/// Way 2: a user's own kernel, one thread per row, minus the ones of the row (`__popc` per word).
const ONES_KERNEL: &str = r#"
struct OnesParams {
    unsigned long long rows;
    unsigned long long words;
};

extern "C" __global__ void my_minus_ones(const unsigned int* population, double* fitness, OnesParams p)
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

/// OneMax (minus the ones) evaluated by the user's own kernel.
struct MinusOnes {
    bits: usize,
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
        "minus-ones"
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
            "my_minus_ones",
            ONES_KERNEL,
            "my_minus_ones",
            Profile::Exact,
        )?;
        Ok(Box::new(OnesEvaluator {
            kernel,
            bits: self.bits,
        }))
    }
}

#[test]
fn a_users_own_kernel_should_evaluate_the_population_in_ga() {
    let Some(gpu) = gpu_or_skip("a_users_own_kernel_should_evaluate_the_population_in_ga") else {
        return;
    };
    let problem = MinusOnes { bits: 150 };
    let mut cpu = GaCpu::new(params(), MinusOnes { bits: 150 }, 31).unwrap();
    let mut cuda = GaCuda::new(params(), &problem, 31, &gpu).unwrap();
    assert!(cuda.graph_replay());
    assert_same_runs("minus-ones (way 2)", &mut cpu, &mut cuda);
}
