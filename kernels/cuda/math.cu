// Evaluates the portable math functions over arrays (kernel module `math`), for the equivalence suite and the
// benches: out[i] = f(x[i], y[i]) with f chosen by MathEvalParams::function, the discriminant of
// `evo_core::math::MathFunction` (0 sin, 1 cos, 2 exp, 3 log, 4 pow; the unary functions ignore y, and an
// unknown id gives the canonical NaN). Twin: `MathFunction::apply_f32` / `apply_f64` applied element by element.
#include "common/math.cuh"

// Scalar arguments of the math kernels; mirrored in Rust by evo-gpu-runtime.
struct MathEvalParams {
    unsigned int n;         // number of elements
    unsigned int function;  // MathFunction discriminant
};
static_assert(sizeof(MathEvalParams) == 8, "MathEvalParams must match its Rust mirror (8 bytes)");

extern "C" __global__ void math_eval_f32(const float* x, const float* y, float* out, MathEvalParams p)
{
    const unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += stride) {
        out[i] = evo_math_function_apply_f32(p.function, x[i], y[i]);
    }
}

extern "C" __global__ void math_eval_f64(const double* x, const double* y, double* out, MathEvalParams p)
{
    const unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += stride) {
        out[i] = evo_math_function_apply_f64(p.function, x[i], y[i]);
    }
}
