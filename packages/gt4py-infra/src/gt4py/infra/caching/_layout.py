"""Where caches live on disk.

::

    <cache_root>/<namespace parts...>/   e.g. <root>/next/translation/
        _files/<key digest>              FileCache entries (one file each)
        _dirs/<key digest>/              BuildDirCache entries (one directory each)
        _locks/<key digest>.lock         build locks, kept out of the entries
        .tmp-* / .trash-*                (inside _files and _dirs) writes and removals in flight

Namespace components never start with ``_`` or ``.``, so the reserved names above cannot
collide with a nested namespace such as ``next/translation/v2``.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import threading
from typing import Any, Final

from ._atomic import make_directory
from ._errors import CacheError


FILES_DIR: Final = "_files"
DIRS_DIR: Final = "_dirs"
LOCKS_DIR: Final = "_locks"
LOCK_SUFFIX: Final = ".lock"
RESERVED_DIRS: Final = (FILES_DIR, DIRS_DIR, LOCKS_DIR)

_COMPONENT: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_DIGEST: Final = re.compile(r"[0-9a-f]{32}")


def validate_namespace(namespace: object) -> str:
    """``namespace`` if it is a valid name like ``"next/translation"``; a clear error if not."""
    if not isinstance(namespace, str):
        raise TypeError(f"a cache namespace must be a string, got {type(namespace).__name__}")
    components = namespace.split("/")
    if not namespace or not all(_COMPONENT.fullmatch(c) and c != ".." for c in components):
        raise ValueError(
            f"invalid cache namespace {namespace!r}: use '/'-separated names of letters, digits, "
            "'_', '.', '-', each starting with a letter or digit (e.g. 'next/translation')"
        )
    return namespace


def is_entry_name(name: str) -> bool:
    return _DIGEST.fullmatch(name) is not None


class NamespaceLayout:
    """The paths of one namespace under one root (computed once: lookups are a hot path)."""

    __slots__ = (
        "directory",
        "dirs_dir",
        "files_dir",
        "locks_dir",
        "namespace",
        "root",
        "root_checked",
    )

    def __init__(self, root: pathlib.Path, namespace: str) -> None:
        self.root = root
        self.root_checked = False  # set once the root exists and passed the trust check
        self.namespace = namespace
        self.directory = root.joinpath(*namespace.split("/"))
        self.files_dir = self.directory / FILES_DIR
        self.dirs_dir = self.directory / DIRS_DIR
        self.locks_dir = self.directory / LOCKS_DIR

    def file_entry(self, digest: str) -> pathlib.Path:
        return self.files_dir / digest

    def dir_entry(self, digest: str) -> pathlib.Path:
        return self.dirs_dir / digest

    def lock_path(self, digest: str) -> pathlib.Path:
        return self.locks_dir / f"{digest}{LOCK_SUFFIX}"


class RootResolver:
    """The root of a cache: the one given, or the configured ``config.cache_root()``.

    The configured root is looked up on every operation, so a cache object created at import
    time follows later ``config.overrides(...)``. ``cache_root()`` creates and probes the
    directory, which is too slow for every cache hit, so its answer is memoized on the
    settings it depends on.
    """

    def __init__(self, root: str | os.PathLike[str] | None) -> None:
        self._explicit = None if root is None else pathlib.Path(root).expanduser()

    @property
    def explicit(self) -> pathlib.Path | None:
        return self._explicit

    def __call__(self) -> pathlib.Path:
        if self._explicit is not None:
            return self._explicit
        return _configured_root()


_memo_lock = threading.Lock()
_memo: tuple[tuple[Any, ...], pathlib.Path] | None = None


def _configured_root() -> pathlib.Path:
    global _memo
    from gt4py.infra import config

    memo = _memo
    if memo is not None and memo[0] == _root_settings(config):
        return memo[1]
    _prepare_configured_root(config)
    try:
        root = config.cache_root()
    except config.CacheRootError as error:
        raise CacheError(str(error)) from error
    with _memo_lock:
        # cache_root() may itself have set session_cache_dir: key the memo on the settings now.
        _memo = (_root_settings(config), root)
    return root


def _prepare_configured_root(config: Any) -> None:
    """Create a missing persistent root with the trust policy's mode (``cache_root()`` would
    follow the umask), and refuse to recreate a session root that its owner removed."""
    if config.BUILD_CACHE_LIFETIME.get() == "persistent":
        with contextlib.suppress(CacheError):  # cache_root() reports what went wrong
            make_directory(config.BUILD_CACHE_DIR.get())
        return
    session_dir = config.SESSION_CACHE_DIR.get()
    if session_dir is not None and not os.path.isdir(session_dir):
        make_directory(session_dir)  # a CacheError for a removed session directory


def _root_settings(config: Any) -> tuple[Any, ...]:
    lifetime = config.BUILD_CACHE_LIFETIME.get()
    if lifetime == "persistent":
        return (lifetime, config.BUILD_CACHE_DIR.get())
    return (lifetime, config.SESSION_CACHE_DIR.get())


__all__: list[str] = []
