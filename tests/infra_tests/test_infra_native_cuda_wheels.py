"""nvcc and the CUDA runtime from NVIDIA's wheels (ADR 0019: `gt4py-next[cuda12]` needs no
CUDA toolkit): where infra looks for them, and how a runtime with only ``libcudart.so`` links."""

from __future__ import annotations

import pathlib

from gt4py.infra.native import _module_build, _tools


def test_nvcc_is_looked_for_in_the_cuda12_and_cuda13_wheel_layouts():
    assert _tools.wheel_nvcc_candidates(["/site/nvidia"]) == [
        "/site/nvidia/cuda_nvcc/bin/nvcc",
        "/site/nvidia/cu13/bin/nvcc",
    ]


def test_the_runtime_wheel_beside_the_nvcc_wheel_is_found_and_linked_with_an_rpath(
    tmp_path: pathlib.Path, monkeypatch
):
    nvcc_root = tmp_path / "nvidia" / "cuda_nvcc"
    (nvcc_root / "bin").mkdir(parents=True)
    runtime = tmp_path / "nvidia" / "cuda_runtime"
    (runtime / "include").mkdir(parents=True)
    (runtime / "include" / "cuda_runtime.h").write_text("")
    (runtime / "lib").mkdir()
    (runtime / "lib" / "libcudart.so.12").write_text("")
    monkeypatch.setattr(_module_build, "_cuda_root", lambda nvcc: nvcc_root)
    tool = _tools.Tool("CUDA compiler", str(nvcc_root / "bin" / "nvcc"), "nvcc 12")
    toolkit = _module_build.CudaToolkit.locate(tool)
    assert toolkit.include_dir == runtime / "include"
    assert toolkit.shared
    flags = toolkit.runtime_link_flags()
    assert "-l:libcudart.so.12" in flags
    assert f"-Wl,-rpath,{runtime / 'lib'}" in flags
