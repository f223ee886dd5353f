//! The registry of kernel modules: one entry per `.cu` file, with its entry points.

/// Identifies one kernel module (one `.cu` file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ModuleId {
    /// `cuda/math.cu`: evaluates the portable math functions over arrays (equivalence tests, benches).
    Math,
    /// `cuda/reduce.cu`: fixed-shape f64 sum reductions (equivalence tests, benches).
    Reduce,
    /// `cuda/sort.cu`: population sorting and selection under the total order (evo-sort).
    Sort,
    /// `cuda/rng.cu`: fill kernels of every generator and conversion (evo-rng).
    Rng,
    /// `cuda/benchmarks_continuous.cu`: batched evaluation of the continuous test problems (evo-benchmarks).
    BenchmarksContinuous,
    /// `cuda/ga.cu`: the GA paper's per-step kernels (evo-ga).
    Ga,
    /// `cuda/de.cu`: many-threaded differential evolution, one block per vector (evo-de).
    De,
    /// `cuda/benchmarks_discrete.cu`: batched evaluation of the knapsack, ETC scheduling and CEC 2006 problems
    /// (evo-benchmarks).
    BenchmarksDiscrete,
    /// `cuda/qiga.cu`: the quantum-inspired GA, one block per independent run (evo-qiga).
    Qiga,
    /// `cuda/ma.cu`: MA-SW-Chains' crossover, distance and Solis-Wets kernels (evo-ma-sw-chains).
    Ma,
    /// `cuda/dpga.cu`: the dual-population GA on CEC 2006, many runs per launch (evo-dpga).
    Dpga,
}

impl ModuleId {
    /// The module's registry entry.
    pub fn module(self) -> &'static KernelModule {
        // MODULES is listed in ModuleId order; a unit test checks it.
        &MODULES[self as usize]
    }

    /// The module's short name (`math`), used in cache keys, errors and reports.
    pub fn name(self) -> &'static str {
        self.module().name
    }
}

impl std::fmt::Display for ModuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One kernel module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelModule {
    /// Its id.
    pub id: ModuleId,
    /// Its short name.
    pub name: &'static str,
    /// Its path relative to `kernels/`.
    pub file: &'static str,
    /// Its source text.
    pub source: &'static str,
    /// Every `extern "C" __global__` function it defines.
    pub entry_points: &'static [&'static str],
}

/// Every module, in [`ModuleId`] order.
pub static MODULES: &[KernelModule] = &[
    KernelModule {
        id: ModuleId::Math,
        name: "math",
        file: "cuda/math.cu",
        source: include_str!("../cuda/math.cu"),
        entry_points: &["math_eval_f32", "math_eval_f64"],
    },
    KernelModule {
        id: ModuleId::Reduce,
        name: "reduce",
        file: "cuda/reduce.cu",
        source: include_str!("../cuda/reduce.cu"),
        entry_points: &["reduce_sum_f64", "reduce_sum_f32_to_f64"],
    },
    KernelModule {
        id: ModuleId::Sort,
        name: "sort",
        file: "cuda/sort.cu",
        source: include_str!("../cuda/sort.cu"),
        entry_points: &[
            "sort_segments_bitonic_f32",
            "sort_segments_bitonic_f64",
            "sort_exchange_rows_u32",
            "sort_radix_prepare_f32",
            "sort_radix_prepare_f64",
            "sort_radix_histogram_u32",
            "sort_radix_histogram_u64",
            "sort_radix_scatter_u32",
            "sort_radix_scatter_u64",
            "sort_scan_exclusive_u32",
            "sort_scan_add_u32",
            "sort_ranks_from_order_u32",
            "sort_gather_f32",
            "sort_gather_f64",
            "sort_select_first_f32",
            "sort_select_first_f64",
            "sort_select_pairs_u32",
            "sort_select_pairs_u64",
            "sort_topk_tiles_f32",
            "sort_topk_tiles_f64",
            "sort_topk_pairs_u32",
            "sort_topk_pairs_u64",
        ],
    },
    KernelModule {
        id: ModuleId::Rng,
        name: "rng",
        file: "cuda/rng.cu",
        source: include_str!("../cuda/rng.cu"),
        entry_points: &[
            "rng_philox_fill_u32",
            "rng_philox_fill_uniform_f32",
            "rng_philox_fill_uniform_f64",
            "rng_philox_fill_below",
            "rng_philox_fill_normal_f32",
            "rng_xor128_fill_u32",
            "rng_xor128_fill_uniform_f32",
            "rng_xor128_fill_uniform_f64",
            "rng_curand_xorwow_fill_u32",
            "rng_curand_xorwow_fill_uniform_f32",
            "rng_curand_xorwow_fill_uniform_f64",
            "rng_curand_xorwow_fill_normal_f32",
            "rng_curand_philox_fill_u32",
            "rng_curand_philox_fill_uniform_f32",
            "rng_curand_philox_fill_uniform_f64",
            "rng_curand_philox_fill_normal_f32",
        ],
    },
    KernelModule {
        id: ModuleId::BenchmarksContinuous,
        name: "benchmarks_continuous",
        file: "cuda/benchmarks_continuous.cu",
        source: include_str!("../cuda/benchmarks_continuous.cu"),
        entry_points: &[
            "benchmarks_continuous_tiles_sphere",
            "benchmarks_continuous_tiles_rastrigin",
            "benchmarks_continuous_tiles_step",
            "benchmarks_continuous_tiles_schwefel",
            "benchmarks_continuous_tiles_discus",
            "benchmarks_continuous_tiles_sum_squares",
            "benchmarks_continuous_tiles_elliptic",
            "benchmarks_continuous_tiles_griewank",
            "benchmarks_continuous_tiles_griewank_one_row",
            "benchmarks_continuous_tiles_ackley",
            "benchmarks_continuous_tiles_rosenbrock",
            "benchmarks_continuous_finish",
            "benchmarks_continuous_prefix_squares",
            "benchmarks_continuous_finish_prefix",
            "benchmarks_continuous_cec_groups",
            "benchmarks_continuous_cec_compose",
            "benchmarks_continuous_decode16",
        ],
    },
    KernelModule {
        id: ModuleId::Ga,
        name: "ga",
        file: "cuda/ga.cu",
        source: include_str!("../cuda/ga.cu"),
        entry_points: &[
            "ga_init_u32",
            "ga_decode_f32",
            "ga_exchange_best_u32",
            "ga_select_copy_u32",
            "ga_copy_u32",
            "ga_crossover_u32",
            "ga_mutate_elite_u32",
            "ga_elite_u32",
            "ga_batch_reproduce_u32",
            "ga_batch_best_u32",
            "ga_xor128_fill_u32",
            "ga_tournament_paper_u32",
            "ga_crossover_paper_u32",
            "ga_mutate_paper_u32",
            "ga_fused_run_u32",
            "ga_fused_cluster_run_u32",
            "ga_fused_draws_u32",
        ],
    },
    KernelModule {
        id: ModuleId::De,
        name: "de",
        file: "cuda/de.cu",
        source: include_str!("../cuda/de.cu"),
        entry_points: &[
            "de_init_f32",
            "de_trial_f32",
            "de_merge_f32",
            "de_best_index_f64",
            "de_generation_f32",
            "de_local_search_etc_f32",
        ],
    },
    KernelModule {
        id: ModuleId::BenchmarksDiscrete,
        name: "benchmarks_discrete",
        file: "cuda/benchmarks_discrete.cu",
        source: include_str!("../cuda/benchmarks_discrete.cu"),
        entry_points: &[
            "benchmarks_discrete_knapsack_repair",
            "benchmarks_discrete_etc_schedules",
            "benchmarks_discrete_etc_real",
            "benchmarks_discrete_cec2006",
        ],
    },
    KernelModule {
        id: ModuleId::Qiga,
        name: "qiga",
        file: "cuda/qiga.cu",
        source: include_str!("../cuda/qiga.cu"),
        entry_points: &[
            "qiga_run_generations",
            "qiga_run_generations_options",
            "qiga_sga_run_generations",
        ],
    },
    KernelModule {
        id: ModuleId::Ma,
        name: "ma",
        file: "cuda/ma.cu",
        source: include_str!("../cuda/ma.cu"),
        entry_points: &[
            "ma_init_rows_f32",
            "ma_distance_tiles_f64",
            "ma_distance_finish_f64",
            "ma_crossover_f32",
            "ma_copy_f32",
            "ma_sw_step_f32",
        ],
    },
    KernelModule {
        id: ModuleId::Dpga,
        name: "dpga",
        file: "cuda/dpga.cu",
        source: include_str!("../cuda/dpga.cu"),
        entry_points: &[
            "dpga_draw_rows",
            "dpga_evaluate",
            "dpga_init_merge",
            "dpga_mean_vector",
            "dpga_reserve_fitness",
            "dpga_reserve_fitness_survival",
            "dpga_breed_main",
            "dpga_breed_reserve",
            "dpga_crossbreed",
            "dpga_select_main",
            "dpga_select_reserve",
            "dpga_gather_main",
            "dpga_gather_reserve",
            "dpga_finish",
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HEADERS;

    #[test]
    fn modules_are_listed_in_id_order() {
        for (index, module) in MODULES.iter().enumerate() {
            assert_eq!(
                module.id as usize, index,
                "module `{}` is out of order",
                module.name
            );
        }
    }

    #[test]
    fn every_entry_point_is_defined_extern_c_in_its_source() {
        for module in MODULES {
            for entry in module.entry_points {
                let defined = module.source.lines().any(|line| {
                    line.contains("__global__") && line.contains(&format!(" {entry}("))
                });
                assert!(
                    defined,
                    "{}: no `__global__ ... {entry}(` line",
                    module.file
                );
                assert!(
                    module.source.contains("extern \"C\""),
                    "{}: entry points must be extern \"C\"",
                    module.file
                );
            }
        }
    }

    #[test]
    fn every_quoted_include_is_in_the_header_table() {
        let sources = MODULES
            .iter()
            .map(|m| (m.file, m.source))
            .chain(HEADERS.iter().map(|h| (h.name, h.source)));
        for (file, source) in sources {
            for line in source.lines() {
                if let Some(rest) = line.trim_start().strip_prefix("#include \"") {
                    let name = rest.split('"').next().unwrap_or_default();
                    assert!(
                        crate::header(name).is_some(),
                        "{file}: includes `{name}`, which is not in HEADERS"
                    );
                }
            }
        }
    }

    #[test]
    fn entry_points_follow_the_naming_rule() {
        for module in MODULES {
            for entry in module.entry_points {
                assert!(
                    entry.starts_with(&format!("{}_", module.name)),
                    "{}: entry `{entry}` must start with `{}_`",
                    module.file,
                    module.name
                );
            }
        }
    }
}
