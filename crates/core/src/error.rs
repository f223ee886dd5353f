//! The one error type of evo-gpu.
//!
//! Every variant carries the facts a user needs to act: which parameter, what value, what is allowed; how many
//! bytes were asked for and how many are free; which kernel failed to compile and NVRTC's log. GPU errors are
//! variants of this same enum (raised by `evo-gpu-runtime`), so a user matches on one type whatever the
//! backend.

use std::path::PathBuf;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in evo-gpu.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter is outside the range its algorithm allows.
    #[error("{algorithm}: {name} must be {allowed}, got {value}")]
    InvalidParameter {
        /// The algorithm or component that validated it ("DE", "Executor", ...).
        algorithm: &'static str,
        /// The parameter's name as the docs spell it ("crossover rate CR").
        name: &'static str,
        /// The rejected value, as written by `Display`.
        value: String,
        /// The allowed range or set ("in [0, 1]").
        allowed: String,
    },

    /// A CUDA backend was asked for, but this machine has no usable driver or device.
    #[error("no CUDA device is available: {reason}")]
    NoGpu {
        /// Why: no driver library was found, the driver reported zero devices, or the driver failed to start.
        reason: String,
    },

    /// A device index that does not exist.
    #[error(
        "CUDA device {index} does not exist: this machine has {count} device(s) (valid indices: {valid})"
    )]
    NoSuchDevice {
        /// The index asked for.
        index: usize,
        /// How many devices the driver reports.
        count: usize,
        /// The valid range, written out ("0..=1", or "none").
        valid: String,
    },

    /// A CUDA backend was asked for a problem that the algorithm's CUDA engine cannot evaluate on the device.
    #[error(
        "{algorithm}: problem `{problem}` has no device evaluation, so it cannot run on the CUDA backend; to run it on the GPU, {remedy}; otherwise choose the CPU backend"
    )]
    NoDeviceEvaluation {
        /// The algorithm whose CUDA engine was asked for ("evo_dpga::Run").
        algorithm: &'static str,
        /// The problem's name.
        problem: String,
        /// What would give the problem a device evaluation ("implement
        /// `evo_benchmarks::cuda::DeviceBitProblem`", or the built-in problem type to use).
        remedy: &'static str,
    },

    /// A problem that has only a device evaluation (CUDA source without a Rust twin) was to run on the CPU:
    /// a CPU backend was asked for, or `Backend::Auto` found no CUDA device.
    #[error(
        "problem `{problem}` has only a device evaluation, so it cannot run on {backend}; {remedy}"
    )]
    NoHostEvaluation {
        /// The problem's name.
        problem: String,
        /// The CPU backend and how it was chosen ("cpu:2, as asked", "the CPU, which Backend::Auto took
        /// because there is no CUDA device (…)").
        backend: String,
        /// What would let it run: a CUDA device, or a CPU twin through the Rust API.
        remedy: &'static str,
    },

    /// A device allocation larger than what the GPU has free.
    #[error(
        "GPU {device} is out of memory: asked for {requested} bytes ({requested_mib:.1} MiB), {free} bytes ({free_mib:.1} MiB) free of {total} bytes",
        requested_mib = *requested as f64 / 1048576.0,
        free_mib = *free as f64 / 1048576.0
    )]
    GpuOutOfMemory {
        /// The device index.
        device: usize,
        /// Bytes requested by the allocation that failed.
        requested: u64,
        /// Bytes free on the device when it failed.
        free: u64,
        /// Total bytes of device memory.
        total: u64,
    },

    /// NVRTC rejected a kernel module.
    #[error(
        "kernel module `{kernel}` failed to compile for {arch} with options [{options}]:\n{log}"
    )]
    KernelCompile {
        /// The module id (or the name of a user-supplied source).
        kernel: String,
        /// The target architecture (`sm_90`).
        arch: String,
        /// The NVRTC options, space separated.
        options: String,
        /// NVRTC's log, verbatim.
        log: String,
    },

    /// A kernel's entry point is missing from its compiled module.
    #[error("kernel module `{module}` has no entry point `{function}`")]
    MissingEntryPoint {
        /// The module id.
        module: String,
        /// The missing function name.
        function: String,
    },

    /// A kernel launch (or the work it queued) failed on the device.
    #[error("kernel `{kernel}` failed: {message}")]
    KernelLaunch {
        /// The entry point's name.
        kernel: String,
        /// The driver's description.
        message: String,
    },

    /// A launch's arguments do not match the kernel's parameter list as the driver reports it: the launch is
    /// refused before it reaches the driver, which would otherwise read past the argument array.
    #[error(
        "kernel `{kernel}` takes {expected}, but the launch passed {given}; push one argument per kernel \
         parameter in order: each buffer is one 8-byte pointer, and the scalars go in ONE #[repr(C)] struct \
         passed by value through `.params(&p)`, which the kernel declares as one struct parameter of the \
         same size"
    )]
    KernelArguments {
        /// The entry point's name.
        kernel: String,
        /// The kernel's parameters: their count and sizes in bytes.
        expected: String,
        /// The launch's arguments: their count, kinds and sizes in bytes.
        given: String,
    },

    /// A sticky fault (an illegal address, a misaligned access, a trap, ...) left the device's context
    /// unusable: every later call on this device fails fast with this same error until the device is
    /// reopened (`evo_gpu_runtime::Gpu::reopen`).
    #[error(
        "GPU {device} is poisoned: a sticky fault ({fault}) after kernel `{kernel}`, surfaced in `{call}`; every later call on this device fails with this error: drop every handle of the device and call Gpu::reopen({device})"
    )]
    DevicePoisoned {
        /// The device index.
        device: usize,
        /// The last kernel launched on the stream where the fault surfaced (the device's last launch when
        /// that stream launched none): the kernel that faulted, unless another ran after it there.
        kernel: String,
        /// The driver's code and description ("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access ...").
        fault: String,
        /// The call that reported the fault (`cuMemcpyDtoH`, `cuStreamSynchronize`, a launch).
        call: String,
    },

    /// A poisoned device could not be reopened: the driver refuses every new context on it for the rest of
    /// the process (what NVIDIA documents for sticky faults), so only a new process can use it.
    #[error(
        "GPU {device} cannot be used again in this process: kernel `{kernel}` faulted ({fault}) and the driver refuses a new context on the device ({reason}); run the work again in a new process"
    )]
    DeviceLost {
        /// The device index.
        device: usize,
        /// The kernel named by the fault that poisoned the device.
        kernel: String,
        /// The driver's code and description of that fault.
        fault: String,
        /// What the driver answered to the reopening.
        reason: String,
    },

    /// A shared library that a requested feature loads at run time was not found under any name the loader
    /// tries (NCCL for the collectives over several GPUs): the feature is refused, nothing crashes.
    #[error(
        "{feature} needs the {library} library, which was not found (searched for {searched}); {remedy}"
    )]
    LibraryNotFound {
        /// What was asked for ("NCCL communicator over GPUs 0, 1").
        feature: String,
        /// The library's name ("NCCL").
        library: &'static str,
        /// The file names tried, in order, and where a near match was seen.
        searched: String,
        /// How to make it found (the package to install, the symbolic link to create, the variable to set).
        remedy: String,
    },

    /// Any other CUDA driver or NVRTC call failed.
    #[error("CUDA call `{call}` failed: {message}")]
    Driver {
        /// What was being done (`cuMemcpyHtoD`, `load PTX of module reduce`).
        call: String,
        /// The driver's description.
        message: String,
    },

    /// A problem returned NaN or an infinity where a finite fitness is required.
    #[error("problem `{problem}` returned a non-finite value {value} for individual {individual}")]
    NonFiniteFitness {
        /// The problem's name.
        problem: String,
        /// The index of the individual in the population.
        individual: usize,
        /// The value returned.
        value: f64,
    },

    /// A problem's own code (its `evaluate`) panicked; the engine caught the panic at the boundary of the
    /// batched evaluation ([`catch_problem_panic`](crate::catch_problem_panic)).
    #[error("problem `{problem}` panicked while evaluating: {message}")]
    ProblemPanicked {
        /// The problem's name.
        problem: String,
        /// The panic's message (the text given to `panic!`).
        message: String,
    },

    /// An input file could not be parsed.
    #[error("{path}:{line}: expected {expected}, found {found}", path = path.display())]
    BadInputFile {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What the parser expected there.
        expected: String,
        /// What it found instead.
        found: String,
    },

    /// A checkpoint could not be used to resume.
    #[error("checkpoint {path} cannot be used: {reason}", path = path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// Why (wrong format version, written by another algorithm, corrupted JSON, ...).
        reason: String,
    },

    /// A checkpoint belongs to another run: a field of its fingerprint differs from the resuming run's.
    #[error(
        "checkpoint {path} belongs to another run: {field}: checkpoint {checkpoint}, this run {this_run}",
        path = path.display()
    )]
    RunMismatch {
        /// The checkpoint file.
        path: PathBuf,
        /// The field that differs: `seed`, `problem` or ``parameter `name` ``.
        field: String,
        /// The checkpoint's value.
        checkpoint: String,
        /// The resuming run's value.
        this_run: String,
    },

    /// A snapshot holds a value no run of the algorithm can reach (a rate out of its range, a gene outside the
    /// bounds, a non-finite fitness, an impossible counter).
    #[error("{algorithm}: snapshot field `{field}` is {value}, allowed {allowed}")]
    InvalidSnapshot {
        /// The algorithm whose engine refused it.
        algorithm: &'static str,
        /// The field, with an index where it is an element (`crossover_rates[3]`).
        field: String,
        /// The refused value.
        value: String,
        /// What is allowed there.
        allowed: String,
    },

    /// Another executor (in this process or another) owns a checkpoint path.
    #[error(
        "checkpoint {path} is in use by another run (its lock file {lock} is held); wait for it to end or use another path",
        path = path.display(),
        lock = lock.display()
    )]
    CheckpointLocked {
        /// The checkpoint file.
        path: PathBuf,
        /// The lock file next to it.
        lock: PathBuf,
    },

    /// The CPU backend's rayon thread pool could not be started.
    #[error("cannot start a CPU thread pool of {threads} thread(s) (0 = all cores): {reason}")]
    ThreadPool {
        /// The number of threads asked for (0 means one per core).
        threads: usize,
        /// Rayon's description of the failure.
        reason: String,
    },

    /// A value could not be written as (or read from) JSON.
    #[error("cannot serialize {what} as JSON: {reason}")]
    Serialization {
        /// What was being written ("report of DE", "checkpoint").
        what: String,
        /// serde_json's description of the failure.
        reason: String,
    },

    /// Another process of a run spread over several ranks (MPI) failed an exchange: it sent nothing before
    /// the deadline (it died or hangs), or it sent a message this rank cannot use (another generation or
    /// exchange, so the ranks are out of step). The run's last checkpoint resumes it.
    #[error("rank {rank} failed during the {exchange}: {reason}")]
    RankFailed {
        /// The rank (process index in the communicator) that failed.
        rank: usize,
        /// The exchange that was under way ("migration after generation 20").
        exchange: String,
        /// What went wrong and what to do ("no message within 5 s: the process died or hangs; resume the
        /// run from its last checkpoint").
        reason: String,
    },

    /// Input and output errors, with the path involved.
    #[error("I/O error on {path}: {source}", path = path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Builds [`Error::InvalidParameter`]; `value` and `allowed` are written with `Display`.
    pub fn invalid_parameter(
        algorithm: &'static str,
        name: &'static str,
        value: impl std::fmt::Display,
        allowed: impl std::fmt::Display,
    ) -> Self {
        Self::InvalidParameter {
            algorithm,
            name,
            value: value.to_string(),
            allowed: allowed.to_string(),
        }
    }

    /// Builds [`Error::InvalidSnapshot`]; `value` and `allowed` are written with `Display`.
    pub fn invalid_snapshot(
        algorithm: &'static str,
        field: impl Into<String>,
        value: impl std::fmt::Display,
        allowed: impl std::fmt::Display,
    ) -> Self {
        Self::InvalidSnapshot {
            algorithm,
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.to_string(),
        }
    }

    /// Builds [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}
