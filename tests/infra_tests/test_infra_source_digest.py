"""``caching.source_digest``: a generator's identity, remembered across processes under its
files' status (issue 44.8: a warm process no longer reads every generator source before its
first cache hit), and still a new digest whenever a file changes."""

from __future__ import annotations

import os
import pathlib
import sys

import pytest
import xxhash

from gt4py.infra import config
from gt4py.infra.caching import _source_digest


PACKAGE = "gt4py_digest_probe"


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "src" / PACKAGE
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("X = 1\n")
    (root / "sub" / "gen.py").write_text("TEMPLATE = 'a + b'\n")
    (root / "sub" / "prelude.hpp").write_text("#pragma once\n")
    (root / "notes.txt").write_text("not a source\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.delitem(sys.modules, PACKAGE, raising=False)
    with config.overrides(build_cache_dir=tmp_path / "cache"):
        yield root


def digest() -> str:
    return _source_digest.source_digest.__wrapped__(PACKAGE)  # not the per-process memo


def read_everything(root) -> str:
    """The digest as defined: every source file's relative name and content, in order."""
    expected = xxhash.xxh3_128()
    for rel in ("__init__.py", "sub/gen.py", "sub/prelude.hpp"):
        expected.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    return expected.hexdigest()


def memo_files(root) -> list[str]:
    memo = root.parents[1] / "cache" / _source_digest.MEMO_NAMESPACE
    return [name for _, _, names in os.walk(memo) for name in names if not name.endswith(".lock")]


def test_the_digest_is_remembered_and_recalled_without_reading_the_files(package, monkeypatch):
    first = digest()
    assert first == read_everything(package)
    assert memo_files(package)  # kept in the cache

    def no_reading(*args, **kwargs):
        raise AssertionError("a remembered digest reads no source file")

    monkeypatch.setattr(_source_digest, "open", no_reading, raising=False)
    assert digest() == first


def test_an_edit_that_keeps_size_and_modification_time_is_a_new_digest(package):
    before = digest()
    gen = package / "sub" / "gen.py"
    info = gen.stat()
    gen.write_text("TEMPLATE = 'a - b'\n")  # same size
    os.utime(gen, ns=(info.st_atime_ns, info.st_mtime_ns))  # and the same mtime, set back
    assert gen.stat().st_size == info.st_size and gen.stat().st_mtime_ns == info.st_mtime_ns
    after = digest()
    assert after != before
    assert after == read_everything(package)


def test_new_and_removed_files_change_the_digest(package):
    before = digest()
    (package / "sub" / "extra.py").write_text("")
    with_extra = digest()
    assert with_extra != before
    (package / "sub" / "extra.py").unlink()
    assert digest() == before


def test_a_damaged_memo_is_recomputed(package):
    expected = digest()
    memo = package.parents[1] / "cache" / _source_digest.MEMO_NAMESPACE
    damaged = 0
    for directory, _, names in os.walk(memo):
        for name in names:
            if not name.endswith(".lock"):
                path = os.path.join(directory, name)
                data = bytearray(pathlib.Path(path).read_bytes())
                data[-3] ^= 0xFF  # inside the stored digest
                os.chmod(path, 0o600)
                with open(path, "wb") as file:
                    file.write(data)
                damaged += 1
    assert damaged
    assert digest() == expected


def test_an_unwritable_cache_still_gives_the_digest(package, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o700)
    locked.chmod(0o500)
    try:
        with config.overrides(build_cache_dir=locked / "cache"):
            assert digest() == read_everything(package)
    finally:
        locked.chmod(0o700)
