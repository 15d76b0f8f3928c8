"""Compare two ``run_granules.py --out`` directories field by field, every step.

    python compat/icon4py/compare_granules.py DIR_A DIR_B [--rtol 1e-10] [--json OUT]

Checks that both runs got the same inputs (``inputs.npz``: bitwise), then compares every
``step_NNN.npz`` present in both (step 000 is the state before the first step) key by key:
``|a - b| <= rtol * max(|a|, |b|)`` elementwise (the relative difference; NaNs at the same
places count as equal, as do equal infinities), integer and boolean fields exactly. Prints one
line per field with its maximum relative difference over all steps and the step where it is
largest. Exit status 0 when everything agrees and neither run stopped early,
1 otherwise (2 when a directory has no steps at all). Two finished runs of different lengths
are compared on the steps they have in common.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

import numpy as np


def max_rel_diff(a: np.ndarray, b: np.ndarray) -> float:
    """Largest elementwise relative difference; NaN==NaN and equal infinities count as 0."""
    if a.shape != b.shape:
        return float("inf")
    if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
        return 0.0 if np.array_equal(a, b) else float("inf")
    a = a.astype(np.float64, copy=False)
    b = b.astype(np.float64, copy=False)
    both_nan = np.isnan(a) & np.isnan(b)
    same = (a == b) | both_nan  # covers equal infinities and exact zeros
    if same.all():
        return 0.0
    if (np.isnan(a) ^ np.isnan(b)).any():
        return float("inf")
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        scale = np.maximum(np.abs(a), np.abs(b))
        rel = np.where(same, 0.0, np.abs(a - b) / scale)
    return float(np.nanmax(rel))


def _steps(d: pathlib.Path) -> dict[int, pathlib.Path]:
    return {int(p.stem.split("_")[1]): p for p in sorted(d.glob("step_*.npz"))}


def _report(d: pathlib.Path) -> dict[str, Any]:
    try:
        return json.loads((d / "report.json").read_text())
    except (OSError, ValueError):
        return {}


def compare(a: pathlib.Path, b: pathlib.Path, rtol: float) -> dict[str, Any]:
    result: dict[str, Any] = {"a": str(a), "b": str(b), "rtol": rtol, "problems": []}
    ra, rb = _report(a), _report(b)
    result["steps_run"] = {"a": ra.get("steps_run"), "b": rb.get("steps_run")}
    # inputs: bitwise
    ia, ib = a / "inputs.npz", b / "inputs.npz"
    if ia.exists() and ib.exists():
        with np.load(ia) as na, np.load(ib) as nb:
            differ = sorted(
                k
                for k in set(na.files) | set(nb.files)
                if k not in na.files or k not in nb.files or not np.array_equal(na[k], nb[k])
            )
        result["inputs_identical"] = not differ
        if differ:
            result["problems"].append(f"inputs differ: {differ[:10]}")
    else:
        result["inputs_identical"] = None
    sa, sb = _steps(a), _steps(b)
    if not sa or not sb:
        result["problems"].append(f"no steps in {a if not sa else b}")
        result["ok"] = False
        result["no_steps"] = True
        return result
    common = sorted(set(sa) & set(sb))
    if set(sa) != set(sb):
        note = f"different steps: a has 0..{max(sa)}, b has 0..{max(sb)}"
        # runs of different lengths that both finished compare on their common steps; a run
        # that stopped early (failure, or no report) is a problem
        finished = all(
            r.get("ok") and r.get("steps_run") == r.get("steps_requested") for r in (ra, rb)
        )
        result["notes" if finished else "problems"] = [note]
    fields: dict[str, dict[str, Any]] = {}
    for step in common:
        with np.load(sa[step]) as fa, np.load(sb[step]) as fb:
            for k in sorted(set(fa.files) | set(fb.files)):
                entry = fields.setdefault(k, {"max_rel_diff": 0.0, "at_step": None})
                if k not in fa.files or k not in fb.files:
                    entry["max_rel_diff"] = float("inf")
                    entry["at_step"] = step
                    entry["missing_in"] = "a" if k not in fa.files else "b"
                    continue
                d = max_rel_diff(fa[k], fb[k])
                if d > entry["max_rel_diff"] or entry["at_step"] is None:
                    entry["max_rel_diff"], entry["at_step"] = max(d, entry["max_rel_diff"]), step
    result["steps_compared"] = common
    result["fields"] = fields
    worst = max((f["max_rel_diff"] for f in fields.values()), default=0.0)
    prognostic = [f["max_rel_diff"] for k, f in fields.items() if "." not in k]
    result["max_rel_diff"] = worst
    result["max_rel_diff_prognostic"] = max(prognostic, default=0.0)
    bad = sorted(k for k, f in fields.items() if not f["max_rel_diff"] <= rtol)
    if bad:
        result["problems"].append(f"fields above rtol {rtol:g}: {bad}")
    result["ok"] = not result["problems"]
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", type=pathlib.Path)
    p.add_argument("b", type=pathlib.Path)
    p.add_argument("--rtol", type=float, default=1e-10)
    p.add_argument("--json", type=pathlib.Path, help="write the comparison as JSON here")
    p.add_argument("--quiet", action="store_true", help="only the verdict line")
    args = p.parse_args(argv)
    r = compare(args.a, args.b, args.rtol)
    if args.json:
        args.json.write_text(json.dumps(r, indent=1) + "\n")
    if not args.quiet:
        for k, f in r.get("fields", {}).items():
            mark = "ok " if f["max_rel_diff"] <= args.rtol else "BAD"
            print(f"  {mark} {k:60s} {f['max_rel_diff']:.3e} (step {f['at_step']})")
        for problem in r["problems"]:
            print(f"  problem: {problem}")
    steps = r.get("steps_compared", [])
    print(
        f"{'PASS' if r['ok'] else 'FAIL'} {args.a} vs {args.b}: "
        f"{len(steps)} states (steps {steps[0] if steps else '-'}..{steps[-1] if steps else '-'}), "
        f"inputs identical: {r.get('inputs_identical')}, "
        f"max rel diff {r.get('max_rel_diff', float('nan')):.3e} (rtol {args.rtol:g})"
    )
    if r.get("no_steps"):
        return 2
    return 0 if r["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
