"""Nodes: children, tree walks, filtered walks, equality, repr, copies, source locations."""

from __future__ import annotations

import pickle

import eve_sample_ir as ir
import pytest

from gt4py import eve
from gt4py.eve import datamodels as dm


def _sample() -> ir.BinOp:
    #   (1 + x) * f(2, 3)
    return ir.BinOp(
        op=ir.BinaryOperator.MUL,
        left=ir.BinOp(op=ir.BinaryOperator.ADD, left=ir.Literal(value=1), right=ir.Name(id="x")),
        right=ir.Call(func="f", args=[ir.Literal(value=2), ir.Literal(value=3)]),
    )


def _label(node: eve.Node) -> str:
    if isinstance(node, ir.Literal):
        return str(node.value)
    if isinstance(node, ir.Name):
        return node.id
    if isinstance(node, ir.BinOp):
        return node.op.value
    if isinstance(node, ir.Call):
        return node.func
    return type(node).__name__


def test_children_in_field_order() -> None:
    tree = _sample()
    assert [name for name, _ in tree.iter_children_items()] == ["op", "left", "right"]
    assert list(tree.iter_children_values()) == [tree.op, tree.left, tree.right]
    assert eve.nodes.child_values(tree.right) == ("f", tree.right.args)
    assert eve.nodes.child_values(tree.right.args) == tree.right.args
    assert eve.nodes.child_values(3) == ()


def test_pre_post_and_breadth_first_orders() -> None:
    tree = _sample()
    assert [_label(n) for n in tree.iter_tree("pre")] == ["*", "+", "1", "x", "f", "2", "3"]
    assert [_label(n) for n in tree.iter_tree("post")] == ["1", "x", "+", "2", "3", "f", "*"]
    assert [_label(n) for n in tree.iter_tree("bfs")] == ["*", "+", "f", "1", "x", "2", "3"]
    assert [_label(n) for n in eve.iter_tree(tree.right)] == ["f", "2", "3"]


def test_unknown_order_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown traversal order 'sideways'"):
        list(_sample().iter_tree("sideways"))  # type: ignore[arg-type]


def test_walk_values_yields_leaves_too_and_chains_filters() -> None:
    tree = _sample()
    values = tree.walk_values().to_list()
    assert ir.BinaryOperator.MUL in values and "f" in values and 3 in values
    assert tree.walk_values().if_isinstance(ir.Literal).getattr("value").to_list() == [1, 2, 3]
    assert tree.walk_values().if_isinstance(ir.SymbolRef).to_set() == {"x"}
    assert tree.walk_values().filter(lambda v: isinstance(v, int)).map(
        lambda v: v * 10
    ).to_list() == [10, 20, 30]
    nodes_only = tree.walk_values().if_isinstance(eve.Node)
    assert nodes_only.if_not_isinstance(ir.BinOp).map(_label).to_list() == ["1", "x", "f", "2", "3"]
    assert tree.walk_values("post").if_isinstance(ir.BinOp).first() is tree.left
    assert eve.walk_values(tree).if_isinstance(ir.Lambda).first(None) is None
    with pytest.raises(LookupError, match="no values"):
        eve.walk_values(tree).if_isinstance(ir.Lambda).first()
    ops = tree.walk_values().if_isinstance(ir.BinOp).getattr("op").unique().to_list()
    assert ops == [ir.BinaryOperator.MUL, ir.BinaryOperator.ADD]
    assert tree.walk_values().if_isinstance(ir.Literal).getattr(
        "missing", None
    ).unique().to_list() == [None]
    with pytest.raises(TypeError, match="at most one default"):
        tree.walk_values().getattr("a", 1, 2)


def test_walks_look_through_dicts_and_tuples() -> None:
    values = eve.walk_values({"a": (ir.Literal(value=1), [ir.Name(id="y")])}).to_list()
    assert ir.Literal(value=1) in values and "y" in values


def test_structural_equality_and_hash() -> None:
    assert _sample() == _sample()
    assert _sample() is not _sample()
    other = _sample().replace(op=ir.BinaryOperator.SUB)
    assert other != _sample()
    # lists are unhashable: nodes holding them are too, leaf nodes are hashable
    assert hash(ir.Literal(value=1)) == hash(ir.Literal(value=1))
    assert {ir.Literal(value=1), ir.Literal(value=1)} == {ir.Literal(value=1)}


def test_fields_with_compare_false_are_ignored_by_equality() -> None:
    loc = eve.SourceLocation(filename="a.py", line=3, column=1)
    with_loc = ir.Assign(target=ir.Sym(id="a"), value=ir.Literal(value=1), loc=loc)
    assert with_loc == ir.Assign(target=ir.Sym(id="a"), value=ir.Literal(value=1))


def test_readable_repr() -> None:
    assert repr(
        ir.BinOp(op=ir.BinaryOperator.ADD, left=ir.Literal(value=1), right=ir.Name(id="x"))
    ) == ("BinOp(op=<BinaryOperator.ADD: '+'>, left=Literal(value=1), right=Name(id='x'))")


def test_replace_makes_a_validated_copy() -> None:
    tree = _sample()
    copy = tree.replace(left=ir.Literal(value=7))
    assert copy.left == ir.Literal(value=7)
    assert copy.right is tree.right  # unchanged fields are shared, not copied
    assert tree.left != copy.left
    with pytest.raises(dm.DataModelTypeError, match="'left' of BinOp: expected Expr, got int"):
        tree.replace(left=7)
    with pytest.raises(TypeError, match="no field"):
        tree.replace(middle=ir.Literal(value=1))


def test_nodes_are_frozen() -> None:
    with pytest.raises(AttributeError):
        _sample().op = ir.BinaryOperator.SUB  # type: ignore[misc]


def test_field_names_that_shadow_node_methods_are_refused() -> None:
    with pytest.raises(dm.DataModelDefinitionError, match=r"replace, walk_values.*Node methods"):

        class Clash(eve.Node):
            replace: int
            walk_values: int


def test_nodes_pickle() -> None:
    tree = _sample()
    assert pickle.loads(pickle.dumps(tree)) == tree


def test_source_location() -> None:
    loc = eve.SourceLocation(filename="k.py", line=3, column=5, end_line=4, end_column=1)
    assert str(loc) == "k.py:3:5-4:1"
    assert str(eve.SourceLocation(filename="k.py", line=3, column=5)) == "k.py:3:5"
    with pytest.raises(ValueError, match="1-based"):
        eve.SourceLocation(filename="k.py", line=0, column=1)
    with pytest.raises(ValueError, match="end_line 2 comes before line 3"):
        eve.SourceLocation(filename="k.py", line=3, column=1, end_line=2)
    with pytest.raises(ValueError, match="end_column 1 comes before column 5"):
        eve.SourceLocation(filename="k.py", line=3, column=5, end_line=3, end_column=1)
    with pytest.raises(dm.DataModelTypeError, match="'line' of SourceLocation"):
        eve.SourceLocation(filename="k.py", line="3", column=1)  # type: ignore[arg-type]


def test_wrong_child_type_error() -> None:
    with pytest.raises(
        dm.DataModelTypeError,
        match=r"'args' of Call: expected list\[Expr\], got list .*item \[1\] expected Expr, got str 'b'",
    ):
        ir.Call(func="f", args=[ir.Literal(value=1), "b"])  # type: ignore[list-item]
