"""Child process of test_fuzz_backends.py: runs drawn programs on every CPU backend of a stack.

Usage: ``python fuzz_backends_child.py <next|cartesian> <cases.json> <work dir>``. Writes the
generated definitions to ``<work dir>/fuzz_cases_<stack>.py``, runs each case on each backend
and writes ``<work dir>/results.npz`` (outputs) and ``<work dir>/errors.json`` (errors by
case and backend). A signal, a hang or a crash of this process is what the parent reports.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
import warnings

import numpy as np


NEXT_BACKENDS = ("embedded_numpy", "itir_python", "gtfn_cpu", "gtfn_gpu_emulated")
CARTESIAN_BACKENDS = ("debug", "numpy", "gt:cpu_ifirst", "gt:cpu_kfirst", "gt:gpu_emulated")

NEXT_HEADER = """\
import gt4py.next as gtx

I = gtx.Dimension("I")
IF = gtx.Field[gtx.Dims[I], gtx.int32]
FF = gtx.Field[gtx.Dims[I], gtx.float64]
BF = gtx.Field[gtx.Dims[I], gtx.bool]
"""
NEXT_CASE = """

@gtx.field_operator
def case_{n}(a: IF, b: IF, x: FF, y: FF, m: BF) -> tuple[IF, FF]:
    return {int_expr}, {float_expr}
"""
CARTESIAN_HEADER = """\
import numpy as np
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval

IF = gtscript.Field[np.int32]
FF = gtscript.Field[np.float64]
BF = gtscript.Field[np.bool_]
"""
CARTESIAN_CASE = """

def case_{n}(a: IF, b: IF, x: FF, y: FF, m: BF, oi: IF, of: FF):
    with computation(PARALLEL), interval(...):
        oi = {int_expr}
        of = {float_expr}
"""


def _module(stack: str, cases: list[dict], work: pathlib.Path):
    header, template = (
        (NEXT_HEADER, NEXT_CASE) if stack == "next" else (CARTESIAN_HEADER, CARTESIAN_CASE)
    )
    text = header + "".join(
        template.format(n=n, int_expr=c["int"], float_expr=c["float"]) for n, c in enumerate(cases)
    )
    path = work / f"fuzz_cases_{stack}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _inputs(case: dict) -> dict[str, np.ndarray]:
    return {
        "a": np.array(case["a"], np.int32),
        "b": np.array(case["b"], np.int32),
        "x": np.array([float(v) for v in case["x"]], np.float64),
        "y": np.array([float(v) for v in case["y"]], np.float64),
        "m": np.array(case["m"], np.bool_),
    }


def _run_next(module, cases: list[dict], results: dict, errors: dict) -> None:
    import gt4py.next as gtx
    from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend

    backends = {name: getattr(gtx, name, None) for name in NEXT_BACKENDS}
    backends["gtfn_gpu_emulated"] = make_gtfn_backend(
        GTFNConfig(device="emulated"), name="gtfn_gpu_emulated"
    )
    for n, case in enumerate(cases):
        data = _inputs(case)
        for name, backend in backends.items():
            fields = {k: gtx.as_field([module.I], v) for k, v in data.items()}
            oi = gtx.zeros(fields["a"].domain, dtype=gtx.int32)
            of = gtx.zeros(fields["a"].domain, dtype=gtx.float64)
            try:
                getattr(module, f"case_{n}").with_backend(backend)(
                    **fields, out=(oi, of), offset_provider={}
                )
            except Exception as error:
                errors[f"{n}|{name}"] = f"{type(error).__name__}: {str(error)[:300]}"
                continue
            results[f"{n}|{name}|int"] = oi.asnumpy()
            results[f"{n}|{name}|float"] = of.asnumpy()


def _run_cartesian(module, cases: list[dict], results: dict, errors: dict) -> None:
    from gt4py import storage
    from gt4py.cartesian import gtscript

    if "gt:gpu_emulated" not in storage.registered_backends():
        gpu = storage.backend_layout("gt:gpu")
        storage.register_backend("gt:gpu_emulated", layout=gpu.layout, alignment=gpu.alignment)
    for n, case in enumerate(cases):
        data = {k: v.reshape(-1, 1, 1) for k, v in _inputs(case).items()}
        for name in CARTESIAN_BACKENDS:
            oi = np.zeros_like(data["a"])
            of = np.zeros_like(data["x"])
            try:
                stencil = gtscript.stencil(backend=name, definition=getattr(module, f"case_{n}"))
                stencil(**{k: v.copy() for k, v in data.items()}, oi=oi, of=of)
            except Exception as error:
                errors[f"{n}|{name}"] = f"{type(error).__name__}: {str(error)[:300]}"
                continue
            results[f"{n}|{name}|int"] = oi.ravel()
            results[f"{n}|{name}|float"] = of.ravel()


def main() -> None:
    stack, cases_file, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    cases = json.loads(cases_file.read_text())
    warnings.simplefilter("ignore")  # numpy's divide-by-zero / invalid / overflow warnings
    module = _module(stack, cases, work)
    results: dict[str, np.ndarray] = {}
    errors: dict[str, str] = {}
    with np.errstate(all="ignore"):
        (_run_next if stack == "next" else _run_cartesian)(module, cases, results, errors)
    np.savez(work / "results.npz", **results)
    (work / "errors.json").write_text(json.dumps(errors))


if __name__ == "__main__":
    main()
