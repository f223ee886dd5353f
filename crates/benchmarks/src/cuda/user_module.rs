//! What every evaluator of a user's CUDA module needs, whatever the genome kind: the module's kernel under
//! each compile profile (compiled on first use, the Exact one up front so that a bad source fails where the
//! evaluator is built), the grid of a one-row-per-thread launch, the deferred report of a non-finite value
//! (the kernel records the lowest bad row in a status word; the engine reads it only when it checks), and the
//! problem's read-only data arrays (their prelude and device buffers).

use super::user_data::UserData;
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, Profile};

/// The status word when no row was bad.
const NO_ROW: u32 = u32::MAX;

/// The entry point of a user module under each profile used so far.
pub struct UserModuleKernels {
    gpu: Gpu,
    module: String,
    source: String,
    entry: &'static str,
    kernels: Vec<(Profile, Kernel)>,
}

impl UserModuleKernels {
    /// Compiles `source` as module `module` for `gpu` under the Exact profile and loads `entry`.
    ///
    /// # Errors
    /// [`Error::KernelCompile`] with NVRTC's log; [`Error::MissingEntryPoint`] when the module has no `entry`;
    /// GPU errors.
    pub fn new(gpu: &Gpu, module: String, source: String, entry: &'static str) -> Result<Self> {
        let exact = gpu.user_kernel(&module, &source, entry, Profile::Exact)?;
        Ok(Self {
            gpu: gpu.clone(),
            module,
            source,
            entry,
            kernels: vec![(Profile::Exact, exact)],
        })
    }

    /// The GPU the module is loaded on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The entry point under `profile`, compiled the first time that profile is asked for.
    ///
    /// # Errors
    /// As [`UserModuleKernels::new`].
    pub fn kernel(&mut self, profile: Profile) -> Result<Kernel> {
        if let Some((_, kernel)) = self.kernels.iter().find(|(p, _)| *p == profile) {
            return Ok(kernel.clone());
        }
        let kernel = self
            .gpu
            .user_kernel(&self.module, &self.source, self.entry, profile)?;
        self.kernels.push((profile, kernel.clone()));
        Ok(kernel)
    }
}

/// The blocks of `threads` threads that cover `rows` rows at one row per thread.
///
/// # Errors
/// [`Error::InvalidParameter`] on `what` (e.g. "individuals per evaluation") naming `problem` (of kind
/// `kind`, e.g. `UserBits`) when the grid would pass CUDA's limit of 2^31 − 1 blocks.
pub fn row_grid(
    kind: &'static str,
    what: &'static str,
    problem: &str,
    rows: usize,
    threads: u32,
) -> Result<u32> {
    u32::try_from(rows.div_ceil(threads as usize))
        .ok()
        .filter(|&g| g <= i32::MAX as u32)
        .ok_or_else(|| {
            Error::invalid_parameter(
                kind,
                what,
                format!("{rows} (problem `{problem}`)"),
                format!("below {}", (i32::MAX as u64) * u64::from(threads)),
            )
        })
}

/// The device side of the deferred non-finite check: `status[0]` holds the lowest bad row (or `u32::MAX`),
/// `bad[r]` the value found at row `r`.
pub struct NonFiniteWatch {
    status: DeviceBuffer<u32>,
    bad: DeviceBuffer<f64>,
}

impl NonFiniteWatch {
    /// A clear status word and room for one row.
    ///
    /// # Errors
    /// GPU errors.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(Self {
            status: gpu.upload(&[NO_ROW])?,
            bad: gpu.alloc_zeroed(1)?,
        })
    }

    /// The `(bad, status)` buffers a launch over `rows` rows writes, `bad` resized to `rows` when it is not.
    ///
    /// # Errors
    /// GPU errors.
    pub fn buffers(
        &mut self,
        gpu: &Gpu,
        rows: usize,
    ) -> Result<(&mut DeviceBuffer<f64>, &mut DeviceBuffer<u32>)> {
        if self.bad.len() != rows {
            self.bad = gpu.alloc_zeroed(rows)?;
        }
        Ok((&mut self.bad, &mut self.status))
    }

    /// Reads the status word (and, after a bad row, its value) and clears it.
    ///
    /// # Errors
    /// [`Error::NonFiniteFitness`] naming `problem`, the lowest bad row and its value; GPU errors.
    pub fn check(&mut self, problem: &str) -> Result<()> {
        let row = self.status.to_vec()?.first().copied().unwrap_or(NO_ROW);
        if row == NO_ROW {
            return Ok(());
        }
        let values = self.bad.to_vec()?;
        self.status.copy_from_host(&[NO_ROW])?;
        let individual = row as usize;
        Err(Error::NonFiniteFitness {
            problem: problem.to_string(),
            individual,
            value: values.get(individual).copied().unwrap_or(f64::NAN),
        })
    }
}

/// The prelude lines a whole-individual user module (bit strings, constrained) puts before its contract
/// header when the problem has data arrays: `EVO_USER_DATA`, which selects the contract's form with a
/// `const EvoUserData& data` parameter, and the declarations of [`UserData::cuda_declarations`]; nothing
/// without arrays.
pub fn user_data_prelude(data: &UserData) -> String {
    if data.arrays.is_empty() {
        return String::new();
    }
    format!("#define EVO_USER_DATA 1\n{}", data.cuda_declarations())
}

/// A user problem's data arrays on the device: the concatenated `f32` and `f64` buffers every user module's
/// kernel takes (one-value placeholders for a kind without arrays), uploaded once.
pub struct UserDataBuffers {
    /// The `f32` arrays, concatenated in order.
    pub data32: DeviceBuffer<f32>,
    /// The `f64` arrays, concatenated in order.
    pub data64: DeviceBuffer<f64>,
}

impl UserDataBuffers {
    /// Uploads `data` to `gpu`.
    ///
    /// # Errors
    /// GPU errors.
    pub fn upload(gpu: &Gpu, data: &UserData) -> Result<Self> {
        let (data32, data64) = data.concatenated();
        Ok(Self {
            data32: gpu.upload(&data32)?,
            data64: gpu.upload(&data64)?,
        })
    }
}
