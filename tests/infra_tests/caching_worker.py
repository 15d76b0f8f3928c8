"""Worker processes for the multi-process tests of gt4py.infra.caching (run as a script).

Modes:
  build-once ROOT KIND START_FILE COUNTER_FILE OUT_FILE
      Signal readiness (OUT_FILE.ready), wait until START_FILE exists, then ask the cache
      (KIND: file | dir) for one fixed missing key. The builder appends this pid to
      COUNTER_FILE under its own lock and sleeps, so that every other worker arrives while it
      builds. The bytes received are written to OUT_FILE.
  crash-writer ROOT KIND READY_FILE
      Publish large entries (KIND: file | dir) in an endless loop until killed; READY_FILE
      appears once the first one is published.
  lifetime
      get_or_build one fixed key under the configured cache root (GT4PY_* environment) and
      print "built" or "reused", then the cache root in use.
"""

from __future__ import annotations

import os
import pathlib
import sys
import time

import filelock

from gt4py.infra import caching


CRASH_NAMESPACE = "test/crash"
CRASH_KEYS = 4
CRASH_FILE_SIZE = 16 << 20
CRASH_DIR_FILES = 6
CRASH_DIR_FILE_SIZE = 1 << 20


def crash_payload(index: int, size: int) -> bytes:
    """A payload whose every byte depends on ``index``: any mix-up or truncation shows."""
    stamp = index.to_bytes(8, "little")
    return stamp + bytes([index % 251]) * (size - 8)


def crash_key(slot: int) -> caching.CacheKey:
    return caching.CacheKey({"slot": str(slot)})


def _wait_for(path: pathlib.Path) -> None:
    while not path.exists():
        time.sleep(0.002)


def build_once(root: str, kind: str, start: str, counter: str, out: str) -> None:
    key = caching.CacheKey({"what": "build-once"})
    pathlib.Path(out + ".ready").touch()
    _wait_for(pathlib.Path(start))

    def count_build() -> bytes:
        with filelock.FileLock(counter + ".lock"), open(counter, "a") as file:
            file.write(f"{os.getpid()}\n")
        time.sleep(0.5)  # everyone else arrives while this build runs
        return f"built by process {os.getpid()}".encode()

    if kind == "file":
        result = caching.FileCache("test/once", root=root).get_or_build(key, count_build)
    else:

        def build_dir(path: pathlib.Path) -> None:
            (path / "payload").write_bytes(count_build())

        entry = caching.BuildDirCache("test/once", root=root).get_or_build(key, build_dir)
        result = (entry / "payload").read_bytes()
    pathlib.Path(out).write_bytes(result)


def crash_writer(root: str, kind: str, ready: str) -> None:
    index = 0
    if kind == "file":
        cache = caching.FileCache(CRASH_NAMESPACE, root=root)
        while True:
            cache.put(crash_key(index % CRASH_KEYS), crash_payload(index, CRASH_FILE_SIZE))
            if index == 0:
                pathlib.Path(ready).touch()  # one entry exists: kill me any time now
            index += 1
    dir_cache = caching.BuildDirCache(CRASH_NAMESPACE, root=root)
    while True:
        # Each build writes several files slowly; the key changes every round so that every
        # round builds (a valid entry would be a hit).
        def build(path: pathlib.Path, index: int = index) -> None:
            for number in range(CRASH_DIR_FILES):
                (path / f"part{number}").write_bytes(crash_payload(index, CRASH_DIR_FILE_SIZE))
                time.sleep(0.002)

        dir_cache.get_or_build(
            caching.CacheKey({"slot": str(index % CRASH_KEYS), "round": str(index)}), build
        )
        if index == 0:
            pathlib.Path(ready).touch()
        index += 1


def lifetime() -> None:
    cache = caching.FileCache("test/lifetime")
    built: list[int] = []

    def build() -> bytes:
        built.append(os.getpid())
        return b"lifetime"

    cache.get_or_build(caching.CacheKey({"what": "lifetime"}), build)
    print("built" if built else "reused")
    print(cache.root)


if __name__ == "__main__":
    mode, *arguments = sys.argv[1:]
    {"build-once": build_once, "crash-writer": crash_writer, "lifetime": lifetime}[mode](*arguments)
