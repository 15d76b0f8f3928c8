"""Calls of programs and field operators are checked against their definitions (ADRs 0029, 0045).

`# E:` marks mypy's error codes with gt4py's plugin: every call form is checked (the overloads
of `__call__` make each a `call-overload`). `# P:` marks pyright's rules and `# M:` mypy's codes
without the plugin where they differ from `# E:`: without a plugin a call that also passes
`out=`, `domain=`, `offset_provider=` or `enable_jit=` is checked for those keywords only (no
`ParamSpec` can add keywords, ADR 0045), so such calls are written with `with_call_options(...)`
to be checked everywhere; and a Python `float` for a `gtx.float64` parameter is an error there
(gt4py accepts it: annotate the parameter `float`, or pass `gtx.float64(...)`).
tests/next_tests/test_next_typing.py runs all three.
"""

from __future__ import annotations

from typing import Any, assert_type

import gt4py.next as gtx
from gt4py.next.ffront.decorator import Program


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]
OFFSETS: dict[str, Any] = {}


@gtx.field_operator
def scale(a: IField, factor: float) -> IField:
    return a * factor


@gtx.field_operator
def scale64(a: IField, factor: gtx.float64) -> IField:
    return a * factor


@gtx.field_operator
def twice(a: IField) -> IField:
    # nested calls return the operator's result
    return scale(a, 2.0) + scale64(a, gtx.float64(1.0))


@gtx.field_operator
def thrice(a: IField) -> IField:
    return scale64(a, 3.0)  # P: reportArgumentType  # M: call-overload, no-any-return


@gtx.program
def run(a: IField, factor: float, out: IField) -> None:
    scale(a, factor, out=out)
    scale(a, factor, out=out, domain={I: (0, 4)})


@gtx.program(backend=gtx.embedded_numpy, static_params=("n",))
def run_n(a: IField, n: gtx.int32, out: IField) -> None:
    twice(a, out=out, domain={I: (0, n)})


@gtx.scan_operator(axis=I, forward=True, init=0.0)
def total(carry: float, x: float) -> float:
    return carry + x


def calls(a: IField, out: IField) -> None:
    # correct: the call forms of released gt4py
    run(a, 2.0, out)
    run(a, 2, out=out)
    run(a, 2.0, out, offset_provider=OFFSETS)
    run(a, factor=2.0, out=out, offset_provider={}, enable_jit=False)
    run(a, 2.0, out, enable_jit=True)
    run_n(a, 4, out, offset_provider={})
    run_n(a, gtx.int32(4), out)
    run.with_backend(gtx.embedded_numpy)(a, 2.0, out)
    run.with_compilation_options(enable_jit=False).compile(offset_provider={})(a, 2.0, out)
    result: IField = scale(a, 2.0)
    scale(a, 2.0, out=out)
    scale(a, 2.0, out=out, domain={I: (0, 4)}, offset_provider={})
    scale(a, factor=2.0, offset_provider={})
    scale64(a, gtx.float64(2.0), out=out)
    total(a, out=out)
    assert_type(scale(a, 2.0), IField)
    assert_type(scale(a, 2.0, out=out), None)
    bound: Program = run.with_bound_args(factor=2.0)  # its calls are not checked
    bound(a, out=out)
    del result
    # the call's keywords given once: the arguments are checked by every type checker
    run.with_call_options(offset_provider=OFFSETS)(a, 2.0, out)
    run.with_call_options(offset_provider={}, enable_jit=False)(a, factor=2.0, out=out)
    scale.with_call_options(out=out, domain={I: (0, 4)}, offset_provider={})(a, 2.0)
    scaled: IField = scale.with_call_options(offset_provider={})(a, factor=2.0)
    assert_type(scale.with_call_options(out=out)(a, 2.0), None)
    run_n.with_call_options(offset_provider={})(a, 4, out)  # P: reportArgumentType  # M: arg-type
    scale64.with_call_options(out=out)(a, 2.0)  # P: reportArgumentType  # M: arg-type
    del scaled

    # a wrong type
    run(a, "2", out)  # P: reportArgumentType  # E: call-overload
    run(a, "2", out, offset_provider={})  # M: none  # E: call-overload
    run.with_call_options(offset_provider={})(a, "2", out)  # P: reportArgumentType  # E: arg-type
    scale(a, "2")  # P: reportArgumentType  # E: call-overload
    scale(a, "2", out=out)  # M: none  # E: call-overload
    scale.with_call_options(out=out)(a, "2")  # P: reportArgumentType  # E: arg-type
    # a missing argument
    run(a, 2.0)  # P: reportCallIssue  # E: call-overload
    run(a, 2.0, offset_provider={})  # M: none  # E: call-overload
    run.with_call_options(offset_provider={})(a, 2.0)  # P: reportCallIssue  # E: call-arg
    scale(a)  # P: reportCallIssue  # E: call-overload
    scale(a, out=out)  # M: none  # E: call-overload
    scale.with_call_options(out=out)(a)  # P: reportCallIssue  # E: call-arg
    # an extra argument
    run(a, 2.0, out, out)  # P: reportCallIssue  # E: call-overload
    run(a, 2.0, out, n=1, offset_provider={})  # M: none  # E: call-overload, call-overload
    run.with_call_options(offset_provider={})(a, 2.0, out, n=1)  # P: reportCallIssue  # E: call-arg
    scale(a, 2.0, 3.0)  # P: reportCallIssue  # E: call-overload
    scale(a, 2.0, 3.0, out=out)  # M: none  # E: call-overload
    scale.with_call_options(out=out)(a, 2.0, 3.0)  # P: reportCallIssue  # E: call-arg
