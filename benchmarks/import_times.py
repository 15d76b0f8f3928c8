"""Median wall time of importing each gt4py module in a fresh interpreter.

    uv run python benchmarks/import_times.py [module ...] [--runs N]

Each sample is a new process (so nothing is cached in memory); the interpreter's own start-up
(`python -c pass`) is measured the same way and subtracted.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


DEFAULT_MODULES = [
    "gt4py.infra",
    "gt4py.infra.config",
    "gt4py.infra.fingerprinting",
    "gt4py.infra.caching",
    "gt4py.infra.runners",
    "gt4py.infra.native",
    "gt4py.eve",
    "gt4py.storage",
]


def _sample(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("modules", nargs="*", default=DEFAULT_MODULES)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    baseline = statistics.median(_sample("pass") for _ in range(args.runs))
    print(f"interpreter start-up (subtracted): {baseline * 1e3:.1f} ms")
    for module in args.modules:
        samples = [_sample(f"import {module}") - baseline for _ in range(args.runs)]
        print(f"import {module:<32} median {statistics.median(samples) * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
