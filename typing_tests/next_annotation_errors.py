"""What mypy still reports in field annotations (the dimensions are checked by gt4py itself,
when the operator is decorated)."""

from __future__ import annotations

import gt4py.next as gtx


I = gtx.Dimension("I")

Typo = gtx.Field[gtx.Dims[I], flaot64]  # P: reportUndefinedVariable  # E: name-defined
OneArgument = gtx.Field[[I]]  # M: valid-type  # E: misc


def not_a_field(a: gtx.Field[gtx.Dims[I], gtx.float64]) -> int:
    return a  # P: reportReturnType  # E: return-value
