"""A read-only warm cache (baked into an image, a read-only shared file system) serves hits;
a miss there is a clear error, or builds into the overlay directory (GT4PY_BUILD_CACHE_OVERLAY).

Read-only for real: these tests run as root here, and root ignores permission bits, so the
child process runs in a private mount namespace (``unshare -m``) in which the cache directory
is bind-mounted read-only (EROFS). Where that is not possible, a non-root run uses
``chmod a-w`` instead; otherwise those tests are skipped. The in-process tests make the
write probe fail (monkeypatched) and so run everywhere.
"""

from __future__ import annotations

import errno
import functools
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap

import pytest

from gt4py.infra import caching, config


KEY = caching.CacheKey({"source": "warm"})
OBJECT_KEY = caching.CacheKey({"source": "warm object"})
MISSING = caching.CacheKey({"source": "cold"})


@functools.cache
def _bind_mount_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    directory = tempfile.mkdtemp(prefix="gt4py-ro-probe-")
    try:
        script = (
            f"mount --bind {directory} {directory} && "
            f"mount -o remount,bind,ro {directory} {directory} && ! touch {directory}/x"
        )
        completed = subprocess.run(
            ["unshare", "-m", "sh", "-c", script], capture_output=True, check=False, timeout=30
        )
        return completed.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def run_read_only(
    directory: pathlib.Path, code: str, *args: str, **env: str
) -> subprocess.CompletedProcess:
    """Run ``code`` (with ``args``) in a child process that sees ``directory`` read-only."""
    environment = {**os.environ, **env}
    command = [sys.executable, "-c", textwrap.dedent(code), *args]
    if _bind_mount_works():
        mount = (
            f'mount --bind "{directory}" "{directory}" && '
            f'mount -o remount,bind,ro "{directory}" "{directory}" && exec "$@"'
        )
        command = ["unshare", "-m", "sh", "-c", mount, "sh", *command]
        return subprocess.run(command, env=environment, capture_output=True, text=True)
    if os.geteuid() == 0:
        pytest.skip("needs `unshare -m` + a read-only bind mount, or a non-root user")
    modes = {}
    for path in [directory, *directory.rglob("*")]:
        modes[path] = path.stat().st_mode
        path.chmod(stat.S_IMODE(modes[path]) & ~0o222)
    try:
        return subprocess.run(command, env=environment, capture_output=True, text=True)
    finally:
        for path, mode in modes.items():
            path.chmod(stat.S_IMODE(mode))


@pytest.fixture
def warm_root(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "baked"
    with config.overrides(build_cache_dir=root, build_cache_lifetime="persistent"):
        caching.FileCache("ns").get_or_build(KEY, lambda: b"payload")
        caching.FileCache("ns").get_or_build_object(OBJECT_KEY, lambda: {"a": 1})
        caching.BuildDirCache("ns").get_or_build(
            KEY, lambda path: (path / "module.so").write_bytes(b"so")
        )
    shutil.rmtree(root / "ns" / "_locks")  # an image holds entries, not lock files
    return root


def _tree(root: pathlib.Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
    }


HITS = """\
from gt4py.infra import caching
key = caching.CacheKey({"source": "warm"})
def fail(*args):
    raise AssertionError("built on a hit")
assert caching.FileCache("ns").get_or_build(key, fail) == b"payload"
object_key = caching.CacheKey({"source": "warm object"})
assert caching.FileCache("ns").get_or_build_object(object_key, fail) == {"a": 1}
assert caching.FileCache("ns").get(key) == b"payload"
entry = caching.BuildDirCache("ns").get_or_build(key, fail)
assert (entry / "module.so").read_bytes() == b"so"
print("hits ok")
"""


def test_hits_work_in_a_read_only_cache(warm_root):
    before = _tree(warm_root)
    result = run_read_only(warm_root, HITS, GT4PY_BUILD_CACHE_DIR=str(warm_root))
    assert result.returncode == 0, result.stderr
    assert "hits ok" in result.stdout
    assert _tree(warm_root) == before  # no lock file, no manifest or entry rewritten


MISS = """\
from gt4py.infra import caching
key = caching.CacheKey({"source": "cold"})
try:
    caching.FileCache("ns").get_or_build(key, lambda: b"new")
except caching.CacheError as error:
    print("file:", error)
try:
    caching.BuildDirCache("ns").get_or_build(key, lambda path: None)
except caching.CacheError as error:
    print("dir:", error)
"""


def test_a_miss_in_a_read_only_cache_is_a_clear_error(warm_root):
    result = run_read_only(warm_root, MISS, GT4PY_BUILD_CACHE_DIR=str(warm_root))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["file", "dir"]
    for line in lines:
        assert str(warm_root / "ns") in line
        assert "read-only" in line
        assert "GT4PY_BUILD_CACHE_OVERLAY" in line


OVERLAY = """\
from gt4py.infra import caching
key = caching.CacheKey({"source": "cold"})
warm = caching.CacheKey({"source": "warm"})
assert caching.FileCache("ns").get_or_build(key, lambda: b"new") == b"new"
assert caching.FileCache("ns").get_or_build(key, lambda: b"rebuilt") == b"new"
assert caching.FileCache("ns").get(key) == b"new"
entry = caching.BuildDirCache("ns").get_or_build(key, lambda p: (p / "x").write_text("1"))
assert caching.BuildDirCache("ns").get(key) == entry
print(entry)
print(caching.BuildDirCache("ns").get_or_build(warm, None))
"""


def test_a_miss_builds_into_the_overlay(warm_root, tmp_path):
    overlay = tmp_path / "overlay"
    result = run_read_only(
        warm_root,
        OVERLAY,
        GT4PY_BUILD_CACHE_DIR=str(warm_root),
        GT4PY_BUILD_CACHE_OVERLAY=str(overlay),
    )
    assert result.returncode == 0, result.stderr
    built, warm = map(pathlib.Path, result.stdout.split())
    assert overlay in built.parents  # new entries go to the overlay
    assert warm_root in warm.parents  # the image's entries are still used
    assert (overlay / "ns" / "_files" / MISSING.digest).is_file()
    assert not (warm_root / "ns" / "_files" / MISSING.digest).exists()


def test_the_overlay_is_only_used_when_the_root_is_read_only(cache_dir, tmp_path):
    overlay = tmp_path / "overlay"
    with config.overrides(build_cache_overlay=overlay):
        caching.FileCache("ns").put(MISSING, b"x")
    assert (cache_dir / "ns" / "_files" / MISSING.digest).is_file()
    assert not overlay.exists()


def _read_only_probe(monkeypatch: pytest.MonkeyPatch, read_only: pathlib.Path) -> None:
    real = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        if dir is not None and read_only in (pathlib.Path(dir), *pathlib.Path(dir).parents):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), dir)
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


def test_read_only_detection_by_the_write_probe(warm_root, tmp_path, monkeypatch):
    """In-process variant (runs everywhere): the probe's EROFS routes builds to the overlay."""
    _read_only_probe(monkeypatch, warm_root)
    with config.overrides(build_cache_dir=warm_root, build_cache_lifetime="persistent"):
        assert caching.FileCache("ns").get_or_build(KEY, bytes) == b"payload"
        with pytest.raises(caching.CacheError, match="read-only") as info:
            caching.FileCache("ns").put(MISSING, b"new")
        assert str(warm_root / "ns") in str(info.value)
        with config.overrides(build_cache_overlay=tmp_path / "overlay"):
            caching.FileCache("ns").put(MISSING, b"new")
            assert caching.FileCache("ns").get(MISSING) == b"new"
        assert (tmp_path / "overlay" / "ns" / "_files" / MISSING.digest).is_file()


def test_a_read_only_overlay_is_an_error_naming_both(warm_root, tmp_path, monkeypatch):
    overlay = tmp_path / "overlay"
    _read_only_probe(monkeypatch, warm_root)
    _read_only_probe(monkeypatch, overlay)
    with (
        config.overrides(
            build_cache_dir=warm_root,
            build_cache_lifetime="persistent",
            build_cache_overlay=overlay,
        ),
        pytest.raises(caching.CacheError, match="GT4PY_BUILD_CACHE_OVERLAY") as info,
    ):
        caching.BuildDirCache("ns").get_or_build(MISSING, lambda path: None)
    assert str(warm_root / "ns") in str(info.value)
    assert str(overlay / "ns") in str(info.value)


def test_a_missing_uncreatable_root_with_an_overlay_builds_there(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    overlay = tmp_path / "overlay"
    with config.overrides(
        build_cache_dir=blocker / "cache",
        build_cache_lifetime="persistent",
        build_cache_overlay=overlay,
    ):
        assert config.cache_root() == blocker / "cache"
        with pytest.raises(caching.CacheError, match=str(blocker)):
            # not read-only but impossible (a file in the way): said as such, no overlay
            caching.FileCache("ns").get_or_build(MISSING, lambda: b"x")


NATIVE = """\
import sys
from gt4py.infra import native
code = '#include <nanobind/nanobind.h>\\nNB_MODULE(ro_mod, m) { m.def("tag", []() { return TAG; }); }'
for tag in sys.argv[1:]:
    path = native.build_extension("ro_mod", {"ro_mod.cpp": code.replace("TAG", tag)})
    print(native.load_extension(path).tag(), path)
"""


@pytest.mark.slow
def test_native_modules_in_a_read_only_cache(tmp_path):
    pytest.importorskip("nanobind")
    root = tmp_path / "image-cache"
    environment = {"GT4PY_BUILD_CACHE_DIR": str(root), "GT4PY_BUILD_CACHE_LIFETIME": "persistent"}
    built = subprocess.run(
        [sys.executable, "-c", NATIVE, "1"],
        env={**os.environ, **environment},
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    # A warm hit: read-only, and with no compiler at all.
    warm = run_read_only(root, NATIVE, "1", CXX="/nonexistent", **environment)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.split()[0] == "1"
    assert root in pathlib.Path(warm.stdout.split()[1]).parents
    # A miss is a clear error without an overlay ...
    refused = run_read_only(root, NATIVE, "2", **environment)
    assert refused.returncode != 0
    assert "GT4PY_BUILD_CACHE_OVERLAY" in refused.stderr
    # ... and builds into the overlay (with the toolchain of the read-only cache) with one.
    overlay = tmp_path / "overlay"
    cold = run_read_only(root, NATIVE, "2", GT4PY_BUILD_CACHE_OVERLAY=str(overlay), **environment)
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.split()[0] == "2"
    assert overlay in pathlib.Path(cold.stdout.split()[1]).parents
    assert not (overlay / "native" / "toolchains").exists()
