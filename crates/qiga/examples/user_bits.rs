//! QIGA on your own bit-string problem: max-cut of a random weighted graph, written once as CUDA source for
//! the GPU and once in Rust for the CPU, run on the GPU when there is one (the report says which backend ran
//! and why): `cargo run --release -p evo-qiga --example user_bits -- [vertices] [seed]`.

use clap::Parser;
use evo_core::{BACKEND_REASON, Backend, Bits};
use evo_qiga::{QigaParams, RotationAngles, UserBits, run_bits};

/// Max-cut of a random graph with QIGA.
#[derive(Parser)]
struct Args {
    /// Vertices of the graph (one bit each); it gets four edges per vertex.
    #[arg(default_value_t = 200)]
    vertices: usize,
    /// The seed of the graph and of the run.
    #[arg(default_value_t = 1)]
    seed: u64,
}

/// An edge `(u, v, weight)`.
type Edge = (usize, usize, u32);

/// A random graph: `4 · vertices` edges between distinct vertices, weights 1..=10 (a small xorshift, so the
/// example needs nothing else).
fn random_graph(vertices: usize, seed: u64) -> Vec<Edge> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let mut edges = Vec::new();
    while edges.len() < 4 * vertices {
        let (u, v) = (next(vertices), next(vertices));
        if u != v {
            edges.push((u, v, next(10) as u32 + 1));
        }
    }
    edges
}

/// The fitness on the CPU: minus the weight of the edges whose ends lie on different sides (QIGA minimises).
fn minus_cut(edges: &[Edge], bits: &Bits) -> f64 {
    let mut cut = 0.0;
    for &(u, v, w) in edges {
        if bits.get(u) != bits.get(v) {
            cut += f64::from(w);
        }
    }
    -cut
}

/// The same fitness as CUDA source: the graph becomes a constant table, and `evo_user_fitness` sums in the
/// same order as `minus_cut`, so both give the same bits.
fn minus_cut_source(edges: &[Edge]) -> String {
    let table: Vec<String> = edges
        .iter()
        .map(|(u, v, w)| format!("{{{u}, {v}, {w}}}"))
        .collect();
    format!(
        r#"__device__ const unsigned int EDGES[{count}][3] = {{{table}}};

__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {{
    double cut = 0.0;
    for (int e = 0; e < {count}; ++e) {{
        if (evo_bit(bits, EDGES[e][0]) != evo_bit(bits, EDGES[e][1])) cut += (double)EDGES[e][2];
    }}
    return -cut;
}}
"#,
        count = edges.len(),
        table = table.join(", ")
    )
}

fn main() -> anyhow::Result<()> {
    let Args { vertices, seed } = Args::parse();
    let edges = random_graph(vertices, seed);
    let source = minus_cut_source(&edges);
    let twin_edges = edges.clone();
    let problem = UserBits::new("max-cut", vertices, &source, move |bits: &Bits| {
        minus_cut(&twin_edges, bits)
    })?;
    let params = QigaParams::default()
        .with_rotation_angles(RotationAngles::TUNED)
        .with_generations(1000)?;
    let report = run_bits(&params, problem, None, seed, Backend::auto())?;
    let side: Vec<usize> = (0..vertices)
        .filter(|&v| report.best.get(v) == Some(true))
        .collect();
    println!(
        "max-cut of {vertices} vertices, {} edges: cut weight {} with {} vertices on one side, {} evaluations",
        edges.len(),
        -report.best_fitness,
        side.len(),
        report.evaluations
    );
    println!(
        "backend {}: {}",
        report.metadata.get("backend").map_or("?", String::as_str),
        report
            .metadata
            .get(BACKEND_REASON)
            .map_or("?", String::as_str)
    );
    Ok(())
}
