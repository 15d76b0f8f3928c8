"""Run every ``gtx.program`` of icon4py on synthetic inputs, under whichever gt4py is imported.

    python compat/icon4py/run_programs.py --site /path/to/icon4py/site --tag ours \
        --backends embedded,gtfn_cpu,itir_python --out /tmp/icon4py-results

For every module under ``icon4py/`` whose source mentions ``gtx.program`` or ``@program`` the
script records whether it imports; for every program object defined there it builds arguments
from the declared parameter types on the torus grid of ``grid.py`` (deterministic, seeded by
module, program and parameter name), runs it on each requested backend and stores:

- ``<out>/report-<tag>.json``: per module the import status, per program the parameters and
  per backend ``ok`` / ``fail`` (exception type, first line, failure class) / ``crash``;
- ``<out>/fields-<tag>/<backend>/<module>:<program>.npz``: every field argument that the run
  changed (the outputs); the report holds a checksum of every field argument after the run.

Only the public API is used, except in :func:`implementation` (one branch per
implementation, for the names of the backends). ``--resume`` continues an interrupted report;
``--isolate`` runs each module in a child process so that a crash loses one module only.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import hashlib
import importlib
import inspect
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time
import traceback
import typing
import warnings
from typing import Any

import numpy as np


sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import grid as torus


NLEV = 10
# Vertical windows tried in turn while the embedded run reports an out-of-bounds access:
# (start offset from the top, distance of the end from the bottom). Programs that read
# k-1..k-3 (surface diagnostics) or k+1 without a guard need a narrower window.
VERTICAL_WINDOWS = ((0, 0), (1, 1), (3, 3))
VERTICAL_DIMS = ("K", "KHalf")

# ------------------------------------------------------------------------------------------
# The implementation under test


@dataclasses.dataclass
class Implementation:
    name: str  # "released" or "ours"
    version: str
    gtx: Any
    backends: dict[str, Any]  # harness backend name -> backend object (None: embedded default)


def implementation() -> Implementation:
    import gt4py
    import gt4py.next as gtx

    version = getattr(gtx, "__version__", None) or getattr(gt4py, "__version__", "?")
    if hasattr(gtx, "embedded_numpy"):  # ours: embedded is a backend object
        from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend

        backends = {"embedded": gtx.embedded_numpy, "gtfn_cpu": gtx.gtfn_cpu}
        backends["itir_python"] = gtx.itir_python
        # gtfn_gpu's CUDA, run on the CPU under host emulation (ADR 0019)
        emulated = make_gtfn_backend(GTFNConfig(device="emulated"), name="gtfn_gpu_emulated")
        backends["gtfn_gpu_emulated"] = emulated
        return Implementation("ours", version, gtx, backends)
    # released 1.2.x: backend=None is embedded execution; gtx.itir_python is the roundtrip
    backends = {"embedded": None, "gtfn_cpu": gtx.gtfn_cpu, "itir_python": gtx.itir_python}
    return Implementation("released", version, gtx, backends)


def is_program(obj: Any) -> bool:
    from gt4py.next.ffront import decorator  # same public path in both implementations

    return isinstance(obj, decorator.Program)


def definition_of(program: Any) -> Any:
    definition = getattr(program, "definition", None)
    if definition is None:
        definition = program.definition_stage.definition
    return definition


# ------------------------------------------------------------------------------------------
# Parameter types, from the annotations (both implementations keep them on the definition)


@dataclasses.dataclass(frozen=True)
class FieldParam:
    dims: tuple[Any, ...]  # Dimension objects
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class ScalarParam:
    kind: Any  # numpy scalar type, or bool/int/float


@dataclasses.dataclass(frozen=True)
class CollectionParam:
    cls: Any
    members: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class TupleParam:
    items: tuple[Any, ...]


def _dtype(x: Any) -> np.dtype:
    if x is float:
        return np.dtype(np.float64)
    if x is int:
        return np.dtype(np.int32)
    if x is bool:
        return np.dtype(np.bool_)
    return np.dtype(x)


def _dims_of(x: Any) -> tuple[Any, ...]:
    if isinstance(x, (list, tuple)):
        return tuple(x)
    args = typing.get_args(x)
    if args:
        return tuple(args)
    dims = getattr(x, "dims", None)
    if dims is not None:
        return tuple(dims)
    raise TypeError(f"cannot read the dimensions of {x!r}")


def param_type(ann: Any) -> Any:
    """Field / scalar / collection / tuple description of one annotation."""
    if isinstance(ann, type) and (issubclass(ann, np.generic) or ann in (bool, int, float)):
        return ScalarParam(ann)
    # ours: a field annotation object with .dims and .dtype
    if hasattr(ann, "dims") and hasattr(ann, "dtype") and not isinstance(ann, type):
        return FieldParam(_dims_of(ann.dims), _dtype(ann.dtype))
    origin = typing.get_origin(ann)
    if origin is tuple:
        return TupleParam(tuple(param_type(a) for a in typing.get_args(ann)))
    if origin is not None and getattr(origin, "__name__", "") == "Field":  # released
        dims, dtype = typing.get_args(ann)
        return FieldParam(_dims_of(dims), _dtype(dtype))
    if isinstance(ann, type) and (dataclasses.is_dataclass(ann) or hasattr(ann, "_fields")):
        hints = typing.get_type_hints(ann)
        names = (
            [f.name for f in dataclasses.fields(ann)]
            if dataclasses.is_dataclass(ann)
            else list(ann._fields)
        )
        return CollectionParam(ann, {n: param_type(hints[n]) for n in names})
    raise TypeError(f"unsupported parameter annotation {ann!r}")


def program_params(program: Any) -> dict[str, Any]:
    definition = definition_of(program)
    hints = typing.get_type_hints(definition)
    names = list(inspect.signature(definition).parameters)
    return {n: param_type(hints[n]) for n in names}


# ------------------------------------------------------------------------------------------
# What the program source says about domains and outputs (Python ast, no gt4py involved)


@dataclasses.dataclass
class SourceFacts:
    bounds: dict[str, tuple[str, str]]  # scalar name -> (dimension name, "start" | "end")
    outputs: set[str]  # names passed as out=


def source_facts(program: Any) -> SourceFacts:
    definition = definition_of(program)
    facts = SourceFacts({}, set())
    try:
        tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(definition)))
    except (OSError, TypeError, SyntaxError):
        return facts
    env = dict(definition.__globals__)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg == "out":
                for sub in ast.walk(kw.value):
                    if isinstance(sub, ast.Name):
                        facts.outputs.add(sub.id)
                    elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
                        facts.outputs.add(sub.value.id)
            if kw.arg != "domain":
                continue
            for dict_node in ast.walk(kw.value):
                if not isinstance(dict_node, ast.Dict):
                    continue
                for key, value in zip(dict_node.keys, dict_node.values, strict=True):
                    try:
                        dim = eval(compile(ast.Expression(key), "<domain>", "eval"), env)
                        dim_name = dim.value
                    except Exception:
                        continue
                    if not isinstance(value, ast.Tuple) or len(value.elts) != 2:
                        continue
                    for side, elt in zip(("start", "end"), value.elts, strict=True):
                        for sub in ast.walk(elt):
                            if isinstance(sub, ast.Name) and sub.id not in env:
                                facts.bounds.setdefault(sub.id, (dim_name, side))
    return facts


# ------------------------------------------------------------------------------------------
# Arguments


def _seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256(":".join(parts).encode()).digest()[:8], "little")


def dim_size(dim_name: str, sizes: dict[str, int], nlev: int) -> int:
    if dim_name == "K":
        return nlev
    if dim_name == "KHalf":
        return nlev + 1
    if dim_name in sizes:
        return sizes[dim_name]
    return 4  # a dimension the grid does not know (recorded in the report as "extra dims")


def random_array(
    shape: tuple[int, ...], dtype: np.dtype, seed: int, k_axis: int | None
) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        if k_axis is not None and len(shape) == 1:
            return np.arange(shape[0], dtype=dtype)  # a K-only integer field is a level index
        # 0 / 1, and 0 on the last two levels: safe as vertical offsets (as_offset(Koff, f)
        # and as_offset(Koff, f + 1)) on fields with as many levels: k + f(k) stays inside.
        data = rng.integers(0, 2, size=shape).astype(dtype)
        if k_axis is not None:
            index = [slice(None)] * len(shape)
            index[k_axis] = slice(-2, None)
            data[tuple(index)] = 0
        return data
    return (0.5 + rng.random(shape)).astype(dtype)


def scalar_value(
    name: str, kind: Any, attempt: int, facts: SourceFacts, sizes: dict[str, int], nlev: int
) -> Any:
    lname = name.lower()
    if name in facts.bounds:
        dim_name, side = facts.bounds[name]
        size = dim_size(dim_name, sizes, nlev)
        top, bottom = VERTICAL_WINDOWS[attempt] if dim_name in VERTICAL_DIMS else (0, 0)
        value = top if side == "start" else size - bottom
    elif kind is bool or np.dtype(_dtype(kind)).kind == "b":
        return _cast(kind, True)
    elif np.dtype(_dtype(kind)).kind in "iu":
        if lname in ("nlev", "nlevp1") or lname.endswith("nlev"):
            value = nlev
        elif "end" in lname or "elev" in lname or "hi_bound" in lname:
            value = nlev - 1
        elif "start" in lname or "slev" in lname or "lo_bound" in lname:
            value = 1
        elif "order" in lname or "type" in lname or "method" in lname:
            value = 2
        else:
            value = 2
    else:
        value = 0.5 + (_seed(name) % 1000) / 1000.0
    return _cast(kind, value)


def _cast(kind: Any, value: Any) -> Any:
    if kind in (bool, int, float):
        return kind(value)
    return kind(value)


@dataclasses.dataclass
class Arguments:
    kwargs: dict[str, Any]
    fields: dict[str, Any]  # flat key -> field object (for reading back)
    initial: dict[str, np.ndarray]  # flat key -> initial values


def build_arguments(
    gtx: Any,
    qualname: str,
    params: dict[str, Any],
    facts: SourceFacts,
    sizes: dict[str, int],
    nlev: int,
    attempt: int,
) -> Arguments:
    fields: dict[str, Any] = {}
    initial: dict[str, np.ndarray] = {}

    def make(key: str, p: Any, top: str) -> Any:
        if isinstance(p, FieldParam):
            shape = []
            k_axis = None
            for axis, d in enumerate(p.dims):
                if d.value in VERTICAL_DIMS:
                    k_axis = axis
                n = dim_size(d.value, sizes, nlev)
                if d.value in VERTICAL_DIMS and top not in facts.outputs:
                    n += 1  # inputs get one extra level: k+1 reads stay inside
                shape.append(n)
            data = random_array(tuple(shape), p.dtype, _seed(qualname, key), k_axis)
            initial[key] = data.copy()
            field = gtx.as_field(list(p.dims), data)
            fields[key] = field
            return field
        if isinstance(p, ScalarParam):
            return scalar_value(key, p.kind, attempt, facts, sizes, nlev)
        if isinstance(p, CollectionParam):
            values = {n: make(f"{key}.{n}", m, top) for n, m in p.members.items()}
            return p.cls(**values)
        if isinstance(p, TupleParam):
            return tuple(make(f"{key}.{i}", m, top) for i, m in enumerate(p.items))
        raise TypeError(p)

    kwargs = {name: make(name, p, name) for name, p in params.items()}
    return Arguments(kwargs, fields, initial)


def as_numpy(field: Any) -> np.ndarray:
    return np.asarray(field.asnumpy())


# ------------------------------------------------------------------------------------------
# Failures


def failure(exc: BaseException) -> dict[str, Any]:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    etype = type(exc).__name__
    return {
        "type": etype,
        "module": type(exc).__module__,
        "message": first[:500],
        "class": failure_class(etype, first),
        "traceback": "".join(traceback.format_exception(exc))[-4000:],
    }


def failure_class(etype: str, first_line: str) -> str:
    """Exception type plus its first line with names, numbers and paths made generic."""
    msg = re.sub(r"(['\"`]).*?\1", "'_'", first_line)
    msg = re.sub(r"/[\w./-]+", "<path>", msg)
    msg = re.sub(r"\b\d+(\.\d+)?\b", "N", msg)
    msg = re.sub(r"0x[0-9a-f]+", "0x_", msg)
    return f"{etype}: {msg[:160]}"


def is_out_of_bounds(exc: BaseException) -> bool:
    """Whether a narrower vertical window may help: the implementations word an access
    outside a field differently (released: IndexOutOfBounds; others: a domain error)."""
    text = f"{type(exc).__name__} {exc}"
    return bool(re.search(r"bound|domain|cover", text, re.IGNORECASE))


class ProgramTimeout(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float | None):
    if not seconds:
        yield
        return

    def handler(signum, frame):
        raise ProgramTimeout(f"ran longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------------------------------------------------
# Discovery


def discover_modules(site: pathlib.Path) -> list[str]:
    root = site / "icon4py"
    names = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "gtx.program" in text or "@program" in text:
            rel = path.relative_to(site).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


def programs_of(module: Any) -> dict[str, Any]:
    found = {}
    for name, obj in vars(module).items():
        if is_program(obj):
            definition = definition_of(obj)
            if getattr(definition, "__module__", module.__name__) == module.__name__:
                found[name] = obj
    return found


# ------------------------------------------------------------------------------------------
# Running


class Report:
    def __init__(self, path: pathlib.Path, resume: bool) -> None:
        self.path = path
        self.data: dict[str, Any] = {"meta": {}, "modules": {}, "programs": {}}
        if resume and path.exists():
            self.data = json.loads(path.read_text())
            for entry in self.data["programs"].values():
                for result in entry.get("backends", {}).values():
                    if result.get("status") == "running":
                        result["status"] = "crash"
                        result["error"] = {
                            "type": "Crash",
                            "module": "",
                            "message": "process died",
                            "class": "Crash: the process died during the run",
                        }
            self.save()

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True))
        os.replace(tmp, self.path)


def run_one(
    impl: Implementation,
    backend_name: str,
    program: Any,
    qualname: str,
    params: dict[str, Any],
    facts: SourceFacts,
    sizes: dict[str, int],
    nlev: int,
    provider: dict[str, Any],
    fields_dir: pathlib.Path,
    attempts: list[int],
    timeout: float | None,
) -> dict[str, Any]:
    backend = impl.backends[backend_name]
    result: dict[str, Any] = {}
    t0 = time.perf_counter()
    for attempt in attempts:
        try:
            args = build_arguments(impl.gtx, qualname, params, facts, sizes, nlev, attempt)
        except Exception as exc:
            result = {"status": "fail", "stage": "arguments", "error": failure(exc)}
            break
        try:
            with time_limit(timeout):
                prog = program.with_backend(backend)
                prog(**args.kwargs, offset_provider=provider)
        except Exception as exc:
            result = {"status": "fail", "stage": "run", "attempt": attempt, "error": failure(exc)}
            if backend_name == "embedded" and is_out_of_bounds(exc) and attempt != attempts[-1]:
                continue
            break
        # read back
        checksums, changed, arrays = {}, [], {}
        for key, field in args.fields.items():
            final = as_numpy(field)
            checksums[key] = hashlib.sha1(np.ascontiguousarray(final).tobytes()).hexdigest()
            if not np.array_equal(final, args.initial[key], equal_nan=final.dtype.kind == "f"):
                changed.append(key)
                arrays[key] = final
        fields_dir.mkdir(parents=True, exist_ok=True)
        np.savez(fields_dir / f"{qualname}.npz", **arrays)
        result = {"status": "ok", "attempt": attempt, "changed": changed, "checksums": checksums}
        break
    result["seconds"] = round(time.perf_counter() - t0, 3)
    return result


def describe(p: Any) -> Any:
    if isinstance(p, FieldParam):
        return {"field": [d.value for d in p.dims], "dtype": str(p.dtype)}
    if isinstance(p, ScalarParam):
        return {"scalar": getattr(p.kind, "__name__", str(p.kind))}
    if isinstance(p, CollectionParam):
        return {
            "collection": p.cls.__name__,
            "members": {n: describe(m) for n, m in p.members.items()},
        }
    if isinstance(p, TupleParam):
        return {"tuple": [describe(m) for m in p.items]}
    return str(p)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--site",
        default=os.environ.get("ICON4PY_PATH"),
        help="directory holding the icon4py package (default: $ICON4PY_PATH, "
        "else wherever icon4py is importable from)",
    )
    ap.add_argument("--out", required=True, help="results directory")
    ap.add_argument("--tag", default=None, help="report name (default: released / ours)")
    ap.add_argument(
        "--backends",
        default="embedded",
        help="comma list of embedded, gtfn_cpu, itir_python (ours: gtfn_gpu_emulated too)",
    )
    ap.add_argument("--modules", default=None, help="regex on module names")
    ap.add_argument("--programs", default=None, help="regex on 'module:program'")
    ap.add_argument("--nlev", type=int, default=NLEV)
    ap.add_argument("--nx", type=int, default=12)
    ap.add_argument("--ny", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=0, help="seconds per program run")
    ap.add_argument("--resume", action="store_true", help="skip (program, backend) done")
    ap.add_argument(
        "--reference",
        default=None,
        help="a report (e.g. released's) whose embedded vertical window is tried "
        "first, so that both runs see the same domain where possible",
    )
    ap.add_argument("--isolate", action="store_true", help="one child process per module")
    ns = ap.parse_args(argv)

    if ns.site:
        site = pathlib.Path(ns.site).resolve()
        sys.path.insert(0, str(site))
    else:
        spec = importlib.util.find_spec("icon4py")
        if spec is None or not spec.submodule_search_locations:
            print("icon4py is not importable; pass --site or set ICON4PY_PATH", file=sys.stderr)
            return 2
        site = pathlib.Path(next(iter(spec.submodule_search_locations))).parent

    warnings.filterwarnings("ignore", category=UserWarning)
    impl = implementation()
    tag = ns.tag or impl.name
    out = pathlib.Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    backends = [b for b in ns.backends.split(",") if b]
    for b in backends:
        if b not in impl.backends:
            print(f"unknown backend {b!r}; known: {sorted(impl.backends)}", file=sys.stderr)
            return 2
    modules = discover_modules(site)
    if ns.modules:
        modules = [m for m in modules if re.search(ns.modules, m)]

    if ns.isolate:
        base = list(argv if argv is not None else sys.argv[1:])
        base = _strip_option(base, "--modules")
        base = [a for a in base if a not in ("--isolate", "--resume")]
        for i, m in enumerate(modules):
            print(f"[{i + 1}/{len(modules)}] {m}", flush=True)
            cmd = [
                sys.executable,
                *(f"-W{w}" for w in sys.warnoptions),
                __file__,
                *base,
                "--modules",
                f"^{re.escape(m)}$",
                "--resume",
                "--tag",
                tag,
            ]
            if i == 0 and not ns.resume:
                cmd.remove("--resume")
            proc = subprocess.run(cmd)
            if proc.returncode not in (0, 1):
                print(f"  child exited with {proc.returncode}; resuming", flush=True)
                subprocess.run(cmd if "--resume" in cmd else [*cmd, "--resume"])
        return 0

    report = Report(out / f"report-{tag}.json", ns.resume)
    report.data["meta"].update(
        {
            "implementation": impl.name,
            "gt4py_version": impl.version,
            "python": sys.version.split()[0],
            "numpy": np.__version__,
            "site": str(site),
            "nlev": ns.nlev,
            "grid": [ns.nx, ns.ny],
            "modules_discovered": len(discover_modules(site)),
        }
    )

    reference_attempts: dict[str, int] = {}
    if ns.reference:
        ref = json.loads(pathlib.Path(ns.reference).read_text())
        for q, e in ref["programs"].items():
            r = e.get("backends", {}).get("embedded", {})
            if r.get("status") == "ok":
                reference_attempts[q] = r["attempt"]

    g = torus.build_grid(ns.nx, ns.ny, ns.nlev)
    sizes = g.sizes
    provider = None
    for mi, modname in enumerate(modules):
        try:
            module = importlib.import_module(modname)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            report.data["modules"][modname] = {"status": "fail", "error": failure(exc)}
            report.save()
            print(
                f"[{mi + 1}/{len(modules)}] {modname}: import {failure(exc)['class']}", flush=True
            )
            continue
        try:
            progs = programs_of(module)
        except Exception as exc:
            report.data["modules"][modname] = {
                "status": "fail",
                "stage": "discovery",
                "error": failure(exc),
            }
            report.save()
            continue
        report.data["modules"][modname] = {"status": "ok", "programs": sorted(progs)}
        report.save()
        if provider is None:
            dims_module = importlib.import_module("icon4py.model.common.dimension")
            offsets = {
                k: v for k, v in vars(dims_module).items() if isinstance(v, impl.gtx.FieldOffset)
            }
            errors: dict[str, BaseException] = {}
            provider = torus.offset_provider(g, offsets, impl.gtx, errors)
            report.data["meta"]["connectivity_errors"] = {
                k: failure(e)["class"] for k, e in errors.items()
            }
            for k, e in errors.items():
                print(f"connectivity {k}: {failure(e)['class']}", flush=True)
        for pname, program in sorted(progs.items()):
            qualname = f"{modname}:{pname}"
            if ns.programs and not re.search(ns.programs, qualname):
                continue
            entry = report.data["programs"].setdefault(qualname, {"backends": {}})
            try:
                params = program_params(program)
                facts = source_facts(program)
                entry["params"] = {n: describe(p) for n, p in params.items()}
                entry["bounds"] = {k: list(v) for k, v in facts.bounds.items()}
                entry["outputs"] = sorted(facts.outputs)
            except Exception as exc:
                for b in backends:
                    entry["backends"][b] = {
                        "status": "fail",
                        "stage": "signature",
                        "error": failure(exc),
                    }
                report.save()
                print(f"  {qualname}: signature {failure(exc)['class']}", flush=True)
                continue
            embedded_attempt = None
            for b in backends:
                done = entry["backends"].get(b)
                if ns.resume and done and done.get("status") in ("ok", "fail", "crash"):
                    if b == "embedded" and done.get("status") == "ok":
                        embedded_attempt = done.get("attempt")
                    continue
                entry["backends"][b] = {"status": "running"}
                report.save()
                if b != "embedded" and embedded_attempt is None:
                    embedded_attempt = reference_attempts.get(qualname)
                if b == "embedded" or embedded_attempt is None:
                    attempts = list(range(len(VERTICAL_WINDOWS)))
                    if qualname in reference_attempts:
                        first = reference_attempts[qualname]
                        attempts = [first] + [a for a in attempts if a != first]
                else:
                    attempts = [embedded_attempt]
                res = run_one(
                    impl,
                    b,
                    program,
                    qualname,
                    params,
                    facts,
                    sizes,
                    ns.nlev,
                    provider,
                    out / f"fields-{tag}" / b,
                    attempts,
                    ns.timeout,
                )
                if b == "embedded" and res["status"] == "ok":
                    embedded_attempt = res["attempt"]
                entry["backends"][b] = res
                report.save()
                status = res["status"]
                if status != "ok":
                    status += f" ({res['error']['class'][:120]})"
                print(f"  {qualname} [{b}] {status} {res['seconds']}s", flush=True)
    return 0


def _strip_option(args: list[str], opt: str) -> list[str]:
    outl, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == opt:
            skip = True
            continue
        if a.startswith(opt + "="):
            continue
        outl.append(a)
    return outl


if __name__ == "__main__":
    sys.exit(main())
