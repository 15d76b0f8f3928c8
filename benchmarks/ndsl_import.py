"""``import ndsl`` (NOAA-GFDL's framework, which imports gt4py.cartesian and DaCe) with this
gt4py against released gt4py 1.2.3, side by side, each in new processes; medians.

Both interpreters are NDSL environments made by ``compat/ndsl/install.sh`` (ours: this
repository's packages; released: ``GT4PY=released``), named by environment variables:

    NDSL_OURS_PYTHON=/tmp/ndsl-ours/bin/python NDSL_RELEASED_PYTHON=/tmp/ndsl-rel/bin/python \\
        python benchmarks/ndsl_import.py [--runs 5]

Also reported: the time to import gt4py.cartesian's part of it (``gtscript`` and ``config``)
alone in the same environments.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


SNIPPETS = {
    "import ndsl": "import ndsl",
    "import gtscript + config": ("from gt4py.cartesian import gtscript, config  # noqa: F401"),
}


def _seconds(python: str, code: str) -> float:
    start = time.perf_counter()
    subprocess.run([python, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    pythons = {
        "ours": os.environ.get("NDSL_OURS_PYTHON"),
        "released 1.2.3": os.environ.get("NDSL_RELEASED_PYTHON"),
    }
    missing = [name for name, python in pythons.items() if not python]
    if missing:
        print(f"set NDSL_OURS_PYTHON and NDSL_RELEASED_PYTHON ({', '.join(missing)} unset)")
        return 2
    for label, code in SNIPPETS.items():
        row = []
        for name, python in pythons.items():
            assert python is not None
            _seconds(python, code)  # warm the file system cache and the bytecode
            times = [_seconds(python, code) for _ in range(args.runs)]
            row.append(f"{name} {statistics.median(times):.2f} s")
        print(f"{label:28s} " + " | ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
