"""gtfn_gpu (ADR 0019): CUDA generated from the optimized IR and compiled by nvcc.

The compile-only tests need nvcc but no GPU: each program is lowered, optimized, translated to
CUDA and built into an extension (which is also imported: the CUDA runtime is linked
statically and loads the driver only when a kernel runs). The execution tests need cupy and a
device and skip cleanly without them; the whole feature suite runs on gtfn_gpu there too
(``feature_tests/conftest.py``).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import native
from gt4py.next import lowering, neighbor_sum
from gt4py.next.backends import _arguments
from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend, make_gtfn_passes


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)
V2E = gtx.FieldOffset("V2E", source=Edge, target=(Vertex, V2EDim))
Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))
Joff = gtx.FieldOffset("Joff", source=J, target=(J,))

IJK = gtx.Field[gtx.Dims[I, J, K], gtx.float64]
IK = gtx.Field[gtx.Dims[I, K], gtx.float64]
VK = gtx.Field[gtx.Dims[Vertex, K], gtx.float64]
EK = gtx.Field[gtx.Dims[Edge, K], gtx.float64]

V2E_TABLE = np.array([[0, 1, -1], [1, 2, 3], [3, -1, -1], [0, 2, 3]], dtype=np.int32)

needs_nvcc = pytest.mark.skipif(
    shutil.which("nvcc") is None and not os.environ.get("CUDACXX"), reason="needs nvcc"
)


def _gpu_present() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    import cupy

    try:
        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:  # no driver / no device
        return False


requires_gpu = pytest.mark.skipif(not _gpu_present(), reason="needs cupy and a CUDA device")


@gtx.field_operator
def _lap(a: IJK) -> IJK:
    return -4.0 * a + a(Ioff[1]) + a(Ioff[-1]) + a(Joff[1]) + a(Joff[-1])


@gtx.program
def lap(a: IJK, out: IJK):
    _lap(a, out=out, domain={I: (1, 7), J: (1, 7), K: (0, 5)})


@gtx.field_operator
def _lap_lap(a: IJK) -> IJK:
    return _lap(_lap(a))


@gtx.program
def lap_lap(a: IJK, out: IJK):
    _lap_lap(a, out=out, domain={I: (2, 6), J: (2, 6), K: (0, 5)})


@gtx.field_operator
def _vertex_sum(e: EK) -> VK:
    return neighbor_sum(e(V2E), axis=V2EDim)


@gtx.program
def vertex_sum(e: EK, out: VK):
    _vertex_sum(e, out=out)


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def _running_sum(carry: float, a: float) -> float:
    return carry + a


@gtx.field_operator
def _scaled_running_sum(a: IK, factor: float) -> IK:
    return _running_sum(a) * factor  # the scan is a temporary


@gtx.program
def scaled_running_sum(a: IK, factor: float, out: IK):
    _scaled_running_sum(a, factor, out=out)


@gtx.field_operator
def _guarded(a: IK) -> IK:
    i = gtx.broadcast(1.0, (I, K))
    return gtx.where(a > i, a(Ioff[1]), 0.0)  # a(I+1) is only read where a > 1


@gtx.program
def guarded(a: IK, out: IK):
    _guarded(a, out=out)


def _provider() -> dict[str, object]:
    return {
        "V2E": gtx.as_connectivity([Vertex, V2EDim], Edge, V2E_TABLE, skip_value=-1),
        "Ioff": I,
        "Joff": J,
    }


def _compile(definition, backend=None):
    """The gtfn_gpu artifact of ``definition`` (CUDA source, built extension); no GPU used."""
    backend = backend or gtx.gtfn_gpu
    optimized = backend.optimize(lowering.lower_program(definition))
    _, table_dtypes = _arguments.table_arguments(optimized, _provider())
    artifact = backend.compiler.make_artifact(optimized, table_dtypes)
    extension = native.load_extension(artifact.values["so"])
    assert callable(extension.run)
    return optimized, artifact


def test_gtfn_gpu_is_a_gpu_backend_reached_through_gtx():
    assert gtx.gtfn_gpu.name == "gtfn_gpu"
    assert gtx.gtfn_gpu.config.device == "gpu"
    assert gtx.gtfn_gpu is gtx.gtfn_gpu


def test_the_cuda_source_maps_statements_to_kernels():
    from gt4py.next.backends.gtfn import _cuda_codegen

    optimized = gtx.gtfn_gpu.optimize(lowering.lower_program(lap))
    source = _cuda_codegen.generate(optimized, "m", {})
    assert source.count("__global__") == len(optimized.body)
    # device arrays (host arrays in the emulated build), launches through one macro
    assert "nb::ndarray<GT4PY_ARRAY_DEVICE>" in source
    assert source.count("GT4PY_LAUNCH(") == len(optimized.body)
    assert "<<<" not in source
    assert "std::uintptr_t gt_stream_handle" in source
    assert "nb::device::cpu" not in source
    assert "gt_status_buffer" not in source  # nothing checked per point: no synchronization


def test_without_cupy_the_allocator_error_says_what_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError
    with pytest.raises(ImportError, match=r"gt4py-next\[cuda12\]"):
        _ = gtx.gtfn_gpu.allocator


@pytest.mark.slow
@needs_nvcc
def test_cartesian_stencil_compiles_with_nvcc():
    _, artifact = _compile(lap)
    assert "__global__" in artifact.values["cu"]


@pytest.mark.slow
@needs_nvcc
def test_neighbour_reduction_with_skip_values_compiles_with_nvcc():
    _, artifact = _compile(vertex_sum)
    assert "V2E_skip" in artifact.values["cu"]
    assert "nb::ndarray<GT4PY_ARRAY_DEVICE> V2E_table" in artifact.values["cu"]


@pytest.mark.slow
@needs_nvcc
def test_scan_as_a_temporary_compiles_with_nvcc():
    optimized, artifact = _compile(scaled_running_sum)
    assert optimized.temporaries
    assert "gt4py::cuda::device_buffer __tmp" in artifact.values["cu"]  # on the call's stream
    assert "for (index_t i_K" in artifact.values["cu"]  # the sequential K loop inside a thread


@pytest.mark.slow
@needs_nvcc
def test_materialized_temporaries_compile_with_nvcc():
    backend = make_gtfn_backend(
        GTFNConfig(device="gpu", cached_translation=False),
        name="gtfn_gpu_materialize",
        passes=functools.partial(make_gtfn_passes, temporaries="materialize"),
    )
    optimized, artifact = _compile(lap_lap, backend)
    assert optimized.temporaries
    assert artifact.values["cu"].count("__global__") == len(optimized.body) >= 2


@pytest.mark.slow
@needs_nvcc
def test_guarded_read_is_checked_per_point_in_device_memory():
    _, artifact = _compile(guarded)
    assert "gt_outside<double>(gt_status" in artifact.values["cu"]
    assert "cudaStreamSynchronize" in artifact.values["cu"]  # the status is read back


# -- execution (a GPU and cupy) -------------------------------------------------------------------


@requires_gpu
def test_lap_on_the_gpu_equals_embedded():
    import cupy

    data = np.random.default_rng(0).random((8, 8, 5))
    domain = gtx.domain({I: 8, J: 8, K: 5})
    expected = gtx.zeros(domain)
    lap(gtx.as_field(domain, data), expected, offset_provider=_provider())
    a = gtx.as_field(domain, data, allocator=gtx.gtfn_gpu)
    out = gtx.zeros(domain, allocator=gtx.gtfn_gpu)
    assert isinstance(out.ndarray, cupy.ndarray)
    lap.with_backend(gtx.gtfn_gpu)(a, out, offset_provider=_provider())
    np.testing.assert_array_equal(out.asnumpy(), expected.asnumpy())


@requires_gpu
def test_reduction_with_host_tables_on_the_gpu_equals_embedded():
    data = np.random.default_rng(1).random((4, 3))
    e = gtx.as_field([Edge, K], data)
    expected = gtx.zeros(gtx.domain({Vertex: 4, K: 3}))
    vertex_sum(e, expected, offset_provider=_provider())
    out = gtx.zeros(gtx.domain({Vertex: 4, K: 3}), allocator=gtx.gtfn_gpu)
    e_gpu = gtx.as_field([Edge, K], data, allocator=gtx.gtfn_gpu)
    vertex_sum.with_backend(gtx.gtfn_gpu)(e_gpu, out, offset_provider=_provider())
    np.testing.assert_allclose(out.asnumpy(), expected.asnumpy(), rtol=1e-15)
