"""Arguments that share memory, read-only outputs, extreme origins and domains, and externals
keyed bit for bit (issue 25, ADR 0027), on every backend.

A stencil whose output is the same array as an input (or overlaps it) computes what it
computes with distinct arrays: the input is copied first. (The frontend forbids reading a
field at an offset where the same computation writes it; two arguments that are one array
get past that check, and the backends disagreed.)
"""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian._errors import StencilArgumentError
from gt4py.cartesian.gtscript import FORWARD, PARALLEL, computation, interval


F = gtscript.Field[np.float64]
SHAPE = (8, 3, 2)
_STENCILS: dict[tuple[str, str], object] = {}


def _built(definition, backend: str):
    """One stencil per definition and backend for the whole module (a C++ build compiles)."""
    key = (definition.__name__, backend)
    if key not in _STENCILS:
        _STENCILS[key] = gtscript.stencil(backend=backend, definition=definition)
    return _STENCILS[key]


def around(a: F, out: F, scale: float):
    with computation(PARALLEL), interval(...):
        out = a[-1, 0, 0] + scale * a[1, 0, 0]


def _around(backend: str):
    return _built(around, backend)


def _data(shape=SHAPE) -> np.ndarray:
    return (np.arange(np.prod(shape), dtype=np.float64) ** 2).reshape(shape)


CALL = {"origin": (1, 0, 0), "domain": (SHAPE[0] - 2, SHAPE[1], SHAPE[2])}


def _distinct(backend: str, a: np.ndarray, out: np.ndarray, **call) -> np.ndarray:
    """What the call writes into ``out`` when ``a`` and ``out`` are distinct arrays."""
    a, out = a.copy(), out.copy()
    _around(backend)(a, out, 2.0, **(call or CALL))
    return out


@pytest.mark.parametrize("validate_args", [True, False])
def test_output_is_the_input(backend, validate_args):
    x = _data()
    expected = _distinct(backend, x, x)
    _around(backend)(x, x, 2.0, validate_args=validate_args, **CALL)
    np.testing.assert_array_equal(x, expected)


def test_output_overlaps_the_input_shifted(backend):
    base = _data((10, 3, 2))
    a, out = base[0:8], base[2:10]  # out[i] is a[i + 2]
    expected = _distinct(backend, a, out)
    _around(backend)(a, out, 2.0, **CALL)
    np.testing.assert_array_equal(base[2:10], expected)


def test_disjoint_views_of_one_array(backend):
    base = _data((16, 3, 2))
    a, out = base[0:8], base[8:16]
    expected = _distinct(backend, a, out)
    before = base[0:8].copy()
    _around(backend)(a, out, 2.0, **CALL)
    np.testing.assert_array_equal(base[8:16], expected)
    np.testing.assert_array_equal(base[0:8], before)


@pytest.mark.parametrize("backend", ["numpy", "debug"])
def test_many_inputs_and_outputs(backend):
    """More (input, written field) pairs than the pairwise check takes: a set of owners."""

    @gtscript.stencil(backend=backend)
    def many(a: F, b: F, c: F, d: F, e: F, out: F, other: F):
        with computation(PARALLEL), interval(...):
            out = a[-1, 0, 0] + b[1, 0, 0] + c + d + e
            other = a[1, 0, 0] - e[-1, 0, 0]

    def run(alias: bool) -> np.ndarray:
        x = _data()
        inputs = [x.copy() if not alias or n != 4 else x for n in range(5)]
        out = x if alias else x.copy()
        other = np.zeros(SHAPE)
        many(*inputs, out, other, **CALL)
        return np.stack([out, other])

    np.testing.assert_array_equal(run(alias=True), run(alias=False))
    # an input over the output's memory through an owner numpy cannot tell (ctypes): copied
    x = _data()
    pointer = ctypes.cast(x.ctypes.data, ctypes.POINTER(ctypes.c_double))
    foreign = np.ctypeslib.as_array(pointer, shape=SHAPE)
    inputs = [x.copy() for _ in range(4)] + [foreign]
    many(*inputs, x, np.zeros(SHAPE), **CALL)
    expected = _data()
    many(*[_data() for _ in range(5)], expected, np.zeros(SHAPE), **CALL)
    np.testing.assert_array_equal(x, expected)
    x = _data()
    with pytest.raises(StencilArgumentError, match="fields 'out' and 'other' are both written"):
        many(*[x.copy() for _ in range(5)], x, x[:, :, ::-1], **CALL)


def test_inputs_over_one_buffer_through_different_owners(backend):
    # two np.frombuffer calls: numpy's `base` objects differ, the memory is the same
    buffer = bytearray(_data((10, 3, 2)).tobytes())

    def over(start: int) -> np.ndarray:
        return np.frombuffer(buffer).reshape(10, 3, 2)[start : start + 8]

    expected = _distinct(backend, over(0), over(2))
    _around(backend)(over(0), over(2), 2.0, **CALL)
    np.testing.assert_array_equal(over(2), expected)


def update(a: F, io: F, out: F):
    with computation(PARALLEL), interval(...):
        io = io + a[1, 0, 0]
        out = a[-1, 0, 0] * 2.0


def _two_written(backend: str):
    return _built(update, backend)


@pytest.mark.parametrize("overlap", ["same array", "shifted views"])
def test_two_written_fields_sharing_memory_are_an_argument_error(backend, overlap):
    """No order of writes is the stencil's meaning (numpy writes field by field, debug and
    C++ point by point): the same clear error on every backend, nothing written."""
    base = _data((10, 3, 2))
    io, out = (base[1:9], base[1:9]) if overlap == "same array" else (base[0:8], base[2:10])
    a = _data()
    with pytest.raises(StencilArgumentError, match="fields 'io' and 'out' are both written"):
        _two_written(backend)(a, io, out, **CALL)
    np.testing.assert_array_equal(base, _data((10, 3, 2)))
    # disjoint views of one array are fine, and write what distinct arrays get
    apart = [_data(), np.zeros(SHAPE)]
    _two_written(backend)(a, *apart, **CALL)
    joint = _data((16, 3, 2))
    joint[8:] = 0.0
    _two_written(backend)(a, joint[0:8], joint[8:16], **CALL)
    np.testing.assert_array_equal(joint, np.concatenate(apart))


def test_read_only_output_is_an_argument_error(backend):
    if backend == "gt:gpu":
        pytest.skip("device arrays have no read-only flag")
    a, out = _data(), _data()
    out.setflags(write=False)
    with pytest.raises(StencilArgumentError, match="field 'out' is written by the stencil"):
        _around(backend)(a, out, 2.0, **CALL)
    np.testing.assert_array_equal(out, _data())
    # a read-only input is fine
    a.setflags(write=False)
    out = np.zeros(SHAPE)
    _around(backend)(a, out, 2.0, **CALL)
    np.testing.assert_array_equal(out, _distinct(backend, _data(), np.zeros(SHAPE)))


BAD_CALLS = [
    # (origin, domain, words of the message)
    ((1, 0, 0), (2**63, 1, 1), "too large"),
    ((1, 0, 0), (2**64, 1, 1), "too large"),
    ((1, 0, 0), (2**62, 2**62, 1), "too large"),
    ((1, 0, 0), (4, 3, 2**63 - 1), "too large"),
    ((1, 0, 0), (-3, 1, 1), "positive integers"),
    ((1, 0, 0), (0, 1, 1), "positive integers"),
    ((1, 0, 0), (True, 1, 1), "positive integers"),
    ((1, 0, 0), (4.0, 1, 1), "positive integers"),
    ((-1, 0, 0), (2, 1, 1), "must not be negative"),
    ((1, -(2**63), 0), (2, 1, 1), "must not be negative"),
    ((1, 0, 0, 0), (2, 1, 1), "3 entries"),
    ((2**63, 0, 0), (1, 1, 1), "too small"),
    ((2**70, 0, 0), (1, 1, 1), "too small"),
    ((1.5, 0, 0), (1, 1, 1), "tuple of integers"),
    ({"a": (1, 0, 0), "out": (-1, 0, 0)}, (1, 1, 1), "origin of field 'out'"),
]


def test_extreme_origins_and_domains_are_argument_errors(backend):
    around = _around(backend)
    a, out = _data(), _data()
    for origin, domain, words in BAD_CALLS:
        with pytest.raises(StencilArgumentError, match=words):
            around(a, out, 2.0, origin=origin, domain=domain)
    np.testing.assert_array_equal(out, _data())


EXTERNAL_BACKENDS = ["numpy", "debug", pytest.param("gt:cpu_ifirst", marks=pytest.mark.slow)]


@pytest.mark.parametrize("backend", EXTERNAL_BACKENDS)
def test_externals_count_bit_for_bit(backend):
    """``-0.0`` and ``0.0`` are two stencils (``1 / X`` differs); a NaN builds once."""

    def divide(a: F, out: F):
        from __externals__ import X

        with computation(PARALLEL), interval(...):
            out = a / X

    results = {}
    stencils = {}
    for name, x in [("zero", 0.0), ("minus zero", -0.0), ("nan", math.nan)]:
        stencil = gtscript.stencil(backend=backend, definition=divide, externals={"X": x})
        stencils[name] = stencil
        a, out = np.ones((2, 2, 1)), np.zeros((2, 2, 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            stencil(a, out)
        results[name] = out[0, 0, 0]
    assert results["zero"] == math.inf and results["minus zero"] == -math.inf
    assert math.isnan(results["nan"])
    again = gtscript.stencil(backend=backend, definition=divide, externals={"X": float("nan")})
    assert again.source_path == stencils["nan"].source_path
    assert stencils["zero"].source_path != stencils["minus zero"].source_path


def _search_past_the_top(pe: gtscript.Field[np.float64], lev: gtscript.Field[gtscript.IJ, np.int64], out: gtscript.Field[np.float64]):  # fmt: skip
    with computation(FORWARD), interval(...):
        lev = 0
        while pe[0, 0, lev] < 10.0:
            lev = lev + 1
        out = lev


@pytest.mark.parametrize(
    "backend",
    ["numpy", "debug", pytest.param("gt:cpu_ifirst", marks=pytest.mark.slow)],
)
def test_a_while_search_reading_past_the_top_raises_on_every_backend(backend):
    # FV3's remapping searches (map_single) on data that never satisfies the condition: the
    # C++ backends replaced the bad index by 0 and looped forever; now the loop stops and the
    # call raises the IndexError the Python backends raise.
    stencil = gtscript.stencil(backend=backend, definition=_search_past_the_top)
    pe = np.ones((3, 3, 4))
    lev = np.zeros((3, 3), dtype=np.int64)
    with pytest.raises(
        IndexError, match=r"K index 4 of field 'pe' is outside the field \(K size 4\)"
    ):
        stencil(pe, lev, np.zeros((3, 3, 4)))
