"""Fields that share memory: how a compiled call gives embedded's result anyway (ADR 0027).

Embedded execution computes each operator call's whole result, then assigns it: every read of
the call sees memory as it was before the call, and a later call sees what earlier ones
wrote. The generated code writes point by point, so an input that is also an output (or
shares its memory) can be read after it was overwritten. Two remedies:

- **One field read and written by one statement** at another point (``op(a, out=a[1:-1])``
  reading ``a(I-1)`` in a program): known from the IR alone. :func:`stage_self_writes`
  computes such a statement into a temporary and copies that into the field afterwards, in
  every variant that has one.
- **Two arguments sharing memory** (``op(a, out=a)``, ``prog(x, x)``): known only per call.
  The call stub compares the objects owning the field arrays' memory
  (``storage.memory_owner``), one ``is`` per (written field, other field) pair; on a match
  (or memory of a foreign owner) it calls :meth:`AliasPlan.resolve`, which compares address
  ranges, and per read field that needs it passes a copy (the reads then see the memory of
  before the call, as embedded's do), or, where no copy gives embedded's result, runs the
  call embedded (with a warning). Two written fields sharing memory keep embedded's result
  in place when their statements run one after the other (the later one's values remain),
  or write every index at the same address; else the call runs embedded.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from gt4py import storage

from .. import ir
from ..embedded.nd_array_field import NdArrayField


# -- one field read and written by one statement ---------------------------------------------------


def _reads(statement: ir.Apply | ir.Scan) -> dict[str, bool]:
    """The fields a statement reads -> whether only at the point it computes (no shift)."""
    found: dict[str, bool] = {}
    values = [
        *(b.value for b in statement.bindings),
        *statement.values,
        *getattr(statement, "init", []),
    ]
    for value in values:
        for node in value.walk_values().if_isinstance(ir.Deref):
            found[node.field] = found.get(node.field, True) and not node.shifts
    return found


def stage_self_writes(program: ir.Program) -> tuple[ir.Program, list[int]]:
    """``program`` with every statement that writes a field parameter and reads it at
    another point computed into a temporary first, copied into the field after it; and per
    new statement the index of the statement it comes from."""
    params = {p.name: p for p in program.params if isinstance(p, ir.FieldParam)}
    body: list[ir.Apply | ir.Scan] = []
    origin: list[int] = []
    temporaries = list(program.temporaries)
    for k, statement in enumerate(program.body):
        reads = _reads(statement)
        staged = [o for o in statement.outputs if o in params and o in reads and not reads[o]]
        if not staged:
            body.append(statement)
            origin.append(k)
            continue
        renamed = {o: f"__staged_{o}_{k}" for o in staged}
        copies = []
        for output, temporary in renamed.items():
            param = params[output]
            domain = [r for r in statement.domain if r.dim in param.dims]
            temporaries.append(
                ir.Temporary(name=temporary, dims=param.dims, dtype=param.dtype, domain=domain)
            )
            copies.append(
                ir.Apply(
                    outputs=[output],
                    domain=statement.domain,
                    values=[ir.Deref(field=temporary, shifts=[])],
                )
            )
        body.append(statement.replace(outputs=[renamed.get(o, o) for o in statement.outputs]))
        origin.append(k)
        body.extend(copies)
        origin.extend([k] * len(copies))
    if len(body) == len(program.body):
        return program, origin
    return program.replace(body=body, temporaries=temporaries), origin


# -- arguments sharing memory -----------------------------------------------------------------------


def call_groups(definition: Any, program: ir.Program, is_program: bool) -> list[int] | None:
    """Per statement of ``program`` the operator call of the definition it comes from (a
    direct operator call: all 0); None where that cannot be told."""
    if not is_program:
        return [0] * len(program.body)
    from .. import lowering

    checked = definition.checked
    if len(checked.calls) == 1:
        return [0] * len(program.body)
    params = {p.name for p in program.params}
    counts = []
    try:
        for call in checked.calls:
            alone = lowering.lower_program(dataclasses.replace(checked, calls=(call,)))
            counts.append(sum(1 for s in alone.body if set(s.outputs) & params))
    except Exception:  # pragma: no cover  (a call the whole program lowers, alone)
        return None
    groups: list[int] = []
    call, left = 0, counts[0] if counts else 0
    pending = 0  # statements writing temporaries only: part of the call that follows
    for statement in program.body:
        if not set(statement.outputs) & params:
            pending += 1
            continue
        while left == 0:
            call += 1
            if call >= len(counts):
                return None
            left = counts[call]
        groups.extend([call] * (pending + 1))
        pending = 0
        left -= 1
    if pending or call != len(counts) - 1 or left:
        return None
    return groups


class AliasPlan:
    """What a variant's stub needs to handle field arguments sharing memory.

    ``fields``: the field parameters written or read, in parameter order; ``pairs``: (read,
    written) and (written, later written) index pairs into ``fields`` that must not share
    memory unnoticed; ``written``:
    the fields the program writes. ``reads[s]`` / ``writes[s]``: what statement ``s`` reads
    (-> only at its point) and writes; ``nests[s]``: the loop nest it runs in (statements of
    one nest run point by point together: gtfn fuses the outputs of a tuple result);
    ``groups``: per statement its operator call (None: unknown), worked out on first use."""

    __slots__ = (
        "_groups",
        "_source",
        "fields",
        "nests",
        "pairs",
        "reads",
        "writes",
        "written",
    )

    def __init__(
        self,
        program: ir.Program,
        groups: Callable[[], Sequence[int] | None],
        *,
        fuses: bool = True,
    ) -> None:
        params = [p.name for p in program.params if isinstance(p, ir.FieldParam)]
        self.reads = tuple(_reads(s) for s in program.body)
        self.writes = tuple(frozenset(s.outputs) for s in program.body)
        self.written = frozenset(o for w in self.writes for o in w if o in params)
        read = {f for r in self.reads for f in r if f in params}
        self.fields = tuple(p for p in params if p in self.written or p in read)
        self.pairs = tuple(
            (i, j)
            for i, reader in enumerate(self.fields)
            for j, writer in enumerate(self.fields)
            if reader != writer
            and writer in self.written
            and (reader in read or (reader in self.written and i < j))
        )
        self.nests = _nests(program.body) if fuses else tuple(range(len(program.body)))
        self._source = groups
        self._groups: tuple[int, ...] | bool | None = False  # False: not asked yet

    @property
    def groups(self) -> tuple[int, ...] | None:
        if self._groups is False:
            found = self._source()
            self._groups = None if found is None else tuple(found)
        return self._groups  # type: ignore[return-value]  # not False any more

    def _sees(self, t: int, s: int, identity_safe: bool) -> str:
        """What a read in statement ``s`` sees of the writes of statement ``t`` in place:
        ``"all"`` (``t`` ran before, in its own nest), ``"none"`` (``t`` runs after, or they
        run point by point together and the read is at the written point, which reads before
        it writes) or ``"some"`` (point by point together: the points written so far)."""
        if self.nests[t] == self.nests[s]:
            return "none" if identity_safe else "some"
        return "all" if t < s else "none"

    def verdict(self, reader: str, writers: Sequence[tuple[str, bool]]) -> str:
        """For a read field and the written ones sharing its memory (each with whether both
        map every index to the same element): ``"in place"`` (the reads see what embedded's
        do), ``"copy"`` (they must see none of the call's writes, and do with a copy) or
        ``"embedded"`` (neither gives embedded's result)."""
        groups = self.groups
        if groups is None:
            return "embedded"
        early = late = False
        for writer, same_map in writers:
            for t, written in enumerate(self.writes):
                if writer not in written:
                    continue
                for s, read in enumerate(self.reads):
                    if reader not in read:
                        continue
                    sees = self._sees(t, s, same_map and read[reader])
                    if groups[t] < groups[s]:  # embedded: an earlier call's writes, all
                        if sees != "all":
                            return "embedded"
                        late = True
                    elif sees != "none":  # embedded: none of its own call's or later ones
                        early = True
        if not early:
            return "in place"
        if late or reader in self.written:
            return "embedded"
        return "copy"

    def writes_in_place(self, first: str, second: str, same_map: bool) -> bool:
        """Whether two written fields sharing memory end as embedded leaves them: the later
        statement's values remain, unless they run point by point together (where only
        writes of every index to the same address keep that order)."""
        if same_map:
            return True
        return not any(
            first in written and second in also and self.nests[t] == self.nests[u]
            for t, written in enumerate(self.writes)
            for u, also in enumerate(self.writes)
        )

    def resolve(
        self, fields: Sequence[NdArrayField], datas: list[Any]
    ) -> tuple[list[Any] | None, str]:
        """The arrays to pass (``datas`` with copies of read fields where needed), or None
        where only an embedded run gives embedded's result (with the reason)."""
        spans = [storage.byte_span(d) for d in datas]
        overlapping: dict[int, list[tuple[int, bool]]] = {}
        for i, j in self.pairs:
            if storage.spans_overlap(spans[i], spans[j]):
                same = _same_map(fields[i], datas[i], fields[j], datas[j])
                first, second = self.fields[i], self.fields[j]
                if first in self.written and not self.writes_in_place(first, second, same):
                    return None, f"'{shown_name(first)}' and '{shown_name(second)}' share memory"
                if any(first in r for r in self.reads):
                    overlapping.setdefault(i, []).append((j, same))
        result = list(datas)
        for i, writers in overlapping.items():
            verdict = self.verdict(self.fields[i], [(self.fields[j], m) for j, m in writers])
            if verdict == "embedded":
                others = ", ".join(f"'{shown_name(self.fields[j])}'" for j, _ in writers)
                return None, f"'{shown_name(self.fields[i])}' and {others} share memory"
            if verdict == "copy":
                result[i] = datas[i].copy()
        return result, ""


def _nests(body: Sequence[ir.Apply | ir.Scan]) -> tuple[int, ...]:
    """Per statement the loop nest it runs in, as gtfn fuses them (``gtfn._fusion``; where
    the bounds differ at run time they run apart, which is not worse)."""
    from .gtfn import _fusion

    nests: list[int] = []
    for n, run in enumerate(_fusion.runs(list(body))):
        nests.extend([n] * len(run))
    return tuple(nests)


def shown_name(param: str) -> str:
    """An IR field parameter as the caller named it: ``a__1`` is ``a[1]``, a direct call's
    ``__out`` / ``__out__0`` are ``out`` / ``out[0]``."""
    from ._extents import argument_name

    if param == "__out" or param.startswith("__out__"):
        param = param.removeprefix("__")
    return argument_name(param)


def _same_map(f: NdArrayField, a: Any, g: NdArrayField, b: Any) -> bool:
    """Whether two fields put every index at the same address (views of one field)."""
    if f._domain.dims != g._domain.dims or a.strides != b.strides or a.dtype != b.dtype:
        return False
    zero_a = storage.data_address(a) - sum(
        int(r.start) * int(s) for r, s in zip(f._domain.ranges, a.strides, strict=True)
    )
    zero_b = storage.data_address(b) - sum(
        int(r.start) * int(s) for r, s in zip(g._domain.ranges, b.strides, strict=True)
    )
    return bool(zero_a == zero_b)


def run_embedded(definition: Any, args: tuple[Any, ...], provider: Any, why: str) -> None:
    """The program call, run embedded (its arrays' namespace), with a warning saying why."""
    from .. import _backend

    callee = f"program '{definition.__name__}'"
    warnings.warn(
        f"{callee}: arguments {why}; no copy gives embedded's result, so this call runs "
        "embedded (slowly); pass fields that do not share memory to run it compiled",
        stacklevel=4,
    )
    data = next((a._data for a in args if isinstance(a, NdArrayField)), None)
    backend: Any = _backend.embedded_numpy
    if data is not None and type(data).__module__.startswith("cupy"):
        backend = _backend.lazy_embedded_backend("embedded_cupy")
    definition.with_backend(backend)(*args, offset_provider=provider)


__all__ = ["AliasPlan", "call_groups", "run_embedded", "shown_name", "stage_self_writes"]
