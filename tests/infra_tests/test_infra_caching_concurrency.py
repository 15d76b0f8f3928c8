"""Build-once under concurrency, and crash consistency of publishes."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import pathlib
import random
import signal
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable

import pytest

from gt4py.infra import caching
from gt4py.infra.caching import _file_format, _manifest
from gt4py.infra.caching._cli import main as cache_cli


WORKER = pathlib.Path(__file__).with_name("caching_worker.py")
KEY = caching.CacheKey({"what": "contended"})


# -- threads --------------------------------------------------------------------------------------


def _run_threads(count: int, target: Callable[[], object]) -> list[object]:
    barrier = threading.Barrier(count)
    results: list[object] = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = target()
        except Exception as error:
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


class CountingBuild:
    def __init__(self, fail_first: bool = False) -> None:
        self.calls = 0
        self.fail_first = fail_first
        self._lock = threading.Lock()

    def __call__(self) -> bytes:
        with self._lock:
            self.calls += 1
            number = self.calls
        time.sleep(0.2)  # the others arrive while this build runs
        if self.fail_first and number == 1:
            raise RuntimeError("first build fails")
        return f"build #{number} in {threading.get_ident()}".encode()


def test_threads_build_a_file_entry_once(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    build = CountingBuild()
    results = _run_threads(8, lambda: cache.get_or_build(KEY, build))
    assert build.calls == 1
    assert len(set(results)) == 1
    assert isinstance(results[0], bytes)
    assert results[0].startswith(b"build #1")


def test_threads_build_a_directory_entry_once(tmp_path):
    cache = caching.BuildDirCache("ns", root=tmp_path)
    build = CountingBuild()

    def get() -> bytes:
        entry = cache.get_or_build(KEY, lambda path: (path / "out").write_bytes(build()))
        return (entry / "out").read_bytes()

    results = _run_threads(8, get)
    assert build.calls == 1
    assert len(set(results)) == 1


def test_a_failed_build_lets_a_waiting_thread_build(tmp_path):
    cache = caching.FileCache("ns", root=tmp_path)
    build = CountingBuild(fail_first=True)
    results = _run_threads(6, lambda: cache.get_or_build(KEY, build))
    assert build.calls == 2
    errors = [r for r in results if isinstance(r, RuntimeError)]
    values = [r for r in results if isinstance(r, bytes)]
    assert len(errors) == 1
    assert len(values) == 5
    assert len(set(values)) == 1
    assert values[0].startswith(b"build #2")


# -- processes ------------------------------------------------------------------------------------


def _wait_until(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["file", "dir"])
def test_processes_build_once_and_agree(tmp_path, kind):
    workers = 8
    root = tmp_path / "cache"
    start = tmp_path / "start"
    counter = tmp_path / "builds.txt"
    outs = [tmp_path / f"out{i}" for i in range(workers)]
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                "build-once",
                *map(str, (root, kind, start, counter, out)),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for out in outs
    ]
    try:
        # Release them together, once every interpreter is up and waiting.
        _wait_until(
            lambda: all(pathlib.Path(f"{o}.ready").exists() for o in outs), "workers to start"
        )
        start.touch()
        for process in processes:
            _, stderr = process.communicate(timeout=120)
            assert process.returncode == 0, stderr.decode()
    finally:
        for process in processes:
            process.kill()
    builders = counter.read_text().split()
    assert len(builders) == 1, f"built {len(builders)} times by {builders}"
    results = {out.read_bytes() for out in outs}
    assert results == {f"built by process {builders[0]}".encode()}


def _kill_writer_at_random_times(
    root: pathlib.Path, kind: str, trials: int, rng: random.Random
) -> int:
    """Kill ``trials`` writers (more, up to four times as many, until one kill has hit a
    publish: on a loaded machine the random times can miss them all); how many kills left
    temp items behind (hit a publish).

    Counted after each kill: the next writer's build of the same entry sweeps what a killed
    builder left (``_locking.sweep_stale_staging``)."""
    scratch = root / "test" / "crash" / ("_files" if kind == "file" else "_dirs")
    landed = 0
    trial = 0
    while trial < trials or (not landed and trial < 4 * trials):
        trial += 1
        ready = root.parent / f"ready-{kind}-{trial}"
        process = subprocess.Popen(
            [sys.executable, str(WORKER), "crash-writer", str(root), kind, str(ready)],
            stderr=subprocess.PIPE,
        )
        try:
            _wait_until(ready.exists, "the writer's first publish")
            time.sleep(rng.uniform(0.01, 0.4))
        finally:
            process.send_signal(signal.SIGKILL)
            _, stderr = process.communicate(timeout=60)
        assert process.returncode == -signal.SIGKILL, stderr.decode()
        landed += bool(scratch.is_dir() and _scratch_names(scratch))
    return landed


def _load_worker() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("caching_worker", WORKER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _scratch_names(directory: pathlib.Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".")]


@pytest.mark.slow
def test_killed_file_writer_never_leaves_a_corrupt_entry(tmp_path):
    worker = _load_worker()
    seed = random.randrange(1 << 30)
    root = tmp_path / "cache"
    landed = _kill_writer_at_random_times(root, "file", trials=10, rng=random.Random(seed))

    files = root / "test" / "crash" / "_files"
    entries = [p for p in files.iterdir() if not p.name.startswith(".")]
    assert entries, f"no entry was ever published (seed {seed})"
    for path in entries:
        # Every entry under its final name is complete: it validates and holds exactly what
        # the writer meant for that key, byte for byte.
        _, payload = _file_format.read_payload(path, path.name)
        index = int.from_bytes(payload[:8], "little")
        assert worker.crash_key(index % worker.CRASH_KEYS).digest == path.name
        assert payload == worker.crash_payload(index, worker.CRASH_FILE_SIZE), f"seed {seed}"
    # The kills hit publishes in flight (else this test would prove nothing): their temp
    # files were left behind, hidden from readers.
    assert landed, f"no kill landed during a write (seed {seed})"
    cache = caching.FileCache("test/crash", root=root)
    for slot in range(worker.CRASH_KEYS):
        value = cache.get(worker.crash_key(slot))
        assert value is None or int.from_bytes(value[:8], "little") % worker.CRASH_KEYS == slot
    # `clean` sweeps the leftovers.
    assert cache_cli(["clean", "--root", str(root), "--older-than", "0s"], out=io.StringIO()) == 0
    assert not files.exists() or _scratch_names(files) == []


@pytest.mark.slow
def test_killed_directory_builder_never_leaves_a_corrupt_entry(tmp_path):
    worker = _load_worker()
    seed = random.randrange(1 << 30)
    root = tmp_path / "cache"
    landed = _kill_writer_at_random_times(root, "dir", trials=10, rng=random.Random(seed))

    dirs = root / "test" / "crash" / "_dirs"
    entries = [p for p in dirs.iterdir() if not p.name.startswith(".")]
    assert entries, f"no entry was ever published (seed {seed})"
    for entry in entries:
        document = _manifest.read_manifest(entry, entry.name)
        _manifest.verify_contents(entry, document, checksums=True)
        index = int(document["key_parts"]["round"])
        for number in range(worker.CRASH_DIR_FILES):
            content = (entry / f"part{number}").read_bytes()
            assert content == worker.crash_payload(index, worker.CRASH_DIR_FILE_SIZE)
    assert landed, f"no kill landed during a build (seed {seed})"
    assert cache_cli(["clean", "--root", str(root), "--older-than", "0s"], out=io.StringIO()) == 0
    assert not dirs.exists() or _scratch_names(dirs) == []


_CLEANER = """
import pathlib, sys, time
from gt4py.infra.caching._inventory import clean
root, seconds = pathlib.Path(sys.argv[1]), float(sys.argv[2])
pathlib.Path(sys.argv[3]).touch()
deadline, cleans = time.monotonic() + seconds, 0
while time.monotonic() < deadline:
    clean(root)
    cleans += 1
    time.sleep(0.002)
print(cleans)
"""


@pytest.mark.slow
def test_builders_and_readers_survive_a_concurrent_clean(tmp_path):
    # `python -m gt4py.infra.cache clean` in another process renames entries away and
    # removes emptied directories and lock files while this one builds and reads: it sees
    # whole entries or misses (and rebuilds), never errors or wrong data.
    root = tmp_path / "cache"
    files = caching.FileCache("busy/files", root=root)
    dirs = caching.BuildDirCache("busy/dirs", root=root)
    failures: list[BaseException] = []
    rounds = [0, 0]
    builds: list[bytes] = []

    def built(value: bytes) -> bytes:
        builds.append(value)
        return value

    started = tmp_path / "cleaner-started"
    cleaner = subprocess.Popen(
        [sys.executable, "-c", _CLEANER, str(root), "2.0", str(started)],
        stdout=subprocess.PIPE,
        text=True,
    )
    _wait_until(started.exists, "the cleaner to start")

    def use_caches(worker: int) -> None:
        try:
            while cleaner.poll() is None:
                slot = str((rounds[worker] + worker) % 7)
                key = caching.CacheKey({"slot": slot})
                expected = f"value {slot}".encode()
                assert files.get_or_build(key, lambda e=expected: built(e)) == expected
                assert files.get(key) in (None, expected)
                entry = dirs.get_or_build(
                    key, lambda p, e=expected: (p / "v").write_bytes(built(e))
                )
                # (clean may remove it right after it was returned)
                with contextlib.suppress(FileNotFoundError):
                    assert (entry / "v").read_bytes() == expected
                rounds[worker] += 1
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=use_caches, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    cleans = int(cleaner.communicate(timeout=60)[0])
    assert not failures, failures[0]
    assert cleans > 10
    assert min(rounds) > 10
    assert len(builds) > 2 * 7  # entries really were removed under the builders' feet
