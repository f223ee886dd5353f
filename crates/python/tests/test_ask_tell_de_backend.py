"""DeAskTell's backend choice, on any machine: "auto" stays on the CPU (ask gives NumPy arrays, as a Python
fitness function does in minimize), contradicting thread counts are refused, and a CUDA backend that this
machine lacks (or a device index it lacks) is a RuntimeError raised by the constructor, with the crates'
message."""

import numpy as np
import pytest

import evogpu
from conftest import RASTRIGIN_BOX, rastrigin


@pytest.mark.parametrize("backend", ["auto", "cpu", "cpu:2"])
def test_auto_and_cpu_ask_numpy_arrays_with_the_same_run(backend):
    engine = evogpu.DeAskTell(RASTRIGIN_BOX, seed=3, options={"population": 16}, backend=backend)
    reference = evogpu.DeAskTell(RASTRIGIN_BOX, seed=3, options={"population": 16})
    assert engine.backend == "cpu" and reference.backend == "cpu"
    for _ in range(6):
        population, expected = engine.ask(), reference.ask()
        assert isinstance(population, np.ndarray) and population.dtype == np.float64
        np.testing.assert_array_equal(population, expected)
        engine.tell(rastrigin(population))
        reference.tell(rastrigin(expected))
    assert engine.fun == reference.fun


def test_contradicting_thread_counts_are_refused():
    with pytest.raises(ValueError, match='"cpu:2" and threads=3 disagree'):
        evogpu.DeAskTell(RASTRIGIN_BOX, threads=3, backend="cpu:2")
    with pytest.raises(ValueError, match="threads=2 applies to the CPU backend only"):
        evogpu.DeAskTell(RASTRIGIN_BOX, threads=2, backend="cuda")
    assert evogpu.DeAskTell(RASTRIGIN_BOX, threads=2, backend="cpu:2").backend == "cpu"


def test_an_unknown_backend_is_a_value_error():
    with pytest.raises(ValueError, match="backend"):
        evogpu.DeAskTell(RASTRIGIN_BOX, backend="tpu")


def test_a_missing_cuda_device_is_a_runtime_error_at_construction():
    with pytest.raises(RuntimeError, match="no CUDA device is available|CUDA device 99 does not exist"):
        evogpu.DeAskTell(RASTRIGIN_BOX, backend="cuda:99")
