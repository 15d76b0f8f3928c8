"""Importing a Python module that gt4py generated into a cache entry.

The module is compiled from its source file on every import, never through ``__pycache__``:
a cache entry is validated file by file (size and checksum) before it is used, but Python's
bytecode beside it is not part of the entry, so a damaged ``.pyc`` would run unchecked (a
flipped constant gives wrong numbers), and writing one would change a published entry.
Compiling a generated module costs well under a millisecond.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import pathlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any


class _SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """A source loader without bytecode: with no source statistics, ``get_code`` neither
    reads nor writes a ``.pyc``."""

    def path_stats(self, path: str) -> Mapping[str, Any]:
        raise OSError("generated modules are imported from source only")


def import_generated_module(path: pathlib.Path, module_name: str) -> ModuleType:
    """Execute the generated source file ``path`` as a new module named ``module_name``.

    The module is not added to ``sys.modules`` (the caller decides); each call executes the
    file's current content.
    """
    loader = _SourceOnlyLoader(module_name, str(path))
    spec = importlib.util.spec_from_file_location(module_name, path, loader=loader)
    if spec is None:  # only for a path importlib cannot handle at all
        raise ImportError(f"cannot import a generated module from {path}", path=str(path))
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
