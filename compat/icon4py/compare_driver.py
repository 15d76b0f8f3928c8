"""Compare icon4py driver runs (run_driver.py output directories), or a run with an oracle.

    python compat/icon4py/compare_driver.py DIR_A DIR_B [--rtol 1e-10]
    python compat/icon4py/compare_driver.py DIR --oracle FILE.npz [--rtol 1e-10]

Two runs: every step file both have (``step_000.npz`` .. ), field by field. A run and an
oracle (``run_driver.py --oracle``: the fields after the last step): the run's last step.
The measure, per field: ``max |a - b| / max |b|`` (the largest difference relative to the
field's magnitude; NaNs at the same places count 0, elsewhere infinite). Not elementwise: the
static fields come from different backends (sums in another order), so values that cancel to
roundoff (``vn`` ~1e-12 m/s on edges across the wind, against 9 m/s) differ at 1e-2 relative
to themselves while every difference is ~1e-13 of the field. ``--elementwise`` reports
compare_granules.py's elementwise ``|a - b| / max(|a|, |b|)`` as well. Prints the maximum per
field and exits 1 if any is above ``rtol`` or a field is missing.
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


def field_rel_diff(a: np.ndarray, b: np.ndarray) -> float:
    """``max |a - b| / max |b|`` (0 for equal fields, ``inf`` for other shapes, NaNs in
    different places, or a difference on an all-zero ``b``)."""
    if a.shape != b.shape:
        return float("inf")
    a = a.astype(np.float64, copy=False)
    b = b.astype(np.float64, copy=False)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if (nan_a != nan_b).any():
        return float("inf")
    diff = np.abs(np.where(nan_a, 0.0, a - b))
    if not diff.any():
        return 0.0
    scale = float(np.nanmax(np.abs(b)))
    return float(diff.max()) / scale if scale > 0 else float("inf")


def compare_fields(
    a: dict[str, np.ndarray], b: dict[str, np.ndarray], elementwise: bool = False
) -> dict[str, float]:
    """The relative difference per field (``inf`` for a field one side lacks)."""
    measure = max_rel_diff if elementwise else field_rel_diff
    return {k: (measure(a[k], b[k]) if k in a and k in b else float("inf"))
            for k in sorted(set(a) | set(b))}  # fmt: skip


def compare_runs(a: pathlib.Path, b: pathlib.Path, elementwise: bool = False) -> dict[str, float]:
    """Per field, the largest relative difference over the steps both runs wrote."""
    steps_a, steps_b = _steps(a), _steps(b)
    if not steps_a or len(steps_a) != len(steps_b):
        raise ValueError(f"{a} has {len(steps_a)} step files, {b} has {len(steps_b)}")
    worst: dict[str, float] = {}
    for pa, pb in zip(steps_a, steps_b, strict=True):
        with np.load(pa) as fa, np.load(pb) as fb:
            for k, v in compare_fields(dict(fa), dict(fb), elementwise).items():
                worst[k] = max(worst.get(k, 0.0), v)
    return worst


def compare_with_oracle(
    run: pathlib.Path, oracle: pathlib.Path, elementwise: bool = False
) -> dict[str, float]:
    """Per field, the relative difference of the run's last step and the oracle."""
    steps = _steps(run)
    if not steps:
        raise ValueError(f"{run} has no step files")
    with np.load(steps[-1]) as fr, np.load(oracle) as fo:
        return compare_fields(dict(fr), dict(fo), elementwise)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=pathlib.Path)
    parser.add_argument("b", type=pathlib.Path, nargs="?")
    parser.add_argument("--oracle", type=pathlib.Path)
    parser.add_argument("--rtol", type=float, default=1e-10)
    parser.add_argument("--elementwise", action="store_true")
    args = parser.parse_args(argv)
    if (args.b is None) == (args.oracle is None):
        parser.error("give a second run directory or --oracle FILE, not both")
    diffs = (
        compare_runs(args.a, args.b, args.elementwise) if args.b is not None
        else compare_with_oracle(args.a, args.oracle, args.elementwise)
    )  # fmt: skip
    for name, diff in diffs.items():
        print(f"{'ok ' if diff <= args.rtol else 'BAD'} {name:16} max rel diff {diff:.3e}")
    return 0 if all(d <= args.rtol for d in diffs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
