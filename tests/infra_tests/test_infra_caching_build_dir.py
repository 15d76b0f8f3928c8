"""BuildDirCache and the atomic publish primitives."""

from __future__ import annotations

import errno
import json
import logging
import os
import pathlib

import pytest

from gt4py.infra import caching
from gt4py.infra.caching import _manifest


KEY = caching.CacheKey({"sources": "s", "compiler": "c"})
OTHER_KEY = caching.CacheKey({"sources": "t", "compiler": "c"})


def dirs_of(root: pathlib.Path, namespace: str = "native/modules") -> pathlib.Path:
    return root.joinpath(*namespace.split("/"), "_dirs")


class DirBuilder:
    """Fills a build directory with a small tree, recording where it was asked to build."""

    def __init__(self, content: bytes = b"\x7fELF...") -> None:
        self.content = content
        self.paths: list[pathlib.Path] = []

    def __call__(self, path: pathlib.Path) -> None:
        assert path.is_dir()
        assert list(path.iterdir()) == []  # always an empty directory
        self.paths.append(path)
        (path / "module.so").write_bytes(self.content)
        (path / "include").mkdir()
        (path / "include" / "module.h").write_text("#pragma once\n")
        (path / "empty").mkdir()
        os.symlink("module.so", path / "module.so.1")


def test_get_or_build_publishes_a_complete_directory_once(tmp_path):
    cache = caching.BuildDirCache("native/modules", root=tmp_path)
    assert cache.get(KEY) is None
    build = DirBuilder()
    entry = cache.get_or_build(KEY, build)
    assert entry == dirs_of(tmp_path) / KEY.digest
    assert (entry / "module.so").read_bytes() == b"\x7fELF..."
    assert (entry / "include" / "module.h").read_text() == "#pragma once\n"
    assert (entry / "empty").is_dir()
    assert os.readlink(entry / "module.so.1") == "module.so"
    # The build ran in a hidden temp sibling of the entry, gone now.
    (temp,) = build.paths
    assert temp.parent == entry.parent
    assert temp.name.startswith(".tmp-")
    assert not temp.exists()
    assert sorted(p.name for p in entry.parent.iterdir()) == [KEY.digest]
    # Later calls and other cache objects hit.
    assert cache.get_or_build(KEY, build) == entry
    assert caching.BuildDirCache("native/modules", root=tmp_path).get(KEY) == entry
    assert len(build.paths) == 1


def test_manifest_records_key_parts_and_every_item(tmp_path):
    entry = caching.BuildDirCache("ns", root=tmp_path).get_or_build(KEY, DirBuilder())
    document = json.loads((entry / _manifest.MANIFEST_NAME).read_text())
    assert document["key_digest"] == KEY.digest
    assert document["key_parts"] == dict(KEY.parts)
    listed = {item[0]: item[1] for item in document["items"]}
    assert listed == {
        "empty": "dir",
        "include": "dir",
        "include/module.h": "file",
        "module.so": "file",
        "module.so.1": "link",
    }


def test_build_error_leaves_nothing(tmp_path):
    cache = caching.BuildDirCache("native/modules", root=tmp_path)
    seen: list[pathlib.Path] = []

    def failing(path: pathlib.Path) -> None:
        seen.append(path)
        (path / "half.o").write_bytes(b"...")
        raise RuntimeError("compilation failed")

    with pytest.raises(RuntimeError, match="compilation failed"):
        cache.get_or_build(KEY, failing)
    assert not seen[0].exists()
    assert list(dirs_of(tmp_path).iterdir()) == []
    assert cache.get(KEY) is None
    assert cache.get_or_build(KEY, DirBuilder()).is_dir()  # lock released


def test_build_may_not_write_the_manifest_name(tmp_path):
    cache = caching.BuildDirCache("ns", root=tmp_path)
    with pytest.raises(caching.CacheError, match="reserved"):
        cache.get_or_build(KEY, lambda p: (p / _manifest.MANIFEST_NAME).write_text("{}"))
    assert cache.get(KEY) is None
    assert list(dirs_of(tmp_path, "ns").iterdir()) == []


def test_special_files_are_refused(tmp_path):
    cache = caching.BuildDirCache("ns", root=tmp_path)
    with pytest.raises(caching.CacheError, match="only regular files"):
        cache.get_or_build(KEY, lambda p: os.mkfifo(p / "pipe"))
    assert list(dirs_of(tmp_path, "ns").iterdir()) == []


def _remove_file(entry: pathlib.Path) -> None:
    (entry / "include" / "module.h").unlink()


def _truncate_file(entry: pathlib.Path) -> None:
    (entry / "module.so").write_bytes(b"\x7f")


def _same_size_change(entry: pathlib.Path) -> None:
    (entry / "module.so").write_bytes(b"\x7fELF,,,")


def _drop_manifest(entry: pathlib.Path) -> None:
    (entry / _manifest.MANIFEST_NAME).unlink()


def _garbage_manifest(entry: pathlib.Path) -> None:
    (entry / _manifest.MANIFEST_NAME).write_bytes(os.urandom(64))


def _truncated_manifest(entry: pathlib.Path) -> None:
    path = entry / _manifest.MANIFEST_NAME
    path.write_bytes(path.read_bytes()[:40])


def _retarget_link(entry: pathlib.Path) -> None:
    (entry / "module.so.1").unlink()
    os.symlink("elsewhere.so", entry / "module.so.1")


def _dir_becomes_file(entry: pathlib.Path) -> None:
    (entry / "empty").rmdir()
    (entry / "empty").write_text("")


DAMAGES = {
    "file removed": (_remove_file, "include/module.h is missing"),
    "file truncated": (_truncate_file, "module.so has 1 bytes, expected 7"),
    "same-size change": (_same_size_change, "module.so checksum mismatch"),
    "manifest removed": (_drop_manifest, "manifest missing"),
    "manifest garbage": (_garbage_manifest, "manifest is not valid JSON"),
    "manifest truncated": (_truncated_manifest, "manifest is not valid JSON"),
    "symlink retargeted": (_retarget_link, "module.so.1 is not the recorded symlink"),
    "directory replaced": (_dir_becomes_file, "empty is not a directory"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_damaged_entry_is_a_miss_and_is_rebuilt(tmp_path, caplog, damage):
    apply, reason = DAMAGES[damage]
    cache = caching.BuildDirCache("native/modules", root=tmp_path)
    entry = cache.get_or_build(KEY, DirBuilder())
    apply(entry)
    caplog.set_level(logging.DEBUG, logger="gt4py.infra.caching")
    assert cache.get(KEY) is None
    (record,) = [r for r in caplog.records if r.name == "gt4py.infra.caching"]
    assert f"entry corrupt, rebuilt ({reason}" in record.getMessage()
    build = DirBuilder(b"\x7fELF!!!")
    assert cache.get_or_build(KEY, build) == entry
    assert len(build.paths) == 1
    assert (entry / "module.so").read_bytes() == b"\x7fELF!!!"
    assert cache.get(KEY) == entry
    assert sorted(p.name for p in entry.parent.iterdir()) == [KEY.digest]  # trash is gone


def test_without_checksums_sizes_are_still_checked(tmp_path):
    cache = caching.BuildDirCache("ns", root=tmp_path, verify_checksums=False)
    entry = cache.get_or_build(KEY, DirBuilder())
    _same_size_change(entry)
    assert cache.get(KEY) == entry  # the cheap check cannot see this one
    _truncate_file(entry)
    assert cache.get(KEY) is None


def test_file_in_place_of_an_entry_is_a_miss_and_is_replaced(tmp_path):
    cache = caching.BuildDirCache("ns", root=tmp_path)
    squatter = dirs_of(tmp_path, "ns") / KEY.digest
    squatter.parent.mkdir(parents=True)
    squatter.write_text("not a directory")
    assert cache.get(KEY) is None
    assert cache.get_or_build(KEY, DirBuilder()).is_dir()


def test_unwritable_root_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = caching.BuildDirCache("ns", root=blocker / "cache")
    assert cache.get(KEY) is None
    with pytest.raises(caching.CacheError, match="GT4PY_BUILD_CACHE_DIR") as info:
        cache.get_or_build(KEY, DirBuilder())
    assert str(blocker) in str(info.value)


def test_disk_full_while_writing_the_manifest_leaves_nothing(tmp_path, monkeypatch):
    cache = caching.BuildDirCache("ns", root=tmp_path)
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        real_write(fd, memoryview(data)[:10])
        raise OSError(errno.ENOSPC, "No space left on device")

    def build(path: pathlib.Path) -> None:
        (path / "module.so").write_bytes(b"so")  # written through FileIO, not os.write
        monkeypatch.setattr(os, "write", write)

    with pytest.raises(caching.CacheError, match="no space left"):
        cache.get_or_build(KEY, build)
    monkeypatch.undo()
    assert list(dirs_of(tmp_path, "ns").iterdir()) == []
    assert cache.get(KEY) is None


def test_recursive_build_is_an_error(tmp_path):
    cache = caching.BuildDirCache("ns", root=tmp_path)
    with pytest.raises(caching.CacheError, match="recursive build"):
        cache.get_or_build(KEY, lambda p: (cache.get_or_build(KEY, DirBuilder()), None)[1])
    assert list(dirs_of(tmp_path, "ns").iterdir()) == []


def test_a_valid_entry_published_concurrently_is_kept(tmp_path):
    # If locking failed (e.g. a lock file removed by `clean` while waited on), another builder
    # may publish first. Its valid entry may already be in use: ours is dropped, not theirs.
    cache = caching.BuildDirCache("ns", root=tmp_path)
    entry = dirs_of(tmp_path, "ns") / KEY.digest

    def build_while_someone_else_publishes(path: pathlib.Path) -> None:
        (path / "module.so").write_bytes(b"ours")
        theirs = entry.with_name(".tmp-theirs")
        theirs.mkdir()
        (theirs / "module.so").write_bytes(b"theirs")
        _manifest.write_manifest(theirs, KEY)
        assert caching.atomic_publish_dir(theirs, entry)

    assert cache.get_or_build(KEY, build_while_someone_else_publishes) == entry
    assert (entry / "module.so").read_bytes() == b"theirs"
    assert sorted(p.name for p in entry.parent.iterdir()) == [KEY.digest]


def test_file_and_dir_caches_share_a_namespace_without_clashing(tmp_path):
    files = caching.FileCache("shared", root=tmp_path)
    dirs = caching.BuildDirCache("shared", root=tmp_path)
    files.put(KEY, b"bytes")
    entry = dirs.get_or_build(KEY, DirBuilder())
    assert files.get(KEY) == b"bytes"
    assert dirs.get(KEY) == entry


# -- the public atomic primitives -----------------------------------------------------------------


def test_atomic_write_bytes_replaces_and_creates_parents(tmp_path):
    target = tmp_path / "deep" / "er" / "file.bin"
    caching.atomic_write_bytes(target, b"one")
    assert target.read_bytes() == b"one"
    caching.atomic_write_bytes(str(target), memoryview(b"two"))
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.bin"]


def test_atomic_write_bytes_failure_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "file.bin"
    caching.atomic_write_bytes(target, b"old")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(caching.CacheError, match="Input/output error"):
        caching.atomic_write_bytes(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.bin"]


def test_atomic_publish_dir_moves_a_finished_directory(tmp_path):
    source = tmp_path / ".tmp-build"
    source.mkdir()
    (source / "a.txt").write_text("a")
    destination = tmp_path / "entry"
    assert caching.atomic_publish_dir(source, destination) is True
    assert (destination / "a.txt").read_text() == "a"
    assert not source.exists()


def test_atomic_publish_dir_keeps_the_winner(tmp_path):
    destination = tmp_path / "entry"
    destination.mkdir()
    (destination / "theirs.txt").write_text("theirs")
    source = tmp_path / ".tmp-mine"
    source.mkdir()
    (source / "mine.txt").write_text("mine")
    assert caching.atomic_publish_dir(source, destination) is False
    assert sorted(p.name for p in destination.iterdir()) == ["theirs.txt"]
    assert not source.exists()  # ours was discarded


def test_atomic_publish_dir_rejects_a_missing_source(tmp_path):
    with pytest.raises(caching.CacheError, match="not a directory"):
        caching.atomic_publish_dir(tmp_path / "missing", tmp_path / "entry")
