"""What the code generators share: the builtin functions' names in numpy and C++, names,
constants, the order intervals run in, and the base of their IR visitors."""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping
from typing import Any, Final

from gt4py.eve import NodeVisitor

from . import _ir as ir
from ._analysis import AnalysedStencil


# GTScript math builtins -> (numpy, C++). The C++ ones not from the standard library are
# Python's semantics from <gt4py/python_semantics.hpp> (shipped with gt4py.infra.native).
MATH_FUNCTIONS: Final[Mapping[str, tuple[str, str]]] = {
    "abs": ("np.abs", "gt4py::abs"),
    "min": ("np.minimum", "gt4py::minimum"),
    "max": ("np.maximum", "gt4py::maximum"),
    "mod": ("np.remainder", "gt4py::mod"),
    "sqrt": ("np.sqrt", "std::sqrt"),
    "exp": ("np.exp", "std::exp"),
    "log": ("np.log", "std::log"),
    "log10": ("np.log10", "std::log10"),
    "sin": ("np.sin", "std::sin"),
    "cos": ("np.cos", "std::cos"),
    "tan": ("np.tan", "std::tan"),
    "asin": ("np.arcsin", "std::asin"),
    "acos": ("np.arccos", "std::acos"),
    "atan": ("np.arctan", "std::atan"),
    "sinh": ("np.sinh", "std::sinh"),
    "cosh": ("np.cosh", "std::cosh"),
    "tanh": ("np.tanh", "std::tanh"),
    "asinh": ("np.arcsinh", "std::asinh"),
    "acosh": ("np.arccosh", "std::acosh"),
    "atanh": ("np.arctanh", "std::atanh"),
    "arcsin": ("np.arcsin", "std::asin"),
    "arccos": ("np.arccos", "std::acos"),
    "arctan": ("np.arctan", "std::atan"),
    "arcsinh": ("np.arcsinh", "std::asinh"),
    "arccosh": ("np.arccosh", "std::acosh"),
    "arctanh": ("np.arctanh", "std::atanh"),
    "isfinite": ("np.isfinite", "gt4py::is_finite"),
    "isinf": ("np.isinf", "gt4py::is_inf"),
    "isnan": ("np.isnan", "gt4py::is_nan"),
    "floor": ("np.floor", "gt4py::floor"),
    "ceil": ("np.ceil", "gt4py::ceil"),
    "trunc": ("np.trunc", "gt4py::trunc"),
    # round: half to even (as Python and numpy); round_away_from_zero: as C's round().
    "round": ("np.rint", "gt4py::round_half_even"),
    "round_away_from_zero": ("rt.round_away_from_zero", "gt4py::round_away"),
    "cbrt": ("np.cbrt", "std::cbrt"),
    "gamma": ("rt.gamma", "std::tgamma"),
    "erf": ("rt.erf", "std::erf"),
    "erfc": ("rt.erfc", "std::erfc"),
}

UFUNCS: Final[Mapping[str, str]] = {name: names[0] for name, names in MATH_FUNCTIONS.items()}


class IRGenerator(NodeVisitor):
    """Base of the generators: each turns a statement or an expression of the IR into code in
    its ``visit_<Node>`` method (eve's dispatch); a node without one is an error, never
    silently skipped."""

    def generic_visit(self, node: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{type(self).__name__} cannot generate code for {node!r}")


class PythonExpressions(IRGenerator):
    """The expressions the numpy and debug generators write alike; keyword arguments (the
    numpy generator's ranges) flow down to every operand."""

    analysed: AnalysedStencil

    def field_decl(self, ref: ir.FieldRef) -> ir.FieldDecl:
        decl = self.analysed.decls[ref.name]
        assert isinstance(decl, ir.FieldDecl)
        return decl

    def visit_Constant(self, node: ir.Constant, **kwargs: Any) -> str:
        return constant(node)

    def visit_ScalarRef(self, node: ir.ScalarRef, **kwargs: Any) -> str:
        return var(node.name)

    def visit_BinaryOp(self, node: ir.BinaryOp, **kwargs: Any) -> str:
        left, right = self.visit(node.left, **kwargs), self.visit(node.right, **kwargs)
        if node.op in ("and", "or"):
            return f"np.logical_{node.op}({left}, {right})"
        if node.op == "**":
            # The ufunc, never the operator: numpy's array ``**`` swaps in square, sqrt or
            # reciprocal for some exponents (last-bit differences from the scalar pow the debug
            # backend would use); the ufunc is the same computation on arrays and scalars.
            return f"np.power({left}, {right})"
        return f"({left} {node.op} {right})"

    def visit_UnaryOp(self, node: ir.UnaryOp, **kwargs: Any) -> str:
        operand = self.visit(node.operand, **kwargs)
        return f"np.logical_not({operand})" if node.op == "not" else f"({node.op}{operand})"

    def visit_Call(self, node: ir.Call, **kwargs: Any) -> str:
        args = ", ".join(self.visit(a, **kwargs) for a in node.args)
        return f"{UFUNCS[node.func]}({args})"


def run_order(comp: ir.Computation) -> list[ir.IntervalBlock]:
    """The interval blocks of ``comp`` in the order they run: as written in PARALLEL, from the
    bottom up in FORWARD, from the top down in BACKWARD."""
    blocks = list(comp.intervals)
    if comp.order != "PARALLEL":
        blocks.sort(
            key=lambda b: (0 if b.start.level == "start" else 1, b.start.offset),
            reverse=comp.order == "BACKWARD",
        )
    return blocks


def region_conditions(
    region: ir.HorizontalRegion,
    point: tuple[str, str],
    sizes: tuple[str, str],
    position: Callable[[ir.AxisPosition, str], str],
) -> list[str]:
    """The comparisons a point (``point``: its I and J index) passes inside ``region``, one per
    bound it has; ``position`` writes a bound relative to the domain size (``sizes``)."""
    bounds = (
        (region.i_start, 0, ">="),
        (region.i_end, 0, "<"),
        (region.j_start, 1, ">="),
        (region.j_end, 1, "<"),
    )
    return [
        f"{point[a]} {op} {position(pos, sizes[a])}" for pos, a, op in bounds if pos is not None
    ]


def level_loop(order: str) -> str:
    """The Python loop over the levels of an interval (``_k0`` to ``_k1``) in a FORWARD or
    BACKWARD computation."""
    return "range(_k0, _k1)" if order == "FORWARD" else "range(_k1 - 1, _k0 - 1, -1)"


def var(name: str) -> str:
    """The generated-code name of a user field or scalar: prefixed, so that a field called
    ``i``, ``np`` or ``range`` never clashes with the generator's own names."""
    assert name.isidentifier() and not keyword.iskeyword(name)
    return f"u_{name}"


def origin_var(name: str, axis: str) -> str:
    return f"_o{axis.lower()}_{name}"


def constant(c: ir.Constant) -> str:
    """A constant as a numpy scalar of its dtype: numpy promotes a plain Python number as a
    "weak" scalar (``float32_array * 0.1`` stays float32), but the IR's types, and the C++
    backends, promote it as the dtype it has (float64 there)."""
    text = f"float({c.value!r})" if c.value in ("inf", "-inf", "nan") else c.value
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
    # scalar arguments as numpy scalars of their declared dtype, for the same reason as
    # constants: a Python float is "weak" in numpy's promotion, a float64 parameter is not
    for p in stencil.params:
        if isinstance(p, ir.ScalarDecl):
            lines.append(f"    {var(p.name)} = {numpy_dtype(p.dtype)}({var(p.name)})")
    for f in fields:
        if not f.axes:  # a GlobalTable: no grid origin
            continue
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
