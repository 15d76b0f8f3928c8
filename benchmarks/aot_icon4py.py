"""icon4py's programs compiled ahead of time with ``gtx.compile_all`` (issue 18 figures).

    .venv-3.12/bin/python benchmarks/aot_icon4py.py all --site ICON4PY_SITE \
        --deps ICON4PY_DEPS --modules 'atmosphere\\.dycore' --out /tmp/aot.json

``all`` runs, each in a fresh process on a fresh cache (gtfn_cpu): ``serial`` (SerialRunner),
``process`` (ProcessRunner, 2 workers), ``dask`` (a LocalCluster of 2 worker processes), then
``load`` (a second start on the ``process`` run's cache: everything found), then the same set
started by 1 rank and by N ranks (``--ranks``, 0 for none; separate processes, each with a SerialRunner,
``rank=(r, N)``) on one empty cache. Per run: wall time (whole compile_all call, after
imports), variants, failures, cache entries built (summed over ranks) and entries present in
the cache afterwards (built == present: each key built once).

One run alone: ``run --mode serial|process|dask|load --cache DIR``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import warnings
from typing import Any


HERE = pathlib.Path(__file__).resolve()
COMPAT = HERE.parent.parent / "compat" / "icon4py"
NAMESPACES = ("next/translation", "native/modules")


def load_programs(site: str, modules_regex: str) -> tuple[list[Any], dict[str, Any]]:
    """The programs of icon4py's modules matching ``modules_regex`` on gtfn_cpu, and the
    offset provider of compat/icon4py's torus grid."""
    sys.path.insert(0, site)
    sys.path.insert(0, str(COMPAT))
    warnings.filterwarnings("ignore", category=UserWarning)
    import grid as torus
    import run_programs

    import gt4py.next as gtx

    programs = []
    for name in run_programs.discover_modules(pathlib.Path(site)):
        if not re.search(modules_regex, name):
            continue
        try:
            module = importlib.import_module(name)
        except Exception as error:
            print(f"skip {name}: {type(error).__name__}: {error}", file=sys.stderr)
            continue
        for pname, program in sorted(run_programs.programs_of(module).items()):
            try:
                programs.append(program.with_backend(gtx.gtfn_cpu))
            except Exception as error:  # a program whose definition does not type-check
                print(f"skip {name}:{pname}: {type(error).__name__}", file=sys.stderr)
    dims = importlib.import_module("icon4py.model.common.dimension")
    offsets = {k: v for k, v in vars(dims).items() if isinstance(v, gtx.FieldOffset)}
    grid = torus.build_grid(12, 10, run_programs.NLEV)
    return programs, torus.offset_provider(grid, offsets, gtx)


def cache_entries(cache: pathlib.Path) -> dict[str, int]:
    entry = re.compile(r"^[0-9a-f]{32}(\.[a-z]+)?$")
    counts = {}
    for namespace in NAMESPACES:
        total = 0
        for kind in ("_files", "_dirs"):
            directory = cache / namespace / kind
            if directory.is_dir():
                total += sum(1 for p in directory.iterdir() if entry.match(p.name))
        counts[namespace] = total
    return counts


def run(args: argparse.Namespace) -> dict[str, Any]:
    os.environ["GT4PY_BUILD_CACHE_DIR"] = args.cache
    import gt4py.next as gtx
    from gt4py.infra import runners

    programs, provider = load_programs(args.site, args.modules)
    cluster = client = None
    if args.mode == "process":
        runner: Any = runners.ProcessRunner(max_workers=args.workers)
    elif args.mode == "dask":
        import distributed

        cluster = distributed.LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = distributed.Client(cluster)
        runner = client
    else:  # serial, load, rank
        runner = runners.SerialRunner()
    rank = (args.rank, args.size) if args.rank is not None else None
    started = time.perf_counter()
    report = gtx.compile_all(
        programs,
        offset_provider=provider,
        runner=runner,
        rank=rank,
        progress=args.progress,
        raise_on_error=False,
    )
    wall = time.perf_counter() - started
    if client is not None:
        client.close()
        cluster.close()
    elif isinstance(runner, runners.Runner):
        runner.shutdown()
    return {
        "mode": args.mode,
        "rank": rank,
        "programs": len(programs),
        "variants": report.total,
        "built": len(report.built),
        "failures": {n: f"{type(e).__name__}: {str(e)[:200]}" for n, e in report.failures.items()},
        "wall_s": round(wall, 2),
        "cache_builds": {n: report.cache_builds.get(n, 0) for n in NAMESPACES},
        "workers": sorted({v.worker for v in report.built}),
    }


def _child(args: argparse.Namespace, mode: str, cache: pathlib.Path, *extra: str) -> Any:
    command = [
        sys.executable,
        str(HERE),
        "run",
        "--mode",
        mode,
        "--cache",
        str(cache),
        "--site",
        args.site,
        "--modules",
        args.modules,
        "--workers",
        str(args.workers),
        *extra,
    ]
    env = dict(os.environ)
    if args.deps:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [args.deps, env.get("PYTHONPATH")]))
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)


def _result(process: Any) -> dict[str, Any]:
    out, _ = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"child failed ({process.returncode}): {out[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


def run_all(args: argparse.Namespace) -> dict[str, Any]:
    base = pathlib.Path(tempfile.mkdtemp(prefix="gt4py-aot-"))
    results: dict[str, Any] = {}
    for mode in args.modes.split(","):
        cache = base / mode
        result = _result(_child(args, mode, cache))
        result["cache_entries"] = cache_entries(cache)
        results[mode] = result
        print(json.dumps(result), file=sys.stderr, flush=True)
        if mode == "process":
            second = _result(_child(args, "load", cache))
            second["cache_entries"] = cache_entries(cache)
            results["load"] = second
            print(json.dumps(second), file=sys.stderr, flush=True)
    for ranks in (1, args.ranks) if args.ranks else ():
        cache = base / f"ranks-{ranks}"
        started = time.perf_counter()
        children = [
            _child(args, "rank", cache, "--rank", str(r), "--size", str(ranks))
            for r in range(ranks)
        ]
        per_rank = [_result(c) for c in children]
        wall = time.perf_counter() - started
        summary = {
            "ranks": ranks,
            "wall_s_slowest_rank": max(r["wall_s"] for r in per_rank),
            "wall_s_with_start_up": round(wall, 2),
            "built_per_rank": [r["cache_builds"] for r in per_rank],
            "cache_builds": {n: sum(r["cache_builds"][n] for r in per_rank) for n in NAMESPACES},
            "cache_entries": cache_entries(cache),
            "failures": len(per_rank[0]["failures"]),
        }
        results[f"ranks-{ranks}"] = summary
        print(json.dumps(summary), file=sys.stderr, flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["all", "run"])
    parser.add_argument(
        "--site", default=os.environ.get("ICON4PY_SITE"), required="ICON4PY_SITE" not in os.environ
    )
    parser.add_argument(
        "--deps", default=os.environ.get("ICON4PY_DEPS"), required="ICON4PY_DEPS" not in os.environ
    )
    parser.add_argument("--modules", default=r"atmosphere\.dycore")
    parser.add_argument("--mode", choices=["serial", "process", "dask", "load", "rank"])
    parser.add_argument("--modes", default="serial,process,dask")
    parser.add_argument("--cache")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ranks", type=int, default=4, help="0: no rank runs")
    parser.add_argument("--rank", type=int)
    parser.add_argument("--size", type=int)
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.what == "run":
        print(json.dumps(run(args)))
        return
    results = run_all(args)
    text = json.dumps(results, indent=1)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":  # the dask LocalCluster starts its workers with spawn
    main()
