"""gt:cpu_ifirst side by side with released gt4py 1.2.3, in one sitting.

Runs ``workloads/cart_lap.py BACKEND`` (a 256x256x80 Laplacian: build time, steady
call, tiny 6x6x1 call) in fresh processes:

- ours, cold, empty cache (includes the one-time native toolchain set-up of this machine),
- ours, cold, empty stencil cache but a toolchain already set up (the usual cold build),
- ours, warm: a new process on the filled cache, with GT4PY_CXX=/nonexistent (no compiler),
- released gt4py 1.2.3 (``GT4PY_RELEASED_PYTHON``), cold (own fresh cache) and warm.

Usage: uv run python benchmarks/cartesian_cpp_bench.py [--backend gt:cpu_ifirst] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import _yardstick


BENCH = _yardstick.WORKLOADS / "cart_lap.py"
MAIN = pathlib.Path(__file__).resolve().parents[1]


def run_ours(backend: str, cache: pathlib.Path, **env: str) -> dict[str, object]:
    full_env = {**os.environ, "GT4PY_BUILD_CACHE_DIR": str(cache), **env}
    return _run(["uv", "run", "python", str(BENCH), backend], MAIN, full_env)


def run_released(backend: str, cache: pathlib.Path) -> dict[str, object]:
    anchor = _yardstick.released_python()
    assert anchor is not None
    env = {
        **os.environ,
        "PATH": f"{pathlib.Path(anchor).parent}:{os.environ.get('PATH', '')}",
        "GT4PY_BUILD_CACHE_DIR": str(cache),
        "GT_CACHE_ROOT": str(cache),
    }
    env.pop("VIRTUAL_ENV", None)
    return _run([anchor, str(BENCH), backend], pathlib.Path("/tmp"), env)


def _run(command: list[str], cwd: pathlib.Path, env: dict[str, str]) -> dict[str, object]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_s"] = round(time.perf_counter() - start, 2)
    return result


def prepare_toolchain(cache: pathlib.Path) -> float:
    code = (
        "from gt4py.infra import native; from gt4py.cartesian import _cpp_backend as b; "
        "native.prepare_toolchain(b._build_options())"
    )
    env = {**os.environ, "GT4PY_BUILD_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    subprocess.run(["uv", "run", "python", "-c", code], cwd=MAIN, env=env, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="gt:cpu_ifirst")
    parser.add_argument("--repeats", type=int, default=3, help="warm runs per implementation")
    parser.add_argument("--skip-released", action="store_true")
    args = parser.parse_args()
    if _yardstick.released_python() is None:
        print(_yardstick.missing_released_hint())
        args.skip_released = True
    rows: list[tuple[str, dict[str, object]]] = []
    with tempfile.TemporaryDirectory(prefix="gt4py_cpp_bench_") as tmp:
        tmp_path = pathlib.Path(tmp)
        cold_all = tmp_path / "ours_cold_toolchain"
        rows.append(("ours cold (with toolchain set-up)", run_ours(args.backend, cold_all)))
        warm_toolchain = tmp_path / "ours_cold_stencil"
        toolchain_s = prepare_toolchain(warm_toolchain)
        print(f"toolchain set-up alone: {toolchain_s:.1f} s", file=sys.stderr)
        rows.append(("ours cold (toolchain ready)", run_ours(args.backend, warm_toolchain)))
        released_cache = tmp_path / "released"
        if not args.skip_released:
            rows.append(("released cold", run_released(args.backend, released_cache)))
        # Warm runs interleaved, so both see the same machine load.
        for _ in range(args.repeats):
            rows.append(
                (
                    "ours warm, no compiler",
                    run_ours(args.backend, warm_toolchain, GT4PY_CXX="/nonexistent/c++"),
                )
            )
            if not args.skip_released:
                rows.append(("released warm", run_released(args.backend, released_cache)))
    print(f"{'run':36} {'build_s':>9} {'steady_ms':>10} {'tiny_us':>8} {'process_s':>9} ok")
    for label, r in rows:
        print(
            f"{label:36} {r['build_s']:>9} {float(r['steady_median_s']) * 1e3:>10.2f} "  # type: ignore[arg-type]
            f"{float(r['small_call_median_s']) * 1e6:>8.1f} {r['process_s']:>9} {r['correct']}"  # type: ignore[arg-type]
        )


if __name__ == "__main__":
    main()
