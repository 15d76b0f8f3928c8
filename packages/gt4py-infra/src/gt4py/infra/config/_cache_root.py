"""The one cache root of gt4py, for both lifetimes."""

from __future__ import annotations

import atexit
import os
import pathlib
import sys
import threading

from ._infra_settings import (
    BUILD_CACHE_DIR,
    BUILD_CACHE_LIFETIME,
    BUILD_CACHE_OVERLAY,
    BUILD_CACHE_SHARED_GROUP,
    SESSION_CACHE_DIR,
)
from ._setting import ConfigError


class CacheRootError(ConfigError):
    """The cache root cannot be created."""


_session_lock = threading.Lock()


def cache_root() -> pathlib.Path:
    """The directory every cache lives under, created if missing.

    Lifetime ``persistent``: ``build_cache_dir``. Lifetime ``session``: a fresh temporary
    directory owned by this process and removed when it ends (see ``_session_dirs``);
    compilation workers receive it through the config snapshot (setting
    ``session_cache_dir``) so they share it.

    An existing root need not be writable: entries are read from a read-only root (a cache
    baked into a container image); new builds then go to the ``build_cache_overlay``
    directory, or fail with an error saying so (see ``gt4py.infra.caching``).
    """
    if BUILD_CACHE_LIFETIME.get() == "persistent":
        return _ensure_exists(BUILD_CACHE_DIR.get(), "GT4PY_BUILD_CACHE_DIR")
    with _session_lock:
        session_dir = SESSION_CACHE_DIR.get()
        if session_dir is None:
            # Imported here: a persistent cache (the default) never needs it, and it brings
            # shutil, tempfile, socket, signal and secrets with it (a warm process's first
            # stencil paid for them).
            from ._session_dirs import create_session_dir

            session_dir = create_session_dir()
            SESSION_CACHE_DIR.set(session_dir, source="session lifetime")
    return _ensure_exists(session_dir, "GT4PY_SESSION_CACHE_DIR")


def _ensure_exists(path: pathlib.Path, variable: str) -> pathlib.Path:
    try:
        if not os.path.lexists(path):
            path.mkdir(parents=True, exist_ok=True)
            if BUILD_CACHE_SHARED_GROUP.get() is None:
                # A cache is executable code: private whatever the umask (ADR 0026); a
                # declared shared cache gets its group modes from the caches.
                os.chmod(path, 0o700)
        else:
            path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        if BUILD_CACHE_OVERLAY.get() is not None and not os.path.lexists(path):
            return path  # nothing to read there; every build goes to the overlay
        raise CacheRootError(
            f"gt4py cannot use {path} as its cache directory ({error.strerror or error}); "
            f"point {variable} at a writable directory"
        ) from error
    return path


def _remove_owned_session_dirs() -> None:
    # A process that never imported ``_session_dirs`` made no session directory.
    session_dirs = sys.modules.get(f"{__package__}._session_dirs")
    if session_dirs is not None:
        session_dirs.remove_owned_session_dirs()


atexit.register(_remove_owned_session_dirs)
