"""FV3 idiom stencils (tests/cartesian_tests/fv3_idioms/fv3_idiom_stencils.py): this project vs released.

Runs every stencil of fv3_idiom_stencils.py on this project (in-process) and on released gt4py 1.2.3 (a
subprocess of the interpreter named by ``GT4PY_RELEASED_PYTHON``; that part is skipped with a
message when it is unset), with the same seeded inputs (handed over as .npz files in a temporary
directory), per backend, and prints a table: stencil x backend, bitwise equal, max relative
difference, build time ours vs released.

    uv run python benchmarks/cartesian_fv3_idioms_vs_released.py            # numpy, debug
    uv run python benchmarks/cartesian_fv3_idioms_vs_released.py --cpp      # + gt:cpu_*
    GT4PY_RELEASED_PYTHON=/path/to/venv/bin/python uv run python benchmarks/...

The released interpreter's directory is put first on PATH (its C++ builds find their own
toolchain helpers) and it gets a fresh ``GT4PY_BUILD_CACHE_DIR``.
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


STENCILS = (
    pathlib.Path(__file__).resolve().parents[1]
    / "tests"
    / "cartesian_tests"
    / "fv3_idioms"
    / "fv3_idiom_stencils.py"
)
SEED = 2024


def _load(path: pathlib.Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("fv3_idiom_stencils", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fv3_idiom_stencils"] = module
    spec.loader.exec_module(module)
    return module


def _run_cases(stencils_path, names, backends, in_dir, out_dir) -> dict:
    """Build and run each case on each backend; write out_dir/<case>-<backend>.npz. Used both
    in-process (ours) and in the released interpreter (``--worker``)."""
    import warnings

    import numpy as np

    warnings.simplefilter("ignore")
    st = _load(pathlib.Path(stencils_path))
    report = {}
    for backend in backends:
        for name in names:
            case = st.CASES_BY_NAME[name]
            key = f"{name}-{backend}"
            with np.load(pathlib.Path(in_dir) / f"{name}.npz") as data:
                arrays = {k: data[k].copy() for k in data.files}
            try:
                t0 = time.perf_counter()
                stencil = st.build(case, backend)
                build_s = time.perf_counter() - t0
                st.call(stencil, case, arrays)
                np.savez(pathlib.Path(out_dir) / f"{key}.npz", **arrays)
                report[key] = {"build_s": build_s}
            except Exception as error:  # reported in the table
                first = (str(error).splitlines() or [""])[0]
                report[key] = {"error": f"{type(error).__name__}: {first}"[:200]}
    return report


def _worker(argv: list[str]) -> None:
    stencils_path, in_dir, out_dir, names, backends = argv
    report = _run_cases(stencils_path, names.split(","), backends.split(","), in_dir, out_dir)
    (pathlib.Path(out_dir) / "report.json").write_text(json.dumps(report))


def _compare(a, b) -> tuple[bool, float]:
    import numpy as np

    equal = True
    worst = 0.0
    for name in a:
        x, y = a[name], b[name]
        if x.dtype.kind == "f":
            same = np.array_equal(x, y, equal_nan=True)
            if not np.array_equal(np.isnan(x), np.isnan(y)):
                worst = float("inf")
            else:
                ok = ~np.isnan(x)
                denom = np.maximum(np.abs(y[ok]), np.finfo(float).tiny)
                worst = max(worst, float(np.max(np.abs(x[ok] - y[ok]) / denom, initial=0.0)))
        else:
            same = np.array_equal(x, y)
            worst = max(worst, 0.0 if same else float("inf"))
        equal &= same
    return equal, worst


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpp", action="store_true", help="also gt:cpu_ifirst and gt:cpu_kfirst")
    parser.add_argument("--backends", help="comma-separated backends (overrides --cpp)")
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    args = parser.parse_args()

    import numpy as np

    from gt4py.infra import config

    backends = ["numpy", "debug"] + (["gt:cpu_ifirst", "gt:cpu_kfirst"] if args.cpp else [])
    if args.backends:
        backends = args.backends.split(",")
    st = _load(STENCILS)
    names = args.cases.split(",") if args.cases else [c.name for c in st.CASES]
    released_python = os.environ.get("GT4PY_RELEASED_PYTHON")

    with tempfile.TemporaryDirectory(prefix="fv3_idioms_bench_") as tmp:
        tmp_path = pathlib.Path(tmp)
        in_dir, ours_dir, rel_dir = tmp_path / "in", tmp_path / "ours", tmp_path / "released"
        for d in (in_dir, ours_dir, rel_dir):
            d.mkdir()
        for name in names:
            np.savez(in_dir / f"{name}.npz", **st.make_inputs(st.CASES_BY_NAME[name], SEED))

        with config.overrides(build_cache_dir=tmp_path / "cache_ours"):
            ours = _run_cases(STENCILS, names, backends, in_dir, ours_dir)

        released: dict = {}
        if not released_python:
            print("GT4PY_RELEASED_PYTHON is unset: released gt4py is skipped.\n")
        else:
            env = dict(os.environ)
            env["PATH"] = str(pathlib.Path(released_python).parent) + os.pathsep + env["PATH"]
            env["GT4PY_BUILD_CACHE_DIR"] = str(tmp_path / "cache_released")
            env.pop("PYTHONPATH", None)
            env.pop("VIRTUAL_ENV", None)
            cmd = [released_python, __file__, "--worker", str(STENCILS), str(in_dir)]
            cmd += [str(rel_dir), ",".join(names), ",".join(backends)]
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp)
            if proc.returncode != 0:
                print(f"released worker failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
            else:
                released = json.loads((rel_dir / "report.json").read_text())

        header = f"{'stencil':34} {'backend':14} {'vs released':>12} {'max rel diff':>13}"
        header += f" {'vs numpy':>9} {'build ours':>11} {'build rel':>10}"
        print(header)
        print("-" * len(header))
        for name in names:
            for backend in backends:
                key = f"{name}-{backend}"
                o, r = ours.get(key, {}), released.get(key, {})
                mine = (
                    dict(np.load(ours_dir / f"{key}.npz"))
                    if (ours_dir / f"{key}.npz").exists()
                    else None
                )
                theirs = (
                    dict(np.load(rel_dir / f"{key}.npz"))
                    if (rel_dir / f"{key}.npz").exists()
                    else None
                )
                ref_key = ours_dir / f"{name}-numpy.npz"
                if "error" in o:
                    eq, diff = "OURS FAILS", ""
                elif not released_python:
                    eq, diff = "skipped", ""
                elif "error" in r:
                    eq, diff = "REL FAILS", ""
                elif mine is not None and theirs is not None:
                    same, worst = _compare(mine, theirs)
                    eq, diff = ("bitwise" if same else "DIFFERS"), f"{worst:.2e}"
                else:
                    eq, diff = "?", ""
                vs_numpy = ""
                if mine is not None and ref_key.exists() and backend != "numpy":
                    same, worst = _compare(mine, dict(np.load(ref_key)))
                    vs_numpy = "bitwise" if same else f"{worst:.1e}"
                b_o = f"{o['build_s']:.2f}s" if "build_s" in o else "-"
                b_r = f"{r['build_s']:.2f}s" if "build_s" in r else "-"
                print(
                    f"{name:34} {backend:14} {eq:>12} {diff:>13} {vs_numpy:>9} {b_o:>11} {b_r:>10}"
                )
        for label, rep in (("ours", ours), ("released", released)):
            for key, value in rep.items():
                if "error" in value:
                    print(f"{label} {key}: {value['error']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
