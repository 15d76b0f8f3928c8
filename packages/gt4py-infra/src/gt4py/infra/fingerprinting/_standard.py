"""Built-in deconstructors: Python's standard value types, callables, typing forms and numpy.

``STANDARD_TABLE`` maps a class to a factory that builds the dispatch entry for a concrete
class found through it on the MRO. ``subclass_identity`` says whether an unregistered
subclass (a ``class MyList(list)``) has its own class identity folded in; that is off where
the content already says everything (numpy scalar and dtype classes, paths, metaclasses).
A subclass that adds state of its own needs a registered deconstructor.
"""

from __future__ import annotations

import functools
import pathlib
import types
import typing
from collections.abc import Callable
from typing import Any, Final, NamedTuple

import numpy as np

from . import _encoding as enc, _naming as naming
from ._context import FoldContext
from ._fold import ORDERED, PAIRED, UNORDERED, Entry, Node, chain_pairs


EntryFactory = Callable[[FoldContext, type], Entry]


class StandardEntry(NamedTuple):
    factory: EntryFactory
    subclass_identity: bool


def _leaf(encode: Callable[[Any], bytes]) -> EntryFactory:
    entry: Entry = (False, encode)
    return lambda context, cls: entry


def _constant(token: bytes) -> EntryFactory:
    return _leaf(lambda value: token)


def _sequence(tag: bytes, ordering: int) -> EntryFactory:
    def node(value: Any) -> Node:
        return tag, value, ordering, None

    entry: Entry = (True, node)
    return lambda context, cls: entry


def _mapping_node(value: Any) -> Node:
    # Sorted by the tokens of the keys: equal dicts fingerprint equal whatever the insertion
    # order, as they compare equal. Use a list of pairs where order is meaningful.
    return b"{", chain_pairs(value.items()), PAIRED, None


def _slice_node(value: slice) -> Node:
    return b":", (value.start, value.stop, value.step), ORDERED, ("start", "stop", "step")


def _partial_node(value: functools.partial[Any]) -> Node:
    return b"p", (value.func, value.args, value.keywords), ORDERED, ("func", "args", "keywords")


def _bound_method_node(value: types.MethodType) -> Node:
    return b"m", (value.__self__, value.__func__), ORDERED, ("__self__", "__func__")


def _path_token(value: pathlib.PurePath) -> bytes:
    flavour = b"w" if isinstance(value, pathlib.PureWindowsPath) else b"p"
    return b"P" + flavour + enc.encode_str(str(value))


def _array_factory(context: FoldContext, cls: type) -> Entry:
    def array(value: np.ndarray[Any, Any]) -> bytes | Node:
        if value.dtype.hasobject:
            # Object elements are Python values in their own right: fold them one by one.
            header = b"O" + enc.encode_dtype(value.dtype) + enc.encode_shape(value.shape)
            return header, list(value.flat), ORDERED, None
        return enc.encode_array_content(value)

    return True, array


# --- named things: classes, functions, modules, typing forms ------------------------------

_NAMES: dict[Any, tuple[Any, str]] = {}


def _cached_name(obj: Any, compute: Callable[[Any], str | None]) -> str | None:
    """Verified names are cached per object; failures are not (they raise or are rare)."""
    try:
        cached = _NAMES.get(obj)
    except TypeError:  # unhashable
        return compute(obj)
    if cached is not None and cached[0] is obj:  # `is`: equal-comparing objects don't share
        return cached[1]
    name = compute(obj)
    if name is not None:
        if len(_NAMES) > 65536:
            _NAMES.clear()
        _NAMES[obj] = (obj, name)
    return name


def _class_factory(context: FoldContext, cls: type) -> Entry:
    def class_token(value: type) -> bytes:
        return context.named_token(value, b"t", _cached_name(value, naming.qualified_name_of_class))

    return False, class_token


def _function_factory(context: FoldContext, cls: type) -> Entry:
    def function_token(value: Any) -> bytes:
        return context.named_token(
            value, b"q", _cached_name(value, naming.qualified_name_of_object)
        )

    return False, function_token


def _builtin_function_factory(context: FoldContext, cls: type) -> Entry:
    def builtin_function(value: Any) -> bytes | Node:
        owner = value.__self__
        if owner is None or isinstance(owner, types.ModuleType):
            name = _cached_name(value, naming.qualified_name_of_object)
            return context.named_token(value, b"q", name)
        # A C method bound to an object (``[].append``, ``dict.fromkeys``): owner and name.
        return b"B", (owner, value.__name__), ORDERED, ("__self__", "__name__")

    return True, builtin_function


def _method_descriptor_factory(context: FoldContext, cls: type) -> Entry:
    # ``str.upper`` and friends: the defining class and the attribute name.
    def method_descriptor(value: Any) -> bytes:
        owner: type = value.__objclass__
        attribute: str = value.__name__
        owner_name = _cached_name(owner, naming.qualified_name_of_class)
        reachable = owner_name is not None and getattr(owner, attribute, None) is value
        return context.named_token(value, b"q", f"{owner_name}.{attribute}" if reachable else None)

    return False, method_descriptor


def _ufunc_name(value: np.ufunc) -> str | None:
    name = value.__name__
    return f"numpy:{name}" if getattr(np, name, None) is value else None


def _ufunc_factory(context: FoldContext, cls: type) -> Entry:
    # ufuncs have no __module__/__qualname__; numpy's own are attributes of the numpy module.
    def ufunc_token(value: np.ufunc) -> bytes:
        return context.named_token(value, b"q", _cached_name(value, _ufunc_name))

    return False, ufunc_token


def _module_factory(context: FoldContext, cls: type) -> Entry:
    def module_token(value: types.ModuleType) -> bytes:
        return context.named_token(value, b"M", naming.module_name_of(value))

    return False, module_token


def fallback_entry(context: FoldContext) -> Entry:
    """For classes nothing else covers: callables named like functions, or unknown objects.

    Many callables are instances of their own C classes (numpy's array-function dispatchers,
    Cython functions, JIT dispatchers) but carry ``__module__`` and ``__qualname__`` like a
    function; if the name verifies, the object counts by it. Ordinary instances have no
    ``__qualname__`` of their own, so they stay unknown.
    """

    def named_or_unknown(value: Any) -> bytes:
        if isinstance(getattr(value, "__qualname__", None), str):
            name = _cached_name(value, naming.qualified_name_of_object)
            if name is not None:
                return enc.encode_name(b"q", name)
        return context.unknown_token(value)

    return False, named_or_unknown


_UNION_ORIGINS: Final = (typing.Union, types.UnionType)


def _generic_alias_node(value: Any) -> Node:
    origin = typing.get_origin(value)
    arguments = typing.get_args(value)
    if origin in _UNION_ORIGINS:
        # Unions compare equal in any order (int | str == str | int).
        return b"U", arguments, UNORDERED, None
    return b"G", (origin, *arguments), ORDERED, None


# --- the table ---------------------------------------------------------------------------

STANDARD_TABLE: Final[dict[type, StandardEntry]] = {
    type(None): StandardEntry(_constant(enc.NONE_TOKEN), False),
    bool: StandardEntry(_leaf(lambda v: enc.TRUE_TOKEN if v else enc.FALSE_TOKEN), False),
    int: StandardEntry(_leaf(enc.encode_int), True),
    float: StandardEntry(_leaf(enc.encode_float), True),
    complex: StandardEntry(_leaf(enc.encode_complex), True),
    str: StandardEntry(_leaf(enc.encode_str), True),
    bytes: StandardEntry(_leaf(enc.encode_bytes), True),
    bytearray: StandardEntry(_leaf(enc.encode_bytearray), True),
    range: StandardEntry(_leaf(enc.encode_range), False),
    types.EllipsisType: StandardEntry(_constant(enc.ELLIPSIS_TOKEN), False),
    types.NotImplementedType: StandardEntry(_constant(enc.NOT_IMPLEMENTED_TOKEN), False),
    tuple: StandardEntry(_sequence(b"(", ORDERED), True),
    list: StandardEntry(_sequence(b"[", ORDERED), True),
    set: StandardEntry(_sequence(b"S", UNORDERED), True),
    frozenset: StandardEntry(_sequence(b"Z", UNORDERED), True),
    dict: StandardEntry(lambda context, cls: (True, _mapping_node), True),
    slice: StandardEntry(lambda context, cls: (True, _slice_node), False),
    functools.partial: StandardEntry(lambda context, cls: (True, _partial_node), True),
    pathlib.PurePath: StandardEntry(_leaf(_path_token), False),
    type: StandardEntry(_class_factory, False),
    types.FunctionType: StandardEntry(_function_factory, False),
    types.BuiltinFunctionType: StandardEntry(_builtin_function_factory, False),
    types.MethodType: StandardEntry(lambda context, cls: (True, _bound_method_node), False),
    types.MethodDescriptorType: StandardEntry(_method_descriptor_factory, False),
    types.WrapperDescriptorType: StandardEntry(_method_descriptor_factory, False),
    types.ClassMethodDescriptorType: StandardEntry(_method_descriptor_factory, False),
    types.ModuleType: StandardEntry(_module_factory, False),
    typing.TypeVar: StandardEntry(_function_factory, False),
    type(typing.ClassVar): StandardEntry(_function_factory, False),  # typing._SpecialForm
    types.GenericAlias: StandardEntry(lambda context, cls: (True, _generic_alias_node), False),
    types.UnionType: StandardEntry(lambda context, cls: (True, _generic_alias_node), False),
    np.ufunc: StandardEntry(_ufunc_factory, False),
    np.dtype: StandardEntry(_leaf(enc.encode_dtype), False),
    np.generic: StandardEntry(_leaf(enc.encode_numpy_scalar), False),
    np.ndarray: StandardEntry(_array_factory, True),
}

# typing.List[int], typing.Union[int, str], typing.Literal[...]: a private base class, so
# looked up defensively; get_origin/get_args are the public way to take them apart.
_TYPING_ALIAS_BASE = getattr(typing, "_BaseGenericAlias", None)
if isinstance(_TYPING_ALIAS_BASE, type):
    STANDARD_TABLE[_TYPING_ALIAS_BASE] = StandardEntry(
        lambda context, cls: (True, _generic_alias_node), False
    )
