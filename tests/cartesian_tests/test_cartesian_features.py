"""The GTScript feature suite, run on every registered backend against numpy references."""

from __future__ import annotations

import numpy as np

from gt4py.cartesian import gtscript
from gt4py.cartesian.definitions import AccessKind
from gt4py.cartesian.gtscript import (
    BACKWARD,
    FORWARD,
    IJ,
    IJK,
    PARALLEL,
    I,
    J,
    K,
    computation,
    horizontal,
    interval,
    region,
)


F = gtscript.Field[np.float64]
FI = gtscript.Field[np.int64]
rng = np.random.default_rng(42)


def rand(*shape):
    return rng.random(shape)


def test_laplacian_with_temporary_and_halo(backend):
    @gtscript.stencil(backend=backend)
    def lap(a: F, out: F, alpha: float):
        with computation(PARALLEL), interval(...):
            tmp = a[1, 0, 0] - a[0, 0, 0]
            out = alpha * (tmp[0, 0, 0] - tmp[-1, 0, 0])

    a = rand(8, 7, 3)
    out = np.zeros_like(a)
    lap(a, out, 2.0, origin=(1, 0, 0), domain=(6, 7, 3))
    np.testing.assert_allclose(out[1:7], 2.0 * (a[2:8] - 2 * a[1:7] + a[0:6]))
    assert lap.field_info["a"].boundary[0] == (1, 1)
    assert lap.field_info["out"].access == AccessKind.WRITE
    assert lap.field_info["a"].access == AccessKind.READ
    assert lap.parameter_info["alpha"].dtype == np.float64
    assert lap.parameter_info["alpha"].access == AccessKind.READ


def test_default_origin_and_domain_from_halo(backend):
    @gtscript.stencil(backend=backend)
    def avg(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = 0.5 * (a[0, -1, 0] + a[0, 1, 0])

    a, out = rand(4, 6, 2), np.zeros((4, 6, 2))
    avg(a, out)  # origin defaults to each field's low halo: (0, 1, 0)
    np.testing.assert_allclose(out[:, 1:5], 0.5 * (a[:, 0:4] + a[:, 2:6]))


def test_forward_and_backward_and_intervals(backend):
    @gtscript.stencil(backend=backend)
    def scan(a: F, up: F, down: F):
        with computation(FORWARD):
            with interval(0, 1):
                up = a
            with interval(1, None):
                up = up[0, 0, -1] + a
        with computation(BACKWARD):
            with interval(-1, None):
                down = a
            with interval(0, -1):
                down = down[0, 0, 1] + a

    a = rand(3, 2, 5)
    up, down = np.zeros_like(a), np.zeros_like(a)
    scan(a, up, down)
    np.testing.assert_allclose(up, np.cumsum(a, axis=2))
    np.testing.assert_allclose(down, np.cumsum(a[:, :, ::-1], axis=2)[:, :, ::-1])


def test_interval_none_to_n_and_negative(backend):
    @gtscript.stencil(backend=backend)
    def parts(out: F):
        with computation(PARALLEL), interval(None, 2):
            out = 1.0
        with computation(PARALLEL), interval(2, -1):
            out = 2.0
        with computation(PARALLEL), interval(-1, None):
            out = 3.0

    out = np.zeros((2, 2, 6))
    parts(out)
    np.testing.assert_array_equal(out[0, 0], [1, 1, 2, 2, 2, 3])


def test_if_else_on_fields_and_externals(backend):
    @gtscript.stencil(backend=backend, externals={"USE_ABS": True, "SCALE": 3.0})
    def cond(a: F, out: F):
        from __externals__ import SCALE, USE_ABS

        with computation(PARALLEL), interval(...):
            if USE_ABS:
                x = abs(a)
            else:
                x = a
            if a > 0.0:
                out = SCALE * x
            else:
                out = -x

    a = rng.standard_normal((4, 4, 2))
    out = np.zeros_like(a)
    cond(a, out)
    np.testing.assert_allclose(out, np.where(a > 0, 3 * np.abs(a), -np.abs(a)))


def test_while_rechecks_condition_only_at_loop_head(backend):
    # Numpy's released backend re-evaluated the condition before each statement; here the
    # second statement runs in the same iteration even though the first made the test false.
    @gtscript.stencil(backend=backend)
    def loop(a: F, n: F):
        with computation(PARALLEL), interval(...):
            while a < 3.0:
                a = a + 2.0
                n = n + 1.0

    a = np.array([[[0.0, 2.5, 5.0]]])
    n = np.zeros_like(a)
    loop(a, n)
    np.testing.assert_array_equal(a[0, 0], [4.0, 4.5, 5.0])
    np.testing.assert_array_equal(n[0, 0], [2.0, 1.0, 0.0])


def test_modulo_floors_and_int_division_is_float64(backend):
    @gtscript.stencil(backend=backend)
    def ints(a: FI, b: FI, m: FI, d: F, fd: FI):
        with computation(PARALLEL), interval(...):
            m = a % b
            d = a / b
            fd = a // b

    a = np.array([[[-7, 7, -7, 7]]], dtype=np.int64)
    b = np.array([[[2, -2, -2, 3]]], dtype=np.int64)
    m, fd = np.zeros_like(a), np.zeros_like(a)
    d = np.zeros(a.shape)
    ints(a, b, m, d, fd)
    np.testing.assert_array_equal(m[0, 0], [-7 % 2, 7 % -2, -7 % -2, 7 % 3])
    np.testing.assert_array_equal(d[0, 0], [-3.5, -3.5, 3.5, 7 / 3])
    np.testing.assert_array_equal(fd[0, 0], [-4, -4, 3, 2])


def test_field_named_i_and_np(backend):
    @gtscript.stencil(backend=backend)
    def names(i: F, np: F, range: F):
        with computation(PARALLEL), interval(...):
            range = i + np

    a, b, c = rand(2, 3, 2), rand(2, 3, 2), np.zeros((2, 3, 2))
    names(a, b, c)
    np.testing.assert_allclose(c, a + b)


def test_gtscript_function_inlined_with_tuple_return(backend):
    @gtscript.function
    def lap(f):
        return f[1, 0, 0] + f[-1, 0, 0] - 2.0 * f[0, 0, 0]

    @gtscript.function
    def both(x, y):
        s = x + y
        return s, x - y

    @gtscript.stencil(backend=backend)
    def st(a: F, b: F, out: F, diff: F):
        with computation(PARALLEL), interval(...):
            s, diff = both(a, b)  # noqa: RUF059
            out = lap(s)

    a, b = rand(6, 2, 2), rand(6, 2, 2)
    out, diff = np.zeros_like(a), np.zeros_like(a)
    st(a, b, out, diff, origin=(1, 0, 0), domain=(4, 2, 2))
    s = a + b
    np.testing.assert_allclose(out[1:5], s[2:6] + s[0:4] - 2 * s[1:5])
    np.testing.assert_allclose(diff[1:5], (a - b)[1:5])


def test_lower_dimensional_fields_and_data_dims(backend):
    @gtscript.stencil(backend=backend)
    def st(
        a: gtscript.Field[IJ, np.float64],
        k: gtscript.Field[K, np.float64],
        v: gtscript.Field[IJK, (np.float64, (3,))],
        out: F,
    ):
        with computation(PARALLEL), interval(...):
            out = a[1, 0] + k + v[0, 0, 0][2]

    a, k, v = rand(4, 3), rand(2), rand(4, 3, 2, 3)
    out = np.zeros((4, 3, 2))
    st(a, k, v, out, origin=(0, 0, 0), domain=(3, 3, 2))
    ref = a[1:4, :, None] + k[None, None, :] + v[:3, :, :, 2]
    np.testing.assert_allclose(out[:3], ref)


def test_absolute_and_variable_k(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, idx: FI, top: F, shifted: F):
        with computation(PARALLEL), interval(...):
            top = a.at(K=0) + a.at(K=2)
            shifted = a[0, 0, idx]

    a = rand(2, 2, 4)
    idx = np.zeros((2, 2, 4), dtype=np.int64)
    idx[..., 0], idx[..., 1], idx[..., 2], idx[..., 3] = 2, 1, 0, -3
    top, shifted = np.zeros_like(a), np.zeros_like(a)
    st(a, idx, top, shifted)
    np.testing.assert_allclose(top, np.broadcast_to((a[..., 0] + a[..., 2])[..., None], a.shape))
    np.testing.assert_allclose(shifted, a[..., [2, 2, 2, 0]])


def test_horizontal_regions(backend):
    @gtscript.stencil(backend=backend)
    def st(out: F):
        with computation(PARALLEL), interval(...):
            out = 0.0
            with horizontal(region[I[0], :]):
                out = 1.0
            with horizontal(region[I[-1], J[0] : J[2]]):
                out = 2.0
            with horizontal(region[I[0] + 1 : I[2], J[-1]]):
                out = 3.0

    out = np.full((5, 4, 1), -1.0)
    st(out)
    ref = np.zeros((5, 4, 1))
    ref[0] = 1.0
    ref[-1, 0:2] = 2.0
    ref[1:2, -1] = 3.0
    np.testing.assert_array_equal(out, ref)


def test_math_builtins_and_casts(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, out: F, n: FI):
        with computation(PARALLEL), interval(...):
            out = sqrt(a) + exp(a) + min(a, 0.5) + max(a, 0.5) + floor(a * 3.0) + sin(a)  # noqa: F821
            n = int32(a * 10.0)  # noqa: F821

    a = rand(3, 3, 2)
    out, n = np.zeros_like(a), np.zeros(a.shape, dtype=np.int64)
    st(a, out, n)
    ref = (
        np.sqrt(a)
        + np.exp(a)
        + np.minimum(a, 0.5)
        + np.maximum(a, 0.5)
        + np.floor(a * 3)
        + np.sin(a)
    )
    np.testing.assert_allclose(out, ref)
    np.testing.assert_array_equal(n, (a * 10).astype(np.int32))


def test_dtypes_mapping_and_compact_scalars(backend):
    @gtscript.stencil(backend=backend, dtypes={"my_t": np.float32})
    def st(a: gtscript.Field["my_t"], out: gtscript.Field["my_t"], s: "my_t"):  # noqa: F821, UP037
        with computation(PARALLEL), interval(...):
            out += a * s

    a = rand(2, 2, 2).astype(np.float32)
    out = np.ones_like(a)
    st(a, out, np.float32(2.0))
    np.testing.assert_allclose(out, 1 + 2 * a, rtol=1e-6)


def test_ternary_and_boolean_ops(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a if (a > 0.2 and a < 0.8) or a > 0.95 else -a

    a = rand(4, 4, 2)
    out = np.zeros_like(a)
    st(a, out)
    np.testing.assert_allclose(out, np.where(((a > 0.2) & (a < 0.8)) | (a > 0.95), a, -a))


def test_lazy_stencil_builds_on_first_call(backend):
    @gtscript.lazy_stencil(backend=backend)
    def copy(a: F, b: F):
        with computation(PARALLEL), interval(...):
            b = a

    assert copy._implementation is None
    a, b = rand(2, 2, 2), np.zeros((2, 2, 2))
    copy(a, b)
    np.testing.assert_array_equal(a, b)


def test_run_fast_path_and_exec_info(backend):
    @gtscript.stencil(backend=backend)
    def copy(a: F, b: F):
        with computation(PARALLEL), interval(...):
            b = a

    a, b = rand(3, 3, 3), np.zeros((3, 3, 3))
    copy.run(a=a, b=b, _domain_=(2, 2, 2), _origin_={"a": (1, 1, 1), "b": (0, 0, 0)})
    np.testing.assert_array_equal(b[:2, :2, :2], a[1:, 1:, 1:])
    info: dict = {}
    copy(a, b, exec_info=info, validate_args=False)
    assert info["domain"] == (3, 3, 3) and info["call_end_time"] >= info["call_start_time"]
