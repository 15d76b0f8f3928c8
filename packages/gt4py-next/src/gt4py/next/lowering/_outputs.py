"""The domains operator calls write: the bounds of ``out`` (cut by ``out=f[1:-1, :]`` slices)
or ``domain=``, and the split of one call into per-output statements when the outputs of a
call are given different domains."""

from __future__ import annotations

import ast
from typing import Any

from .. import ir
from ..ir import expr_text, literal
from ._errors import LoweringError


INDEX_DTYPE = "int64"


def out_domain(out_param: ir.FieldParam) -> list[ir.Range]:
    return [
        ir.Range(
            dim=d,
            start=ir.FieldBound(field=out_param.name, dim=d, upper=False),
            stop=ir.FieldBound(field=out_param.name, dim=d, upper=True),
        )
        for d in out_param.dims
    ]


def sliced(domain: list[ir.Range], slices: list[tuple[int | None, int | None]]) -> list[ir.Range]:
    """The output domain cut by positional slices relative to the field's own bounds."""

    def bound(r: ir.Range, value: int | None, default: ir.Expr) -> ir.Expr:
        if value is None:
            return default
        base = r.stop if value < 0 else r.start
        return ir.Call(fun="plus", args=[base, literal(value, INDEX_DTYPE)])

    result = list(domain)
    for position, (start, stop) in enumerate(slices):
        r = result[position]
        result[position] = ir.Range(
            dim=r.dim, start=bound(r, start, r.start), stop=bound(r, stop, r.stop)
        )
    return result


def domain_leaves(node: ast.expr) -> list[ast.expr]:
    """The domains of ``domain=``, one per output field: nested tuples (for an output that is
    a tuple or NamedTuple of fields) flattened in order."""
    if isinstance(node, ast.Tuple):
        return [leaf for element in node.elts for leaf in domain_leaves(element)]
    return [node]


def per_output_domains(
    statements: list[ir.Apply | ir.Scan], domains: list[list[ir.Range]], operator: Any
) -> list[ir.Apply | ir.Scan]:
    """``domain=({...}, {...})``: each output written over its own domain. An ``Apply`` is
    split into one statement per distinct domain (the values are pure: recomputing them is
    safe); a scan's outputs must share one domain."""
    *pending, last = statements
    if all(_same_domain(d, domains[0]) for d in domains[1:]):
        return statements
    if isinstance(last, ir.Scan):
        raise LoweringError(
            f"the outputs of scan operator {operator.__name__} are given different domains; "
            "a scan computes all its outputs over one domain"
        )
    entries = list(zip(last.outputs, last.values, domains, strict=True))
    # An output is written only once no other value reads it: directly or, preferably, through
    # the temporaries of ``pending`` (computed before the split statements, but the
    # ``temporaries`` pass may inline them into them: it keeps them only where it must).
    through = _temporary_sources(pending)
    order = _write_order(entries, through) or _write_order(entries, {})
    if order is None:
        names = ", ".join(repr(o) for o, _, _ in entries)
        raise LoweringError(
            f"{operator.__name__} writes {names} over different domains and each is read "
            "for another: pass separate output fields"
        )
    split = [ir.Apply(outputs=[o], domain=d, values=[v]) for o, v, d in order]
    return [*pending, *split]


def _write_order(
    entries: list[tuple[str, ir.Expr, list[ir.Range]]], through: dict[str, set[str]]
) -> list[tuple[str, ir.Expr, list[ir.Range]]] | None:
    """``entries`` ordered so that no output is written before another value reads it (None:
    there is a cycle); reads of a temporary count as reads of the fields in ``through``."""
    reads = [_fields_read(value, through) for _, value, _ in entries]
    remaining = list(range(len(entries)))
    order = []
    while remaining:
        for index in remaining:
            output = entries[index][0]
            if not any(output in reads[i] for i in remaining if i != index):
                order.append(entries[index])
                remaining.remove(index)
                break
        else:
            return None
    return order


def _fields_read(value: ir.Expr, through: dict[str, set[str]]) -> set[str]:
    fields: set[str] = set()
    for deref in value.walk_values().if_isinstance(ir.Deref):
        fields |= through.get(deref.field, {deref.field})
    return fields


def _temporary_sources(pending: list[ir.Apply | ir.Scan]) -> dict[str, set[str]]:
    """The fields each temporary written by ``pending`` is computed from, through the
    temporaries it reads in turn (each output of a scan: everything the scan reads)."""
    through: dict[str, set[str]] = {}
    for statement in pending:
        if isinstance(statement, ir.Apply):
            for output, value in zip(statement.outputs, statement.values, strict=True):
                through[output] = _fields_read(value, through)
        else:
            fields = set().union(
                *(_fields_read(v, through) for v in [*statement.init, *statement.values])
            )
            through.update(dict.fromkeys(statement.outputs, fields))
    return through


def _same_domain(a: list[ir.Range], b: list[ir.Range]) -> bool:
    return [(r.dim, expr_text(r.start), expr_text(r.stop)) for r in a] == [
        (r.dim, expr_text(r.start), expr_text(r.stop)) for r in b
    ]


__all__ = ["INDEX_DTYPE", "domain_leaves", "out_domain", "per_output_domains", "sliced"]
