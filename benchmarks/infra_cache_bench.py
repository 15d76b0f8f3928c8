"""Hit latency of gt4py.infra.caching.FileCache.get.

Measures the median time of ``FileCache.get`` for an existing (page-cached) entry of 1 KiB and
of 1 MiB: open, validate the header, read, checksum the payload. Also reports
``get_or_build`` on a hit, ``BuildDirCache.get`` for a small directory entry, and ``put``.

Run: ``uv run python benchmarks/infra_cache_bench.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import functools
import os
import pathlib
import statistics
import tempfile
import time
from collections.abc import Callable

from gt4py.infra import caching, config


def median_ns(operation: Callable[[], object], repeat: int) -> float:
    for _ in range(min(100, repeat)):  # warm up: page cache, imports, memo of the root
        operation()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        operation()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    arguments = parser.parse_args()
    repeat = arguments.repeat

    with tempfile.TemporaryDirectory(prefix="gt4py-cache-bench-") as directory:
        root = pathlib.Path(directory)
        results: list[tuple[str, float]] = []
        with config.overrides(
            build_cache_dir=root / "configured", build_cache_lifetime="persistent"
        ):
            configured = caching.FileCache("bench/files")  # root from config, as DSLs use it
            key = caching.CacheKey({"payload": "1 KiB"})
            configured.put(key, os.urandom(1 << 10))
            get = functools.partial(configured.get, key)
            results.append(("FileCache.get, 1 KiB hit, configured root", median_ns(get, repeat)))

        cache = caching.FileCache("bench/files", root=root)
        for label, size in (("1 KiB", 1 << 10), ("1 MiB", 1 << 20)):
            key = caching.CacheKey({"payload": label, "source": "x" * 32, "options": "y" * 32})
            data = os.urandom(size)
            cache.put(key, data)
            assert cache.get(key) == data
            get = functools.partial(cache.get, key)
            get_or_build = functools.partial(cache.get_or_build, key, bytes)
            put = functools.partial(cache.put, key, data)
            results.append((f"FileCache.get, {label} hit", median_ns(get, repeat)))
            results.append(
                (f"FileCache.get_or_build, {label} hit", median_ns(get_or_build, repeat))
            )
            results.append((f"FileCache.put, {label}", median_ns(put, max(20, repeat // 20))))

        dir_cache = caching.BuildDirCache("bench/dirs", root=root)
        dir_key = caching.CacheKey({"module": "m"})

        def build(path: pathlib.Path) -> None:
            (path / "module.so").write_bytes(os.urandom(256 << 10))
            (path / "module.h").write_text("#pragma once\n")

        dir_cache.get_or_build(dir_key, build)
        results.append(
            (
                "BuildDirCache.get, 2 files / 256 KiB hit",
                median_ns(lambda: dir_cache.get(dir_key), max(20, repeat // 4)),
            )
        )

    print(f"{'operation':<46} {'median':>12}")
    for label, nanoseconds in results:
        print(f"{label:<46} {nanoseconds / 1000:>9.1f} µs")


if __name__ == "__main__":
    main()
