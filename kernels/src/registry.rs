//! The registry of kernel modules: one entry per `.cu` file, with its entry points (the names of
//! [`crate::entry`]'s constants).

use crate::entry;

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
        entry_points: entry::math::NAMES,
    },
    KernelModule {
        id: ModuleId::Reduce,
        name: "reduce",
        file: "cuda/reduce.cu",
        source: include_str!("../cuda/reduce.cu"),
        entry_points: entry::reduce::NAMES,
    },
    KernelModule {
        id: ModuleId::Sort,
        name: "sort",
        file: "cuda/sort.cu",
        source: include_str!("../cuda/sort.cu"),
        entry_points: entry::sort::NAMES,
    },
    KernelModule {
        id: ModuleId::Rng,
        name: "rng",
        file: "cuda/rng.cu",
        source: include_str!("../cuda/rng.cu"),
        entry_points: entry::rng::NAMES,
    },
    KernelModule {
        id: ModuleId::BenchmarksContinuous,
        name: "benchmarks_continuous",
        file: "cuda/benchmarks_continuous.cu",
        source: include_str!("../cuda/benchmarks_continuous.cu"),
        entry_points: entry::benchmarks_continuous::NAMES,
    },
    KernelModule {
        id: ModuleId::Ga,
        name: "ga",
        file: "cuda/ga.cu",
        source: include_str!("../cuda/ga.cu"),
        entry_points: entry::ga::NAMES,
    },
    KernelModule {
        id: ModuleId::De,
        name: "de",
        file: "cuda/de.cu",
        source: include_str!("../cuda/de.cu"),
        entry_points: entry::de::NAMES,
    },
    KernelModule {
        id: ModuleId::BenchmarksDiscrete,
        name: "benchmarks_discrete",
        file: "cuda/benchmarks_discrete.cu",
        source: include_str!("../cuda/benchmarks_discrete.cu"),
        entry_points: entry::benchmarks_discrete::NAMES,
    },
    KernelModule {
        id: ModuleId::Qiga,
        name: "qiga",
        file: "cuda/qiga.cu",
        source: include_str!("../cuda/qiga.cu"),
        entry_points: entry::qiga::NAMES,
    },
    KernelModule {
        id: ModuleId::Ma,
        name: "ma",
        file: "cuda/ma.cu",
        source: include_str!("../cuda/ma.cu"),
        entry_points: entry::ma::NAMES,
    },
    KernelModule {
        id: ModuleId::Dpga,
        name: "dpga",
        file: "cuda/dpga.cu",
        source: include_str!("../cuda/dpga.cu"),
        entry_points: entry::dpga::NAMES,
    },
];

/// The text NVRTC sees of `module` as far as its entry points go: its source and the source of each header
/// of its own (`cuda/…`, a part of one module split out of its `.cu`) that it includes.
#[cfg(test)]
fn module_text(module: &KernelModule) -> String {
    let mut text = module.source.to_string();
    for line in module.source.lines() {
        let included = line.trim_start().strip_prefix("#include \"");
        if let Some(header) = included
            .and_then(|rest| rest.split('"').next())
            .filter(|name| name.starts_with("cuda/"))
            .and_then(crate::header)
        {
            text.push('\n');
            text.push_str(header.source);
        }
    }
    text
}

/// The launch attributes written with parentheses between `__global__` and a kernel's name, which the scan
/// must not take for the name.
#[cfg(test)]
const LAUNCH_ATTRIBUTES: [&str; 2] = ["__launch_bounds__", "__maxnreg__"];

/// The names of the `extern "C" __global__` functions defined in `text`: on each such line, the first
/// identifier followed by `(` other than a launch attribute ([`LAUNCH_ATTRIBUTES`]). A kernel inside an
/// `#ifdef` block is left out: it is an opt-in variant compiled only where a prelude defines the macro (the
/// user modules of evo-benchmarks build `benchmarks_continuous_tiles_user` from this source), not an entry
/// point of the module.
#[cfg(test)]
fn defined_kernels(text: &str) -> Vec<&str> {
    let mut opt_in = Vec::new();
    let mut kernels = Vec::new();
    for line in text.lines() {
        let directive = line.trim_start();
        if directive.starts_with("#if") {
            opt_in.push(directive.starts_with("#ifdef"));
        } else if directive.starts_with("#endif") {
            opt_in.pop();
        } else if line.starts_with("extern \"C\" __global__") && !opt_in.contains(&true) {
            let name = line
                .split('(')
                .filter_map(|before| {
                    before
                        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .next()
                })
                .find(|name| !name.is_empty() && !LAUNCH_ATTRIBUTES.contains(name));
            kernels.extend(name);
        }
    }
    kernels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HEADERS;
    use crate::entry::{EVERY_MODULE, EntryPoint};

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
            let text = module_text(module);
            let defined = defined_kernels(&text);
            for entry in module.entry_points {
                assert!(
                    defined.contains(entry),
                    "{}: no `extern \"C\" __global__ ... {entry}(` line in it or its own headers",
                    module.file
                );
            }
        }
    }

    #[test]
    fn every_kernel_a_source_defines_is_registered() {
        for module in MODULES {
            for kernel in defined_kernels(&module_text(module)) {
                assert!(
                    module.entry_points.contains(&kernel),
                    "{}: defines `{kernel}`, which its registry entry does not list",
                    module.file
                );
            }
        }
    }

    #[test]
    fn the_kernel_scan_reads_attributes_and_skips_opt_in_variants() {
        let text = "extern \"C\" __global__ void ga_a(int x)\n\
                    extern \"C\" __global__ void DIMS __launch_bounds__(1024) ga_b(unsigned* p,\n\
                    extern \"C\" __global__ void __maxnreg__(REGS) ga_d(float* q)\n\
                    __device__ void ga_helper(int y)\n\
                    // extern \"C\" __global__ void ga_comment(int z)\n\
                    #ifdef OPT_IN\n\
                    extern \"C\" __global__ void ga_opt_in(int w)\n\
                    #endif\n\
                    #if __CUDA_ARCH__ >= 900\n\
                    extern \"C\" __global__ void ga_c(int v)\n\
                    #endif";
        assert_eq!(defined_kernels(text), ["ga_a", "ga_b", "ga_d", "ga_c"]);
    }

    #[test]
    fn every_constant_is_a_registered_entry_point_of_its_module() {
        assert_eq!(EVERY_MODULE.len(), MODULES.len());
        for (module, constants) in MODULES.iter().zip(EVERY_MODULE) {
            let names: Vec<&str> = constants.iter().map(|(_, e)| e.name()).collect();
            assert_eq!(names, module.entry_points, "{}", module.file);
            for (_, entry) in *constants {
                assert_eq!(entry.module(), module.id, "{entry}");
            }
        }
    }

    #[test]
    fn constants_are_named_after_their_entry_points() {
        for constants in EVERY_MODULE {
            for &(identifier, entry) in *constants {
                let expected = format!(
                    "{}_{}",
                    entry.module().name(),
                    identifier.to_ascii_lowercase()
                );
                assert_eq!(entry.name(), expected, "constant `{identifier}`");
            }
        }
        let ga: &[EntryPoint] = crate::entry::ga::ALL;
        assert!(ga.contains(&crate::entry::ga::INIT_U32));
        assert_eq!(crate::entry::ga::INIT_U32.to_string(), "ga_init_u32");
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
