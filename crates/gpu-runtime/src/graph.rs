//! Recorded launch sequences: [`Gpu::record_graph`] captures the work a closure queues into a CUDA graph, and
//! [`Graph::launch`] replays all of it on the main stream with one driver call.
//!
//! A sequence of small kernels costs the host one launch call each (a few µs: the argument packing, the
//! driver's checks) and the device a gap between kernels; a replayed graph costs one call, and the driver
//! submits the recorded kernels back to back. What is recorded is fixed: the kernels, their launch shapes,
//! their argument values (scalars by value, buffers by address) and the order. Work whose arguments change
//! between replays must read them from device memory.
//!
//! How: while a thread records, the device's main stream is, for that thread only, a fresh stream in capture
//! mode, so every launch, device copy and fill the closure queues (through the usual paths) is captured and
//! nothing runs; other threads keep queuing on the real main stream, unaffected. The graph is then launched
//! on the real main stream, after whatever was queued there before.
//!
//! Buffers during recording: the recorded work refers to buffers by address, so a buffer that the closure
//! allocates and drops (a temporary of an evaluation, say) must stay reserved while the graph exists. Buffers
//! of this device dropped on the recording thread during recording are kept by the graph instead of going
//! back to the pool, and return to it when the graph drops. Allocation that would go to the driver is
//! refused on the recording thread (the driver's allocation is not a stream operation): run the same work
//! once before recording, so that the pool holds the buffers it needs.

use std::cell::RefCell;
use std::sync::Arc;

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaGraph, CudaSlice, CudaStream};
use evo_core::{Error, Result};

use crate::Gpu;
use crate::driver_error::driver;

/// A recording in progress on this thread: the device, its capture stream, and the buffers dropped so far
/// (size class, allocation).
struct Recording {
    device: usize,
    stream: Arc<CudaStream>,
    kept: Vec<(usize, CudaSlice<u8>)>,
}

thread_local! {
    static RECORDING: RefCell<Option<Recording>> = const { RefCell::new(None) };
}

/// The capture stream when this thread is recording on `device`.
pub(crate) fn capture_stream(device: usize) -> Option<Arc<CudaStream>> {
    RECORDING.with(|r| {
        r.borrow()
            .as_ref()
            .filter(|r| r.device == device)
            .map(|r| r.stream.clone())
    })
}

/// Keeps `slice` of `device` when this thread is recording on it; otherwise hands it back.
pub(crate) fn keep(device: usize, class: usize, slice: CudaSlice<u8>) -> Option<CudaSlice<u8>> {
    RECORDING.with(|r| match r.borrow_mut().as_mut() {
        Some(recording) if recording.device == device => {
            recording.kept.push((class, slice));
            None
        }
        _ => Some(slice),
    })
}

/// A recorded sequence of launches of one device (see the module docs).
pub struct Graph {
    graph: CudaGraph,
    gpu: Gpu,
    kept: Vec<(usize, CudaSlice<u8>)>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("device", &self.gpu.index())
            .field("kept_buffers", &self.kept.len())
            .finish_non_exhaustive()
    }
}

impl Graph {
    /// Queues the recorded work on the device's main stream, after everything queued there before.
    ///
    /// # Safety
    /// Every buffer the recorded work reads or writes, other than the ones the graph keeps, must still exist
    /// with at least the length it had when recorded: the graph holds their addresses, not their owners.
    ///
    /// # Errors
    /// Driver errors of the launch; faults inside the recorded kernels surface at the next synchronize.
    pub unsafe fn launch(&self) -> Result<()> {
        self.gpu.usable()?;
        let main = self.gpu.inner.streams.main();
        self.gpu
            .inner
            .context
            .bind_to_thread()
            .map_err(|e| driver("cuCtxSetCurrent", e))?;
        // SAFETY: the executable graph is alive (owned by `self.graph`) and the stream belongs to its context;
        // the buffers it refers to are alive by the caller's contract.
        unsafe {
            cudarc::driver::result::graph::launch(self.graph.cu_graph_exec(), main.cu_stream())
        }
        .map_err(|e| self.gpu.driver_failed("cuGraphLaunch", e, Some(main)))
    }

    /// Buffers kept by the graph (temporaries dropped while recording).
    pub fn kept_buffers(&self) -> usize {
        self.kept.len()
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        for (class, slice) in self.kept.drain(..) {
            self.gpu.inner.buffers.give_back(class, slice);
        }
    }
}

impl Gpu {
    /// Records the work `record` queues on this device into a [`Graph`] instead of running it.
    ///
    /// Nothing recorded runs until the graph is launched. Inside `record`, only queue work: launches,
    /// device-to-device copies and fills of buffers, buffers taken from the pool. Anything that waits for the
    /// device (a copy to the host, a synchronize) or allocates from the driver fails, and the recording is
    /// abandoned with that error; so does an error returned by `record`. Other threads may use the device
    /// meanwhile: their work runs, unrecorded, and their waits (`Gpu::synchronize`, copies to the host) wait
    /// for the runtime's streams one by one, which the driver allows while this thread's capture stream
    /// records.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when this thread is already recording; the error of `record`; driver
    /// errors of the capture.
    pub fn record_graph(&self, record: impl FnOnce() -> Result<()>) -> Result<Graph> {
        if RECORDING.with(|r| r.borrow().is_some()) {
            return Err(Error::invalid_parameter(
                "Gpu::record_graph",
                "recording",
                "a recording already in progress on this thread",
                "one recording per thread at a time",
            ));
        }
        self.usable()?;
        let stream = self
            .inner
            .context
            .new_stream()
            .map_err(|e| driver("cuStreamCreate", e))?;
        stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| driver("cuStreamBeginCapture", e))?;
        RECORDING.with(|r| {
            *r.borrow_mut() = Some(Recording {
                device: self.index(),
                stream: stream.clone(),
                kept: Vec::new(),
            })
        });
        let outcome = record();
        let kept = RECORDING
            .with(|r| r.borrow_mut().take())
            .map(|r| r.kept)
            .unwrap_or_default();
        // The capture ends whatever `record` returned, so that the stream leaves capture mode.
        let ended = stream
            .end_capture(CUgraphInstantiate_flags(0))
            .map_err(|e| driver("cuStreamEndCapture / cuGraphInstantiate", e));
        let recorded = match (outcome, ended) {
            (Err(error), _) | (Ok(()), Err(error)) => Err(error),
            (Ok(()), Ok(None)) => Err(Error::invalid_parameter(
                "Gpu::record_graph",
                "recorded work",
                "nothing queued",
                "at least one launch or copy queued on the device",
            )),
            (Ok(()), Ok(Some(graph))) => Ok(graph),
        };
        match recorded {
            Ok(graph) => Ok(Graph {
                graph,
                gpu: self.clone(),
                kept,
            }),
            Err(error) => {
                for (class, slice) in kept {
                    self.inner.buffers.give_back(class, slice);
                }
                Err(error)
            }
        }
    }

    /// Whether this thread is recording on this device.
    pub(crate) fn records_here(&self) -> bool {
        capture_stream(self.index()).is_some()
    }
}
