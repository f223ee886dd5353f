//! Typed names of every kernel entry point, one module of constants per kernel module
//! (`evo_kernels::entry::ga::INIT_U32`). The registry's entry-point lists are built from these constants, so a
//! launch function that names a constant names a registered entry point by construction; the tests check that
//! each constant is named by the rule `<module>_<constant in lowercase>` and that the module's source defines it.

use crate::registry::ModuleId;

/// One `extern "C" __global__` entry point of a registered kernel module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryPoint {
    module: ModuleId,
    name: &'static str,
}

impl EntryPoint {
    const fn new(module: ModuleId, name: &'static str) -> Self {
        Self { module, name }
    }

    /// The module that defines it.
    pub const fn module(self) -> ModuleId {
        self.module
    }

    /// Its name, as the source and the PTX spell it (`ga_init_u32`).
    pub const fn name(self) -> &'static str {
        self.name
    }
}

impl std::fmt::Display for EntryPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Defines, per kernel module, a module of [`EntryPoint`] constants, the list of them (`ALL`) and the list of
/// their names (`NAMES`, what the registry stores), in one order.
macro_rules! entry_points {
    ($( $(#[$doc:meta])* $module:ident: $id:ident { $( $constant:ident = $name:literal, )+ } )+) => {
        $(
            $(#[$doc])*
            pub mod $module {
                use super::{EntryPoint, ModuleId};

                $(
                    #[doc = concat!("`", $name, "`.")]
                    pub const $constant: EntryPoint = EntryPoint::new(ModuleId::$id, $name);
                )+

                /// Every entry point of the module, in the registry's order.
                pub const ALL: &[EntryPoint] = &[$($constant),+];

                /// Their names, in the same order.
                pub const NAMES: &[&str] = &[$($name),+];

                /// Each constant's identifier with its entry point, for the naming test.
                #[cfg(test)]
                pub(crate) const IDENTIFIERS: &[(&str, EntryPoint)] = &[$((stringify!($constant), $constant)),+];
            }
        )+

        /// Every module's constants with their identifiers, in [`ModuleId`] order.
        #[cfg(test)]
        pub(crate) const EVERY_MODULE: &[&[(&str, EntryPoint)]] = &[$($module::IDENTIFIERS),+];
    };
}

entry_points! {
    /// The entry points of `cuda/math.cu`.
    math: Math {
        EVAL_F32 = "math_eval_f32",
        EVAL_F64 = "math_eval_f64",
    }
    /// The entry points of `cuda/reduce.cu`.
    reduce: Reduce {
        SUM_F64 = "reduce_sum_f64",
        SUM_F32_TO_F64 = "reduce_sum_f32_to_f64",
    }
    /// The entry points of `cuda/sort.cu`.
    sort: Sort {
        SEGMENTS_BITONIC_F32 = "sort_segments_bitonic_f32",
        SEGMENTS_BITONIC_F64 = "sort_segments_bitonic_f64",
        EXCHANGE_ROWS_U32 = "sort_exchange_rows_u32",
        RADIX_PREPARE_F32 = "sort_radix_prepare_f32",
        RADIX_PREPARE_F64 = "sort_radix_prepare_f64",
        RADIX_HISTOGRAM_U32 = "sort_radix_histogram_u32",
        RADIX_HISTOGRAM_U64 = "sort_radix_histogram_u64",
        RADIX_SCATTER_U32 = "sort_radix_scatter_u32",
        RADIX_SCATTER_U64 = "sort_radix_scatter_u64",
        SCAN_EXCLUSIVE_U32 = "sort_scan_exclusive_u32",
        SCAN_ADD_U32 = "sort_scan_add_u32",
        RANKS_FROM_ORDER_U32 = "sort_ranks_from_order_u32",
        GATHER_F32 = "sort_gather_f32",
        GATHER_F64 = "sort_gather_f64",
        SELECT_FIRST_F32 = "sort_select_first_f32",
        SELECT_FIRST_F64 = "sort_select_first_f64",
        SELECT_PAIRS_U32 = "sort_select_pairs_u32",
        SELECT_PAIRS_U64 = "sort_select_pairs_u64",
        TOPK_TILES_F32 = "sort_topk_tiles_f32",
        TOPK_TILES_F64 = "sort_topk_tiles_f64",
        TOPK_PAIRS_U32 = "sort_topk_pairs_u32",
        TOPK_PAIRS_U64 = "sort_topk_pairs_u64",
    }
    /// The entry points of `cuda/rng.cu`.
    rng: Rng {
        PHILOX_FILL_U32 = "rng_philox_fill_u32",
        PHILOX_FILL_UNIFORM_F32 = "rng_philox_fill_uniform_f32",
        PHILOX_FILL_UNIFORM_F64 = "rng_philox_fill_uniform_f64",
        PHILOX_FILL_BELOW = "rng_philox_fill_below",
        PHILOX_FILL_NORMAL_F32 = "rng_philox_fill_normal_f32",
        XOR128_FILL_U32 = "rng_xor128_fill_u32",
        XOR128_FILL_UNIFORM_F32 = "rng_xor128_fill_uniform_f32",
        XOR128_FILL_UNIFORM_F64 = "rng_xor128_fill_uniform_f64",
        CURAND_XORWOW_FILL_U32 = "rng_curand_xorwow_fill_u32",
        CURAND_XORWOW_FILL_UNIFORM_F32 = "rng_curand_xorwow_fill_uniform_f32",
        CURAND_XORWOW_FILL_UNIFORM_F64 = "rng_curand_xorwow_fill_uniform_f64",
        CURAND_XORWOW_FILL_NORMAL_F32 = "rng_curand_xorwow_fill_normal_f32",
        CURAND_PHILOX_FILL_U32 = "rng_curand_philox_fill_u32",
        CURAND_PHILOX_FILL_UNIFORM_F32 = "rng_curand_philox_fill_uniform_f32",
        CURAND_PHILOX_FILL_UNIFORM_F64 = "rng_curand_philox_fill_uniform_f64",
        CURAND_PHILOX_FILL_NORMAL_F32 = "rng_curand_philox_fill_normal_f32",
    }
    /// The entry points of `cuda/benchmarks_continuous.cu`.
    benchmarks_continuous: BenchmarksContinuous {
        TILES_SPHERE = "benchmarks_continuous_tiles_sphere",
        TILES_RASTRIGIN = "benchmarks_continuous_tiles_rastrigin",
        TILES_STEP = "benchmarks_continuous_tiles_step",
        TILES_SCHWEFEL = "benchmarks_continuous_tiles_schwefel",
        TILES_DISCUS = "benchmarks_continuous_tiles_discus",
        TILES_SUM_SQUARES = "benchmarks_continuous_tiles_sum_squares",
        TILES_ELLIPTIC = "benchmarks_continuous_tiles_elliptic",
        TILES_GRIEWANK = "benchmarks_continuous_tiles_griewank",
        TILES_GRIEWANK_ONE_ROW = "benchmarks_continuous_tiles_griewank_one_row",
        TILES_ACKLEY = "benchmarks_continuous_tiles_ackley",
        TILES_ROSENBROCK = "benchmarks_continuous_tiles_rosenbrock",
        FINISH = "benchmarks_continuous_finish",
        PREFIX_SQUARES = "benchmarks_continuous_prefix_squares",
        FINISH_PREFIX = "benchmarks_continuous_finish_prefix",
        CEC_GROUPS = "benchmarks_continuous_cec_groups",
        CEC_COMPOSE = "benchmarks_continuous_cec_compose",
        DECODE16 = "benchmarks_continuous_decode16",
    }
    /// The entry points of `cuda/ga.cu`.
    ga: Ga {
        INIT_U32 = "ga_init_u32",
        DECODE_F32 = "ga_decode_f32",
        EXCHANGE_BEST_U32 = "ga_exchange_best_u32",
        SELECT_COPY_U32 = "ga_select_copy_u32",
        COPY_U32 = "ga_copy_u32",
        CROSSOVER_U32 = "ga_crossover_u32",
        MUTATE_ELITE_U32 = "ga_mutate_elite_u32",
        ELITE_U32 = "ga_elite_u32",
        BATCH_REPRODUCE_U32 = "ga_batch_reproduce_u32",
        BATCH_BEST_U32 = "ga_batch_best_u32",
        XOR128_FILL_U32 = "ga_xor128_fill_u32",
        TOURNAMENT_PAPER_U32 = "ga_tournament_paper_u32",
        CROSSOVER_PAPER_U32 = "ga_crossover_paper_u32",
        MUTATE_PAPER_U32 = "ga_mutate_paper_u32",
        FUSED_RUN_U32 = "ga_fused_run_u32",
        FUSED_CLUSTER_RUN_U32 = "ga_fused_cluster_run_u32",
        FUSED_DRAWS_U32 = "ga_fused_draws_u32",
    }
    /// The entry points of `cuda/de.cu`.
    de: De {
        INIT_F32 = "de_init_f32",
        TRIAL_F32 = "de_trial_f32",
        MERGE_F32 = "de_merge_f32",
        BEST_INDEX_F64 = "de_best_index_f64",
        GENERATION_F32 = "de_generation_f32",
        LOCAL_SEARCH_ETC_F32 = "de_local_search_etc_f32",
    }
    /// The entry points of `cuda/benchmarks_discrete.cu`.
    benchmarks_discrete: BenchmarksDiscrete {
        KNAPSACK_REPAIR = "benchmarks_discrete_knapsack_repair",
        ETC_SCHEDULES = "benchmarks_discrete_etc_schedules",
        ETC_REAL = "benchmarks_discrete_etc_real",
        CEC2006 = "benchmarks_discrete_cec2006",
    }
    /// The entry points of `cuda/qiga.cu`.
    qiga: Qiga {
        RUN_GENERATIONS = "qiga_run_generations",
        RUN_GENERATIONS_OPTIONS = "qiga_run_generations_options",
        SGA_RUN_GENERATIONS = "qiga_sga_run_generations",
        BITS_OBSERVE = "qiga_bits_observe",
        BITS_UPDATE = "qiga_bits_update",
    }
    /// The entry points of `cuda/ma.cu`.
    ma: Ma {
        INIT_ROWS_F32 = "ma_init_rows_f32",
        DISTANCE_TILES_F64 = "ma_distance_tiles_f64",
        DISTANCE_FINISH_F64 = "ma_distance_finish_f64",
        CROSSOVER_F32 = "ma_crossover_f32",
        COPY_F32 = "ma_copy_f32",
        SW_STEP_F32 = "ma_sw_step_f32",
        SLICE_TERMS_F64 = "ma_slice_terms_f64",
        SLICE_DISTANCE_TILES_F64 = "ma_slice_distance_tiles_f64",
        BLOCK_SUMS_F64 = "ma_block_sums_f64",
    }
    /// The entry points of `cuda/dpga.cu`.
    dpga: Dpga {
        DRAW_ROWS = "dpga_draw_rows",
        EVALUATE = "dpga_evaluate",
        INIT_MERGE = "dpga_init_merge",
        MEAN_VECTOR = "dpga_mean_vector",
        RESERVE_FITNESS = "dpga_reserve_fitness",
        RESERVE_FITNESS_SURVIVAL = "dpga_reserve_fitness_survival",
        BREED_MAIN = "dpga_breed_main",
        BREED_RESERVE = "dpga_breed_reserve",
        CROSSBREED = "dpga_crossbreed",
        SELECT_MAIN = "dpga_select_main",
        SELECT_RESERVE = "dpga_select_reserve",
        GATHER_MAIN = "dpga_gather_main",
        GATHER_RESERVE = "dpga_gather_reserve",
        FINISH = "dpga_finish",
    }
}
