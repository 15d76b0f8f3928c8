"""Utilities: UIDGenerator, content_hash, recursion_limit."""

from __future__ import annotations

import sys
import threading

import eve_sample_ir as ir
import pytest

from gt4py.eve import utils


# --- UIDGenerator ---------------------------------------------------------------------------


def test_sequential_ids() -> None:
    uids = utils.UIDGenerator(prefix="tmp")
    assert [uids.sequential_id() for _ in range(3)] == ["tmp_1", "tmp_2", "tmp_3"]
    assert uids.sequential_id(prefix="v", width=4) == "v_0004"
    uids.reset_sequence(10)
    assert uids.sequential_id() == "tmp_10"
    assert utils.UIDGenerator().sequential_id() == "1"
    assert utils.UIDGenerator(start=0).sequential_id(prefix="") == "0"


def test_random_ids() -> None:
    uids = utils.UIDGenerator()
    ids = {uids.random_id(prefix="r", width=12) for _ in range(50)}
    assert len(ids) == 50
    assert all(len(uid) == 14 and uid.startswith("r_") for uid in ids)


def test_uid_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="width must be positive"):
        utils.UIDGenerator().sequential_id(width=0)
    with pytest.raises(ValueError, match="width must be positive"):
        utils.UIDGenerator().random_id(width=0)


def test_sequential_ids_are_unique_across_threads() -> None:
    uids = utils.UIDGenerator()
    results: list[str] = []

    def draw() -> None:
        results.extend(uids.sequential_id() for _ in range(500))

    threads = [threading.Thread(target=draw) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(results)) == 2000


# --- content_hash --------------------------------------------------------------------------


def test_content_hash_of_trees_and_values() -> None:
    tree = ir.BinOp(op=ir.BinaryOperator.ADD, left=ir.Literal(value=1), right=ir.Name(id="x"))
    same = ir.BinOp(op=ir.BinaryOperator.ADD, left=ir.Literal(value=1), right=ir.Name(id="x"))
    assert utils.content_hash(tree) == utils.content_hash(same)
    assert utils.content_hash(tree) != utils.content_hash(tree.replace(left=ir.Literal(value=2)))
    assert utils.content_hash(tree, 1) != utils.content_hash(tree)
    assert len(utils.content_hash("x")) == 32


def test_content_hash_refuses_what_strict_cannot_name() -> None:
    from gt4py.infra.fingerprinting import FingerprintError, lenient

    with pytest.raises(FingerprintError, match="lambda"):
        utils.content_hash(lambda: 1)
    assert utils.content_hash(lambda: 1, fingerprinter=lenient)


# --- recursion_limit -----------------------------------------------------------------------


def test_recursion_limit_is_raised_and_restored() -> None:
    before = sys.getrecursionlimit()
    with utils.recursion_limit(before + 5000):
        assert sys.getrecursionlimit() == before + 5000
    assert sys.getrecursionlimit() == before
    with utils.recursion_limit(10):  # never lowered
        assert sys.getrecursionlimit() == before
    with pytest.raises(ValueError, match="positive"), utils.recursion_limit(0):
        pass
