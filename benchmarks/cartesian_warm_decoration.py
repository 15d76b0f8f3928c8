"""GTScript decoration with a warm cache, new process per run, ours vs released (issue 28.4).

Per backend and interpreter: the median over runs of the import of ``gtscript``, the first
decoration (which pays the imports deferred to first use) and each decoration after it; one
cold run first fills the cache. Released gt4py from ``GT4PY_RELEASED_PYTHON``.
Run: ``uv run python benchmarks/cartesian_warm_decoration.py [runs]``.

Equal work: every run of one interpreter shares one cache directory, which both stacks use
(``GT4PY_BUILD_CACHE_DIR`` for ours, ``GT_CACHE_ROOT`` for released GTScript; see
``_yardstick.run_workload``) and one bytecode cache (``PYTHONPYCACHEPREFIX``, as an installed
package has its ``.pyc`` files), so the timed runs are warm on both sides. A warm run that adds
a file to the stencil cache is a cold build and stops the benchmark. Figures published before
this check (issue 44.8) compared ours warm with released *cold*.
"""

from __future__ import annotations

import os
import pathlib
import statistics
import sys
import tempfile

import _yardstick


BACKENDS = ("numpy", "gt:cpu_ifirst")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    pythons = _yardstick.interpreters()
    if "released 1.2.3" not in pythons:
        print(_yardstick.missing_released_hint())
    print(f"{'':16} {'backend':14} {'import':>9} {'first':>9} {'each next':>10}   (medians, ms)")
    for backend in BACKENDS:
        for label, python in pythons.items():
            with tempfile.TemporaryDirectory(prefix="gt4py-deco-") as scratch:
                cache = pathlib.Path(scratch, "cache")
                env = {"PYTHONPYCACHEPREFIX": str(pathlib.Path(scratch, "pyc"))}
                env["PYTHONDONTWRITEBYTECODE"] = ""
                _yardstick.run_workload(
                    python, "cart_decoration", backend, cache_dir=cache, extra_env=env
                )
                filled = _files(cache)
                results = [
                    _yardstick.run_workload(
                        python, "cart_decoration", backend, cache_dir=cache, extra_env=env
                    )
                    for _ in range(runs)
                ]
                if built := _files(cache) - filled:
                    raise SystemExit(f"{label} {backend}: a warm run built {sorted(built)[:3]}")
            imports, firsts, nexts = (
                statistics.median(r[k] for r in results) * 1e3
                for k in ("import_s", "first_s", "next_s")
            )
            print(f"{label:16} {backend:14} {imports:9.1f} {firsts:9.1f} {nexts:10.1f}")


def _files(root: pathlib.Path) -> set[str]:
    """The stencil files under ``root`` (sources and extensions; not lock or log files)."""
    return {
        os.path.relpath(os.path.join(d, name), root)
        for d, _, names in os.walk(root)
        for name in names
        if name.endswith((".py", ".so", ".cpp"))
    }


if __name__ == "__main__":
    main()
