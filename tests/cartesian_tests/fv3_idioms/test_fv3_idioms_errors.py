"""The refusals that remain around the FV3 idioms: a clear error naming the user's file:line."""

import linecache
import re

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import (
    __INLINED,
    PARALLEL,
    Field,
    I,
    J,
    K,
    computation,
    horizontal,
    interval,
    region,
)


F = Field[np.float64]
F_I = Field[I, np.float64]
F_J = Field[J, np.float64]
F_K = Field[K, np.float64]
BACKENDS = ["numpy", "debug"]


def _line_of(func, text: str) -> str:
    code = func.__code__
    lines = linecache.getlines(code.co_filename)
    for n in range(code.co_firstlineno - 1, len(lines)):
        if text in lines[n]:
            return f"{code.co_filename}:{n + 1}"
    raise AssertionError(f"{text!r} not found")


def write_i_field(a: F_I, q: F):
    with computation(PARALLEL), interval(...):
        a = q


def write_j_field(b: F_J, q: F):
    with computation(PARALLEL), interval(...):
        b = q + 1.0


def write_k_field(c: F_K, q: F):
    with computation(PARALLEL), interval(...):
        c = q


def i_field_with_three_offsets(a: F_I, q: F):
    with computation(PARALLEL), interval(...):
        q = a[1, 0, 0]


def region_bound_on_the_wrong_axis(q: F):
    from __externals__ import j_start

    with computation(PARALLEL), interval(...):  # noqa: SIM117 - GTScript nesting
        with horizontal(region[j_start, :]):
            q = 1.0


def inlined_on_a_field(b: F_J, q: F):
    with computation(PARALLEL), interval(...):
        if __INLINED(q > 0.0):
            q = b


ERRORS = [
    (write_i_field, {}, "a = q", r"cannot write to 'a'.*axes I"),
    (write_j_field, {}, "b = q + 1.0", r"cannot write to 'b'.*axes J"),
    (write_k_field, {}, "c = q", r"cannot write to 'c'.*axes K"),
    (i_field_with_three_offsets, {}, "q = a[1, 0, 0]", r"'a' has axes I.*1 offset"),
    (
        region_bound_on_the_wrong_axis,
        {"j_start": J[0]},
        "region[j_start, :]",
        r"'j_start' is J\[0\].*bound on I",
    ),
    (inlined_on_a_field, {}, "if __INLINED(q > 0.0)", r"compile-time condition"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("definition", "externals", "line", "message"), ERRORS, ids=[e[0].__name__ for e in ERRORS]
)
def test_error_names_the_users_line(backend, definition, externals, line, message):
    with pytest.raises((gtscript.GTScriptDefinitionError, gtscript.GTScriptSyntaxError)) as info:
        gtscript.stencil(backend=backend, definition=definition, externals=externals)
    text = str(info.value)
    assert _line_of(definition, line) in text, text
    assert re.search(message, text, re.S), text


@gtscript.function
def doubled(a):
    a = 2.0 * a  # a local copy: assigning to a parameter bound to a read-only 1-D field is fine
    return a


def one_d_field_through_assigning_function(a: F_I, q: F, out: F):
    with computation(PARALLEL), interval(...):
        out = doubled(a) + doubled(q)


@pytest.mark.parametrize("backend", BACKENDS)
def test_parameter_bound_to_a_1d_field_may_be_assigned(backend):
    a = np.arange(4.0)
    q = np.ones((4, 3, 2))
    out = np.zeros((4, 3, 2))
    st = gtscript.stencil(backend=backend, definition=one_d_field_through_assigning_function)
    st(a, q, out, origin=(0, 0, 0), domain=(4, 3, 2))
    np.testing.assert_array_equal(out, np.broadcast_to(2.0 * a[:, None, None] + 2.0, out.shape))
    np.testing.assert_array_equal(a, np.arange(4.0))
