//! The header table: every `.cuh` a module may `#include`, by the name it is included with: the shared helpers
//! of `kernels/common/` and the parts of a module split out of its `.cu` (`kernels/cuda/*.cuh`), each by its
//! path relative to `kernels/`.

/// One header of `kernels/common/` or `kernels/cuda/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The include name, as written in `#include "..."` (`common/math.cuh`).
    pub name: &'static str,
    /// The header's text.
    pub source: &'static str,
}

/// Every header, sorted by name. NVRTC receives all of them with every compilation.
pub static HEADERS: &[Header] = &[
    Header {
        name: "common/launch.cuh",
        source: include_str!("../common/launch.cuh"),
    },
    Header {
        name: "common/math.cuh",
        source: include_str!("../common/math.cuh"),
    },
    Header {
        name: "common/math/constants.cuh",
        source: include_str!("../common/math/constants.cuh"),
    },
    Header {
        name: "common/math/double.cuh",
        source: include_str!("../common/math/double.cuh"),
    },
    Header {
        name: "common/math/pow.cuh",
        source: include_str!("../common/math/pow.cuh"),
    },
    Header {
        name: "common/math/single.cuh",
        source: include_str!("../common/math/single.cuh"),
    },
    Header {
        name: "common/problems/cec2006.cuh",
        source: include_str!("../common/problems/cec2006.cuh"),
    },
    Header {
        name: "common/problems/de_user_generation.cuh",
        source: include_str!("../common/problems/de_user_generation.cuh"),
    },
    Header {
        name: "common/problems/etc.cuh",
        source: include_str!("../common/problems/etc.cuh"),
    },
    Header {
        name: "common/problems/functions.cuh",
        source: include_str!("../common/problems/functions.cuh"),
    },
    Header {
        name: "common/problems/knapsack.cuh",
        source: include_str!("../common/problems/knapsack.cuh"),
    },
    Header {
        name: "common/problems/prefix_squares.cuh",
        source: include_str!("../common/problems/prefix_squares.cuh"),
    },
    Header {
        name: "common/problems/tree.cuh",
        source: include_str!("../common/problems/tree.cuh"),
    },
    Header {
        name: "common/problems/user_bits.cuh",
        source: include_str!("../common/problems/user_bits.cuh"),
    },
    Header {
        name: "common/problems/user_constrained.cuh",
        source: include_str!("../common/problems/user_constrained.cuh"),
    },
    Header {
        name: "common/problems/user_real.cuh",
        source: include_str!("../common/problems/user_real.cuh"),
    },
    Header {
        name: "common/reduce.cuh",
        source: include_str!("../common/reduce.cuh"),
    },
    Header {
        name: "common/rng.cuh",
        source: include_str!("../common/rng.cuh"),
    },
    Header {
        name: "common/rng/addressed.cuh",
        source: include_str!("../common/rng/addressed.cuh"),
    },
    Header {
        name: "common/rng/convert.cuh",
        source: include_str!("../common/rng/convert.cuh"),
    },
    Header {
        name: "common/rng/curand_philox.cuh",
        source: include_str!("../common/rng/curand_philox.cuh"),
    },
    Header {
        name: "common/rng/curand_xorwow.cuh",
        source: include_str!("../common/rng/curand_xorwow.cuh"),
    },
    Header {
        name: "common/rng/philox.cuh",
        source: include_str!("../common/rng/philox.cuh"),
    },
    Header {
        name: "common/rng/xor128.cuh",
        source: include_str!("../common/rng/xor128.cuh"),
    },
    Header {
        name: "common/sort/bitonic.cuh",
        source: include_str!("../common/sort/bitonic.cuh"),
    },
    Header {
        name: "common/sort/key.cuh",
        source: include_str!("../common/sort/key.cuh"),
    },
    Header {
        name: "common/sort/radix.cuh",
        source: include_str!("../common/sort/radix.cuh"),
    },
    Header {
        name: "common/sort/scan.cuh",
        source: include_str!("../common/sort/scan.cuh"),
    },
    Header {
        name: "cuda/de_local_search.cuh",
        source: include_str!("../cuda/de_local_search.cuh"),
    },
    Header {
        name: "cuda/ga_fused.cuh",
        source: include_str!("../cuda/ga_fused.cuh"),
    },
    Header {
        name: "cuda/ma_slice.cuh",
        source: include_str!("../cuda/ma_slice.cuh"),
    },
    Header {
        name: "cuda/qiga_bits.cuh",
        source: include_str!("../cuda/qiga_bits.cuh"),
    },
    Header {
        name: "cuda/qiga_sga.cuh",
        source: include_str!("../cuda/qiga_sga.cuh"),
    },
    Header {
        name: "cuda/qiga_warp_repair.cuh",
        source: include_str!("../cuda/qiga_warp_repair.cuh"),
    },
    Header {
        name: "cuda/qiga_options.cuh",
        source: include_str!("../cuda/qiga_options.cuh"),
    },
];

/// The header included as `name`, if there is one.
pub fn header(name: &str) -> Option<&'static Header> {
    HEADERS.iter().find(|h| h.name == name)
}
