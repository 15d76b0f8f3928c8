"""Programs: tuple returns and ``out=(a, b)``, collection arguments, backends model."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
import pytest

import gt4py.next as gtx


I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IField = gtx.Field[gtx.Dims[I], gtx.float64]
IKField = gtx.Field[gtx.Dims[I, K], gtx.float64]

rng = np.random.default_rng(5)


@gtx.field_operator
def sum_and_difference(a: IField, b: IField) -> tuple[IField, IField]:
    return a + b, a - b


@gtx.field_operator
def nested_tuple(a: IField, b: IField) -> tuple[IField, tuple[IField, IField]]:
    total, difference = sum_and_difference(a, b)
    return total * 2.0, (difference, a)


@gtx.program
def sum_and_difference_program(a: IField, b: IField, total: IField, difference: IField):
    sum_and_difference(a, b, out=(total, difference))


def test_tuple_return_into_tuple_out(backend):
    a = gtx.as_field([I], rng.random(6), allocator=backend)
    b = gtx.as_field([I], rng.random(6), allocator=backend)
    total = gtx.zeros(a.domain, allocator=backend)
    difference = gtx.zeros(a.domain, allocator=backend)
    sum_and_difference_program.with_backend(backend)(a, b, total, difference, offset_provider={})
    np.testing.assert_allclose(total.asnumpy(), a.asnumpy() + b.asnumpy())
    np.testing.assert_allclose(difference.asnumpy(), a.asnumpy() - b.asnumpy())


def test_nested_tuple_return(backend):
    a = gtx.as_field([I], rng.random(4), allocator=backend)
    b = gtx.as_field([I], rng.random(4), allocator=backend)
    outs = [gtx.zeros(a.domain, allocator=backend) for _ in range(3)]
    nested_tuple.with_backend(backend)(a, b, out=(outs[0], (outs[1], outs[2])), offset_provider={})
    an, bn = a.asnumpy(), b.asnumpy()
    np.testing.assert_allclose(outs[0].asnumpy(), 2.0 * (an + bn))
    np.testing.assert_allclose(outs[1].asnumpy(), an - bn)
    np.testing.assert_allclose(outs[2].asnumpy(), an)


@gtx.field_operator
def first_of_tuple_argument(pair: tuple[IField, IField]) -> IField:
    return pair[0] * pair[1]


def test_tuple_argument(backend):
    a = gtx.as_field([I], rng.random(4), allocator=backend)
    b = gtx.as_field([I], rng.random(4), allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    first_of_tuple_argument.with_backend(backend)((a, b), out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), a.asnumpy() * b.asnumpy())


@dataclasses.dataclass
class Velocity:
    u: IField
    v: IField


class State(typing.NamedTuple):
    pressure: IField
    temperature: IField


@gtx.field_operator
def kinetic_energy(velocity: Velocity) -> IField:
    return 0.5 * (velocity.u * velocity.u + velocity.v * velocity.v)


@gtx.field_operator
def density(state: State, gas_constant: float) -> IField:
    return state.pressure / (gas_constant * state.temperature)


def test_dataclass_argument(backend):
    u = gtx.as_field([I], rng.random(5), allocator=backend)
    v = gtx.as_field([I], rng.random(5), allocator=backend)
    out = gtx.zeros(u.domain, allocator=backend)
    kinetic_energy.with_backend(backend)(Velocity(u, v), out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), 0.5 * (u.asnumpy() ** 2 + v.asnumpy() ** 2))


def test_named_tuple_argument(backend):
    pressure = gtx.as_field([I], 1e5 + rng.random(5), allocator=backend)
    temperature = gtx.as_field([I], 280.0 + rng.random(5), allocator=backend)
    out = gtx.zeros(pressure.domain, allocator=backend)
    density.with_backend(backend)(State(pressure, temperature), 287.0, out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), pressure.asnumpy() / (287.0 * temperature.asnumpy()))


@gtx.field_operator
def increment(a: IKField) -> IKField:
    return a + 1.0


@gtx.program
def increment_twice(a: IKField, tmp: IKField, out: IKField):
    increment(a, out=tmp)
    increment(tmp, out=out)


def test_program_with_several_statements(backend):
    a = gtx.as_field([I, K], rng.random((3, 2)), allocator=backend)
    tmp = gtx.zeros(a.domain, allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    increment_twice.with_backend(backend)(a, tmp, out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), a.asnumpy() + 2.0)


def test_program_writes_only_its_domain(backend):
    @gtx.program
    def increment_levels(a: IKField, out: IKField, k_start: gtx.int32, k_end: gtx.int32):
        increment(a, out=out, domain={I: (0, 3), K: (k_start, k_end)})

    a = gtx.as_field([I, K], rng.random((3, 6)), allocator=backend)
    out = gtx.full(a.domain, -7.0, allocator=backend)
    increment_levels.with_backend(backend)(a, out, 2, 4, offset_provider={})
    expected = np.full((3, 6), -7.0)
    expected[:, 2:4] = a.asnumpy()[:, 2:4] + 1.0
    np.testing.assert_allclose(out.asnumpy(), expected)


# --- the backends model (ours only: released gt4py 1.2.x has no ``embedded_numpy``) ---------


@pytest.mark.ours_only
def test_default_backend_is_embedded_numpy():
    assert increment.backend is gtx.embedded_numpy
    assert increment_twice.backend is gtx.embedded_numpy


@pytest.mark.ours_only
@pytest.mark.parametrize("decorator", ["field_operator", "program"])
def test_backend_none_means_embedded_with_a_deprecation_naming_embedded_numpy(decorator):
    """Released 1.2.x spells embedded ``backend=None``; ours runs it embedded and warns."""

    def definition(a: IField) -> IField:
        return a

    with pytest.warns(DeprecationWarning, match=r"gtx\.embedded_numpy") as caught:
        decorated = getattr(gtx, decorator)(definition, backend=None)
    assert decorated.backend is gtx.embedded_numpy
    assert caught[0].filename == __file__  # points at the user's line, not at gt4py


@pytest.mark.ours_only
def test_with_backend_none_means_embedded():
    with pytest.warns(DeprecationWarning, match=r"gtx\.embedded_numpy"):
        moved = increment_twice.with_backend(None)
    assert moved.backend is gtx.embedded_numpy
    a = gtx.as_field([I, K], np.arange(6.0).reshape(3, 2))
    tmp, out = gtx.zeros({I: 3, K: 2}), gtx.zeros({I: 3, K: 2})
    moved(a, tmp, out)
    assert np.array_equal(out.asnumpy(), a.asnumpy() + 2.0)


@pytest.mark.ours_only
def test_scan_operator_backend_none_means_embedded():
    def running_sum(carry: float, a: float) -> float:
        return carry + a

    with pytest.warns(DeprecationWarning, match=r"gtx\.embedded_numpy"):
        scan = gtx.scan_operator(running_sum, axis=K, forward=True, init=0.0, backend=None)
    assert scan.backend is gtx.embedded_numpy


def test_embedded_program_compile_is_a_no_op_returning_the_program():
    """As released: compiling for embedded execution does nothing and returns the program."""
    assert increment_twice.compile(offset_provider={}) is increment_twice


@gtx.field_operator
def _named_like_cxx(
    p: IField, new: IField, double: IField, rows: IField, gt_params: IField, i_I: float
) -> IField:
    return p + new * double - rows + gt_params * i_I


@gtx.program
def _named_like_cxx_program(
    p: IField, new: IField, double: IField, rows: IField, gt_params: IField, i_I: float,
    out: IField,
):  # fmt: skip
    _named_like_cxx(p, new, double, rows, gt_params, i_I, out=out)


@pytest.mark.ours_only  # a name the generated C++/CUDA uses itself, or a C++ keyword
def test_parameters_named_like_cxx_keywords_or_generated_names(backend):
    """``p`` broke every gtfn_gpu kernel (its ``Params p``), ``new``/``double`` every gtfn
    module: the program's names are renamed in the generated code only."""
    fields = [
        gtx.as_field([I], np.full(4, v), allocator=backend) for v in (1.0, 2.0, 3.0, 4.0, 5.0)
    ]
    out = gtx.as_field([I], np.zeros(4), allocator=backend)
    _named_like_cxx_program.with_backend(backend)(*fields, 0.5, out, offset_provider={})
    np.testing.assert_array_equal(out.asnumpy(), np.full(4, 1.0 + 2.0 * 3.0 - 4.0 + 5.0 * 0.5))
