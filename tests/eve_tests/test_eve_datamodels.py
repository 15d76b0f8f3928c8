"""Datamodels: construction, type checks, validators, coercion, options and their errors."""

from __future__ import annotations

import collections.abc
import enum
import pickle
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal, NewType, Protocol

import attrs
import pytest

from gt4py.eve import datamodels as dm
from gt4py.infra import fingerprinting as fp


class Color(enum.Enum):
    RED = 1
    BLUE = 2


class Point(dm.DataModel):
    x: int
    y: int = 0


class Shape(dm.DataModel):
    name: str
    points: list[Point] = dm.field(factory=list)
    tags: frozenset[str] = frozenset()
    color: Color | None = None
    weights: dict[str, float] = dm.field(factory=dict)


class Everything(dm.DataModel):
    number: float
    kind: Literal["a", "b"]
    pair: tuple[int, str]
    many: tuple[int, ...]
    either: int | str
    either_new: int | None
    cls: type[Point]
    func: Callable[[int], int]
    seq: Sequence[int]
    mapping: Mapping[str, int]
    anything: Any
    counter: ClassVar[int] = 0


def _everything(**changes: Any) -> Everything:
    values: dict[str, Any] = {
        "number": 1.5,
        "kind": "a",
        "pair": (1, "x"),
        "many": (1, 2, 3),
        "either": "s",
        "either_new": None,
        "cls": Point,
        "func": abs,
        "seq": [1, 2],
        "mapping": {"a": 1},
        "anything": object(),
    }
    values.update(changes)
    return Everything(**values)


# --- construction and the basic contract ---------------------------------------------------


def test_fields_defaults_and_equality() -> None:
    shape = Shape(name="s", points=[Point(x=1), Point(x=2, y=3)])
    assert shape.points[1].y == 3
    assert shape.tags == frozenset()
    assert shape == Shape(name="s", points=[Point(x=1), Point(x=2, y=3)])
    assert shape != Shape(name="t", points=[Point(x=1), Point(x=2, y=3)])
    assert Shape(name="a").points is not Shape(name="a").points  # factory, not shared
    assert repr(Point(x=1, y=2)) == "Point(x=1, y=2)"


def test_frozen_by_default_and_hashable() -> None:
    point = Point(x=1)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    assert hash(point) == hash(Point(x=1))
    assert {point, Point(x=1)} == {point}


def test_keyword_only_by_default_and_positional_on_request() -> None:
    with pytest.raises(TypeError, match="positional"):
        Point(1)  # type: ignore[misc]

    class Pos(dm.DataModel, kw_only=False):
        a: int
        b: str

    assert Pos(1, "x") == Pos(a=1, b="x")


def test_missing_and_unknown_arguments_are_errors() -> None:
    with pytest.raises(TypeError, match="'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'z'"):
        Point(x=1, z=2)  # type: ignore[call-arg]


def test_class_vars_are_not_fields() -> None:
    assert "counter" not in Everything.__eve_field_names__
    assert Everything.counter == 0


def test_pickle_roundtrip() -> None:
    shape = Shape(name="s", points=[Point(x=1)], color=Color.RED)
    assert pickle.loads(pickle.dumps(shape)) == shape


# --- type checks ---------------------------------------------------------------------------


def test_wrong_type_error_names_class_field_expected_and_received() -> None:
    with pytest.raises(dm.DataModelTypeError) as info:
        Point(x="one")  # type: ignore[arg-type]
    message = str(info.value)
    assert "Point" in message
    assert "'x'" in message
    assert "expected int" in message
    assert "got str 'one'" in message
    assert info.value.model is Point and info.value.field_name == "x"
    assert isinstance(info.value, TypeError)


def test_container_error_points_at_the_bad_element() -> None:
    with pytest.raises(dm.DataModelTypeError, match=r"item \[1\] expected Point, got int 3"):
        Shape(name="s", points=[Point(x=1), 3])  # type: ignore[list-item]
    with pytest.raises(dm.DataModelTypeError, match="value at key 'b' expected float, got str"):
        Shape(name="s", weights={"a": 1.0, "b": "heavy"})  # type: ignore[dict-item]
    with pytest.raises(dm.DataModelTypeError, match="expected list"):
        Shape(name="s", points=(Point(x=1),))  # type: ignore[arg-type]


def test_all_supported_annotation_forms_accept_good_values() -> None:
    model = _everything()
    assert model.kind == "a"
    # int is acceptable where float is expected (PEP 484 numeric tower)
    assert _everything(number=3).number == 3


@pytest.mark.parametrize(
    ("field_name", "bad_value", "expected"),
    [
        ("number", "1.5", "expected float"),
        ("kind", "c", "expected Literal['a', 'b']"),
        ("kind", 1, "expected Literal"),
        ("pair", (1, 2), "item [1] expected str, got int"),
        ("pair", (1,), "expected 2 items, got 1"),
        ("many", (1, "x"), "item [1] expected int"),
        ("either", 1.5, "expected int | str"),
        ("either_new", "x", "expected int | None"),
        ("cls", int, "expected type[Point]"),
        ("cls", Point(x=1), "expected type[Point]"),
        ("func", 3, "expected Callable"),
        ("seq", {1, 2}, "expected Sequence[int]"),
        ("seq", [1, "2"], "item [1] expected int"),
        ("mapping", {"a": "1"}, "value at key 'a' expected int"),
        ("mapping", {1: 1}, "key 1 expected str"),
    ],
)
def test_bad_values_for_each_annotation_form(
    field_name: str, bad_value: Any, expected: str
) -> None:
    with pytest.raises(dm.DataModelTypeError) as info:
        _everything(**{field_name: bad_value})
    assert info.value.field_name == field_name
    assert expected in str(info.value)


def test_literal_checks_the_type_too() -> None:
    class Flag(dm.DataModel):
        value: Literal[1]

    assert Flag(value=1).value == 1
    with pytest.raises(dm.DataModelTypeError):
        Flag(value=True)  # type: ignore[arg-type]


def test_new_type_checks_its_supertype() -> None:
    UserId = NewType("UserId", int)

    class User(dm.DataModel):
        id: UserId

    assert User(id=UserId(3)).id == 3
    with pytest.raises(dm.DataModelTypeError, match="expected UserId"):
        User(id="3")  # type: ignore[arg-type]


def test_forward_references_resolve_lazily() -> None:
    tree = Tree(children=[Tree(children=[])])
    assert tree.children[0].children == []
    with pytest.raises(dm.DataModelTypeError, match=r"item \[0\] expected Tree"):
        Tree(children=["leaf"])  # type: ignore[list-item]


class Tree(dm.DataModel):
    children: list[Tree]


def test_unresolvable_forward_reference_is_a_definition_error() -> None:
    class Broken(dm.DataModel):
        other: NotDefinedAnywhere  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(dm.DataModelDefinitionError, match=r"Broken.*NotDefinedAnywhere"):
        Broken(other=1)


def test_local_classes_can_refer_to_each_other() -> None:
    class Leaf(dm.DataModel):
        value: int

    class Branch(dm.DataModel):
        leaves: list[Leaf]
        parent: Branch | None = None

    branch = Branch(leaves=[Leaf(value=1)], parent=Branch(leaves=[]))
    assert branch.parent is not None
    with pytest.raises(dm.DataModelTypeError, match=r"item \[0\] expected .*Leaf"):
        Branch(leaves=[1])  # type: ignore[list-item]


def test_unsupported_annotation_is_a_definition_error() -> None:
    class NotRuntime(Protocol):
        def run(self) -> None: ...

    class Uses(dm.DataModel):
        thing: NotRuntime

    with pytest.raises(
        dm.DataModelDefinitionError, match=r"field 'thing' of .*Uses.*type_check=False"
    ):
        Uses(thing=1)  # type: ignore[arg-type]


def test_type_check_can_be_disabled_per_field_and_per_class() -> None:
    class Loose(dm.DataModel):
        anything: int = dm.field(type_check=False)
        checked: int = 0

    assert Loose(anything="x").anything == "x"  # type: ignore[arg-type]
    with pytest.raises(dm.DataModelTypeError):
        Loose(anything=1, checked="x")  # type: ignore[arg-type]

    class Unchecked(dm.DataModel, type_check=False):
        value: int

    assert Unchecked(value="x").value == "x"  # type: ignore[arg-type]


# --- validators ----------------------------------------------------------------------------


class Interval(dm.DataModel):
    start: int
    stop: int = dm.field(
        validator=lambda self, attribute, value: _non_negative(attribute.name, value)
    )

    @dm.validator("start")
    def _start_non_negative(self, attribute: attrs.Attribute[int], value: int) -> None:
        _non_negative(attribute.name, value)

    @dm.root_validator
    def _ordered(self) -> None:
        if self.start > self.stop:
            raise ValueError(f"start {self.start} > stop {self.stop}")


def _non_negative(name: str, value: int) -> None:
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")


def test_field_and_root_validators() -> None:
    assert Interval(start=1, stop=2).stop == 2
    with pytest.raises(ValueError, match="start must be non-negative, got -1"):
        Interval(start=-1, stop=2)
    with pytest.raises(ValueError, match="stop must be non-negative, got -2"):
        Interval(start=0, stop=-2)
    with pytest.raises(ValueError, match="start 3 > stop 2"):
        Interval(start=3, stop=2)


def test_type_checks_run_before_validators() -> None:
    with pytest.raises(dm.DataModelTypeError):
        Interval(start="a", stop=2)  # type: ignore[arg-type]


def test_validators_are_inherited_and_can_be_added() -> None:
    class EvenInterval(Interval):
        @dm.root_validator
        def _even_length(self) -> None:
            if (self.stop - self.start) % 2:
                raise ValueError("odd length")

    assert EvenInterval(start=0, stop=2).stop == 2
    with pytest.raises(ValueError, match="start 3 > stop 2"):
        EvenInterval(start=3, stop=2)
    with pytest.raises(ValueError, match="odd length"):
        EvenInterval(start=0, stop=1)


def test_validator_for_unknown_field_is_a_definition_error() -> None:
    with pytest.raises(dm.DataModelDefinitionError, match=r"unknown field.*'nope'"):

        class Wrong(dm.DataModel):
            x: int

            @dm.validator("nope")
            def _check(self, attribute: Any, value: Any) -> None:
                pass


def test_validator_decorator_needs_field_names() -> None:
    with pytest.raises(TypeError, match="field names"):
        dm.validator()


def test_post_init_hook_runs_after_validation() -> None:
    calls = []

    class Hooked(dm.DataModel):
        x: int

        def __post_init__(self) -> None:
            calls.append(self.x)

    Hooked(x=4)
    assert calls == [4]


# --- coercion ------------------------------------------------------------------------------


class Coercing(dm.DataModel):
    count: dm.Coerced[int]
    ratio: float = dm.field(default=0.0, coerce=True)
    labels: dm.Coerced[tuple[str, ...]] = ()


def test_declared_coercion_converts_values() -> None:
    model = Coercing(count="3", ratio="0.5", labels=["a", "b"])  # type: ignore[arg-type]
    assert model.count == 3 and type(model.count) is int
    assert model.ratio == 0.5
    assert model.labels == ("a", "b")


def test_failed_coercion_is_a_type_error_naming_the_field() -> None:
    with pytest.raises(dm.DataModelTypeError, match=r"'count'.*coercion failed: ValueError"):
        Coercing(count="three")  # type: ignore[arg-type]


def test_no_coercion_unless_declared() -> None:
    with pytest.raises(dm.DataModelTypeError):
        Point(x="3")  # type: ignore[arg-type]


def test_coercion_of_an_uncoercible_type_is_a_definition_error() -> None:
    class Odd(dm.DataModel):
        value: Literal[1, 2] = dm.field(coerce=True)

    with pytest.raises(dm.DataModelDefinitionError, match="coercion was requested"):
        Odd(value=1)


def test_constrained_strings_coerce_from_str_and_validate() -> None:
    class Identifier(dm.ConstrainedStr):
        pattern = r"[a-z]+"

    class Named(dm.DataModel):
        name: Identifier
        aliases: list[Identifier] = dm.field(factory=list)

    named = Named(name="abc", aliases=["x", "y"])  # type: ignore[arg-type]
    assert type(named.name) is Identifier
    assert all(type(alias) is Identifier for alias in named.aliases)
    with pytest.raises(dm.DataModelTypeError, match="'ABC' is not a valid Identifier"):
        Named(name="ABC")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must match"):
        Identifier("9")
    with pytest.raises(TypeError, match="takes a str"):
        Identifier(9)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pattern"):

        class BadPattern(dm.ConstrainedStr):
            pattern = "("


# --- mutable models ------------------------------------------------------------------------


class Counter(dm.DataModel, frozen=False):
    value: int
    history: list[int] = dm.field(factory=list)

    @dm.validator("value")
    def _bounded(self, attribute: Any, value: int) -> None:
        if value > 100:
            raise ValueError("too large")


def test_mutable_models_validate_assignments() -> None:
    counter = Counter(value=1)
    counter.value = 5
    assert counter.value == 5
    with pytest.raises(dm.DataModelTypeError, match="'value' of Counter: expected int, got str"):
        counter.value = "6"  # type: ignore[assignment]
    with pytest.raises(ValueError, match="too large"):
        counter.value = 101
    assert counter.value == 5
    with pytest.raises(TypeError, match="unhashable"):
        hash(counter)


def test_a_mutable_subclass_of_a_frozen_model_is_refused() -> None:
    with pytest.raises(
        dm.DataModelDefinitionError, match=r"cannot be mutable.*Point is frozen and has fields"
    ):

        class Thawed(Point, frozen=False):
            pass


# --- definition errors ---------------------------------------------------------------------


def test_mutable_defaults_are_refused() -> None:
    with pytest.raises(dm.DataModelDefinitionError, match=r"mutable default.*factory=list"):

        class Shared(dm.DataModel):
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="factory=dict"):
        dm.field(default={})


def test_default_and_factory_together_are_refused() -> None:
    with pytest.raises(TypeError, match="either 'default' or 'factory'"):
        dm.field(default=1, factory=int)


def test_custom_init_is_refused() -> None:
    with pytest.raises(dm.DataModelDefinitionError, match=r"__init__.*__post_init__"):

        class Custom(dm.DataModel):
            x: int

            def __init__(self) -> None:
                pass


# --- helpers and metadata ------------------------------------------------------------------


def test_evolve_validates_and_names_unknown_fields() -> None:
    point = Point(x=1, y=2)
    assert dm.evolve(point, y=5) == Point(x=1, y=5)
    with pytest.raises(dm.DataModelTypeError):
        dm.evolve(point, y="5")
    with pytest.raises(TypeError, match=r"Point has no field\(s\) 'z'"):
        dm.evolve(point, z=1)
    with pytest.raises(TypeError, match="datamodel instance"):
        dm.evolve(object())  # type: ignore[type-var]


def test_fields_helper() -> None:
    assert [f.name for f in dm.fields(Point)] == ["x", "y"]
    assert [f.name for f in dm.fields(Point(x=1))] == ["x", "y"]
    with pytest.raises(TypeError, match="not a datamodel"):
        dm.fields(int)  # type: ignore[arg-type]


class Tagged(dm.DataModel):
    value: int
    note: str = dm.field(default="", fingerprint=False)


def test_fingerprint_false_is_attrs_metadata_under_the_infra_key() -> None:
    note = attrs.fields(Tagged).note
    assert note.metadata[fp.METADATA_KEY] is False
    assert fp.METADATA_KEY == "fingerprint"
    assert fp.METADATA_KEY not in attrs.fields(Tagged).value.metadata
    assert fp.strict(Tagged(value=1, note="a")) == fp.strict(Tagged(value=1, note="b"))
    assert fp.strict(Tagged(value=1)) != fp.strict(Tagged(value=2))


def test_abstract_collections_check_their_elements() -> None:
    class Bag(dm.DataModel):
        items: collections.abc.Set[int]

    assert Bag(items=frozenset({1})).items == {1}
    with pytest.raises(dm.DataModelTypeError, match="expected Set"):
        Bag(items=[1])  # type: ignore[arg-type]
