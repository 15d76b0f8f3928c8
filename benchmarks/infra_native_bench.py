"""Native build timings: cold toolchain set-up, a new tiny module, a cache hit in a new process.

    uv run python benchmarks/infra_native_bench.py [--modules N] [--cache-dir DIR]

Runs in an empty cache directory (a temporary one unless --cache-dir is given), each phase in
a fresh interpreter so nothing is shared in memory:

1. cold toolchain: CMake configure of the probe project + nanobind's library + probe module;
2. new module: build_extension of N distinct tiny nanobind modules (add + ndarray sum) with
   the toolchain warm -- what every new stencil costs;
3. cache hit: build_extension + load_extension of an already built module in a new process
   (in-process time, and the whole process including interpreter start-up and imports).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from typing import Any


_CHILD = textwrap.dedent(
    """\
    import json, sys, time
    t0 = time.perf_counter()
    from gt4py.infra import fingerprinting, native  # fingerprinting (numpy) as any caller has
    t_import = time.perf_counter() - t0
    phase, count = sys.argv[1], int(sys.argv[2])
    code = '''
    #include <nanobind/nanobind.h>
    #include <nanobind/ndarray.h>
    namespace nb = nanobind;
    static double total(nb::ndarray<const double, nb::ndim<1>, nb::c_contig> a) {
        double s = 0; for (size_t i = 0; i < a.shape(0); ++i) s += a(i); return s + TAG;
    }
    NB_MODULE(bench_mod, m) { m.def("add", [](int a, int b) { return a + b; }); m.def("total", &total); }
    '''
    def sources(tag):
        return {"bench_mod.cpp": code.replace("TAG", str(tag))}
    times = []
    if phase == "toolchain":
        t = time.perf_counter(); native.prepare_toolchain(); times.append(time.perf_counter() - t)
    elif phase == "modules":
        for tag in range(count):
            t = time.perf_counter()
            native.build_extension("bench_mod", sources(tag))
            times.append(time.perf_counter() - t)
    elif phase == "hit":
        t = time.perf_counter()
        module = native.load_extension(native.build_extension("bench_mod", sources(0)))
        times.append(time.perf_counter() - t)
        assert module.add(1, 2) == 3
    print(json.dumps({"import": t_import, "times": times}))
    """
)


def _run(phase: str, count: int, cache_dir: str) -> tuple[dict[str, Any], float]:
    env = {
        **os.environ,
        "GT4PY_BUILD_CACHE_DIR": cache_dir,
        "GT4PY_BUILD_CACHE_LIFETIME": "persistent",
    }
    start = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", _CHILD, phase, str(count)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if completed.returncode != 0:
        sys.exit(f"phase {phase} failed:\n{completed.stderr}")
    result: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", type=int, default=5, help="new modules to time (default 5)")
    parser.add_argument("--cache-dir", help="an EMPTY cache directory (default: a temporary one)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="gt4py-native-bench-") as temporary:
        cache_dir = args.cache_dir or temporary
        toolchain, toolchain_wall = _run("toolchain", 1, cache_dir)
        modules, _ = _run("modules", args.modules, cache_dir)
        hit, hit_wall = _run("hit", 1, cache_dir)

    module_times: list[float] = modules["times"]
    print(f"{'cold toolchain set-up':<44} {toolchain['times'][0]:8.2f} s")
    print(f"{'  (whole process)':<44} {toolchain_wall:8.2f} s")
    print(
        f"{f'new tiny module (median of {len(module_times)})':<44} "
        f"{statistics.median(module_times):8.2f} s   "
        f"(min {min(module_times):.2f}, max {max(module_times):.2f}; "
        f"first includes loading the toolchain)"
    )
    print(f"{'cache hit in a fresh process (build+load)':<44} {hit['times'][0] * 1e3:8.2f} ms")
    print(f"{'  (whole process, incl. interpreter start)':<44} {hit_wall:8.2f} s")
    print(f"{'  (imports: native, fingerprinting, numpy)':<44} {hit['import'] * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
