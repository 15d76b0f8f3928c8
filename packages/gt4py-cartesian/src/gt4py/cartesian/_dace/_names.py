"""The ``dace:*`` backends by kind (read by the steps, the SDFG builder and the binding)."""

DACE_BACKENDS = ("dace:cpu", "dace:cpu_kfirst", "dace:cpu_KJI", "dace:gpu", "dace:gpu_IJK")
#: Built for the host with the CUDA runtime emulated (tests only: CI has no GPU).
EMULATED_BACKENDS = ("dace:gpu_emulated",)
#: Their SDFGs' arrays are in GPU memory and their maps are kernels.
GPU_BACKENDS = ("dace:gpu", "dace:gpu_IJK", *EMULATED_BACKENDS)
