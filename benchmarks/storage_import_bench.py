"""How long ``import gt4py.storage`` takes in a fresh interpreter (target: under 0.2 s).

    uv run python benchmarks/storage_import_bench.py [--runs N]

Every sample is a new process. Reported, as medians over the runs:
- wall time of ``python -c "import gt4py.storage"`` with the bare interpreter start-up
  (``python -c pass``) subtracted — the figure the target refers to;
- the same for ``import numpy`` alone, the floor set by the one required dependency;
- ``-X importtime``'s cumulative time of the ``gt4py.storage`` package and of numpy, read from
  the same storage-importing processes, so gt4py's own share can be told apart from numpy's.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


TARGET_SECONDS = 0.2


def _wall(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def _importtime_us(code: str) -> dict[str, int]:
    """Cumulative import time in microseconds of each top-level import in ``code``."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True
    )
    cumulative: dict[str, int] = {}
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative_text, name = (part.strip() for part in line[len("import time:") :].split("|"))
        if cumulative_text.isdigit() and name in ("numpy", "gt4py.storage", "gt4py.infra"):
            cumulative[name] = int(cumulative_text)
    return cumulative


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    interpreter = statistics.median(_wall("pass") for _ in range(args.runs))
    numpy_only = statistics.median(_wall("import numpy") - interpreter for _ in range(args.runs))
    storage = statistics.median(
        _wall("import gt4py.storage") - interpreter for _ in range(args.runs)
    )
    profiles = [_importtime_us("import gt4py.storage") for _ in range(args.runs)]
    storage_cumulative = statistics.median(p.get("gt4py.storage", 0) for p in profiles) / 1e6
    numpy_cumulative = statistics.median(p.get("numpy", 0) for p in profiles) / 1e6

    print(f"python {sys.version.split()[0]}, {args.runs} fresh processes per figure (medians)")
    print(f"interpreter start-up (subtracted)      {interpreter * 1e3:7.1f} ms")
    print(f"import numpy                           {numpy_only * 1e3:7.1f} ms")
    print(f"import gt4py.storage                   {storage * 1e3:7.1f} ms")
    print(f"  -X importtime: gt4py.storage (cum.)  {storage_cumulative * 1e3:7.1f} ms")
    print(f"  -X importtime: of which numpy        {numpy_cumulative * 1e3:7.1f} ms")
    print(
        f"  -X importtime: gt4py alone           "
        f"{(storage_cumulative - numpy_cumulative) * 1e3:7.1f} ms"
    )
    verdict = "meets" if storage < TARGET_SECONDS else "MISSES"
    print(f"{verdict} the target of {TARGET_SECONDS * 1e3:.0f} ms for import gt4py.storage")
    if storage >= TARGET_SECONDS and numpy_only >= TARGET_SECONDS / 2:
        print("  (numpy alone takes half the budget or more on this machine)")


if __name__ == "__main__":
    main()
