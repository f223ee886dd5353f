// Launch-order helpers shared by the kernels.
#pragma once

// Programmatic Dependent Launch (evo_gpu_runtime::Launch::overlapping_previous; compute capability 9.0 and
// later): a kernel launched that way may start while the previous kernel on the stream finishes. It calls
// this before it reads or writes any global memory: griddepcontrol.wait blocks until the previous grid has
// completed and its memory writes are visible. Below sm_90, or for an ordinary launch, it does nothing (the
// stream already orders the two grids).
__device__ __forceinline__ void evo_wait_previous_grid()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

