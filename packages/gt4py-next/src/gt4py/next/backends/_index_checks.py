"""Whether every statement's bounds fit the 64-bit index space of the generated code
(:class:`IndexCheck`, like ``_domain.check_index_range``): an empty range whose size
``hi - lo`` overflows int64 runs no point in Python, but a C++ loop or OpenMP computes that size.
Ranges that fit for every argument value need no check.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import ir
from .._domain import INDEX_MAX, INDEX_MIN
from ._bound_code import UnsupportedBound, bound_code


@dataclasses.dataclass(frozen=True)
class IndexCheck:
    """The bounds of one range of statement ``statement`` must fit the index space (both in
    int64, ``stop - start`` too). ``covered``: a written field argument covers the range
    whenever it is not empty (an extent need), so only the empty case needs the check on
    the fast path."""

    statement: int
    dim: str
    start: str
    stop: str
    covered: bool

    def fits(self) -> str:
        lo, hi = self.start, self.stop
        return (
            f"{INDEX_MIN} <= {lo} <= {INDEX_MAX} and {INDEX_MIN} <= {hi} <= {INDEX_MAX} "
            f"and {INDEX_MIN} <= {hi} - {lo} <= {INDEX_MAX}"
        )

    def fast(self) -> str:
        """What the stub checks: with ``covered``, a non-empty range fits by the extent need
        (the field's bounds are in int64); an empty one must not overflow."""
        if not self.covered:
            return self.fits()
        lo, hi = self.start, self.stop
        return (
            f"{lo} < {hi} or ({INDEX_MIN} <= {hi} and {lo} <= {INDEX_MAX} and "
            f"{hi} - {lo} >= {INDEX_MIN})"
        )


_INT_RANGES = {
    name: (int(np.iinfo(name).min), int(np.iinfo(name).max))
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
}


def _interval(node: ir.Expr, scalars: dict[str, str]) -> tuple[int, int] | None:
    """The values an integer bound expression can take (None: not known)."""
    if isinstance(node, ir.Literal):
        if node.dtype == "bool":
            return None
        value = int(float(node.value))
        return value, value
    if isinstance(node, ir.SymRef):
        return _INT_RANGES.get(scalars.get(node.name, ""))
    if isinstance(node, ir.FieldBound):
        return INDEX_MIN, INDEX_MAX
    if isinstance(node, ir.Cast):
        return _interval(node.value, scalars) if node.dtype in _INT_RANGES else None
    if isinstance(node, ir.Call):
        parts = [_interval(a, scalars) for a in node.args]
        if any(p is None for p in parts):
            return None
        if node.fun == "neg" and len(parts) == 1:
            lo, hi = parts[0]  # type: ignore[misc]
            return -hi, -lo
        if len(parts) != 2:
            return None
        (a, b), (c, d) = parts  # type: ignore[misc]
        if node.fun == "plus":
            return a + c, b + d
        if node.fun == "minus":
            return a - d, b - c
        if node.fun in ("minimum", "maximum"):
            pick = min if node.fun == "minimum" else max
            return pick(a, c), pick(b, d)
        if node.fun == "multiplies":
            corners = [a * c, a * d, b * c, b * d]
            return min(corners), max(corners)
    return None


def _provably_fits(r: ir.Range, scalars: dict[str, str]) -> bool:
    """Whether a range's bounds fit the index space for every argument value: bounds from
    int32 scalars and literals, say, or a direct call's ``domain=`` (checked in Python by
    ``_variant_keys.domain_bounds``)."""
    if (
        isinstance(r.start, ir.SymRef)
        and isinstance(r.stop, ir.SymRef)
        and r.start.name.startswith("__domain")
        and r.start.name.endswith("_start")
        and r.stop.name == r.start.name.removesuffix("_start") + "_stop"
    ):
        return True
    lo, hi = _interval(r.start, scalars), _interval(r.stop, scalars)
    if lo is None or hi is None:
        return False
    return (
        lo[0] >= INDEX_MIN
        and lo[1] <= INDEX_MAX
        and hi[0] >= INDEX_MIN
        and hi[1] <= INDEX_MAX
        and hi[0] - lo[1] >= INDEX_MIN
        and hi[1] - lo[0] <= INDEX_MAX
    )


def index_checks(program: ir.Program) -> list[IndexCheck]:
    """The index-space checks of ``program``'s statement ranges (ranges that fit for every
    argument value, and statements whose bounds the check code cannot evaluate, left out)."""
    scalars = {p.name: p.dtype for p in program.params if isinstance(p, ir.ScalarParam)}
    fields = {p.name: p for p in program.params if isinstance(p, ir.FieldParam)}
    checks: dict[tuple[str, str, str], IndexCheck] = {}  # one per range (a covered one)
    for k, statement in enumerate(program.body):
        written = {d for o in statement.outputs if o in fields for d in fields[o].dims}
        for r in statement.domain:
            if _provably_fits(r, scalars):
                continue
            try:
                lo, hi = bound_code(r.start), bound_code(r.stop)
            except UnsupportedBound:
                continue
            known = checks.get((r.dim, lo, hi))
            if known is None or (not known.covered and r.dim in written):
                checks[(r.dim, lo, hi)] = IndexCheck(k, r.dim, lo, hi, r.dim in written)
    return list(checks.values())
