//! QIGA on bit-string problems on the CPU (module `bits`): the knapsack repair as a user repair gives the
//! paper engine's bits, bad input is a typed error, the backend choice never falls back silently, and the
//! engine survives a failing evaluation unchanged.

use std::sync::Arc;

use evo_benchmarks::Knapsack;
use evo_core::{BACKEND_REASON, Backend, BinaryProblem, Bits, Engine, Error, GpuPresence};
use evo_gpu_runtime::device_count;
use evo_qiga::{
    BatchFn, BitRepair, KnapsackOptions, KnapsackRepair, QigaBitsCpu, QigaCpu, QigaParams,
    RotationAngles, RunConfig, SignChoice, UserBits, run_bits, run_bits_host_only,
};

fn params() -> QigaParams {
    QigaParams::default().with_sign_choice(SignChoice::Random)
}

fn runs() -> Vec<RunConfig> {
    RunConfig::batch(9, &[RotationAngles::ORIGINAL, RotationAngles::TUNED])
}

/// Minus the number of ones.
struct MinusOnes(usize);

impl BinaryProblem for MinusOnes {
    fn name(&self) -> &str {
        "minus-ones"
    }

    fn bit_count(&self) -> usize {
        self.0
    }

    fn evaluate(&self, bits: &Bits) -> f64 {
        -(bits.count_ones() as f64)
    }
}

#[test]
fn the_knapsack_repair_should_give_the_paper_engines_bits() {
    let knapsack = Knapsack::generate(70, 4).unwrap();
    let repair: Arc<dyn BitRepair> = Arc::new(KnapsackRepair::new(&knapsack));
    let mut paper = QigaCpu::batch(&params(), &knapsack, runs(), 1).unwrap();
    let mut bits =
        QigaBitsCpu::batch(&params(), knapsack.clone(), Some(repair), runs(), 1).unwrap();
    for generation in 0..=60 {
        if generation > 0 {
            paper.step().unwrap();
            bits.step().unwrap();
        }
        assert_eq!(
            paper.snapshot().unwrap(),
            bits.snapshot().unwrap(),
            "generation {generation}"
        );
    }
    assert_eq!(paper.best().unwrap(), bits.best().unwrap());
}

/// Without the repair the knapsack's fitness still repairs a copy, so the kept rows differ from the paper's:
/// the repair step is what makes the two runs equal.
#[test]
fn without_the_repair_the_kept_rows_should_not_be_the_papers() {
    let knapsack = Knapsack::generate(70, 4).unwrap();
    let paper = QigaCpu::batch(&params(), &knapsack, runs(), 1).unwrap();
    let bits = QigaBitsCpu::batch(&params(), knapsack.clone(), None, runs(), 1).unwrap();
    let (a, b) = (paper.snapshot().unwrap(), bits.snapshot().unwrap());
    assert_eq!(a.runs[0].profits, b.runs[0].profits);
    assert_ne!(a.runs[0].observed, b.runs[0].observed);
}

#[test]
fn bad_input_should_be_typed_errors() {
    let repair: Arc<dyn BitRepair> =
        Arc::new(KnapsackRepair::new(&Knapsack::generate(20, 1).unwrap()));
    let result = QigaBitsCpu::batch(&params(), MinusOnes(30), Some(repair), runs(), 1);
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
    let result = QigaBitsCpu::new(&params(), MinusOnes(0), 1, 1);
    assert!(
        matches!(
            &result,
            Err(Error::InvalidParameter {
                name: "bit count",
                ..
            })
        ),
        "{:?}",
        result.err()
    );
    let options = params().with_options(KnapsackOptions::PRACTICAL);
    let result = QigaBitsCpu::new(&options, MinusOnes(30), 1, 1);
    assert!(
        matches!(
            &result,
            Err(Error::InvalidParameter {
                name: "knapsack options",
                ..
            })
        ),
        "{:?}",
        result.err()
    );
    let result = QigaBitsCpu::batch(&params(), MinusOnes(30), None, Vec::new(), 1);
    assert!(result.is_err());
}

#[test]
fn a_non_finite_fitness_or_a_panic_should_be_a_typed_error_and_leave_the_engine_as_it_was() {
    // NaN once bit 0 is set: generation 0 may pass, a later one fails.
    let nan_when_bit0 = |bits: &Bits| {
        if bits.get(0) == Some(true) {
            f64::NAN
        } else {
            -(bits.count_ones() as f64)
        }
    };
    let problem = UserBits::new(
        "nan-later",
        16,
        "__device__ double evo_user_fitness(const unsigned int* b, unsigned long long n) { return 0.0; }",
        nan_when_bit0,
    )
    .unwrap();
    match QigaBitsCpu::new(&params(), problem, 5, 1) {
        Err(Error::NonFiniteFitness { problem, value, .. }) => {
            assert_eq!(problem, "nan-later");
            assert!(value.is_nan());
        }
        Err(other) => panic!("expected NonFiniteFitness, got {other}"),
        Ok(_) => {
            panic!("expected NonFiniteFitness: bit 0 is 1 with probability 1/2 in each of 10 rows")
        }
    }
    let panics = BatchFn::new("panics-later", 16, |rows: &[u32], fitness: &mut [f64]| {
        for (row, f) in rows.iter().zip(fitness.iter_mut()) {
            assert!(row.count_ones() < 12, "too many ones");
            *f = -f64::from(row.count_ones());
        }
    })
    .unwrap();
    let mut engine = QigaBitsCpu::new(&params(), panics, 5, 1).unwrap();
    let mut failed = None;
    for _ in 0..500 {
        let before = engine.snapshot().unwrap();
        if let Err(error) = engine.step() {
            assert_eq!(
                engine.snapshot().unwrap(),
                before,
                "a failed step changes nothing"
            );
            failed = Some(error);
            break;
        }
    }
    assert!(
        matches!(&failed, Some(Error::ProblemPanicked { message, .. }) if message == "too many ones"),
        "{failed:?}"
    );
}

#[test]
fn a_snapshot_should_restore_and_continue_identically() {
    let mut a = QigaBitsCpu::batch(&params(), MinusOnes(45), None, runs(), 1).unwrap();
    for _ in 0..7 {
        a.step().unwrap();
    }
    let middle = a.snapshot().unwrap();
    let mut b = QigaBitsCpu::batch(&params(), MinusOnes(45), None, runs(), 1).unwrap();
    b.restore(&middle).unwrap();
    a.step().unwrap();
    b.step().unwrap();
    assert_eq!(a.snapshot().unwrap(), b.snapshot().unwrap());
    // A snapshot of another length is refused.
    let other = QigaBitsCpu::batch(&params(), MinusOnes(44), None, runs(), 1).unwrap();
    assert!(b.restore(&other.snapshot().unwrap()).is_err());
}

#[test]
fn a_problem_without_a_device_evaluation_should_never_fall_back_silently() {
    let small = params().with_generations(5).unwrap();
    match run_bits_host_only(&small, MinusOnes(20), None, 1, Backend::cuda(0)) {
        Err(Error::NoDeviceEvaluation {
            problem, remedy, ..
        }) => {
            assert_eq!(problem, "minus-ones");
            assert!(remedy.contains("DeviceBitProblem"), "{remedy}");
        }
        other => panic!(
            "expected NoDeviceEvaluation, got {:?}",
            other.map(|r| r.metadata)
        ),
    }
    let report = run_bits_host_only(&small, MinusOnes(20), None, 1, Backend::Auto).unwrap();
    let reason = &report.metadata[BACKEND_REASON];
    assert!(reason.contains("has no device evaluation"), "{reason}");
    assert_eq!(report.metadata["backend"], Backend::cpu().to_string());
}

#[test]
fn run_bits_should_record_which_backend_ran_and_why() {
    let small = params().with_generations(5).unwrap();
    let problem = || {
        UserBits::new(
            "onemax",
            40,
            "__device__ double evo_user_fitness(const unsigned int* b, unsigned long long n) { return -(double)(__popc(b[0]) + __popc(b[1])); }",
            |bits: &Bits| -(bits.count_ones() as f64),
        )
        .unwrap()
    };
    let report = run_bits(&small, problem(), None, 3, Backend::Cpu { threads: 1 }).unwrap();
    assert_eq!(
        report.metadata[BACKEND_REASON],
        format!("{} was asked for", Backend::Cpu { threads: 1 })
    );
    let report = run_bits(&small, problem(), None, 3, Backend::Auto).unwrap();
    match GpuPresence::from_device_count(device_count()).unwrap() {
        GpuPresence::Device(_) => {
            assert_eq!(report.metadata["backend"], Backend::cuda(0).to_string())
        }
        GpuPresence::Absent { .. } => {
            assert!(
                !std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1"),
                "EVO_REQUIRE_GPU=1 requires a CUDA device"
            );
            assert_eq!(report.metadata["backend"], Backend::cpu().to_string());
        }
    }
    assert_eq!(report.evaluations, 10 * 6);
}
