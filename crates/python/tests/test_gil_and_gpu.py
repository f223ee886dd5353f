"""The GIL is free while an engine runs; on a GPU the CUDA engines give the CPU engines' results.

The GPU tests skip on a machine without a CUDA device and fail there under EVO_REQUIRE_GPU=1, so the GPU
machine's run proves they ran.
"""

import os
import threading

import numpy as np
import pytest

import evogpu


def test_another_python_thread_runs_while_an_engine_runs():
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)

    worker = threading.Thread(target=count)
    worker.start()
    try:
        before = len(ticks)
        evogpu.minimize("rastrigin:64", backend="cpu:1", max_generations=100)
        during = len(ticks) - before
    finally:
        done.set()
        worker.join()
    # With the GIL held for the whole run the counter would stand still (a switch interval or two at most).
    assert during > 10_000


def cuda_or_skip():
    """Skips without a CUDA device, unless EVO_REQUIRE_GPU=1 makes that a failure."""
    try:
        evogpu.minimize("rastrigin:4", backend="cuda", max_generations=1)
    except RuntimeError as error:
        if os.environ.get("EVO_REQUIRE_GPU") == "1":
            pytest.fail(f"EVO_REQUIRE_GPU=1 but the CUDA backend failed: {error}")
        pytest.skip(f"no CUDA device: {error}")


@pytest.mark.parametrize(
    "algorithm, problem, budget",
    [
        ("de", "rastrigin:100", {"max_generations": 50}),
        ("de", "cec2010:f1:1000", {"max_generations": 10}),
        ("ma-sw-chains", "shifted-rastrigin:1000", {"max_evaluations": 3000}),
        ("dpga", "cec2006:g01", {"max_generations": 10}),
        ("ga", "ga:f1:8", {"max_generations": 20}),
    ],
)
def test_cuda_engines_should_match_cpu(algorithm, problem, budget):
    cuda_or_skip()
    cpu = evogpu.minimize(problem, algorithm=algorithm, backend="cpu", seed=5, **budget)
    gpu = evogpu.minimize(problem, algorithm=algorithm, backend="cuda", seed=5, **budget)
    assert gpu.backend.startswith("cuda") and "device" in gpu.metadata
    assert gpu.fun == cpu.fun
    np.testing.assert_array_equal(gpu.x, cpu.x)
    np.testing.assert_array_equal(gpu.history["best_fitness"], cpu.history["best_fitness"])
