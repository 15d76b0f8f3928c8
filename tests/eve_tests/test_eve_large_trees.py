"""Visitors and translators on large (100 000 nodes) and deep trees."""

from __future__ import annotations

import eve_sample_ir as ir
import pytest

from gt4py import eve
from gt4py.eve import utils
from gt4py.infra import fingerprinting as fp


@pytest.fixture(scope="module")
def big_module() -> ir.Module:
    module = ir.large_module()
    return module


def test_the_sample_tree_has_100_000_nodes(big_module: ir.Module) -> None:
    class Counter(eve.NodeVisitor):
        count = 0

        def visit_Node(self, node: eve.Node) -> None:
            self.count += 1
            self.generic_visit(node)

    counter = Counter()
    counter.visit(big_module)
    assert counter.count == sum(1 for _ in big_module.iter_tree()) == 100_501


def test_identity_translation_returns_the_very_same_tree(big_module: ir.Module) -> None:
    assert eve.NodeTranslator().visit(big_module) is big_module


def test_translation_returns_an_equal_tree_and_shares_untouched_subtrees(
    big_module: ir.Module,
) -> None:
    touched = {7, 700, 1499}

    class RebuildLiterals(eve.NodeTranslator):
        """Rebuilds (as equal copies) the literals of a few statements only."""

        def visit_Assign(self, node: ir.Assign, *, index: dict[int, int]) -> ir.Assign:
            position = index[id(node)]
            return (
                self.generic_visit(node, rebuild=position in touched)
                if position in touched
                else node
            )

        def visit_Literal(
            self, node: ir.Literal, *, rebuild: bool = False, **kwargs: object
        ) -> ir.Literal:
            return ir.Literal(value=node.value) if rebuild else node

    index = {id(stmt): i for i, stmt in enumerate(big_module.body)}
    result = RebuildLiterals().visit(big_module, index=index)

    assert result == big_module
    assert result is not big_module
    assert result.body is not big_module.body
    for i, (new, old) in enumerate(zip(result.body, big_module.body, strict=True)):
        if i in touched:
            assert new is not old and new == old
            assert new.target is old.target  # untouched subtree of a touched statement
            assert new.value.right is old.value.right  # the Name/Literal(0) on the right
        else:
            assert new is old
    assert fp.strict(result) == fp.strict(big_module)


def test_full_rebuild_returns_an_equal_tree(big_module: ir.Module) -> None:
    class CopyLiterals(eve.NodeTranslator):
        def visit_Literal(self, node: ir.Literal) -> ir.Literal:
            return ir.Literal(value=node.value)

    result = CopyLiterals().visit(big_module)
    assert result == big_module
    new_nodes = {id(node) for node in result.iter_tree()}
    old_nodes = {id(node) for node in big_module.iter_tree()}
    shared = new_nodes & old_nodes
    # Sym targets and the (literal-free) right-hand Names are shared; everything on a path
    # to a literal is new.
    assert len(shared) == 2 * len(big_module.body) - 1
    assert all(
        isinstance(node, ir.Sym | ir.Name) for node in big_module.iter_tree() if id(node) in shared
    )


def test_a_changing_translation_over_the_large_tree(big_module: ir.Module) -> None:
    class Increment(eve.NodeTranslator):
        def visit_Literal(self, node: ir.Literal) -> ir.Literal:
            return ir.Literal(value=node.value + 1)

    result = Increment().visit(big_module)
    old_values = big_module.walk_values().if_isinstance(ir.Literal).getattr("value").to_list()
    new_values = result.walk_values().if_isinstance(ir.Literal).getattr("value").to_list()
    assert new_values == [value + 1 for value in old_values]
    assert result != big_module


def _left_chain(depth: int) -> ir.Expr:
    expr: ir.Expr = ir.Literal(value=0)
    for i in range(depth):
        expr = ir.BinOp(op=ir.BinaryOperator.ADD, left=expr, right=ir.Literal(value=i))
    return expr


class CountLiterals(eve.NodeVisitor):
    def __init__(self) -> None:
        self.count = 0

    def visit_Literal(self, node: ir.Literal) -> None:
        self.count += 1


class CopyBinOps(eve.NodeTranslator):
    def visit_BinOp(self, node: ir.BinOp) -> ir.BinOp:
        return ir.BinOp(op=node.op, left=self.visit(node.left), right=node.right)


def test_realistic_depth_with_the_default_recursion_limit() -> None:
    # Generic traversal costs one Python frame per tree level; a visit_* method that calls
    # visit() on its children costs two. Both handle realistic IR depths (e.g. a sum of a
    # few hundred terms parsed left-associatively) under Python's default limit of 1000.
    deep = _left_chain(800)
    counter = CountLiterals()
    counter.visit(deep)
    assert counter.count == 801
    assert eve.NodeTranslator().visit(deep) is deep

    chain = _left_chain(300)
    copied = CopyBinOps().visit(chain)
    assert copied is not chain and fp.strict(copied) == fp.strict(chain)


def test_very_deep_trees_with_a_raised_recursion_limit() -> None:
    chain = _left_chain(5000)
    with utils.recursion_limit(30_000):
        counter = CountLiterals()
        counter.visit(chain)
        assert counter.count == 5001
        copied = CopyBinOps().visit(chain)
        assert eve.NodeTranslator().visit(chain) is chain
    # walks and fingerprints are iterative: no recursion limit involved
    assert sum(1 for _ in eve.iter_tree(copied, "post")) == 10_001
    assert fp.strict(copied) == fp.strict(chain)
