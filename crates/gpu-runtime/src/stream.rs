//! A small pool of streams per device: one main stream and a few side streams for overlapping work.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use cudarc::driver::{CudaContext, CudaStream};
use evo_core::Result;

use crate::driver_error::driver;

/// Side streams created per device, besides the main one.
pub const SIDE_STREAMS: usize = 4;

/// The streams of one device.
pub(crate) struct StreamPool {
    main: Arc<CudaStream>,
    side: Vec<Arc<CudaStream>>,
    next: AtomicUsize,
}

impl StreamPool {
    pub(crate) fn new(context: &Arc<CudaContext>) -> Result<Self> {
        let create = || {
            context
                .new_stream()
                .map_err(|e| driver("cuStreamCreate", e))
        };
        let main = create()?;
        let side = (0..SIDE_STREAMS)
            .map(|_| create())
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            main,
            side,
            next: AtomicUsize::new(0),
        })
    }

    pub(crate) fn main(&self) -> &Arc<CudaStream> {
        &self.main
    }

    /// Every stream of the pool: the main one first, then the side ones.
    pub(crate) fn all(&self) -> impl Iterator<Item = &Arc<CudaStream>> {
        std::iter::once(&self.main).chain(self.side.iter())
    }

    /// A side stream, handed out round-robin.
    pub(crate) fn side(&self) -> &Arc<CudaStream> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.side.len();
        &self.side[i]
    }
}

/// A stream of one device, for work that may overlap with the main stream.
///
/// It holds its device, which [`crate::Gpu::reopen`] counts among the handles to drop.
#[derive(Clone)]
pub struct Stream {
    pub(crate) inner: Arc<CudaStream>,
    gpu: crate::Gpu,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream").finish_non_exhaustive()
    }
}

impl Stream {
    /// Waits until everything queued on this stream has finished; a fault of its work is reported as by
    /// [`crate::Gpu::synchronize`].
    pub fn synchronize(&self) -> Result<()> {
        self.gpu.synchronize_stream(&self.inner)
    }
}

impl crate::Gpu {
    /// The device's main stream.
    pub fn stream(&self) -> Stream {
        Stream {
            inner: self.main_stream().clone(),
            gpu: self.clone(),
        }
    }

    /// A side stream from the device's pool (round-robin over a few), for work that may overlap.
    ///
    /// The runtime does not track which stream last used a buffer (cudarc's event tracking is off: it cost two
    /// driver calls per buffer per launch). Before a buffer written on the main stream is used on a side
    /// stream, or the other way round, synchronize the stream that wrote it; never let two streams write one
    /// buffer at the same time.
    pub fn side_stream(&self) -> Stream {
        Stream {
            inner: self.inner.streams.side().clone(),
            gpu: self.clone(),
        }
    }
}
