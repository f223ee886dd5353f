//! cuRAND's host API (`curandGenerateUniform`), for the benches that compare evo-rng's fill kernels with
//! NVIDIA's library on the same buffer in the same run. Loaded dynamically like the driver: on a machine
//! without libcurand, [`CurandGenerator::new`] returns an error, nothing crashes.

use cudarc::curand::{result, sys};
use cudarc::driver::DevicePtrMut;
use evo_core::{Error, Result};

use crate::{DeviceBuffer, Gpu};

/// Which cuRAND host generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurandKind {
    /// `CURAND_RNG_PSEUDO_XORWOW` (cuRAND's default).
    Xorwow,
    /// `CURAND_RNG_PSEUDO_PHILOX4_32_10`.
    Philox4x32_10,
}

impl CurandKind {
    fn raw(self) -> sys::curandRngType_t {
        match self {
            CurandKind::Xorwow => sys::curandRngType_t::CURAND_RNG_PSEUDO_XORWOW,
            CurandKind::Philox4x32_10 => sys::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10,
        }
    }
}

fn curand_error(call: &str, error: result::CurandError) -> Error {
    Error::Driver {
        call: call.to_string(),
        message: format!("{:?}", error.0),
    }
}

/// One cuRAND host generator on the main stream of one GPU.
pub struct CurandGenerator {
    raw: sys::curandGenerator_t,
    gpu: Gpu,
    kind: CurandKind,
}

impl CurandGenerator {
    /// A generator of `kind` seeded with `seed`, queued on `gpu`'s main stream.
    pub fn new(gpu: &Gpu, kind: CurandKind, seed: u64) -> Result<Self> {
        gpu.usable()?;
        let stream = gpu.main_stream().clone();
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| crate::driver_error::driver("cuCtxSetCurrent", e))?;
        if !curand_present() {
            return Err(Error::Driver {
                call: "load libcurand".into(),
                message: "libcurand was not found on the library path".into(),
            });
        }
        let raw = result::create_generator_kind(kind.raw())
            .map_err(|e| curand_error("curandCreateGenerator", e))?;
        let generator = Self {
            raw,
            gpu: gpu.clone(),
            kind,
        };
        // SAFETY: `raw` was just created and is destroyed only by Drop; the stream outlives the generator
        // because the generator holds a clone of the Gpu that owns it.
        unsafe {
            result::set_stream(raw, stream.cu_stream() as _)
                .map_err(|e| curand_error("curandSetStream", e))?;
            result::set_seed(raw, seed)
                .map_err(|e| curand_error("curandSetPseudoRandomGeneratorSeed", e))?;
        }
        Ok(generator)
    }

    /// Which generator this is.
    pub fn kind(&self) -> CurandKind {
        self.kind
    }

    /// Fills `out` with uniform f32 in (0, 1] (`curandGenerateUniform`), queued on the main stream.
    pub fn fill_uniform_f32(&self, out: &mut DeviceBuffer<f32>) -> Result<()> {
        self.gpu.usable()?;
        let stream = self.gpu.main_stream().clone();
        let n = out.len();
        let raw = out.raw_mut();
        let (pointer, _guard) = raw.device_ptr_mut(&stream);
        // SAFETY: the generator is live; `pointer` addresses at least n f32 (the buffer's slice holds
        // byte_len ≥ 4n bytes) and stays valid while `out` is mutably borrowed; the call is queued on the
        // stream the guard records.
        unsafe { result::UniformFill::fill(self.raw, pointer as *mut f32, n) }
            .map_err(|e| curand_error("curandGenerateUniform", e))
    }
}

impl Drop for CurandGenerator {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once here.
        let _ = unsafe { result::destroy_generator(self.raw) };
    }
}

/// Whether libcurand can be loaded.
pub fn curand_present() -> bool {
    static PRESENT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: `is_culib_present` only tries to dlopen the library's candidate names and closes them again.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}
