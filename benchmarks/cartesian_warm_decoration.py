"""GTScript decoration with a warm cache, new process per run, ours vs released (issue 28.4).

Per backend and interpreter: the median over runs of the import of ``gtscript``, the first
decoration (which pays the imports deferred to first use) and each decoration after it; one
cold run first fills the cache. Released gt4py from ``GT4PY_RELEASED_PYTHON``.
Run: ``uv run python benchmarks/cartesian_warm_decoration.py [runs]``.
"""

from __future__ import annotations

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
            with tempfile.TemporaryDirectory(prefix="gt4py-deco-") as cache:
                _yardstick.run_workload(python, "cart_decoration", backend, cache_dir=cache)
                results = [
                    _yardstick.run_workload(python, "cart_decoration", backend, cache_dir=cache)
                    for _ in range(runs)
                ]
            imports, firsts, nexts = (
                statistics.median(r[k] for r in results) * 1e3
                for k in ("import_s", "first_s", "next_s")
            )
            print(f"{label:16} {backend:14} {imports:9.1f} {firsts:9.1f} {nexts:10.1f}")


if __name__ == "__main__":
    main()
