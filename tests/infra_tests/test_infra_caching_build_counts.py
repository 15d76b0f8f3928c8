"""``caching.builds_in_this_thread()``: entries built (not found) per namespace, per thread."""

from __future__ import annotations

import pathlib
import threading

import pytest

from gt4py.infra import caching


def test_builds_count_per_namespace_and_thread(tmp_path: pathlib.Path) -> None:
    files = caching.FileCache("test/counts", root=tmp_path)
    dirs = caching.BuildDirCache("test/count-dirs", root=tmp_path)
    before = caching.builds_in_this_thread()
    key = caching.CacheKey({"name": "a"})
    files.get_or_build(key, lambda: b"x")
    files.get_or_build(key, lambda: b"x")  # a hit does not count
    files.get_or_build_object(caching.CacheKey({"name": "b"}), lambda: [1])
    dirs.get_or_build(key, lambda path: (path / "f").write_text("x"))
    dirs.get_or_build(key, lambda path: (path / "f").write_text("x"))
    after = caching.builds_in_this_thread()
    assert after["test/counts"] - before.get("test/counts", 0) == 2
    assert after["test/count-dirs"] - before.get("test/count-dirs", 0) == 1

    seen: list[dict[str, int]] = []
    other = threading.Thread(target=lambda: seen.append(caching.builds_in_this_thread()))
    other.start()
    other.join()
    assert "test/counts" not in seen[0]  # another thread's builds are its own


def test_a_failed_build_does_not_count(tmp_path: pathlib.Path) -> None:
    files = caching.FileCache("test/failed-counts", root=tmp_path)

    def fail() -> bytes:
        raise RuntimeError("broken")

    with pytest.raises(RuntimeError, match="broken"):
        files.get_or_build(caching.CacheKey({"name": "a"}), fail)
    assert "test/failed-counts" not in caching.builds_in_this_thread()
