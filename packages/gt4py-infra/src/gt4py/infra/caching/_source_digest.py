"""The identity of a code generator: a digest of its package's own source files.

Cache keys of generated code include it, so upgrading (or editing) the package that generates
the code never serves translations that the new code would not produce (as Triton keys its
cache on the compiler's own sources). Computed once per package and process.
"""

from __future__ import annotations

import functools
import importlib.util
import pathlib

import xxhash


# Files that shape generated code: Python, templates, grammars, C++ headers shipped with it.
_SOURCE_SUFFIXES = frozenset({".py", ".pyi", ".j2", ".jinja", ".lark", ".h", ".hpp", ".cpp", ".cu"})


@functools.cache
def source_digest(package: str) -> str:
    """A hex digest of every source file (name and content) under the package ``package``."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"source_digest: {package!r} is not an importable package")
    digest = xxhash.xxh3_128()
    for root in sorted(spec.submodule_search_locations):
        base = pathlib.Path(root)
        for path in sorted(base.rglob("*")):
            if path.suffix in _SOURCE_SUFFIXES and path.is_file():
                digest.update(path.relative_to(base).as_posix().encode() + b"\0")
                digest.update(path.read_bytes())
                digest.update(b"\0")
    return digest.hexdigest()
