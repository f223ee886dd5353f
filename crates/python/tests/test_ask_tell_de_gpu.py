"""DE's ask/tell on the CUDA backend: ask gives an evogpu.DeviceView of the engine's own device buffer
(PyTorch takes it through DLPack without a copy), tell takes a CUDA tensor read on the device (or host
values), and a fitness computed in the same order on both backends gives the CPU backend's populations and
best, bit for bit.

These tests skip without a CUDA device or without PyTorch built with CUDA, and fail instead under
EVO_REQUIRE_GPU=1 (the GPU machine has both).
"""

import pathlib
import re
import textwrap

import numpy as np
import pytest

import evogpu
from test_dlpack_gpu import BOX, DIMENSION, fixed_order_rastrigin, torch_cuda_or_skip

OPTIONS = {"population": 32}


def cpu_trace(fitness, generations, seed):
    """The CPU backend's asked populations and best, for `fitness` over NumPy arrays."""
    engine = evogpu.DeAskTell(BOX, seed=seed, options=OPTIONS, backend="cpu")
    asked = []
    for _ in range(generations + 1):
        population = engine.ask()
        asked.append(population.copy())
        engine.tell(fitness(population))
    return asked, engine


def test_device_ask_tell_should_match_cpu():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    generations = 40
    expected, cpu = cpu_trace(fitness, generations, seed=21)
    engine = evogpu.DeAskTell(BOX, seed=21, options=OPTIONS, backend="cuda")
    assert engine.backend.startswith("cuda:")
    for generation in range(generations + 1):
        x = torch.from_dlpack(engine.ask())
        assert x.device.type == "cuda" and x.dtype == torch.float32 and tuple(x.shape) == (32, DIMENSION)
        # The comparison copies the population for the test only; the engine never does.
        np.testing.assert_array_equal(x.double().cpu().numpy(), expected[generation],
                                      err_msg=f"generation {generation}")
        engine.tell(fitness(x))
    assert engine.generation == cpu.generation == generations
    assert engine.evaluations == cpu.evaluations
    assert engine.fun == cpu.fun
    np.testing.assert_array_equal(engine.x, cpu.x)


def test_the_population_is_never_copied_to_the_host():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    engine = evogpu.DeAskTell(BOX, seed=5, options=OPTIONS, backend="cuda")
    pointers = set()
    for _ in range(30):
        view = engine.ask()
        assert isinstance(view, evogpu.DeviceView)
        assert view.__dlpack_device__() == (2, torch.cuda.current_device())
        assert view.shape == (32, DIMENSION) and view.dtype == "float32"
        x = torch.from_dlpack(view)
        # The tensor's memory is the engine's buffer (evo-gpu-runtime's device address): no copy.
        assert x.data_ptr() == view.data_ptr
        pointers.add(view.data_ptr)
        engine.tell(fitness(x))
        # Told, the view refuses exports: the engine overwrites that memory in the next generation.
        with pytest.raises(BufferError, match="valid only"):
            torch.from_dlpack(view)
    # The initial population's buffer, then the trials' buffer every generation.
    assert len(pointers) == 2


def test_host_float32_and_strided_answers_give_the_same_run():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)

    def run(answer):
        engine = evogpu.DeAskTell(BOX, seed=8, options=OPTIONS, backend="cuda")
        for _ in range(15):
            engine.tell(answer(torch.from_dlpack(engine.ask())))
        return engine

    device = run(fitness)
    host = run(lambda x: fitness(x).cpu().numpy())
    listed = run(lambda x: fitness(x).cpu().tolist())
    strided = run(lambda x: torch.stack([fitness(x), fitness(x)], dim=1)[:, 0])
    narrow = run(lambda x: fitness(x).float())
    widened = run(lambda x: fitness(x).float().double())
    for other in (host, listed, strided):
        assert other.fun == device.fun
        np.testing.assert_array_equal(other.x, device.x)
    assert narrow.fun == widened.fun
    np.testing.assert_array_equal(narrow.x, widened.x)


def test_out_of_order_calls_and_bad_answers_are_refused():
    torch = torch_cuda_or_skip()
    fitness = fixed_order_rastrigin(torch)
    engine = evogpu.DeAskTell(BOX, seed=2, options=OPTIONS, backend="cuda")
    assert engine.fun is None and engine.x is None
    with pytest.raises(ValueError, match="nothing was asked"):
        engine.tell(torch.zeros(32, device="cuda", dtype=torch.float64))
    x = torch.from_dlpack(engine.ask())
    with pytest.raises(ValueError, match="call tell"):
        engine.ask()
    with pytest.raises(ValueError, match=r"tell: expected 32 values, shape \(32,\) or \(32, 1\)"):
        engine.tell(fitness(x)[:5])
    with pytest.raises(ValueError, match="float64 or float32 values, got int64"):
        engine.tell(fitness(x).long())
    host = fitness(x).cpu().numpy()
    host[4] = np.inf
    with pytest.raises(ValueError, match=r"fitness\[4\] is inf"):
        engine.tell(host)
    engine.tell(fitness(x))
    assert engine.generation == 0 and engine.evaluations == 32
    assert engine.fun == float(fitness(x).min())


def test_the_package_readme_cuda_ask_tell_example_runs():
    torch_cuda_or_skip()
    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    blocks = [textwrap.dedent(block) for block in re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)]
    examples = [block for block in blocks if "DeAskTell" in block and 'backend="cuda"' in block]
    assert len(examples) == 1
    scope = {}
    exec(compile(examples[0], "crates/python/README.md", "exec"), scope)
    engine = scope["engine"]
    assert engine.generation == 999 and engine.evaluations == 1000 * 1024
    assert np.isfinite(engine.fun) and engine.x.shape == (512,)


def test_a_view_of_a_dropped_engine_refuses_exports():
    torch = torch_cuda_or_skip()
    engine = evogpu.DeAskTell(BOX, seed=1, options=OPTIONS, backend="cuda")
    view = engine.ask()
    # The engine's thread frees its buffers once the object is gone: the view no longer exports them.
    del engine
    with pytest.raises(BufferError, match="valid only"):
        torch.from_dlpack(view)
