"""Traits: symbol tables of scopes and validation of symbol references."""

from __future__ import annotations

from typing import Any

import eve_sample_ir as ir
import pytest

from gt4py import eve
from gt4py.eve import datamodels as dm, traits


def _assign(name: str, value: ir.Expr) -> ir.Assign:
    return ir.Assign(target=ir.Sym(id=name), value=value)


def _module(*body: ir.Assign) -> ir.Module:
    return ir.Module(name="m", body=list(body))


def test_symbol_names_and_refs_are_validated_identifiers() -> None:
    assert ir.Sym(id="a_1").id == "a_1"
    assert type(ir.Sym(id="a").id) is eve.SymbolName
    assert type(ir.Name(id="a").id) is eve.SymbolRef
    with pytest.raises(dm.DataModelTypeError, match="'1a' is not a valid SymbolName"):
        ir.Sym(id="1a")
    with pytest.raises(dm.DataModelTypeError, match="'a b' is not a valid SymbolRef"):
        ir.Name(id="a b")


def test_scope_symbol_table_maps_names_to_declaring_nodes() -> None:
    first = _assign("a", ir.Literal(value=1))
    second = _assign("b", ir.Name(id="a"))
    module = _module(first, second)
    assert dict(module.symtable) == {"a": first.target, "b": second.target}
    assert module.symtable is module.symtable  # cached on frozen nodes


def test_nested_scopes_own_their_parameters() -> None:
    lam = ir.Lambda(
        params=[ir.Sym(id="p")],
        body=ir.BinOp(op=ir.BinaryOperator.ADD, left=ir.Name(id="p"), right=ir.Name(id="a")),
    )
    module = _module(_assign("a", ir.Literal(value=1)), _assign("f", lam))
    assert set(module.symtable) == {"a", "f"}  # "p" belongs to the lambda
    assert set(lam.symtable) == {"p"}


def test_references_resolve_through_enclosing_scopes() -> None:
    lam = ir.Lambda(
        params=[ir.Sym(id="p")], body=ir.Call(func="g", args=[ir.Name(id="p"), ir.Name(id="a")])
    )
    _module(_assign("a", ir.Literal(value=1)), _assign("f", lam))  # no error


def test_unresolved_reference_names_symbol_and_scope() -> None:
    lam = ir.Lambda(params=[ir.Sym(id="p")], body=ir.Name(id="q"))
    with pytest.raises(traits.UnresolvedSymbolError) as info:
        _module(_assign("a", ir.Literal(value=1)), _assign("f", lam))
    message = str(info.value)
    assert "symbol 'q'" in message
    assert "used by Name" in message
    assert "scope Lambda (enclosing scopes: Module)" in message
    assert info.value.symbol == "q"
    assert info.value.scope is lam
    assert isinstance(info.value, NameError)


def test_reference_outside_any_nested_scope() -> None:
    with pytest.raises(
        traits.UnresolvedSymbolError,
        match="symbol 'nope' used by Name is not defined in scope Module",
    ):
        _module(_assign("a", ir.Name(id="nope")))


def test_parameters_are_not_visible_outside_their_scope() -> None:
    lam = ir.Lambda(params=[ir.Sym(id="p")], body=ir.Name(id="p"))
    with pytest.raises(traits.UnresolvedSymbolError, match="symbol 'p'"):
        _module(_assign("f", lam), _assign("b", ir.Name(id="p")))


def test_implicit_symbols_always_resolve() -> None:
    _module(_assign("a", ir.Call(func="print", args=[ir.Name(id="print")])))


def test_duplicate_declarations_in_one_scope() -> None:
    with pytest.raises(
        traits.DuplicateSymbolError, match="symbol 'a' is declared twice in scope Module"
    ):
        _module(_assign("a", ir.Literal(value=1)), _assign("a", ir.Literal(value=2)))


def test_validate_symbol_refs_on_any_tree() -> None:
    tree = ir.Call(func="f", args=[ir.Name(id="x")])
    with pytest.raises(
        traits.UnresolvedSymbolError, match=r"symbol 'x' used by Name is not defined in scope Call$"
    ):
        traits.validate_symbol_refs(tree)
    traits.validate_symbol_refs(tree, implicit_symbols={"x"})
    # the root counts as a scope: names declared below it are visible
    traits.validate_symbol_refs([ir.Sym(id="x"), tree])


def test_scope_description_uses_the_declared_name() -> None:
    class FunctionDef(eve.Node, eve.SymbolTableTrait):
        name: eve.SymbolName
        params: list[ir.Sym]
        body: ir.Expr

    class Program(eve.Node, eve.ValidatedSymbolTableTrait):
        functions: list[FunctionDef]

    good = FunctionDef(name="f", params=[ir.Sym(id="x")], body=ir.Name(id="x"))
    program = Program(functions=[good])
    assert set(program.symtable) == {"f"}  # the function's own name belongs to the outer scope
    with pytest.raises(
        traits.UnresolvedSymbolError, match="scope FunctionDef 'g' \\(enclosing scopes: Program\\)"
    ):
        Program(functions=[FunctionDef(name="g", params=[], body=ir.Name(id="x"))])


def test_mutable_scopes_recompute_their_table() -> None:
    class MScope(eve.Node, eve.SymbolTableTrait, frozen=False):
        decls: list[ir.Sym]

    scope = MScope(decls=[ir.Sym(id="a")])
    assert set(scope.symtable) == {"a"}
    scope.decls.append(ir.Sym(id="b"))
    assert set(scope.symtable) == {"a", "b"}


def test_visitor_with_symbol_table_passes_visible_names() -> None:
    class Resolver(eve.VisitorWithSymbolTableTrait, eve.NodeVisitor):
        def __init__(self) -> None:
            self.resolved: dict[str, type] = {}

        def visit_Name(self, node: ir.Name, *, symtable: Any, **kwargs: Any) -> None:
            self.resolved[node.id] = type(symtable[node.id])

    lam = ir.Lambda(
        params=[ir.Sym(id="p")], body=ir.Call(func="g", args=[ir.Name(id="p"), ir.Name(id="a")])
    )
    module = _module(_assign("a", ir.Literal(value=1)), _assign("f", lam))
    resolver = Resolver()
    resolver.visit(module)
    assert resolver.resolved == {"p": ir.Sym, "a": ir.Sym}
