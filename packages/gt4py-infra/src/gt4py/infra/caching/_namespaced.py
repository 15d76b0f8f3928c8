"""What FileCache and BuildDirCache share: a namespace under a root, keys, locks."""

from __future__ import annotations

import dataclasses
import os
import pathlib
from typing import Final

from ._keys import CacheKey
from ._layout import NamespaceLayout, RootResolver, validate_namespace


@dataclasses.dataclass(frozen=True)
class Miss:
    """Why a lookup found nothing usable."""

    corrupt_reason: str | None  # None: there was no entry at all


ABSENT: Final = Miss(None)


class NamespacedCache:
    """A cache living in ``<root>/<namespace>``; see the subclasses."""

    def __init__(self, namespace: str, *, root: str | os.PathLike[str] | None = None) -> None:
        self._namespace = validate_namespace(namespace)
        self._root = RootResolver(root)
        self._last_layout: NamespaceLayout | None = None

    @property
    def namespace(self) -> str:
        return self._namespace

    @property
    def root(self) -> pathlib.Path:
        """The cache root in use now (``config.cache_root()`` unless given explicitly)."""
        return self._root()

    def _layout(self) -> NamespaceLayout:
        root = self._root()
        layout = self._last_layout
        if layout is None or (layout.root is not root and layout.root != root):
            layout = self._last_layout = NamespaceLayout(root, self._namespace)
        return layout

    def _describe(self, key: CacheKey) -> str:
        return f"entry {key.digest[:8]} of cache {self._namespace!r}"

    def __repr__(self) -> str:
        root = self._root.explicit
        where = "" if root is None else f", root={str(root)!r}"
        return f"{type(self).__name__}({self._namespace!r}{where})"


def check_key(key: object) -> CacheKey:
    if not isinstance(key, CacheKey):
        raise TypeError(
            f"cache keys must be gt4py.infra.caching.CacheKey instances, got "
            f"{type(key).__name__}; build one with CacheKey({{'part': value}}) or "
            "CacheKey.from_values(part=value)"
        )
    return key


__all__: list[str] = []
