"""Field annotations users write, decorated operators and programs: no errors expected (but
for the list form `Field[[I], dtype]` under mypy without gt4py's plugin)."""

from __future__ import annotations

from typing import TypeVar, assert_type

import gt4py.next as gtx
from gt4py.next.ffront.decorator import FieldOperator, Program, ScanOperator


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

T = TypeVar("T", gtx.float32, gtx.float64)
IJField = gtx.Field[gtx.Dims[I, J], T]  # a generic alias, substituted below
IField = gtx.Field[[I], gtx.float64]  # the list form: mypy needs the plugin  # M: valid-type
KField = gtx.Field[gtx.Dims[K], gtx.float64]


@gtx.field_operator
def add(
    a: gtx.Field[gtx.Dims[I, J], gtx.float64], b: IJField[gtx.float64]
) -> gtx.Field[gtx.Dims[I, J], gtx.float64]:
    return a + 2.0 * b - a(I + 1) / 3


@gtx.field_operator(backend=gtx.embedded_numpy)
def shifted(a: IField) -> IField:
    # The builtins (where, neighbor_sum, ...) return Any: bind the result to say its type.
    result: IField = gtx.where(a > 0.0, a(I - 1), -a)
    return result


@gtx.program
def run(a: IJField[gtx.float64], out: IJField[gtx.float64]) -> None:
    add(a, a, out=out)


@gtx.program(backend=gtx.embedded_numpy, static_params=("n",))
def run_on(a: IJField[gtx.float64], out: IJField[gtx.float64], n: gtx.int32) -> None:
    add(a, a, out=out, domain={I: (1, n), J: (0, n)})


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def cumulative(carry: float, x: float) -> float:
    return carry + x


# The decorators keep the definition's signature (ADR 0029); a bare annotation means any.
operator: FieldOperator = add
moved: FieldOperator = add.with_backend(gtx.embedded_numpy)
moved_program: Program = run.with_backend(gtx.embedded_numpy)
assert_type(cumulative, ScanOperator)
again: FieldOperator = gtx.field_operator(add.definition, backend=gtx.embedded_numpy)


def later_backend() -> Program:
    return run.with_backend(gtx.gtfn_cpu)
