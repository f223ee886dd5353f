//! The one place kernels are launched: arguments are device buffers and one `#[repr(C)]` parameter struct,
//! every launch is checked, and every error names the kernel.

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, DriverError,
    LaunchConfig as CudarcConfig, PushKernelArg, sys,
};
use evo_core::{Error, Result};

use crate::arguments::{Argument, check_arguments};
use crate::buffer::{DeviceBuffer, DeviceCopy};
use crate::driver_error::describe;
use crate::modules::Kernel;
use crate::stream::Stream;

/// A kernel's scalar arguments, passed by value as one struct mirrored in a `.cuh`/`.cu` file.
///
/// # Safety
/// The implementor must be `#[repr(C)]`, contain only plain data (no references or host pointers), have the
/// same size and field layout as the CUDA struct the kernel declares (assert the size on both sides), and be at
/// most [`MAX_PARAMS_BYTES`] bytes.
pub unsafe trait KernelParams: Copy + Send + Sync + 'static {}

/// The largest parameter struct a launch accepts.
pub const MAX_PARAMS_BYTES: usize = 256;

/// Storage for one parameter struct, aligned for any field.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct ParamBlock([u8; MAX_PARAMS_BYTES]);

// SAFETY: the driver copies as many bytes from this block as the kernel's parameter declares, which the
// `KernelParams` contract bounds by MAX_PARAMS_BYTES; the block is plain bytes.
unsafe impl DeviceRepr for ParamBlock {}

/// Grid and block shape, and dynamic shared memory, of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block in bytes.
    pub shared_bytes: u32,
}

/// Checks a block size for evo-gpu's kernels: a power of two in 32..=1024 (the canonical reductions halve the
/// block down to one thread). The error names `component`.
pub fn check_block_size(component: &'static str, block: u32) -> Result<()> {
    if block.is_power_of_two() && (32..=1024).contains(&block) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            component,
            "block size",
            block,
            "a power of two in 32..=1024",
        ))
    }
}

impl LaunchConfig {
    /// A one-dimensional launch of `grid` blocks of `block` threads.
    pub fn linear(grid: u32, block: u32, shared_bytes: u32) -> Self {
        Self {
            grid: (grid, 1, 1),
            block: (block, 1, 1),
            shared_bytes,
        }
    }

    fn validate(&self, kernel: &str) -> Result<()> {
        let (bx, by, bz) = self.block;
        let threads = u64::from(bx) * u64::from(by) * u64::from(bz);
        if threads == 0 || threads > 1024 {
            return Err(Error::KernelLaunch {
                kernel: kernel.to_string(),
                message: format!(
                    "a block of {bx}×{by}×{bz} = {threads} threads; allowed: 1 to 1024 threads"
                ),
            });
        }
        let (gx, gy, gz) = self.grid;
        if gx == 0 || gy == 0 || gz == 0 || gy > 65535 || gz > 65535 {
            return Err(Error::KernelLaunch {
                kernel: kernel.to_string(),
                message: format!(
                    "a grid of {gx}×{gy}×{gz} blocks; allowed: x ≥ 1, y and z in 1..=65535"
                ),
            });
        }
        Ok(())
    }
}

enum Buffer<'a> {
    Read(&'a CudaSlice<u8>),
    Write(&'a mut CudaSlice<u8>),
}

/// A launch being assembled: arguments are pushed in the order of the kernel's parameter list.
pub struct Launch<'a> {
    kernel: &'a Kernel,
    stream: Option<&'a Stream>,
    buffers: Vec<Buffer<'a>>,
    params: Vec<ParamBlock>,
    /// The arguments in the kernel's parameter order; the n-th buffer (parameter struct) slot takes the n-th
    /// entry of `buffers` (`params`).
    slots: Vec<Argument>,
    overlap_previous: bool,
}

impl Kernel {
    /// Starts a launch of this kernel on its device's main stream.
    pub fn launch(&self) -> Launch<'_> {
        Launch {
            kernel: self,
            stream: None,
            buffers: Vec::new(),
            params: Vec::new(),
            slots: Vec::new(),
            overlap_previous: false,
        }
    }
}

impl<'a> Launch<'a> {
    /// Queues the launch on `stream` instead of the main stream.
    pub fn on(mut self, stream: &'a Stream) -> Self {
        self.stream = Some(stream);
        self
    }

    /// Programmatic Dependent Launch (compute capability 9.0 and later): the launch may begin while the
    /// previous kernel on the stream finishes, so that its launch and block scheduling overlap that kernel's
    /// tail. The kernel must call `evo_wait_previous_grid()` (`kernels/common/launch.cuh`) before it reads or
    /// writes any global memory: that waits until the previous grid has completed and its writes are
    /// visible, so the order of memory effects is the stream's. Below compute capability 9.0, and while a
    /// graph is being recorded on this thread ([`crate::Gpu::record_graph`]), the launch is an ordinary one.
    pub fn overlapping_previous(mut self) -> Self {
        self.overlap_previous = true;
        self
    }

    /// Next argument: a buffer the kernel reads (`const T*`).
    pub fn input<T: DeviceCopy>(mut self, buffer: &'a DeviceBuffer<T>) -> Self {
        self.slots.push(Argument::Buffer);
        self.buffers.push(Buffer::Read(buffer.raw()));
        self
    }

    /// Next argument: a buffer the kernel writes (`T*`).
    pub fn output<T: DeviceCopy>(mut self, buffer: &'a mut DeviceBuffer<T>) -> Self {
        self.slots.push(Argument::Buffer);
        self.buffers.push(Buffer::Write(buffer.raw_mut()));
        self
    }

    /// Next argument: the kernel's parameter struct, passed by value.
    ///
    /// All of a kernel's scalars go in ONE `#[repr(C)]` struct that the kernel declares as one parameter
    /// passed by value (`__global__ void k(const float* x, float* y, MyParams p)`), of the same size on both
    /// sides: one `.params(&p)` fills one parameter of `size_of::<P>()` bytes. A kernel that declares its
    /// scalars one by one (`unsigned long long n, unsigned long long d`) takes that many parameters, which
    /// one struct does not fill; [`Launch::run`] refuses such a launch with
    /// [`Error::KernelArguments`] instead of letting the driver read past the arguments.
    pub fn params<P: KernelParams>(mut self, params: &P) -> Self {
        const {
            assert!(
                size_of::<P>() <= MAX_PARAMS_BYTES,
                "kernel parameter structs are at most 256 bytes"
            )
        };
        let mut block = ParamBlock([0; MAX_PARAMS_BYTES]);
        // SAFETY: P is plain data of at most MAX_PARAMS_BYTES bytes (checked above), so copying its bytes
        // into the block reads initialised memory and stays in bounds.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (params as *const P).cast::<u8>(),
                block.0.as_mut_ptr(),
                size_of::<P>(),
            );
        }
        // The block is MAX_PARAMS_BYTES long, but only the struct's own size is the argument the kernel must
        // declare, so the slot keeps that size for the check in `run`.
        self.slots.push(Argument::Params(size_of::<P>()));
        self.params.push(block);
        self
    }

    /// Queues the kernel. Errors name the kernel; faults that happen later while it runs surface at the next
    /// synchronize, which also names the last kernel launched.
    ///
    /// Before anything reaches the driver, the pushed arguments are compared with the kernel's parameter list
    /// as the driver reports it ([`Kernel::parameter_sizes`]): each buffer fills one 8-byte pointer
    /// parameter and each [`params`](Self::params) struct one parameter of its `size_of`. A different count
    /// or size is [`Error::KernelArguments`], naming the kernel, its parameters and the arguments given.
    /// Where the driver cannot report the list (before CUDA 12.4) the launch is not checked.
    ///
    /// # Safety
    /// The pushed arguments must match the kernel's parameter list in order, count and type (the check above
    /// sees only count and sizes, not types, and nothing where the list is unknown), and the kernel
    /// must stay within the bounds of every buffer for `config` (which the kernel's typed launch function
    /// guarantees by computing `config` from the buffer lengths). On a side stream (`on`), every buffer must
    /// be free of unfinished work on other streams (see [`crate::Gpu::side_stream`]).
    pub unsafe fn run(self, config: LaunchConfig) -> Result<()> {
        let Launch {
            kernel,
            stream,
            mut buffers,
            params,
            slots,
            overlap_previous,
        } = self;
        config.validate(kernel.name())?;
        if let Some(parameters) = &kernel.parameters {
            check_arguments(kernel.name(), parameters, &slots)?;
        }
        kernel.gpu.usable()?;
        let stream = match stream {
            Some(stream) => stream.inner.clone(),
            None => kernel.gpu.stream().inner,
        };
        let mut pointers = Vec::with_capacity(buffers.len());
        let mut guards = Vec::with_capacity(buffers.len());
        for buffer in buffers.iter_mut() {
            let (pointer, guard) = match buffer {
                Buffer::Read(slice) => slice.device_ptr(&stream),
                Buffer::Write(slice) => slice.device_ptr_mut(&stream),
            };
            pointers.push(pointer);
            guards.push(guard);
        }
        // Inside a graph recording the launch stays an ordinary one: the captured graph keeps the stream's
        // order, and no recorded graph of evo-gpu has been measured or tested with programmatic edges.
        let overlapping = overlap_previous
            && kernel.gpu.info().compute_capability.0 >= 9
            && !kernel.gpu.records_here();
        let launched = if overlapping {
            let (mut next_buffer, mut next_params) = (pointers.iter(), params.iter());
            // Each slot was pushed together with its buffer or block, so neither iterator runs out.
            let args = slots
                .iter()
                .filter_map(|slot| match slot {
                    Argument::Buffer => next_buffer
                        .next()
                        .map(|pointer| std::ptr::from_ref(pointer).cast_mut().cast()),
                    Argument::Params(_) => next_params
                        .next()
                        .map(|block| std::ptr::from_ref(block).cast_mut().cast()),
                })
                .collect();
            // SAFETY: as below; `args` holds the same argument values in the same order as the builder's,
            // and `pointers` and `params` outlive the call.
            unsafe { overlapping_launch(&stream, &kernel.function, config, args) }
        } else {
            let mut builder = stream.launch_builder(&kernel.function);
            let (mut next_buffer, mut next_params) = (pointers.iter(), params.iter());
            for slot in &slots {
                // Each slot was pushed together with its buffer or block, so neither iterator runs out.
                match slot {
                    Argument::Buffer => next_buffer.next().map(|pointer| builder.arg(pointer)),
                    Argument::Params(_) => next_params.next().map(|block| builder.arg(block)),
                };
            }
            let cudarc_config = CudarcConfig {
                grid_dim: config.grid,
                block_dim: config.block,
                shared_mem_bytes: config.shared_bytes,
            };
            // SAFETY: the caller guarantees the arguments match the kernel's signature and the launch stays
            // in bounds; the pointers stay valid because the buffers are borrowed for 'a and the guards are
            // dropped only after the launch is queued, which records the stream's use of each buffer.
            unsafe { builder.launch(cudarc_config) }.map(|_| ())
        };
        drop(guards);
        match launched {
            Ok(()) => {
                kernel.gpu.launched(&stream, &kernel.name);
                Ok(())
            }
            // A launch reports a sticky fault of an earlier kernel, which that kernel's name identifies.
            Err(e) => Err(kernel
                .gpu
                .inner
                .faults
                .sticky("cuLaunchKernel", e.0, || describe(&e), Some(crate::device::stream_id(&stream)))
                .unwrap_or_else(|| Error::KernelLaunch {
                    kernel: kernel.name().to_string(),
                    message: format!(
                        "launch of grid {:?} × block {:?} with {} bytes of shared memory failed: {}",
                        config.grid,
                        config.block,
                        config.shared_bytes,
                        describe(&e)
                    ),
                })),
        }
    }
}

/// `cuLaunchKernelEx` of `function` on `stream` with programmatic stream serialization allowed (see
/// [`Launch::overlapping_previous`]); `args` holds one pointer per kernel parameter, to its value.
///
/// # Safety
/// As [`Launch::run`]: `args` points at values matching the kernel's parameter list, alive until the call
/// returns, and the launch stays within every buffer's bounds.
unsafe fn overlapping_launch(
    stream: &CudaStream,
    function: &CudaFunction,
    config: LaunchConfig,
    mut args: Vec<*mut std::ffi::c_void>,
) -> std::result::Result<(), DriverError> {
    // SAFETY: the attribute is plain data (an id and a union of integers); all zeros is a valid value that
    // the two fields below then set.
    let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    let launch_config = sys::CUlaunchConfig {
        gridDimX: config.grid.0,
        gridDimY: config.grid.1,
        gridDimZ: config.grid.2,
        blockDimX: config.block.0,
        blockDimY: config.block.1,
        blockDimZ: config.block.2,
        sharedMemBytes: config.shared_bytes,
        hStream: stream.cu_stream(),
        attrs: &raw mut attribute,
        numAttrs: 1,
    };
    stream.context().bind_to_thread()?;
    // SAFETY: the configuration and the attribute live until the call returns; `args` as the caller
    // guarantees; no `extra` options.
    unsafe {
        sys::cuLaunchKernelEx(
            &raw const launch_config,
            function.cu_function(),
            args.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
}
