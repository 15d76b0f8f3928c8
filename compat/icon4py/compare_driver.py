"""Compare icon4py driver runs (run_driver.py output directories), or a run with an oracle.

    python compat/icon4py/compare_driver.py DIR_A DIR_B [--rtol 1e-10]
    python compat/icon4py/compare_driver.py DIR --oracle FILE.npz [--rtol 1e-10]

Two runs: every step file both have (``step_000.npz`` .. ), field by field. A run and an
oracle (``run_driver.py --oracle``: the fields after the last step): the run's last step.
The measure is compare_granules.py's: the largest elementwise ``|a - b| / max(|a|, |b|)``
(equal values, zeros and NaNs at the same places count 0). Prints the maximum per field and
exits 1 if any is above ``rtol`` or a field is missing.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np


sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from compare_granules import max_rel_diff


def _steps(d: pathlib.Path) -> list[pathlib.Path]:
    return sorted(d.glob("step_*.npz"))


def compare_fields(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, float]:
    """The largest relative difference per field (``inf`` for a field one side lacks)."""
    return {k: (max_rel_diff(a[k], b[k]) if k in a and k in b else float("inf"))
            for k in sorted(set(a) | set(b))}  # fmt: skip


def compare_runs(a: pathlib.Path, b: pathlib.Path) -> dict[str, float]:
    """Per field, the largest relative difference over the steps both runs wrote."""
    steps_a, steps_b = _steps(a), _steps(b)
    if not steps_a or len(steps_a) != len(steps_b):
        raise ValueError(f"{a} has {len(steps_a)} step files, {b} has {len(steps_b)}")
    worst: dict[str, float] = {}
    for pa, pb in zip(steps_a, steps_b, strict=True):
        with np.load(pa) as fa, np.load(pb) as fb:
            for k, v in compare_fields(dict(fa), dict(fb)).items():
                worst[k] = max(worst.get(k, 0.0), v)
    return worst


def compare_with_oracle(run: pathlib.Path, oracle: pathlib.Path) -> dict[str, float]:
    """Per field, the relative difference of the run's last step and the oracle."""
    steps = _steps(run)
    if not steps:
        raise ValueError(f"{run} has no step files")
    with np.load(steps[-1]) as fr, np.load(oracle) as fo:
        return compare_fields(dict(fr), dict(fo))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=pathlib.Path)
    parser.add_argument("b", type=pathlib.Path, nargs="?")
    parser.add_argument("--oracle", type=pathlib.Path)
    parser.add_argument("--rtol", type=float, default=1e-10)
    args = parser.parse_args(argv)
    if (args.b is None) == (args.oracle is None):
        parser.error("give a second run directory or --oracle FILE, not both")
    diffs = (
        compare_runs(args.a, args.b) if args.b is not None
        else compare_with_oracle(args.a, args.oracle)
    )  # fmt: skip
    for name, diff in diffs.items():
        print(f"{'ok ' if diff <= args.rtol else 'BAD'} {name:16} max rel diff {diff:.3e}")
    return 0 if all(d <= args.rtol for d in diffs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
