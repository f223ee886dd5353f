"""EvoX 1.4's DE against evogpu's DE on one GPU, per generation, on the same PyTorch Rastrigin.

Three columns per size (population × dimension):

* EvoX DE: ``evox.algorithms.DE`` in a ``StdWorkflow`` with a ``Problem`` whose ``evaluate`` is the
  PyTorch Rastrigin below (EvoX's documented use, uncompiled unless ``--evox-compile``);
* evogpu DE, PyTorch fitness: ``evogpu.minimize`` with the same function on ``backend="cuda"`` (the
  population reaches it through DLPack, the fitness is read back on the device);
* evogpu DE, built-in: ``evogpu.minimize("rastrigin:D")`` (evaluation inside the DE generation kernel).

A second table splits evogpu's time with the PyTorch fitness into what it is made of, per generation:

* the PyTorch fitness alone, called in a loop on one tensor of the population's shape: host time per call
  (the loop between two synchronizations) and device time per call (CUDA events around the same loop,
  queued behind a sleep kernel so that the GPU runs the calls back to back);
* DE's built-in generation alone (the built-in column above);
* evogpu DE with a constant PyTorch fitness (a preallocated tensor of zeros returned at once): the door
  (DLPack export and import, the Python call, the stream hand-offs, the read-back kernel) and DE's
  generation around a Python evaluation, without any fitness work;
* overhead = total − fitness alone − built-in generation: what the door costs beyond the fitness and a
  generation, and door + generation − built-in generation, the same measured with the constant fitness;
* PyTorch's side of the door's two DLPack hand-offs, each timed alone in a loop on the host:
  ``torch.from_dlpack`` of an evogpu ``DeviceView`` (a CUDA ``DeAskTell``'s ``ask()``: how the fitness gets
  its tensor) and ``__dlpack__(stream=1)`` of a float64 CUDA tensor (how the door takes the answer over when
  the conversion ordered the legacy default stream, PyTorch's default).

A third table splits the door itself into evogpu's side and PyTorch's, per generation:

* evogpu DE with a fitness that touches no PyTorch (``ConstantView``): it receives the bare ``DeviceView``
  (``gpu_tensors="dlpack"``) and answers with the same evogpu ``DeviceView`` every call, so every step of
  the door but PyTorch's runs (the view object, the Python call, the answer's ``__dlpack_device__`` and
  ``__dlpack__`` through evogpu's own producer with one stream hand-off, the read-back kernel, the release
  of the previous answer) around DE's four-launch generation;
* DE's four-launch generation around a device evaluation without the door: the built-in shifted
  Rastrigin, which DE does not fuse into its one-launch generation (trials, evaluation, merge, best);
* the door's evogpu side = the first − the second (its read-back launch takes the place of the evaluation
  launch), and PyTorch's side = the door with the constant PyTorch fitness − the first (``torch.from_dlpack``
  and its stream hand-off, the tensors' life, the answer's ``__dlpack_device__`` and ``__dlpack__``, the
  second stream hand-off).

Time per generation:

* EvoX: after ``init_step`` and warm-up generations, a block of ``G`` calls of ``workflow.step()`` between
  two ``torch.cuda.synchronize()`` and ``time.perf_counter()``, divided by ``G``; the median of the blocks.
* evogpu runs a whole budget per call, so a generation's time is the difference of two runs that differ
  only in their generation budget, ``(T(G2) - T(G1)) / (G2 - G1)``: set-up, compilation, the initial
  population and the final read-back cancel. Each ``T`` is the median of ``--repeats`` runs, each timed
  with ``torch.cuda.synchronize()`` and ``time.perf_counter()`` around ``minimize``, which returns after its
  last generation's result is on the host. One history point per run (``history_every=G``), so nothing
  else waits for the device in between.

Prints a markdown table (and the device, versions and budgets) to stdout. See README.md for the command.
"""

from __future__ import annotations

import argparse
from importlib import metadata
import math
import statistics
import time

import torch

import evogpu

LOW, HIGH = -5.12, 5.12


def rastrigin(x: torch.Tensor) -> torch.Tensor:
    """Rastrigin of every row, in the population's float32 (the same function for both libraries)."""
    return 10.0 * x.shape[1] + (x * x - 10.0 * torch.cos((2.0 * math.pi) * x)).sum(dim=1)


def evogpu_fitness(x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return rastrigin(x)


def synchronized_seconds(run) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    run()
    torch.cuda.synchronize()
    return time.perf_counter() - start


def fitness_alone(pop: int, dim: int, calls: int, repeats: int) -> tuple[float, float]:
    """Seconds per call of the PyTorch fitness alone on a population of the same shape, on the host (a
    floor under any engine's time per generation with this fitness, so EvoX's time over it bounds the
    possible speed-up) and on the device (``device_seconds``: the GPU's share of it)."""
    x = torch.rand(pop, dim, device="cuda") * (HIGH - LOW) + LOW
    for _ in range(20):
        evogpu_fitness(x)

    def block():
        for _ in range(calls):
            evogpu_fitness(x)

    host = statistics.median(synchronized_seconds(block) / calls for _ in range(repeats))
    return host, device_seconds(block, calls, repeats)


def device_seconds(block, calls: int, repeats: int) -> float:
    """GPU time per call of ``block``'s calls: they are queued behind a sleep kernel, so the CUDA events
    around them time their kernels back to back rather than the host's pace of queueing them. NaN when the
    host had not queued them all before the sleep ended (the GPU would have waited for the host)."""
    cycles = 200_000_000  # about 0.1 s at the H200's clock, several times what queueing the block takes
    times = []
    for _ in range(repeats):
        asleep, start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(3))
        torch.cuda.synchronize()
        queued_from = time.perf_counter()
        asleep.record()
        torch.cuda._sleep(cycles)
        start.record()
        block()
        stop.record()
        queued = time.perf_counter() - queued_from
        stop.synchronize()
        slept = asleep.elapsed_time(start) * 1e-3
        times.append(start.elapsed_time(stop) * 1e-3 / calls if queued < slept else math.nan)
    return math.nan if any(math.isnan(t) for t in times) else statistics.median(times)


def dlpack_seconds(pop: int, dim: int, calls: int, repeats: int) -> tuple[float, float]:
    """Host seconds per call of PyTorch's side of the door's DLPack hand-offs, each alone: the import of an
    evogpu DeviceView by ``torch.from_dlpack`` and the export of an answer by ``__dlpack__(stream=1)``."""
    engine = evogpu.DeAskTell([(LOW, HIGH)] * dim, seed=1, options={"population": pop}, backend="cuda")
    view = engine.ask()
    answer = torch.zeros(pop, dtype=torch.float64, device="cuda")

    def imports():
        for _ in range(calls):
            torch.from_dlpack(view)

    def exports():
        for _ in range(calls):
            answer.__dlpack__(stream=1)

    imports()
    exports()
    imported = statistics.median(synchronized_seconds(imports) / calls for _ in range(repeats))
    exported = statistics.median(synchronized_seconds(exports) / calls for _ in range(repeats))
    engine.tell(answer)
    return imported, exported


def constant_fitness(pop: int):
    """A PyTorch fitness that does no work: the same preallocated zeros every call."""
    zeros = torch.zeros(pop, dtype=torch.float64, device="cuda")

    def fitness(x: torch.Tensor) -> torch.Tensor:
        return zeros

    return fitness


class ConstantView:
    """A fitness that touches no PyTorch: it ignores the bare population view it receives
    (``gpu_tensors="dlpack"``) and answers every call with the same device vector, the (pop × 1) float32
    population of a second evogpu engine (a CUDA ``DeAskTell`` asked once and never told, so its view stays
    valid while this object holds the engine)."""

    def __init__(self, pop: int):
        self.engine = evogpu.DeAskTell([(LOW, HIGH)], seed=1, options={"population": pop}, backend="cuda")
        self.answer = self.engine.ask()

    def __call__(self, view: evogpu.DeviceView) -> evogpu.DeviceView:
        return self.answer


def evox_per_generation(pop: int, dim: int, warmup: int, block: int, blocks: int, compile_step: bool) -> float:
    from evox.algorithms import DE
    from evox.core import Problem
    from evox.workflows import StdWorkflow

    class TorchRastrigin(Problem):
        def evaluate(self, population: torch.Tensor) -> torch.Tensor:
            return rastrigin(population)

    torch.set_default_device("cuda")
    try:
        algorithm = DE(pop_size=pop, lb=torch.full((dim,), LOW), ub=torch.full((dim,), HIGH))
        workflow = StdWorkflow(algorithm, TorchRastrigin())
        workflow.init_step()
        step = torch.compile(workflow.step) if compile_step else workflow.step
        for _ in range(warmup):
            step()

        def run_block():
            for _ in range(block):
                step()

        times = [synchronized_seconds(run_block) / block for _ in range(blocks)]
    finally:
        torch.set_default_device(None)
    return statistics.median(times)


def evogpu_per_generation(fitness, bounds, pop: int, short: int, long: int, repeats: int,
                          gpu_tensors: str = "torch") -> float:
    def run(generations: int):
        def call():
            result = evogpu.minimize(fitness, bounds, algorithm="de", backend="cuda", seed=1,
                                     max_generations=generations, history_every=generations,
                                     options={"population": pop}, gpu_tensors=gpu_tensors)
            assert result.nit == generations, result

        return call

    run(short)()  # warm-up: NVRTC's cache, PyTorch's kernels and allocator
    t_short = statistics.median(synchronized_seconds(run(short)) for _ in range(repeats))
    t_long = statistics.median(synchronized_seconds(run(long)) for _ in range(repeats))
    return (t_long - t_short) / (long - short)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024x512,100x1000000",
                        help="population x dimension pairs, comma separated")
    parser.add_argument("--repeats", type=int, default=5, help="evogpu runs per budget (median)")
    parser.add_argument("--evox-compile", action="store_true", help="torch.compile EvoX's workflow.step")
    parser.add_argument("--no-evox", action="store_true",
                        help="evogpu only, for the overhead table (EvoX's columns print nan)")
    args = parser.parse_args()

    evox_version = "not run" if args.no_evox else metadata.version("evox")
    print(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; "
          f"evox {evox_version}; evogpu {metadata.version('evogpu')}")
    rows = []
    for size in args.sizes.split(","):
        pop, dim = (int(v) for v in size.lower().split("x"))
        large = pop * dim >= 10**7
        # Budgets: EvoX blocks of about 0.1 s; evogpu budgets far enough apart that the difference dwarfs the
        # jitter of a run's set-up (at 10^8 coordinates the set-up allocates and fills gigabytes, and moves by
        # tens of milliseconds between runs: 1 000 generations of about 0.6 ms make the difference 0.6 s).
        block, blocks, warmup = (10, 5, 3) if large else (100, 5, 20)
        short, long = (5, 1005) if large else (100, 5100)
        bounds = [(LOW, HIGH)] * dim
        evox = math.nan if args.no_evox else evox_per_generation(pop, dim, warmup, block, blocks,
                                                                   args.evox_compile)
        torch_fitness = evogpu_per_generation(evogpu_fitness, bounds, pop, short, long, args.repeats)
        builtin = evogpu_per_generation(f"rastrigin:{dim}", None, pop, short, long, args.repeats)
        door = evogpu_per_generation(constant_fitness(pop), bounds, pop, short, long, args.repeats)
        door_alone = evogpu_per_generation(ConstantView(pop), bounds, pop, short, long, args.repeats,
                                           gpu_tensors="dlpack")
        four_launch = evogpu_per_generation(f"shifted-rastrigin:{dim}", None, pop, short, long, args.repeats)
        alone, alone_device = fitness_alone(pop, dim, 10 if large else 200, args.repeats)
        dlpack = dlpack_seconds(pop, dim, 1000, args.repeats)
        rows.append((pop, dim, evox, torch_fitness, builtin, alone, alone_device, door, dlpack,
                     (door_alone, four_launch)))
        print(f"  {pop} x {dim}: budgets EvoX {blocks} blocks of {block} after {warmup}; "
              f"evogpu {short} and {long} generations, {args.repeats} runs each", flush=True)

    print()
    print("| population × dimension | EvoX DE, PyTorch fitness (ms/gen) | evogpu DE, PyTorch fitness (ms/gen) "
          "| speed-up | PyTorch fitness alone (ms/call) | EvoX / fitness alone (the most any engine can gain) "
          "| evogpu DE, built-in (ms/gen) | speed-up |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for pop, dim, evox, torch_fitness, builtin, alone, *_ in rows:
        print(f"| {pop} × {dim} | {evox * 1e3:.4f} | {torch_fitness * 1e3:.4f} | {evox / torch_fitness:.1f}× "
              f"| {alone * 1e3:.4f} | {evox / alone:.1f}× | {builtin * 1e3:.4f} | {evox / builtin:.1f}× |")
    print()
    print("| population × dimension | evogpu DE, PyTorch fitness: total (µs/gen) | fitness alone, host (µs/call) "
          "| fitness alone, device (µs/call) | DE built-in generation (µs/gen) | overhead = total − fitness − "
          "generation (µs/gen) | evogpu DE, constant PyTorch fitness: door + generation (µs/gen) "
          "| door + generation − built-in generation (µs/gen) | of which torch.from_dlpack of the view "
          "(µs/call) | and the answer's __dlpack__ (µs/call) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for pop, dim, _, torch_fitness, builtin, alone, alone_device, door, (imported, exported), _ in rows:
        print(f"| {pop} × {dim} | {torch_fitness * 1e6:.1f} | {alone * 1e6:.1f} | {alone_device * 1e6:.1f} "
              f"| {builtin * 1e6:.1f} | {(torch_fitness - alone - builtin) * 1e6:.1f} | {door * 1e6:.1f} "
              f"| {(door - builtin) * 1e6:.1f} | {imported * 1e6:.1f} | {exported * 1e6:.1f} |")
    print()
    print("| population × dimension | evogpu DE, a fitness without PyTorch (evogpu views both ways): door + "
          "generation (µs/gen) | DE four-launch generation, built-in shifted Rastrigin, no door (µs/gen) "
          "| the door's evogpu side = difference (µs/gen) | evogpu DE, constant PyTorch fitness (µs/gen) "
          "| the door's PyTorch side = difference (µs/gen) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for pop, dim, *_, door, _, (door_alone, four_launch) in rows:
        print(f"| {pop} × {dim} | {door_alone * 1e6:.1f} | {four_launch * 1e6:.1f} "
              f"| {(door_alone - four_launch) * 1e6:.1f} | {door * 1e6:.1f} | {(door - door_alone) * 1e6:.1f} |")
    pop, dim, evox, torch_fitness, builtin, alone, *_ = rows[0]
    if args.no_evox:
        return
    print()
    print(f"Targets of issue 31 at {pop} × {dim}: PyTorch fitness {evox / torch_fitness:.1f}× (at least 10×: "
          f"{'met' if evox >= 10 * torch_fitness else 'NOT met'}), built-in {evox / builtin:.1f}× (at least 50×: "
          f"{'met' if evox >= 50 * builtin else 'NOT met'}); the PyTorch fitness alone takes "
          f"{alone * 1e3:.4f} ms per call, so no engine calling it can be more than {evox / alone:.1f}× faster "
          f"than EvoX here.")


if __name__ == "__main__":
    main()
