"""Cache keys: named parts whose combination identifies one cache entry."""

from __future__ import annotations

import re
import types
from collections.abc import Mapping
from typing import Any, Final

import xxhash


_PART_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
# Versioned so that a future change of the digest scheme can never alias old entries.
_DIGEST_DOMAIN: Final = b"gt4py.infra.caching.CacheKey/1\x00"


class CacheKey:
    """The identity of a cache entry as named parts, e.g. ``{"source": ..., "options": ...}``.

    Parts are kept by name (not folded into one opaque hash up front) so that every entry can
    record them and a miss can say *which* part changed. Values are strings, usually strict
    fingerprints (see :meth:`from_values`). Keys compare equal when their parts are equal; the
    order in which parts are given does not matter.
    """

    __slots__ = ("_digest", "_parts")

    _parts: Mapping[str, str]
    _digest: str

    def __init__(self, parts: Mapping[str, str]) -> None:
        if not isinstance(parts, Mapping):
            raise TypeError(
                f"CacheKey expects a mapping of part names to strings, got {type(parts).__name__}"
            )
        if not parts:
            raise ValueError("a CacheKey needs at least one named part")
        checked: dict[str, str] = {}
        for name in sorted(parts, key=_sort_key):
            value = parts[name]
            if not isinstance(name, str):
                raise TypeError(f"CacheKey part names must be strings, got {name!r}")
            if not _PART_NAME.fullmatch(name):
                raise ValueError(
                    f"invalid CacheKey part name {name!r}: use letters, digits, '_', '.', '-' "
                    "and start with a letter or '_'"
                )
            if not isinstance(value, str):
                raise TypeError(
                    f"CacheKey part {name!r} must be a string (e.g. a fingerprint from "
                    f"gt4py.infra.fingerprinting.strict), got {type(value).__name__}: {value!r:.80}"
                )
            checked[name] = value
        object.__setattr__(self, "_parts", types.MappingProxyType(checked))
        object.__setattr__(self, "_digest", _digest_of(checked))

    @classmethod
    def from_values(cls, **named_values: Any) -> CacheKey:
        """A key whose parts are the strict fingerprints of the given values.

        Strict fingerprints are deterministic across processes and machines, which is what a
        persistent cache needs; values strict fingerprinting refuses (lambdas, local
        functions...) raise its :class:`~gt4py.infra.fingerprinting.FingerprintError`.
        """
        from gt4py.infra import fingerprinting

        return cls({name: fingerprinting.strict(value) for name, value in named_values.items()})

    @property
    def parts(self) -> Mapping[str, str]:
        """The named parts, sorted by name (read-only)."""
        return self._parts

    @property
    def digest(self) -> str:
        """A stable 32-digit hex digest over the sorted (name, value) pairs: the entry's name."""
        return self._digest

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CacheKey):
            return self._digest == other._digest and self._parts == other._parts
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._digest)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CacheKey is immutable")

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in self._parts.items())
        return f"CacheKey({inner})"

    def __reduce__(self) -> tuple[type[CacheKey], tuple[dict[str, str]]]:
        return (CacheKey, (dict(self._parts),))


def _sort_key(name: object) -> str:
    # Sorting must not fail on a non-string name before the loop can report it clearly.
    return name if isinstance(name, str) else repr(name)


def _digest_of(parts: Mapping[str, str]) -> str:
    hasher = xxhash.xxh3_128(_DIGEST_DOMAIN)
    for name, value in parts.items():  # already sorted
        for text in (name, value):
            encoded = text.encode("utf-8", "surrogatepass")
            # Length-prefixing makes ("ab", "c") and ("a", "bc") hash differently.
            hasher.update(len(encoded).to_bytes(8, "little"))
            hasher.update(encoded)
    return hasher.hexdigest()


__all__ = ["CacheKey"]
