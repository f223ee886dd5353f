//! The user bit-string problems that the GA's and QIGA's user-problem tests (`tests/user_bits.rs`,
//! `tests/user_qiga.rs`) both run, written once: deceptive trap-5 and max-cut as CUDA source with their Rust
//! twins (way 1), max-cut as a closure over the whole population (way 3), "minus the ones" as a user's own
//! kernel behind a [`BitEvaluator`] (way 2), and the lockstep that compares a CPU and a GPU engine
//! generation by generation. Each test names its problems and kernels itself, so that the two never share a
//! module name.

use evo_benchmarks::cuda::{BitEvaluator, DeviceBitProblem, EvalSettings};
use evo_core::{BinaryProblem, Bits, Engine, Result};
use evo_ga::UserBits;
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};

use crate::compare::Comparison;

/// Trap-5 blocks: 20 blocks of 5 bits.
pub const TRAP_BLOCKS: usize = 20;
/// Max-cut graph: vertices (one bit each).
pub const VERTICES: usize = 70;
/// Max-cut graph: edges.
pub const EDGES: usize = 300;

/// Deceptive trap-5 as a minimisation: block k (bits 5k..5k+4) with u ones scores 5 when u = 5, else 4 − u;
/// the fitness is minus the sum (optimum −5 · blocks, all ones).
pub const TRAP5_SOURCE: &str = r#"// trap-5, one block of five bits at a time
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

/// The Rust twin of [`TRAP5_SOURCE`].
pub fn trap5(bits: &Bits) -> f64 {
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
pub type Twin = fn(&Bits) -> f64;

/// The trap-5 user problem of [`TRAP_BLOCKS`] blocks, named `name`.
pub fn trap5_problem(name: &str) -> Result<UserBits<Twin>> {
    UserBits::new(name, 5 * TRAP_BLOCKS, TRAP5_SOURCE, trap5 as Twin)?
        .with_optimum(-5.0 * TRAP_BLOCKS as f64)
}

/// A random weighted graph from `seed` (splitmix64): `(u, v, w)` with `u ≠ v` and `w` in 1..=10.
pub fn graph(seed: u64) -> Vec<(usize, usize, u32)> {
    crate::inputs::random_graph(seed, VERTICES, EDGES)
        .into_iter()
        .map(|(u, v, r)| (u, v, (r % 10 + 1) as u32))
        .collect()
}

/// Max-cut as a minimisation over one packed row: minus the weight of the edges whose ends lie on different
/// sides.
pub fn cut_row(edges: &Edges, row: &[u32]) -> f64 {
    let bit = |i: usize| (row[i / 32] >> (i % 32)) & 1;
    let mut sum = 0.0;
    for &(u, v, w) in edges {
        if bit(u) != bit(v) {
            sum += f64::from(w);
        }
    }
    -sum
}

/// Max-cut over a whole population (way 3): rows of ⌈[`VERTICES`]/32⌉ words, one fitness each.
pub fn max_cut_rows(edges: &Edges, rows: &[u32], fitness: &mut [f64]) {
    let words = Bits::word_count(VERTICES);
    for (row, f) in rows.chunks_exact(words).zip(fitness.iter_mut()) {
        *f = cut_row(edges, row);
    }
}

/// The CUDA source of max-cut on `edges`, the graph written into it as a constant table.
pub fn max_cut_source(edges: &Edges) -> String {
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

/// Max-cut's edge list: `(u, v, w)`, an edge of weight `w` between vertices `u` and `v`.
pub type Edges = [(usize, usize, u32)];

/// The way-1 max-cut user problem named `name`, on the graph of `seed`, with `cut` as its twin.
pub fn max_cut_problem(
    name: &str,
    seed: u64,
    cut: fn(&Edges, &Bits) -> f64,
) -> Result<UserBits<impl Fn(&Bits) -> f64 + Sync + Send + Clone>> {
    let edges = graph(seed);
    let source = max_cut_source(&edges);
    UserBits::new(name, VERTICES, &source, move |bits: &Bits| {
        cut(&edges, bits)
    })
}

/// Way 2's source: a user's own kernel named `kernel`, one thread per row, minus the ones of the row
/// (`__popc` per word).
pub fn ones_kernel_source(kernel: &str) -> String {
    format!(
        r#"
struct OnesParams {{
    unsigned long long rows;
    unsigned long long words;
}};

extern "C" __global__ void {kernel}(const unsigned int* population, double* fitness, OnesParams p)
{{
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= p.rows) {{
        return;
    }}
    int ones = 0;
    for (unsigned long long w = 0; w < p.words; ++w) {{
        ones += __popc(population[r * p.words + w]);
    }}
    fitness[r] = -(double)ones;
}}
"#
    )
}

#[repr(C)]
#[derive(Clone, Copy)]
struct OnesParams {
    rows: u64,
    words: u64,
}
// SAFETY: repr(C), two integers, the layout of the kernel's `OnesParams` struct (its last argument, by value).
unsafe impl KernelParams for OnesParams {}

/// OneMax (minus the ones) evaluated by the user's own kernel ([`ones_kernel_source`]).
pub struct MinusOnes {
    /// The problem's name.
    pub name: &'static str,
    /// The kernel's name, also its module's.
    pub kernel: &'static str,
    /// The problem's length.
    pub bits: usize,
    /// The length its evaluator reports: a test sets it apart from `bits` to build an evaluator that
    /// disagrees with its problem.
    pub evaluator_bits: usize,
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
        self.name
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
            self.kernel,
            &ones_kernel_source(self.kernel),
            self.kernel,
            Profile::Exact,
        )?;
        Ok(Box::new(OnesEvaluator {
            kernel,
            bits: self.evaluator_bits,
        }))
    }
}

/// Steps `cpu` and `gpu` side by side for `generations` generations, comparing the initial snapshots and every
/// generation's with `compare`; panics at the first step that fails or the first snapshot that differs.
pub fn assert_same_runs<S, E, F>(
    case: &str,
    cpu: &mut E,
    gpu: &mut F,
    generations: u64,
    compare: impl Fn(&S, &S) -> Comparison,
) where
    E: Engine<Snapshot = S>,
    F: Engine<Snapshot = S>,
{
    for generation in 0..=generations {
        let at = |error| format!("{case}: generation {generation}: {error}");
        if generation > 0 {
            cpu.step().map_err(at).unwrap();
            gpu.step().map_err(at).unwrap();
        }
        let comparison = compare(
            &cpu.snapshot().map_err(at).unwrap(),
            &gpu.snapshot().map_err(at).unwrap(),
        );
        assert!(
            comparison.passed(),
            "{case}: generation {generation}: {:?}",
            comparison.first_mismatch
        );
    }
}

#[cfg(test)]
mod tests {
    use evo_ga::{GaCpu, GaParams};

    use super::*;
    use crate::suite::ga::compare_snapshots;

    fn engine(seed: u64) -> GaCpu<UserBits<Twin>> {
        GaCpu::new(GaParams::new(), trap5_problem("trap5").unwrap(), seed).unwrap()
    }

    #[test]
    fn two_engines_of_one_seed_should_pass_the_lockstep() {
        assert_same_runs(
            "twins",
            &mut engine(1),
            &mut engine(1),
            5,
            compare_snapshots,
        );
    }

    #[test]
    #[should_panic(expected = "seeds apart: generation 0")]
    fn engines_of_other_seeds_should_fail_the_lockstep() {
        assert_same_runs(
            "seeds apart",
            &mut engine(1),
            &mut engine(2),
            5,
            compare_snapshots,
        );
    }

    #[test]
    fn the_twins_should_score_all_ones_at_the_optimum() {
        let mut ones = Bits::zeros(5 * TRAP_BLOCKS);
        for i in 0..ones.len() {
            ones.set(i, true).unwrap();
        }
        let trap = trap5_problem("trap5").unwrap();
        assert_eq!(trap.evaluate(&ones), trap.optimum().unwrap());
        let minus = MinusOnes {
            name: "minus-ones",
            kernel: "k",
            bits: ones.len(),
            evaluator_bits: ones.len(),
        };
        assert_eq!(minus.evaluate(&ones), -(ones.len() as f64));
    }
}
