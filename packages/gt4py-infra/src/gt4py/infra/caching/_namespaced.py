"""What FileCache and BuildDirCache share: a namespace under a root, keys, locks."""

from __future__ import annotations

import dataclasses
import os
import pathlib
from typing import Final

from ._errors import CacheError
from ._keys import CacheKey
from ._labels import current_build_label
from ._layout import NamespaceLayout, RootResolver, validate_namespace
from ._trust import check_root
from ._writability import read_only_error, unwritable_reason


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
        if not layout.root_checked:
            # Once per cache object and root; a missing root again at the next use.
            layout.root_checked = check_root(root)
        return layout

    def _overlay_layout(self) -> NamespaceLayout | None:
        """This namespace in the overlay directory, if one is configured.

        Only caches on the configured root have an overlay; a root given in code is used as
        it is. Looked up after a miss only, so a hit never reads the setting.
        """
        if self._root.explicit is not None:
            return None
        from gt4py.infra import config

        overlay = config.BUILD_CACHE_OVERLAY.get()
        if overlay is None:
            return None
        layout = NamespaceLayout(overlay, self._namespace)
        layout.root_checked = check_root(overlay)
        return layout

    def _writable_layout(self, layout: NamespaceLayout, key: CacheKey) -> NamespaceLayout:
        """Where the entry of ``key`` gets built: ``layout``, or the overlay if that is read-only."""
        if not layout.root_checked:  # missing when opened: whoever made it since, check it
            layout.root_checked = check_root(layout.root)
        reason = unwritable_reason(layout.directory)
        if not layout.root_checked:
            layout.root_checked = check_root(layout.root)
        if reason is None:
            return layout
        overlay = self._overlay_layout()
        if overlay is None:
            raise read_only_error(
                layout.directory, reason, self._describe(key), overlay=self._root.explicit is None
            )
        overlay_reason = unwritable_reason(overlay.directory)
        if overlay_reason is not None:
            raise CacheError(
                f"the gt4py cache directory {layout.directory} is read-only ({reason}) and so "
                f"is its overlay {overlay.directory} ({overlay_reason}); point "
                "GT4PY_BUILD_CACHE_OVERLAY at a writable directory"
            )
        return overlay

    def _describe(self, key: CacheKey) -> str:
        """``entry 1a2b3c4d of cache 'ns'``, with the build label in force when there is one."""
        text = f"entry {key.digest[:8]} of cache {self._namespace!r}"
        label = current_build_label()
        return text if label is None else f"{text} ({label})"

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
