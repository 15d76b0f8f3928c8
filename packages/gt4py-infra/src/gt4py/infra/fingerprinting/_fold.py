"""The generic bottom-up fold: from a value and a per-type dispatch to one 16-byte digest.

Every value is either a *leaf*, encoded as one self-delimiting token, or a *node*: a header
token plus children, which are folded in turn. A node's digest is ``xxh3_128`` over its
header and the tokens of its children (a child node contributes its digest), so the digest
of a value depends only on its content:

- Shared sub-values (a DAG) are folded once per call and their digest reused, so the cost
  is linear in the number of distinct objects and the result does not depend on sharing.
- Cycles are cut where the fold meets an object that is still open on the current path: it
  is encoded as a back-reference "``n`` levels up", which depends only on the shape of the
  cycle, not on where in the whole value it sits. A node whose subtree refers above itself
  is path-dependent and is not reused elsewhere.
- The walk uses an explicit stack, so depth is bounded by memory, not by Python's
  recursion limit.

Leaves are streamed into their parent's buffer and the buffer is hashed once per node with
a one-shot ``xxh3_128_digest`` (cheaper than feeding a streaming hasher token by token).
Per value, dispatch is one dict lookup on the exact type; MRO resolution is cached.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Final, TypeAlias

import xxhash

from ._encoding import FORMAT_PREFIX, NODE_REF_TAG, encode_backref
from ._errors import FingerprintError


# How the children tokens of a node are combined.
ORDERED: Final = 0  # in sequence: tuples, lists, fields
UNORDERED: Final = 1  # sorted: sets
PAIRED: Final = 2  # (key, value) pairs, sorted: mappings

#: What a handler returns for a node: header, children, ordering, optional child labels
#: (used only to say where an error happened).
Node: TypeAlias = tuple[bytes, Iterable[Any], int, Sequence[str] | None]

#: The dispatch result for a type: ``(may_be_node, handler)``. Handlers of types flagged
#: False always return a leaf token and skip cycle/sharing bookkeeping.
Entry: TypeAlias = tuple[bool, Callable[[Any], "bytes | Node"]]

_NOT_ON_PATH: Final = 1 << 62

_hash = xxhash.xxh3_128_digest


def fold(
    root: Any,
    dispatch: dict[type, Entry],
    resolve: Callable[[type], Entry],
    max_depth: int,
    *,
    annotate_errors: bool = True,
) -> bytes:
    """The 16-byte digest of ``root``.

    ``dispatch`` maps exact types to entries (a cache); ``resolve`` computes and caches the
    entry of a type it does not hold.
    """
    # seen: id -> depth (an int) while the object is open on the path, or its finished token
    # (bytes). keepalive pins every object recorded in seen, because handlers may create
    # temporary children whose id could otherwise be reused by another object in this call.
    seen: dict[int, int | bytes] = {}
    keepalive: list[Any] = []
    # A frame: [id of the object, token buffer, child iterator, ordering, shallowest back-reference
    # target depth in its subtree, child labels]. Frame 0 is a virtual parent of the root;
    # ``depth`` is the index of the top frame.
    stack: list[list[Any]] = [[None, [FORMAT_PREFIX], iter((root,)), ORDERED, _NOT_ON_PATH, None]]
    depth = 0
    try:
        while True:
            frame = stack[depth]
            parts: list[bytes] = frame[1]
            for child in frame[2]:
                child_type = type(child)
                entry = dispatch.get(child_type)
                if entry is None:
                    entry = resolve(child_type)
                may_be_node, handler = entry
                if not may_be_node:
                    parts.append(handler(child))  # type: ignore[arg-type]
                    continue
                key = id(child)
                known = seen.get(key)
                if known is not None:
                    if isinstance(known, int):
                        # A cycle: the child is an ancestor still being folded.
                        parts.append(encode_backref(depth + 1 - known))
                        frame[4] = min(frame[4], known)
                    else:
                        parts.append(known)
                    continue
                result = handler(child)
                if isinstance(result, bytes):
                    parts.append(result)
                    seen[key] = result
                    keepalive.append(child)
                    continue
                header, children, ordering, labels = result
                if depth >= max_depth:
                    raise FingerprintError(
                        f"value nests deeper than {max_depth} levels; a deconstructor that "
                        f"returns ever new values (here for {child_type.__qualname__}) would "
                        "do this"
                    )
                depth += 1
                seen[key] = depth
                keepalive.append(child)
                stack.append([key, [header], iter(children), ordering, _NOT_ON_PATH, labels])
                break
            else:
                # All children done: close the node.
                stack.pop()
                ordering = frame[3]
                if ordering:
                    _sort_children(parts, ordering)
                if not depth:
                    return _hash(b"".join(parts))
                token = NODE_REF_TAG + _hash(b"".join(parts))
                depth -= 1
                parent = stack[depth]
                parent[1].append(token)
                shallowest = frame[4]
                if shallowest > depth:
                    # Self-contained: its digest means the same wherever the object recurs.
                    # (Its back-references target its own subtree, which ancestors ignore.)
                    seen[frame[0]] = token
                else:
                    # Refers to an ancestor: reusable only on this same path; re-fold elsewhere.
                    del seen[frame[0]]
                    parent[4] = min(parent[4], shallowest)
    except FingerprintError as error:
        if annotate_errors and error.path is None and len(stack) > 1:
            error.path = describe_path(stack)
        raise
    except Exception as error:
        if annotate_errors and len(stack) > 1:
            error.add_note(f"while fingerprinting {describe_path(stack)}")
        raise


def _sort_children(parts: list[bytes], ordering: int) -> None:
    if ordering == UNORDERED:
        parts[1:] = sorted(parts[1:])
    else:  # PAIRED
        tokens = iter(parts[1:])
        parts[1:] = sorted(k + v for k, v in zip(tokens, tokens, strict=True))


def describe_path(stack: Sequence[Sequence[Any]]) -> str:
    """Where the fold currently is, as an access path from the root: ``value.body[2].func``."""
    path = "value"
    for frame in stack[1:]:
        index = len(frame[1]) - 1  # children tokens so far; the next one is being folded
        labels: Sequence[str] | None = frame[5]
        if labels is not None and index < len(labels):
            path += f".{labels[index]}"
        elif frame[3] == PAIRED:
            path += f"[item {index // 2} {'key' if index % 2 == 0 else 'value'}]"
        elif frame[3] == UNORDERED:
            path += f"{{element {index}}}"
        else:
            path += f"[{index}]"
    return path


def chain_pairs(items: Iterable[tuple[Any, Any]]) -> Iterator[Any]:
    """``k1, v1, k2, v2, ...``: the children of a PAIRED node."""
    return itertools.chain.from_iterable(items)
