"""``caching.hits_only()``: a miss raises ``WouldBuild`` before building, a hit is served."""

from __future__ import annotations

import pathlib
import threading

import pytest

from gt4py.infra import caching


def _never() -> bytes:
    raise AssertionError("built under hits_only()")


def test_a_file_cache_miss_raises_before_building_and_writes_nothing(tmp_path: pathlib.Path):
    cache = caching.FileCache("test/hits-only", root=tmp_path)
    key = caching.CacheKey({"name": "a"})
    with caching.hits_only(), pytest.raises(caching.WouldBuild, match="test/hits-only"):
        cache.get_or_build(key, _never)
    with caching.hits_only(), pytest.raises(caching.WouldBuild):
        cache.get_or_build_object(key, _never)
    assert cache.get(key) is None
    assert not any(p.is_file() for p in (tmp_path / "test").rglob("*") if "lock" not in p.name)

    assert cache.get_or_build(key, lambda: b"built") == b"built"  # outside: builds
    with caching.hits_only():
        assert cache.get_or_build(key, _never) == b"built"  # a hit is served


def test_a_build_dir_cache_miss_raises_before_building(tmp_path: pathlib.Path):
    cache = caching.BuildDirCache("test/hits-only-dirs", root=tmp_path)
    key = caching.CacheKey({"name": "a"})

    def write(path: pathlib.Path) -> None:
        (path / "f").write_text("x")

    with caching.hits_only(), pytest.raises(caching.WouldBuild) as raised:
        cache.get_or_build(key, lambda path: _never())
    assert raised.value.namespace == "test/hits-only-dirs"
    assert cache.get(key) is None
    entry = cache.get_or_build(key, write)
    with caching.hits_only():
        assert cache.get_or_build(key, lambda path: _never()) == entry


def test_the_mode_ends_with_the_block_and_stays_in_its_thread(tmp_path: pathlib.Path):
    cache = caching.FileCache("test/hits-only-threads", root=tmp_path)
    built: list[bytes] = []
    with caching.hits_only():
        other = threading.Thread(
            target=lambda: built.append(
                cache.get_or_build(caching.CacheKey({"n": "1"}), lambda: b"other thread")
            )
        )
        other.start()
        other.join()
    assert built == [b"other thread"]
    assert cache.get_or_build(caching.CacheKey({"n": "2"}), lambda: b"after") == b"after"
