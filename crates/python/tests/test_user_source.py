"""evogpu.UserProblem: CUDA source from Python. NVRTC's errors (with the user's line numbers), the checks of
its arguments, CPU runs through a Python twin or refused without one, and on a GPU the compiled source
against the built-in problem it restates, bit for bit.

The compile tests need NVRTC (no GPU): they skip without it (CI installs it, see .ci/run) and fail instead
under EVO_REQUIRE_GPU=1. The GPU tests skip without a CUDA device and fail instead under EVO_REQUIRE_GPU=1.
"""

import os

import numpy as np
import pytest

import evogpu
from conftest import rastrigin

BOX = [(-5.12, 5.12)] * 10
REQUIRED = os.environ.get("EVO_REQUIRE_GPU") == "1"

# The built-in Rastrigin's term (common/problems/functions.cuh), so a run equals "rastrigin:10" bit for bit.
RASTRIGIN = """#include "common/problems/functions.cuh"
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t) {
    t[0] = evo_rastrigin_term((double)x[i]);
}
"""

# A weighted sphere reading a float32 data array; its fitness is the sum of w_i * x_i^2.
WEIGHTED = """
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t) {
    const double v = (double)x[i];
    t[0] = (double)data.w[i] * v * v;
}
"""

BROKEN = """
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t) {
    t[0] = undefined_name * 2.0;
}
"""


def nvrtc_or_skip():
    """Skips where NVRTC is not installed (a failure under EVO_REQUIRE_GPU=1)."""
    try:
        evogpu.UserProblem(WEIGHTED, BOX, data={"w": np.ones(10, np.float32)}, name="probe").check_compiles()
    except evogpu.CompileError:
        raise
    except RuntimeError as error:
        if REQUIRED:
            pytest.fail(f"EVO_REQUIRE_GPU=1 but NVRTC is missing: {error}")
        pytest.skip(f"no NVRTC: {error}")


def test_a_compile_error_carries_nvrtc_log_with_the_users_line_numbers():
    nvrtc_or_skip()
    with pytest.raises(evogpu.CompileError) as raised:
        evogpu.UserProblem(BROKEN, BOX, name="broken")
    assert isinstance(raised.value, RuntimeError)
    # The user's line 4 (the source's first line is its line 1) in the user's own file name.
    assert "user_broken.cu(4)" in raised.value.log
    assert "undefined_name" in raised.value.log
    assert "user_broken.cu(4)" in str(raised.value)


def test_a_source_is_described_and_compiles():
    nvrtc_or_skip()
    problem = evogpu.UserProblem(RASTRIGIN, BOX, name="rastrigin")
    assert (problem.name, problem.dimension, problem.terms, problem.has_twin) == ("rastrigin", 10, 10, False)
    assert '#line 1 "user_rastrigin.cu"' in problem.module_source
    problem.check_compiles("sm_90")
    assert "UserProblem(name=\"rastrigin\"" in repr(problem)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="evo_user_terms"):
        evogpu.UserProblem("__device__ double nothing() { return 0.0; }", BOX)
    with pytest.raises(ValueError, match="terms must be"):
        evogpu.UserProblem(WEIGHTED, BOX, terms="dim")
    with pytest.raises(ValueError, match="sums"):
        evogpu.UserProblem(WEIGHTED, BOX, sums=5)
    with pytest.raises(ValueError, match="evo_user_combine"):
        evogpu.UserProblem(WEIGHTED, BOX, sums=2)
    with pytest.raises(ValueError, match="leaves at least one term"):
        evogpu.UserProblem(WEIGHTED, BOX, terms="dimension-10")
    with pytest.raises(ValueError, match="array name"):
        evogpu.UserProblem(WEIGHTED, BOX, data={"evo_w": np.ones(10)})
    with pytest.raises(ValueError, match="name"):
        evogpu.UserProblem(WEIGHTED, BOX, name="has space")
    with pytest.raises(ValueError, match="twin must be a function"):
        evogpu.UserProblem(WEIGHTED, BOX, twin=3)


def test_the_cpu_needs_a_twin():
    problem = evogpu.UserProblem(WEIGHTED, BOX, data={"w": np.ones(10, np.float32)}, name="weighted")
    with pytest.raises(ValueError, match=r'no CPU evaluation.*backend="cuda".*twin='):
        evogpu.minimize(problem, backend="cpu", max_generations=5)
    with pytest.raises(ValueError, match="carries its own bounds"):
        evogpu.minimize(problem, BOX, backend="cpu", max_generations=5)


@pytest.mark.parametrize("algorithm, budget", [("de", {"max_generations": 40}),
                                               ("ma-sw-chains", {"max_evaluations": 1500})])
def test_a_twin_runs_the_cpu_as_the_same_python_function(algorithm, budget):
    problem = evogpu.UserProblem(RASTRIGIN, BOX, name="rastrigin", twin=rastrigin)
    with_twin = evogpu.minimize(problem, algorithm=algorithm, backend="cpu", seed=6, **budget)
    function = evogpu.minimize(rastrigin, BOX, algorithm=algorithm, backend="cpu", seed=6, **budget)
    assert with_twin.fun == function.fun
    np.testing.assert_array_equal(with_twin.x, function.x)


def cuda_or_skip():
    try:
        evogpu.minimize("rastrigin:4", backend="cuda", max_generations=1)
    except RuntimeError as error:
        if REQUIRED:
            pytest.fail(f"EVO_REQUIRE_GPU=1 but the CUDA backend failed: {error}")
        pytest.skip(f"no CUDA device: {error}")


@pytest.mark.parametrize("algorithm, budget", [("de", {"max_generations": 60}),
                                               ("ma-sw-chains", {"max_evaluations": 3000})])
def test_a_cuda_source_should_match_the_builtin_on_cpu(algorithm, budget):
    cuda_or_skip()
    problem = evogpu.UserProblem(RASTRIGIN, BOX, name="rastrigin")
    gpu = evogpu.minimize(problem, algorithm=algorithm, backend="cuda", seed=3, **budget)
    cpu = evogpu.minimize("rastrigin:10", algorithm=algorithm, backend="cpu", seed=3, **budget)
    assert gpu.backend.startswith("cuda")
    assert gpu.fun == cpu.fun
    np.testing.assert_array_equal(gpu.x, cpu.x)
    auto = evogpu.minimize(problem, algorithm=algorithm, seed=3, **budget)
    assert auto.backend.startswith("cuda") and auto.fun == gpu.fun


def test_data_arrays_reach_the_device():
    cuda_or_skip()
    weights = np.linspace(0.5, 3.0, 10).astype(np.float32)
    problem = evogpu.UserProblem(WEIGHTED, BOX, data={"w": weights}, name="weighted")
    result = evogpu.minimize(problem, backend="cuda", seed=1, max_generations=100)
    x = np.asarray(result.x, dtype=np.float64)
    assert result.fun == pytest.approx(float(np.sum(weights.astype(np.float64) * x * x)), rel=1e-12)
    assert result.fun < result.history["best_fitness"][0]
