"""The strict fingerprint of an IR program, folded once per program object.

A variant's optimized program is keyed by the passes cache, the translation cache and the
module name; folding a large program costs milliseconds each time. IR nodes are immutable, so
the fingerprint is remembered per object (by identity: equality would hash the whole tree),
and a cache that returns a program together with its fingerprint can hand it over
(:func:`remember_fingerprint`), so that a warm start folds no IR at all.
"""

from __future__ import annotations

import threading
import weakref

from gt4py.infra import fingerprinting as fp

from ._nodes import Program


_known: dict[int, tuple[weakref.ref[Program], str]] = {}
_lock = threading.Lock()


def program_fingerprint(program: Program) -> str:
    """``fingerprinting.strict(program)``, folded once per program object."""
    found = _known.get(id(program))
    if found is not None and found[0]() is program:
        return found[1]
    fingerprint = fp.strict(program)
    remember_fingerprint(program, fingerprint)
    return fingerprint


def remember_fingerprint(program: Program, fingerprint: str) -> None:
    """Record ``fingerprint`` as ``program``'s strict fingerprint (it must be: a cache entry
    that stored both together hands them back)."""
    key = id(program)

    def forget(_: object) -> None:
        with _lock:
            entry = _known.get(key)
            if entry is not None and entry[0]() is None:
                del _known[key]

    with _lock:
        _known[key] = (weakref.ref(program, forget), fingerprint)
