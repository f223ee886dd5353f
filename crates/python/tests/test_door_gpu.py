"""A Python fitness function on the CUDA backend, call after call: the arguments its answer is asked for with
are made once per run and reused by every call (a producer that predates ``max_version`` is asked again
without it, every call), an evogpu DeviceView is itself a device answer (the door without PyTorch, as
``benches/python/de_vs_evox.py`` times it), and a list answer goes through NumPy on the host.

These tests skip without a CUDA device (and those that use PyTorch without it), and fail instead under
EVO_REQUIRE_GPU=1.
"""

import numpy as np

import evogpu
from test_dlpack_gpu import BOX, DIMENSION, fixed_order_rastrigin, torch_cuda_or_skip
from test_gil_and_gpu import cuda_or_skip

OPTIONS = {"population": 32}


def cpu_run(fitness, generations, seed):
    return evogpu.minimize(fitness, BOX, algorithm="de", backend="cpu", seed=seed,
                           max_generations=generations, options=OPTIONS)


def test_an_evogpu_view_is_a_device_answer_without_pytorch():
    """The function receives the bare population view and answers with the (32, 1) float32 view of another
    engine's population (asked once, never told, so it stays valid): the door imports it through its own
    producer on the engine's stream and widens it on the device, every call."""
    cuda_or_skip()
    one_gene = [(-5.12, 5.12)]
    side = evogpu.DeAskTell(one_gene, seed=3, options=OPTIONS, backend="cuda")
    answer = side.ask()
    assert answer.shape == (32, 1)
    # The same seed gives the same population on the CPU backend: the values the answer holds, widened.
    values = evogpu.DeAskTell(one_gene, seed=3, options=OPTIONS, backend="cpu").ask()[:, 0].copy()
    seen = []

    def constant_view(view):
        seen.append((type(view), view.shape))
        return answer

    gpu = evogpu.minimize(constant_view, BOX, algorithm="de", backend="cuda", gpu_tensors="dlpack", seed=9,
                          max_generations=30, options=OPTIONS)
    cpu = cpu_run(lambda x: values, 30, seed=9)
    assert seen == [(evogpu.DeviceView, (32, DIMENSION))] * 31
    assert gpu.fun == cpu.fun == values.min()
    np.testing.assert_array_equal(gpu.x, cpu.x)
    np.testing.assert_array_equal(gpu.history["best_fitness"], cpu.history["best_fitness"])
    # Each answer's export was released once read: the last one when the run ended.
    assert answer.exports == 0
    del side


class UnversionedAnswer:
    """A device answer whose ``__dlpack__`` predates ``max_version`` (a DLPack 0.x producer): asked with it,
    Python raises TypeError, and the door asks again without it."""

    def __init__(self, tensor, streams):
        self.tensor = tensor
        self.streams = streams

    def __dlpack__(self, *, stream=None):
        self.streams.append(stream)
        return self.tensor.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def test_a_producer_without_max_version_is_asked_again_every_call():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    streams = []
    gpu = evogpu.minimize(lambda x: UnversionedAnswer(fitness(x), streams), BOX, algorithm="de",
                          backend="cuda", seed=6, max_generations=30, options=OPTIONS)
    cpu = cpu_run(fitness, 30, seed=6)
    # One successful call per evaluation, each on PyTorch's legacy default stream (handle 1).
    assert streams == [1] * 31
    assert gpu.fun == cpu.fun
    np.testing.assert_array_equal(gpu.x, cpu.x)


def test_a_list_answer_on_the_cuda_backend_is_read_through_numpy():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    listed = evogpu.minimize(lambda x: fitness(x).tolist(), BOX, algorithm="de", backend="cuda", seed=8,
                             max_generations=20, options=OPTIONS)
    device = evogpu.minimize(fitness, BOX, algorithm="de", backend="cuda", seed=8, max_generations=20,
                             options=OPTIONS)
    assert listed.fun == device.fun
    np.testing.assert_array_equal(listed.x, device.x)
