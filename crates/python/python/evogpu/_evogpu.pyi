"""Type stubs of the Rust module evogpu._evogpu (the public API is re-exported by evogpu)."""

from typing import Any, Callable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

ALGORITHMS: str
"""The algorithm names minimize accepts, comma-separated."""

PROBLEMS: str
"""The built-in problem names minimize accepts."""

def _minimize(
    fitness: Any,
    bounds: Optional[Sequence[Tuple[float, float]]],
    algorithm_name: str,
    backend: str,
    seed: int,
    max_generations: Optional[int],
    max_evaluations: Optional[int],
    options: Optional[Mapping[str, Any]],
    callback: Optional[Callable[[int, int, float, float], Any]],
    checkpoint: Optional[str],
    checkpoint_every: int,
    history_every: int,
    stop_token: Optional[StopToken] = None,
    gpu_tensors: Optional[Callable[[DeviceView], Any]] = None,
) -> dict[str, Any]:
    """Runs one algorithm and returns the fields of evogpu.OptimizeResult."""

class StopToken:
    """Stops the runs it is passed to (``minimize(..., stop_token=token)``) after their current batch of
    generations, from any thread, and no other run.

    The result is returned as for any other stopping rule, with the message ``"interrupted"``. A stopped
    token stays stopped: a run started with it later stops before its first generation.
    """

    def __init__(self) -> None: ...
    def stop(self) -> None:
        """Asks the runs carrying this token to stop."""
    @property
    def stopped(self) -> bool:
        """Whether ``stop()`` was called."""

class DeAskTell:
    """DE driven one population at a time: ``ask()`` gives the population, ``tell(fitness)`` its fitness.

    The engine runs on a thread of its own and waits for each ``tell``. The first ``ask`` gives the initial
    population, every later one a generation's trial vectors.

    On the CPU backend (``backend="auto"`` or ``"cpu"``) ``ask`` gives a float64 NumPy array, and the same
    seed and fitness give the same populations as ``minimize`` with a Python fitness function. On the CUDA
    backend (``"cuda"`` or ``"cuda:N"``) ``ask`` gives a :class:`DeviceView` of the engine's own float32
    device buffer (``torch.from_dlpack(view)`` or ``cupy.from_dlpack(view)`` views it without a copy, its
    stream ordered after the engine's), valid until the next ``tell``; ``tell`` takes a CUDA tensor on the
    engine's device (float64, or float32 widened on the device; read on the engine's stream, not checked
    for NaN) or host values. The same seed and fitness give the CPU backend's populations and best, bit
    for bit. ``"auto"`` stays on the CPU, as for a Python fitness function in ``minimize``; a CUDA backend
    this machine lacks raises RuntimeError here.
    """

    def __init__(
        self,
        bounds: Sequence[Tuple[float, float]],
        seed: int = 0,
        options: Optional[Mapping[str, Any]] = None,
        threads: int = 0,
        backend: str = "auto",
    ) -> None: ...
    def ask(self) -> Union[npt.NDArray[np.float64], DeviceView]:
        """The next population, shape (population_size, dimension): a float64 array on the CPU backend, a
        DeviceView of the engine's device buffer on the CUDA backend (valid until the next ``tell``);
        raises ValueError when the last one was not told, and the engine's error when it stopped."""
    def tell(self, fitness: Any) -> None:
        """The fitness of the last asked population, population_size values, one per row: finite host
        values (a sequence, a NumPy array) or, on the CUDA backend, a CUDA tensor of shape (n,) or (n, 1)
        on the engine's device (anything with ``__dlpack__``)."""
    @property
    def x(self) -> Optional[npt.NDArray[np.float64]]:
        """The best point told so far, or None before the first tell."""
    @property
    def fun(self) -> Optional[float]:
        """The best fitness told so far, or None before the first tell."""
    @property
    def best(self) -> Optional[Tuple[npt.NDArray[np.float64], float]]:
        """``(x, fun)`` of the best point told so far, or None before the first tell (on the CUDA backend
        kept on the device and read here)."""
    @property
    def generation(self) -> int:
        """Generations completed (0 once the initial population is told)."""
    @property
    def evaluations(self) -> int:
        """Fitness values told so far."""
    @property
    def population_size(self) -> int:
        """The rows of every asked population."""
    @property
    def backend(self) -> str:
        """The backend the engine runs on: "cpu" or "cuda:N"."""

class GaAskTell:
    """The binary GA driven one population at a time: ``ask()`` gives bit strings, ``tell(fitness)`` their
    fitness (to minimise).

    The first ``ask`` gives the whole initial population, every later one the offspring a generation
    evaluates (population - elite rows, the elite being carried over). The CPU engine runs on a thread of
    its own and waits for each ``tell``.
    """

    def __init__(
        self,
        bits: int,
        seed: int = 0,
        options: Optional[Mapping[str, Any]] = None,
        threads: int = 0,
    ) -> None: ...
    def ask(self) -> npt.NDArray[np.bool_]:
        """The next bit strings, shape (rows, bits); raises ValueError when the last ones were not told,
        and the engine's error when it stopped."""
    def tell(self, fitness: Sequence[float] | npt.NDArray[np.float64]) -> None:
        """The fitness of the last asked strings: one finite value per row."""
    @property
    def x(self) -> Optional[npt.NDArray[np.bool_]]:
        """The best string told so far, or None before the first tell."""
    @property
    def fun(self) -> Optional[float]:
        """The best fitness told so far, or None before the first tell."""
    @property
    def best(self) -> Optional[Tuple[npt.NDArray[np.bool_], float]]:
        """``(x, fun)`` of the best string told so far, or None before the first tell."""
    @property
    def generation(self) -> int:
        """Generations completed (0 once the initial population is told)."""
    @property
    def evaluations(self) -> int:
        """Fitness values told so far."""
    @property
    def bits(self) -> int:
        """The bits of every string."""

class DpgaAskTell:
    """DPGA driven one batch at a time: ``ask()`` gives the distinct points DPGA needs evaluated next,
    ``tell(objective, constraints)`` their objective (to minimise) and constraint values.

    The first asks give the initial candidates (one batch of ``main_size``, or several while the feasible
    initialisation draws); then each generation asks its main offspring, then its crossbred children
    (bred from the best offspring), a point repeated within a generation asked once. ``constraints`` has
    shape (n, inequalities + equalities): ``g_i(x) <= 0`` first, then ``h_j(x) = 0`` (held within
    ``equality_tolerance``). The same seed and values give the same run as the Rust API's ``DpgaCpu`` and
    ``minimize(algorithm="dpga")``. ``options`` are ``minimize``'s DPGA options. The engine runs on one
    thread and replays the batches told before each new one, so an initialisation that draws many batches
    (a tiny feasible region, up to its 50 000 draws) costs time quadratic in their number;
    ``options={"initialisation": "random"}`` draws one batch.
    """

    def __init__(
        self,
        bounds: Sequence[Tuple[float, float]],
        inequalities: int = 0,
        equalities: int = 0,
        seed: int = 0,
        options: Optional[Mapping[str, Any]] = None,
        equality_tolerance: float = 1e-4,
    ) -> None: ...
    def ask(self) -> npt.NDArray[np.float64]:
        """The next points, shape (n, dimension); raises ValueError when the last ones were not told."""
    def tell(
        self,
        objective: Sequence[float] | npt.NDArray[np.float64],
        constraints: Optional[npt.ArrayLike] = None,
    ) -> None:
        """The last asked points' objective (n finite values) and constraint values (finite, shape
        (n, inequalities + equalities); None without constraints)."""
    @property
    def x(self) -> Optional[npt.NDArray[np.float64]]:
        """The best point so far, or None before the initial population is complete."""
    @property
    def fun(self) -> Optional[float]:
        """The best point's objective when it is feasible, inf until a feasible point is found; None before
        the initial population is complete."""
    @property
    def best(self) -> Optional[Tuple[npt.NDArray[np.float64], float]]:
        """``(x, fun)``, or None before the initial population is complete."""
    @property
    def generation(self) -> int:
        """Generations completed."""
    @property
    def evaluations(self) -> int:
        """DPGA's evaluation count of the completed generations (repeats included), as minimize's nfev."""
    @property
    def dimension(self) -> int:
        """The number of variables."""

class QigaAskTell:
    """QIGA driven one generation at a time: ``ask()`` observes the quantum population into bit strings,
    ``tell(fitness)`` takes their fitness, to minimise, then QIGA rotates towards the best string.

    ``tell(fitness, repaired)`` also takes the strings evaluated in place of the observed ones (a repair),
    which QIGA keeps: repairing each string as the knapsack engine does and telling minus its profit gives
    ``minimize(algorithm="qiga")``'s run on that knapsack, bit for bit. ``options`` are ``minimize``'s QIGA
    options (``generations`` is not used: you decide when to stop).
    """

    def __init__(self, bits: int, seed: int = 0, options: Optional[Mapping[str, Any]] = None) -> None: ...
    def ask(self) -> npt.NDArray[np.bool_]:
        """The next bit strings, shape (population_size, bits) (``.view(numpy.uint8)`` gives 0/1 bytes);
        raises ValueError when the last ones were not told."""
    def tell(
        self,
        fitness: Sequence[float] | npt.NDArray[np.float64],
        repaired: Optional[npt.ArrayLike] = None,
    ) -> None:
        """The fitness of the last asked strings (finite, one per row) and, optionally, the strings
        evaluated in their place, shape (population_size, bits)."""
    @property
    def x(self) -> Optional[npt.NDArray[np.bool_]]:
        """The best string told so far, or None before the first tell."""
    @property
    def fun(self) -> Optional[float]:
        """The best fitness told so far, or None before the first tell."""
    @property
    def best(self) -> Optional[Tuple[npt.NDArray[np.bool_], float]]:
        """``(x, fun)`` of the best string told so far, or None before the first tell."""
    @property
    def generation(self) -> int:
        """Generations completed (0 once the initial population is told)."""
    @property
    def evaluations(self) -> int:
        """Fitness values told so far."""
    @property
    def bits(self) -> int:
        """The bits of every string."""
    @property
    def population_size(self) -> int:
        """The rows of every asked population."""

class SgaAskTell:
    """The SGA baseline driven one population at a time: ``ask()`` gives bit strings, ``tell(fitness)`` their
    fitness, to minimise and at most 0 (roulette selection draws in proportion to ``-fitness``).

    ``tell(fitness, repaired)`` also takes the strings evaluated in place of the asked ones (a repair),
    which the SGA keeps: repairing each string as the knapsack engine does and telling minus its profit
    gives ``minimize(algorithm="sga")``'s run on that knapsack, bit for bit. ``options`` are
    ``minimize``'s SGA options (``generations`` is not used: you decide when to stop).
    """

    def __init__(self, bits: int, seed: int = 0, options: Optional[Mapping[str, Any]] = None) -> None: ...
    def ask(self) -> npt.NDArray[np.bool_]:
        """The next bit strings, shape (population_size, bits) (``.view(numpy.uint8)`` gives 0/1 bytes);
        raises ValueError when the last ones were not told."""
    def tell(
        self,
        fitness: Sequence[float] | npt.NDArray[np.float64],
        repaired: Optional[npt.ArrayLike] = None,
    ) -> None:
        """The fitness of the last asked strings (finite, at most 0, one per row) and, optionally, the
        strings evaluated in their place, shape (population_size, bits)."""
    @property
    def x(self) -> Optional[npt.NDArray[np.bool_]]:
        """The best string told so far, or None before the first tell."""
    @property
    def fun(self) -> Optional[float]:
        """The best fitness told so far, or None before the first tell."""
    @property
    def best(self) -> Optional[Tuple[npt.NDArray[np.bool_], float]]:
        """``(x, fun)`` of the best string told so far, or None before the first tell."""
    @property
    def generation(self) -> int:
        """Generations completed (0 once the initial population is told)."""
    @property
    def evaluations(self) -> int:
        """Fitness values told so far."""
    @property
    def bits(self) -> int:
        """The bits of every string."""
    @property
    def population_size(self) -> int:
        """The rows of every asked population."""

class DeviceView:
    """A row-major float32 matrix of memory the engine owns, exported without a copy through DLPack
    (``torch.from_dlpack(view)``, ``cupy.from_dlpack(view)``, ``numpy.from_dlpack(view)`` for host views).

    ``__dlpack__(stream=s)`` orders the consumer's CUDA stream ``s`` after the engine's writes. A view of
    the engine's population is valid while the engine waits for its fitness (one fitness call, or from
    ``DeAskTell.ask`` to the next ``tell``): later exports raise BufferError.
    """

    def __dlpack__(
        self,
        *,
        stream: Optional[int] = None,
        max_version: Optional[Tuple[int, int]] = None,
        dl_device: Optional[Tuple[int, int]] = None,
        copy: Optional[bool] = None,
    ) -> Any:
        """A DLPack capsule ("dltensor", or "dltensor_versioned" when max_version >= (1, 0))."""
    def __dlpack_device__(self) -> Tuple[int, int]:
        """(2, ordinal) for CUDA memory, (1, 0) for the host."""
    @property
    def shape(self) -> Tuple[int, int]:
        """(rows, columns)."""
    @property
    def data_ptr(self) -> int:
        """The address of the first value (the engine's device buffer on the CUDA backend)."""
    @property
    def dtype(self) -> str:
        """Always "float32"."""
    @property
    def exports(self) -> int:
        """Capsules and tensors made of this view that are alive now."""

def _host_view(values: Sequence[Sequence[float]]) -> DeviceView:
    """A host DeviceView owning a float32 copy of ``values`` (tests of the DLPack protocol)."""

def _read_dlpack(array: Any, n: int) -> list[float]:
    """The n values of a host vector read through DLPack (an object with __dlpack__, or a capsule)."""

class CompileError(RuntimeError):
    """NVRTC rejected a UserProblem's CUDA source; ``log`` holds NVRTC's log (the user's file is
    ``user_<name>.cu``, its lines numbered from 1)."""

    log: str

class UserProblem:
    """A real-vector problem written as CUDA source, for ``minimize`` (DE, MA-SW-Chains).

    The source defines ``__device__ void evo_user_terms(unsigned long long i, const float* x,
    unsigned long long d, const EvoUserData& data, double* t)`` writing term ``i`` of row ``x`` (``sums``
    values ``t[0..sums)``); the fitness is the canonical pairwise sum of the terms, or, with ``sums=K``,
    ``__device__ double evo_user_combine(const double* sums, unsigned long long d, const EvoUserData& data)``
    of the K sums. ``common/math.cuh``'s ``evo_sin_f64``, ``evo_cos_f64``, ``evo_exp_f64``, ``evo_log_f64``
    and ``evo_pow_f64`` are available. ``data={name: array}`` arrays (flattened row-major; float32 arrays
    stay ``float``, others become ``double``) are read as ``data.<name>`` and ``data.<name>_len``.

    ``terms``: ``"dimension"`` (default, one per coordinate), ``"dimension-<k>"`` (terms that read
    ``x[i..=i+k]``) or a number of terms (a data set's points). ``twin``: a function of the population
    (float64 array (n, D) -> n values) that evaluates the problem on the CPU backend; without it a CPU run
    raises ValueError. Where NVRTC is installed the source is compiled when the problem is made, and a
    mistake raises :class:`CompileError`.
    """

    def __init__(
        self,
        source: str,
        bounds: Sequence[Tuple[float, float]],
        terms: Union[str, int, None] = None,
        sums: Optional[int] = None,
        data: Optional[Mapping[str, Any]] = None,
        name: str = "problem",
        twin: Optional[Callable[[npt.NDArray[np.float64]], Any]] = None,
    ) -> None: ...
    def check_compiles(self, arch: str = "sm_80") -> None:
        """Compiles the source with NVRTC for ``arch`` (no GPU needed); raises CompileError."""
    @property
    def name(self) -> str: ...
    @property
    def dimension(self) -> int: ...
    @property
    def terms(self) -> int:
        """Terms per row."""
    @property
    def has_twin(self) -> bool: ...
    @property
    def module_source(self) -> str:
        """The whole module NVRTC compiles (prelude, the user's source from its line 1, kernels)."""
