"""No value in a field crashes a program: integer ``//`` and ``%`` by zero, the most negative
integer by -1, and ``astype`` of NaN, the infinities and out-of-range floats, on every backend.

Integer division by zero is undefined in C++ and traps on x86 (SIGFPE killed the process on
gtfn_cpu); every backend gives numpy's 0. A float -> integer conversion beyond the target's
range is undefined in C++, and numpy's own result there depends on the platform: the C++
backends saturate (NaN -> 0, ADR 0036), the numpy-based ones give numpy's result.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import astype


I = gtx.Dimension("I")
IInt32Field = gtx.Field[gtx.Dims[I], gtx.int32]
IInt64Field = gtx.Field[gtx.Dims[I], gtx.int64]
IField = gtx.Field[gtx.Dims[I], gtx.float64]
IFloat32Field = gtx.Field[gtx.Dims[I], gtx.float32]
IInt8Field = gtx.Field[gtx.Dims[I], gtx.int8]
IUInt32Field = gtx.Field[gtx.Dims[I], gtx.uint32]

#: backends that run numpy on the data (their float -> int conversions are numpy's)
NUMPY_BACKENDS = ("embedded_numpy", "embedded_cupy", "itir_python")


def _name(backend) -> str:
    return "embedded_numpy" if backend is None else backend.name


def run(backend, operator, out_dtype, *columns):
    fields = [gtx.as_field([I], c, allocator=backend) for c in columns]
    out = gtx.zeros(fields[0].domain, dtype=out_dtype, allocator=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy warns of x // 0 and NaN casts
        operator.with_backend(backend)(*fields, out=out, offset_provider={})
    return out.asnumpy()


@gtx.field_operator
def floordiv32(a: IInt32Field, b: IInt32Field) -> IInt32Field:
    return a // b


@gtx.field_operator
def mod32(a: IInt32Field, b: IInt32Field) -> IInt32Field:
    return a % b


@gtx.field_operator
def floordiv64(a: IInt64Field, b: IInt64Field) -> IInt64Field:
    return a // b


@gtx.field_operator
def mod64(a: IInt64Field, b: IInt64Field) -> IInt64Field:
    return a % b


def _operands(dtype) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    a = np.array([7, -7, 0, info.min, info.max, info.min, info.min, 7, -7, info.max], dtype)
    b = np.array([0, 0, 0, 0, 0, -1, 1, -2, 2, -1], dtype)
    return a, b


@pytest.mark.parametrize(
    ("dtype", "floordiv", "mod"),
    [(np.int32, floordiv32, mod32), (np.int64, floordiv64, mod64)],
    ids=["int32", "int64"],
)
def test_integer_division_and_modulo_by_zero_and_of_the_minimum_by_minus_one(
    backend, dtype, floordiv, mod
):
    a, b = _operands(dtype)
    with np.errstate(all="ignore"):
        expected_q, expected_m = np.floor_divide(a, b), np.remainder(a, b)
    assert expected_q[:5].tolist() == [0] * 5 == expected_m[:5].tolist()  # numpy's x // 0
    q = run(backend, floordiv, dtype, a, b)
    m = run(backend, mod, dtype, a, b)
    np.testing.assert_array_equal(q, expected_q)
    np.testing.assert_array_equal(m, expected_m)


@gtx.field_operator
def to_int32(a: IField) -> IInt32Field:
    return astype(a, gtx.int32)


@gtx.field_operator
def to_int8(a: IField) -> IInt8Field:
    return astype(a, gtx.int8)


@gtx.field_operator
def to_uint32(a: IField) -> IUInt32Field:
    return astype(a, gtx.uint32)


@gtx.field_operator
def to_int64_from_float32(a: IFloat32Field) -> IInt64Field:
    return astype(a, gtx.int64)


def _saturated(values: np.ndarray, to) -> np.ndarray:
    info = np.iinfo(to)
    wide = np.nan_to_num(values.astype(np.float64), nan=0.0)
    result = np.full(values.shape, info.min, dtype=to)
    result[wide > 0] = info.max
    inside = (wide > float(info.min) - 1) & (wide < float(info.max) + 1)
    result[inside] = np.trunc(wide[inside]).astype(to)
    return result


@pytest.mark.parametrize(
    ("operator", "src", "to"),
    [
        (to_int32, np.float64, np.int32),
        (to_int8, np.float64, np.int8),
        (to_uint32, np.float64, np.uint32),
        (to_int64_from_float32, np.float32, np.int64),
    ],
    ids=["float64-int32", "float64-int8", "float64-uint32", "float32-int64"],
)
def test_astype_of_nan_infinities_and_out_of_range_values(backend, operator, src, to):
    info = np.iinfo(to)
    inside = [0.0, -0.0, 1.5, -0.5 if info.min == 0 else -1.5, 0.99, info.max // 2, info.min // 2]
    outside = [np.nan, np.inf, -np.inf, 1e30, -1e30, float(info.max) * 4 + 8, -3e9, -1.5]
    values = np.array(inside + outside, dtype=src)
    result = run(backend, operator, to, values)
    assert result.dtype == to
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        numpys = values.astype(to)
    n = len(inside)
    # in range numpy's result is defined: every backend gives it
    np.testing.assert_array_equal(result[:n], numpys[:n])
    if _name(backend) in NUMPY_BACKENDS:
        np.testing.assert_array_equal(result, numpys)
    else:  # the C++ backends: saturated (ADR 0036)
        np.testing.assert_array_equal(result, _saturated(values, to))


_CRASH_SCRIPT = textwrap.dedent(
    """\
    import json
    import warnings
    import numpy as np
    import gt4py.next as gtx

    warnings.simplefilter("ignore", RuntimeWarning)
    I = gtx.Dimension("I")
    F = gtx.Field[gtx.Dims[I], gtx.int32]
    G = gtx.Field[gtx.Dims[I], gtx.float64]

    @gtx.field_operator
    def div_mod(a: F, b: F) -> tuple[F, F]:
        return a // b, a % b

    @gtx.field_operator
    def cast(a: G) -> F:
        return gtx.astype(a, gtx.int32)

    backend = getattr(gtx, "{backend}")
    a = gtx.as_field([I], np.array([7, -7, -2**31], np.int32))
    b = gtx.as_field([I], np.array([0, 0, -1], np.int32))
    q, m = gtx.zeros(a.domain, gtx.int32), gtx.zeros(a.domain, gtx.int32)
    div_mod.with_backend(backend)(a, b, out=(q, m), offset_provider={{}})
    x = gtx.as_field([I], np.array([np.nan, np.inf, -1e300]))
    c = gtx.zeros(x.domain, gtx.int32)
    cast.with_backend(backend)(x, out=c, offset_provider={{}})
    print(json.dumps([q.asnumpy().tolist(), m.asnumpy().tolist(), c.asnumpy().tolist()]))
    """
)


@pytest.mark.slow
@pytest.mark.ours_only
@pytest.mark.parametrize("name", ["embedded_numpy", "itir_python", "gtfn_cpu"])
def test_integer_division_by_zero_does_not_kill_the_process(name, tmp_path):
    """The reported crash, in a subprocess (SIGFPE would kill the test run itself)."""
    script = tmp_path / "crash.py"
    script.write_text(_CRASH_SCRIPT.format(backend=name))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    q, m, c = json.loads(done.stdout.strip().splitlines()[-1])
    assert (q, m) == ([0, 0, -(2**31)], [0, 0, 0])
    if name == "gtfn_cpu":  # saturated (ADR 0036); numpy's NaN cast depends on the platform
        assert c == [0, 2**31 - 1, -(2**31)]


# Signed +, -, * and unary - wrap modulo 2^n as numpy's (issue 44): undefined behaviour in C++
# unless the compiler is told otherwise, so the C++/CUDA builds pass -fwrapv (ADR 0044).


@gtx.field_operator
def arithmetic32(
    a: IInt32Field, b: IInt32Field
) -> tuple[IInt32Field, IInt32Field, IInt32Field, IInt32Field]:
    return a + b, a - b, a * b, -a


@gtx.field_operator
def arithmetic64(
    a: IInt64Field, b: IInt64Field
) -> tuple[IInt64Field, IInt64Field, IInt64Field, IInt64Field]:
    return a + b, a - b, a * b, -a


def _overflowing(dtype) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    a = np.array([info.max, info.min, info.max, info.min, info.max // 2 + 1, 7], dtype)
    b = np.array([1, -1, -1, 1, 2, -3], dtype)
    return a, b


@pytest.mark.parametrize(
    ("dtype", "operator"),
    [(np.int32, arithmetic32), (np.int64, arithmetic64)],
    ids=["int32", "int64"],
)
def test_signed_overflow_wraps_as_numpy(backend, dtype, operator):
    a, b = _overflowing(dtype)
    fields = [gtx.as_field([I], c, allocator=backend) for c in (a, b)]
    outs = tuple(gtx.zeros(fields[0].domain, dtype=dtype, allocator=backend) for _ in range(4))
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        operator.with_backend(backend)(*fields, out=outs, offset_provider={})
        expected = (a + b, a - b, a * b, -a)
    assert expected[0][0] == np.iinfo(dtype).min  # int max + 1: numpy wraps
    for out, want in zip(outs, expected, strict=True):
        np.testing.assert_array_equal(out.asnumpy(), want)


@gtx.field_operator
def still_larger(a: IInt32Field) -> gtx.Field[gtx.Dims[I], bool]:
    return a + 1 > a


@pytest.mark.ours_only  # released gtfn_cpu folds the comparison (no -fwrapv)
def test_overflow_is_not_assumed_away(backend):
    """``a + 1 > a`` is always true to a C++ optimiser that assumes no signed overflow
    (GCC folds it at -O2); numpy's int32 max + 1 wraps to the minimum: False."""
    a = np.array([0, np.iinfo(np.int32).max, -1], np.int32)
    field = gtx.as_field([I], a, allocator=backend)
    out = gtx.zeros(field.domain, dtype=bool, allocator=backend)
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        still_larger.with_backend(backend)(field, out=out, offset_provider={})
    assert out.asnumpy().tolist() == [True, False, True]


_OVERFLOW_SCRIPT = textwrap.dedent(
    """\
    import json
    import warnings
    import numpy as np
    import gt4py.next as gtx

    warnings.simplefilter("ignore", RuntimeWarning)
    I = gtx.Dimension("I")
    F = gtx.Field[gtx.Dims[I], gtx.int32]

    @gtx.field_operator
    def grow(a: F) -> tuple[F, gtx.Field[gtx.Dims[I], bool]]:
        return a + 1, a + 1 > a

    backend = getattr(gtx, "{backend}")
    a = gtx.as_field([I], np.array([2**31 - 1, 5], np.int32))
    s, g = gtx.zeros(a.domain, gtx.int32), gtx.zeros(a.domain, bool)
    grow.with_backend(backend)(a, out=(s, g), offset_provider={{}})
    print(json.dumps([s.asnumpy().tolist(), g.asnumpy().tolist()]))
    """
)


@pytest.mark.slow
@pytest.mark.ours_only
@pytest.mark.parametrize("name", ["embedded_numpy", "itir_python", "gtfn_cpu"])
def test_int32_max_plus_one_in_a_subprocess(name, tmp_path):
    """int32 max + 1 in a fresh process (as the reported crash): numpy's wrapped minimum, and
    the comparison that an optimiser assuming no overflow would fold to True."""
    script = tmp_path / "overflow.py"
    script.write_text(_OVERFLOW_SCRIPT.format(backend=name))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [[-(2**31), 6], [False, True]]


@pytest.mark.ours_only
def test_gtfn_builds_wrap_signed_overflow_whatever_the_extra_flags(monkeypatch):
    """-fwrapv goes into every gtfn build's options (so its key), also when a user replaces
    the extra flags; gtfn_gpu (not built here without a GPU) gets it for nvcc's host code."""
    from gt4py.infra import native
    from gt4py.next.backends.gtfn import _steps

    seen = []
    monkeypatch.setattr(native, "build_extension", lambda name, src, opts: seen.append(opts))
    module = _steps.TranslatedModule(name="m", sources={"m.cpp": ""}, openmp=False)
    for device in ("cpu", "emulated", "gpu"):
        config = _steps.GTFNConfig(device=device, build_type="Release")
        _steps.make_gtfn_compiler(config, extra_compile_flags=("-O1",), cuda_arch="sm_90")(module)
    cpu, emulated, gpu = seen
    assert "-fwrapv" in cpu.extra_compile_flags and "-O1" in cpu.extra_compile_flags
    assert "-fwrapv" in emulated.extra_compile_flags
    assert "-Xcompiler=-fwrapv" in gpu.extra_cuda_flags


@gtx.field_operator
def power64(a: IInt64Field, b: IInt64Field) -> IInt64Field:
    return a**b


@pytest.mark.ours_only  # ADR 0044's value; released gtfn gives 1
def test_integer_power_with_a_negative_exponent(backend):
    """numpy rejects a negative integer exponent (ValueError), and so do the backends that run
    numpy; a compiled program cannot raise per point and gives 1 / a^-b truncated towards
    zero: 1 for 1, +-1 for -1 (the parity), otherwise 0, also for 0 (ADR 0044)."""
    a = np.array([2, 1, -1, -1, 0, -3, 3], np.int64)
    b = np.array([-1, -5, -3, -2, -1, -2, 2], np.int64)
    fields = [gtx.as_field([I], c, allocator=backend) for c in (a, b)]
    out = gtx.zeros(fields[0].domain, dtype=np.int64, allocator=backend)
    if _name(backend) in NUMPY_BACKENDS:
        with pytest.raises(ValueError, match="negative integer powers"):
            power64.with_backend(backend)(*fields, out=out, offset_provider={})
        return
    power64.with_backend(backend)(*fields, out=out, offset_provider={})
    assert out.asnumpy().tolist() == [0, 1, -1, 1, 0, 0, 9]
