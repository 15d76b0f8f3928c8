"""Bad calls of gt4py.next programs, run in a child process (a crash cannot take pytest down).

``python _bad_calls.py BACKEND`` runs every case of ``CASES`` on BACKEND (``embedded_numpy``,
``itir_python``, ``gtfn_cpu``) and prints one JSON object: per case the error's class names
(most derived first; ``null``: no error), its message, and whether the output field kept its
values. ``test_next_feature_bad_calls.py`` holds the expectations.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _backend_by_name import backend_by_name  # beside this script (its sys.path[0])

import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, int32, int64
from gt4py.next.experimental import as_offset


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E = gtx.Dimension("E")
V = gtx.Dimension("V")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))
E2V = gtx.FieldOffset("E2V", source=V, target=(E, E2VDim))
IField = Field[Dims[I], float64]


@gtx.field_operator
def laplacian(a: IField) -> IField:
    return a(Ioff[1]) + a(Ioff[-1]) - 2.0 * a


@gtx.program
def interior(a: IField, out: IField):
    laplacian(a, out=out[1:-1])


@gtx.program
def up_to(a: IField, out: IField, n: int32):
    laplacian(a, out=out, domain={I: (1, n)})


@gtx.program
def between(a: IField, out: IField, lo: int64, hi: int64):
    laplacian(a, out=out, domain={I: (lo, hi)})


@gtx.field_operator
def scaled(a: IField, s: int32) -> IField:
    return a * gtx.astype(s, float64)


@gtx.program
def scale(a: IField, s: int32, out: IField):
    scaled(a, s, out=out)


@gtx.field_operator
def edge_sum(v: Field[Dims[V], float64]) -> Field[Dims[E], float64]:
    return v(E2V[0]) + v(E2V[1])


@gtx.program
def edges(v: Field[Dims[V], float64], out: Field[Dims[E], float64]):
    edge_sum(v, out=out)


@gtx.field_operator
def above(a: Field[Dims[K], float64]) -> Field[Dims[K], float64]:
    return a(Koff[1])


@gtx.program
def shift_up(a: Field[Dims[K], float64], out: Field[Dims[K], float64]):
    above(a, out=out[:-1])


@gtx.field_operator
def guarded_right(a: IField, m: Field[Dims[I], bool]) -> IField:
    return gtx.where(m, a(Ioff[1]), 0.0)


@gtx.program
def guarded(a: IField, m: Field[Dims[I], bool], out: IField):
    guarded_right(a, m, out=out)


@gtx.field_operator
def moved(a: Field[Dims[K], float64], k: Field[Dims[K], int32]) -> Field[Dims[K], float64]:
    return a(as_offset(Koff, k))


@gtx.program
def dynamic(a: Field[Dims[K], float64], k: Field[Dims[K], int32], out: Field[Dims[K], float64]):
    moved(a, k, out=out)


@gtx.field_operator
def plus_one(a: IField) -> IField:
    return a + 1.0


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def running_sum(state: float64, x: float64) -> float64:
    return state + x


TABLE = np.array([[0, 1], [1, 2], [2, 3]], dtype=np.int32)


def field(n: int, dim: gtx.Dimension = I, dtype: Any = np.float64, start: int = 0) -> Any:
    return gtx.as_field(gtx.domain({dim: (start, start + n)}), np.arange(n, dtype=dtype) + 1.0)


def e2v(table: np.ndarray = TABLE, domain: Any = (E, E2VDim), codomain: Any = V) -> Any:
    return gtx.as_connectivity(list(domain), codomain, table)


def read_only(value: Any) -> Any:
    """``value`` (a field) with its array made read-only."""
    value.ndarray.setflags(write=False)
    return value


def between_case(lo: int, hi: int) -> Case:
    return (between, lambda: {"a": field(10), "out": field(10), "lo": lo, "hi": hi}, I_PROVIDER)


def plus_one_case(domain: Any) -> Case:
    return (plus_one, lambda: {"a": field(10), "out": field(10), "domain": domain}, dict)


# name -> (program, arguments, offset provider); the output is the argument named `out`
Case = tuple[Any, Callable[[], dict[str, Any]], Callable[[], Any]]
I_PROVIDER = lambda: {"Ioff": I}  # noqa: E731
CASES: dict[str, Case] = {
    "fine": (interior, lambda: {"a": field(10), "out": field(10)}, I_PROVIDER),
    "input_too_small": (interior, lambda: {"a": field(8), "out": field(10)}, I_PROVIDER),
    "input_starts_late": (
        interior,
        lambda: {"a": field(10, start=1), "out": field(10)},
        I_PROVIDER,
    ),
    "domain_past_output": (
        up_to,
        lambda: {"a": field(10), "out": field(10), "n": 20},
        I_PROVIDER,
    ),
    "domain_past_input": (
        up_to,
        lambda: {"a": field(9), "out": field(12), "n": 10},
        I_PROVIDER,
    ),
    "k_too_short": (
        shift_up,
        lambda: {"a": field(5, K), "out": field(10, K)},
        lambda: {"Koff": K},
    ),
    "float32_for_float64": (
        interior,
        lambda: {"a": field(10, dtype=np.float32), "out": field(10)},
        I_PROVIDER,
    ),
    "wrong_dims": (interior, lambda: {"a": field(10, J), "out": field(10)}, I_PROVIDER),
    "numpy_array_for_field": (
        interior,
        lambda: {"a": np.zeros(10), "out": field(10)},
        I_PROVIDER,
    ),
    "scalar_for_field": (interior, lambda: {"a": 1.0, "out": field(10)}, I_PROVIDER),
    "str_for_int": (scale, lambda: {"a": field(10), "s": "16", "out": field(10)}, dict),
    "float_for_int": (scale, lambda: {"a": field(10), "s": 9.7, "out": field(10)}, dict),
    "int_out_of_range": (scale, lambda: {"a": field(10), "s": 2**40, "out": field(10)}, dict),
    "int64_scalar_for_int32": (
        scale,
        lambda: {"a": field(10), "s": np.int64(3), "out": field(10)},
        dict,
    ),
    "offset_along_wrong_dim": (
        interior,
        lambda: {"a": field(10), "out": field(10)},
        lambda: {"Ioff": J},
    ),
    "table_fine": (edges, lambda: {"v": field(4, V), "out": field(3, E)}, lambda: {"E2V": e2v()}),
    "table_points_outside": (
        edges,
        lambda: {"v": field(3, V), "out": field(3, E)},
        lambda: {"E2V": e2v()},
    ),
    "table_too_few_rows": (
        edges,
        lambda: {"v": field(4, V), "out": field(5, E)},
        lambda: {"E2V": e2v()},
    ),
    "table_too_few_columns": (
        edges,
        lambda: {"v": field(4, V), "out": field(3, E)},
        lambda: {"E2V": e2v(TABLE[:, :1].copy())},
    ),
    "table_of_wrong_dims": (
        edges,
        lambda: {"v": field(4, V), "out": field(3, E)},
        lambda: {"E2V": e2v(domain=(V, E2VDim), codomain=E)},
    ),
    "table_missing": (edges, lambda: {"v": field(4, V), "out": field(3, E)}, dict),
    "dimension_for_table": (
        edges,
        lambda: {"v": field(4, V), "out": field(3, E)},
        lambda: {"E2V": V},
    ),
    "guarded_read_unused": (
        guarded,
        lambda: {
            "a": field(5),
            "m": gtx.as_field([I], np.array([1, 1, 1, 1, 0], dtype=bool)),
            "out": field(5),
        },
        I_PROVIDER,
    ),
    "guarded_read_used": (
        guarded,
        lambda: {"a": field(5), "m": gtx.as_field([I], np.ones(5, dtype=bool)), "out": field(5)},
        I_PROVIDER,
    ),
    "as_offset_inside": (
        dynamic,
        lambda: {
            "a": field(5, K),
            "k": gtx.as_field([K], np.array([1, 1, 0, -1, -4], dtype=np.int32)),
            "out": field(5, K),
        },
        lambda: {"Koff": K},
    ),
    "as_offset_outside": (
        dynamic,
        lambda: {
            "a": field(5, K),
            "k": gtx.as_field([K], np.array([1, 1, 0, 3, 0], dtype=np.int32)),
            "out": field(5, K),
        },
        lambda: {"Koff": K},
    ),
    "operator_out_of_other_dims": (plus_one, lambda: {"a": field(3), "out": field(3, J)}, dict),
    "operator_out_of_other_dtype": (
        plus_one,
        lambda: {"a": field(3), "out": field(3, dtype=np.float32)},
        dict,
    ),
    "operator_out_numpy": (plus_one, lambda: {"a": field(3), "out": np.zeros(3)}, dict),
    "operator_out_tuple": (plus_one, lambda: {"a": field(3), "out": (field(3),)}, dict),
    # 64-bit indices (issue 25): bounds and sizes that overflow int64 are errors everywhere,
    # before anything runs (the C++ size of an empty range wrapped and it wrote outside)
    "domain_size_overflows_empty": between_case(2, -(2**63)),
    "domain_size_overflows_empty_by_one": between_case(2, -(2**63) + 1),
    "domain_size_overflows": between_case(-(2**63), 2**63 - 1),
    "domain_empty_upside_down": between_case(2**63 - 1, -(2**63)),
    "domain_huge_past_output": between_case(0, 2**62),
    "domain_huge_before_output": between_case(-(2**62), 5),
    "domain_at_int64_min": between_case(-(2**63), -(2**63) + 5),
    "domain_empty_at_int64_max": between_case(2**63 - 1, 2**63 - 1),
    "domain_empty_reversed": between_case(7, 3),
    "operator_domain_overflows_empty": plus_one_case({I: (2, -(2**63))}),
    "operator_domain_beyond_int64": plus_one_case({I: (0, 2**64)}),
    "operator_domain_size_overflows": plus_one_case({I: (-(2**63), 2**63 - 1)}),
    "operator_domain_huge": plus_one_case({I: (0, 2**62)}),
    # read-only arrays: an output is an error naming it, an input is fine
    "read_only_out": (
        interior,
        lambda: {"a": field(10), "out": read_only(field(10))},
        I_PROVIDER,
    ),
    "read_only_input": (
        interior,
        lambda: {"a": read_only(field(10)), "out": field(10)},
        I_PROVIDER,
    ),
    "operator_read_only_out": (
        plus_one,
        lambda: {"a": field(3), "out": read_only(field(3))},
        dict,
    ),
    "scan_out_without_axis": (
        running_sum,
        lambda: {"x": gtx.as_field([I, K], np.ones((3, 4))), "out": field(3)},
        dict,
    ),
}


def run_case(backend: Any, name: str) -> dict[str, Any]:
    program, make_args, make_provider = CASES[name]
    kwargs = make_args()
    before = _values(kwargs["out"])
    try:
        program.with_backend(backend)(**kwargs, offset_provider=make_provider())
    except Exception as error:
        return {
            "error": [c.__name__ for c in type(error).__mro__],
            "message": str(error),
            "untouched": bool(np.array_equal(_values(kwargs["out"]), before)),
        }
    return {"error": None, "result": _values(kwargs["out"]).tolist()}


def _values(out: Any) -> np.ndarray:
    """A copy of what ``out`` holds (fields, tuples of them, or a bad ``out`` itself)."""
    if isinstance(out, tuple):
        return np.stack([_values(o) for o in out])
    return np.array(out.asnumpy() if hasattr(out, "asnumpy") else out, copy=True)


def main() -> None:
    backend = backend_by_name(sys.argv[1])
    names = sys.argv[2:] or list(CASES)
    print(json.dumps({name: run_case(backend, name) for name in names}))


if __name__ == "__main__":
    main()
