"""The persistent key of a variant's lowered and optimized IR, from what the user wrote (issue 28).

A warm start should not lower: lowering and the IR fingerprint that keys the passes cost ~30 ms
a program, every process. So the caller's stages (``ir``, ``ir_optimized``) are cached under
a key computed from the *checked definition* instead of from the IR it lowers to:

- per operator or program reachable from the variant (callees through the types the frontend
  deduced, a program's calls): its syntax tree (``ast.dump``: names, literals, structure;
  not positions, which lowering does not read), the types the frontend deduced for its names,
  attributes and calls (the others follow from these), the global constants it recorded (``module.CONST`` chains with their values: a changed
  helper module is a miss, as in ADR 0006/0018), its kind, name, signature, scan attributes;
- the variant key (argument types, static values and domains), the backend's passes settings;
- gt4py.next's source digest (frontend, lowering, passes: the code that derives the IR) and
  the Python version (``ast.dump`` may change between versions).

These are exactly what lowering reads (``lowering`` takes the checked definitions, never the
user's function), so equal keys mean equal IR. Anything the strict fingerprint refuses
(a local class as a constant, say) gives no key: the variant is then lowered as before.
"""

from __future__ import annotations

import ast
import sys
import threading
import weakref
from typing import Any

from gt4py.infra import caching, fingerprinting as fp

from .._domain import Dimension
from .._offsets import FieldOffset
from ..ffront.checked import CheckedOperator, CheckedProgram, TypedBody
from ..ffront.decorator import FieldOperator, Program, ScanOperator
from ..ffront.fbuiltins import BuiltInFunction
from . import _pipeline
from ._variant_keys import VariantKey


NAMESPACE = "next/lowered"


def _body(body: TypedBody) -> tuple[Any, ...] | None:
    """The tree without positions; per name, attribute and call node (by walk position) the type
    the frontend deduced; per node the constant it recorded. The other nodes' types follow from
    these by the frontend's deduction (part of the source digest): names and attributes are
    where globals (callees, dimensions, offsets, dtypes) enter, calls where a collection
    class's members do (a constructor is keyed by its class's name only)."""
    nodes = list(ast.walk(body.tree))
    index = {id(node): n for n, node in enumerate(nodes)}
    types, constants = body.expression_types, body.constants
    if any(id(node) not in index for node in (*types, *constants)):
        return None  # the frontend typed nodes outside the tree: not keyed by it
    return (
        ast.dump(body.tree, annotate_fields=False),
        [
            (n, types.get(node))
            for n, node in enumerate(nodes)
            if isinstance(node, ast.Name | ast.Attribute | ast.Call)
        ],
        sorted((index[id(node)], value) for node, value in constants.items()),
    )


def _operator(operator: FieldOperator[..., Any]) -> tuple[Any, ...]:
    checked: CheckedOperator = operator.checked
    signature = checked.signature
    scan = (
        (operator.axis, operator.forward, operator.init)
        if isinstance(operator, ScanOperator)
        else None
    )
    return (
        type(operator).__name__,
        operator.__name__,
        operator.grid_type,
        signature.definition,
        signature.axis,
        signature.forwards_requested_domain,
        scan,
        _body_or_refuse(checked.body),
    )


def _program(program: Program[...]) -> tuple[Any, ...]:
    checked: CheckedProgram = program.checked
    # a call node inside the body is keyed by its walk position (the body's dump holds it)
    position = {id(node): n for n, node in enumerate(ast.walk(checked.body.tree))}
    calls = [
        (
            call.operator,
            call.out_slices,
            position[id(call.node)]
            if id(call.node) in position
            else ast.dump(call.node, annotate_fields=False),
        )
        for call in checked.calls
    ]
    return (
        program.__name__,
        program.grid_type,
        checked.definition,
        _body_or_refuse(checked.body),
        calls,
    )


#: per checked body, its digest: bodies are immutable and shared by every program calling
#: the operator, so each is dumped and folded once per process (identity-keyed: eq=False)
_body_digests: weakref.WeakKeyDictionary[TypedBody, str] = weakref.WeakKeyDictionary()
_folding = threading.local()  # the bodies being folded on this thread (a cycle is refused)


def _body_or_refuse(body: TypedBody) -> str:
    found = _body_digests.get(body)
    if found is not None:
        return found
    open_bodies: set[int] = _folding.__dict__.setdefault("open", set())
    parts = _body(body)
    if parts is None or id(body) in open_bodies:
        raise fp.FingerprintError("a checked body typed outside its tree, or calling itself")
    open_bodies.add(id(body))
    try:
        digest = _body_digests[body] = _definitions(parts)
    finally:
        open_bodies.discard(id(body))
    return digest


def _dimension(dimension: Dimension) -> tuple[str, Any]:
    return (dimension.value, dimension.kind)


def _offset(offset: FieldOffset) -> tuple[Any, ...]:
    return (offset.value, offset.source, offset.target)


def _builtin(builtin: BuiltInFunction) -> tuple[str]:
    return (builtin.name,)  # its meaning is gt4py.next's source (in the key's digest)


#: The strict fingerprint, extended with the checked definitions of the frontend's objects.
_definitions = fp.strict.extend(
    {
        Program: _program,
        FieldOperator: _operator,  # ScanOperator too (dispatch follows the MRO)
        BuiltInFunction: _builtin,
        Dimension: _dimension,
        FieldOffset: _offset,
        ast.AST: lambda node: (ast.dump(node, annotate_fields=False),),
    }
)


def lowered_key(definition: Any, key: VariantKey, optimize: Any) -> caching.CacheKey | None:
    """The key of the variant ``key`` of ``definition`` (a program or an operator called
    directly) lowered and optimized by ``optimize``; None when it cannot be keyed (a custom
    ``optimize``, or a value strict fingerprints refuse)."""
    if not isinstance(optimize, _pipeline.Passes):
        return None  # a customized step may read anything: lowered every time, as before
    try:
        return caching.CacheKey(
            {
                "definition": _definitions(definition),
                "variant": _definitions((key.arguments, key.static, key.domains, key.domain_dims)),
                "passes": fp.strict(optimize),
                "generator": caching.source_digest("gt4py.next"),
                "python": f"{sys.version_info.major}.{sys.version_info.minor}",
            }
        )
    except fp.FingerprintError:
        return None


__all__ = ["NAMESPACE", "lowered_key"]
