"""Importing a built extension from its file, without touching ``sys.modules``."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import pathlib
from types import ModuleType


def load_extension(path: str | os.PathLike[str]) -> ModuleType:
    """Import the extension module at ``path`` and return it.

    The module name is the file name up to its first dot, which must be the name its sources
    give ``NB_MODULE``. The module is not entered into ``sys.modules``: modules built from
    different sources may share a name, and each is reached through its own file.
    """
    file = pathlib.Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"no native extension module at {file}")
    name = file.name.split(".", 1)[0]
    loader = importlib.machinery.ExtensionFileLoader(name, str(file))
    spec = importlib.util.spec_from_file_location(name, file, loader=loader)
    if spec is None:  # only for loaders that cannot handle the path; ours always can
        raise ImportError(f"cannot create an import spec for {file}", path=str(file))
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except ImportError as error:
        raise ImportError(
            f"cannot load native extension {file}: {error} (the module name {name!r}, taken "
            "from the file name, must be the one given to NB_MODULE)",
            name=name,
            path=str(file),
        ) from error
    return module
