"""Reading the textual form of the IR (written by :mod:`._printer`) back into nodes.

The grammar is LALR (lark); lark is imported on first use so the IR itself stays light.
"""

from __future__ import annotations

import functools
from typing import Any

from . import _nodes as ir


_GRAMMAR = r"""
program: "program" NAME "(" [param ("," param)*] ")" offsets? temporaries? "{" statement* "}"
param: NAME ":" "field" "[" [NAME ("," NAME)*] "]" NAME   -> field_param
     | NAME ":" NAME                                        -> scalar_param
offsets: "offsets" "(" offset ("," offset)* ")"
offset: NAME ":" NAME ["[" NAME "]"] "->" NAME
temporaries: "temporaries" "(" temporary ("," temporary)* ")"
temporary: NAME ":" "field" "[" [NAME ("," NAME)*] "]" NAME "[" domain "]"
statement: outputs "<-" "apply" "[" domain "]" "(" bindings exprs ")" ";"        -> apply
         | outputs "<-" "scan" "<" NAME "," DIRECTION ";" names ">" "[" domain "]" \
           "(" "init" "(" exprs ")" ";" bindings exprs ")" ";"                     -> scan
bindings: binding*
binding: "bind" NAME "=" expr ";"
outputs: NAME | "(" names ")"
names: NAME ("," NAME)*
domain: [range ("," range)*]
range: NAME ":" expr ".." expr
exprs: expr ("," expr)*
?expr: LITERAL                                      -> literal
     | NAME                                         -> symref
     | "$" NAME ["(" shift ("," shift)* ")"]        -> deref
     | "index" "<" NAME ">"                         -> axis_index
     | "cast" "<" NAME ">" "(" expr ")"             -> cast
     | "let" NAME "=" expr "in" "(" expr ")"        -> let
     | "reduce" "<" NAME "," NAME [";" names] ">" "(" expr "," expr ")" -> reduce
     | "bound" "<" BOUND ">" "(" NAME "," NAME ")" -> field_bound
     | NAME "(" [expr ("," expr)*] ")"              -> call
shift: NAME SIGN INT                                -> cartesian_shift
     | NAME "[" (INT | STAR) "]"                    -> neighbour_shift
     | NAME SIGN "(" expr ")"                       -> dynamic_shift
     | NAME "@" INT                                 -> local_index
SIGN: "+" | "-"
STAR: /\*\^*/
BOUND: "lo" | "hi"
DIRECTION: "forward" | "backward"
LITERAL.2: /(-?[0-9][0-9_.eE+\-]*|-?inf|nan|True|False):[a-z0-9_]+/
NAME: /[A-Za-z_][A-Za-z0-9_]*/
INT: /[0-9]+/
%ignore /\s+/
"""


class IRParseError(ValueError):
    """The text is not a valid IR program or expression."""


@functools.cache
def _parsers() -> tuple[Any, Any]:
    import lark

    program = lark.Lark(_GRAMMAR, start="program", parser="lalr", maybe_placeholders=True)
    expr = lark.Lark(_GRAMMAR, start="expr", parser="lalr", maybe_placeholders=True)
    return program, expr


def _build(tree: Any) -> Any:
    import lark

    class ToNodes(lark.Transformer):  # type: ignore[type-arg]
        def program(self, items: list[Any]) -> ir.Program:
            name, *rest = items
            params = [p for p in rest if isinstance(p, ir.FieldParam | ir.ScalarParam)]
            lists = [o for o in rest if isinstance(o, list)]
            offsets = next((o for o in lists if o and isinstance(o[0], ir.OffsetDecl)), [])
            temporaries = next((t for t in lists if t and isinstance(t[0], ir.Temporary)), [])
            body = [s for s in rest if isinstance(s, ir.Apply | ir.Scan)]
            return ir.Program(
                name=str(name), params=params, offsets=offsets, body=body, temporaries=temporaries
            )

        def field_param(self, items: list[Any]) -> ir.FieldParam:
            name, *dims, dtype = items
            return ir.FieldParam(
                name=str(name), dims=[str(d) for d in dims if d is not None], dtype=str(dtype)
            )

        def scalar_param(self, items: list[Any]) -> ir.ScalarParam:
            return ir.ScalarParam(name=str(items[0]), dtype=str(items[1]))

        def offsets(self, items: list[Any]) -> list[ir.OffsetDecl]:
            return list(items)

        def temporaries(self, items: list[Any]) -> list[ir.Temporary]:
            return list(items)

        def temporary(self, items: list[Any]) -> ir.Temporary:
            name, *dims, dtype, domain = items
            return ir.Temporary(
                name=str(name),
                dims=[str(d) for d in dims if d is not None],
                dtype=str(dtype),
                domain=domain,
            )

        def offset(self, items: list[Any]) -> ir.OffsetDecl:
            name, domain_dim, local, codomain = items
            return ir.OffsetDecl(
                name=str(name),
                domain_dim=str(domain_dim),
                local=None if local is None else str(local),
                codomain=str(codomain),
            )

        def apply(self, items: list[Any]) -> ir.Apply:
            outputs, domain, bindings, values = items
            return ir.Apply(outputs=outputs, domain=domain, values=values, bindings=bindings)

        def scan(self, items: list[Any]) -> ir.Scan:
            outputs, axis, direction, carries, domain, init, bindings, values = items
            return ir.Scan(
                outputs=outputs,
                domain=domain,
                axis=str(axis),
                forward=str(direction) == "forward",
                carries=carries,
                init=init,
                values=values,
                bindings=bindings,
            )

        def bindings(self, items: list[Any]) -> list[ir.Binding]:
            return list(items)

        def binding(self, items: list[Any]) -> ir.Binding:
            name, value = items
            return ir.Binding(name=str(name), value=value)

        def outputs(self, items: list[Any]) -> list[str]:
            (item,) = items
            return item if isinstance(item, list) else [str(item)]

        def names(self, items: list[Any]) -> list[str]:
            return [str(i) for i in items]

        def domain(self, items: list[Any]) -> list[ir.Range]:
            return [i for i in items if i is not None]

        def range(self, items: list[Any]) -> ir.Range:
            dim, start, stop = items
            return ir.Range(dim=str(dim), start=start, stop=stop)

        def exprs(self, items: list[Any]) -> list[ir.Expr]:
            return list(items)

        def literal(self, items: list[Any]) -> ir.Literal:
            value, dtype = str(items[0]).rsplit(":", 1)
            return ir.Literal(value=value, dtype=dtype)

        def symref(self, items: list[Any]) -> ir.SymRef:
            return ir.SymRef(name=str(items[0]))

        def deref(self, items: list[Any]) -> ir.Deref:
            name, *shifts = items
            return ir.Deref(field=str(name), shifts=[s for s in shifts if s is not None])

        def axis_index(self, items: list[Any]) -> ir.AxisIndex:
            return ir.AxisIndex(dim=str(items[0]))

        def cast(self, items: list[Any]) -> ir.Cast:
            return ir.Cast(dtype=str(items[0]), value=items[1])

        def let(self, items: list[Any]) -> ir.Let:
            return ir.Let(name=str(items[0]), value=items[1], body=items[2])

        def reduce(self, items: list[Any]) -> ir.Reduce:
            op, axis, tables, init, body = items
            return ir.Reduce(op=str(op), axis=str(axis), tables=tables or [], init=init, body=body)

        def field_bound(self, items: list[Any]) -> ir.FieldBound:
            which, field, dim = items
            return ir.FieldBound(field=str(field), dim=str(dim), upper=str(which) == "hi")

        def call(self, items: list[Any]) -> ir.Call:
            name, *args = items
            return ir.Call(fun=str(name), args=[a for a in args if a is not None])

        def cartesian_shift(self, items: list[Any]) -> ir.CartesianShift:
            dim, sign, amount = items
            value = int(amount)
            return ir.CartesianShift(dim=str(dim), amount=-value if sign == "-" else value)

        def neighbour_shift(self, items: list[Any]) -> ir.NeighbourShift:
            offset, index = items
            text = str(index)
            if text.startswith("*"):
                return ir.NeighbourShift(offset=str(offset), index=None, outer=text.count("^"))
            return ir.NeighbourShift(offset=str(offset), index=int(text))

        def local_index(self, items: list[Any]) -> ir.LocalIndex:
            dim, index = items
            return ir.LocalIndex(dim=str(dim), index=int(index))

        def dynamic_shift(self, items: list[Any]) -> ir.DynamicShift:
            dim, sign, amount = items
            if sign == "-":
                amount = ir.Call(fun="neg", args=[amount])
            return ir.DynamicShift(dim=str(dim), amount=amount)

    return ToNodes().transform(tree)


def _parse(text: str, which: int) -> Any:
    import lark

    try:
        tree = _parsers()[which].parse(text)
    except lark.exceptions.UnexpectedInput as error:
        context = error.get_context(text).rstrip()
        raise IRParseError(
            f"invalid IR text at line {error.line}, column {error.column}:\n{context}"
        ) from None
    return _build(tree)


def parse_program(text: str) -> ir.Program:
    """The program written as ``text`` (the form :func:`program_text` prints)."""
    return _parse(text, 0)  # type: ignore[no-any-return]


def parse_expr(text: str) -> ir.Expr:
    return _parse(text, 1)  # type: ignore[no-any-return]
