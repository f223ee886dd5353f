//! The per-device module cache: each (module, profile) is compiled (or read from the PTX cache) and loaded
//! once per device, then its functions are looked up by name.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use evo_core::{Error, Result};
use evo_kernels::ModuleId;

use crate::Gpu;
use crate::arguments;
use crate::binary_cache;
use crate::cache_entry;
use crate::nvrtc::Profile;
use crate::ptx_cache::{CompiledPtx, cached_ptx, cached_ptx_in, ptx_cache_dir, ptx_entry_path};

/// Which source a loaded module came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Source {
    /// A module of the `evo-kernels` registry.
    Registry(ModuleId),
    /// A user-supplied source, by name and text.
    User { name: String, text: String },
}

/// Modules loaded on one device.
#[derive(Default)]
pub(crate) struct ModuleCache {
    loaded: Mutex<HashMap<(Source, Profile), Arc<CudaModule>>>,
    /// The dynamic shared memory each function has been allowed so far, by its `CUfunction` handle (the
    /// attribute belongs to the function, which every thread's [`Kernel`] of it shares).
    dynamic_shared: Mutex<HashMap<usize, u32>>,
    /// The parameter sizes each function declares (`None`: the driver cannot tell), by its `CUfunction`
    /// handle: read from the driver once, because engines look their kernels up before every launch.
    parameters: Mutex<HashMap<usize, Option<Arc<[usize]>>>>,
}

/// How a module became ready on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleOrigin {
    /// Already loaded on this device by this process.
    Loaded,
    /// The device binary read from the on-disk cache and loaded: neither NVRTC nor the driver's JIT ran.
    BinaryCache,
    /// PTX read from the on-disk cache, then JIT-compiled by the driver (its binary is cached for next time).
    DiskCache,
    /// Compiled by NVRTC now, then loaded (and stored in the disk cache).
    Compiled,
}

/// One entry point of a loaded module, ready to launch (see [`crate::Launch`]).
#[derive(Clone)]
pub struct Kernel {
    pub(crate) name: Arc<str>,
    pub(crate) function: CudaFunction,
    pub(crate) gpu: Gpu,
    /// The sizes in bytes of the kernel's parameters, in order, which every launch's arguments must match;
    /// `None` where the driver predates `cuFuncGetParamInfo` (CUDA 12.4) and launches go unchecked.
    pub(crate) parameters: Option<Arc<[usize]>>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("device", &self.gpu.index())
            .finish()
    }
}

impl Kernel {
    /// The entry point's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device the kernel is loaded on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The sizes in bytes of the kernel's parameters, in order, as the driver reports them: 8 for a pointer,
    /// the struct's `sizeof` for a struct passed by value. Every [`Launch`](crate::Launch) of the kernel is
    /// checked against them. `None` where the driver predates `cuFuncGetParamInfo` (CUDA 12.4): the list is
    /// unknown and launches are not checked.
    pub fn parameter_sizes(&self) -> Option<&[usize]> {
        self.parameters.as_deref()
    }

    /// The most threads a block of this kernel may have on its device, given the registers it uses
    /// (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`).
    ///
    /// # Errors
    /// [`Error::Driver`](evo_core::Error::Driver) when the driver cannot be queried.
    pub fn max_threads_per_block(&self) -> evo_core::Result<u32> {
        self.attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            "the largest block",
        )
    }

    /// The function attribute `attribute` (`what` names it in the error).
    fn attribute(
        &self,
        attribute: cudarc::driver::sys::CUfunction_attribute,
        what: &str,
    ) -> evo_core::Result<u32> {
        self.gpu.usable()?;
        let value = self
            .function
            .get_attribute(attribute)
            .map_err(|e| crate::driver_error::driver(format!("read {what} of {}", self.name), e))?;
        Ok(u32::try_from(value).unwrap_or(0))
    }

    /// Lets launches of this kernel ask for up to `bytes` of dynamic shared memory per block
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`): above 48 KiB the driver refuses a launch unless the
    /// kernel has opted in. `bytes` must not exceed [`Gpu::max_shared_bytes_per_block`].
    ///
    /// The limit only ever rises: the attribute belongs to the function, shared by every thread that launches
    /// it, so lowering it for a small launch would fail another thread's larger launch between its own call
    /// and its launch (`CUDA_ERROR_INVALID_VALUE`). A call with `bytes` at or below the function's current
    /// limit changes nothing.
    ///
    /// # Errors
    /// [`Error::Driver`](evo_core::Error::Driver) when the driver refuses the value.
    pub fn allow_dynamic_shared_bytes(&self, bytes: u32) -> evo_core::Result<()> {
        self.gpu.usable()?;
        let key = self.function.cu_function() as usize;
        let mut allowed = self
            .gpu
            .inner
            .modules
            .dynamic_shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if allowed.get(&key).is_some_and(|&current| current >= bytes) {
            return Ok(());
        }
        let value = i32::try_from(bytes).unwrap_or(i32::MAX);
        // cuFuncSetAttribute needs the function's context current on this thread.
        self.gpu
            .inner
            .context
            .bind_to_thread()
            .map_err(|e| crate::driver_error::driver("bind the context to this thread", e))?;
        self.function
            .set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                value,
            )
            .map_err(|e| {
                crate::driver_error::driver(
                    format!("allow {bytes} bytes of dynamic shared memory for {}", self.name),
                    e,
                )
            })?;
        allowed.insert(key, bytes);
        Ok(())
    }

    /// The dynamic shared memory per block that launches of this kernel may ask for, in bytes
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`; see
    /// [`allow_dynamic_shared_bytes`](Self::allow_dynamic_shared_bytes)).
    ///
    /// # Errors
    /// [`Error::Driver`](evo_core::Error::Driver) when the driver cannot be queried.
    pub fn dynamic_shared_bytes_allowed(&self) -> evo_core::Result<u32> {
        self.attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            "the dynamic shared memory allowed",
        )
    }
}

impl Gpu {
    /// Compiles (or reads from the PTX cache) and loads `module` under `profile` if it is not loaded yet.
    pub fn load_module(&self, module: ModuleId, profile: Profile) -> Result<ModuleOrigin> {
        self.module(Source::Registry(module), profile)
            .map(|(_, origin)| origin)
    }

    /// Compiles (or reads from the disk caches) and loads the user-supplied source `source` named `name` under
    /// `profile` if it is not loaded yet; says where it came from.
    pub fn load_user_module(
        &self,
        name: &str,
        source: &str,
        profile: Profile,
    ) -> Result<ModuleOrigin> {
        let key = Source::User {
            name: name.to_string(),
            text: source.to_string(),
        };
        self.module(key, profile).map(|(_, origin)| origin)
    }

    /// The entry point `entry` of registry module `module`, compiled under `profile` for this device.
    ///
    /// Errors: [`Error::MissingEntryPoint`] when the registry does not list `entry` for `module` or the
    /// compiled module lacks it; [`Error::KernelCompile`] with NVRTC's log when the module does not compile;
    /// [`Error::Driver`] when the driver cannot report the parameter list, which every launch of the kernel
    /// is checked against as for [`Gpu::user_kernel`].
    pub fn kernel(&self, module: ModuleId, entry: &str, profile: Profile) -> Result<Kernel> {
        if !module.module().entry_points.contains(&entry) {
            return Err(Error::MissingEntryPoint {
                module: module.name().to_string(),
                function: entry.to_string(),
            });
        }
        let (loaded, _) = self.module(Source::Registry(module), profile)?;
        self.function(&loaded, module.name(), entry)
    }

    /// The entry point `entry` of a user-supplied CUDA source named `name`, compiled under `profile` with
    /// the workspace's headers available to `#include`. Compile errors carry NVRTC's log.
    ///
    /// The kernel's parameter list is read from the driver here, and every launch of the kernel must match
    /// it: one [`Launch::input`](crate::Launch::input) or [`Launch::output`](crate::Launch::output) per
    /// pointer parameter, and the scalars together in ONE `#[repr(C)]` struct that the kernel declares as one
    /// parameter passed by value and the launch passes through [`Launch::params`](crate::Launch::params), of
    /// the same size on both sides (a kernel declaring `unsigned long long n, unsigned long long d` takes two
    /// 8-byte parameters, not one 16-byte struct). A launch that does not match is refused with
    /// [`Error::KernelArguments`] before it reaches the driver, which would read past the arguments (a
    /// segfault). Where the driver predates `cuFuncGetParamInfo` (CUDA 12.4), the list is unknown and
    /// launches are not checked ([`Kernel::parameter_sizes`] is `None`).
    ///
    /// Errors: [`Error::MissingEntryPoint`] when the source has no such entry point (declare it
    /// `extern "C"`); [`Error::KernelCompile`] with NVRTC's log when the source does not compile;
    /// [`Error::Driver`] when the driver cannot report the parameter list.
    pub fn user_kernel(
        &self,
        name: &str,
        source: &str,
        entry: &str,
        profile: Profile,
    ) -> Result<Kernel> {
        let key = Source::User {
            name: name.to_string(),
            text: source.to_string(),
        };
        let (loaded, _) = self.module(key, profile)?;
        self.function(&loaded, name, entry)
    }

    fn function(&self, module: &Arc<CudaModule>, module_name: &str, entry: &str) -> Result<Kernel> {
        let function = module
            .load_function(entry)
            .map_err(|_| Error::MissingEntryPoint {
                module: module_name.to_string(),
                function: entry.to_string(),
            })?;
        let parameters = self.parameters(&function, entry)?;
        Ok(Kernel {
            name: Arc::from(entry),
            function,
            gpu: self.clone(),
            parameters,
        })
    }

    /// The parameter sizes of `function` (entry point `entry`), read from the driver on its first lookup.
    fn parameters(&self, function: &CudaFunction, entry: &str) -> Result<Option<Arc<[usize]>>> {
        let mut known = self
            .inner
            .modules
            .parameters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = function.cu_function() as usize;
        if let Some(sizes) = known.get(&key) {
            return Ok(sizes.clone());
        }
        // cuFuncGetParamInfo needs the function's context current on this thread.
        self.inner
            .context
            .bind_to_thread()
            .map_err(|e| self.driver_failed("cuCtxSetCurrent", e, None))?;
        let sizes = arguments::parameter_sizes(function).map_err(|e| {
            self.driver_failed(format!("read the parameter list of `{entry}`"), e, None)
        })?;
        known.insert(key, sizes.clone());
        Ok(sizes)
    }

    fn module(&self, source: Source, profile: Profile) -> Result<(Arc<CudaModule>, ModuleOrigin)> {
        self.usable()?;
        let cache = &self.inner.modules;
        let mut loaded = cache.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(module) = loaded.get(&(source.clone(), profile)) {
            return Ok((module.clone(), ModuleOrigin::Loaded));
        }
        let (name, text) = match &source {
            Source::Registry(id) => (id.name(), id.module().source),
            Source::User { name, text } => (name.as_str(), text.as_str()),
        };
        let arch = self.info().arch();
        let dir = ptx_cache_dir();
        let compiled = cached_ptx(name, text, profile, &arch)?;
        let (module, origin) = match self.load_ptx(name, &compiled, dir.as_deref()) {
            Err(error) if compiled.from_cache && !self.is_poisoned() => {
                // The cached PTX passed its integrity check but the driver refused it (written by a
                // toolchain the driver does not accept, say): evict it and compile afresh.
                let Some(dir) = dir.as_deref() else {
                    return Err(error);
                };
                cache_entry::evict(
                    &ptx_entry_path(dir, name, text, profile, &arch)?,
                    &format_args!("the driver refused it: {error}"),
                );
                let fresh = cached_ptx_in(Some(dir), name, text, profile, &arch)?;
                self.load_ptx(name, &fresh, Some(dir))?
            }
            other => other?,
        };
        tracing::debug!(module = name, ?profile, ?origin, "module loaded");
        loaded.insert((source, profile), module.clone());
        Ok((module, origin))
    }

    /// Loads `compiled` (PTX of module `name`): its device binary from the cache in `dir` when present and
    /// accepted by the driver, otherwise the binary the driver's JIT makes of the PTX now (stored for next
    /// time), otherwise the PTX itself. A cached binary the driver refuses is evicted.
    fn load_ptx(
        &self,
        name: &str,
        compiled: &CompiledPtx,
        dir: Option<&Path>,
    ) -> Result<(Arc<CudaModule>, ModuleOrigin)> {
        let arch = self.info().arch();
        // The binary key hashes the PTX text, so the PTX is read from its cache (or compiled) first.
        let key = binary_cache::binary_key(&compiled.ptx, &arch, &self.info().driver_version);
        if let Some(dir) = dir
            && let Some(binary) = binary_cache::read(dir, name, key)
        {
            match self.load_image(name, Ptx::from_binary(binary)) {
                Ok(module) => return Ok((module, ModuleOrigin::BinaryCache)),
                Err(error) if self.is_poisoned() => return Err(error),
                Err(error) => binary_cache::evict(
                    dir,
                    name,
                    key,
                    &format_args!("the driver refused it: {error}"),
                ),
            }
        }
        let origin = if compiled.from_cache {
            ModuleOrigin::DiskCache
        } else {
            ModuleOrigin::Compiled
        };
        self.inner
            .context
            .bind_to_thread()
            .map_err(|e| self.driver_failed("cuCtxSetCurrent", e, None))?;
        let image = match binary_cache::link_ptx(name, &compiled.ptx) {
            Ok(binary) => {
                if let Some(dir) = dir
                    && let Err(e) = binary_cache::store(dir, name, key, &binary)
                {
                    tracing::warn!(dir = %dir.display(), "could not write the binary cache: {e}");
                }
                Ptx::from_binary(binary)
            }
            Err(failure) => {
                let code = failure.code;
                let error = failure.into_error(name);
                if let Some(poisoned) =
                    self.inner
                        .faults
                        .sticky("cuLinkComplete", code, || error.to_string(), None)
                {
                    return Err(poisoned);
                }
                tracing::warn!(
                    module = name,
                    "linking the PTX failed ({error}); loading the PTX itself"
                );
                Ptx::from_src(compiled.ptx.clone())
            }
        };
        Ok((self.load_image(name, image)?, origin))
    }

    /// Loads a module image (a binary or PTX) into this device's context.
    fn load_image(&self, name: &str, image: Ptx) -> Result<Arc<CudaModule>> {
        self.inner
            .context
            .load_module(image)
            .map_err(|e| self.driver_failed(format!("load module `{name}`"), e, None))
    }
}
