"""``GT4PY_*`` environment variables that no gt4py setting reads: most likely typos.

Settings are registered by the packages that own them, on import (gt4py.next registers its
own when it is imported, possibly after the config was first used). A name is therefore
unknown only if no registered setting reads it *and* no installed settings provider (entry
point group ``gt4py.infra.settings``) that has not been imported yet mentions it. Providers
are read as text, never imported: the check runs at the first use of the config, which may
be in the middle of importing one of them.
"""

from __future__ import annotations

import importlib.machinery
import os
import re
import sys
import warnings
from collections.abc import Collection, Iterable


#: Entry-point group of the modules that register a distribution's settings.
PROVIDERS_GROUP = "gt4py.infra.settings"
_PREFIX = "GT4PY_"
_NAME = re.compile(r"\bGT4PY_[A-Z0-9_]+\b")


def unknown_variables(known: Collection[str]) -> list[str]:
    """Set ``GT4PY_*`` variables that neither ``known`` nor an unimported provider names."""
    return _unknown_and_known(known)[0]


def warn_about_unknown_variables(known: Collection[str]) -> None:
    """One warning per unknown ``GT4PY_*`` variable, naming the nearest known name."""
    unknown, every_known = _unknown_and_known(known)
    for variable in unknown:
        warnings.warn(describe_unknown(variable, every_known), UserWarning, stacklevel=3)


def _unknown_and_known(known: Collection[str]) -> tuple[list[str], set[str]]:
    candidates = sorted(v for v in os.environ if v.startswith(_PREFIX) and v not in known)
    if not candidates:
        return [], set(known)  # the usual case: no provider needs to be looked at
    provided = _unimported_provider_variables()
    if provided is None:
        return [], set(known)  # a provider could not be read: better no warning than a false one
    return [v for v in candidates if v not in provided], {*known, *provided}


def describe_unknown(variable: str, known: Iterable[str]) -> str:
    import difflib  # only for a warning: not paid by every process

    close = difflib.get_close_matches(variable, sorted(known), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else ""
    return (
        f"environment variable {variable} is set but no gt4py setting reads it{hint} "
        "(`python -m gt4py.infra.config` lists every setting)"
    )


def _unimported_provider_variables() -> set[str] | None:
    from importlib.metadata import entry_points

    names: set[str] = set()
    for entry in entry_points(group=PROVIDERS_GROUP):
        if entry.module in sys.modules:
            continue  # imported: its settings are registered
        path = _module_file(entry.module)
        if path is None:
            return None
        try:
            with open(path, encoding="utf-8") as file:
                names.update(_NAME.findall(file.read()))
        except (OSError, UnicodeError):
            return None
    return names


def _module_file(module: str) -> str | None:
    """The source file of ``module``, found without importing it or its parent packages."""
    parts = module.split(".")
    search: list[str] | None = None
    origin: str | None = None
    for index in range(len(parts)):
        name = ".".join(parts[: index + 1])
        imported = sys.modules.get(name)
        if imported is not None and hasattr(imported, "__path__"):
            search, origin = list(imported.__path__), None
            continue
        spec = importlib.machinery.PathFinder.find_spec(name, search)
        if spec is None:
            return None
        search = list(spec.submodule_search_locations or [])
        origin = spec.origin
    return origin if origin and origin.endswith(".py") else None
