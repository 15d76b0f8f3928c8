"""What the numpy and debug code generators share: names, constants, operators, intervals."""

from __future__ import annotations

import keyword

from . import _ir as ir
from ._analysis import AnalysedStencil


UFUNCS = {
    "abs": "np.abs", "min": "np.minimum", "max": "np.maximum", "mod": "np.remainder",
    "sqrt": "np.sqrt", "exp": "np.exp", "log": "np.log", "log10": "np.log10",
    "sin": "np.sin", "cos": "np.cos", "tan": "np.tan", "asin": "np.arcsin",
    "acos": "np.arccos", "atan": "np.arctan", "sinh": "np.sinh", "cosh": "np.cosh",
    "tanh": "np.tanh", "asinh": "np.arcsinh", "acosh": "np.arccosh", "atanh": "np.arctanh",
    "arcsin": "np.arcsin", "arccos": "np.arccos", "arctan": "np.arctan",
    "arcsinh": "np.arcsinh", "arccosh": "np.arccosh", "arctanh": "np.arctanh",
    "isfinite": "np.isfinite", "isinf": "np.isinf", "isnan": "np.isnan",
    "floor": "np.floor", "ceil": "np.ceil", "trunc": "np.trunc",
    # round: half to even (as Python and numpy); round_away_from_zero: as C's round().
    "round": "np.rint", "round_away_from_zero": "rt.round_away_from_zero",
    "cbrt": "np.cbrt", "gamma": "rt.gamma", "erf": "rt.erf", "erfc": "rt.erfc",
}  # fmt: skip


def var(name: str) -> str:
    """The generated-code name of a user field or scalar: prefixed, so that a field called
    ``i``, ``np`` or ``range`` never clashes with the generator's own names."""
    assert name.isidentifier() and not keyword.iskeyword(name)
    return f"u_{name}"


def origin_var(name: str, axis: str) -> str:
    return f"_o{axis.lower()}_{name}"


def constant(c: ir.Constant) -> str:
    text = f"float({c.value!r})" if c.value in ("inf", "-inf", "nan") else c.value
    if c.dtype in ("int64", "float64", "bool"):
        return text
    return f"{numpy_dtype(c.dtype)}({text})"


def position(pos: ir.AxisPosition, size: str) -> str:
    base = "0" if pos.level == "start" else size
    return f"{base}{pos.offset:+d}" if pos.offset else base


def interval_bounds(block: ir.IntervalBlock) -> tuple[str, str]:
    start = f"min(max({position(block.start, '_nk')}, 0), _nk)"
    end = f"min(max({position(block.end, '_nk')}, 0), _nk)"
    return start, end


def plus(base: str, offset: int) -> str:
    return f"{base}{offset:+d}" if offset else base


def prologue(analysed: AnalysedStencil, *, header: str) -> list[str]:
    """Module header, metadata and the start of ``run``: origins and temporaries."""
    stencil = analysed.ir
    fields = [p for p in stencil.params if isinstance(p, ir.FieldDecl)]
    args = [var(p.name) for p in stencil.params] + ["_domain"] + [f"_o_{f.name}" for f in fields]
    lines = [
        f'"""{header}"""',
        "import numpy as np",
        "from gt4py.cartesian import _runtime as rt",
        "",
        "",
        f"def run({', '.join(args)}):",
        "    _ni, _nj, _nk = _domain",
    ]
    for f in fields:
        names = ", ".join(origin_var(f.name, a) for a in f.axes)
        lines.append(f"    {names}{',' if len(f.axes) == 1 else ''} = _o_{f.name}")
    halo, (k_lo, k_hi) = analysed.temp_halo, analysed.temp_k_halo
    sizes = {
        "I": f"_ni{halo.i_hi - halo.i_lo:+d}",
        "J": f"_nj{halo.j_hi - halo.j_lo:+d}",
        "K": f"_nk{k_lo + k_hi:+d}",
    }
    origins = {"I": -halo.i_lo, "J": -halo.j_lo, "K": k_lo}
    for t in stencil.temporaries:
        shape = ", ".join(sizes[a] for a in t.axes)
        lines.append(f"    {var(t.name)} = np.zeros(({shape}), dtype={numpy_dtype(t.dtype)})")
        for a in t.axes:
            lines.append(f"    {origin_var(t.name, a)} = {origins[a]}")
    return lines


def numpy_dtype(dtype: str) -> str:
    """The numpy scalar type of a dtype name in generated code (``np.bool`` is numpy 2 only)."""
    return "np.bool_" if dtype == "bool" else f"np.{dtype}"
