//! Recorded launch sequences: [`Gpu::record_graph`] captures the work a closure queues on the main stream into
//! a CUDA graph, and [`Graph::launch`] replays all of it with one driver call.
//!
//! A sequence of small kernels costs the host one launch call each (a few µs: the argument packing, the
//! driver's checks) and the device a gap between kernels; a replayed graph costs one call, and the driver
//! submits the recorded kernels back to back. What is recorded is fixed: the kernels, their launch shapes,
//! their argument values (scalars by value, buffers by address) and the order. Work whose arguments change
//! between replays must read them from device memory.
//!
//! Buffers during recording: the recorded work refers to buffers by address, so a buffer that the closure
//! allocates and drops (a temporary of an evaluation, say) must stay reserved while the graph exists. During
//! recording, buffers dropped on the recording thread are kept by the graph instead of going back to the
//! pool, and return to it when the graph drops. Allocation that would go to the driver is refused while
//! recording (the driver's allocation is not a stream operation): run the same work once before recording,
//! so that the pool holds the buffers it needs.

use std::sync::Mutex;
use std::thread::ThreadId;

use cudarc::driver::CudaGraph;
use cudarc::driver::CudaSlice;
use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use evo_core::{Error, Result};

use crate::Gpu;
use crate::driver_error::driver;

/// The state of a recording in progress: the recording thread and the buffers dropped on it so far (size
/// class, allocation).
pub(crate) struct Recording {
    thread: ThreadId,
    kept: Vec<(usize, CudaSlice<u8>)>,
}

/// The device's recording slot (at most one recording per device at a time).
#[derive(Default)]
pub(crate) struct RecordingSlot {
    slot: Mutex<Option<Recording>>,
}

impl RecordingSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Recording>> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `slice` when the current thread is recording; otherwise hands it back.
    pub(crate) fn keep(&self, class: usize, slice: CudaSlice<u8>) -> Option<CudaSlice<u8>> {
        let mut slot = self.lock();
        match slot.as_mut() {
            Some(recording) if recording.thread == std::thread::current().id() => {
                recording.kept.push((class, slice));
                None
            }
            _ => Some(slice),
        }
    }

    /// Whether the current thread is recording.
    pub(crate) fn current_thread_records(&self) -> bool {
        self.lock()
            .as_ref()
            .is_some_and(|r| r.thread == std::thread::current().id())
    }
}

/// A recorded sequence of launches on one device's main stream (see the module docs).
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
    /// Queues the recorded work on the main stream, after everything queued before.
    ///
    /// # Safety
    /// Every buffer the recorded work reads or writes, other than the ones the graph keeps, must still exist
    /// with at least the length it had when recorded: the graph holds their addresses, not their owners.
    ///
    /// # Errors
    /// Driver errors of the launch; faults inside the recorded kernels surface at the next synchronize.
    pub unsafe fn launch(&self) -> Result<()> {
        self.graph.launch().map_err(|e| driver("cuGraphLaunch", e))
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
    /// Records the work `record` queues on the main stream into a [`Graph`] instead of running it.
    ///
    /// Nothing recorded runs until the graph is launched. Inside `record`, only queue work: launches,
    /// device-to-device copies and fills of buffers, buffers taken from the pool. Anything that waits for the
    /// device (a copy to the host, a synchronize) or allocates from the driver fails, and the recording is
    /// abandoned with that error; so does an error returned by `record`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when this device is already recording; the error of `record`; driver
    /// errors of the capture (e.g. work queued on another stream that depends on the recorded work).
    pub fn record_graph(&self, record: impl FnOnce() -> Result<()>) -> Result<Graph> {
        {
            let mut slot = self.inner.recording.lock();
            if slot.is_some() {
                return Err(Error::invalid_parameter(
                    "Gpu::record_graph",
                    "recording",
                    "a recording already in progress on this device",
                    "one recording per device at a time",
                ));
            }
            *slot = Some(Recording {
                thread: std::thread::current().id(),
                kept: Vec::new(),
            });
        }
        let stream = self.main_stream().clone();
        let begun = stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| driver("cuStreamBeginCapture", e));
        let recorded = begun.and_then(|()| {
            let outcome = record();
            // The capture ends whatever `record` returned, so that the stream leaves capture mode.
            let ended = stream
                .end_capture(CUgraphInstantiate_flags(0))
                .map_err(|e| driver("cuStreamEndCapture / cuGraphInstantiate", e));
            match (outcome, ended) {
                (Err(error), _) => Err(error),
                (Ok(()), Err(error)) => Err(error),
                (Ok(()), Ok(None)) => Err(Error::invalid_parameter(
                    "Gpu::record_graph",
                    "recorded work",
                    "nothing queued",
                    "at least one launch or copy queued on the main stream",
                )),
                (Ok(()), Ok(Some(graph))) => Ok(graph),
            }
        });
        let kept = self
            .inner
            .recording
            .lock()
            .take()
            .map(|r| r.kept)
            .unwrap_or_default();
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
}
