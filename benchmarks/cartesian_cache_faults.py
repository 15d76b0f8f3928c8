"""The fault table of the GTScript stencil cache: each kind of damage to a warm entry, and what
the next process does (rebuilt / unaffected / error / WRONG RESULT).

    uv run python benchmarks/cartesian_cache_faults.py [--backends numpy,gt:cpu_ifirst]
        [--src OTHER/packages/gt4py-cartesian/src]

The damage and the runs are those of ``tests/cartesian_tests/test_cartesian_cache_faults.py``
(imported from there); ``--src`` runs another checkout's gt4py.cartesian (e.g. an older commit
from ``git archive``) to compare. The C++ backends share one cache root, so the toolchain is
set up once.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile


ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "cartesian_tests"))

import test_cartesian_cache_faults as faults  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="numpy,debug,gt:cpu_ifirst")
    parser.add_argument("--src", help="a gt4py-cartesian src directory to measure instead")
    args = parser.parse_args()
    backends = args.backends.split(",")
    table: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="gt4py_cart_faults_") as tmp:
        directory = pathlib.Path(tmp)
        shared = directory / "shared_cache"
        for backend in backends:
            for index, (fault, (damage, cpp_only)) in enumerate(faults.FAULTS.items()):
                if cpp_only and not backend.startswith("gt:"):
                    continue
                cache = shared if backend.startswith("gt:") else directory / f"cache{index}"
                name = f"scale_{index}_{backend.replace(':', '_')}"
                done, result = faults.run(directory, backend, name, cache, args.src)
                if result is None:
                    raise RuntimeError(done.stderr[-3000:])
                entry = pathlib.Path(str(result["module"])).parent
                if fault == "bytecode bit flip" and not faults._bytecode(entry):
                    outcome = "n/a (no bytecode kept)"
                else:
                    damage(entry)
                    outcome = faults.classify(
                        *faults.run(directory, backend, name, cache, args.src)
                    )
                table.setdefault(fault, {})[backend] = outcome
                print(f"{backend:>14} | {fault:<34} | {outcome}", file=sys.stderr)
    print("| damage | " + " | ".join(backends) + " |")
    print("|---|" + "---|" * len(backends))
    for fault, outcomes in table.items():
        print(f"| {fault} | " + " | ".join(outcomes.get(b, "—") for b in backends) + " |")


if __name__ == "__main__":
    main()
