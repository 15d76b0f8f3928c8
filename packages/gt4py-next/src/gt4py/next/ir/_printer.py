"""The textual form of the IR (read back by :mod:`._parser`).

Expressions are prefix calls (``plus(a, 1.0:float64)``) with a few special forms::

    $a(I+1, E2V[0], V2E[*], K+(k_off))    field read, shifts in order
    index<K>   cast<float32>(e)   let x = e in (e)   bound<lo>(a, I)
    reduce<plus, V2E; V2E, E2C>(init, body)

A program::

    program lap(a: field[I, J] float64, out: field[I, J] float64, n: int32)
    offsets(E2V: Edge[E2V] -> Vertex)
    temporaries(t: field[I, J] float64 [I: 0 .. n, J: 0 .. 5]) {
      out <- apply[I: 1 .. n, J: 0 .. 5](plus($a(I+1), $a(I-1)));
      (x, y) <- scan<K, forward; c0, c1>[K: 0 .. 4](init(0.0:float64, 0.0:float64); ...);
    }
"""

from __future__ import annotations

from . import _nodes as ir


def _join(items: list[str]) -> str:
    return ", ".join(items)


def expr_text(node: ir.Expr) -> str:
    if isinstance(node, ir.Literal):
        return f"{node.value}:{node.dtype}"
    if isinstance(node, ir.SymRef):
        return node.name
    if isinstance(node, ir.Deref):
        if not node.shifts:
            return f"${node.field}"
        return f"${node.field}({_join([_shift_text(s) for s in node.shifts])})"
    if isinstance(node, ir.AxisIndex):
        return f"index<{node.dim}>"
    if isinstance(node, ir.Call):
        return f"{node.fun}({_join([expr_text(a) for a in node.args])})"
    if isinstance(node, ir.Cast):
        return f"cast<{node.dtype}>({expr_text(node.value)})"
    if isinstance(node, ir.Let):
        return f"let {node.name} = {expr_text(node.value)} in ({expr_text(node.body)})"
    if isinstance(node, ir.Reduce):
        tables = f"; {_join(node.tables)}" if node.tables else ""
        return (
            f"reduce<{node.op}, {node.axis}{tables}>"
            f"({expr_text(node.init)}, {expr_text(node.body)})"
        )
    if isinstance(node, ir.FieldBound):
        return f"bound<{'hi' if node.upper else 'lo'}>({node.field}, {node.dim})"
    raise TypeError(f"not an IR expression: {node!r}")


def _shift_text(shift: ir.Shift) -> str:
    if isinstance(shift, ir.CartesianShift):
        return f"{shift.dim}{'-' if shift.amount < 0 else '+'}{abs(shift.amount)}"
    if isinstance(shift, ir.NeighbourShift):
        star = "*" + "^" * shift.outer
        return f"{shift.offset}[{star if shift.index is None else shift.index}]"
    if isinstance(shift, ir.DynamicShift):
        return f"{shift.dim}+({expr_text(shift.amount)})"
    if isinstance(shift, ir.LocalIndex):
        return f"{shift.dim}@{shift.index}"
    raise TypeError(f"not an IR shift: {shift!r}")


def _domain_text(ranges: list[ir.Range]) -> str:
    return _join([f"{r.dim}: {expr_text(r.start)} .. {expr_text(r.stop)}" for r in ranges])


def _outputs_text(outputs: list[str]) -> str:
    return outputs[0] if len(outputs) == 1 else f"({_join(outputs)})"


def _statement_text(statement: ir.Apply | ir.Scan) -> str:
    bindings = "".join(f"bind {b.name} = {expr_text(b.value)}; " for b in statement.bindings)
    values = bindings + _join([expr_text(v) for v in statement.values])
    domain = _domain_text(statement.domain)
    if isinstance(statement, ir.Apply):
        return f"{_outputs_text(statement.outputs)} <- apply[{domain}]({values});"
    direction = "forward" if statement.forward else "backward"
    init = _join([expr_text(v) for v in statement.init])
    return (
        f"{_outputs_text(statement.outputs)} <- scan<{statement.axis}, {direction}; "
        f"{_join(statement.carries)}>[{domain}](init({init}); {values});"
    )


def _param_text(param: ir.FieldParam | ir.ScalarParam) -> str:
    if isinstance(param, ir.FieldParam):
        return f"{param.name}: field[{_join(param.dims)}] {param.dtype}"
    return f"{param.name}: {param.dtype}"


def _offset_text(offset: ir.OffsetDecl) -> str:
    local = f"[{offset.local}]" if offset.local is not None else ""
    return f"{offset.name}: {offset.domain_dim}{local} -> {offset.codomain}"


def _temporary_text(temporary: ir.Temporary) -> str:
    return (
        f"{temporary.name}: field[{_join(temporary.dims)}] {temporary.dtype}"
        f" [{_domain_text(temporary.domain)}]"
    )


def program_text(program: ir.Program) -> str:
    """The program as text; :func:`gt4py.next.ir.parse_program` reads it back."""
    header = f"program {program.name}({_join([_param_text(p) for p in program.params])})"
    if program.offsets:
        header += f"\noffsets({_join([_offset_text(o) for o in program.offsets])})"
    if program.temporaries:
        header += f"\ntemporaries({_join([_temporary_text(t) for t in program.temporaries])})"
    body = "".join(f"\n  {_statement_text(s)}" for s in program.body)
    return f"{header} {{{body}\n}}\n"


def to_text(node: ir.Program | ir.Expr) -> str:
    if isinstance(node, ir.Program):
        return program_text(node)
    return expr_text(node)
