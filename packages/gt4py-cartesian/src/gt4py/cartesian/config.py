"""Released gt4py.cartesian's ``config`` module, as frameworks use it (NDSL imports it first).

Every value here is a face of gt4py.infra's one settings registry (``python -m
gt4py.infra.config`` lists them), not a second copy:

- ``cache_settings["root_path"]`` / ``["dir_name"]``: the cache root of every gt4py build is
  ``root_path/dir_name`` (infra's ``build_cache_dir``); setting either moves it, for both DSL
  stacks, as NDSL does per MPI rank (``.gt_cache_000003``). ``load_retries`` and
  ``load_retry_delay`` are kept for code that reads them: concurrent builds wait on a lock.
- ``build_settings``: released's keys. ``extra_compile_args["cxx"]`` / ``["cuda"]`` and
  ``extra_link_args`` are appended to the C++ / CUDA builds of stencils built afterwards (and
  are part of their cache key); ``parallel_jobs`` reports infra's ``build_jobs`` (set
  ``GT4PY_BUILD_JOBS``); the rest (paths, OpenMP) describes the native toolchain and is not
  read back.
- ``GT4PY_COMPILE_OPT_LEVEL``: ``"3"``, the level of every native build (released's default);
  another value in the environment is an error naming ``GT4PY_CMAKE_BUILD_TYPE``, which sets it.
- ``GT4PY_LITERAL_INT_PRECISION`` / ``GT4PY_LITERAL_FLOAT_PRECISION``: the bit width (32 or
  64) of untyped literals in stencils built afterwards, from the environment variables of the
  same names, read when this module is first imported (as released reads them).
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterator, MutableMapping
from typing import Any

from gt4py.infra import config as _infra_config

from ._literal_precision import literal_precision as _literal_precision
from .utils.compiler import cuda_root, cxx_compiler_defaults, gpu_configuration


__all__ = [
    "GT4PY_COMPILE_OPT_LEVEL",
    "GT4PY_LITERAL_FLOAT_PRECISION",
    "GT4PY_LITERAL_INT_PRECISION",
    "build_settings",
    "cache_settings",
    "cxx_compiler_defaults",
    "gpu_configuration",
]


class _CacheSettings(MutableMapping[str, Any]):
    """``root_path`` and ``dir_name`` read and move infra's build cache root; other keys are
    kept as given."""

    _PATH_KEYS = ("root_path", "dir_name")

    def __init__(self) -> None:
        self._others: dict[str, Any] = {"load_retries": 3, "load_retry_delay": 100}

    def __getitem__(self, key: str) -> Any:
        root = pathlib.Path(_infra_config.BUILD_CACHE_DIR.get())
        if key == "root_path":
            return str(root.parent)
        if key == "dir_name":
            return root.name
        return self._others[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self._PATH_KEYS:
            self._others[key] = value
            return
        parts = {k: self[k] for k in self._PATH_KEYS}
        parts[key] = os.fspath(value)
        _infra_config.set(
            "build_cache_dir",
            pathlib.Path(parts["root_path"], parts["dir_name"]),
            source=f"gt4py.cartesian.config.cache_settings[{key!r}]",
        )

    def __delitem__(self, key: str) -> None:
        if key in self._PATH_KEYS:
            raise KeyError(f"cache_settings[{key!r}] cannot be removed, only set")
        del self._others[key]

    def __iter__(self) -> Iterator[str]:
        yield from self._PATH_KEYS
        yield from self._others

    def __len__(self) -> int:
        return len(self._PATH_KEYS) + len(self._others)

    def __repr__(self) -> str:
        return repr(dict(self))


cache_settings: MutableMapping[str, Any] = _CacheSettings()

_CUDA_ROOT = cuda_root()
build_settings: dict[str, Any] = {
    "cuda_bin_path": os.path.join(_CUDA_ROOT, "bin"),
    "cuda_include_path": os.path.join(_CUDA_ROOT, "include"),
    "cuda_library_path": os.path.join(_CUDA_ROOT, "lib64"),
    "cuda_arch": None,
    "openmp": {"use_openmp": True, "cppflags": ["-fopenmp"], "ldflags": ["-fopenmp"]},
    "extra_compile_args": {"cxx": [], "cuda": []},
    "extra_link_args": [],
    "parallel_jobs": _infra_config.BUILD_JOBS.get(),
}

#: Always "3" here: any other GT4PY_COMPILE_OPT_LEVEL fails the config's first use, naming
#: GT4PY_CMAKE_BUILD_TYPE, which sets the optimization of every native build.
GT4PY_COMPILE_OPT_LEVEL: str = "3"
GT4PY_LITERAL_INT_PRECISION: int = _literal_precision("int")
GT4PY_LITERAL_FLOAT_PRECISION: int = _literal_precision("float")
