"""Cache-hit latency of gt4py.infra, the paths every warm run takes (medians).

    uv run python benchmarks/infra_cache_hit_bench.py [--repeat N] [--processes N]

In one interpreter, on a filled cache under the configured root (as the DSLs use it):

- ``FileCache.get`` and ``get_or_build_object`` of a 1 KiB entry,
- ``FileCache.get`` through a new cache object each time (an *open*: the cache root's trust
  check, one ``lstat``, ADR 0026), and that check alone,
- ``BuildDirCache.get_or_build`` of a small directory (2 files, 64 KiB),
- ``native.build_extension`` of an already built tiny nanobind module (the whole key:
  sources, options, toolchain identity),

and ``build_extension`` + ``load_extension`` of that module in fresh interpreters (in-process
time of the call, and the whole process). Written to compare hit times before and after a
change to the caches (ADR 0018 records the figures).
"""

from __future__ import annotations

import argparse
import functools
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable

from gt4py.infra import caching, config, native


_MODULE = textwrap.dedent(
    """\
    #include <nanobind/nanobind.h>
    NB_MODULE(hit_bench, m) { m.def("add", [](int a, int b) { return a + b; }); }
    """
)

_CHILD = textwrap.dedent(
    """\
    import sys, time
    t0 = time.perf_counter()
    from gt4py.infra import fingerprinting, native
    t1 = time.perf_counter()
    module = native.load_extension(native.build_extension("hit_bench", {"hit_bench.cpp": sys.argv[1]}))
    t2 = time.perf_counter()
    assert module.add(1, 2) == 3
    print(t1 - t0, t2 - t1)
    """
)


def median_us(operation: Callable[[], object], repeat: int) -> float:
    for _ in range(min(50, repeat)):  # warm up: page cache, imports, memos
        operation()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        operation()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--processes", type=int, default=7)
    arguments = parser.parse_args()
    repeat = arguments.repeat
    results: list[tuple[str, float]] = []

    with tempfile.TemporaryDirectory(prefix="gt4py-hit-bench-") as directory:
        root = pathlib.Path(directory)
        environment = {**os.environ, "GT4PY_BUILD_CACHE_DIR": str(root)}
        with config.overrides(build_cache_dir=root, build_cache_lifetime="persistent"):
            files = caching.FileCache("bench/files")
            key = caching.CacheKey({"payload": "1 KiB", "source": "x" * 32})
            files.put(key, os.urandom(1 << 10))
            files.get_or_build_object(caching.CacheKey({"object": "1"}), lambda: list(range(100)))
            results.append(("FileCache.get, 1 KiB", median_us(lambda: files.get(key), repeat)))
            results.append(
                (
                    "FileCache open + get (new object), 1 KiB",
                    median_us(lambda: caching.FileCache("bench/files").get(key), repeat),
                )
            )
            try:
                from gt4py.infra.caching._trust import check_root
            except ImportError:  # a gt4py from before the trust checks
                pass
            else:
                results.append(
                    (
                        "cache root trust check (per open)",
                        median_us(lambda: check_root(root), repeat),
                    )
                )
            results.append(
                (
                    "FileCache.get_or_build_object",
                    median_us(
                        lambda: files.get_or_build_object(caching.CacheKey({"object": "1"}), list),
                        repeat,
                    ),
                )
            )

            dirs = caching.BuildDirCache("bench/dirs")
            dir_key = caching.CacheKey({"module": "m"})

            def build(path: pathlib.Path) -> None:
                (path / "module.so").write_bytes(os.urandom(64 << 10))
                (path / "module.h").write_text("#pragma once\n")

            dirs.get_or_build(dir_key, build)
            results.append(
                (
                    "BuildDirCache.get_or_build, 64 KiB",
                    median_us(functools.partial(dirs.get_or_build, dir_key, build), repeat // 4),
                )
            )

            sources = {"hit_bench.cpp": _MODULE}
            native.build_extension("hit_bench", sources)  # cold: toolchain and module
            results.append(
                (
                    "native.build_extension, hit",
                    median_us(
                        functools.partial(native.build_extension, "hit_bench", sources),
                        max(20, repeat // 10),
                    ),
                )
            )

        in_process, whole = [], []
        for _ in range(arguments.processes):
            start = time.perf_counter()
            completed = subprocess.run(
                [sys.executable, "-c", _CHILD, _MODULE],
                env=environment,
                capture_output=True,
                text=True,
                check=True,
            )
            whole.append(time.perf_counter() - start)
            in_process.append(float(completed.stdout.split()[1]))
        results.append(("new process: build_extension + load", statistics.median(in_process) * 1e6))
        results.append(
            ("new process: whole (interpreter, imports)", statistics.median(whole) * 1e6)
        )

    print(f"{'operation':<44} {'median':>12}")
    for label, microseconds in results:
        print(f"{label:<44} {microseconds:>9.1f} µs")


if __name__ == "__main__":
    main()
