"""Who may have written a cache: the modes gt4py gives what it creates, and the checks on open.

A cache entry is code that gt4py runs (a pickle, a generated ``.py``, a ``.so``), so a cache
must only hold what its user (or a group declared to share it) wrote. ADR 0026 states the
threat model. Two halves:

- **Creation.** Every directory and file the caches create gets its mode set explicitly,
  whatever the umask: private (``0700`` / ``0600``, executables ``0700``), or, with the setting
  ``build_cache_shared_group`` (``GT4PY_BUILD_CACHE_SHARED_GROUP``), group-shared
  (``2770`` / ``0660``, the group set on each) with no access for anyone else.
- **Opening.** A cache root (when a cache object first uses it), each entry when it is
  loaded and every file of it must be *trusted*: owned by this user, by root, or (shared
  cache) by the declared group; and writable by nobody else: never by all users, by its group
  only when that is the declared group or this user's own private group (``user:user``, no
  other member). Anything else is a :class:`CacheError` naming the path, its owner and mode,
  and the setting.

The hit path pays two comparisons per ``stat`` result it already has: the policy (which reads
the setting and resolves the group) is consulted only when an owner or a write bit is unusual.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import pathlib
import stat
import struct
import threading
import time
from typing import TYPE_CHECKING, Final

from ._errors import CacheError


if TYPE_CHECKING:
    from gt4py.infra.config import Setting


if os.name == "posix":
    import grp
    import pwd


SHARED_GROUP_VARIABLE: Final = "GT4PY_BUILD_CACHE_SHARED_GROUP"
_OTHERS_WRITE: Final = stat.S_IWGRP | stat.S_IWOTH
_ANY_EXECUTE: Final = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
# Owners and modes mean nothing on Windows: there the checks pass and modes are not set.
_POSIX: Final = os.name == "posix"


@dataclasses.dataclass(frozen=True)
class Policy:
    """The modes of what the caches create, and the group that may share them."""

    dir_mode: int
    file_mode: int
    executable_mode: int
    group: int | None  # the declared shared group's gid; None: private caches
    group_name: str | None


PRIVATE: Final = Policy(0o700, 0o600, 0o700, None, None)

# The effective uid when this module was imported, for the hit path only (``geteuid`` is a
# system call). A process changes it only from root (dropping privileges), so a stale value
# can only admit what root owns, which is trusted anyway; every refusal asks again.
_euid: Final = os.geteuid() if _POSIX else -1

_policy_lock = threading.Lock()
_policy_memo: tuple[str | None, Policy] | None = None


def current_policy() -> Policy:
    """The policy of the ``build_cache_shared_group`` setting now (memoized on its value)."""
    global _policy_memo
    declared = _shared_group_setting().get()
    memo = _policy_memo
    if memo is not None and memo[0] == declared:
        return memo[1]
    policy = PRIVATE if declared is None else _shared_policy(declared)
    with _policy_lock:
        _policy_memo = (declared, policy)
    return policy


@functools.cache
def _shared_group_setting() -> Setting[str | None]:
    # Looked up once: config imports nothing of the caches, but is not imported before them.
    from gt4py.infra.config._infra_settings import BUILD_CACHE_SHARED_GROUP

    return BUILD_CACHE_SHARED_GROUP


def _shared_policy(declared: str) -> Policy:
    text = declared.strip()
    try:
        if text.isdigit():  # a number needs no entry in the group database
            gid = int(text)
            with contextlib.suppress(KeyError):
                return Policy(0o2770, 0o660, 0o770, gid, grp.getgrgid(gid).gr_name)
            return Policy(0o2770, 0o660, 0o770, gid, text)
        return Policy(0o2770, 0o660, 0o770, grp.getgrnam(text).gr_gid, text)
    except (KeyError, OverflowError):
        raise CacheError(
            f"{SHARED_GROUP_VARIABLE}={declared!r} (setting build_cache_shared_group) names no "
            "group on this host; give the name or number of the group that shares the cache"
        ) from None


# -- creation -------------------------------------------------------------------------------------


def secure_new_directory(path: str | os.PathLike[str], policy: Policy) -> None:
    """Give the directory ``path`` that we just created its mode (and group) under ``policy``."""
    if not _POSIX:
        return
    if policy.group is not None:
        _set_group(path, policy)
    os.chmod(path, policy.dir_mode)


def secure_new_file(fd: int, path: str | os.PathLike[str], policy: Policy) -> None:
    """Give the file open as ``fd`` that we just created its mode (and group)."""
    if not _POSIX:
        return
    if policy.group is not None:
        _set_group(fd, policy, path)
    os.fchmod(fd, policy.file_mode)


def secure_tree(directory: pathlib.Path, policy: Policy) -> None:
    """Set the mode of everything a build function left in ``directory`` (its files follow
    the umask of whatever tool wrote them); executables stay executable. Symlinks have no
    mode of their own and are left as they are."""
    if not _POSIX:
        return
    secure_new_directory(directory, policy)
    for current, dirnames, filenames in os.walk(directory):
        for name in dirnames:
            path = os.path.join(current, name)
            if not os.path.islink(path):
                secure_new_directory(path, policy)
        for name in filenames:
            path = os.path.join(current, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                continue
            if policy.group is not None and info.st_gid != policy.group:
                _set_group(path, policy)
            executable = info.st_mode & _ANY_EXECUTE
            os.chmod(path, policy.executable_mode if executable else policy.file_mode)


def _set_group(
    target: int | str | os.PathLike[str], policy: Policy, path: object | None = None
) -> None:
    assert policy.group is not None
    try:
        if isinstance(target, int):
            os.fchown(target, -1, policy.group)
        else:
            os.chown(target, -1, policy.group)
    except PermissionError as error:
        raise CacheError(
            f"cannot give {path if path is not None else target} the group {policy.group_name!r} "
            f"of the shared cache ({SHARED_GROUP_VARIABLE}): {error.strerror}; this user must be "
            "a member of that group (see `id`), or unset the variable for a private cache"
        ) from error


# -- checks ---------------------------------------------------------------------------------------


def check_root(root: pathlib.Path) -> bool:
    """Whether ``root`` exists and may be used; a :class:`CacheError` if it may not.

    Called when a cache object first uses a root (``NamespacedCache._layout``): one ``lstat``
    per opened cache, none per hit. A missing root is checked again at the next use.
    """
    if not _POSIX:
        return True
    try:
        info = os.lstat(root)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if stat.S_ISLNK(info.st_mode):
        # The link itself: whoever owns it can point it elsewhere at any time.
        _check(root, info, "cache directory (a symlink)", writable_ok=True)
        try:
            info = os.stat(root)
        except (FileNotFoundError, NotADirectoryError):
            return False
    if info.st_uid not in (0, os.geteuid()) or info.st_mode & _OTHERS_WRITE:
        _check(root, info, "cache directory")
    return True


def check_entry(path: pathlib.Path, info: os.stat_result, what: str = "cache entry") -> None:
    """Refuse the entry (file or directory) ``path`` with ``lstat``/``fstat`` result ``info``
    unless it is trusted. Symlinks are judged by their owner only (they have no mode)."""
    uid = info.st_uid
    if not _POSIX or (uid in (0, _euid) and not info.st_mode & _OTHERS_WRITE):
        return  # the hit path: two comparisons, no system call
    _check(path, info, what, writable_ok=stat.S_ISLNK(info.st_mode))


def _check(path: pathlib.Path, info: os.stat_result, what: str, writable_ok: bool = False) -> None:
    problem = _problem(info, current_policy(), writable_ok)
    if problem is None and not writable_ok and info.st_mode & stat.S_IWGRP:
        # With a POSIX ACL the group bits are its mask: named users or groups may write
        # although the owning group is this user's private one.
        problem = _acl_problem(path, current_policy())
    if problem is not None:
        raise untrusted_error(path, info, what, problem)


# POSIX ACL xattr (Linux): a version, then (tag, permissions, id) per entry
_ACL_XATTR: Final = "system.posix_acl_access"
_ACL_HEADER: Final = struct.Struct("<I")
_ACL_ENTRY: Final = struct.Struct("<HHI")
_ACL_USER, _ACL_GROUP, _ACL_MASK = 0x02, 0x08, 0x10
_ACL_WRITE: Final = 0x02


def _acl_problem(path: pathlib.Path, policy: Policy) -> str | None:
    """What a POSIX access ACL on ``path`` lets others do, if it lets someone else write."""
    try:
        blob = os.getxattr(path, _ACL_XATTR, follow_symlinks=False)
    except (OSError, AttributeError):  # no ACL, no xattrs here, or not Linux
        return None
    entries = [
        _ACL_ENTRY.unpack_from(blob, offset)
        for offset in range(_ACL_HEADER.size, len(blob) - _ACL_ENTRY.size + 1, _ACL_ENTRY.size)
    ]
    if any(tag == _ACL_MASK and not perm & _ACL_WRITE for tag, perm, _ in entries):
        return None  # the mask takes write away from every named entry
    euid = os.geteuid()
    for tag, perm, ident in entries:
        if not perm & _ACL_WRITE:
            continue
        if tag == _ACL_USER and ident != euid:
            return f"an ACL entry lets {_user(ident)} write it"
        if tag == _ACL_GROUP and ident != policy.group:
            return f"an ACL entry lets the group {_group(ident)} write it"
    return None


def _problem(info: os.stat_result, policy: Policy, writable_ok: bool) -> str | None:
    euid = os.geteuid()
    shared = policy.group is not None and info.st_gid == policy.group
    if info.st_uid not in (euid, 0) and not shared:
        return f"it belongs to {_user(info.st_uid)}, not to {_user(euid)} or root"
    if info.st_uid not in (euid, 0) and not _member(info.st_uid, info.st_gid):
        # its owner left the shared group (or the account is gone), yet can still write what
        # they own: trusted were the group's members, not whoever once was one (issue 44)
        return (
            f"it belongs to {_user(info.st_uid)}, who is not a member of the shared group "
            f"{_group(info.st_gid)} (any more)"
        )
    if writable_ok:
        return None
    if info.st_mode & stat.S_IWOTH:
        return "every user can write it"
    if info.st_mode & stat.S_IWGRP and not shared and not _private_group(euid, info.st_gid):
        return f"its group {_group(info.st_gid)} can write it and is not the declared shared group"
    return None


def untrusted_error(
    path: pathlib.Path, info: os.stat_result, what: str, problem: str
) -> CacheError:
    mode = stat.S_IMODE(info.st_mode)
    described = (
        f"owner {_user(info.st_uid)}, group {_group(info.st_gid)}, mode {mode:04o} "
        f"({stat.filemode(info.st_mode)})"
    )
    remedy = (
        "Use a cache only you can write: remove the others' write access (chmod go-w) or "
        "point GT4PY_BUILD_CACHE_DIR at a directory of your own"
        if what.startswith("cache directory")
        else "Remove the entry (python -m gt4py.infra.cache clean) once you know who wrote it"
    )
    return CacheError(
        f"refusing to use the gt4py {what} {path}: {problem} ({described}). Whoever can "
        f"write it can plant code that gt4py would run as {_user(os.geteuid())}. {remedy}; "
        f"to share a cache with a group on purpose, set {SHARED_GROUP_VARIABLE}=<group> "
        "(setting build_cache_shared_group: its directories then belong to that group, mode "
        "2770, and no one else may write them)"
    )


#: How long (seconds) an answer of the group database is reused: a peer's entries are checked
#: on every hit, and the database may be a network service (LDAP).
MEMBERSHIP_TTL_S: Final = 30.0
_membership: dict[tuple[int, int], tuple[float, bool]] = {}


def _member(uid: int, gid: int) -> bool:
    """Whether the account ``uid`` is in the group ``gid`` (as its primary group or a listed
    member), as the system's group database said at most ``MEMBERSHIP_TTL_S`` ago."""
    now = time.monotonic()
    known = _membership.get((uid, gid))
    if known is not None and now - known[0] < MEMBERSHIP_TTL_S:
        return known[1]
    try:
        user, group = pwd.getpwuid(uid), grp.getgrgid(gid)
    except KeyError:
        member = False
    else:
        member = user.pw_gid == gid or user.pw_name in group.gr_mem
    _membership[(uid, gid)] = (now, member)
    return member


@functools.cache
def _private_group(uid: int, gid: int) -> bool:
    """Whether ``gid`` is the user-private group of ``uid`` (named like the user, the user's
    primary group, no listed members but the user): group write there is the user's own."""
    try:
        user, group = pwd.getpwuid(uid), grp.getgrgid(gid)
    except KeyError:
        return False
    return (
        user.pw_gid == gid and group.gr_name == user.pw_name and set(group.gr_mem) <= {user.pw_name}
    )


def _user(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def _group(gid: int) -> str:
    try:
        return f"{grp.getgrgid(gid).gr_name} (gid {gid})"
    except KeyError:
        return f"gid {gid}"


__all__: list[str] = []
