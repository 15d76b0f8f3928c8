"""Property (issue 13): for random field extents, domains and shifts a compiled backend gives
embedded's result or embedded's error class, never a crash or a different answer (where
embedded rejects a guarded read conservatively, the point-by-point ``reference`` decides).

Run as ``python _extent_property.py BACKEND EXAMPLES`` in a child process (a crash fails the
calling test instead of killing pytest); exits non-zero with hypothesis' falsifying example.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from _backend_by_name import backend_by_name  # beside this script (its sys.path[0])
from hypothesis import given, settings, strategies as st

import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, int64


I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))
F2 = Field[Dims[I, K], float64]


@gtx.field_operator
def left_right(a: F2) -> F2:
    return a(Ioff[-1]) + 2.0 * a(Ioff[2])


@gtx.field_operator
def up_down(a: F2, b: F2) -> F2:
    return a(Koff[1]) - b(Koff[-2])


@gtx.field_operator
def guarded(a: F2, b: F2) -> F2:
    return gtx.where(a > 0.5, b(Ioff[1]), a(Koff[-1]))


@gtx.program
def p_left_right(a: F2, b: F2, out: F2, i0: int64, i1: int64, k0: int64, k1: int64):
    left_right(a, out=out, domain={I: (i0, i1), K: (k0, k1)})


@gtx.program
def p_up_down(a: F2, b: F2, out: F2, i0: int64, i1: int64, k0: int64, k1: int64):
    up_down(a, b, out=out, domain={I: (i0, i1), K: (k0, k1)})


@gtx.program
def p_guarded(a: F2, b: F2, out: F2, i0: int64, i1: int64, k0: int64, k1: int64):
    guarded(a, b, out=out, domain={I: (i0, i1), K: (k0, k1)})


PROGRAMS = [p_left_right, p_up_down, p_guarded]
PROVIDER = {"Ioff": I, "Koff": K}


def make(start_i: int, n_i: int, start_k: int, n_k: int, seed: int) -> Any:
    data = np.random.default_rng(seed).random((n_i, n_k))
    return gtx.as_field(
        gtx.domain({I: (start_i, start_i + n_i), K: (start_k, start_k + n_k)}), data
    )


def outcome(
    program: Any, backend: Any, fields: list[tuple[int, int, int, int]], bounds: Any
) -> Any:
    a, b, out = (make(*spec, seed=i) for i, spec in enumerate(fields))
    try:
        program.with_backend(backend)(a, b, out, *bounds, offset_provider=PROVIDER)
    except Exception as error:
        return type(error).__name__
    return out.asnumpy()


def reference(program: Any, fields: list[tuple[int, int, int, int]], bounds: Any) -> Any:
    """The program point by point: a value is needed only where it is used (the semantics
    embedded implements with whole-field operations, and conservatively: where a ``where``
    condition reaches beyond the output, embedded may reject a call this accepts)."""
    a, b, out = (make(*spec, seed=i) for i, spec in enumerate(fields))
    arrays = {"a": a, "b": b}

    def at(name: str, i: int, k: int) -> float:
        field = arrays[name]
        (i0, i1), (k0, k1) = ((r.start, r.stop) for r in field.domain.ranges)
        if not (i0 <= i < i1 and k0 <= k < k1):
            raise LookupError
        return float(field.asnumpy()[i - i0, k - k0])

    i_lo, i_hi, k_lo, k_hi = bounds
    if not all(_fits(lo, hi) for lo, hi in ((i_lo, i_hi), (k_lo, k_hi))):
        return "DomainError"  # outside the 64-bit index space (issue 25)
    (oi0, oi1), (ok0, ok1) = ((r.start, r.stop) for r in out.domain.ranges)
    if not (oi0 <= i_lo and i_hi <= oi1 and ok0 <= k_lo and k_hi <= ok1):
        return "DomainError"
    result = out.asnumpy().copy()
    try:
        for i in range(i_lo, i_hi):
            for k in range(k_lo, k_hi):
                if program is p_left_right:
                    value = at("a", i - 1, k) + 2.0 * at("a", i + 2, k)
                elif program is p_up_down:
                    value = at("a", i, k + 1) - at("b", i, k - 2)
                else:
                    value = at("b", i + 1, k) if at("a", i, k) > 0.5 else at("a", i, k - 1)
                result[i - oi0, k - ok0] = value
    except LookupError:
        return "DomainError"
    return result


def _fits(lo: int, hi: int) -> bool:
    return all(-(2**63) <= v < 2**63 for v in (lo, hi, hi - lo))


# Domains at the ends of int64 (issue 25): the empty ones overflow (an error everywhere), the
# others lie far outside every field.
EXTREME = [
    (2, -(2**63)),
    (2, -(2**63) + 1),
    (-(2**63), 2**63 - 1),
    (2**63 - 1, -(2**63)),
    (0, 2**62),
    (-(2**62), 3),
    (-(2**63), -(2**63) + 4),
    (2**63 - 5, 2**63 - 1),
]


def check(backend: Any, examples: int) -> None:
    @settings(max_examples=examples, database=None, deadline=None)
    @given(
        program=st.sampled_from(PROGRAMS),
        fields=st.lists(
            st.tuples(st.integers(-3, 3), st.integers(0, 9), st.integers(-3, 3), st.integers(0, 9)),
            min_size=3,
            max_size=3,
        ),
        # non-empty domains: with no point to compute, embedded still checks some reads per
        # dimension and the compiled backends check nothing (ADR 0017)
        i=st.one_of(
            st.tuples(st.integers(-4, 10), st.integers(1, 8)).map(lambda t: (t[0], t[0] + t[1])),
            st.sampled_from(EXTREME),
        ),
        k=st.tuples(st.integers(-4, 10), st.integers(1, 8)).map(lambda t: (t[0], t[0] + t[1])),
    )
    def agrees(program: Any, fields: list[tuple[int, int, int, int]], i: Any, k: Any) -> None:
        bounds = (*i, *k)
        embedded = outcome(program, gtx.embedded_numpy, fields, bounds)
        got = outcome(program, backend, fields, bounds)
        # embedded decides; where it rejects conservatively, the point-by-point semantics does
        expected = reference(program, fields, bounds) if isinstance(embedded, str) else embedded
        if isinstance(expected, str) or isinstance(got, str):
            assert isinstance(got, str) and got == expected, (got, expected, embedded)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-14)

    agrees()


if __name__ == "__main__":
    check(backend_by_name(sys.argv[1]), int(sys.argv[2]))
