"""`backend=None` is rejected by mypy; at run time it means embedded with a DeprecationWarning (ADR 0025)."""

from __future__ import annotations

import gt4py.next as gtx


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]


@gtx.field_operator(backend=None)  # P: reportArgumentType  # E: call-overload, untyped-decorator
def op(a: IField) -> IField:
    return a


@gtx.program(backend=None)  # P: reportArgumentType  # E: call-overload, untyped-decorator
def prog(a: IField, out: IField) -> None:
    op(a, out=out)


@gtx.scan_operator(axis=I, backend=None)  # P: reportArgumentType  # E: call-overload, untyped-decorator  # fmt: skip
def scan(carry: float, x: float) -> float:
    return carry + x


@gtx.field_operator
def fine(a: IField) -> IField:
    return a


moved = fine.with_backend(None)  # P: reportArgumentType  # E: arg-type
direct = gtx.field_operator(fine.definition, backend=None)  # P: reportArgumentType  # E: call-overload  # fmt: skip
