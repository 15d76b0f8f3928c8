#!/usr/bin/env bash
# icon4py 0.4.1's own stencil tests (StencilTest suites: numpy references vs the gt4py program)
# on THIS gt4py.next (embedded, gtfn_cpu) and, for a baseline, on released gt4py 1.2.x.
#
#   compat/icon4py/stencil_tests.sh setup MIRROR      # once: sources, deps, harness
#   compat/icon4py/stencil_tests.sh run ours embedded # or: run ours gtfn_cpu,
#   compat/icon4py/stencil_tests.sh run released embedded
#   compat/icon4py/stencil_tests.sh run released \
#       gtfn_cpu=gt4py.next.program_processors.runners.gtfn:run_gtfn
#   compat/icon4py/stencil_tests.sh summary           # counts + failure classes per run
#
# MIRROR is a git directory of C2SM/icon4py (e.g. the `fetch` tool's
# /work/.mirror/C2SM+icon4py/repo, or any clone's .git).  Extra arguments after `run ...` go to
# pytest (e.g. -k test_compute_mass_flux).  Settings (environment):
#   WORK        work directory                       (default /work/icon4py)
#   ICON4PY_REF git ref of release 0.4.1             (default v0.4.1 = 109b285c1675)
#   OURS_PY     python of this gt4py                 (default <repo>/.venv-3.12/bin/python)
#   ANCHOR_PY   python of released gt4py             (default /work/anchor-venv/bin/python)
#   ANCHOR_CACHE  GT4PY_BUILD_CACHE_DIR for released  (default /work/anchor/cache)
#   PYTEST_TIMEOUT  per-invocation timeout in seconds (default 14400)
#   TEST_TIMEOUT    per-test timeout (pytest-timeout, signal method; default 600): a compile
#               that never ends becomes a "Failed: Timeout" with the stack where it was
#   ONLY        space-separated component names to run (common diffusion dycore
#               tracer_advection muphys; default all)
#   RUN_TAG     suffix of the results folder, e.g. RUN_TAG=-xfails-run with
#               `run ours embedded --run-embedded-xfails` (icon4py calls pytest.xfail() at setup
#               for 88 tests on embedded, so they never run; this launcher option disables
#               those filters so they run; pytest's --runxfail does not help)
#
# What `setup` does (all outside the gt4py packages and the venvs, except pytest +
# platformdirs into the released venv):
#  1. git archive ICON4PY_REF: the stencil_tests/ folders of every component (dycore,
#     diffusion, tracer_advection, muphys, common/interpolation, common/math), the conftest.py /
#     fixtures.py / utils.py / __init__.py of their parent test packages, and the root
#     pyproject.toml (its [tool.pytest.ini_options] loads icon4py.model.testing.pytest_hooks)
#     -> $WORK/tests-src.
#  2. icon4py 0.4.1 wheels, no deps (compat/icon4py/install.sh) -> $WORK/site, unless present.
#     Checks that $WORK/site's icon4py-testing is 0.4.1.
#  3. test-only third-party packages, no deps, pinned -> $WORK/testdeps (pytest-benchmark for
#     the `benchmark` fixture; xarray, pandas, pooch, serialbox4py, cftime, netCDF4, zarr that
#     icon4py.model.testing / .common import at module level).  zarr 3.0.x: 3.1+ needs numpy 2.
#  4. pytest + platformdirs (pooch needs it) into the released venv.
#  5. writes $WORK/harness/run_pytest.py (pytest launcher, see its docstring: import-time
#     stand-ins for third-party uxarray / netCDF4 / zarr when not installed, listed in pytest's
#     header; and a gap check of gt4py.next for the names icon4py imports at module level: a
#     missing one is reported, never patched, and the launcher exits non-zero before pytest
#     starts) and $WORK/harness/summarize.py.
#
# BACKEND is icon4py's --backend value (embedded, gtfn_cpu, or module:symbol of a gt4py
# backend), optionally LABEL=VALUE to name the results folder.  Released gt4py 1.2.3 has no
# runners.gtfn.GTFNBackendFactory (icon4py 0.4.1 pins gt4py==1.2.1), so icon4py's own
# "gtfn_cpu" descriptor fails there at setup (AttributeError); for the released baseline use
# gtfn_cpu=gt4py.next.program_processors.runners.gtfn:run_gtfn (same on ours: gtx.gtfn_cpu).
#
# How tests run: icon4py's pytest plugin gives `--backend` (embedded = None, gtfn_cpu =
# {"backend_factory": make_custom_gtfn_backend, "device": CPU} -> for ours
# program_processors.runners.gtfn.GTFNBackendFactory(gpu=False) = gtx.gtfn_cpu) and `--grid`
# (default "simple": icon4py.model.common.grid.simple, no downloads; 40 levels).  Each component
# runs in its own pytest process from model/<component> (as icon4py's noxfile does: every
# component has a top-level package named `tests`), --benchmark-disable (verification only),
# -p no:cacheprovider, --tb=native, results as JUnit XML in $WORK/results/<gt4py>-<backend>/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
WORK="${WORK:-/work/icon4py}"
ICON4PY_REF="${ICON4PY_REF:-v0.4.1}"
OURS_PY="${OURS_PY:-$repo/.venv-3.12/bin/python}"
ANCHOR_PY="${ANCHOR_PY:-/work/anchor-venv/bin/python}"
ANCHOR_CACHE="${ANCHOR_CACHE:-/work/anchor/cache}"
PYTEST_TIMEOUT="${PYTEST_TIMEOUT:-14400}"
TEST_TIMEOUT="${TEST_TIMEOUT:-600}"

# component dir (under tests-src)            test paths (relative to it)
COMPONENTS=(
    "model/common|tests/common/interpolation/stencil_tests tests/common/math/stencil_tests"
    "model/atmosphere/diffusion|tests/diffusion/stencil_tests"
    "model/atmosphere/dycore|tests/dycore/stencil_tests"
    "model/atmosphere/tracer_advection|tests/tracer_advection/stencil_tests"
    "model/atmosphere/subgrid_scale_physics/muphys|tests/muphys/stencil_tests"
)

TESTDEPS=(
    pytest-benchmark==5.3.1 py-cpuinfo2==10.1.1 pytest-timeout==2.4.0
    xarray==2026.2.0 pandas==2.3.3 python-dateutil==4.0.0 six==1.17.0 pytz==2026.6 tzdata==2026.6
    pooch==1.9.0 requests==2.34.2 urllib3==2.8.0 idna==3.20 certifi==2026.10.19.post1
    charset-normalizer==3.5.3
    serialbox4py==2.6.3 cftime==1.6.6.1 netCDF4==1.7.5.1.post1
    zarr==3.0.10 donfig==0.8.1.post1 numcodecs==0.17.1 crc32c==2.9.post0 google-crc32c==1.9.0
    msgspec==0.23.0
)

pythonpath() { echo "$WORK/site:$WORK/deps:$WORK/testdeps"; }

extract() {
    local mirror="$1" dest="$WORK/tests-src"
    git --git-dir="$mirror" rev-parse --verify -q "$ICON4PY_REF^{commit}" >/dev/null || {
        echo "ref $ICON4PY_REF not in $mirror (tags: $(git --git-dir="$mirror" tag | tail -3 | tr '\n' ' '))" >&2
        exit 1
    }
    local files
    files="$(git --git-dir="$mirror" ls-tree -r --name-only "$ICON4PY_REF" | python3 -c '
import sys, posixpath
paths = sys.stdin.read().split()
keep = {p for p in paths if "/stencil_tests/" in p and p.startswith("model/")}
dirs = {posixpath.dirname(p) for p in keep}
anc = set()
for d in dirs:                      # ancestors up to and including the `tests` package
    parts = d.split("/")
    for i in range(parts.index("tests"), len(parts)):
        anc.add("/".join(parts[:i + 1]))
for p in paths:
    d, b = posixpath.split(p)
    if d in anc and b in ("__init__.py", "conftest.py", "fixtures.py", "utils.py"):
        keep.add(p)
keep.add("pyproject.toml")
print("\n".join(sorted(keep)))')"
    rm -rf "$dest" && mkdir -p "$dest"
    # shellcheck disable=SC2086
    git --git-dir="$mirror" archive "$ICON4PY_REF" $files | tar -x -C "$dest"
    git --git-dir="$mirror" rev-parse "$ICON4PY_REF^{commit}" >"$dest/ICON4PY_COMMIT"
    echo "extracted $(echo "$files" | wc -l) files of $ICON4PY_REF ($(cat "$dest/ICON4PY_COMMIT")) into $dest"
}

setup() {
    local mirror="${1:?usage: $0 setup MIRROR}"
    extract "$mirror"
    if [[ ! -d "$WORK/site/icon4py" || ! -d "$WORK/site/dace" ]]; then  # dace: since install.sh has it
        "$here/install.sh" "$WORK/site" "$OURS_PY"
    fi
    grep -q '^Version: 0.4.1$' "$WORK"/site/icon4py_testing-*.dist-info/METADATA || {
        echo "icon4py-testing in $WORK/site is not 0.4.1" >&2; exit 1; }
    mkdir -p "$WORK/deps"
    uv pip install --python "$OURS_PY" --no-deps --no-build --target "$WORK/testdeps" "${TESTDEPS[@]}"
    uv pip install --python "$ANCHOR_PY" pytest==9.2.0 platformdirs
    mkdir -p "$WORK/harness"
    write_launcher >"$WORK/harness/run_pytest.py"
    write_summarizer >"$WORK/harness/summarize.py"
    echo "setup done; harness in $WORK/harness"
}

run() {
    local which="${1:?usage: $0 run ours|released BACKEND [pytest args]}" backend="${2:?backend}"
    shift 2
    local label="$backend"
    if [[ "$backend" == *=* ]]; then label="${backend%%=*}"; backend="${backend#*=}"; fi
    local py cache
    case "$which" in
        ours) py="$OURS_PY"; cache="$WORK/cache-ours" ;;
        released) py="$ANCHOR_PY"; cache="$ANCHOR_CACHE" ;;
        *) echo "ours or released, not $which" >&2; exit 2 ;;
    esac
    local out="$WORK/results/$which-$label${RUN_TAG:-}"
    mkdir -p "$out" "$cache"
    local entry dir paths name rc=0
    for entry in "${COMPONENTS[@]}"; do
        dir="${entry%%|*}"; paths="${entry#*|}"; name="$(basename "$dir")"
        if [[ -n "${ONLY:-}" && " $ONLY " != *" $name "* ]]; then continue; fi
        echo "== $which $label (--backend=$backend): $dir ($(date +%T))"
        # shellcheck disable=SC2086
        (cd "$WORK/tests-src/$dir" && \
         env PYTHONPATH="$(pythonpath)" GT4PY_BUILD_CACHE_DIR="$cache" \
             GT4PY_BUILD_CACHE_LIFETIME=persistent PATH="$(dirname "$py"):$PATH" \
         timeout "$PYTEST_TIMEOUT" "$py" "$WORK/harness/run_pytest.py" \
             -p no:cacheprovider --benchmark-disable -W ignore::pytest.PytestWarning \
             --tb=native -rN -q --backend="$backend" --timeout="$TEST_TIMEOUT" \
             --junitxml="$out/$name.xml" -o junit_logging=no $paths "$@") \
            >"$out/$name.log" 2>&1 || rc=$?
        tail -n 1 "$out/$name.log"
    done
    return 0
}

write_launcher() {
    cat <<'PYEOF'
"""pytest launcher for icon4py 0.4.1's stencil tests, used for OUR gt4py.next and for released
gt4py 1.2.3 alike (compat/icon4py/stencil_tests.sh).

Before pytest starts, in this process only:

* third-party (same for both gt4py's): stand-ins for uxarray / netCDF4 / zarr when they are
  not installed (IO only, used inside functions of icon4py.model.common.io); the applied ones
  are printed in pytest's header ("icon4py compat stand-ins: ...").
* gt4py: a GAP CHECK, never a stand-in (gt4py is not patched here: a gap is the finding).
  The numbered blocks below check names / behaviour of gt4py.next that icon4py imports or
  evaluates at module level, which released 1.2.x has and our gt4py.next once lacked.  If any
  check fails, the launcher prints every gap found (what is missing, where icon4py uses it,
  the error) and exits with status 3 before pytest starts.  With no gap, pytest's header says
  "gt4py gap check: no gap (N checks)".

Without those names not a single icon4py stencil test is collected: the conftest files import
icon4py.model.testing.fixtures -> ...common.decomposition.definitions -> ...common.states.utils
(and driver.config -> grid/geometry, tracer advection, ...), the plugin
icon4py.model.testing.pytest_hooks imports ...common.model_options, and
icon4py.model.testing.stencil_tests imports gt4py.next.instrumentation.{hooks,metrics}.

ICON4PY_SHIM_ONLY=name1,name2 applies only the named third-party stand-ins; names: thirdparty
(e.g. ICON4PY_SHIM_ONLY=none applies none).  The gap check always runs in full.
"""

import importlib
import os
import sys
import types
import typing

_only = os.environ.get("ICON4PY_SHIM_ONLY")
_enabled = (lambda n: True) if not _only else (lambda n: n in _only.split(","))
applied = []
gaps = []  # (what is missing, where icon4py uses it, the error)
checks = 0


def _stub(name, doc, **attrs):
    mod = types.ModuleType(name)
    mod.__doc__ = "stand-in (compat/icon4py/stencil_tests.sh): " + doc
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


def _missing(modname):
    try:
        __import__(modname)
        return False
    except ImportError:
        return True


def _check(what, where, fn):
    """Run fn(); an exception, or a false result, records a gap.  Nothing is patched."""
    global checks
    checks += 1
    try:
        ok, err = fn(), None
    except Exception as e:  # noqa: BLE001 - any failure is the gap
        ok, err = False, f"{type(e).__name__}: {e}"
    if not ok:
        gaps.append((what, where, err or "missing"))


def _imports(modname):
    return lambda: importlib.import_module(modname) is not None


# 0. third-party IO packages of icon4py-common[io], only used inside functions.
if _enabled("thirdparty"):
    for _tp in ("uxarray", "netCDF4", "zarr"):
        if _missing(_tp):
            def _tp_getattr(attr, _tp=_tp):
                if attr.startswith("__"):
                    raise AttributeError(attr)
                raise ImportError(f"stand-in: {_tp} is not installed ({_tp}.{attr})")
            _stub(_tp, f"{_tp} is not installed", __getattr__=_tp_getattr)
            applied.append(f"thirdparty: {_tp} (not installed; attributes raise)")

# 1. (was: a stand-in module `dace`.)  DaCe 2.0.0a10 itself is now installed into the icon4py
#    site by compat/icon4py/install.sh (model_options.py:13 does `import dace` at module level).

# 2. `from gt4py.next.program_processors.runners.dace import transformations`: dace paths only.
_check("module gt4py.next.program_processors.runners.dace.transformations",
       "icon4py/model/common/model_options.py:16",
       _imports("gt4py.next.program_processors.runners.dace.transformations"))

# 3. `import gt4py._core.definitions as gt_coredefs` (ScalarT).
_check("module gt4py._core.definitions (ScalarT)",
       "icon4py/model/common/states/model.py:14, io/utils.py",
       lambda: hasattr(importlib.import_module("gt4py._core.definitions"), "ScalarT"))

import gt4py.eve as _eve  # noqa: E402
import gt4py.next as gtx  # noqa: E402
import gt4py.next.common as gt_common  # noqa: E402

# 4. `from gt4py.next.common import DimsT`
_check("gt4py.next.common.DimsT", "icon4py/model/common/states/utils.py:13",
       lambda: hasattr(gt_common, "DimsT"))

# 5. Generic field annotations (plain-Python annotations only, never in programs).
_T = typing.TypeVar("_T")
_DT = getattr(gt_common, "DimsT", typing.TypeVar("_DimsT"))
type _anyf = gtx.float32 | gtx.float64
_check("gtx.Field[DimsT, T] (a TypeVar as Field's dims)",
       "states/utils.py:25 `GTXFieldType: TypeAlias = gtx.Field[DimsT, T]`",
       lambda: gtx.Field[_DT, _T] is not None)
_check("gtx.Dims[DimsT] (a TypeVar in Dims)",
       "states/model.py:65 `gtx.Field[gtx.Dims[gt_common.DimsT], ScalarT]`",
       lambda: gtx.Field[gtx.Dims[_DT], _T] is not None)
_check("gtx.Dims[gtx.Dimension] (the class Dimension in Dims)",
       "grid/geometry.py:915 `gtx.Field[gtx.Dims[gtx.Dimension], state_utils.ScalarType]`",
       lambda: gtx.Dims[gtx.Dimension] is not None)
_check("generic Field alias subscripted with a PEP 695 type alias",
       "tracer_advection_horizontal.py:206 `fa.EdgeKField[ta.anyfloat]` (type_alias.py:19)",
       lambda: gtx.Field[gtx.Dims[gtx.Dimension("_X")], _T][_anyf] is not None)

# 6. a Field annotation in a union, evaluated eagerly as a dataclass annotation.
_check("`Field[...] | None` (FieldAnnotation in a union)",
       "icon4py/model/common/grid/states.py:210 `fa.CellField[float] | None`",
       lambda: (gtx.Field[gtx.Dims[gtx.Dimension("_Y")], float] | None) is not None)

# 7. `eve.StrEnum` (class StandardStaticVariants(eve.StrEnum)), and 3 modules of ...common.
_check("gt4py.eve.StrEnum", "icon4py/model/testing/stencil_tests.py:415",
       lambda: hasattr(_eve, "StrEnum"))

# 8. `from gt4py.next.instrumentation import hooks as gtx_hooks, metrics as gtx_metrics` at
#    module level; driver/config.py:64 reads `gtx_metrics.ALL` at import.
_check("modules gt4py.next.instrumentation.{hooks,metrics} (metrics.ALL)",
       "icon4py/model/testing/stencil_tests.py:43, driver/config.py:64",
       lambda: (importlib.import_module("gt4py.next.instrumentation.hooks") is not None
                and hasattr(importlib.import_module("gt4py.next.instrumentation.metrics"),
                            "ALL")))

# 9. (was: a stand-in making backend=None mean gtx.embedded_numpy.)  Removed: backend=None
#    (released gt4py's and icon4py's spelling of embedded, model_backends.BACKENDS["embedded"])
#    is supported by this gt4py.next itself (DeprecationWarning, runs embedded).

# 10. `gt4py.next.common.is_neighbor_table(obj)` (Grid.size, reached by every StencilTest
#     through the `grid` fixture; Grid.get_connectivity).
_check("gt4py.next.common.is_neighbor_table",
       "icon4py/model/common/grid/base.py:101,145, icon4py/model/testing/stencil_tests.py:372,381",
       lambda: callable(getattr(gt_common, "is_neighbor_table", None)))

if gaps:
    print(f"gt4py gap check (compat/icon4py/stencil_tests.sh): {len(gaps)} of {checks} checks "
          "failed; gt4py.next lacks what icon4py 0.4.1 uses:", file=sys.stderr)
    for _what, _where, _err in gaps:
        print(f"  - {_what}\n      used at: {_where}\n      error:   {_err}", file=sys.stderr)
    print(f"gt4py gap check: {len(gaps)} gap(s); pytest not started", file=sys.stderr)
    sys.exit(3)

import pytest  # noqa: E402


class _ReportStandIns:
    def pytest_report_header(self, config):
        return ["icon4py compat stand-ins: " + ("; ".join(applied) or "none"),
                f"gt4py gap check: no gap ({checks} checks)"]


class _RunEmbeddedXfails:
    """--run-embedded-xfails: icon4py marks tests `embedded_remap_error`, `uses_concat_where`,
    `embedded_static_args` and calls pytest.xfail() for them in pytest_runtest_setup on the
    embedded backend, so they never run (pytest's --runxfail does not stop that).  This drops
    those three entries of icon4py.model.testing.filters.item_marker_filters so they run."""

    MARKERS = ("embedded_remap_error", "uses_concat_where", "embedded_static_args")

    def pytest_configure(self, config):
        from icon4py.model.testing import filters

        for name in self.MARKERS:
            filters.item_marker_filters.pop(name, None)

    def pytest_report_header(self, config):
        return ["--run-embedded-xfails: icon4py's embedded xfail filters removed: "
                + ", ".join(self.MARKERS)]


if __name__ == "__main__":
    args = sys.argv[1:]
    plugins = [_ReportStandIns()]
    if "--run-embedded-xfails" in args:
        args.remove("--run-embedded-xfails")
        plugins.append(_RunEmbeddedXfails())
    sys.exit(pytest.main(args, plugins=plugins))
PYEOF
}

write_summarizer() {
    cat <<'PYEOF'
"""Summarize icon4py stencil-test runs from their JUnit XML files.

    summarize.py RESULTS_DIR [--failures N]

RESULTS_DIR holds one folder per run, <gt4py>-<backend>/ (e.g. ours-embedded), each with one
<component>.xml per pytest invocation.  Prints counts per run and, for every run, the failure
classes: exception type + first message line (quoted names and numbers normalized), with the
number of tests, one example test id, and the relevant traceback lines (the innermost frames in
gt4py, plus the icon4py/test frame that called into gt4py)."""

import collections
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

root = pathlib.Path(sys.argv[1])
nshow = int(sys.argv[sys.argv.index("--failures") + 1]) if "--failures" in sys.argv else 5

FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (.+)$')


def outcome(tc):
    for child in tc:
        if child.tag in ("failure", "error"):
            return child.tag, child
        if child.tag == "skipped":
            kind = "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
            return kind, child
    return "passed", None


def parse_tb(text):
    """(frames, exception line) of the LAST traceback in a --tb=native report."""
    lines = text.splitlines()
    frames, exc = [], ""
    for i, line in enumerate(lines):
        m = FRAME.match(line)
        if m:
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            frames.append((m.group(1), int(m.group(2)), m.group(3), code))
    # exception line: last line matching "Name: msg" or a bare exception name
    for line in reversed(lines):
        s = line.strip()
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Warning|Exit|Interrupt|Failed|Failure|Skipped)\b", s) or re.match(r"^E\s+", line):
            exc = s
            break
    return frames, exc


def norm(msg):
    msg = re.sub(r"0x[0-9a-f]+", "0x…", msg)
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r'"[^"]*"', '"…"', msg)
    msg = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", msg)
    return msg[:160]


def short(path):
    for marker in ("/gt4py/", "/icon4py/", "/tests-src/"):
        if marker in path:
            return path[path.index(marker) + 1:]
    return path


runs = sorted(p for p in root.iterdir() if p.is_dir() and list(p.glob("*.xml")))
if not runs:
    sys.exit(f"no runs under {root}")
print(f"{'run':28} {'total':>6} {'passed':>6} {'failed':>6} {'errors':>6} {'skipped':>7} {'xfailed':>7}   time")
results = {}
for run in runs:
    counts = collections.Counter()
    cases = {}
    t = 0.0
    for xml in sorted(run.glob("*.xml")):
        tree = ET.parse(xml)
        for suite in tree.iter("testsuite"):
            t += float(suite.get("time", 0))
        for tc in tree.iter("testcase"):
            kind, el = outcome(tc)
            counts[kind] += 1
            tid = f"{tc.get('classname')}::{tc.get('name')}"
            cases[tid] = (kind, el)
    results[run.name] = cases
    print(f"{run.name:28} {sum(counts.values()):6} {counts['passed']:6} {counts['failure']:6} "
          f"{counts['error']:6} {counts['skipped']:7} {counts['xfailed']:7}   {t:.0f}s")

for run in runs:
    cases = results[run.name]
    classes = collections.OrderedDict()
    for tid, (kind, el) in sorted(cases.items()):
        if kind not in ("failure", "error"):
            continue
        text = el.text or ""
        frames, exc = parse_tb(text)
        msg = el.get("message") or exc
        first = (msg or exc or "?").strip().splitlines()[0] if (msg or exc) else "?"
        if first.startswith("E "):
            first = first[2:].strip()
        m = re.match(r"^([A-Za-z_][\w.]*)(?::\s*(.*))?$", first)
        etype, emsg = (m.group(1), m.group(2) or "") if m else ("?", first)
        if etype == "AssertionError":  # numpy's assert_allclose: name the output and how it differs
            details = [l.strip() for l in (msg or text).splitlines()
                       if l.strip().startswith(("Verification failed", "Mismatched elements",
                                                "x and y nan location mismatch"))]
            if details:
                emsg = (emsg + " " + details[0]).strip()
                first = f"AssertionError: {' | '.join(details[:2])}"
        gt = [f for f in frames if "/gt4py/" in f[0]]
        inner = f"{short(gt[-1][0])}:{gt[-1][1]}" if gt else "(no gt4py frame)"
        key = (kind, etype, norm(emsg) if etype != "AssertionError" else emsg)
        c = classes.setdefault(key, {"n": 0, "ex": tid, "msg": first, "frames": frames, "where": collections.Counter()})
        c["n"] += 1
        c["where"][inner] += 1
    if not classes:
        continue
    print(f"\n=== {run.name}: {sum(c['n'] for c in classes.values())} failed/errored tests in {len(classes)} classes")
    for (kind, etype, nmsg), c in sorted(classes.items(), key=lambda kv: -kv[1]["n"]):
        print(f"\n[{c['n']}] {kind}: {c['msg'][:300]}")
        print(f"    e.g. {c['ex']}")
        where = ", ".join(f"{w} ×{n}" for w, n in c["where"].most_common(4))
        print(f"    innermost gt4py frame: {where}")
        frames = c["frames"]
        idx = [i for i, f in enumerate(frames) if "/gt4py/" in f[0]]
        if idx:
            first_gt = idx[0]
            show = ([frames[first_gt - 1]] if first_gt > 0 else []) + [frames[i] for i in idx[-nshow:]]
        else:
            show = frames[-nshow:]
        for f in show:
            print(f"      {short(f[0])}:{f[1]} in {f[2]}: {f[3][:140]}")
PYEOF
}

case "${1:-}" in
    setup) shift; setup "$@" ;;
    run) shift; run "$@" ;;
    summary) "$OURS_PY" "$WORK/harness/summarize.py" "$WORK/results" "${@:2}" ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
esac
