"""Fields that share memory (issue 25, ADR 0027): every backend gives embedded's result.

Embedded computes an operator call's whole result before assigning it, so a call reads its
inputs as they were before it; a later call reads what earlier ones wrote. The compiled
backends write point by point: they copy an input that shares memory with an output where
that matters, compute a statement that reads its own output elsewhere into a temporary first,
and run a call embedded (with a warning) where no copy gives embedded's result.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import Dims, Field, common, float64


pytestmark = pytest.mark.ours_only  # released gt4py's compiled backends disagree here

I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E = gtx.Dimension("E")
V = gtx.Dimension("V")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))
E2V = gtx.FieldOffset("E2V", source=V, target=(E, E2VDim))
IField = Field[Dims[I], float64]


@gtx.field_operator
def around(a: IField) -> IField:
    return a(Ioff[-1]) + 2.0 * a(Ioff[1])


@gtx.program
def in_place(a: IField):
    around(a, out=a[1:-1])


@gtx.program
def two(a: IField, out: IField):
    around(a, out=out[1:-1])


@gtx.field_operator
def pair(a: IField) -> tuple[IField, IField]:
    return a(Ioff[1]) * 2.0, a(Ioff[-1]) + 1.0


@gtx.program
def split(a: IField, b: IField):
    pair(a, out=(a[1:-1], b[1:-1]))


@gtx.program
def back_and_forth(a: IField, b: IField):
    around(a, out=b[1:-1])
    around(b, out=a[1:-1])


@gtx.program
def chain(a: IField, b: IField, c: IField, d: IField):
    around(a, out=b[1:-1])
    around(c, out=d[1:-1])


@gtx.field_operator
def doubled_and_next(a: IField) -> tuple[IField, IField]:
    return a * 2.0, a + 1.0


@gtx.program
def both_outputs(a: IField, b: IField, c: IField):
    doubled_and_next(a, out=(b, c))


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def running_sum(state: float64, x: float64) -> float64:
    return state + x


@gtx.program
def scan_in_place(a: Field[Dims[K], float64]):
    running_sum(a, out=a)


@gtx.field_operator
def edge_sum(v: Field[Dims[V], float64]) -> Field[Dims[E], float64]:
    return v(E2V[0]) + 3.0 * v(E2V[1])


@gtx.program
def edges(v: Field[Dims[V], float64], out: Field[Dims[E], float64]):
    edge_sum(v, out=out)


TABLE = np.array([[1, 0], [2, 1], [3, 2]], dtype=np.int32)
P = {"Ioff": I}


def squares(n: int = 10) -> Any:
    return gtx.as_field([I], np.arange(n, dtype=np.float64) ** 2)


def view(array: np.ndarray, dim: gtx.Dimension, start: int = 0) -> Any:
    """A field over ``array`` itself (no copy), starting at ``start``."""
    return common._field(array, domain=gtx.domain({dim: (start, start + array.shape[0])}))


# case -> run(backend) returning the arrays to compare (fresh data on each call)
def _op_out_is_input(b: Any) -> list[Any]:
    a = squares()
    around.with_backend(b)(a, out=a, domain={I: (1, 9)}, offset_provider=P)
    return [a.asnumpy()]


def _program_in_place(b: Any) -> list[Any]:
    a = squares()
    in_place.with_backend(b)(a, offset_provider=P)
    return [a.asnumpy()]


def _same_field_twice(b: Any) -> list[Any]:
    a = squares()
    two.with_backend(b)(a, a, offset_provider=P)
    return [a.asnumpy()]


def _output_a_view_of_the_input(b: Any) -> list[Any]:
    a = squares()
    two.with_backend(b)(a, a[2:], offset_provider=P)
    return [a.asnumpy()]


def _shifted_views(b: Any) -> list[Any]:
    base = np.arange(12, dtype=np.float64) ** 2
    # index i of `a` is base[i], index i of `out` is base[i + 2]: the same memory, moved
    two.with_backend(b)(view(base[0:10], I), view(base[2:12], I), offset_provider=P)
    return [base]


def _disjoint_views(b: Any) -> list[Any]:
    base = np.arange(12, dtype=np.float64) ** 2
    two.with_backend(b)(view(base[0:6], I), view(base[6:12], I), offset_provider=P)
    return [base]


def _reads_what_an_earlier_call_wrote(b: Any) -> list[Any]:
    x, y, z = squares(), squares() + 1.0, squares() * 3.0
    chain.with_backend(b)(x, y, y, z, offset_provider=P)
    return [x.asnumpy(), y.asnumpy(), z.asnumpy()]


def _scan_in_place(b: Any) -> list[Any]:
    a = gtx.as_field([K], np.arange(6, dtype=np.float64) + 1.0)
    scan_in_place.with_backend(b)(a, offset_provider={})
    return [a.asnumpy()]


def _table_read(b: Any) -> list[Any]:
    base = np.arange(4, dtype=np.float64) + 1.0
    provider = {"E2V": gtx.as_connectivity([E, E2VDim], V, TABLE)}
    edges.with_backend(b)(view(base, V), view(base[1:4], E), offset_provider=provider)
    return [base]


def _foreign_owners(b: Any) -> list[Any]:
    # two np.frombuffer calls over one buffer: different owning objects, the same memory
    buffer = bytearray((np.arange(10, dtype=np.float64) ** 2).tobytes())
    a = view(np.frombuffer(buffer), I)
    out = view(np.frombuffer(buffer)[2:], I)
    two.with_backend(b)(a, out, offset_provider=P)
    return [np.frombuffer(buffer).copy()]


def _strided_view(b: Any) -> list[Any]:
    base = np.arange(12, dtype=np.float64) ** 2
    strided = np.lib.stride_tricks.as_strided(base[2:], shape=(10,), strides=(8,))
    two.with_backend(b)(view(base[:10], I), view(strided, I), offset_provider=P)
    return [base]


def _two_outputs_one_field(b: Any) -> list[Any]:
    a, out = squares(), squares()
    both_outputs.with_backend(b)(a, out, out, offset_provider=P)  # the later output remains
    return [out.asnumpy()]


CASES: dict[str, Callable[[Any], list[Any]]] = {
    "foreign_owners": _foreign_owners,
    "strided_view": _strided_view,
    "two_outputs_one_field": _two_outputs_one_field,
    "op_out_is_input": _op_out_is_input,
    "program_in_place": _program_in_place,
    "same_field_twice": _same_field_twice,
    "output_a_view_of_the_input": _output_a_view_of_the_input,
    "shifted_views": _shifted_views,
    "disjoint_views": _disjoint_views,
    "reads_what_an_earlier_call_wrote": _reads_what_an_earlier_call_wrote,
    "scan_in_place": _scan_in_place,
    "table_read": _table_read,
}


def _expected(case: str) -> list[Any]:
    return CASES[case](gtx.embedded_numpy)


def test_the_cases_alias_on_embedded():
    """Each case really shares memory: its embedded result differs from a point-by-point
    in-place update (what the compiled backends computed before issue 25)."""
    a = squares()
    data = a.asnumpy().copy()
    for i in range(1, 9):  # in place, point by point
        data[i] = data[i - 1] + 2.0 * data[i + 1]
    assert not np.array_equal(_expected("op_out_is_input")[0], data)


# gtfn runs the two calls of `chain` in one loop nest (their fields differ by name), where the
# second call would read `c` before the first wrote all of `b`: that call runs embedded
FALLBACK_WHERE_FUSED = {"reads_what_an_earlier_call_wrote"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_shared_memory_gives_embedded_result(backend: Any, case: str):
    expected = _expected(case)
    fuses = getattr(getattr(backend, "compiler", None), "fuses_statements", False)
    if case in FALLBACK_WHERE_FUSED and fuses:
        with pytest.warns(UserWarning, match="share memory"):
            got = CASES[case](backend)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # none of these needs the embedded fallback
            got = CASES[case](backend)
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-15)


# programs where no copy gives embedded's result for these arguments: run embedded
FALLBACKS: dict[str, tuple[Any, Callable[[], tuple[Any, ...]]]] = {
    # the first call reads `a` at shifted points while writing `b` (the same memory), the
    # second reads what the first wrote: a copy of `a` hides that, none spoils the first
    "back_and_forth": (back_and_forth, lambda: (squares(), None)),
    # both outputs of one call share memory, one of them read at shifted points
    "split": (split, lambda: (squares(), None)),
}


@pytest.mark.parametrize("case", sorted(FALLBACKS))
def test_no_copy_gives_embedded_result_so_the_call_runs_embedded(backend: Any, case: str):
    program, make = FALLBACKS[case]
    expected, _ = make()
    program.with_backend(gtx.embedded_numpy)(expected, expected, offset_provider=P)
    got, _ = make()
    if backend is gtx.embedded_numpy:
        program.with_backend(backend)(got, got, offset_provider=P)
    else:
        with pytest.warns(UserWarning, match="share memory"):
            program.with_backend(backend)(got, got, offset_provider=P)
    np.testing.assert_allclose(got.asnumpy(), expected.asnumpy(), rtol=1e-15)
    # distinct fields run compiled, without a warning
    x, y = squares(), squares()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        program.with_backend(backend)(x, y, offset_provider=P)


def test_two_outputs_sharing_memory_at_different_points(backend: Any):
    """Both outputs of one call over one buffer, moved by two: embedded writes ``b`` whole,
    then ``c``; a nest writing both point by point would leave some of ``b``'s values."""

    def run(b: Any) -> np.ndarray:
        base = np.zeros(12)
        both_outputs.with_backend(b)(
            squares(), view(base[0:10], I), view(base[2:12], I), offset_provider=P
        )
        return base

    expected = run(gtx.embedded_numpy)
    fuses = getattr(getattr(backend, "compiler", None), "fuses_statements", False)
    if fuses:
        with pytest.warns(UserWarning, match="'b' and 'c' share memory"):
            got = run(backend)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = run(backend)
    np.testing.assert_array_equal(got, expected)
