"""Released gt4py names at their old module paths (DESIGN §8: relocated names warn).

A module that keeps released names builds its ``__getattr__`` here, from a table of names:

- :class:`Moved`: the name lives elsewhere with the same meaning. Access returns it with a
  ``DeprecationWarning`` that names the new spelling (``... is gtx.gtfn_cpu now``).
- :class:`Gone`: there is no equivalent with the same meaning. Access raises (an
  ``AttributeError`` by default) naming what to use instead; never a silent stand-in.

``otherwise`` (a :class:`Gone`) covers the remaining public names of a released module whose
whole content is gone (e.g. the dace transformations). Targets are resolved on access only, so
importing a compatibility module imports nothing heavy.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.abc
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from gt4py.infra.deprecation import GT4PyDeprecationWarning


@dataclasses.dataclass(frozen=True)
class Moved:
    """The name is ``spelling`` now; ``target`` (``"module:attr.attr"``) is the object."""

    spelling: str
    target: str

    def resolve(self) -> Any:
        module_name, _, path = self.target.partition(":")
        value: Any = importlib.import_module(module_name)
        for part in path.split(".") if path else ():
            value = getattr(value, part)
        return value


@dataclasses.dataclass(frozen=True)
class Gone:
    """No equivalent with the same meaning here: ``why``, and ``replacement`` to use instead."""

    replacement: str
    why: str
    error: type[Exception] = AttributeError

    def message(self, qualified_name: str) -> str:
        return f"{qualified_name}: {self.why}; use {self.replacement}"


Relocation = Moved | Gone


def moved_message(qualified_name: str, spelling: str) -> str:
    return f"{qualified_name} is {spelling} now"


def warn_moved(qualified_name: str, spelling: str, *, stacklevel: int = 2) -> None:
    """The ``DeprecationWarning`` of a relocated name (``stacklevel`` 2: the caller's caller)."""
    warnings.warn(
        moved_message(qualified_name, spelling), GT4PyDeprecationWarning, stacklevel=stacklevel + 1
    )


def module_getattr(
    module: str,
    names: Mapping[str, Relocation],
    *,
    otherwise: Gone | None = None,
    lazy: Callable[[str], Any] | None = None,
    fallback: Callable[[str], Any] | None = None,
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``module``'s relocated ``names``.

    Names not in the table: ``lazy(name)`` when given and not ``None`` (objects made on first
    access, such as the embedded backends of ``_backend.lazy_embedded_backend``), else
    ``fallback(name)`` when given (a module's own lazy names), else ``otherwise`` for public
    names, else the usual ``AttributeError``.
    """

    def __getattr__(name: str) -> Any:
        entry = names.get(name)
        if isinstance(entry, Moved):
            warn_moved(f"{module}.{name}", entry.spelling)
            return entry.resolve()
        if entry is None and lazy is not None and (value := lazy(name)) is not None:
            return value
        if entry is None and fallback is not None:
            return fallback(name)
        if entry is None and otherwise is not None and not name.startswith("_"):
            entry = otherwise
        if isinstance(entry, Gone):
            raise entry.error(entry.message(f"{module}.{name}"))
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


class _GoneModules(importlib.abc.MetaPathFinder):
    """Imports of released packages that are gone fail naming what to use instead.

    Last on ``sys.meta_path``: asked only for modules no other finder has, so it costs nothing
    on ordinary imports. ``import gt4py.next.iterator.builtins`` raises
    ``ModuleNotFoundError("gt4py.next.iterator: ...; use ...")``, not Python's bare one.
    """

    def __init__(self, packages: Mapping[str, Gone]) -> None:
        self.packages = dict(packages)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> None:
        for package, gone in self.packages.items():
            if fullname == package or fullname.startswith(package + "."):
                raise ModuleNotFoundError(gone.message(package), name=fullname)


def forbid_gone_packages(packages: Mapping[str, Gone]) -> None:
    """Install (once per package set) the finder that refuses the gone ``packages`` by name."""
    for finder in sys.meta_path:
        if isinstance(finder, _GoneModules):
            finder.packages.update(packages)
            return
    sys.meta_path.append(_GoneModules(packages))


__all__ = [
    "Gone",
    "Moved",
    "Relocation",
    "forbid_gone_packages",
    "module_getattr",
    "moved_message",
    "warn_moved",
]
