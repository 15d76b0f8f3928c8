"""The bad-call matrix (issue 13): every backend rejects the same bad calls with the same error
class and a message naming the argument, before running anything; none crashes.

The calls run in one child process per backend (``_bad_calls.py``): a segfault or an abort
there fails these tests instead of killing pytest. Embedded execution decides what is an
error; the compiled backends must agree with it case by case.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

import pytest


pytestmark = pytest.mark.ours_only  # released gt4py words (and misses) some of these

SCRIPT = pathlib.Path(__file__).with_name("_bad_calls.py")
BACKENDS = [
    pytest.param("embedded_numpy", id="embedded_numpy"),
    pytest.param("itir_python", id="itir_python"),
    pytest.param("gtfn_cpu", id="gtfn_cpu", marks=pytest.mark.slow),
    pytest.param(
        "gtfn_gpu_emulated",
        id="gtfn_gpu_emulated",
        marks=(pytest.mark.slow, pytest.mark.gpu_emulation),
    ),
]

INDEX = "does not fit in 64-bit indices"

# case -> (error class, words the message must contain); None: the call must succeed and give
# embedded's values. Extent errors are DomainError; their messages differ (embedded finds them
# while assigning, compiled backends before running) but name the field on compiled backends.
EXPECTED: dict[str, tuple[str, list[str]] | None] = {
    "fine": None,
    "input_too_small": ("DomainError", ["I="]),
    "input_starts_late": ("DomainError", ["I="]),
    "domain_past_output": ("DomainError", ["I=[1, 20)"]),
    "domain_past_input": ("DomainError", []),
    "k_too_short": ("DomainError", []),
    # widened safely to the declared float64 on every backend (ADR 0034), as released's
    # embedded execution takes it
    "float32_for_float64": None,
    "wrong_dims": ("TypeError", ["'a'", "(I)", "(J)"]),
    "numpy_array_for_field": ("TypeError", ["'a'", "as_field"]),
    "scalar_for_field": ("TypeError", ["'a'", "field"]),
    "str_for_int": ("TypeError", ["'s'", "int32"]),
    "float_for_int": ("TypeError", ["'s'", "int32"]),
    "int_out_of_range": ("TypeError", ["'s'", "out of its range"]),
    "int64_scalar_for_int32": ("TypeError", ["'s'", "int32"]),
    "offset_along_wrong_dim": ("OffsetProviderError", ["'Ioff'", "J"]),
    "table_fine": None,
    "table_points_outside": ("DomainError", []),
    "table_too_few_rows": ("DomainError", []),
    "table_too_few_columns": ("DomainError", ["1"]),
    "table_of_wrong_dims": ("OffsetProviderError", ["'E2V'"]),
    "table_missing": ("OffsetProviderError", ["'E2V'"]),
    "dimension_for_table": ("OffsetProviderError", ["'E2V'"]),
    "guarded_read_unused": None,
    "guarded_read_used": ("DomainError", []),
    "as_offset_inside": None,
    "as_offset_outside": None,  # reads the edge value on every backend (ADR 0005)
    "operator_out_of_other_dims": ("DomainError", []),
    "operator_out_of_other_dtype": ("FieldDTypeError", ["float32"]),
    "operator_out_numpy": ("TypeError", ["'out'"]),
    "operator_out_tuple": ("TypeError", ["'out'", "tuple"]),
    "scan_out_without_axis": ("TypeError", ["'out'", "K"]),
    "domain_size_overflows_empty": ("DomainError", [INDEX, "I=[2, -9223372036854775808)"]),
    "domain_size_overflows_empty_by_one": ("DomainError", [INDEX]),
    "domain_size_overflows": ("DomainError", [INDEX]),
    "domain_empty_upside_down": ("DomainError", [INDEX]),
    "domain_huge_past_output": ("DomainError", ["I=[0, 4611686018427387904)"]),
    "domain_huge_before_output": ("DomainError", []),
    "domain_at_int64_min": ("DomainError", []),
    "domain_empty_at_int64_max": None,
    "domain_empty_reversed": None,
    "operator_domain_overflows_empty": ("DomainError", [INDEX]),
    "operator_domain_beyond_int64": ("DomainError", [INDEX, "I=[0, 18446744073709551616)"]),
    "operator_domain_size_overflows": ("DomainError", [INDEX]),
    "operator_domain_huge": ("DomainError", []),
    "read_only_out": ("TypeError", ["'out' must be writable", "read-only", "writeable"]),
    "read_only_input": None,
    "operator_read_only_out": ("TypeError", ["'out' must be writable", "read-only"]),
}
# errors every backend words alike (embedded's message, found before anything runs)
SAME_MESSAGE = {
    "domain_size_overflows_empty",
    "domain_size_overflows_empty_by_one",
    "domain_size_overflows",
    "domain_empty_upside_down",
    "operator_domain_overflows_empty",
    "operator_domain_beyond_int64",
    "operator_domain_size_overflows",
    "read_only_out",
    "operator_read_only_out",
}
# compiled backends find these before running and name the argument or table
NAMED_BY_COMPILED = {
    "input_too_small": "'a'",
    "input_starts_late": "'a'",
    "domain_past_output": "'out'",
    "domain_past_input": "'a'",
    "k_too_short": "'a'",
    "table_points_outside": "'v'",
    "table_too_few_rows": "'E2V'",
    "table_too_few_columns": "'E2V'",
    "guarded_read_used": "'a'",
    "domain_huge_past_output": "'out'",
    "domain_at_int64_min": "'out'",
    "read_only_out": "'out'",
    "operator_read_only_out": "'out'",
}
# found per point while running: fields written before the read may have changed (ADR 0017)
MAY_TOUCH_OUT = {"guarded_read_used"}

_RESULTS: dict[str, dict[str, Any]] = {}


def results(backend: str) -> dict[str, Any]:
    """Every case's outcome on ``backend`` (one child process per backend and test run)."""
    if backend not in _RESULTS:
        done = subprocess.run(
            [sys.executable, "-W", "ignore", str(SCRIPT), backend],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert done.returncode == 0, (
            f"the bad calls crashed the {backend} process (exit {done.returncode}):\n"
            f"{done.stderr[-3000:]}"
        )
        _RESULTS[backend] = json.loads(done.stdout)
    return _RESULTS[backend]


def test_every_case_has_an_expectation():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import _bad_calls
    finally:
        sys.path.pop(0)
    assert set(_bad_calls.CASES) == set(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_call(backend: str, case: str):
    outcome = results(backend)[case]
    expected = EXPECTED[case]
    if expected is None:
        assert outcome["error"] is None, outcome.get("message")
        if backend != "embedded_numpy":
            assert outcome["result"] == results("embedded_numpy")[case]["result"]
        return
    error, words = expected
    assert outcome["error"] is not None, f"no error, result {outcome['result']}"
    assert error in outcome["error"], outcome["message"]
    for banned in ("KeyError", "IndexError", "AttributeError"):
        assert banned not in outcome["error"], outcome["message"]
    for word in words:
        assert word in outcome["message"]
    if backend != "embedded_numpy" and case in NAMED_BY_COMPILED:
        assert NAMED_BY_COMPILED[case] in outcome["message"]
    if backend != "embedded_numpy" and case in SAME_MESSAGE:
        assert outcome["message"] == results("embedded_numpy")[case]["message"]
    if case not in MAY_TOUCH_OUT:
        assert outcome["untouched"], "the output changed although the call was rejected"


PROPERTY = pathlib.Path(__file__).with_name("_extent_property.py")


@pytest.mark.parametrize("backend", BACKENDS[1:])
def test_random_extents_give_embedded_result_or_error(backend: str):
    """Hypothesis in a child process: random extents, domains and shifts (``_extent_property``)
    give embedded's answer or error on ``backend``, and never crash it."""
    done = subprocess.run(
        [sys.executable, "-W", "ignore", str(PROPERTY), backend, "150"],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, (
        f"exit {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    )


def test_embedded_where_ignores_missing_values_beyond_the_output():
    """The condition of a ``where`` covers more than the output: a branch that lacks values
    only out there (and is selected there) does not fail the call (the point-by-point rule)."""
    sys.path.insert(0, str(PROPERTY.parent))
    try:
        import _extent_property as prop
    finally:
        sys.path.pop(0)
    import gt4py.next as gtx

    fields = [(1, 2, 0, 1), (0, 3, 0, 1), (0, 2, 0, 1)]
    bounds = (1, 2, 0, 1)
    got = prop.outcome(prop.p_guarded, gtx.embedded_numpy, fields, bounds)
    assert not isinstance(got, str), got
    expected = prop.reference(prop.p_guarded, fields, bounds)
    assert (got == expected).all()
