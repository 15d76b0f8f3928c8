"""Finding a built module without the build tools: a lookup key of what was asked for.

A module's cache key (``native/modules``) names the toolchain that built it: the compiler's
identity (path and ``--version``), CMake, Ninja, nanobind. Computing it needs those tools, so a
warm cache could not serve a process that has no compiler (a runtime container image, a
compute node without the toolchain module loaded). Each build therefore also records, in
``native/module-lookup`` under a *lookup key* of what the caller asked for (name, sources,
options, Python, platform, flags, nanobind mode and runtime; no tool identity), the full key
it was built under and a stamp (path, size, mtime) of each tool it was built with.

A lookup finds the full key through the lookup key and serves that entry when every recorded
tool is either unchanged or not there at all (nothing to ask: the entry matches the request,
so a warm cache works without a compiler). A tool that is there but differs (a compiler
upgrade, another compiler on PATH or in ``CXX``) is a miss: the tools are asked and the module
is looked up (or built) under its full key, as if there were no lookup record.

:func:`extension_file` names the extension of a validated entry by the entry's manifest, never
by probing suffixes in the import system's order (``.cpython-311-...so`` before ``.abi3.so``),
so a file dropped next to the built one can never be the one loaded (ADR 0026).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import logging
import pathlib
import platform
import sys
from collections.abc import Callable, Mapping

from gt4py.infra import caching, config

from . import _tools
from ._toolchain import build_environment, python_identity


_NAMESPACE = "native/module-lookup"
_FORMAT = "1"
_logger = logging.getLogger(__name__)


def lookup_key(module_parts: Mapping[str, str]) -> caching.CacheKey:
    """The lookup key of a module whose request-specific key parts are ``module_parts``
    (name, sources, options, host CPU): those and what shapes a build besides the tools."""
    return caching.CacheKey(
        {
            **module_parts,
            "lookup_format": _FORMAT,
            "python": python_identity(),
            "platform": f"{sys.platform} {platform.machine()}",
            "nanobind_mode": config.NANOBIND_MODE.get(),
            # Split-mode modules import this runtime: a different one must not be served.
            "nanobind_backend": _tools.nanobind_backend_identity() or "none",
            "environment": build_environment(),
        }
    )


def find_built(lookup: caching.CacheKey) -> caching.CacheKey | None:
    """The full key recorded under ``lookup``, if no recorded tool changed since; else None."""
    raw = caching.FileCache(_NAMESPACE).get(lookup)
    if raw is None:
        return None
    try:
        record = json.loads(raw)
        module_key = caching.CacheKey(record["module_key"])
        tools: dict[str, list[object]] = record["tools"]
    except (ValueError, KeyError, TypeError):
        return None
    for role, recorded in tools.items():
        locate = _LOCATORS.get(role)
        if locate is None:
            return None  # recorded by a newer gt4py: ask the tools
        path = locate()
        if path is not None and _tools.stamp(path) != recorded:
            _logger.debug("the %s changed since %s was built: asking the tools", role, lookup)
            return None
    return module_key


def record_built(
    lookup: caching.CacheKey, module_key: caching.CacheKey, tool_paths: Mapping[str, str]
) -> None:
    """Remember that ``lookup`` was built as ``module_key`` with the tools at ``tool_paths``.

    Best effort: a cache that cannot take the record (read-only without overlay, full disk)
    only means the next lookup asks the tools again.
    """
    record = {
        "module_key": dict(module_key.parts),
        "tools": {role: _tools.stamp(path) for role, path in tool_paths.items()},
    }
    try:
        caching.FileCache(_NAMESPACE).put(lookup, json.dumps(record).encode())
    except (caching.CacheError, OSError) as error:
        _logger.debug("cannot record the lookup of native module %s: %s", lookup.digest, error)


def extension_file(entry: pathlib.Path, name: str) -> pathlib.Path:
    """The extension module ``name`` of the build-cache entry ``entry``, by exact name.

    The one file the entry's manifest lists as ``<name><suffix>`` for a suffix this
    interpreter loads; with none, or more than one, a :class:`~gt4py.infra.caching.CacheError`.
    Call it on an entry the cache has just validated (which also means nothing unlisted is
    in it).
    """
    from gt4py.infra.caching._file_format import CorruptEntry
    from gt4py.infra.caching._manifest import read_manifest

    wanted = {name + suffix for suffix in importlib.machinery.EXTENSION_SUFFIXES}
    try:
        items = read_manifest(entry)["items"]
    except (OSError, CorruptEntry) as error:
        raise caching.CacheError(
            f"the build-cache entry {entry} of native module {name!r} has no readable manifest "
            f"({error}); delete the entry and it will be rebuilt"
        ) from error
    found: list[str] = sorted(
        item[0]
        for item in items
        if isinstance(item, list) and len(item) > 1 and item[1] == "file" and item[0] in wanted
    )
    if len(found) != 1:
        what = "no extension file" if not found else f"{len(found)} extension files {found}"
        raise caching.CacheError(
            f"the build-cache entry {entry} of native module {name!r} lists {what} "
            f"({name}{{{','.join(importlib.machinery.EXTENSION_SUFFIXES)}}}); delete the entry "
            "and it will be rebuilt"
        )
    return entry / found[0]


def nanobind_path() -> str | None:
    """nanobind's package file (its version is in the path or the file), found without import."""
    spec = importlib.util.find_spec("nanobind")
    return spec.origin if spec is not None and spec.origin else None


_LOCATORS: Mapping[str, Callable[[], str | None]] = {
    "C++ compiler": _tools.locate_cxx,
    "CUDA compiler": _tools.locate_nvcc,
    "nanobind": nanobind_path,
}
