"""Generic datamodels: ``Model[T]`` parametrization, bounds, constraints, pickling, hashing."""

from __future__ import annotations

import numbers
import pickle
from typing import Generic, TypeVar

import pytest

from gt4py.eve import datamodels as dm
from gt4py.infra import fingerprinting as fp


T = TypeVar("T")
N = TypeVar("N", bound=numbers.Number)
S = TypeVar("S", int, str)
K = TypeVar("K")
V = TypeVar("V")


class Box(dm.DataModel, Generic[T]):
    value: T
    history: list[T] = dm.field(factory=list)


class NumberBox(dm.DataModel, Generic[N]):
    value: N


class Choice(dm.DataModel, Generic[S]):
    value: S


class Pair(dm.DataModel, Generic[K, V]):
    key: K
    value: V


class StrKeyed(Pair[str, V], Generic[V]):
    note: str = ""


class IntBox(Box[int]):
    pass


class Nested(dm.DataModel, Generic[T]):
    inner: Box[T]
    boxes: list[Box[T]] = dm.field(factory=list)


def test_parametrization_checks_the_concrete_type() -> None:
    assert Box[int](value=1, history=[0]).value == 1
    with pytest.raises(
        dm.DataModelTypeError, match=r"'value' of Box\[int\]: expected int, got str"
    ):
        Box[int](value="1")
    with pytest.raises(dm.DataModelTypeError, match=r"item \[1\] expected str"):
        Box[str](value="a", history=["b", 2])


def test_unparametrized_generic_model_uses_bounds() -> None:
    assert Box(value=object()).value is not None  # unconstrained: anything
    assert NumberBox(value=2.5).value == 2.5
    with pytest.raises(dm.DataModelTypeError, match="expected Number"):
        NumberBox(value="2.5")


def test_parametrizations_are_cached_subclasses() -> None:
    assert Box[int] is Box[int]
    assert Box[int] is not Box[str]
    assert issubclass(Box[int], Box)
    assert isinstance(Box[int](value=1), Box)
    assert Box[int].__name__ == "Box[int]"
    assert Box[int](value=1) != Box[str](value="1")
    assert Box[int](value=1) == Box[int](value=1)


def test_type_argument_must_satisfy_the_bound() -> None:
    assert NumberBox[float](value=1.0).value == 1.0
    with pytest.raises(
        TypeError, match="type argument str for type variable N does not satisfy the bound Number"
    ):
        NumberBox[str]


def test_type_argument_must_be_one_of_the_constraints() -> None:
    assert Choice[int](value=3).value == 3
    with pytest.raises(
        TypeError, match=r"float for type variable S is not one of the allowed types \(int, str\)"
    ):
        Choice[float]
    with pytest.raises(dm.DataModelTypeError):
        Choice[int](value="x")


def test_wrong_number_of_type_arguments() -> None:
    with pytest.raises(TypeError, match=r"Box takes 1 type argument\(s\) \(T\), got 2"):
        Box[int, str]


def test_non_generic_models_cannot_be_parametrized() -> None:
    with pytest.raises(TypeError, match="IntBox is not a generic datamodel"):
        IntBox[int]


def test_partial_specialization_through_generic_bases() -> None:
    model = StrKeyed[int](key="k", value=1)
    assert model.value == 1
    with pytest.raises(dm.DataModelTypeError, match=r"'key'.*expected str"):
        StrKeyed[int](key=1, value=1)
    with pytest.raises(dm.DataModelTypeError, match=r"'value'.*expected int"):
        StrKeyed[int](key="k", value="v")


def test_subclass_of_a_parametrization() -> None:
    assert IntBox(value=3).value == 3
    with pytest.raises(dm.DataModelTypeError, match="'value' of IntBox: expected int"):
        IntBox(value="3")


def test_generic_fields_of_generic_models_follow_the_parameter() -> None:
    assert Nested[int](inner=Box[int](value=1)).inner.value == 1
    with pytest.raises(dm.DataModelTypeError, match=r"expected Box\[int\]"):
        Nested[int](inner=Box[str](value="1"))
    with pytest.raises(dm.DataModelTypeError, match=r"item \[0\] expected Box\[int\]"):
        Nested[int](inner=Box[int](value=1), boxes=[Box[str](value="x")])


def test_instances_of_parametrizations_pickle() -> None:
    box = Box[int](value=3, history=[1, 2])
    clone = pickle.loads(pickle.dumps(box))
    assert clone == box
    assert type(clone) is Box[int]


def test_parametrizations_have_strict_fingerprints() -> None:
    assert fp.strict(Box[int](value=1)) == fp.strict(Box[int](value=1))
    assert fp.strict(Box[int](value=1)) != fp.strict(Box[int](value=2))
    # same field values, different parametrization: different class, different fingerprint
    assert fp.strict(Box[int](value=1)) != fp.strict(Box[object](value=1))
