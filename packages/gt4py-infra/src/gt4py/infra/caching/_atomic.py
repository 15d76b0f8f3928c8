"""Atomic publication and removal of files and directories.

A reader must only ever see nothing or a complete entry. Files are written to a hidden temp
sibling, flushed to disk and moved over the destination with ``os.replace``; directories are
built in a hidden temp sibling and moved into place with one ``os.rename``. Removal renames to
a hidden trash name first, so a concurrent reader sees the entry either whole or gone.
What is created here gets the mode of the trust policy (``_trust``), whatever the umask.
"""

from __future__ import annotations

import contextlib
import errno
import os
import pathlib
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Final, TypeVar

from ._errors import CacheError
from ._trust import Policy, current_policy, secure_new_directory, secure_new_file


TEMP_PREFIX: Final = ".tmp-"
TRASH_PREFIX: Final = ".trash-"

_NO_SPACE: Final = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
_NOT_WRITABLE: Final = frozenset(
    {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EEXIST}
)
_DESTINATION_TAKEN: Final = frozenset({errno.EEXIST, errno.ENOTEMPTY})
#: How often to retry an operation that a concurrent `clean` can make fail transiently.
RACE_ATTEMPTS: Final = 20

Buffer = bytes | bytearray | memoryview
_T = TypeVar("_T")


def temp_sibling(path: pathlib.Path) -> pathlib.Path:
    """A fresh hidden name next to ``path`` (same directory, hence same file system)."""
    return path.with_name(f"{TEMP_PREFIX}{path.name}-{os.getpid()}-{os.urandom(4).hex()}")


def is_scratch_name(name: str) -> bool:
    """Whether ``name`` is a temp or trash name: never an entry, safe to ignore when reading."""
    return name.startswith((TEMP_PREFIX, TRASH_PREFIX))


def cache_error_from(
    error: OSError, doing: str, path: pathlib.Path, *, directory: pathlib.Path | None = None
) -> CacheError:
    """A :class:`CacheError` for ``error`` raised while ``doing`` something at ``path``."""
    directory = path.parent if directory is None else directory
    reason = error.strerror or str(error)
    if error.errno in _NO_SPACE:
        message = (
            f"no space left on the device holding {directory} while {doing} ({reason}); "
            "nothing was stored. Free some space, trim the cache with "
            "`python -m gt4py.infra.cache clean --older-than 7d`, or point "
            "GT4PY_BUILD_CACHE_DIR at a larger file system"
        )
    elif error.errno in _NOT_WRITABLE:
        message = (
            f"cannot write to the cache directory {directory} while {doing} ({reason}); make it "
            "a writable directory or point GT4PY_BUILD_CACHE_DIR at one"
        )
    else:
        message = f"failed {doing} at {path}: {reason}"
    return CacheError(message)


@contextlib.contextmanager
def disk_full_is_a_cache_error(directory: pathlib.Path, doing: str) -> Iterator[None]:
    """Turn a full disk (ENOSPC, EDQUOT) met by the code inside into a :class:`CacheError`
    naming the file it wrote, else ``directory``; other errors pass unchanged."""
    try:
        yield
    except OSError as error:
        if error.errno not in _NO_SPACE:
            raise
        path = pathlib.Path(os.fsdecode(error.filename)) if error.filename else directory
        where = directory if error.filename is None else path.parent
        raise cache_error_from(error, doing, path, directory=where) from error


def race_backoff(attempt: int) -> None:
    """Wait a little before retrying what a concurrent `clean` made fail.

    Without a pause, a retry can fall into lock-step with a cleaner that keeps removing the
    same empty directory.
    """
    time.sleep(min(0.05, 0.0005 * 2**attempt))


def make_directory(path: pathlib.Path) -> None:
    """``mkdir -p`` with a :class:`CacheError` that names the directory on failure.

    Every directory created gets the mode (and group) of the trust policy, whatever the
    umask; existing ones are left as they are. A missing session cache directory
    (``gt4py-session-<pid>-*``) is never recreated: its owner removed it when it ended, and a
    copy without the owner's marker would be left behind (ADR 0026). Retries while a
    concurrent ``clean`` removes the (empty) directories being created.
    """
    policy = current_policy()
    for attempt in range(RACE_ATTEMPTS):
        try:
            _make_directories(path, policy)
            return
        except (FileNotFoundError, FileExistsError) as error:
            # FileExistsError is also what we see when the directory vanished between its
            # mkdir and its check; only a non-directory in the way is permanent.
            permanent = os.path.lexists(path) and not path.is_dir()
            if permanent or attempt + 1 == RACE_ATTEMPTS:
                raise cache_error_from(
                    error, "creating a cache directory", path, directory=path
                ) from error
            race_backoff(attempt)
        except OSError as error:  # e.g. a regular file sitting where a parent must be
            raise cache_error_from(
                error, "creating a cache directory", path, directory=path
            ) from error


def _make_directories(path: pathlib.Path, policy: Policy) -> None:
    if _SESSION_NAME.fullmatch(path.name):
        if path.is_dir():
            return
        raise CacheError(
            f"the session cache directory {path} no longer exists: the process that made it "
            "ended and removed it (lifetime 'session'), so this build has nowhere to go; it is "
            "not recreated"
        )
    try:
        os.mkdir(path, 0o700)  # never wider than the final mode, in between
    except FileExistsError:
        if not path.is_dir():
            raise
        return
    except FileNotFoundError:
        if path.parent == path:
            raise
        _make_directories(path.parent, policy)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            if not path.is_dir():
                raise
            return
    secure_new_directory(path, policy)


def create_directory(path: pathlib.Path) -> None:
    """Create the new directory ``path`` (never an existing one: no pre-created directory or
    symlink is followed), with the mode of the trust policy."""
    os.mkdir(path, 0o700)
    secure_new_directory(path, current_policy())


def prepare_lock_file(lock_path: pathlib.Path) -> None:
    """Create the lock file ``lock_path`` with the policy's mode if it is missing.

    filelock would create it following the umask; a shared cache needs it group-writable
    for every member, a private one readable by nobody else.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC
    try:
        fd = create_in_directory(
            lock_path.parent,
            lambda: os.open(lock_path, flags, 0o600),
            doing="creating a build lock",
            path=lock_path,
        )
    except CacheError as error:
        if isinstance(error.__cause__, FileExistsError):
            return
        raise
    try:
        secure_new_file(fd, lock_path, current_policy())
    finally:
        os.close(fd)


def create_in_directory(
    directory: pathlib.Path, create: Callable[[], _T], *, doing: str, path: pathlib.Path
) -> _T:
    """``create()`` something inside ``directory``, creating ``directory`` first.

    Retries while a concurrent ``clean`` removes the emptied directory in between.
    """
    for attempt in range(RACE_ATTEMPTS):
        make_directory(directory)
        try:
            return create()
        except FileNotFoundError as error:
            if attempt + 1 == RACE_ATTEMPTS:
                raise cache_error_from(error, doing, path) from error
            race_backoff(attempt)
        except OSError as error:
            raise cache_error_from(error, doing, path) from error
    raise AssertionError("unreachable")


def atomic_write_bytes(path: str | os.PathLike[str], data: Buffer) -> None:
    """Write ``data`` to ``path`` so that readers see the old file, or all of the new one.

    Missing parent directories are created. On any failure (full disk, permissions) the temp
    file is removed, ``path`` is untouched and a :class:`CacheError` says what happened.
    """
    write_chunks_atomically(pathlib.Path(path), (data,))


def write_chunks_atomically(path: pathlib.Path, chunks: Iterable[Buffer]) -> None:
    """:func:`atomic_write_bytes` for data given in pieces (spares concatenating them)."""
    pieces = tuple(chunks)
    fd, temp = _create_temp_sibling(path)
    try:
        try:
            for piece in pieces:
                _write_all(fd, piece)
            os.fsync(fd)  # the data must be on disk before the name points at it
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(error, OSError):
            raise cache_error_from(error, "writing a cache file", path) from error
        raise
    fsync_directory(path.parent)


def publish_directory(source: pathlib.Path, destination: pathlib.Path) -> bool:
    """Move the finished directory ``source`` to ``destination`` in one step.

    Returns False, leaving ``source`` in place, when ``destination`` already exists (a
    concurrent publisher won); the caller decides what to do with both.
    """
    try:
        os.rename(source, destination)
    except OSError as error:
        # Windows reports a taken destination as EACCES; POSIX as EEXIST or ENOTEMPTY.
        if error.errno in _DESTINATION_TAKEN or (
            error.errno == errno.EACCES and destination.is_dir()
        ):
            return False
        if error.errno == errno.EXDEV:
            raise CacheError(
                f"cannot publish {source} as {destination}: they are on different file systems; "
                "build the directory in a temp sibling of the destination"
            ) from error
        raise cache_error_from(error, "publishing a cache directory", destination) from error
    fsync_directory(destination.parent)
    return True


def atomic_publish_dir(
    src_tmp_dir: str | os.PathLike[str], dest_dir: str | os.PathLike[str]
) -> bool:
    """Publish the finished directory ``src_tmp_dir`` as ``dest_dir`` atomically.

    ``src_tmp_dir`` must be on the same file system as ``dest_dir`` (best: a temp sibling).
    Readers of ``dest_dir`` never see a partial directory. If ``dest_dir`` already exists
    because a concurrent builder won, ours is discarded and theirs kept: returns False;
    returns True when ours was published.
    """
    source, destination = pathlib.Path(src_tmp_dir), pathlib.Path(dest_dir)
    if not source.is_dir():
        raise CacheError(f"cannot publish {source}: it is not a directory")
    if publish_directory(source, destination):
        return True
    remove_tree(source)
    return False


def remove_atomically(path: pathlib.Path) -> bool:
    """Remove the file or directory ``path`` so that nobody sees it half-deleted.

    Renames it to a hidden trash sibling first, then deletes that. Returns False when
    ``path`` was already gone.
    """
    trash = path.with_name(f"{TRASH_PREFIX}{path.name}-{os.urandom(4).hex()}")
    try:
        os.rename(path, trash)
    except FileNotFoundError:
        return False
    remove_scratch(trash)
    return True


def remove_scratch(path: pathlib.Path) -> None:
    """Delete a temp or trash item (file or tree), tolerating its concurrent removal."""
    if path.is_dir() and not path.is_symlink():
        remove_tree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def remove_tree(path: pathlib.Path) -> None:
    import shutil  # not at import: a warm process reads the cache and removes nothing

    shutil.rmtree(path, ignore_errors=True)


def fsync_directory(directory: pathlib.Path) -> None:
    """Make a rename in ``directory`` durable; best effort (not every platform allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY | _O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _create_temp_sibling(path: pathlib.Path) -> tuple[int, pathlib.Path]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_BINARY | _O_CLOEXEC
    temp = temp_sibling(path)
    fd = create_in_directory(
        path.parent, lambda: os.open(temp, flags, 0o600), doing="creating a temp file", path=temp
    )
    try:
        secure_new_file(fd, temp, current_policy())
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return fd, temp


def _write_all(fd: int, data: Buffer) -> None:
    view = memoryview(data).cast("B")
    while view:
        written = os.write(fd, view)
        view = view[written:]


_O_BINARY: Final[int] = getattr(os, "O_BINARY", 0)
_O_CLOEXEC: Final[int] = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY: Final[int] = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW: Final[int] = getattr(os, "O_NOFOLLOW", 0)
# The name config._session_dirs gives session cache directories.
_SESSION_NAME: Final = re.compile(r"gt4py-session-[0-9]+-.+")


__all__ = ["atomic_publish_dir", "atomic_write_bytes"]
