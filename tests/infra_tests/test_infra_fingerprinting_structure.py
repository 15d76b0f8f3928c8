"""Shapes of values: cycles, deep nesting, shared sub-values, runaway deconstructors."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import pytest

from gt4py.infra import fingerprinting as fp


@dataclasses.dataclass(eq=False)
class Vertex:
    name: str
    neighbours: list[Vertex] = dataclasses.field(default_factory=list)


def test_list_containing_itself() -> None:
    first: list[Any] = [1]
    first.append(first)
    second: list[Any] = [1]
    second.append(second)
    assert fp.strict(first) == fp.strict(second)
    third: list[Any] = [2]
    third.append(third)
    assert fp.strict(first) != fp.strict(third)
    assert fp.strict(first) != fp.strict([1, []])


def test_objects_referring_to_each_other() -> None:
    def ring(names: list[str]) -> Vertex:
        vertices = [Vertex(name) for name in names]
        for vertex, successor in zip(vertices, vertices[1:] + vertices[:1], strict=True):
            vertex.neighbours.append(successor)
        return vertices[0]

    assert fp.strict(ring(["a", "b", "c"])) == fp.strict(ring(["a", "b", "c"]))
    assert fp.strict(ring(["a", "b", "c"])) != fp.strict(ring(["a", "b", "d"]))
    assert fp.strict(ring(["a", "b"])) != fp.strict(ring(["a", "b", "a", "b"]))


def test_cycle_fingerprint_does_not_depend_on_where_the_cycle_sits() -> None:
    def loop() -> list[Any]:
        value: list[Any] = ["x"]
        value.append(value)
        return value

    shared = loop()
    # The same cyclic object reached at different depths, next to a separately built equal.
    assert fp.strict([shared, [[shared]]]) == fp.strict([loop(), [[loop()]]])


def test_dict_and_set_cycles() -> None:
    mapping: dict[str, Any] = {"a": 1}
    mapping["self"] = mapping
    other: dict[str, Any] = {"self": None, "a": 1}
    other["self"] = other
    assert fp.strict(mapping) == fp.strict(other)

    holder: list[Any] = []
    frozen = frozenset({1, (2, 3)})
    holder.extend([frozen, holder])
    assert fp.strict(holder) == fp.strict(holder)


def test_deep_acyclic_nesting_does_not_hit_the_recursion_limit() -> None:
    depth = 10 * sys.getrecursionlimit()
    chain: Any = ()
    for i in range(depth):
        chain = (chain, i)
    other: Any = ()
    for i in range(depth):
        other = (other, i)
    assert fp.strict(chain) == fp.strict(other)
    assert fp.strict(chain) != fp.strict((chain, 0))


def test_deep_dataclass_nesting() -> None:
    head = Vertex("0")
    for i in range(1, 20_000):
        head = Vertex(str(i), [head])
    assert len(fp.strict(head)) == 32


def test_shared_sub_values_count_like_copies() -> None:
    leaf = ("leaf", [1, 2, 3])
    shared = (leaf, leaf)
    copied = (("leaf", [1, 2, 3]), ("leaf", [1, 2, 3]))
    assert fp.strict(shared) == fp.strict(copied)


def test_heavily_shared_dag_is_folded_once_per_object() -> None:
    # 200 levels of (x, x): 2**200 paths, 200 distinct objects.
    calls = 0

    class Counted:
        def __init__(self, child: Any) -> None:
            self.child = child

    def parts(node: Counted) -> tuple[Any, Any]:
        nonlocal calls
        calls += 1
        return (node.child, node.child)

    node: Any = "bottom"
    for _ in range(200):
        node = Counted(node)
    fingerprinter = fp.lenient.extend({Counted: parts})
    fingerprinter(node)
    assert calls == 200


def test_runaway_deconstructor_is_stopped_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Endless:
        pass

    monkeypatch.setattr(fp.Fingerprinter, "max_depth", 1_000)
    fingerprinter = fp.lenient.extend({Endless: lambda value: [Endless()]})
    with pytest.raises(fp.FingerprintError, match=r"deeper than 1000 levels.*Endless"):
        fingerprinter(Endless())


def test_temporary_parts_of_deconstructed_values_cannot_alias() -> None:
    # Deconstructors that build fresh containers: the fold must keep them alive, or a freed
    # container's id could be reused by the next one and wrongly match the earlier digest.
    class Wrapper:
        def __init__(self, payload: Any) -> None:
            self.payload = payload

    fingerprinter = fp.lenient.extend({Wrapper: lambda w: [list(w.payload)]})
    values = [Wrapper([i]) for i in range(500)]
    assert fingerprinter(values) != fingerprinter([Wrapper([0])] * 500)
    assert fingerprinter(values) == fingerprinter([Wrapper([i]) for i in range(500)])
