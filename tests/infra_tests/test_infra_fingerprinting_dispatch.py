"""Deconstructor tables: registration, extension, MRO dispatch, overrides, pickling."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from gt4py.infra import fingerprinting as fp


class Shape:
    def __init__(self, name: str, size: int, cache: object = None) -> None:
        self.name = name
        self.size = size
        self.cache = cache  # derived state that must not count


class Circle(Shape):
    pass


class Square(Shape):
    pass


class UnitCircle(Circle):
    pass


def shape_parts(shape: Shape) -> tuple[str, int]:
    return (shape.name, shape.size)


def shape_name_only(shape: Shape) -> str:
    return shape.name


def circle_parts(circle: Circle) -> tuple[str, int, str]:
    return (circle.name, circle.size, "circle")


def test_registered_deconstructor_is_used_and_ignores_what_it_leaves_out() -> None:
    fingerprinter = fp.Fingerprinter()
    fingerprinter.register(Shape, shape_parts)
    assert fingerprinter(Shape("s", 1, cache=[1])) == fingerprinter(Shape("s", 1, cache=[2]))
    assert fingerprinter(Shape("s", 1)) != fingerprinter(Shape("s", 2))


def test_deconstructed_value_differs_from_its_parts_and_from_other_classes() -> None:
    fingerprinter = fp.Fingerprinter()
    fingerprinter.register(Shape, shape_parts)
    assert fingerprinter(Shape("s", 1)) != fingerprinter(("s", 1))
    assert fingerprinter(Circle("s", 1)) != fingerprinter(Shape("s", 1))
    assert fingerprinter(Circle("s", 1)) != fingerprinter(Square("s", 1))


def test_tuple_and_non_tuple_results_are_told_apart() -> None:
    as_text = fp.Fingerprinter().extend({Shape: shape_name_only})
    as_tuple = fp.Fingerprinter().extend({Shape: lambda shape: (shape.name,)})
    as_list = fp.Fingerprinter().extend({Shape: lambda shape: [shape.name]})
    results = {f(Shape("s", 1)) for f in (as_text, as_tuple, as_list)}
    assert len(results) == 3


def test_dispatch_follows_the_mro_nearest_registered_base_wins() -> None:
    fingerprinter = fp.Fingerprinter().extend({Shape: shape_parts, Circle: circle_parts})
    # Square uses Shape's deconstructor; UnitCircle uses Circle's (its nearest base).
    assert fingerprinter(Square("s", 1, cache=1)) == fingerprinter(Square("s", 1, cache=2))
    calls: list[str] = []

    def tracing_circle_parts(circle: Circle) -> tuple[Any, ...]:
        calls.append(type(circle).__name__)
        return circle_parts(circle)

    tracing = fp.Fingerprinter().extend({Shape: shape_parts, Circle: tracing_circle_parts})
    tracing(UnitCircle("u", 1))
    tracing(Square("q", 1))
    assert calls == ["UnitCircle"]


def test_extend_returns_a_new_instance_and_leaves_the_original_untouched() -> None:
    base = fp.Fingerprinter()
    base.register(Shape, shape_parts)
    extended = base.extend({Shape: shape_name_only})
    assert extended is not base
    assert extended(Shape("s", 1)) == extended(Shape("s", 2))  # the override wins
    assert base(Shape("s", 1)) != base(Shape("s", 2))  # the original still uses its own
    with pytest.raises(fp.FingerprintError):
        fp.strict(Shape("s", 1))  # nothing leaked into the global instances


def test_explicit_override_beats_records_and_standard_types() -> None:
    @dataclasses.dataclass
    class Record:
        x: int
        y: int

    fingerprinter = fp.lenient.extend({Record: lambda r: r.x, int: str})
    assert fingerprinter(Record(1, 2)) == fingerprinter(Record(1, 3))
    assert fingerprinter(5) != fp.lenient(5)
    assert fingerprinter(5) == fp.lenient.extend({int: str})(5)
    assert fp.lenient(Record(1, 2)) != fp.lenient(Record(1, 3))


def test_registration_on_base_shows_through_existing_extensions() -> None:
    base = fp.Fingerprinter()
    extension = base.extend({Square: shape_name_only})
    with pytest.raises(fp.FingerprintError):
        extension(Circle("c", 1))
    base.register(Shape, shape_parts)
    assert extension(Circle("c", 1)) == base(Circle("c", 1))
    assert extension(Square("q", 1)) == extension(Square("q", 2))  # still its own override


class GloballyRegistered:
    def __init__(self, value: int) -> None:
        self.value = value


def globally_registered_parts(obj: GloballyRegistered) -> tuple[int]:
    return (obj.value,)


def test_global_registration_on_strict_applies_to_lenient_and_extensions() -> None:
    extension = fp.strict.extend({})
    with pytest.raises(fp.FingerprintError):
        fp.strict(GloballyRegistered(1))
    assert fp.lenient(GloballyRegistered(1)) != fp.lenient(GloballyRegistered(1))  # identity
    fp.strict.register(GloballyRegistered, globally_registered_parts)
    assert fp.strict(GloballyRegistered(1)) == fp.strict(GloballyRegistered(1))
    assert fp.lenient(GloballyRegistered(1)) == fp.strict(GloballyRegistered(1))
    assert extension(GloballyRegistered(1)) == fp.strict(GloballyRegistered(1))


def test_registration_errors_are_clear() -> None:
    fingerprinter = fp.Fingerprinter()
    with pytest.raises(TypeError, match="registered for classes"):
        fingerprinter.register("Shape", shape_parts)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be callable"):
        fingerprinter.register(Shape, "shape_parts")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be callable"):
        fingerprinter.extend({Shape: 42})  # type: ignore[dict-item]


def test_deconstructor_returning_its_argument_is_an_error() -> None:
    fingerprinter = fp.Fingerprinter().extend({Shape: lambda shape: shape})
    with pytest.raises(fp.FingerprintError, match="returned the value itself"):
        fingerprinter(Shape("s", 1))


def test_deconstructor_exceptions_propagate_with_location() -> None:
    def broken(shape: Shape) -> Any:
        raise ValueError("broken deconstructor")

    fingerprinter = fp.Fingerprinter().extend({Shape: broken})
    with pytest.raises(ValueError, match="broken deconstructor") as info:
        fingerprinter({"a": [Shape("s", 1)]})
    assert any("value[item 0 value][0]" in note for note in info.value.__notes__)


def test_strict_and_lenient_pickle_by_reference() -> None:
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(fp.strict, protocol)) is fp.strict
        assert pickle.loads(pickle.dumps(fp.lenient, protocol)) is fp.lenient
    assert copy.deepcopy(fp.strict) is fp.strict
    assert b"gt4py.infra.fingerprinting" in pickle.dumps(fp.strict)


def test_extended_instances_pickle_by_value_when_their_table_is_picklable() -> None:
    extended = fp.strict.extend({Shape: shape_parts})
    restored = pickle.loads(pickle.dumps(extended))
    assert restored is not extended
    assert restored.is_strict
    assert restored(Circle("c", 2)) == extended(Circle("c", 2))
    lenient_extended = pickle.loads(pickle.dumps(fp.lenient.extend({Shape: shape_parts})))
    assert not lenient_extended.is_strict


def test_extended_instances_with_lambdas_do_not_pickle() -> None:
    extended = fp.strict.extend({Shape: lambda shape: shape.name})
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(extended)


def test_repr_and_mode() -> None:
    assert repr(fp.strict) == "gt4py.infra.fingerprinting.strict"
    assert repr(fp.lenient) == "gt4py.infra.fingerprinting.lenient"
    assert fp.strict.is_strict
    assert not fp.lenient.is_strict
    assert "Shape" in repr(fp.strict.extend({Shape: shape_parts}))
