"""Special functions array namespaces do not provide: gt4py.storage's, shared with GTScript."""

from __future__ import annotations

from typing import Any

from gt4py.storage import special_functions


def gamma(xp: Any, x: Any) -> Any:
    """The gamma function of a float64 array of namespace ``xp``, elementwise (C ``tgamma``)."""
    return special_functions.gamma(x, xp=xp)
