"""FileCache: atomic writes, validating reads, self-healing, clear errors."""

from __future__ import annotations

import errno
import os
import pathlib
import pickle

import pytest

from gt4py.infra import caching, config
from gt4py.infra.caching import _file_format


KEY = caching.CacheKey({"source": "s", "options": "o"})
OTHER_KEY = caching.CacheKey({"source": "t", "options": "o"})


def entry_path(root: pathlib.Path, namespace: str, key: caching.CacheKey) -> pathlib.Path:
    return root.joinpath(*namespace.split("/"), "_files", key.digest)


def leftovers(directory: pathlib.Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


class Builder:
    """A build function that counts its calls."""

    def __init__(self, result: object = b"payload") -> None:
        self.result = result
        self.calls = 0

    def __call__(self) -> object:
        self.calls += 1
        return self.result


def test_put_get_roundtrip(tmp_path):
    cache = caching.FileCache("next/translation", root=tmp_path)
    assert cache.get(KEY) is None
    cache.put(KEY, b"hello")
    assert cache.get(KEY) == b"hello"
    assert cache.get(OTHER_KEY) is None
    cache.put(KEY, bytearray(b"replaced"))
    assert cache.get(KEY) == b"replaced"
    cache.put(OTHER_KEY, b"")
    assert cache.get(OTHER_KEY) == b""
    # Layout: <root>/<namespace>/_files/<digest>, nothing else left next to it.
    path = entry_path(tmp_path, "next/translation", KEY)
    assert path.is_file()
    assert leftovers(path.parent) == []


def test_a_new_cache_object_sees_existing_entries(tmp_path):
    caching.FileCache("ns", root=tmp_path).put(KEY, b"kept")
    assert caching.FileCache("ns", root=tmp_path).get(KEY) == b"kept"
    assert caching.FileCache("other", root=tmp_path).get(KEY) is None


def test_get_or_build_builds_once_then_hits(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    build = Builder(b"built")
    assert cache.get_or_build(KEY, build) == b"built"
    assert cache.get_or_build(KEY, build) == b"built"
    assert caching.FileCache("ns", root=tmp_path).get_or_build(KEY, build) == b"built"
    assert build.calls == 1


def test_get_or_build_object_pickles(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    build = Builder({"program": [1, 2.5, "x"], "none": None})
    first = cache.get_or_build_object(KEY, build)
    second = cache.get_or_build_object(KEY, build)
    assert first == second == {"program": [1, 2.5, "x"], "none": None}
    assert build.calls == 1
    assert caching.FileCache("ns", root=tmp_path).get_or_build_object(KEY, build) == first
    assert build.calls == 1
    none_build = Builder(None)
    assert cache.get_or_build_object(OTHER_KEY, none_build) is None
    assert cache.get_or_build_object(OTHER_KEY, none_build) is None
    assert none_build.calls == 1  # None is a cached value, not a miss


def test_unpicklable_build_result_is_a_type_error_and_stores_nothing(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    with pytest.raises(TypeError, match="cannot be pickled"):
        cache.get_or_build_object(KEY, lambda: lambda: 0)
    assert cache.get(KEY) is None


def test_entry_that_no_longer_unpickles_is_rebuilt(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    # A pickle of a class that does not exist (e.g. moved since the entry was written).
    stale = b"cno_such_module\nThing\n)R."
    with pytest.raises(ModuleNotFoundError):
        pickle.loads(stale)
    path = entry_path(tmp_path, "ns", KEY)
    caching.atomic_write_bytes(
        path, b"".join(_file_format.encode(KEY, _file_format.PayloadKind.PICKLE, stale))
    )
    assert cache.get_or_build_object(KEY, Builder(42)) == 42
    assert cache.get_or_build_object(KEY, Builder(0)) == 42


def test_bytes_and_object_entries_do_not_mix(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    cache.put(KEY, b"raw")
    assert cache.get_or_build_object(KEY, Builder([1])) == [1]  # raw entry is not an object
    assert cache.get(KEY) is None  # and a pickled entry is not raw bytes


def test_build_errors_propagate_and_store_nothing(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)

    def failing() -> bytes:
        raise RuntimeError("compiler exploded")

    with pytest.raises(RuntimeError, match="compiler exploded"):
        cache.get_or_build(KEY, failing)
    assert cache.get(KEY) is None
    assert cache.get_or_build(KEY, Builder(b"ok")) == b"ok"  # the lock was released


def test_build_must_return_bytes(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    with pytest.raises(TypeError, match="needs bytes, got str"):
        cache.get_or_build(KEY, lambda: "text")  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="needs bytes, got int"):
        cache.put(KEY, 3)  # type: ignore[arg-type]
    assert cache.get(KEY) is None


def test_recursive_build_of_the_same_key_is_an_error_not_a_deadlock(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    with pytest.raises(caching.CacheError, match="recursive build"):
        cache.get_or_build(KEY, lambda: cache.get_or_build(KEY, Builder()))  # type: ignore[arg-type,return-value]
    # A build may ask for *other* keys.
    assert cache.get_or_build(KEY, lambda: cache.get_or_build(OTHER_KEY, Builder(b"in"))) == b"in"


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        ("not a key", TypeError),
        ({"source": "s"}, TypeError),
    ],
)
def test_keys_must_be_cache_keys(tmp_path, bad, error):
    cache = caching.FileCache("ns", root=tmp_path)
    with pytest.raises(error, match="CacheKey"):
        cache.get(bad)
    with pytest.raises(error, match="CacheKey"):
        cache.get_or_build(bad, Builder())


@pytest.mark.parametrize("namespace", ["", "/x", "x/", "a//b", "../up", "_files", "a/.b", "a b"])
def test_bad_namespaces_are_rejected(tmp_path, namespace):
    with pytest.raises(ValueError, match="invalid cache namespace"):
        caching.FileCache(namespace, root=tmp_path)


def test_namespace_must_be_a_string(tmp_path):
    with pytest.raises(TypeError, match="namespace must be a string"):
        caching.FileCache(3, root=tmp_path)  # type: ignore[arg-type]


# -- corrupt entries: a miss, rebuilt, never returned or crashed on -------------------------------


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _flip_payload_bit(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 1])


def _flip_parts_length(data: bytes) -> bytes:
    return data[:32] + bytes([data[32] ^ 1]) + data[33:]


CORRUPTIONS = {
    "empty": (lambda data: b"", "truncated header"),
    "truncated header": (lambda data: data[:20], "truncated header"),
    "truncated payload": (_truncate, "truncated"),
    "trailing data": (lambda data: data + b"junk", "trailing data"),
    "garbage": (lambda data: os.urandom(len(data)), "bad magic"),
    "payload bit flip": (_flip_payload_bit, "payload checksum mismatch"),
    "header bit flip": (_flip_parts_length, "header checksum mismatch"),
    "newer format": (lambda data: data[:8] + b"\x63\x00" + data[10:], "format version 99"),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_corrupt_entry_is_a_miss_and_is_rebuilt(tmp_path, corruption):
    damage, reason = CORRUPTIONS[corruption]
    cache = caching.FileCache("ns", root=tmp_path)
    cache.put(KEY, b"original payload " * 100)
    path = entry_path(tmp_path, "ns", KEY)
    path.write_bytes(damage(path.read_bytes()))

    with pytest.raises(_file_format.CorruptEntry, match=reason):
        _file_format.read_payload(path, KEY.digest)
    assert cache.get(KEY) is None
    build = Builder(b"rebuilt")
    assert cache.get_or_build(KEY, build) == b"rebuilt"
    assert build.calls == 1
    assert cache.get(KEY) == b"rebuilt"
    assert leftovers(path.parent) == []


def test_entry_stored_under_the_wrong_name_is_a_miss(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    cache.put(OTHER_KEY, b"other")
    os.replace(entry_path(tmp_path, "ns", OTHER_KEY), entry_path(tmp_path, "ns", KEY))
    assert cache.get(KEY) is None
    assert cache.get_or_build(KEY, Builder(b"mine")) == b"mine"


def test_directory_in_place_of_an_entry_is_a_miss(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    entry_path(tmp_path, "ns", KEY).mkdir(parents=True)
    assert cache.get(KEY) is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files regardless of permissions")
def test_unreadable_entry_is_a_miss(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    cache.put(KEY, b"secret")
    entry_path(tmp_path, "ns", KEY).chmod(0)
    assert cache.get(KEY) is None
    assert cache.get_or_build(KEY, Builder(b"again")) == b"again"


# -- bad environments: clear CacheError, nothing corrupt left -------------------------------------


def test_root_under_a_regular_file_is_a_clear_error(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    root = blocker / "cache"
    cache = caching.FileCache("ns", root=root)
    assert cache.get(KEY) is None  # reading an impossible root is just a miss
    for operation in (lambda: cache.put(KEY, b"x"), lambda: cache.get_or_build(KEY, Builder())):
        with pytest.raises(caching.CacheError) as info:
            operation()
        message = str(info.value)
        assert str(blocker) in message
        assert "GT4PY_BUILD_CACHE_DIR" in message


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_root_is_a_clear_error(tmp_path):
    root = tmp_path / "ro"
    root.mkdir(mode=0o500)
    try:
        with pytest.raises(caching.CacheError, match="GT4PY_BUILD_CACHE_DIR") as info:
            caching.FileCache("ns", root=root).put(KEY, b"x")
        assert str(root) in str(info.value)
    finally:
        root.chmod(0o700)


def test_unwritable_configured_root_is_a_cache_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with (
        config.overrides(build_cache_dir=blocker / "cache", build_cache_lifetime="persistent"),
        pytest.raises(caching.CacheError, match="GT4PY_BUILD_CACHE_DIR"),
    ):
        caching.FileCache("ns").get_or_build(KEY, Builder())


def _fail_with_enospc_after_half(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make os.write fill the disk: the first call writes half its data, then ENOSPC."""
    real_write = os.write
    calls: list[int] = []

    def write(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, memoryview(data)[: max(1, len(data) // 2)])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)
    return calls


def test_disk_full_while_writing_leaves_no_entry_and_no_temp(tmp_path, monkeypatch):
    cache = caching.FileCache("ns", root=tmp_path)
    cache.put(OTHER_KEY, b"unrelated")
    calls = _fail_with_enospc_after_half(monkeypatch)
    with pytest.raises(caching.CacheError, match="no space left") as info:
        cache.get_or_build(KEY, Builder(b"x" * 100_000))
    assert len(calls) >= 2  # it really was interrupted mid-write
    assert str(tmp_path) in str(info.value)
    assert "GT4PY_BUILD_CACHE_DIR" in str(info.value)
    monkeypatch.undo()
    files = entry_path(tmp_path, "ns", KEY).parent
    assert sorted(p.name for p in files.iterdir()) == [OTHER_KEY.digest]  # no entry, no temp
    assert cache.get(KEY) is None
    assert cache.get(OTHER_KEY) == b"unrelated"
    assert cache.get_or_build(KEY, Builder(b"later")) == b"later"  # lock released, works again


def test_disk_full_on_replace_keeps_the_previous_entry(tmp_path, monkeypatch):
    cache = caching.FileCache("ns", root=tmp_path)
    cache.put(KEY, b"previous")

    def no_space(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EDQUOT, "Disk quota exceeded")

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(caching.CacheError, match="no space left"):
        cache.put(KEY, b"new")
    monkeypatch.undo()
    assert cache.get(KEY) == b"previous"
    assert leftovers(entry_path(tmp_path, "ns", KEY).parent) == []


def test_interrupted_write_cleans_its_temp(tmp_path, monkeypatch):
    def interrupted(fd: int, data: bytes) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", interrupted)
    cache = caching.FileCache("ns", root=tmp_path)
    with pytest.raises(KeyboardInterrupt):
        cache.put(KEY, b"x")
    monkeypatch.undo()
    assert leftovers(entry_path(tmp_path, "ns", KEY).parent) == []
    assert cache.get(KEY) is None


# -- the configured root and the two lifetimes ----------------------------------------------------


def test_default_root_follows_the_configuration(tmp_path):
    cache = caching.FileCache("ns")  # created before the configuration changes
    with config.overrides(build_cache_dir=tmp_path / "a", build_cache_lifetime="persistent"):
        cache.put(KEY, b"in a")
        assert cache.root == tmp_path / "a"
        assert entry_path(tmp_path / "a", "ns", KEY).is_file()
    with config.overrides(build_cache_dir=tmp_path / "b", build_cache_lifetime="persistent"):
        assert cache.get(KEY) is None
        assert cache.root == tmp_path / "b"


def test_session_lifetime_uses_a_private_directory(tmp_path):
    with config.overrides(
        build_cache_dir=tmp_path / "persistent",
        build_cache_lifetime="session",
        session_cache_dir=None,
    ):
        cache = caching.FileCache("ns")
        cache.put(KEY, b"session entry")
        assert cache.get(KEY) == b"session entry"
        session_root = cache.root
        assert session_root == config.cache_root()
        assert tmp_path / "persistent" not in [session_root, *session_root.parents]
        assert entry_path(session_root, "ns", KEY).is_file()
    assert not (tmp_path / "persistent" / "ns").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lifetime", "second_run"), [("persistent", "reused"), ("session", "built")]
)
def test_lifetimes_across_processes(tmp_path, lifetime, second_run):
    import subprocess
    import sys

    worker = pathlib.Path(__file__).with_name("caching_worker.py")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("GT4PY_", "GT_CACHE"))},
        "GT4PY_BUILD_CACHE_DIR": str(tmp_path),
        "GT4PY_BUILD_CACHE_LIFETIME": lifetime,
    }
    runs = [
        subprocess.run(
            [sys.executable, str(worker), "lifetime"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0][0] == "built"
    assert runs[1][0] == second_run
    if lifetime == "persistent":
        assert runs[0][1] == runs[1][1] == str(tmp_path)
    else:
        assert runs[0][1] != runs[1][1]
        assert not pathlib.Path(runs[0][1]).exists()  # a session's cache goes with its process
