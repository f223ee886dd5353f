"""evo-gpu's evolutionary algorithms from Python.

``minimize`` runs one algorithm (DE, MA-SW-Chains, the binary GA, DPGA, QIGA, SGA) on a built-in
problem or on a Python function over the whole population, and returns an :class:`OptimizeResult` in the
habits of ``scipy.optimize``. :class:`DeAskTell`, :class:`GaAskTell`, :class:`QigaAskTell`, :class:`SgaAskTell`
and :class:`DpgaAskTell` drive DE, the binary GA, QIGA, the SGA and DPGA one population at a time for fitness
evaluated elsewhere; ``DeAskTell(..., backend="cuda")`` hands out the engine's device population as a
:class:`DeviceView` (DLPack, no copy) and reads a CUDA tensor's fitness on the device.

The engines run without the GIL; it is taken back only to call Python (the callback, a Python fitness
function, the signal handlers), so Ctrl-C stops a run with ``KeyboardInterrupt``.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, Callable, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from ._evogpu import ALGORITHMS, PROBLEMS, DeAskTell, GaAskTell, StopToken, _minimize
from ._evogpu import CompileError, DeviceView, UserProblem
from ._evogpu import DpgaAskTell, QigaAskTell, SgaAskTell

__all__ = [
    "ALGORITHMS", "CompileError", "PROBLEMS", "DeAskTell", "DeviceView", "DpgaAskTell", "GaAskTell", "OptimizeResult", "Progress", "QigaAskTell", "SgaAskTell", "StopToken", "UserProblem", "minimize",
]


class Progress(NamedTuple):
    """Where a run stands, as the callback sees it after every generation."""

    generation: int
    """Generations completed."""
    evaluations: int
    """Fitness evaluations so far, the initial population included."""
    best_fitness: float
    """The best fitness found so far."""
    elapsed_s: float
    """Wall time of the run so far, in seconds."""


class OptimizeResult(dict):
    """The result of :func:`minimize`, a dict whose keys are also attributes (as ``scipy.optimize``'s).

    Keys: ``x`` (the best point: float64 array, or a bool array for the GA's bit strings), ``fun`` (its
    fitness), ``nfev`` (evaluations, the initial population included), ``nit`` (generations), ``success``
    (always True: a run that fails raises instead), ``message`` (what ended it),
    ``history`` (a dict of NumPy arrays ``generation``, ``evaluations``, ``best_fitness``, ``elapsed_s``),
    ``backend`` (the backend that ran it, e.g. ``"cpu"`` or ``"cuda:0"``), ``algorithm``, ``wall_time_s``
    and ``metadata`` (backend, device, seed, problem).
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as missing:
            raise AttributeError(name) from missing

    @property
    def evaluations(self) -> int:
        """Fitness evaluations, the initial population included (``nfev``)."""
        return self["nfev"]

    @property
    def generations(self) -> int:
        """Generations completed (``nit``)."""
        return self["nit"]

    def __repr__(self) -> str:
        keys = ("fun", "nfev", "nit", "message", "backend", "x")
        return "OptimizeResult(" + ", ".join(f"{k}={self[k]!r}" for k in keys if k in self) + ")"


_MAX_DEFAULT_HISTORY_EVERY = 100
"""The most generations between two history points when ``history_every`` is not given."""


def _default_history_every(max_generations: Optional[int]) -> int:
    """About 100 history points for a generation budget, at most 100 generations apart."""
    if max_generations is None:
        return _MAX_DEFAULT_HISTORY_EVERY
    return min(max(max_generations // 100, 1), _MAX_DEFAULT_HISTORY_EVERY)



def _tensor_function(gpu_tensors: Any, fitness: Any, backend: str) -> Any:
    """The function that turns a :class:`DeviceView` into what a Python fitness function receives on the
    CUDA backend (None: the view itself); the library is imported only for such a run."""
    if not callable(fitness) or not backend.startswith("cuda"):
        return None
    if callable(gpu_tensors):
        return gpu_tensors
    if gpu_tensors == "dlpack":
        return None
    if gpu_tensors in ("torch", "cupy"):
        try:
            module = importlib.import_module(gpu_tensors)
        except ImportError as missing:
            raise ImportError(
                f"gpu_tensors={gpu_tensors!r} needs {gpu_tensors} installed; or pass gpu_tensors=\"dlpack\" "
                "for the DeviceView itself, or a function of it"
            ) from missing
        return module.from_dlpack
    raise ValueError(f'gpu_tensors must be "torch", "cupy", "dlpack" or a function, got {gpu_tensors!r}')

Fitness = Union[str, Callable[[np.ndarray], Any]]
Bounds = Optional[Sequence[Tuple[float, float]]]


def minimize(
    fitness: Fitness,
    bounds: Bounds = None,
    algorithm: str = "de",
    backend: str = "auto",
    seed: int = 0,
    max_generations: Optional[int] = None,
    max_evaluations: Optional[int] = None,
    options: Optional[Mapping[str, Any]] = None,
    callback: Optional[Callable[[Progress], Any]] = None,
    checkpoint: Union[str, "os.PathLike[str]", None] = None,
    checkpoint_every: int = 100,
    history_every: Optional[int] = None,
    stop_token: Optional[StopToken] = None,
    gpu_tensors: Union[str, Callable[[DeviceView], Any]] = "torch",
) -> OptimizeResult:
    """Minimise ``fitness`` with one of evo-gpu's algorithms.

    Parameters
    ----------
    fitness
        A built-in problem by name: ``"rastrigin:D"``, ``"shifted-<function>:D"``, ``"cec2010:fN:D"``,
        ``"cec2006:gNN"``, ``"ga:fN:n"``, ``"knapsack:FILE"`` or ``"etc:FILE"`` (the names of the ``evo``
        command; the dimension may be left out of the name when ``bounds`` gives it). Or a Python function
        of the whole population (DE, MA-SW-Chains): on the CPU backend it receives a float64 NumPy array of
        shape (n, D) and returns n finite fitness values; on the CUDA backend (``backend="cuda"``, never
        chosen by ``"auto"`` for a function) it receives a float32 tensor of shape (n, D) that views the
        engine's device population without a copy (see ``gpu_tensors``) and returns n values as a tensor
        on that device (float64, or float32 widened on the device) or any host array.
        Or a :class:`UserProblem` (CUDA source; DE, MA-SW-Chains), run by its compiled module on the CUDA
        backend and by its ``twin`` on the CPU.
    bounds
        ``[(low, high), ...]``, one pair per variable. Required for a Python function (rounded to float32,
        the engines' gene type); for a built-in problem leave it None, or pass the problem's own box.
    algorithm
        ``"de"``, ``"ma-sw-chains"``, ``"ga"``, ``"dpga"``, ``"qiga"`` or ``"sga"`` (the last two on
        ``knapsack:FILE``).
    backend
        ``"auto"`` (the GPU when there is one and the engine has a CUDA twin for the problem), ``"cpu"``,
        ``"cpu:<threads>"``, ``"cuda"`` or ``"cuda:<device>"``.
    seed
        The Philox seed: the same seed, problem and options give the same result on every run and backend.
    max_generations, max_evaluations
        The budget; DE and DPGA need one of them. MA-SW-Chains takes its evaluation budget as a parameter
        (default from its options); the GA, QIGA and SGA run their ``generations`` option without one.
    options
        The algorithm's parameters by name, validated by the Rust crates (a value out of range raises
        ValueError with the crate's message). DE: population, differential_weight, crossover_rate.
        MA-SW-Chains: population, blx_alpha, nam_candidates, mutation_probability, mutation_range,
        ls_ratio, ls_intensity, children_per_step. GA: population, tournament_size, elite, crossover_rate,
        mutation_rate. DPGA: main_size, reserve_size, bits_per_variable, crossover_rate, mutation_rate,
        tournament_size, initialisation ("feasible" or "random"), init_max_draws. QIGA: population, generations. SGA: population, generations, crossover_rate,
        mutation_rate.
    callback
        Called with a :class:`Progress` after every generation; returning True stops the run (its result is
        returned); an exception it raises ends the run and is raised again.
    checkpoint
        A checkpoint file, written every ``checkpoint_every`` generations and at the end; when it exists the
        run continues from it (the same seed, problem and options are required).
    history_every
        A point of ``result.history`` every this many generations (besides the first and the last).
        Default: a hundredth of ``max_generations``, between 1 and 100; 100 without a generation budget, as
        the ``evo`` command. A point reads the best fitness, which on a CUDA engine waits for the device,
        so a point every generation slows small generations down.
    stop_token
        A :class:`StopToken`: ``stop_token.stop()``, from any thread, ends this run after its current batch
        of generations and returns its result (message ``"interrupted"``). Every stop of a run (the token,
        the callback, Ctrl-C, an exception of the fitness function) ends that run only, so runs in other
        Python threads go on.
    gpu_tensors
        What a Python function receives on the CUDA backend: ``"torch"`` (``torch.from_dlpack``),
        ``"cupy"`` (``cupy.from_dlpack``), ``"dlpack"`` (the :class:`DeviceView` itself, which has
        ``__dlpack__``) or any function of a :class:`DeviceView`. The tensor views the engine's memory
        through DLPack: the consumer's stream is ordered after the engine's writes (an event, no host
        wait), the answer is read on the engine's stream after the function's work, and neither is copied
        to the host. It is valid during the call only and must not be written: copy it (``x.clone()``) to
        keep it; a tensor of it kept past the call ends the run with ValueError. Compute under
        ``torch.no_grad()`` (tensors that require grad cannot be exported), on the engine's device.

    Raises
    ------
    ValueError
        Bad parameters, problem names, bounds or fitness values.
    RuntimeError
        Device and driver failures.
    KeyboardInterrupt
        Ctrl-C during the run (Python delivers it to the main thread, so it stops the main thread's run).
    """
    if history_every is None:
        history_every = _default_history_every(max_generations)
    wrapped = None
    if callback is not None:
        user = callback

        def wrapped(generation: int, evaluations: int, best: float, elapsed: float) -> Any:
            return user(Progress(generation, evaluations, best, elapsed))

    result = OptimizeResult(
        _minimize(
            fitness,
            None if bounds is None else [(float(lo), float(hi)) for lo, hi in bounds],
            algorithm,
            backend,
            seed,
            max_generations,
            max_evaluations,
            None if options is None else dict(options),
            wrapped,
            None if checkpoint is None else os.fspath(checkpoint),
            checkpoint_every,
            history_every,
            stop_token,
            gpu_tensors=_tensor_function(gpu_tensors, fitness, backend),
        )
    )
    result["success"] = True
    return result
