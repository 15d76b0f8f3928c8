"""The suite's warning filters (pyproject.toml, issue 45): numpy's deprecations are errors.

numpy attributes a ``DeprecationWarning`` to the frame that called it, so the filters work by
the attributed module: gt4py's, the tests', generated code's and numpy's own are errors; a
third-party library's stay warnings; gt4py's intentional ``GT4PyDeprecationWarning`` is shown.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gt4py.infra.deprecation import GT4PyDeprecationWarning


def _warn_from(module: str, category: type[Warning] = DeprecationWarning) -> None:
    warnings.warn_explicit("deprecated", category, f"{module}.py", 1, module=module)


@pytest.mark.parametrize(
    "module",
    [
        "numpy.lib._function_base_impl",
        "gt4py.next.embedded.nd_array_field",
        "gt4py_cartesian_stencil_0123abcd",
        "itir_0123456789abcdef01234567",
        "tests.next_tests.test_anything",
    ],
)
def test_a_deprecation_in_numpy_or_in_code_calling_it_is_an_error(module: str) -> None:
    with pytest.raises(DeprecationWarning, match="deprecated"):
        _warn_from(module)


def test_numpys_visible_deprecation_is_an_error_wherever_it_comes_from() -> None:
    with pytest.raises(np.exceptions.VisibleDeprecationWarning):
        _warn_from("somelibrary", np.exceptions.VisibleDeprecationWarning)


def test_a_third_party_librarys_own_deprecation_stays_a_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        _warn_from("distributed.utils")
    assert [type(w.message) for w in caught] == [DeprecationWarning]


def test_gt4pys_intentional_deprecations_are_shown_not_raised() -> None:
    with warnings.catch_warnings(record=True) as caught:
        _warn_from("tests.next_tests.test_anything", GT4PyDeprecationWarning)
        _warn_from("gt4py.next.config", GT4PyDeprecationWarning)
    assert [type(w.message) for w in caught] == [GT4PyDeprecationWarning] * 2
    assert issubclass(GT4PyDeprecationWarning, DeprecationWarning)
