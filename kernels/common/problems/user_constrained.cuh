// The device side of the constrained contract (evo_benchmarks::cuda::ConstrainedEvaluator, ARCHITECTURE §5):
// a user's constrained problem written as CUDA source (evo_dpga::UserConstrained, way 1; launcher
// crates/dpga/src/cuda/user_eval.rs, CPU twin the closure UserConstrained is built with), and the two kernels
// with which DPGA's CUDA engine feeds any implementation of the contract (launchers
// crates/dpga/src/cuda/launch/contract.rs).
//
// A user module includes this header twice around the user's source (which NVRTC sees under `#line 1`, so its
// log gives the user's line numbers): first for the helpers, then, with EVO_USER_CONSTRAINED_KERNEL defined,
// for the kernel. The prelude defines EVO_USER_DIMENSION (D), EVO_USER_INEQUALITIES (m) and
// EVO_USER_EQUALITIES (q). The source defines
//   __device__ double evo_user_constrained(const double* x, double* g, double* h);
// which returns the objective (minimised) of the point x (D values, the f32 variables widened to f64) and
// writes g[0 .. m) (g_j <= 0 holds) and h[0 .. q) (|h_j| <= eps holds). A problem with read-only data arrays
// (UserConstrained::with_data) defines instead
//   __device__ double evo_user_constrained(const double* x, double* g, double* h, const EvoUserData& data);
// where data.<name> and data.<name>_len are its arrays; the prelude defines EVO_USER_DATA and struct
// EvoUserData (evo_benchmarks::cuda::UserData::cuda_declarations) before this header. Every module's kernel
// takes the two concatenated data buffers (one-value placeholders without data).
//
// Work split: thread r evaluates row r (a whole individual per thread). The objective goes to objective[r] and
// the m + q constraint values, inequalities first, to constraints[r (m + q) ..]. A value that is not finite
// records its row in status[0] (atomicMin: the lowest such row) and the value in bad[r]; the launcher reads
// them back when the engine asks (ConstrainedEvaluator::check), so an evaluation only queues work.
//
// With EVO_CONSTRAINED_DPGA_KERNELS defined the header gives DPGA's two contract kernels instead: the decoding
// of the bit rows into f32 variables and the summary of objective and constraint values into DPGA's
// (objective, violation, satisfied count), the twins of ops::decode_variable and ops::evaluate_constraints
// (the same arithmetic as dpga_evaluate of kernels/cuda/dpga.cu, which fuses them with CEC 2006's formulas).

#ifndef EVO_USER_CONSTRAINED_HELPERS
#define EVO_USER_CONSTRAINED_HELPERS

#include "common/launch.cuh"

// Scalar arguments of the user kernel; mirrored by `UserConstrainedParams` in crates/dpga/src/cuda/user_eval.rs.
struct EvoUserConstrainedParams {
    unsigned long long rows;  // individuals
};
static_assert(sizeof(EvoUserConstrainedParams) == 8, "EvoUserConstrainedParams must match its Rust mirror");

// Scalar arguments of DPGA's contract kernels; mirrored by `ContractParams` in crates/dpga/src/cuda/launch/contract.rs.
struct EvoDpgaContractParams {
    double tolerance;            // equality tolerance eps
    unsigned int runs;           // K
    unsigned int rows;           // rows per run
    unsigned int dimension;      // D
    unsigned int bits;           // b, bits per variable
    unsigned int length;         // L = D b
    unsigned int encoding;       // 0 binary, 1 reflected Gray code
    unsigned int inequalities;   // m
    unsigned int equalities;     // q
};
static_assert(sizeof(EvoDpgaContractParams) == 40, "EvoDpgaContractParams must match its Rust mirror");

#endif

#if defined(EVO_USER_CONSTRAINED_KERNEL) && !defined(EVO_USER_CONSTRAINED_KERNEL_DONE)
#define EVO_USER_CONSTRAINED_KERNEL_DONE

// Compiles only when the user's evo_user_constrained has exactly the contract's parameters and result.
__device__ __forceinline__ void evo_user_constrained_check_signature()
{
#ifdef EVO_USER_DATA
    double (*const evaluate)(const double*, double*, double*, const EvoUserData&) = evo_user_constrained;
#else
    double (*const evaluate)(const double*, double*, double*) = evo_user_constrained;
#endif
    (void)evaluate;
}

#define EVO_USER_CONSTRAINTS (EVO_USER_INEQUALITIES + EVO_USER_EQUALITIES)

extern "C" __global__ void evo_user_constrained_evaluate(const float* variables, const float* data32,
                                                         const double* data64, double* objective,
                                                         double* constraints, double* bad, unsigned int* status,
                                                         EvoUserConstrainedParams p)
{
    evo_wait_previous_grid();
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= p.rows) {
        return;
    }
    double x[EVO_USER_DIMENSION];
    // One slot more than needed, so that a problem without constraints of a kind still declares an array.
    double g[EVO_USER_INEQUALITIES + 1];
    double h[EVO_USER_EQUALITIES + 1];
    for (unsigned int v = 0; v < EVO_USER_DIMENSION; ++v) {
        x[v] = (double)variables[r * EVO_USER_DIMENSION + v];
    }
#ifdef EVO_USER_DATA
    const double f = evo_user_constrained(x, g, h, evo_user_data(data32, data64));
#else
    (void)data32;
    (void)data64;
    const double f = evo_user_constrained(x, g, h);
#endif
    objective[r] = f;
    double first_bad = isfinite(f) ? 0.0 : f;
    bool finite = isfinite(f);
    double* out = constraints + r * EVO_USER_CONSTRAINTS;
    for (unsigned int j = 0; j < EVO_USER_INEQUALITIES; ++j) {
        out[j] = g[j];
        if (finite && !isfinite(g[j])) {
            finite = false;
            first_bad = g[j];
        }
    }
    for (unsigned int j = 0; j < EVO_USER_EQUALITIES; ++j) {
        out[EVO_USER_INEQUALITIES + j] = h[j];
        if (finite && !isfinite(h[j])) {
            finite = false;
            first_bad = h[j];
        }
    }
    if (!finite) {
        bad[r] = first_bad;
        atomicMin(status, (unsigned int)r);
    }
}

#endif

#if defined(EVO_CONSTRAINED_DPGA_KERNELS) && !defined(EVO_CONSTRAINED_DPGA_KERNELS_DONE)
#define EVO_CONSTRAINED_DPGA_KERNELS_DONE

// Twin: ops::decode_variable (k in u64, Gray: binary bit j = binary bit j-1 XOR Gray bit j; then f64
// arithmetic with no contraction, rounded to f32).
__device__ inline float evo_dpga_decode_variable(const unsigned char* bits, unsigned int b, unsigned int encoding,
                                                 float lower, float upper)
{
    unsigned long long k = 0;
    unsigned char previous = 0;
    for (unsigned int j = 0; j < b; ++j) {
        const unsigned char binary = encoding == 1u ? (unsigned char)(previous ^ bits[j]) : bits[j];
        previous = binary;
        k = (k << 1) | (unsigned long long)binary;
    }
    const double top = (double)((1ull << b) - 1ull);
    const double lo = (double)lower;
    const double hi = (double)upper;
    return (float)__dadd_rn(lo, __dmul_rn(__dsub_rn(hi, lo), __ddiv_rn((double)k, top)));
}

// Every row of every run (runs x rows rows of L bits) decoded into D variables: a thread per (run, row).
extern "C" __global__ void evo_dpga_contract_decode(const unsigned char* rows, const float* lower,
                                                    const float* upper, float* variables, EvoDpgaContractParams p)
{
    const unsigned long long total = (unsigned long long)p.runs * p.rows;
    for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < total;
         t += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned char* row = rows + t * p.length;
        for (unsigned int v = 0; v < p.dimension; ++v) {
            variables[t * p.dimension + v] =
                evo_dpga_decode_variable(row + v * p.bits, p.bits, p.encoding, lower[v], upper[v]);
        }
    }
}

// Twin: ops::evaluate_constraints (inequalities first, each in index order; a non-finite objective,
// constraint value or violation sum gives ops::Evaluation::non_finite: f64::MAX twice, none satisfied), for
// rows i < count[r] of p.rows per run; a non-finite result records the lowest such row in status[r] (a guard:
// the mapping above leaves none).
extern "C" __global__ void evo_dpga_contract_summarise(const double* objective_in, const double* constraints,
                                                       double* objective, double* violation,
                                                       unsigned int* satisfied, unsigned int* status,
                                                       const unsigned int* count, EvoDpgaContractParams p)
{
    const unsigned int constraint_count = p.inequalities + p.equalities;
    const unsigned long long total = (unsigned long long)p.runs * p.rows;
    for (unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; t < total;
         t += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned int run = (unsigned int)(t / p.rows);
        const unsigned int i = (unsigned int)(t % p.rows);
        if (i >= count[run]) {
            continue;
        }
        const double f = objective_in[t];
        const double* g = constraints + t * constraint_count;
        const double* h = g + p.inequalities;
        bool finite = isfinite(f);
        for (unsigned int j = 0; j < p.inequalities; ++j) {
            finite = finite && isfinite(g[j]);
        }
        for (unsigned int j = 0; j < p.equalities; ++j) {
            finite = finite && isfinite(h[j]);
        }
        double v = 0.0;
        unsigned int s = 0;
        if (finite) {
            for (unsigned int j = 0; j < p.inequalities; ++j) {
                if (g[j] <= 0.0) {
                    s += 1;
                } else {
                    v += g[j];
                }
            }
            for (unsigned int j = 0; j < p.equalities; ++j) {
                if (fabs(h[j]) <= p.tolerance) {
                    s += 1;
                } else {
                    v += fabs(h[j]);
                }
            }
            finite = isfinite(v);
        }
        objective[t] = finite ? f : 1.7976931348623157e308;  // f64::MAX
        violation[t] = finite ? v : 1.7976931348623157e308;
        satisfied[t] = finite ? s : 0u;
        if (!isfinite(objective[t]) || !isfinite(violation[t])) {
            atomicMin(status + run, i);
        }
    }
}

#endif
