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

// The other half of Programmatic Dependent Launch: lets the runtime schedule the next kernel on the stream (one
// launched with Launch::overlapping_previous) before this grid has finished, so that its blocks are resident and
// waiting in evo_wait_previous_grid() when this grid completes, instead of being launched then. It orders no
// memory: the next kernel still sees this grid's writes only after its own evo_wait_previous_grid(). Below sm_90
// it does nothing.
__device__ __forceinline__ void evo_allow_next_grid()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}
