"""What the embedded field classes delegate their operators to, set by the modules that
implement the operations (:func:`register_operations`).

``_elementwise``, ``_shifts`` and ``_builtins`` build fields of the classes of
:mod:`gt4py.next.embedded.nd_array_field`, so those classes do not import them: each registers
its functions here when imported. The package ``gt4py.next.embedded`` imports them all, so that
they are registered before any of its modules can be used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._domain import Domain
from . import _ops


class _Operations:
    """What the field classes delegate to, set by :func:`register_operations`."""

    __slots__ = (
        "apply",
        "binary",
        "builtins",
        "premap",
        "scalar_for_assignment",
        "value_for_assignment",
    )

    binary: Callable[[_ops.Op, Any, Any], Any]  # _elementwise.binary
    apply: Callable[[_ops.Op, Any], Any]  # _elementwise.apply
    value_for_assignment: Callable[[Any, Domain, Any], Any]  # _elementwise
    scalar_for_assignment: Callable[[Any, Any], Any]  # _elementwise
    premap: Callable[[Any, Any], Any]  # _shifts.premap
    builtins: Mapping[str, Callable[..., Any]]  # _builtins.IMPLEMENTATIONS


registered = _Operations()


def register_operations(**operations: Any) -> None:
    """Set the implementations the field classes call (names as in :class:`_Operations`)."""
    for name, implementation in operations.items():
        setattr(registered, name, implementation)
