"""The analysed IR: extents (the halo each field and statement needs), access kinds, K accesses,
temporary storage, and the dependency checks of the parallel model.

Execution model shared by every backend (see ``debug``): computations run in order; inside a
computation, intervals run in source order (PARALLEL), ascending (FORWARD) or descending
(BACKWARD); in PARALLEL each top-level statement runs over its whole interval before the next,
in FORWARD/BACKWARD every statement of a level runs before the next level.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from . import _ir, _ir as ir
from ._errors import GTScriptDefinitionError


@dataclasses.dataclass(frozen=True)
class Extent:
    """A horizontal halo around the compute domain: ``i_lo``/``j_lo`` <= 0 <= ``i_hi``/``j_hi``."""

    i_lo: int = 0
    i_hi: int = 0
    j_lo: int = 0
    j_hi: int = 0

    def union(self, other: Extent) -> Extent:
        return Extent(
            min(self.i_lo, other.i_lo),
            max(self.i_hi, other.i_hi),
            min(self.j_lo, other.j_lo),
            max(self.j_hi, other.j_hi),
        )

    def shifted(self, di: int, dj: int) -> Extent:
        return Extent(
            min(0, self.i_lo + di),
            max(0, self.i_hi + di),
            min(0, self.j_lo + dj),
            max(0, self.j_hi + dj),
        )

    @property
    def is_zero(self) -> bool:
        return self == ZERO


ZERO = Extent()

# (start level, start offset, end level, end offset, K offset) of one static access.
KAccess = tuple[str, int, str, int, int]


@dataclasses.dataclass
class AnalysedStencil:
    ir: ir.Stencil
    stmt_extents: dict[int, Extent]  # id() of each top-level statement -> where it computes
    field_extents: dict[str, Extent]  # every field -> the halo it is read with
    k_accesses: dict[str, set[KAccess]]  # parameter fields -> their static K accesses
    access: dict[str, str]  # parameter -> "in", "out" or "inout"
    temp_halo: Extent
    temp_k_halo: tuple[int, int]  # levels below and above the domain temporaries keep
    decls: dict[str, _ir.FieldDecl | _ir.ScalarDecl]
    # Parameter fields -> the (smaller) halo they are read with when the domain has at least
    # ``large_domain_from`` points along I and J: a read in a region at one edge of the domain
    # (``region[I[-1], :]`` reading ``q[-5, 0, 0]``) then stays inside the domain.
    large_domain_extents: dict[str, Extent] = dataclasses.field(default_factory=dict)
    large_domain_from: tuple[int, int] = (1, 1)

    @property
    def temp_names(self) -> frozenset[str]:
        return frozenset(t.name for t in self.ir.temporaries)

    def describe(self) -> str:
        """A readable dump of the analysis (for GT4PY_DUMP_STAGES)."""
        lines = [f"stencil {self.ir.name}"]
        for name, kind in self.access.items():
            lines.append(f"  param {name}: {kind}, extent {self.field_extents.get(name, ZERO)}")
        for decl in self.ir.temporaries:
            lines.append(f"  temporary {decl.name}: {decl.dtype}")
        lines.append(f"  temporary halo {self.temp_halo}, K halo {self.temp_k_halo}")
        for comp in self.ir.computations:
            lines.append(f"  computation {comp.order} ({comp.loc})")
            for block in comp.intervals:
                lines.append(f"    interval {_pos(block.start)}..{_pos(block.end)}")
                for stmt in block.body:
                    lines.append(
                        f"      {type(stmt).__name__} at {stmt.loc}: {self.stmt_extents[id(stmt)]}"
                    )
        return "\n".join(lines)


def _pos(p: ir.AxisPosition) -> str:
    return f"{p.level}{p.offset:+d}"


def iter_exprs_reads(expr: ir.Expr) -> Iterator[ir.FieldRef]:
    """Every field read inside an expression (including index expressions)."""
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, ir.FieldRef):
            yield e
            stack.extend(x for x in (e.k_absolute, e.k_variable) if x is not None)
            stack.extend(i for i in e.data_index if isinstance(i, ir.Expr))
        elif isinstance(e, ir.BinaryOp):
            stack.extend((e.left, e.right))
        elif isinstance(e, ir.UnaryOp):
            stack.append(e.operand)
        elif isinstance(e, ir.TernaryOp):
            stack.extend((e.condition, e.true_value, e.false_value))
        elif isinstance(e, ir.Call):
            stack.extend(e.args)
        elif isinstance(e, ir.Cast):
            stack.append(e.value)


Regions = tuple[ir.HorizontalRegion, ...]


def iter_accesses(stmt: ir.Stmt) -> Iterator[tuple[str, ir.FieldRef, ir.SourceLocation]]:
    """("read" | "write", field reference, loc of the innermost statement), in order."""
    for kind, ref, loc, _regions in iter_accesses_in_regions(stmt):
        yield kind, ref, loc


def iter_accesses_in_regions(
    stmt: ir.Stmt, regions: Regions = ()
) -> Iterator[tuple[str, ir.FieldRef, ir.SourceLocation, Regions]]:
    """:func:`iter_accesses`, each with the horizontal regions it sits in (outermost first)."""
    if isinstance(stmt, ir.Assign):
        for ref in iter_exprs_reads(stmt.value):
            yield "read", ref, stmt.loc, regions
        for index in stmt.target.data_index:  # a data index computed at run time
            if isinstance(index, ir.Expr):
                for ref in iter_exprs_reads(index):
                    yield "read", ref, stmt.loc, regions
        yield "write", stmt.target, stmt.loc, regions
    elif isinstance(stmt, ir.If | ir.While):
        for ref in iter_exprs_reads(stmt.condition):
            yield "read", ref, stmt.loc, regions
        for inner in stmt.body:
            yield from iter_accesses_in_regions(inner, regions)
        for inner in getattr(stmt, "orelse", []):
            yield from iter_accesses_in_regions(inner, regions)
        if isinstance(stmt, ir.While):  # the condition is re-read after the body
            for ref in iter_exprs_reads(stmt.condition):
                yield "read", ref, stmt.loc, regions
    elif isinstance(stmt, ir.HorizontalRegion):
        for inner in stmt.body:
            yield from iter_accesses_in_regions(inner, (*regions, stmt))


def large_domain_read_extent(
    ext: Extent, regions: Regions, di: int, dj: int
) -> tuple[Extent | None, tuple[int, int]]:
    """:func:`read_extent` for a domain of at least the returned (I, J) sizes, where a region
    bound counted from the other edge is far away: ``region[I[-1], :]`` holds only points
    near the domain's end, so a read ``q[-5, 0, 0]`` there needs no low-side halo once the
    domain has 6 points."""
    sides = []
    sizes = []
    for lo_ext, hi_ext, lo, hi, d in (
        (ext.i_lo, ext.i_hi, "i_start", "i_end", di),
        (ext.j_lo, ext.j_hi, "j_start", "j_end", dj),
    ):
        # points in [max(a, n + b), min(c, n + e)) for a domain of n points
        a, e = lo_ext, hi_ext
        b: int | None = None
        c: int | None = None
        for region in regions:
            start, end = getattr(region, lo), getattr(region, hi)
            if start is not None:
                if start.level == "start":
                    a = max(a, start.offset)
                else:
                    b = start.offset if b is None else max(b, start.offset)
            if end is not None:
                if end.level == "end":
                    e = min(e, end.offset)
                else:
                    c = end.offset if c is None else min(c, end.offset)
        size = 1
        if b is not None:
            size = max(size, a - b, -(b + d))  # the lowest point is n + b, inside the domain
        if c is not None:
            size = max(size, c - e, c + d)  # the highest is c - 1, far from the end
        if b is not None and c is not None:
            size = max(size, c - b)  # [n + b, c) is empty
            sizes.append(size)
            return None, _pad(sizes)
        sides.append((0 if b is not None else min(0, a + d), 0 if c is not None else max(0, e + d)))
        sizes.append(size)
    (i_lo, i_hi), (j_lo, j_hi) = sides
    return Extent(i_lo, i_hi, j_lo, j_hi), (sizes[0], sizes[1])


def _pad(sizes: list[int]) -> tuple[int, int]:
    return (sizes[0], sizes[1] if len(sizes) > 1 else 1)


def read_extent(ext: Extent, regions: Regions, di: int, dj: int) -> Extent | None:
    """The halo a read at offset ``(di, dj)`` needs when its statement computes over ``ext``
    and the read sits in ``regions``: only the points inside every region read. None when no
    point is inside them, whatever the domain size.

    Exact (and valid for every domain size) on a side where a region's bound counts from that
    same edge: ``region[I[0] - 3, :]`` limits the low side, ``region[I[-1] + 1:, :]`` the high
    side. A bound counted from the other edge cannot be compared without the domain size, so
    it limits nothing here (conservative) unless the region is empty for every size.
    """
    bounds = []
    for lo_ext, hi_ext, lo, hi in (
        (ext.i_lo, ext.i_hi, "i_start", "i_end"),
        (ext.j_lo, ext.j_hi, "j_start", "j_end"),
    ):
        low = lo_ext  # points >= low (from the domain's start)
        high = hi_ext  # points < size + high (from the domain's end)
        for region in regions:
            start, end = getattr(region, lo), getattr(region, hi)
            if start is not None and start.level == "start":
                low = max(low, start.offset)
            if end is not None and end.level == "end":
                high = min(high, end.offset)
        for region in regions:
            start, end = getattr(region, lo), getattr(region, hi)
            if (end is not None and end.level == "start" and end.offset <= low) or (
                start is not None and start.level == "end" and start.offset >= high
            ):
                return None
        bounds.append((low, high))
    (i_lo, i_hi), (j_lo, j_hi) = bounds
    return Extent(min(0, i_lo + di), max(0, i_hi + di), min(0, j_lo + dj), max(0, j_hi + dj))


def analyse(stencil: ir.Stencil) -> AnalysedStencil:
    decls: dict[str, ir.FieldDecl | ir.ScalarDecl] = {p.name: p for p in stencil.params}
    decls.update({t.name: t for t in stencil.temporaries})
    temps = {t.name for t in stencil.temporaries}
    top: list[tuple[ir.Stmt, ir.Computation, ir.IntervalBlock]] = [
        (stmt, comp, block)
        for comp in stencil.computations
        for block in comp.intervals
        for stmt in block.body
    ]
    for comp in stencil.computations:
        for block in comp.intervals:
            _check_dependencies(comp, block)
            if comp.order == "PARALLEL":
                _check_parallel_writes(block, decls)

    # Extents: a statement computes wherever a later (or, in a K loop, earlier) reader of a
    # temporary it writes needs it; a field needs the reader's extent shifted by the offset.
    # Iterated to a fixed point; growth without bound means a circular offset dependency.
    stmt_ext = {id(s): ZERO for s, _, _ in top}
    field_ext: dict[str, Extent] = {}
    accesses = {id(s): list(iter_accesses_in_regions(s)) for s, _, _ in top}
    for _ in range(64):
        changed = False
        for stmt, _, _ in top:
            ext = stmt_ext[id(stmt)]
            for kind, ref, _loc, _regions in accesses[id(stmt)]:
                if kind == "write" and ref.name in temps:
                    ext = ext.union(field_ext.get(ref.name, ZERO))
            if ext != stmt_ext[id(stmt)]:
                stmt_ext[id(stmt)] = ext
                changed = True
            for kind, ref, _loc, regions in accesses[id(stmt)]:
                if kind == "read":
                    needed = read_extent(ext, regions, ref.offset[0], ref.offset[1])
                    if needed is None:  # the read sits in regions outside where it computes
                        continue
                    merged = field_ext.get(ref.name, ZERO).union(needed)
                    if merged != field_ext.get(ref.name):
                        field_ext[ref.name] = merged
                        changed = True
        if not changed:
            break
    else:
        raise GTScriptDefinitionError(
            "temporaries read each other with horizontal offsets in a cycle, so no finite "
            "halo can compute them",
            loc=stencil.loc,
        )

    k_accesses: dict[str, set[KAccess]] = {p.name: set() for p in stencil.params}
    access: dict[str, str] = {}
    temp_k = [0, 0]
    for stmt, _comp, block in top:
        for kind, ref, _loc, _regions in accesses[id(stmt)]:
            decl = decls[ref.name]
            if (
                isinstance(decl, ir.FieldDecl)
                and ref.name in k_accesses
                and "K" in decl.axes
                and ref.k_absolute is None
                and ref.k_variable is None
            ):
                k_accesses[ref.name].add(
                    (
                        block.start.level,
                        block.start.offset,
                        block.end.level,
                        block.end.offset,
                        ref.offset[2],
                    )
                )
            if ref.name in temps:
                temp_k[0] = max(temp_k[0], -ref.offset[2])
                temp_k[1] = max(temp_k[1], ref.offset[2])
            if ref.name in k_accesses:
                before = access.get(ref.name)
                now = "in" if kind == "read" else "out"
                access[ref.name] = now if before in (None, now) else "inout"
    large_ext: dict[str, Extent] = {}
    large_from = (1, 1)
    for stmt, _, _ in top:
        for kind, ref, _loc, regions in accesses[id(stmt)]:
            if kind != "read" or ref.name in temps:
                continue
            needed, sizes = large_domain_read_extent(
                stmt_ext[id(stmt)], regions, ref.offset[0], ref.offset[1]
            )
            large_from = (max(large_from[0], sizes[0]), max(large_from[1], sizes[1]))
            if needed is not None:
                large_ext[ref.name] = large_ext.get(ref.name, ZERO).union(needed)
    temp_halo = ZERO
    for stmt, _, _ in top:
        temp_halo = temp_halo.union(stmt_ext[id(stmt)])
    for name in temps:
        temp_halo = temp_halo.union(field_ext.get(name, ZERO))
    # scalar parameters are read-only: "in" where the stencil reads one (released's
    # parameter_info tells used scalars from unused ones)
    scalars = {p.name for p in stencil.params if isinstance(p, ir.ScalarDecl)}
    for node in stencil.iter_tree():
        if isinstance(node, ir.ScalarRef) and node.name in scalars:
            access[node.name] = "in"
    for param in stencil.params:
        access.setdefault(param.name, "none")
    return AnalysedStencil(
        ir=stencil,
        stmt_extents=stmt_ext,
        field_extents=field_ext,
        k_accesses=k_accesses,
        access={p.name: access[p.name] for p in stencil.params},
        temp_halo=temp_halo,
        temp_k_halo=(temp_k[0], temp_k[1]),
        decls=decls,
        large_domain_extents=large_ext,
        large_domain_from=large_from,
    )


def _check_dependencies(comp: ir.Computation, block: ir.IntervalBlock) -> None:
    """Reject a field read with an offset and written at or after that read.

    Such code would read neighbours that may or may not be updated yet, depending on the
    backend's loop order. In PARALLEL any offset counts; in FORWARD/BACKWARD only horizontal
    ones (vertical offsets are the point of a sequential computation).
    """
    stmts = block.body
    for n, stmt in enumerate(stmts):
        for kind, ref, loc in iter_accesses(stmt):
            if kind != "read":
                continue
            offset = ref.offset if comp.order == "PARALLEL" else (*ref.offset[:2], 0)
            if not any(offset) and not (comp.order == "PARALLEL" and ref.k_variable is not None):
                continue
            for later in stmts[n:]:
                for later_kind, later_ref, later_loc in iter_accesses(later):
                    if later_kind == "write" and later_ref.name == ref.name:
                        raise GTScriptDefinitionError(
                            f"illegal dependency in a {comp.order} computation: '{ref.name}' "
                            f"is read with offset {list(ref.offset)} and written in the same "
                            f"computation (at {later_loc}); write the result to a new field "
                            "or temporary instead",
                            loc=loc,
                        )


def _check_parallel_writes(
    block: ir.IntervalBlock, decls: dict[str, ir.FieldDecl | ir.ScalarDecl]
) -> None:
    """A field without a K axis (IJ) holds one value per column: the levels of a PARALLEL
    interval would all write it at once, in no defined order."""
    for stmt in block.body:
        for kind, ref, loc in iter_accesses(stmt):
            decl = decls[ref.name]
            if kind == "write" and isinstance(decl, ir.FieldDecl) and "K" not in decl.axes:
                raise GTScriptDefinitionError(
                    f"cannot write to '{ref.name}' (axes {decl.axes}) in a PARALLEL "
                    "computation: all its levels would write the same element at once; "
                    "write it in a FORWARD or BACKWARD computation",
                    loc=loc,
                )
