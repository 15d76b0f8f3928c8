"""A cache is executable code: who may have written it (ADR 0026).

New cache directories and files are private to their user whatever the umask (or shared with a
declared group); a cache root, entry or entry file that another user owns or can write is
refused with a ``CacheError`` naming the path, owner, mode and the shared-group setting; a file
dropped into an entry invalidates it; native modules are found by exact name; session
directories are created exclusively and never left behind without their marker.

Tests that need another owner use ``os.chown`` and run as root only; the multi-user test adds
a real second user (``useradd``) whose processes (forked, then ``setuid``) plant a pickle, a
generated ``.py`` and a ``.so``.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import logging
import os
import pathlib
import pickle
import secrets
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import filelock  # noqa: F401  # imported before any fork: a setuid child cannot import from /root
import pytest

from gt4py.infra import caching, config
from gt4py.infra.caching import _file_format, _manifest, _trust
from gt4py.infra.config import _session_dirs
from gt4py.infra.native import _module_lookup


KEY = caching.CacheKey({"source": "trusted"})
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="simulating another owner needs root")
OTHER_UID = 54321  # no such user needed: chown takes any number
PLANTED_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # the import system's first choice


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def modes_under(root: pathlib.Path) -> dict[str, int]:
    return {
        path.relative_to(root).as_posix(): stat.S_IMODE(path.lstat().st_mode)
        for path in [root, *root.rglob("*")]
        if not path.is_symlink()
    }


def fill(root: pathlib.Path) -> None:
    """One entry of each kind, with build products written as permissively as possible."""

    def build(path: pathlib.Path) -> None:
        for name, mode in (("m.abi3.so", 0o777), ("m.py", 0o666)):
            fd = os.open(path / name, os.O_WRONLY | os.O_CREAT, mode)
            os.write(fd, b"product")
            os.close(fd)
        (path / "sub").mkdir(mode=0o777)
        (path / "sub" / "data.txt").write_text("x")

    caching.FileCache("ns", root=root).put(KEY, b"bytes")
    caching.FileCache("ns", root=root).get_or_build_object(
        caching.CacheKey({"object": "1"}), lambda: [1, 2]
    )
    caching.BuildDirCache("ns", root=root).get_or_build(KEY, build)


# -- modes of what the caches create ---------------------------------------------------------------


def test_new_cache_directories_and_files_are_private_whatever_the_umask(tmp_path):
    root = tmp_path / "cache" / "root"  # its missing parent is made private too
    with umask(0):
        fill(root)
    modes = modes_under(tmp_path / "cache")
    entry = next((root / "ns" / "_dirs").iterdir()).relative_to(tmp_path / "cache").as_posix()
    assert modes[f"{entry}/m.abi3.so"] == 0o700  # an executable stays one, for its user only
    files = {path for path in modes if (tmp_path / "cache" / path).is_file()}
    assert any(path.endswith(".lock") for path in files)  # lock files too
    executables = {f"{entry}/m.abi3.so"}
    for path, mode in modes.items():
        expected = 0o600 if path in files - executables else 0o700
        assert mode == expected, f"{path}: {mode:o}"


def test_a_declared_shared_group_gives_group_modes_and_no_world_access(tmp_path):
    group = os.getegid()  # a group this user may give files: its own
    root = tmp_path / "shared"
    with umask(0), config.overrides(build_cache_shared_group=str(group)):
        fill(root)
    for path in [root, *root.rglob("*")]:
        info = path.lstat()
        assert info.st_gid == group
        mode = stat.S_IMODE(info.st_mode)
        if path.is_dir():
            assert mode == 0o2770, f"{path}: {mode:o}"
        else:
            assert mode in (0o660, 0o770), f"{path}: {mode:o}"


def test_an_unknown_shared_group_is_an_error_naming_the_variable(tmp_path):
    with (
        config.overrides(build_cache_shared_group="no-such-group-gt4py"),
        pytest.raises(caching.CacheError, match="GT4PY_BUILD_CACHE_SHARED_GROUP"),
    ):
        caching.FileCache("ns", root=tmp_path / "c").put(KEY, b"x")


# -- what an open refuses -------------------------------------------------------------------------------


def _assert_refusal(error: pytest.ExceptionInfo[caching.CacheError], path: pathlib.Path) -> str:
    message = str(error.value)
    assert str(path) in message
    assert "mode" in message and "owner" in message
    assert "GT4PY_BUILD_CACHE_SHARED_GROUP" in message
    return message


def test_a_cache_root_everybody_can_write_is_refused(tmp_path):
    root = tmp_path / "open"
    fill(root)
    root.chmod(0o777)
    with pytest.raises(caching.CacheError) as error:
        caching.FileCache("ns", root=root).get(KEY)
    message = _assert_refusal(error, root)
    assert "every user can write it" in message and "0777" in message
    with pytest.raises(caching.CacheError):  # refused before any entry is read or built
        caching.BuildDirCache("ns", root=root).get_or_build(KEY, lambda path: None)


def test_the_configured_root_is_checked_too(tmp_path):
    root = tmp_path / "configured"
    root.mkdir()
    root.chmod(0o757)
    with (
        config.overrides(build_cache_dir=root, build_cache_lifetime="persistent"),
        pytest.raises(caching.CacheError, match="every user can write it"),
    ):
        caching.FileCache("ns").get(KEY)


def test_a_sticky_world_writable_root_like_tmp_is_refused(tmp_path):
    root = tmp_path / "sticky"
    root.mkdir()
    root.chmod(0o1777)
    with pytest.raises(caching.CacheError, match="every user can write it"):
        caching.FileCache("ns", root=root).get(KEY)


@needs_root
def test_a_cache_root_of_another_user_is_refused(tmp_path):
    root = tmp_path / "theirs"
    fill(root)
    os.chown(root, OTHER_UID, OTHER_UID)  # e.g. `sudo -E` with another user's HOME
    with pytest.raises(caching.CacheError) as error:
        caching.FileCache("ns", root=root).get(KEY)
    message = _assert_refusal(error, root)
    assert f"uid {OTHER_UID}" in message


@needs_root
def test_a_group_writable_root_is_refused_unless_its_group_is_declared(tmp_path):
    root = tmp_path / "group"
    fill(root)
    os.chown(root, -1, OTHER_UID)
    root.chmod(0o770)
    with pytest.raises(caching.CacheError, match="is not the declared shared group"):
        caching.FileCache("ns", root=root).get(KEY)
    with config.overrides(build_cache_shared_group=str(OTHER_UID)):
        assert caching.FileCache("ns", root=root).get(KEY) == b"bytes"


def _set_access_acl(path: pathlib.Path, entries: list[tuple[int, int, int]]) -> None:
    """Write a POSIX access ACL (tag, permissions, id) as ``setfacl`` would; skip if the file
    system takes none."""
    blob = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *entry) for entry in entries)
    try:
        os.setxattr(path, "system.posix_acl_access", blob)
    except (OSError, AttributeError) as error:
        pytest.skip(f"no POSIX ACLs here: {error}")


NO_ID = 0xFFFFFFFF  # the id field of the owner, owning group, mask and other entries


@pytest.mark.parametrize("mask", [0o7, 0o5])
def test_a_root_whose_acl_lets_another_user_write_is_refused(tmp_path, mask):
    # With an ACL the group bits show its mask: rwx for a root of group `user:user` looks like
    # the user's own group write, while a named entry lets someone else write.
    root = tmp_path / "acl"
    fill(root)
    if not _trust._private_group(os.geteuid(), root.stat().st_gid):
        pytest.skip("the directory's group is not this user's private group")
    _set_access_acl(
        root,
        [
            (0x01, 7, NO_ID),
            (0x02, 7, OTHER_UID),
            (0x04, 0, NO_ID),
            (0x10, mask, NO_ID),
            (0x20, 0, NO_ID),
        ],
    )
    if mask & 0o2:
        with pytest.raises(caching.CacheError, match=f"an ACL entry lets uid {OTHER_UID} write it"):
            caching.FileCache("ns", root=root).get(KEY)
    else:  # the mask takes write away from the named entry
        assert caching.FileCache("ns", root=root).get(KEY) == b"bytes"


@needs_root
def test_a_pre_created_root_or_a_planted_symlink_is_not_followed(tmp_path):
    planted = tmp_path / "predictable"  # e.g. /tmp/gt4py-cache made by someone else first
    planted.mkdir()
    os.chown(planted, OTHER_UID, OTHER_UID)
    with pytest.raises(caching.CacheError, match=f"uid {OTHER_UID}"):
        caching.FileCache("ns", root=planted).put(KEY, b"x")
    assert list(planted.iterdir()) == []  # nothing was written into it

    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(mine)
    os.lchown(link, OTHER_UID, OTHER_UID)  # its owner could re-point it at any time
    with pytest.raises(caching.CacheError, match="a symlink"):
        caching.FileCache("ns", root=link).put(KEY, b"x")
    assert list(mine.iterdir()) == []


def test_a_root_created_after_the_first_open_is_checked_before_writing(tmp_path):
    root = tmp_path / "later"
    cache = caching.FileCache("ns", root=root)
    assert cache.get(KEY) is None  # no root yet: a miss, nothing to check
    root.mkdir()
    root.chmod(0o777)  # someone made it in between
    with pytest.raises(caching.CacheError, match="every user can write it"):
        cache.put(KEY, b"x")


@needs_root
@pytest.mark.parametrize("kind", ["file entry", "entry directory", "file of an entry"])
def test_an_entry_of_another_user_is_refused(tmp_path, kind):
    root = tmp_path / "cache"
    fill(root)
    entry_dir = next((root / "ns" / "_dirs").iterdir())
    target = {
        "file entry": root / "ns" / "_files" / KEY.digest,
        "entry directory": entry_dir,
        "file of an entry": entry_dir / "m.py",
    }[kind]
    os.chown(target, OTHER_UID, OTHER_UID)
    with pytest.raises(caching.CacheError) as error:
        if kind == "file entry":
            caching.FileCache("ns", root=root).get(KEY)
        else:
            caching.BuildDirCache("ns", root=root).get(KEY)
    assert f"uid {OTHER_UID}" in _assert_refusal(error, target)


def test_an_entry_file_others_can_write_is_refused(tmp_path):
    root = tmp_path / "cache"
    fill(root)
    (root / "ns" / "_files" / KEY.digest).chmod(0o666)  # as an older gt4py left it, umask 000
    with pytest.raises(caching.CacheError, match="every user can write it"):
        caching.FileCache("ns", root=root).get(KEY)


# -- an entry holds exactly what its manifest lists ---------------------------------------------------


def _abi3_entry(root: pathlib.Path) -> tuple[caching.BuildDirCache, Callable[[pathlib.Path], None]]:
    def build(path: pathlib.Path) -> None:
        (path / "m.abi3.so").write_bytes(b"the built module")

    return caching.BuildDirCache("native", root=root), build


@pytest.mark.parametrize("where", [f"m{PLANTED_SUFFIX}", "sub/extra.py"])
def test_a_file_dropped_into_an_entry_invalidates_it_and_it_is_rebuilt(tmp_path, caplog, where):
    cache, build = _abi3_entry(tmp_path / "cache")

    def build_with_sub(path: pathlib.Path) -> None:
        build(path)
        (path / "sub").mkdir()

    entry = cache.get_or_build(KEY, build_with_sub)
    (entry / where).write_bytes(b"planted")
    caplog.set_level(logging.DEBUG, logger="gt4py.infra.caching")
    before = caching.builds_in_this_thread().get("native", 0)
    assert cache.get_or_build(KEY, build_with_sub) == entry
    assert caching.builds_in_this_thread()["native"] == before + 1  # self-healing: rebuilt
    assert not (entry / where).exists()
    assert (entry / "m.abi3.so").read_bytes() == b"the built module"
    (line,) = [r.getMessage() for r in caplog.records if "cache miss" in r.getMessage()]
    assert "entry corrupt, rebuilt" in line and f"unexpected file {where!r}" in line


def test_the_native_extension_is_found_by_exact_name_from_the_manifest(tmp_path):
    cache, build = _abi3_entry(tmp_path / "cache")
    entry = cache.get_or_build(KEY, build)
    assert _module_lookup.extension_file(entry, "m") == entry / "m.abi3.so"
    # The import system's order would prefer this file; the manifest does not list it.
    (entry / f"m{PLANTED_SUFFIX}").write_bytes(b"planted")
    assert _module_lookup.extension_file(entry, "m") == entry / "m.abi3.so"
    assert cache.get(KEY) is None  # and the entry no longer validates


def test_an_entry_listing_two_extensions_of_one_name_is_an_error(tmp_path):
    def build(path: pathlib.Path) -> None:
        (path / "m.abi3.so").write_bytes(b"one")
        (path / f"m{PLANTED_SUFFIX}").write_bytes(b"two")

    entry = caching.BuildDirCache("native", root=tmp_path).get_or_build(KEY, build)
    with pytest.raises(caching.CacheError, match="2 extension files"):
        _module_lookup.extension_file(entry, "m")


# -- session directories ----------------------------------------------------------------------------------


def test_a_session_directory_is_new_private_and_marked_from_its_first_moment(tmp_path, monkeypatch):
    tokens = iter(["taken", "staged", "fresh"])
    monkeypatch.setattr(_session_dirs.secrets, "token_hex", lambda n: next(tokens))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    pid = os.getpid()
    (tmp_path / f"{_session_dirs.PREFIX}{pid}-taken").symlink_to(elsewhere)
    (tmp_path / f"{_session_dirs.STAGING_PREFIX}{pid}-staged").symlink_to(elsewhere)
    with umask(0):
        path = _session_dirs.create_session_dir(tmp_path)
    try:
        assert path.name == f"{_session_dirs.PREFIX}{pid}-fresh"
        info = path.lstat()
        assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
        assert stat.S_IMODE((path / _session_dirs.MARKER).stat().st_mode) == 0o600
        assert list(elsewhere.iterdir()) == []  # the planted symlink was not followed
        assert not list(tmp_path.glob(f"{_session_dirs.STAGING_PREFIX}*-fresh"))
    finally:
        shutil.rmtree(path)


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_unmarked_session_directories_of_dead_owners_are_reclaimed(tmp_path):
    dead = _dead_pid()
    old = time.time() - 2 * _session_dirs.UNMARKED_GRACE_S

    def unmarked(name: str, *, age: float = old) -> pathlib.Path:
        path = tmp_path / name
        (path / "native").mkdir(parents=True)  # what a worker recreated, without marker
        os.utime(path, (age, age))
        return path

    leaked = unmarked(f"{_session_dirs.PREFIX}{dead}-leaked")
    staging = unmarked(f"{_session_dirs.STAGING_PREFIX}{dead}-staging")
    fresh = unmarked(f"{_session_dirs.PREFIX}{dead}-fresh", age=time.time())
    alive = unmarked(f"{_session_dirs.PREFIX}{os.getpid()}-alive")
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep").write_text("x")
    (tmp_path / f"{_session_dirs.PREFIX}{dead}-link").symlink_to(target)
    kept = {fresh, alive}
    if IS_ROOT:
        others = unmarked(f"{_session_dirs.PREFIX}{dead}-others")
        os.chown(others, OTHER_UID, OTHER_UID)
        kept.add(others)

    removed = set(_session_dirs.remove_dead_sessions(tmp_path))
    assert removed == {leaked, staging}
    assert all(path.exists() for path in kept)
    assert (target / "keep").exists()


def test_a_session_directory_removed_by_its_owner_is_never_recreated(tmp_path):
    # A compilation worker outliving its parent (SIGHUP): the parent removed the directory.
    gone = tmp_path / f"{_session_dirs.PREFIX}999999-removed"
    with (
        config.overrides(build_cache_lifetime="session", session_cache_dir=gone),
        pytest.raises(caching.CacheError, match="no longer exists"),
    ):
        caching.FileCache("ns").put(KEY, b"x")
    assert not gone.exists()

    session = tmp_path / f"{_session_dirs.PREFIX}{os.getpid()}-live"
    session.mkdir(mode=0o700)

    def build(path: pathlib.Path) -> None:
        shutil.rmtree(session)  # what the SIGHUP handler of the parent does meanwhile
        (tmp_path / "built").write_text("x")

    with (
        config.overrides(build_cache_lifetime="session", session_cache_dir=session),
        pytest.raises(caching.CacheError, match="no longer exists"),
    ):
        caching.BuildDirCache("ns").get_or_build(KEY, build)
    assert (tmp_path / "built").exists() and not session.exists()


def test_sighup_during_a_session_leaves_no_session_directory(tmp_path):
    code = textwrap.dedent(
        """\
        import os, signal
        signal.signal(signal.SIGHUP, signal.SIG_DFL)  # as in a terminal (not under nohup)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP})
        from gt4py.infra import caching, config
        root = config.cache_root()
        print(root, flush=True)
        def build(path):
            (path / "m.py").write_text("x = 1")
            os.kill(os.getpid(), signal.SIGHUP)
        caching.BuildDirCache("ns").get_or_build(caching.CacheKey({"k": "v"}), build)
        """
    )
    env = {**os.environ, "TMPDIR": str(tmp_path), "GT4PY_BUILD_CACHE_LIFETIME": "session"}
    env.pop("GT4PY_SESSION_CACHE_DIR", None)
    completed = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == -signal.SIGHUP, completed.stderr
    assert pathlib.Path(completed.stdout.strip()).name.startswith(_session_dirs.PREFIX)
    assert [p.name for p in tmp_path.iterdir() if "gt4py-session" in p.name] == []


# -- a second, real user --------------------------------------------------------------------------------


class OtherUser:
    def __init__(self, name: str, uid: int, gid: int, group: str, group_gid: int) -> None:
        self.name, self.uid, self.gid = name, uid, gid
        self.group, self.group_gid = group, group_gid

    def run(self, function: Callable[[], Any], *, in_group: bool) -> Any:
        """``function()`` in a forked child running as this user (with the shared group as a
        supplementary group when ``in_group``); its result, or its exception re-raised."""
        read_end, write_end = os.pipe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
            pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            os.close(read_end)
            try:
                os.setgroups([self.group_gid] if in_group else [])
                os.setgid(self.gid)
                os.setuid(self.uid)
                outcome: tuple[str, Any] = ("ok", function())
            except BaseException as error:
                outcome = ("error", f"{type(error).__name__}: {error}\n{traceback.format_exc()}")
            try:
                os.write(write_end, pickle.dumps(outcome))
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        os.waitpid(pid, 0)
        status, value = pickle.loads(data)
        if status == "error":
            raise AssertionError(f"as {self.name}: {value}")
        return value


@pytest.fixture(scope="module")
def other_user() -> Iterator[OtherUser]:
    if not IS_ROOT or shutil.which("useradd") is None or shutil.which("groupadd") is None:
        pytest.skip("needs root and useradd/groupadd to create a second user")
    import grp
    import pwd

    suffix = secrets.token_hex(3)
    name, group = f"gt4pyu{suffix}", f"gt4pyg{suffix}"
    try:
        subprocess.run(["groupadd", group], check=True, capture_output=True)
        subprocess.run(
            ["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "-G", group, name],
            check=True,
            capture_output=True,
        )
    except (OSError, subprocess.CalledProcessError) as error:
        subprocess.run(["groupdel", group], capture_output=True)
        pytest.skip(f"cannot create a second user: {error}")
    try:
        user = pwd.getpwnam(name)
        yield OtherUser(name, user.pw_uid, user.pw_gid, group, grp.getgrnam(group).gr_gid)
    finally:
        subprocess.run(["userdel", name], capture_output=True)
        subprocess.run(["groupdel", group], capture_output=True)


@pytest.fixture
def shared_tmp() -> Iterator[pathlib.Path]:
    """A directory both users can reach (pytest's own tmp_path is private to root)."""
    directory = pathlib.Path(tempfile.mkdtemp(prefix="gt4py-trust-"))
    directory.chmod(0o755)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


PY_KEY = caching.CacheKey({"generated": "module"})
SO_KEY = caching.CacheKey({"native": "module"})
OBJECT_KEY = caching.CacheKey({"object": "plan"})


class _Payload:
    """Unpickling this runs ``pathlib.Path.touch(marker)``: code of the attacker's choosing."""

    def __init__(self, marker: pathlib.Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (pathlib.Path.touch, (self.marker,))


def _plant(root: pathlib.Path, marker: pathlib.Path) -> None:
    """As the attacker: a pickle, a generated module and a .so, each in a well-formed entry."""
    payload = pickle.dumps(_Payload(marker))
    files = root / "ns" / "_files"
    files.mkdir(parents=True, exist_ok=True)
    (files / OBJECT_KEY.digest).write_bytes(
        b"".join(_file_format.encode(OBJECT_KEY, _file_format.PayloadKind.PICKLE, payload))
    )
    module_entry = root / "ns" / "_dirs" / PY_KEY.digest
    module_entry.mkdir(parents=True)
    (module_entry / "m.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    _manifest.write_manifest(module_entry, PY_KEY)  # checksums are no secret
    so_entry = root / "ns" / "_dirs" / SO_KEY.digest
    (so_entry / f"m{PLANTED_SUFFIX}").write_bytes(b"\x7fELF planted")


def _victim_uses(root: pathlib.Path, marker: pathlib.Path) -> list[str]:
    """Every use of the planted entries; the messages of the refusals."""

    def fail(*args: object) -> Any:
        raise AssertionError("the victim rebuilt instead of being told")

    uses: list[Callable[[], Any]] = [
        lambda: caching.FileCache("ns", root=root).get_or_build_object(OBJECT_KEY, fail),
        lambda: caching.import_generated_module(
            caching.BuildDirCache("ns", root=root).get_or_build(PY_KEY, fail) / "m.py", "m"
        ),
        lambda: _module_lookup.extension_file(
            caching.BuildDirCache("ns", root=root).get_or_build(SO_KEY, fail), "m"
        ),
    ]
    messages = []
    for use in uses:
        with pytest.raises(caching.CacheError) as error:
            use()
        messages.append(str(error.value))
    assert not marker.exists(), "planted code ran as the victim"
    return messages


def test_another_user_cannot_plant_code_in_a_cache_they_can_write(other_user, shared_tmp):
    root = shared_tmp / "cache"
    with umask(0):
        caching.BuildDirCache("ns", root=root).get_or_build(
            SO_KEY, lambda path: (path / "m.abi3.so").write_bytes(b"built")
        )
    # A cache everybody can write: made so by hand, or left by an older gt4py under umask 000.
    for path in [root, *root.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    marker = shared_tmp / "pwned"
    other_user.run(lambda: _plant(root, marker), in_group=False)

    for message in _victim_uses(root, marker):
        assert str(root) in message and "every user can write it" in message
        assert "GT4PY_BUILD_CACHE_SHARED_GROUP" in message

    root.chmod(0o700)  # the root fixed, the planted entries still there: each is refused
    first, second, third = _victim_uses(root, marker)
    assert f"belongs to {other_user.name}" in first and OBJECT_KEY.digest in first
    assert f"belongs to {other_user.name}" in second and PY_KEY.digest in second
    assert SO_KEY.digest in third and "every user can write it" in third


def test_a_declared_shared_group_cache_works_for_both_users(other_user, shared_tmp):
    root = shared_tmp / "team"

    def fail(*args: object) -> Any:
        raise AssertionError("rebuilt an entry the other user built")

    def peer_builds() -> list[str]:
        files, dirs = caching.FileCache("ns", root=root), caching.BuildDirCache("ns", root=root)
        assert files.get(KEY) == b"from root"  # root's entry, trusted through the group
        assert dirs.get_or_build(KEY, fail).joinpath("m.py").read_text() == "x = 1"
        files.put(PY_KEY, b"from peer")
        entry = dirs.get_or_build(PY_KEY, lambda path: (path / "m.py").write_text("y = 2"))
        return sorted(oct(stat.S_IMODE(p.stat().st_mode)) for p in [entry, *entry.iterdir()])

    with config.overrides(build_cache_shared_group=other_user.group):
        caching.FileCache("ns", root=root).put(KEY, b"from root")
        caching.BuildDirCache("ns", root=root).get_or_build(
            KEY, lambda path: (path / "m.py").write_text("x = 1")
        )
        modes = other_user.run(peer_builds, in_group=True)
        assert caching.FileCache("ns", root=root).get(PY_KEY) == b"from peer"
        entry = caching.BuildDirCache("ns", root=root).get_or_build(PY_KEY, fail)
        assert (entry / "m.py").read_text() == "y = 2"
        assert entry.stat().st_uid == other_user.uid
    assert set(modes) <= {"0o2770", "0o660"}
    # Without the declaration, the group-writable cache is refused.
    with pytest.raises(caching.CacheError, match="is not the declared shared group"):
        caching.FileCache("ns", root=root).get(PY_KEY)


def test_a_sealed_entry_is_not_listed_on_a_hit_and_an_unsealed_one_is(tmp_path, monkeypatch):
    cache, build = _abi3_entry(tmp_path / "cache")
    entry = cache.get_or_build(KEY, build)
    listings: list[pathlib.Path] = []
    unlisted = _manifest._refuse_unlisted
    monkeypatch.setattr(
        _manifest,
        "_refuse_unlisted",
        lambda directory, *args: (listings.append(directory), unlisted(directory, *args)),
    )
    assert cache.get(KEY) == entry
    assert listings == []  # the recorded modification times prove nothing was added
    os.utime(entry)  # touched (say, by a backup tool): listed again, and still valid
    assert cache.get(KEY) == entry
    assert listings == [entry]


def test_a_shared_root_whose_owner_left_the_group_is_refused(other_user, shared_tmp):
    """Issue 44: the declared group's members are trusted, not whoever once was one: a member
    who left still owns (and can rewrite) the root and the entries they made."""
    from gt4py.infra.caching import _trust

    if shutil.which("gpasswd") is None:
        pytest.skip("needs gpasswd to take the user out of the group")
    root = shared_tmp / "team"
    root.mkdir()  # the peer's root, as if they had made it (shared_tmp is root's)
    os.chown(root, other_user.uid, other_user.group_gid)
    root.chmod(0o2770)

    def peer_makes_the_cache() -> None:
        caching.FileCache("ns", root=root).put(PY_KEY, b"from the peer")

    with config.overrides(build_cache_shared_group=other_user.group):
        other_user.run(peer_makes_the_cache, in_group=True)
        assert root.stat().st_uid == other_user.uid
        assert caching.FileCache("ns", root=root).get(PY_KEY) == b"from the peer"
        subprocess.run(["gpasswd", "-d", other_user.name, other_user.group], check=True,
                       capture_output=True)  # fmt: skip
        try:
            vars(_trust).get("_membership", {}).clear()  # else reused for MEMBERSHIP_TTL_S
            with pytest.raises(caching.CacheError) as error:
                caching.FileCache("ns", root=root).get(PY_KEY)
            message = str(error.value)
            assert str(root) in message and other_user.name in message
            assert "not a member of the shared group" in message
        finally:
            subprocess.run(["gpasswd", "-a", other_user.name, other_user.group], check=True,
                           capture_output=True)  # fmt: skip
            vars(_trust).get("_membership", {}).clear()
