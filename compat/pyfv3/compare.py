"""Compare a run of compat/pyfv3/run_dycore.py with the stored released-1.2.3 oracle.

    python compat/pyfv3/compare.py RUN_DIR [--oracle DIR] [--rtol R] [--atol A]
        [--field-rtol F] [--json FILE]

For every rank and every field of the oracle: the maximum absolute difference, the maximum
relative difference (|a - b| / |b| where b != 0), and whether NaN appears at the same places.
The default tolerance is bitwise (rtol = atol = field_rtol = 0: the same bits, NaN payloads
included); otherwise a value passes when |a - b| <= atol + rtol * |b| + field_rtol * max|b|,
max|b| over the field on that rank (a tolerance relative to the field's scale: a compiled
backend's last-bit differences from numpy in exp, log and ** grow over two steps, and
pointwise relative differences are unbounded where a field crosses zero). A field or rank missing from the run, a shape or dtype that
differs, or a NaN where the oracle has a number (or the reverse) fails. Exit status 0 when
everything is within tolerance, 1 otherwise, 2 on bad input.

Needs only numpy; the oracle is ``oracle/rank{r}.npz`` next to this file (see make_oracle.sh).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import numpy as np


ORACLE = pathlib.Path(__file__).resolve().parent / "oracle"


def _ranks(folder: pathlib.Path) -> list[int]:
    return sorted(int(p.stem[len("rank") :]) for p in folder.glob("rank*.npz"))


def compare_arrays(
    run: np.ndarray, ref: np.ndarray, rtol: float, atol: float, field_rtol: float = 0.0
) -> dict:
    """Differences of one field on one rank; ``ok`` says whether it is within tolerance."""
    if run.shape != ref.shape or run.dtype != ref.dtype:
        return {
            "ok": False,
            "error": f"shape/dtype {run.shape} {run.dtype} != oracle {ref.shape} {ref.dtype}",
        }
    run_nan, ref_nan = np.isnan(run), np.isnan(ref)
    nan_mismatch = int(np.count_nonzero(run_nan != ref_nan))
    both = ~(run_nan | ref_nan)
    a, b = run[both], ref[both]
    with np.errstate(over="ignore", invalid="ignore"):
        diff = np.abs(a - b)
        # inf - inf is nan: the same infinity is no difference
        diff[(a == b)] = 0.0
        nonzero = b != 0
        rel = np.zeros_like(diff)
        rel[nonzero] = diff[nonzero] / np.abs(b[nonzero])
    scale = float(np.abs(b).max()) if b.size else 0.0
    bitwise_equal = bool(np.array_equal(run.view(np.uint8), ref.view(np.uint8)))
    if rtol == 0.0 and atol == 0.0 and field_rtol == 0.0:
        within = bitwise_equal
    else:
        bound = atol + field_rtol * scale
        with np.errstate(over="ignore", invalid="ignore"):
            within = nan_mismatch == 0 and bool(np.all(diff <= bound + rtol * np.abs(b)))
    return {
        "ok": within,
        "bitwise_equal": bitwise_equal,
        "max_abs": float(diff.max()) if diff.size else 0.0,
        "max_rel": float(rel.max()) if rel.size else 0.0,
        # the largest difference relative to the field's largest magnitude
        "field_rel": float(diff.max()) / scale if diff.size and scale > 0 else 0.0,
        "nan_mismatch": nan_mismatch,
        "nan_in_oracle": int(np.count_nonzero(ref_nan)),
    }


def compare(
    run_dir: pathlib.Path,
    oracle_dir: pathlib.Path,
    rtol: float,
    atol: float,
    field_rtol: float = 0.0,
) -> dict:
    oracle_ranks = _ranks(oracle_dir)
    if not oracle_ranks:
        raise FileNotFoundError(f"no rank*.npz in the oracle folder {oracle_dir}")
    report: dict = {"rtol": rtol, "atol": atol, "field_rtol": field_rtol, "ranks": {}, "ok": True}
    for r in oracle_ranks:
        run_file = run_dir / f"rank{r}.npz"
        if not run_file.is_file():
            report["ranks"][r] = {"ok": False, "error": f"{run_file} missing"}
            report["ok"] = False
            continue
        fields: dict = {}
        with np.load(oracle_dir / f"rank{r}.npz") as ref, np.load(run_file) as run:
            for name in ref.files:
                if name not in run.files:
                    fields[name] = {"ok": False, "error": "missing from the run"}
                else:
                    fields[name] = compare_arrays(run[name], ref[name], rtol, atol, field_rtol)
        report["ranks"][r] = fields
        report["ok"] &= all(f["ok"] for f in fields.values())
    return report


def format_report(report: dict) -> str:
    lines = [
        f"{'rank':>4} {'field':<10} {'max abs':>11} {'max rel':>11} {'/max|field|':>11} "
        f"{'NaN≠':>5}  result"
    ]
    for r, fields in report["ranks"].items():
        if "error" in fields:
            lines.append(f"{r:>4} {'-':<10} {fields['error']}")
            continue
        for name, f in fields.items():
            if "error" in f:
                lines.append(f"{r:>4} {name:<10} {f['error']}")
                continue
            verdict = "bitwise" if f["bitwise_equal"] else ("ok" if f["ok"] else "FAIL")
            lines.append(
                f"{r:>4} {name:<10} {f['max_abs']:11.3e} {f['max_rel']:11.3e} "
                f"{f['field_rel']:11.3e} {f['nan_mismatch']:>5}  {verdict}"
            )
    lines.append(
        f"{'all within' if report['ok'] else 'NOT within'} tolerance "
        f"(rtol={report['rtol']:g}, atol={report['atol']:g}, "
        f"field_rtol={report.get('field_rtol', 0.0):g})"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=pathlib.Path, help="the --out folder of run_dycore.py")
    parser.add_argument("--oracle", type=pathlib.Path, default=ORACLE)
    parser.add_argument("--rtol", type=float, default=0.0, help="0 (default): bitwise")
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument(
        "--field-rtol", type=float, default=0.0, help="relative to the field's max magnitude"
    )
    parser.add_argument("--json", type=pathlib.Path, default=None, help="write the report here")
    args = parser.parse_args(argv)
    if args.rtol < 0 or args.atol < 0 or args.field_rtol < 0:
        parser.error("--rtol, --atol and --field-rtol must be >= 0")
    if not args.run_dir.is_dir():
        parser.error(f"run folder {args.run_dir} does not exist")
    try:
        report = compare(args.run_dir, args.oracle, args.rtol, args.atol, args.field_rtol)
    except FileNotFoundError as error:
        print(f"compare.py: {error}", file=sys.stderr)
        return 2
    print(format_report(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
