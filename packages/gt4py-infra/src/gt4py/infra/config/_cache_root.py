"""The one cache root of gt4py, for both lifetimes."""

from __future__ import annotations

import atexit
import os
import pathlib
import shutil
import tempfile
import threading

from ._registry import REGISTRY
from ._setting import ConfigError


class CacheRootError(ConfigError):
    """The cache root cannot be created or written."""


_session_lock = threading.Lock()
_session_owner: dict[pathlib.Path, int] = {}


def cache_root() -> pathlib.Path:
    """The directory every cache lives under, created if missing.

    Lifetime ``persistent``: ``build_cache_dir``. Lifetime ``session``: a fresh temporary
    directory owned by this process and removed at its exit; compilation workers receive it
    through the config snapshot (setting ``session_cache_dir``) so they share it.
    """
    if REGISTRY.get("build_cache_lifetime") == "persistent":
        return _ensure_writable(REGISTRY.get("build_cache_dir"), "GT4PY_BUILD_CACHE_DIR")
    with _session_lock:
        session_dir: pathlib.Path | None = REGISTRY.get("session_cache_dir")
        if session_dir is None:
            session_dir = pathlib.Path(tempfile.mkdtemp(prefix="gt4py-session-"))
            _session_owner[session_dir] = os.getpid()
            REGISTRY.set("session_cache_dir", session_dir, source="session lifetime")
    return _ensure_writable(session_dir, "GT4PY_SESSION_CACHE_DIR")


def _ensure_writable(path: pathlib.Path, variable: str) -> pathlib.Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".probe-"):
            pass
    except OSError as error:
        raise CacheRootError(
            f"gt4py cannot use {path} as its cache directory ({error.strerror or error}); "
            f"point {variable} at a writable directory"
        ) from error
    return path


@atexit.register
def _remove_session_dirs() -> None:
    for path, owner in _session_owner.items():
        if owner == os.getpid():
            shutil.rmtree(path, ignore_errors=True)
