"""Utilities: UIDGenerator, case styles, content_hash, the single dispatcher, recursion_limit."""

from __future__ import annotations

import collections.abc
import pickle
import sys
import threading

import eve_sample_ir as ir
import pytest

from gt4py.eve import utils
from gt4py.eve.utils import CaseStyle


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


# --- case styles ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("foo_bar_baz", ["foo", "bar", "baz"]),
        ("FOO_BAR", ["foo", "bar"]),
        ("fooBarBaz", ["foo", "bar", "baz"]),
        ("FooBar", ["foo", "bar"]),
        ("HTTPServerError", ["http", "server", "error"]),
        ("int32Value", ["int32", "value"]),
        ("foo-bar", ["foo", "bar"]),
        ("already", ["already"]),
        ("", []),
    ],
)
def test_split_words_guesses_the_style(name: str, words: list[str]) -> None:
    assert utils.split_words(name) == words


def test_conversions() -> None:
    assert utils.to_snake_case("HTTPServerError") == "http_server_error"
    assert utils.to_camel_case("field_operator") == "fieldOperator"
    assert utils.to_pascal_case("field_operator") == "FieldOperator"
    assert utils.to_kebab_case("FieldOperator") == "field-operator"
    assert utils.convert_case("a_b", CaseStyle.SCREAMING_SNAKE) == "A_B"
    assert utils.convert_case("fooBar", CaseStyle.CONCATENATED) == "foobar"
    assert utils.convert_case("foo_barBaz", CaseStyle.KEBAB, source=CaseStyle.SNAKE) == "foo-barbaz"
    assert utils.join_words([], CaseStyle.CAMEL) == ""


def test_case_style_errors() -> None:
    with pytest.raises(ValueError, match="concatenated names have no word boundaries"):
        utils.split_words("foobar", CaseStyle.CONCATENATED)
    with pytest.raises(TypeError, match="expected a CaseStyle"):
        utils.join_words(["a"], "snake")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a str"):
        utils.split_words(3)  # type: ignore[arg-type]


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


# --- SingleDispatcher ----------------------------------------------------------------------


@utils.single_dispatch
def describe(value: object) -> str:
    """Describe a value."""
    return "something"


@describe.register(int)
def _describe_int(value: int) -> str:
    return f"int {value}"


@describe.register
def _describe_str(value: str) -> str:
    return f"str {value}"


def _describe_sequence(value: collections.abc.Sequence[object]) -> str:
    return f"sequence of {len(value)}"


describe.register(collections.abc.Sequence, _describe_sequence)
describe.register(float | complex)(lambda value: "number")


def test_dispatch_on_the_first_argument_along_the_mro() -> None:
    assert describe(3) == "int 3"
    assert describe(True) == "int True"  # bool -> int
    assert describe("a") == "str a"  # str before the Sequence ABC
    assert describe([1, 2]) == "sequence of 2"  # virtual subclass of Sequence
    assert describe(1.5) == "number" and describe(1j) == "number"
    assert describe(None) == "something"
    assert describe.dispatch(bool) is _describe_int
    assert set(describe.registry) == {int, str, collections.abc.Sequence, float, complex}


def test_dispatcher_metadata() -> None:
    assert describe.__name__ == "describe"
    assert describe.__qualname__ == "describe"
    assert describe.__doc__ == "Describe a value."
    assert "describe" in repr(describe)


def test_dispatcher_pickles_by_reference() -> None:
    clone = pickle.loads(pickle.dumps(describe))
    assert clone is describe


renamed = utils.single_dispatch(lambda value: "default")
renamed.__name__ = renamed.__qualname__ = "renamed"


def test_renamed_dispatcher_pickles_under_its_new_name() -> None:
    renamed.register(int, lambda value: "int")
    assert pickle.loads(pickle.dumps(renamed)) is renamed
    assert renamed(1) == "int" and renamed("x") == "default"


def test_unreachable_dispatcher_cannot_be_pickled() -> None:
    local = utils.single_dispatch(lambda value: 0)
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(local)


def test_register_errors() -> None:
    dispatcher = utils.single_dispatch(lambda value: 0)
    with pytest.raises(TypeError, match="annotate the first parameter"):
        dispatcher.register(lambda value: 1)
    with pytest.raises(TypeError, match="can only register classes"):
        dispatcher.register(3, lambda value: 1)
    with pytest.raises(TypeError, match="needs a class"):
        dispatcher.register()
    with pytest.raises(TypeError, match="needs a callable"):
        utils.single_dispatch(3)  # type: ignore[arg-type]


def test_registration_clears_the_cache() -> None:
    dispatcher = utils.single_dispatch(lambda value: "default")
    assert dispatcher(True) == "default"
    dispatcher.register(bool, lambda value: "bool")
    assert dispatcher(True) == "bool"


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
