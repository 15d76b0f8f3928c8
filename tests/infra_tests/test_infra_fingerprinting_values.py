"""What strict fingerprints tell apart and what they treat as equal, value kind by value kind."""

from __future__ import annotations

import collections
import dataclasses
import enum
import functools
import math
import pathlib
import typing
from typing import Any, NamedTuple

import attrs
import numpy as np
import pytest
from hypothesis import given, strategies as st

from gt4py.infra import fingerprinting as fp


def test_fingerprint_is_32_hex_characters_and_digest_16_bytes() -> None:
    assert len(fp.strict("x")) == 32
    int(fp.strict("x"), 16)
    assert fp.strict.digest("x") == bytes.fromhex(fp.strict("x"))


@pytest.mark.parametrize(
    "values",
    [
        (1, 1.0, True, "1", b"1", 1 + 0j, np.int64(1), np.float64(1.0), np.bool_(True)),
        (0, 0.0, -0.0, False, None, "", b"", (), [], {}, frozenset(), set()),
        ("a", b"a", bytearray(b"a"), ("a",), ["a"]),
        ((1, 2), [1, 2], {1, 2}, frozenset({1, 2}), {1: 2}),
        (range(3), (0, 1, 2), slice(0, 3), slice(0, 3, 1), slice(None, 3)),
        (np.dtype("float64"), np.dtype("float32"), np.dtype(">f8"), np.float64, "float64"),
        (Ellipsis, NotImplemented, None),
        ("abc", ("ab", "c"), ("a", "bc"), ["abc"]),
    ],
)
def test_distinct_values_have_distinct_fingerprints(values: tuple[Any, ...]) -> None:
    fingerprints = [fp.strict(v) for v in values]
    assert len(set(fingerprints)) == len(values), list(zip(values, fingerprints, strict=True))


def test_equal_values_built_separately_have_equal_fingerprints() -> None:
    def build() -> Any:
        return (
            [1, 2.5, "x", None, (True, b"\x00")],
            {"k": [1, {2, 3}], 5: frozenset({"a"})},
            np.arange(4.0),
            np.dtype([("a", "<i4"), ("b", "<f8", (2,))]),
            slice(1, 2, 3),
            pathlib.PurePosixPath("/a/b"),
        )

    assert fp.strict(build()) == fp.strict(build())


def test_floats_are_exact_and_special_values_deterministic() -> None:
    assert fp.strict(0.1 + 0.2) != fp.strict(0.3)
    assert fp.strict(0.0) != fp.strict(-0.0)
    assert fp.strict(float("nan")) == fp.strict(float("nan"))
    assert fp.strict(float("nan")) == fp.strict(-math.nan)
    assert fp.strict(math.inf) != fp.strict(-math.inf)
    assert fp.strict(complex(0.0, -0.0)) != fp.strict(complex(0.0, 0.0))
    assert fp.strict(10**100) != fp.strict(10**100 + 1)
    assert fp.strict(10**10_000) != fp.strict(10**10_000 + 1)  # beyond int -> str limits
    assert fp.strict(-5) != fp.strict(5)


def test_strings_are_unambiguous_and_accept_any_code_point() -> None:
    assert fp.strict(("a;", "b")) != fp.strict(("a", ";b"))
    assert fp.strict("s1:x") != fp.strict(("s1:x",))
    assert fp.strict("\ud800") != fp.strict("\ud801")  # lone surrogates are legal str content
    assert fp.strict("é") != fp.strict("e\u0301")  # no normalisation: different code points


def test_dicts_are_independent_of_insertion_order() -> None:
    forward = {"a": 1, "b": [2], 3: (4,)}
    backward = {3: (4,), "b": [2], "a": 1}
    assert fp.strict(forward) == fp.strict(backward)
    assert fp.strict(forward) != fp.strict({"a": 1, "b": [2], 3: (5,)})
    # Keys and values are not interchangeable.
    assert fp.strict({1: 2, 3: 4}) != fp.strict({1: 4, 3: 2})
    assert fp.strict({1: 2}) != fp.strict({2: 1})


@given(st.dictionaries(st.text(max_size=5) | st.integers(), st.integers() | st.text(), max_size=8))
def test_dict_fingerprint_ignores_insertion_order_property(mapping: dict[Any, Any]) -> None:
    reordered = dict(reversed(list(mapping.items())))
    assert fp.strict(mapping) == fp.strict(reordered)


@given(st.frozensets(st.integers() | st.text(max_size=4) | st.tuples(st.integers()), max_size=10))
def test_set_fingerprint_ignores_iteration_order_property(elements: frozenset[Any]) -> None:
    rebuilt = frozenset(sorted(elements, key=repr, reverse=True))
    assert fp.strict(elements) == fp.strict(rebuilt)
    assert fp.strict(set(elements)) == fp.strict(set(rebuilt))


def test_lists_and_tuples_are_ordered() -> None:
    assert fp.strict([1, 2]) != fp.strict([2, 1])
    assert fp.strict((1, (2, 3))) != fp.strict(((1, 2), 3))


def test_subclasses_of_standard_types_carry_their_class() -> None:
    assert fp.strict(collections.OrderedDict(a=1)) != fp.strict({"a": 1})
    assert fp.strict(collections.Counter("ab")) != fp.strict({"a": 1, "b": 1})
    assert fp.strict(collections.OrderedDict(a=1)) == fp.strict(collections.OrderedDict(a=1))


def test_numpy_arrays_by_content_dtype_and_shape() -> None:
    base = np.arange(6, dtype=np.float64).reshape(2, 3)
    assert fp.strict(base) == fp.strict(base.copy())
    assert fp.strict(base) == fp.strict(np.asfortranarray(base))  # layout is not content
    assert fp.strict(base[:, ::2]) == fp.strict(np.ascontiguousarray(base[:, ::2]))
    changed = base.copy()
    changed[1, 2] = -1
    assert fp.strict(changed) != fp.strict(base)
    assert fp.strict(base.reshape(3, 2)) != fp.strict(base)
    assert fp.strict(base.astype(np.float32)) != fp.strict(base)
    assert fp.strict(base.astype(">f8")) != fp.strict(base)
    assert fp.strict(base) != fp.strict(base.tolist())
    assert fp.strict(np.array(3.0)) != fp.strict(np.array([3.0]))
    assert fp.strict(np.zeros((0, 3))) != fp.strict(np.zeros((3, 0)))


def test_numpy_arrays_of_every_kind() -> None:
    arrays = [
        np.array(["ab", "c"]),
        np.array([b"ab", b"c"]),
        np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[D]"),
        np.array([1, 2], dtype="timedelta64[s]"),
        np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]),
        np.zeros(3, dtype=np.bool_),
        np.zeros(2, dtype="V0"),
        np.array([1 + 2j]),
    ]
    fingerprints = {fp.strict(a) for a in arrays}
    assert len(fingerprints) == len(arrays)


def test_object_arrays_fold_their_elements() -> None:
    first = np.array([{"a": 1}, (2, 3), None], dtype=object)
    second = np.array([{"a": 1}, (2, 3), None], dtype=object)
    assert fp.strict(first) == fp.strict(second)
    second[0]["a"] = 2
    assert fp.strict(first) != fp.strict(second)


def test_numpy_dtypes_and_scalars() -> None:
    assert fp.strict(np.dtype("float64")) == fp.strict(np.dtype(np.float64))
    assert fp.strict(np.dtype("f8")) != fp.strict(np.dtype("f4"))
    assert fp.strict(np.dtype("<f8")) != fp.strict(np.dtype(">f8"))
    assert fp.strict(np.dtype("M8[s]")) != fp.strict(np.dtype("M8[ms]"))
    record = [("a", "<i4"), ("b", "<f8")]
    assert fp.strict(np.dtype(record)) != fp.strict(np.dtype(record, align=True))  # offsets
    assert fp.strict(np.dtype(record)) != fp.strict(np.dtype([("a", "<i4"), ("c", "<f8")]))
    assert fp.strict(np.dtype(("f8", (2,)))) != fp.strict(np.dtype(("f8", (3,))))
    assert fp.strict(np.float32(1.5)) != fp.strict(np.float64(1.5))
    assert fp.strict(np.float64(1.5)) != fp.strict(1.5)
    assert fp.strict(np.float64(1.5)) == fp.strict(np.float64(1.5))


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Level(enum.IntEnum):
    LOW = 1


class Perm(enum.IntFlag):
    R = 4
    W = 2


class Point(NamedTuple):
    x: int
    y: int


class OtherPoint(NamedTuple):
    x: int
    y: int


@dataclasses.dataclass(frozen=True)
class Node:
    name: str
    children: tuple[Any, ...] = ()
    note: str = dataclasses.field(default="", metadata={fp.METADATA_KEY: False})


@dataclasses.dataclass(frozen=True)
class SameFieldsNode:
    name: str
    children: tuple[Any, ...] = ()
    note: str = dataclasses.field(default="", metadata={fp.METADATA_KEY: False})


@dataclasses.dataclass(frozen=True)
class RenamedFieldNode:
    label: str
    children: tuple[Any, ...] = ()


@attrs.define
class AttrsNode:
    name: str
    weight: float = attrs.field(default=1.0, metadata={fp.METADATA_KEY: False})
    kind: str = attrs.field(default="a", metadata={fp.METADATA_KEY: True})


@attrs.frozen(slots=True)
class SlottedAttrsNode:
    name: str


def test_enums_by_class_and_member() -> None:
    assert fp.strict(Color.RED) != fp.strict(Color.GREEN)
    assert fp.strict(Color.RED) != fp.strict(1)
    assert fp.strict(Level.LOW) != fp.strict(1)  # an IntEnum is not its int
    assert fp.strict(Perm.R | Perm.W) != fp.strict(Perm.R)
    assert fp.strict(Perm(0)) == fp.strict(Perm(0))


def test_named_tuples_by_class_and_fields() -> None:
    assert fp.strict(Point(1, 2)) == fp.strict(Point(1, 2))
    assert fp.strict(Point(1, 2)) != fp.strict(Point(2, 1))
    assert fp.strict(Point(1, 2)) != fp.strict((1, 2))
    assert fp.strict(Point(1, 2)) != fp.strict(OtherPoint(1, 2))


def test_dataclasses_by_class_field_names_and_values() -> None:
    tree = Node("root", (Node("a"), Node("b", (Node("c"),))))
    assert fp.strict(tree) == fp.strict(Node("root", (Node("a"), Node("b", (Node("c"),)))))
    assert fp.strict(tree) != fp.strict(Node("root", (Node("a"), Node("b", (Node("d"),)))))
    assert fp.strict(Node("a")) != fp.strict(SameFieldsNode("a"))
    assert fp.strict(Node("a")) != fp.strict(RenamedFieldNode("a"))
    assert fp.strict(Node("a")) != fp.strict(("a", ()))


def test_dataclass_fields_marked_fingerprint_false_are_left_out() -> None:
    assert fp.strict(Node("a", note="x")) == fp.strict(Node("a", note="y"))
    assert fp.strict(Node("a", note="x")) != fp.strict(Node("b", note="x"))


def test_attrs_fields_marked_fingerprint_false_are_left_out() -> None:
    assert fp.strict(AttrsNode("a", weight=1.0)) == fp.strict(AttrsNode("a", weight=2.0))
    assert fp.strict(AttrsNode("a")) != fp.strict(AttrsNode("b"))
    assert fp.strict(AttrsNode("a", kind="a")) != fp.strict(AttrsNode("a", kind="b"))
    assert fp.strict(SlottedAttrsNode("a")) != fp.strict(SlottedAttrsNode("b"))
    assert fp.strict(SlottedAttrsNode("a")) != fp.strict(AttrsNode("a"))


@dataclasses.dataclass
class BadMetadata:
    x: int = dataclasses.field(default=0, metadata={fp.METADATA_KEY: "no"})


def test_non_bool_fingerprint_metadata_is_an_error_naming_the_field() -> None:
    with pytest.raises(fp.FingerprintError, match=r"BadMetadata\.x.*True or False"):
        fp.strict(BadMetadata())


def test_paths_slices_ranges_partials() -> None:
    assert fp.strict(pathlib.PurePosixPath("a/b")) == fp.strict(pathlib.PurePosixPath("a/b"))
    assert fp.strict(pathlib.PurePosixPath("a/b")) != fp.strict(pathlib.PureWindowsPath("a/b"))
    assert fp.strict(pathlib.PurePosixPath("a/b")) != fp.strict("a/b")
    assert fp.strict(pathlib.Path("a")) == fp.strict(pathlib.PurePosixPath("a"))
    assert fp.strict(slice(1, 2)) != fp.strict(slice(1, 3))
    assert fp.strict(range(3)) != fp.strict(range(4))
    assert fp.strict(functools.partial(max, 1)) == fp.strict(functools.partial(max, 1))
    assert fp.strict(functools.partial(max, 1)) != fp.strict(functools.partial(max, 2))
    assert fp.strict(functools.partial(max, key=abs)) != fp.strict(functools.partial(max))
    assert fp.strict(functools.partial(max, 1)) != fp.strict(functools.partial(min, 1))


def test_typing_forms() -> None:
    assert fp.strict(list[int]) == fp.strict(list[int])
    assert fp.strict(list[int]) != fp.strict(list[float])
    assert fp.strict(list[int]) != fp.strict(list)
    assert fp.strict(int | str) == fp.strict(str | int)  # as they compare equal
    # The typing-module spelling is the point here.
    assert fp.strict(typing.Optional[int]) == fp.strict(int | None)  # noqa: UP045
    assert fp.strict(typing.Literal[1, 2]) != fp.strict(typing.Literal[2, 1])
    assert fp.strict(typing.Any) != fp.strict(object)
    assert fp.strict(typing.ClassVar[int]) != fp.strict(typing.Final[int])
