"""Fingerprints of eve trees: registered deconstructors, exclusions, stability across processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import eve_sample_ir as ir
import pytest

from gt4py import eve
from gt4py.eve import _fingerprints
from gt4py.infra import fingerprinting as fp


def _tree(leaf: int = 1) -> ir.BinOp:
    return ir.BinOp(
        op=ir.BinaryOperator.ADD,
        left=ir.Call(func="f", args=[ir.Literal(value=leaf), ir.Name(id="x")]),
        right=ir.Literal(value=2),
    )


def test_equal_trees_have_equal_fingerprints() -> None:
    assert _tree() is not _tree()
    assert fp.strict(_tree()) == fp.strict(_tree())
    assert fp.lenient(_tree()) == fp.strict(_tree())


def test_changing_one_leaf_changes_the_fingerprint() -> None:
    assert fp.strict(_tree(1)) != fp.strict(_tree(3))
    assert fp.strict(_tree()) != fp.strict(_tree().replace(op=ir.BinaryOperator.SUB))


def test_the_class_counts_not_only_the_fields() -> None:
    class OtherLiteral(ir.Expr):
        value: int

    assert fp.lenient(ir.Literal(value=1)) != fp.lenient(OtherLiteral(value=1))


def test_deconstructor_is_registered_for_datamodels() -> None:
    literal = ir.Literal(value=5)
    assert _fingerprints.deconstruct_datamodel(literal) == (("value",), 5)
    module = ir.Module(name="m", body=[], comment="note")
    # "comment" is fingerprint=False
    assert _fingerprints.deconstruct_datamodel(module) == (("name", "body"), "m", [])


def test_fingerprint_false_fields_are_left_out() -> None:
    plain = ir.Module(name="m", body=[])
    commented = ir.Module(name="m", body=[], comment="hello")
    assert plain != commented
    assert fp.strict(plain) == fp.strict(commented)


def test_source_locations_are_left_out() -> None:
    here = eve.SourceLocation(filename="a.py", line=1, column=1)
    there = eve.SourceLocation(filename="b.py", line=9, column=4)
    stmt = ir.Assign(target=ir.Sym(id="a"), value=ir.Literal(value=1))
    assert (
        fp.strict(stmt) == fp.strict(stmt.replace(loc=here)) == fp.strict(stmt.replace(loc=there))
    )
    # a location on its own still has a content fingerprint
    assert fp.strict(here) != fp.strict(there)


def test_local_node_classes_are_refused_by_strict_and_keyed_by_lenient() -> None:
    class Local(eve.Node):
        value: int

    with pytest.raises(fp.FingerprintError, match="defined inside a function"):
        fp.strict(Local(value=1))
    assert fp.lenient(Local(value=1)) == fp.lenient(Local(value=1))


_BUILD_AND_FINGERPRINT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests_dir!r})
    import eve_sample_ir as ir
    from gt4py import eve
    from gt4py.infra import fingerprinting as fp

    module = ir.large_module(n_statements=200)
    if {change_leaf}:
        # replace one deeply nested leaf (the last Literal in pre-order) by another value
        target = module.walk_values().if_isinstance(ir.Literal).to_list()[-1]

        class ReplaceOne(eve.NodeTranslator):
            def visit_Literal(self, node):
                return ir.Literal(value=node.value + 1) if node is target else node

        module = ReplaceOne().visit(module)
    print(fp.strict(module))
    """
)


def _fingerprint_in_new_process(change_leaf: bool) -> str:
    tests_dir = str(Path(__file__).resolve().parent)
    code = _BUILD_AND_FINGERPRINT.format(tests_dir=tests_dir, change_leaf=change_leaf)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.slow
def test_fingerprints_of_equal_trees_agree_across_processes() -> None:
    first = _fingerprint_in_new_process(change_leaf=False)
    second = _fingerprint_in_new_process(change_leaf=False)
    changed = _fingerprint_in_new_process(change_leaf=True)
    assert len(first) == 32
    assert first == second
    assert first != changed
    # and this process agrees too
    assert fp.strict(ir.large_module(n_statements=200)) == first
