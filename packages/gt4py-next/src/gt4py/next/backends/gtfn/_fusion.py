"""Loop fusion, decided at run time, of the statements a tuple result was split into.

Lowering writes each output of a tuple result over its own domain: one single-output
``Apply`` per output (``lowering/_outputs.py``). Outputs over the same dimensions usually
have the same bounds at run time (``out=(a, b)`` with ``a`` and ``b`` of one shape), and then
one loop nest computing all values per point reads the inputs once instead of once per
output. So a run of consecutive single-output ``Apply`` statements over the same dimensions
(in the same order), none reading a field another one writes, is emitted as

    if (<their bounds are equal>) { <one nest writing every output> } else { <each nest> }

(just the fused nest when the bounds are the same expressions). Both generators use it.
"""

from __future__ import annotations

from collections.abc import Callable

from ... import ir
from ...ir import expr_text


def _fields_read(statement: ir.Apply) -> set[str]:
    return {
        node.field
        for value in statement.values
        for node in value.walk_values().if_isinstance(ir.Deref)
    }


def _dims(statement: ir.Apply | ir.Scan) -> list[str]:
    return [r.dim for r in statement.domain]


def _joins(run: list[ir.Apply], statement: ir.Apply | ir.Scan) -> bool:
    if not (isinstance(statement, ir.Apply) and len(statement.outputs) == 1):
        return False
    if statement.bindings or not statement.domain or _dims(statement) != _dims(run[0]):
        return False
    written = {o for s in run for o in s.outputs}
    read = set().union(*(_fields_read(s) for s in run))
    (output,) = statement.outputs
    return output not in written and output not in read and not (_fields_read(statement) & written)


def runs(body: list[ir.Apply | ir.Scan]) -> list[list[ir.Apply | ir.Scan]]:
    """``body`` cut into runs of consecutive statements: a run of two or more statements can
    be fused (one statement alone is a run of one)."""
    result: list[list[ir.Apply | ir.Scan]] = []
    for statement in body:
        last = result[-1] if result else None
        if (
            last is not None
            and isinstance(last[0], ir.Apply)
            and not last[0].bindings
            and len(last[0].outputs) == 1
            and _joins(last, statement)  # type: ignore[arg-type]  # checked: Applies
        ):
            last.append(statement)
        else:
            result.append([statement])
    return result


def fused(run: list[ir.Apply | ir.Scan]) -> ir.Apply:
    """One statement writing every output of ``run`` over the first one's domain."""
    return ir.Apply(
        outputs=[o for s in run for o in s.outputs],
        domain=run[0].domain,
        values=[v for s in run for v in s.values],
    )


def same_bounds(run: list[ir.Apply | ir.Scan], code: Callable[[ir.Expr], str]) -> str | None:
    """C++ condition that every statement of ``run`` has the first one's bounds (None: they
    are the same expressions)."""
    terms = []
    for statement in run[1:]:
        for mine, first in zip(statement.domain, run[0].domain, strict=True):
            for a, b in ((mine.start, first.start), (mine.stop, first.stop)):
                if expr_text(a) != expr_text(b):
                    terms.append(f"index_t({code(a)}) == index_t({code(b)})")
    return " && ".join(terms) if terms else None


def emit(
    body: list[ir.Apply | ir.Scan],
    statement_code: Callable[[ir.Apply | ir.Scan], str],
    bound_code: Callable[[ir.Expr], str],
) -> list[str | tuple[str | None, str, list[str]]]:
    """The code of each run of ``body``: a statement's code, or ``(condition, fused code,
    codes of its statements)`` for a fusable run (generated in this order, once each)."""
    items: list[str | tuple[str | None, str, list[str]]] = []
    for run in runs(body):
        if len(run) == 1:
            items.append(statement_code(run[0]))
            continue
        condition = same_bounds(run, bound_code)
        fused_code = statement_code(fused(run))
        separate = [] if condition is None else [statement_code(s) for s in run]
        items.append((condition, fused_code, separate))
    return items


def assemble(items: list[str | tuple[str | None, str, list[str]]], stop: str) -> str:
    """The statements' codes, each followed by ``stop``, fused runs under their condition."""
    lines: list[str] = []
    for item in items:
        if isinstance(item, str):
            lines.extend([item, stop])
            continue
        condition, fused_code, separate = item
        if condition is None:
            lines.extend([fused_code, stop])
            continue
        lines.append(f"  if ({condition}) {{")
        lines.extend([fused_code, stop])
        lines.append("  } else {")
        for code in separate:
            lines.extend([code, stop])
        lines.append("  }")
    return "\n".join(lines)


__all__ = ["assemble", "emit", "fused", "runs", "same_bounds"]
