"""PyTorch fitness functions on the CUDA backend through DLPack: the engine's population reaches the
function as a torch tensor of the engine's own device buffer (no copy), the answer is read back on the
device, and a fitness computed in the same order on both backends gives the CPU backend's result bit for
bit. A small neural network's loss (the genome is the weights of a 2-layer MLP) is minimised the same way.

These tests skip without a CUDA device or without PyTorch built with CUDA, and fail instead under
EVO_REQUIRE_GPU=1 (the GPU machine has both).
"""

import math
import os

import numpy as np
import pytest

import evogpu

DIMENSION = 10
BOX = [(-5.12, 5.12)] * DIMENSION


def torch_cuda_or_skip():
    """torch, when it and a CUDA device are here; else a skip (a failure under EVO_REQUIRE_GPU=1)."""
    required = os.environ.get("EVO_REQUIRE_GPU") == "1"
    try:
        import torch
    except ImportError as missing:
        if required:
            pytest.fail(f"EVO_REQUIRE_GPU=1 but PyTorch is not installed: {missing}")
        pytest.skip("PyTorch is not installed")
    try:
        evogpu.minimize("rastrigin:4", backend="cuda", max_generations=1)
    except RuntimeError as error:
        if required:
            pytest.fail(f"EVO_REQUIRE_GPU=1 but the CUDA backend failed: {error}")
        pytest.skip(f"no CUDA device: {error}")
    if not torch.cuda.is_available():
        if required:
            pytest.fail("EVO_REQUIRE_GPU=1 but PyTorch sees no CUDA device")
        pytest.skip("PyTorch has no CUDA")
    return torch


def fixed_order_rastrigin(torch):
    """Rastrigin in float64 on the GPU, its terms summed column by column: the same operations in the same
    order whatever the number of rows, so a row's value does not depend on the batch it came in. On the CPU
    backend the function receives NumPy arrays and returns NumPy values; on the CUDA backend tensors."""

    def fitness(x):
        on_device = torch.is_tensor(x)
        t = torch.as_tensor(x, device="cuda").double()
        terms = t * t - 10.0 * torch.cos((2.0 * math.pi) * t)
        total = torch.full((t.shape[0],), 10.0 * t.shape[1], dtype=torch.float64, device="cuda")
        for column in range(t.shape[1]):
            total = total + terms[:, column]
        return total if on_device else total.cpu().numpy()

    return fitness


@pytest.mark.parametrize(
    "algorithm, budget",
    [("de", {"max_generations": 60}), ("ma-sw-chains", {"max_evaluations": 3000})],
)
def test_a_torch_fitness_on_the_gpu_should_match_cpu(algorithm, budget):
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    seen = []

    def watched(x):
        seen.append((x.device.type, x.dtype, tuple(x.shape), x.data_ptr()))
        return fitness(x)

    options = {"population": 64}
    gpu = evogpu.minimize(watched, BOX, algorithm=algorithm, backend="cuda", seed=11, options=options,
                          **budget)
    cpu = evogpu.minimize(fitness, BOX, algorithm=algorithm, backend="cpu", seed=11, options=options, **budget)
    assert gpu.backend.startswith("cuda")
    assert all(device == "cuda" and dtype == torch.float32 for device, dtype, _, _ in seen)
    assert all(shape[1] == DIMENSION for _, _, shape, _ in seen)
    # The population buffers are the engine's: a few addresses reused every generation, never a copy.
    assert len({pointer for *_, pointer in seen}) <= 4
    assert gpu.fun == cpu.fun
    np.testing.assert_array_equal(gpu.x, cpu.x)
    np.testing.assert_array_equal(gpu.history["best_fitness"], cpu.history["best_fitness"])


def test_the_tensor_is_the_engine_buffer_itself():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    pointers = []

    def through_views(view):
        assert isinstance(view, evogpu.DeviceView)
        assert view.__dlpack_device__()[0] == 2
        x = torch.from_dlpack(view)
        # The engine's buffer address (from evo-gpu-runtime) is the tensor's: DLPack made no copy.
        assert x.data_ptr() == view.data_ptr
        pointers.append(view.data_ptr)
        return fitness(x)

    result = evogpu.minimize(through_views, BOX, backend="cuda", gpu_tensors="dlpack", seed=2,
                             max_generations=20, options={"population": 32})
    reference = evogpu.minimize(fitness, BOX, backend="cuda", seed=2, max_generations=20,
                                options={"population": 32})
    assert len(pointers) > 20 and len(set(pointers)) <= 2
    assert result.fun == reference.fun


def test_a_float32_answer_is_widened_on_the_device():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    narrow = evogpu.minimize(lambda x: fitness(x).float(), BOX, backend="cuda", seed=4, max_generations=30)
    widened = evogpu.minimize(lambda x: fitness(x).float().double(), BOX, backend="cuda", seed=4,
                              max_generations=30)
    assert narrow.fun == widened.fun
    np.testing.assert_array_equal(narrow.x, widened.x)
    # A strided answer (every other value of a longer tensor) is read with its stride.
    strided = evogpu.minimize(lambda x: torch.stack([fitness(x), fitness(x)], dim=1)[:, 0], BOX,
                              backend="cuda", seed=4, max_generations=30)
    reference = evogpu.minimize(fitness, BOX, backend="cuda", seed=4, max_generations=30)
    assert strided.fun == reference.fun


def test_a_host_answer_is_accepted():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    host = evogpu.minimize(lambda x: fitness(x).cpu().numpy(), BOX, backend="cuda", seed=8, max_generations=10)
    device = evogpu.minimize(fitness, BOX, backend="cuda", seed=8, max_generations=10)
    assert host.fun == device.fun


class StreamRecorder:
    """A device answer that records the stream and DLPack version its consumer asks for, then hands over its
    tensor."""

    def __init__(self, tensor, streams):
        self.tensor = tensor
        self.streams = streams

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.streams.append((stream, max_version))
        return self.tensor.__dlpack__(stream=stream, max_version=max_version)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def recorded_run(torch, fitness, streams, **arguments):
    """A DE run whose answers record the stream evogpu asks them for."""
    return evogpu.minimize(lambda x: StreamRecorder(fitness(torch.from_dlpack(x) if isinstance(
        x, evogpu.DeviceView) else x), streams), BOX, algorithm="de", backend="cuda", seed=6,
        max_generations=30, options={"population": 32}, **arguments)


def test_an_answer_on_the_default_stream_is_read_without_a_producer_event():
    """torch.from_dlpack of the population asks for the legacy default stream (handle 1), PyTorch's current
    stream: the answer is then asked for on that same stream, where PyTorch orders nothing, and the engine
    orders its own stream after it; the results stay the CPU backend's. Every call asks with the same
    arguments (made once per run)."""
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    streams = []
    gpu = recorded_run(torch, fitness, streams)
    cpu = evogpu.minimize(fitness, BOX, algorithm="de", backend="cpu", seed=6, max_generations=30,
                          options={"population": 32})
    assert len(streams) > 30 and set(streams) == {(1, (1, 0))}
    assert gpu.fun == cpu.fun
    np.testing.assert_array_equal(gpu.x, cpu.x)


def test_an_answer_on_another_stream_is_asked_for_on_the_engine_stream():
    """Under another current stream (whose handle evogpu cannot keep), or when the function converts the
    view itself, the answer is asked for on the engine's main stream and the producer orders it."""
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    cpu = evogpu.minimize(fitness, BOX, algorithm="de", backend="cpu", seed=6, max_generations=30,
                          options={"population": 32})
    side = torch.cuda.Stream()
    on_side = []
    with torch.cuda.stream(side):
        gpu = recorded_run(torch, fitness, on_side)
    bare = []
    converted_inside = recorded_run(torch, fitness, bare, gpu_tensors="dlpack")
    for streams in (on_side, bare):
        assert len(streams) > 30 and len(set(streams)) == 1
        ((main, version),) = set(streams)
        assert version == (1, 0)
        assert isinstance(main, int) and main > 2 and main != side.cuda_stream
    for result in (gpu, converted_inside):
        assert result.fun == cpu.fun
        np.testing.assert_array_equal(result.x, cpu.x)


def test_a_tensor_kept_past_the_call_ends_the_run():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    kept = []

    def hoarding(x):
        kept.append(x)
        return fitness(x)

    with pytest.raises(ValueError, match="kept 1 tensor"):
        evogpu.minimize(hoarding, BOX, backend="cuda", max_generations=5)


def test_errors_of_the_function_and_its_answer():
    torch = torch_cuda_or_skip()

    class SimulatorDown(Exception):
        pass

    def broken(x):
        raise SimulatorDown("no answer")

    with pytest.raises(SimulatorDown, match="no answer"):
        evogpu.minimize(broken, BOX, backend="cuda", max_generations=5)
    with pytest.raises(ValueError, match=r"must return 64 values"):
        evogpu.minimize(lambda x: x.sum(), BOX, backend="cuda", max_generations=5)
    with pytest.raises(ValueError, match="float64 or float32 values, got int64"):
        evogpu.minimize(lambda x: x.sum(dim=1).long(), BOX, backend="cuda", max_generations=5)
    del torch


def test_a_neural_network_loss_is_minimised_on_the_gpu():
    torch = torch_cuda_or_skip()
    inputs, hidden = 4, 8
    generator = torch.Generator().manual_seed(0)
    data = (torch.rand(128, inputs, generator=generator, dtype=torch.float64) * 2 - 1).cuda()
    target = torch.sin(data.sum(dim=1))
    genes = inputs * hidden + hidden + hidden + 1

    def mlp_loss(x):
        """Mean squared error of a 2-layer tanh MLP per row of weights (batched over the population)."""
        with torch.no_grad():
            w = x.double()
            n = w.shape[0]
            w1 = w[:, : inputs * hidden].reshape(n, inputs, hidden)
            b1 = w[:, inputs * hidden : inputs * hidden + hidden]
            w2 = w[:, inputs * hidden + hidden : inputs * hidden + 2 * hidden].reshape(n, hidden, 1)
            b2 = w[:, -1]
            h = torch.tanh(torch.matmul(data, w1) + b1[:, None, :])
            out = torch.matmul(h, w2).squeeze(-1) + b2[:, None]
            return ((out - target) ** 2).mean(dim=1)

    pointers = set()

    def watched(x):
        pointers.add(x.data_ptr())
        return mlp_loss(x)

    result = evogpu.minimize(watched, [(-2.0, 2.0)] * genes, backend="cuda", seed=1, max_generations=400,
                             options={"population": 128})
    assert len(pointers) <= 2
    first, last = result.history["best_fitness"][0], result.fun
    assert np.isfinite(last) and last < 0.5 * first
    weights = torch.as_tensor(result.x, device="cuda")[None, :]
    assert float(mlp_loss(weights)[0]) == pytest.approx(last, rel=1e-6)


def test_a_cupy_fitness_on_the_gpu_should_match_cpu():
    torch_cuda_or_skip()
    cp = pytest.importorskip("cupy")

    def fitness(x):
        on_device = isinstance(x, cp.ndarray)
        t = cp.asarray(x).astype(cp.float64)
        terms = t * t - 10.0 * cp.cos((2.0 * math.pi) * t)
        total = cp.full((t.shape[0],), 10.0 * t.shape[1], dtype=cp.float64)
        for column in range(t.shape[1]):
            total = total + terms[:, column]
        return total if on_device else cp.asnumpy(total)

    gpu = evogpu.minimize(fitness, BOX, backend="cuda", gpu_tensors="cupy", seed=12, max_generations=40)
    cpu = evogpu.minimize(fitness, BOX, backend="cpu", seed=12, max_generations=40)
    assert gpu.fun == cpu.fun
    np.testing.assert_array_equal(gpu.x, cpu.x)
