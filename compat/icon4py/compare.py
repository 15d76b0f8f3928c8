"""Compare icon4py compatibility reports written by run_programs.py.

    python compat/icon4py/compare.py --results DIR [--ours ours] [--released released]
        [--failures-out FILE] [--json-out FILE]

Prints, per report: modules imported / discovered, programs discovered, programs that ran per
backend; then for ``ours`` each compiled backend against ours embedded, and each of ours'
backends against released embedded (values equal within rtol 1e-10, NaNs equal); then the
failure classes on ours (exception type and first line, names and numbers made generic) with
counts and one example program each. Needs numpy only.
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import sys
from typing import Any

import numpy as np


RTOL = 1e-10
ATOL_SCALE = 1e-13  # absolute tolerance relative to the field's magnitude (cancellations)


class Run:
    """One report with its saved fields."""

    def __init__(self, results: pathlib.Path, tag: str) -> None:
        self.tag = tag
        self.results = results
        self.data = json.loads((results / f"report-{tag}.json").read_text())
        self._cache: dict[tuple[str, str], dict[str, np.ndarray]] = {}

    @property
    def programs(self) -> dict[str, Any]:
        return self.data["programs"]

    def backends(self) -> list[str]:
        names: list[str] = []
        for entry in self.programs.values():
            for b in entry.get("backends", {}):
                if b not in names:
                    names.append(b)
        return names

    def result(self, qualname: str, backend: str) -> dict[str, Any] | None:
        return self.programs.get(qualname, {}).get("backends", {}).get(backend)

    def ok(self, qualname: str, backend: str) -> bool:
        r = self.result(qualname, backend)
        return bool(r) and r.get("status") == "ok"

    def arrays(self, qualname: str, backend: str) -> dict[str, np.ndarray]:
        key = (qualname, backend)
        if key not in self._cache:
            path = self.results / f"fields-{self.tag}" / backend / f"{qualname}.npz"
            with np.load(path) as npz:
                self._cache[key] = {k: npz[k] for k in npz.files}
        return self._cache[key]


def _magnitude(b: np.ndarray) -> float:
    if b.dtype.kind not in "fc":
        return 0.0
    finite = np.isfinite(b)
    return float(np.max(np.abs(b[finite]))) if finite.any() else 0.0


def _close(a: np.ndarray, b: np.ndarray, program_scale: float = 0.0) -> bool:
    """Equal within RTOL, and an absolute tolerance relative to the larger of the field's and
    the program's output magnitude: a field that is all cancellation noise (ICON's rain where
    there is none: |q| < 1e-15 from O(1) terms) differs in its last bits between numpy and
    C's libm, at the scale of the quantities that cancelled."""
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "biu" or b.dtype.kind in "biu":
        return bool(np.array_equal(a, b))
    scale = max(_magnitude(b), program_scale)
    return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL_SCALE * scale, equal_nan=True))


def compare_outputs(
    run_a: Run, backend_a: str, run_b: Run, backend_b: str, qualname: str
) -> tuple[bool, list[str]]:
    """(equal, names of the fields that differ) for one program run ok on both sides."""
    ra, rb = run_a.result(qualname, backend_a), run_b.result(qualname, backend_b)
    assert ra and rb
    arrays_a = run_a.arrays(qualname, backend_a)
    arrays_b = run_b.arrays(qualname, backend_b)
    differ = []
    program_scale = max((_magnitude(b) for b in arrays_b.values()), default=0.0)
    for key in sorted(set(ra["checksums"]) | set(rb["checksums"])):
        in_a, in_b = key in arrays_a, key in arrays_b
        if in_a and in_b:
            same = _close(arrays_a[key], arrays_b[key], program_scale)
        elif not in_a and not in_b:  # both left the field as it was
            same = ra["checksums"].get(key) == rb["checksums"].get(key)
        else:  # one side wrote it, the other did not: equal only if bit-identical
            same = ra["checksums"].get(key) == rb["checksums"].get(key)
        if not same:
            differ.append(key)
    return not differ, differ


def summary(run: Run) -> dict[str, Any]:
    modules = run.data["modules"]
    meta = run.data.get("meta", {})
    out = {
        "implementation": meta.get("implementation"),
        "gt4py": meta.get("gt4py_version"),
        "modules_total": meta.get("modules_discovered", len(modules)),
        "modules_imported": sum(1 for m in modules.values() if m["status"] == "ok"),
        "programs": len(run.programs),
        "ok": {b: sum(1 for q in run.programs if run.ok(q, b)) for b in run.backends()},
        "tried": {
            b: sum(1 for e in run.programs.values() if b in e.get("backends", {}))
            for b in run.backends()
        },
    }
    return out


def agreement(run_a: Run, backend_a: str, run_b: Run, backend_b: str) -> dict[str, Any]:
    both, equal, differ, windows = 0, [], [], []
    only_a, only_b = [], []
    for q in sorted(set(run_a.programs) | set(run_b.programs)):
        ok_a, ok_b = run_a.ok(q, backend_a), run_b.ok(q, backend_b)
        if ok_a and ok_b:
            both += 1
            same, fields = compare_outputs(run_a, backend_a, run_b, backend_b, q)
            attempts = (
                run_a.result(q, backend_a).get("attempt"),
                run_b.result(q, backend_b).get("attempt"),
            )
            if same:
                equal.append(q)
            elif attempts[0] != attempts[1]:
                windows.append(q)
            else:
                differ.append({"program": q, "fields": fields, "attempts": attempts})
        elif ok_a:
            only_a.append(q)
        elif ok_b and q in run_a.programs:
            only_b.append(q)
    return {
        "both_ok": both,
        "equal": len(equal),
        "differ": differ,
        "other_window": windows,
        "only_first_ok": only_a,
        "only_second_ok": only_b,
    }


def failure_classes(run: Run, backend: str) -> list[dict[str, Any]]:
    groups: dict[str, list[tuple[str, dict[str, Any]]]] = collections.defaultdict(list)
    for modname, m in run.data["modules"].items():
        if m["status"] != "ok":
            err = m["error"]
            groups["import: " + err["class"]].append((modname, err))
    for q, entry in run.programs.items():
        r = entry.get("backends", {}).get(backend)
        if r and r.get("status") != "ok":
            err = r.get("error") or {"class": r.get("status"), "type": "", "message": ""}
            groups[err["class"]].append((q, err))
    rows = []
    for cls, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        where, err = items[0]
        rows.append(
            {
                "class": cls,
                "count": len(items),
                "example": where,
                "exception": f"{err.get('type')}: {err.get('message')}",
                "all": [w for w, _ in items],
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--ours", default="ours")
    ap.add_argument("--released", default="released")
    ap.add_argument("--failures-out", default=None, help="write ours' failure classes here")
    ap.add_argument("--json-out", default=None)
    ns = ap.parse_args(argv)
    results = pathlib.Path(ns.results)

    runs = {}
    for tag in (ns.released, ns.ours):
        if (results / f"report-{tag}.json").exists():
            runs[tag] = Run(results, tag)
    if not runs:
        print(f"no reports in {results}", file=sys.stderr)
        return 2
    out: dict[str, Any] = {"summary": {t: summary(r) for t, r in runs.items()}}

    print(f"{'report':10} {'gt4py':10} {'modules':>10} {'programs':>9}  ok per backend")
    for tag, s in out["summary"].items():
        oks = ", ".join(f"{b} {s['ok'][b]}/{s['tried'][b]}" for b in s["ok"])
        print(
            f"{tag:10} {s['gt4py'] or '?':10} {s['modules_imported']:>4}/{s['modules_total']:<5}"
            f" {s['programs']:>9}  {oks}"
        )

    ours = runs.get(ns.ours)
    released = runs.get(ns.released)
    pairs = []
    if ours:
        for b in ours.backends():
            if b != "embedded":
                pairs.append((f"{ns.ours} {b} vs {ns.ours} embedded", ours, b, ours, "embedded"))
    if ours and released:
        for b in ours.backends():
            for rb in released.backends():
                pairs.append((f"{ns.ours} {b} vs {ns.released} {rb}", ours, b, released, rb))
    if pairs:
        print()
        print(
            f"{'comparison':44} {'both ok':>8} {'equal':>6} {'differ':>7} {'window':>7}"
            f"{'only 1st ok':>12} {'only 2nd ok':>12}"
        )
    out["agreement"] = {}
    for label, ra, ba, rb, bb in pairs:
        a = agreement(ra, ba, rb, bb)
        out["agreement"][label] = a
        print(
            f"{label:44} {a['both_ok']:>8} {a['equal']:>6} {len(a['differ']):>7} "
            f"{len(a['other_window']):>7}"
            f"{len(a['only_first_ok']):>12} {len(a['only_second_ok']):>12}"
        )
        for d in a["differ"][:10]:
            print(
                f"    differs: {d['program']} fields {', '.join(d['fields'][:6])}"
                f" (attempts {d['attempts'][0]} / {d['attempts'][1]})"
            )
        if len(a["differ"]) > 10:
            print(f"    ... {len(a['differ']) - 10} more")

    lines: list[str] = []
    out["failures"] = {}
    for tag, run in runs.items():
        for b in run.backends():
            rows = failure_classes(run, b)
            out["failures"][f"{tag} {b}"] = rows
            if not rows:
                continue
            lines.append(
                f"\n== failure classes: {tag} {b} ({sum(r['count'] for r in rows)} failures) =="
            )
            for r in rows:
                lines.append(f"{r['count']:4}  {r['class']}")
                lines.append(f"      e.g. {r['example']}")
                lines.append(f"           {r['exception'][:300]}")
    if released and ours:  # programs that run on released embedded but not on ours
        regress = [
            q
            for q in released.programs
            if released.ok(q, "embedded")
            and not ours.ok(q, "embedded")
            and (q in ours.programs or q.split(":")[0] in ours.data["modules"])
        ]
        out["released_ok_ours_not_embedded"] = regress
        lines.append(
            f"\n{len(regress)} programs run on {ns.released} embedded but not on {ns.ours} embedded"
        )
    print("\n".join(lines))
    if ns.failures_out and ours:
        text = [
            f"# failure classes of {ns.ours} (gt4py {ours.data['meta'].get('gt4py_version')})",
            "# count  class / example program / exception",
        ]
        for key, rows in out["failures"].items():
            if not key.startswith(ns.ours + " "):
                continue
            text.append(f"\n== {key} ==")
            for r in rows:
                text.append(f"{r['count']:4}  {r['class']}")
                text.append(f"      e.g. {r['example']}")
                text.append(f"           {r['exception'][:400]}")
        for label, a in out["agreement"].items():
            if a["differ"]:
                text.append(f"\n== values differ: {label} ==")
                text.extend(f"{d['program']}  fields {', '.join(d['fields'])}" for d in a["differ"])
        if "released_ok_ours_not_embedded" in out:
            text.append("\n== run on released embedded, not on ours embedded ==")
            text.extend(out["released_ok_ours_not_embedded"])
        pathlib.Path(ns.failures_out).write_text("\n".join(text) + "\n")
    if ns.json_out:
        pathlib.Path(ns.json_out).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
