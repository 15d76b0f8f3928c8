"""Visitors: dispatch along the MRO, generic visits, keyword arguments, translators, mutators."""

from __future__ import annotations

from typing import Any

import eve_sample_ir as ir
import pytest

from gt4py import eve
from gt4py.eve import datamodels as dm


def _sample() -> ir.BinOp:
    #   (1 + x) * f(2, y)
    return ir.BinOp(
        op=ir.BinaryOperator.MUL,
        left=ir.BinOp(op=ir.BinaryOperator.ADD, left=ir.Literal(value=1), right=ir.Name(id="x")),
        right=ir.Call(func="f", args=[ir.Literal(value=2), ir.Name(id="y")]),
    )


class Collector(eve.NodeVisitor):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def visit_Literal(self, node: ir.Literal, **kwargs: Any) -> None:
        self.seen.append(f"lit {node.value}")

    def visit_Expr(self, node: ir.Expr, **kwargs: Any) -> None:
        # less specific than visit_Literal: used for BinOp, Call, Name
        self.seen.append(type(node).__name__)
        self.generic_visit(node, **kwargs)


def test_dispatch_follows_the_mro() -> None:
    collector = Collector()
    collector.visit(_sample())
    assert collector.seen == ["BinOp", "BinOp", "lit 1", "Name", "Call", "lit 2", "Name"]


def test_generic_visit_visits_containers_and_returns_none() -> None:
    collector = Collector()
    assert (
        collector.visit([ir.Literal(value=1), (ir.Literal(value=2),), {"k": ir.Literal(value=3)}])
        is None
    )
    assert collector.seen == ["lit 1", "lit 2", "lit 3"]


def test_leaf_values_can_have_visit_methods() -> None:
    class OperatorCounter(eve.NodeVisitor):
        def __init__(self) -> None:
            self.operators: list[str] = []

        def visit_BinaryOperator(self, op: ir.BinaryOperator) -> None:
            self.operators.append(op.value)

        def visit_str(self, text: str) -> None:
            self.operators.append(f"str:{text}")

    counter = OperatorCounter()
    counter.visit(_sample())
    # SymbolRef is a str subclass: visit_str applies to it through the MRO
    assert counter.operators == ["*", "+", "str:x", "str:f", "str:y"]


def test_visit_object_is_a_catch_all() -> None:
    class Everything(eve.NodeVisitor):
        def __init__(self) -> None:
            self.count = 0

        def visit_object(self, value: object) -> None:
            self.count += 1

    visitor = Everything()
    visitor.visit(_sample())
    assert visitor.count == 1  # the root: visit_object does not recurse


def test_keyword_arguments_flow_down() -> None:
    class DepthRecorder(eve.NodeVisitor):
        def __init__(self) -> None:
            self.depths: dict[int, int] = {}

        def visit_BinOp(self, node: ir.BinOp, *, depth: int, tag: str) -> None:
            assert tag == "t"
            self.generic_visit(node, depth=depth + 1, tag=tag)

        def visit_Literal(self, node: ir.Literal, *, depth: int, tag: str) -> None:
            self.depths[node.value] = depth

    recorder = DepthRecorder()
    recorder.visit(_sample(), depth=0, tag="t")
    # Literal 1 is under two BinOps; Literal 2 is under one BinOp and a Call (Call passes kwargs on)
    assert recorder.depths == {1: 2, 2: 1}


def test_dispatch_cache_is_per_visitor_class() -> None:
    class Base(eve.NodeVisitor):
        def visit_Literal(self, node: ir.Literal) -> str:
            return "base"

    class Derived(Base):
        def visit_Literal(self, node: ir.Literal) -> str:
            return "derived"

    literal = ir.Literal(value=1)
    assert Base().visit(literal) == "base"
    assert Derived().visit(literal) == "derived"
    assert Base().visit(literal) == "base"
    assert Base._eve_dispatch is not Derived._eve_dispatch
    assert Base._eve_dispatch[ir.Literal] is Base.visit_Literal


def test_static_and_class_method_handlers() -> None:
    class Odd(eve.NodeVisitor):
        @staticmethod
        def visit_Literal(node: ir.Literal) -> int:
            return node.value

        @classmethod
        def visit_Name(cls, node: ir.Name) -> str:
            return f"{cls.__name__}:{node.id}"

    assert Odd().visit(ir.Literal(value=4)) == 4
    assert Odd().visit(ir.Name(id="q")) == "Odd:q"


def test_overridden_visit_sees_every_value() -> None:
    class Tracing(eve.NodeVisitor):
        def __init__(self) -> None:
            self.trace: list[str] = []

        def visit(self, node: Any, **kwargs: Any) -> Any:
            self.trace.append(type(node).__name__)
            return super().visit(node, **kwargs)

    tracing = Tracing()
    tracing.visit(
        ir.BinOp(op=ir.BinaryOperator.ADD, left=ir.Literal(value=1), right=ir.Name(id="x"))
    )
    assert tracing.trace == ["BinOp", "BinaryOperator", "Literal", "int", "Name", "SymbolRef"]


# --- NodeTranslator ------------------------------------------------------------------------


class RenameX(eve.NodeTranslator):
    def visit_Name(self, node: ir.Name) -> ir.Name:
        return ir.Name(id="z") if node.id == "x" else node


def test_translator_rebuilds_only_the_changed_path() -> None:
    tree = _sample()
    result = RenameX().visit(tree)
    assert result.left.right == ir.Name(id="z")
    assert result is not tree and result.left is not tree.left
    assert result.right is tree.right  # untouched subtree: the same object
    assert result.left.left is tree.left.left
    assert tree.left.right == ir.Name(id="x")  # the input is unchanged


def test_translator_returns_the_same_tree_when_nothing_changes() -> None:
    tree = _sample()
    assert eve.NodeTranslator().visit(tree) is tree
    assert RenameX().visit(tree.right) is tree.right


def test_translator_nothing_removes_items_from_containers() -> None:
    class DropNames(eve.NodeTranslator):
        def visit_Name(self, node: ir.Name) -> Any:
            return eve.NOTHING

    call = ir.Call(func="f", args=[ir.Name(id="a"), ir.Literal(value=1), ir.Name(id="b")])
    assert DropNames().visit(call) == ir.Call(func="f", args=[ir.Literal(value=1)])
    assert DropNames().visit((ir.Name(id="a"), 1)) == (1,)
    assert DropNames().visit({"a": ir.Name(id="a"), "b": 2}) == {"b": 2}
    assert DropNames().visit({ir.Name(id="a"), ir.Literal(value=1)}) == {ir.Literal(value=1)}
    assert repr(eve.NOTHING) == "NOTHING" and not eve.NOTHING


def test_translator_nothing_for_a_field_is_an_error() -> None:
    class DropNames(eve.NodeTranslator):
        def visit_Name(self, node: ir.Name) -> Any:
            return eve.NOTHING

    with pytest.raises(TypeError, match="NOTHING for field 'right' of BinOp"):
        DropNames().visit(_sample())


def test_translator_output_is_validated() -> None:
    class Broken(eve.NodeTranslator):
        def visit_Literal(self, node: ir.Literal) -> int:
            return node.value  # not an Expr

    with pytest.raises(dm.DataModelTypeError, match="'left' of BinOp: expected Expr, got int 1"):
        Broken().visit(_sample())


def test_translator_passes_keyword_arguments() -> None:
    class Offset(eve.NodeTranslator):
        def visit_Literal(self, node: ir.Literal, *, offset: int) -> ir.Literal:
            return ir.Literal(value=node.value + offset)

    result = Offset().visit(_sample(), offset=10)
    assert [lit.value for lit in result.walk_values().if_isinstance(ir.Literal)] == [11, 12]


def test_translator_with_overridden_visit() -> None:
    class Counting(eve.NodeTranslator):
        calls = 0

        def visit(self, node: Any, **kwargs: Any) -> Any:
            type(self).calls += 1
            return super().visit(node, **kwargs)

    tree = _sample()
    assert Counting().visit(tree) is tree
    assert Counting.calls == len(tree.walk_values().to_list()) + 1  # + the args list


# --- NodeMutator ---------------------------------------------------------------------------


class MExpr(eve.Node, frozen=False):
    pass


class MLiteral(MExpr, frozen=False):
    value: int


class MCall(MExpr, frozen=False):
    args: list[MExpr]
    kwargs: dict[str, MExpr] = dm.field(factory=dict)
    extra: tuple[MExpr, ...] = ()


class Double(eve.NodeMutator):
    def visit_MLiteral(self, node: MLiteral) -> Any:
        if node.value < 0:
            return eve.NOTHING
        node.value *= 2
        return node


def test_mutator_changes_in_place() -> None:
    first, dropped, third = MLiteral(value=1), MLiteral(value=-1), MLiteral(value=3)
    args = [first, dropped, third]
    call = MCall(
        args=args,
        kwargs={"a": MLiteral(value=5), "b": MLiteral(value=-5)},
        extra=(MLiteral(value=-2), MLiteral(value=7)),
    )
    assert Double().visit(call) is call
    # nodes are changed in place; containers are replaced in their (mutable) node
    assert call.args == [first, third] and call.args[0] is first
    assert first.value == 2 and third.value == 6
    assert args == [first, dropped, third]  # the old list itself is left alone
    assert list(call.kwargs) == ["a"] and call.kwargs["a"].value == 10  # type: ignore[attr-defined]
    assert [arg.value for arg in call.extra] == [14]  # type: ignore[attr-defined]


def test_mutator_on_containers_returns_the_new_container() -> None:
    items = [MLiteral(value=1), MLiteral(value=-1)]
    result = Double().visit(items)
    assert result == [MLiteral(value=2)]
    unchanged: list[MLiteral] = []
    assert Double().visit(unchanged) is unchanged


def test_mutator_replaces_fields_with_validation() -> None:
    class Wrap(eve.NodeMutator):
        def visit_MCall(self, node: MCall) -> MCall:
            self.generic_visit(node)
            return node

        def visit_MLiteral(self, node: MLiteral) -> Any:
            return "not a node"

    with pytest.raises(dm.DataModelTypeError, match="'extra' of MCall"):
        Wrap().visit(MCall(args=[], extra=(MLiteral(value=1),)))


def test_mutator_refuses_to_change_frozen_nodes() -> None:
    class Replace(eve.NodeMutator):
        def visit_Literal(self, node: ir.Literal) -> ir.Literal:
            return ir.Literal(value=0)

    with pytest.raises(TypeError, match="cannot change field 'left' of BinOp: the class is frozen"):
        Replace().visit(_sample())
    unchanged = ir.Call(func="f", args=[])
    assert Replace().visit(unchanged) is unchanged  # nothing to change: no error
    # a list inside a frozen node is not changed behind its back either
    call = ir.Call(func="f", args=[ir.Literal(value=1)])
    with pytest.raises(TypeError, match="cannot change field 'args' of Call"):
        Replace().visit(call)
    assert call.args == [ir.Literal(value=1)]
