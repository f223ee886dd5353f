//! Your own bit-string problem on the GPU: max-cut of a random weighted graph, written once as CUDA source
//! (way 1: compiled by NVRTC, evaluated on the device) with its Rust twin, and once as a Rust closure over
//! the whole population (way 3: the GA on the GPU, the evaluation on the host). The CPU engine runs the twin;
//! with the same seed all three runs end in the same state.
//!
//! ```text
//! cargo run --release -p evo-ga --example user_bits
//! ```

use evo_core::{Bits, Engine, Executor, Report, Termination};
use evo_ga::{BatchFn, GaCpu, GaCuda, GaParams, HostEvaluated, UserBits};
use evo_gpu_runtime::Gpu;

const VERTICES: usize = 200;
const EDGES: usize = 1000;
const GENERATIONS: u64 = 500;
const SEED: u64 = 2024;

/// A reproducible random graph: edges `(u, v, weight)` drawn with a small xorshift generator.
fn random_graph() -> Vec<(usize, usize, u32)> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut edges = Vec::new();
    while edges.len() < EDGES {
        let u = (next() % VERTICES as u64) as usize;
        let v = (next() % VERTICES as u64) as usize;
        if u != v {
            edges.push((u, v, (next() % 9 + 1) as u32));
        }
    }
    edges
}

/// The fitness to minimise: minus the weight of the edges cut by the partition (bit i = side of vertex i).
fn cut_weight(edges: &[(usize, usize, u32)], side: impl Fn(usize) -> bool) -> f64 {
    let mut sum = 0.0;
    for &(u, v, w) in edges {
        if side(u) != side(v) {
            sum += f64::from(w);
        }
    }
    -sum
}

/// The same function as CUDA source: the graph goes into the source as a constant table.
fn cuda_source(edges: &[(usize, usize, u32)]) -> String {
    let table: Vec<String> = edges
        .iter()
        .map(|(u, v, w)| format!("{{{u}, {v}, {w}}}"))
        .collect();
    format!(
        r#"
__device__ const unsigned int EDGES[{count}][3] = {{ {table} }};

__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {{
    double sum = 0.0;
    for (int e = 0; e < {count}; ++e) {{
        if (evo_bit(bits, EDGES[e][0]) != evo_bit(bits, EDGES[e][1])) {{
            sum += (double)EDGES[e][2];
        }}
    }}
    return -sum;
}}
"#,
        count = edges.len(),
        table = table.join(", ")
    )
}

fn run<E: Engine<Solution = Bits>>(label: &str, engine: E) -> evo_core::Result<Report<Bits>> {
    let report = Executor::new(engine)
        .with_termination(Termination::new().with_max_generations(GENERATIONS))?
        .run()?;
    println!(
        "{label:<28} best cut {:>6} after {} generations ({:.3} s)",
        -report.best_fitness, report.generations, report.wall_time_s
    );
    Ok(report)
}

fn main() -> evo_core::Result<()> {
    let edges = random_graph();
    let params = GaParams::new()
        .with_population(256)?
        .with_tournament_size(3)?;

    // Way 1: CUDA source on the device, the Rust twin on the CPU.
    let twin_edges = edges.clone();
    let problem = UserBits::new(
        "max-cut",
        VERTICES,
        &cuda_source(&edges),
        move |bits: &Bits| cut_weight(&twin_edges, |i| bits.get(i) == Some(true)),
    )?;
    let cpu = run(
        "CPU (Rust twin)",
        GaCpu::new(params.clone(), problem.clone(), SEED)?,
    )?;

    let Some(gpu) = Gpu::first_available()? else {
        println!("no CUDA device: the GPU runs are skipped");
        return Ok(());
    };
    let device = run(
        "GPU (CUDA source)",
        GaCuda::new(params.clone(), &problem, SEED, &gpu)?,
    )?;

    // Way 3: a closure over the whole population (rows of ⌈L/32⌉ words), the rest of the GA on the GPU.
    let words = Bits::word_count(VERTICES);
    let batch = BatchFn::new(
        "max-cut",
        VERTICES,
        move |rows: &[u32], fitness: &mut [f64]| {
            for (row, f) in rows.chunks_exact(words).zip(fitness.iter_mut()) {
                *f = cut_weight(&edges, |i| (row[i / 32] >> (i % 32)) & 1 == 1);
            }
        },
    )?;
    let host = run(
        "GPU (host callback)",
        GaCuda::new(params, &HostEvaluated::new(batch), SEED, &gpu)?,
    )?;

    let same = |a: &Report<Bits>, b: &Report<Bits>| {
        a.best == b.best && a.best_fitness.to_bits() == b.best_fitness.to_bits()
    };
    println!(
        "CPU and GPU runs identical: {}",
        same(&cpu, &device) && same(&cpu, &host)
    );
    Ok(())
}
