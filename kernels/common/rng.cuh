// Random numbers on the device (Rust twin: the evo-rng crate). Every kernel that draws random numbers
// includes this header; the default is the addressed Philox of common/rng/addressed.cuh, the papers'
// generators are for their paper modes.
#pragma once
#include "common/rng/addressed.cuh"
#include "common/rng/convert.cuh"
#include "common/rng/curand_philox.cuh"
#include "common/rng/curand_xorwow.cuh"
#include "common/rng/philox.cuh"
#include "common/rng/xor128.cuh"
