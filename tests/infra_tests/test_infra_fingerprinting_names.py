"""Functions, classes and modules: verified names under strict, identities under lenient."""

from __future__ import annotations

import dataclasses
import functools
import gc
import math
import pickle
import sys
import types
from typing import Any

import numpy as np
import pytest

from gt4py.infra import fingerprinting as fp


def module_function(x: int) -> int:
    return x


def other_module_function(x: int) -> int:
    return x


def decorator(function: Any) -> Any:
    @functools.wraps(function)
    def wrapper(*args: Any) -> Any:
        return function(*args)

    return wrapper


@decorator
def decorated_function(x: int) -> int:
    return x


class Widget:
    def method(self) -> int:
        return 1

    @classmethod
    def factory(cls) -> Widget:
        return cls()

    @staticmethod
    def helper() -> int:
        return 2

    class Inner:
        pass


@dataclasses.dataclass(frozen=True)
class Holder:
    value: Any


def test_module_level_functions_and_classes_by_name() -> None:
    assert fp.strict(module_function) == fp.strict(module_function)
    assert fp.strict(module_function) != fp.strict(other_module_function)
    assert fp.strict(Widget) != fp.strict(Widget.Inner)
    assert fp.strict(Widget.method) != fp.strict(Widget.helper)
    assert fp.strict(Widget.factory) == fp.strict(Widget.factory)  # bound classmethod
    assert fp.strict(decorated_function) != fp.strict(decorated_function.__wrapped__)
    assert fp.strict(Widget) != fp.strict("Widget")


def test_builtins_numpy_and_modules_by_name() -> None:
    named = [len, max, math.sin, np.add, np.subtract, np.sqrt, np.sum, str.upper, str.lower]
    named += [int, np.float64, np.ndarray, types.FunctionType, type(None), math, np, sys]
    fingerprints = [fp.strict(obj) for obj in named]
    assert len(set(fingerprints)) == len(named)


def test_bound_methods_by_owner_and_function() -> None:
    first, second = [1], [2]
    assert fp.strict(first.append) != fp.strict(second.append)
    assert fp.strict(first.append) == fp.strict([1].append)
    assert fp.strict(Holder(1).__eq__) == fp.strict(Holder(1).__eq__)
    assert fp.strict(dict.fromkeys) != fp.strict(dict.copy)


def test_lambda_under_strict_is_refused_naming_it() -> None:
    with pytest.raises(fp.FingerprintError, match=r"<lambda>.*it is a lambda"):
        fp.strict(lambda x: x)


def test_local_function_under_strict_is_refused_naming_it() -> None:
    def local_helper() -> None:
        pass

    with pytest.raises(fp.FingerprintError) as info:
        fp.strict(Holder((1, local_helper)))
    message = str(info.value)
    assert "local_helper" in message
    assert "defined inside a function" in message
    assert "value.value[1]" in message  # where in the value it was found
    assert info.value.path == "value.value[1]"


def test_local_class_instances_under_strict_are_refused_naming_the_class() -> None:
    @dataclasses.dataclass
    class LocalRecord:
        x: int

    with pytest.raises(fp.FingerprintError, match=r"defined inside a function.*LocalRecord"):
        fp.strict([LocalRecord(1)])


def test_redefined_function_is_not_verifiable() -> None:
    original = module_function
    replacement = types.FunctionType(
        module_function.__code__, module_function.__globals__, "module_function"
    )
    replacement.__qualname__ = "module_function"
    assert replacement is not original
    with pytest.raises(fp.FingerprintError, match="different object"):
        fp.strict(replacement)


def test_unimportable_module_is_not_verifiable() -> None:
    def stray() -> None:
        pass

    stray.__module__ = "no_such_module_anywhere"
    stray.__qualname__ = "stray"
    with pytest.raises(fp.FingerprintError, match="cannot be imported"):
        fp.strict(stray)


def test_module_not_in_sys_modules_is_refused_by_strict() -> None:
    fake = types.ModuleType("not_registered_anywhere")
    with pytest.raises(fp.FingerprintError):
        fp.strict(fake)
    assert fp.lenient(fake) == fp.lenient(fake)


class Opaque:
    pass


def test_objects_without_deconstructor_refused_by_strict_with_advice() -> None:
    with pytest.raises(fp.FingerprintError) as info:
        fp.strict({"key": Opaque()})
    message = str(info.value)
    assert "no deconstructor" in message
    assert "Opaque" in message
    assert "register" in message
    assert "[item 0 value]" in message


def test_fingerprint_errors_pickle_with_their_location() -> None:
    with pytest.raises(fp.FingerprintError) as info:
        fp.strict([Opaque()])
    restored = pickle.loads(pickle.dumps(info.value))
    assert isinstance(restored, fp.FingerprintError)
    assert isinstance(restored, TypeError)
    assert str(restored) == str(info.value)
    assert restored.path == "value[0]"


def test_lenient_accepts_lambdas_locals_and_unknown_objects_by_identity() -> None:
    def local() -> None:
        pass

    function = lambda x: x  # noqa: E731
    other = lambda x: x  # noqa: E731
    opaque, other_opaque = Opaque(), Opaque()
    assert fp.lenient(function) == fp.lenient(function)
    assert fp.lenient(function) != fp.lenient(other)
    assert fp.lenient(local) == fp.lenient(local)
    assert fp.lenient(opaque) == fp.lenient(opaque)
    assert fp.lenient(opaque) != fp.lenient(other_opaque)
    assert fp.lenient(Holder(function)) == fp.lenient(Holder(function))
    assert fp.lenient(Holder(function)) != fp.lenient(Holder(other))


def test_lenient_agrees_with_strict_where_strict_succeeds() -> None:
    value = (module_function, Widget, {"a": [1, 2.0]}, np.arange(3), Holder(len))
    assert fp.lenient(value) == fp.strict(value)


def test_lenient_identity_keys_are_never_reused_after_the_object_dies() -> None:
    seen_keys = set()
    seen_ids = set()
    reused_id = False
    for _ in range(200):
        function = lambda: None  # noqa: E731
        key = fp.lenient(function)
        assert key not in seen_keys
        seen_keys.add(key)
        reused_id |= id(function) in seen_ids
        seen_ids.add(id(function))
        del function  # freed at once (no cycle); a full collection here cost 40 s in CI
        gc.collect(0)
    # CPython reuses addresses at once; the point of the test is that keys still differ.
    assert reused_id


def test_lenient_identity_of_unweakrefable_objects() -> None:
    class NoWeakref:
        __slots__ = ()

    first, second = NoWeakref(), NoWeakref()
    assert fp.lenient(first) == fp.lenient(first)
    assert fp.lenient(first) != fp.lenient(second)
