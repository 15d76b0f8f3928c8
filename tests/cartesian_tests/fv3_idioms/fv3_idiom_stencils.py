"""FV3-style GTScript stencils, written for this suite (no FV3 code copied).

Each stencil exercises GTScript constructs that NOAA-GFDL's PyFV3 / PySHiELD use on NDSL; the
``CASES`` table describes how to call each one (fields with their axes and dtypes, how their
inputs are drawn, scalars, externals, origin and domain), so a driver can run the same stencil on
any backend and on released gt4py 1.2.3. Only the public ``gt4py.cartesian.gtscript`` API is
used. Do not add ``from __future__ import annotations``: the field annotations are read as
values.

This module is loaded by path (``load_module``), not as a package; ``fv3_idiom_constants`` lives
beside it and is imported as a module, as FV3 imports ``ndsl.constants``.
"""

import dataclasses
import importlib.util
import pathlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import (
    __INLINED,
    BACKWARD,
    FORWARD,
    IJ,
    IK,
    JK,
    PARALLEL,
    Field,
    I,
    J,
    K,
    abs,
    asin,
    computation,
    cos,
    exp,
    floor,
    horizontal,
    interval,
    log,
    max,
    min,
    region,
    sin,
    sqrt,
)


_HERE = pathlib.Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))
import fv3_idiom_constants as C  # noqa: E402


F = Field[np.float64]
FI = Field[np.int64]
FB = Field[np.bool_]
F_IJ = Field[IJ, np.float64]
F_K = Field[K, np.float64]
F_I = Field[I, np.float64]
F_J = Field[J, np.float64]
F_IK = Field[IK, np.float64]
F_JK = Field[JK, np.float64]
I_IJ = Field[IJ, np.int64]
I_I = Field[I, np.int64]
B_J = Field[J, np.bool_]

# A module constant read in a compile-time branch of a stencil (FV3: `__INLINED(namelist...)`
# comes through externals, module flags through globals).
LOCAL_IV_LIMIT = -2


# -- GTScript functions --------------------------------------------------------------------------
@gtscript.function
def positive_part(x):
    diff = x
    return diff if diff > 0.0 else 0.0


@gtscript.function
def sat_vapour(t, rho):
    return (
        C.E_SAT0
        * exp((C.D_CP_VAP * log(t / C.T_REF) + C.LAT_VAP * (t - C.T_REF) / (t * C.T_REF)) / C.R_VAP)
    ) / (C.R_VAP * t * rho)


@gtscript.function
def sat_vapour_and_slope(t, rho):
    q = sat_vapour(t, rho)
    return q, q * (C.D_CP_VAP + C.LAT_VAP / t) / (C.R_VAP * t)


@gtscript.function
def sat_ice_or_water(t, rho):
    if t < C.T_REF:
        q, dq = sat_vapour_and_slope(t - C.ICE_SHIFT, rho)
    else:
        q, dq = sat_vapour_and_slope(t, rho)
    return q, dq


# Item 1: functions that assign to their parameters (PySHiELD microphysics style). Python
# semantics: the parameter is a local copy; only the returned values reach the caller.
@gtscript.function
def convert_cloud(ql, qr, rate, dt):
    sink = min(ql, dt * rate * ql)
    if sink > 0.0:
        ql = ql - sink
        qr = qr + sink
    return ql, qr


@gtscript.function
def convert_twice(ql, qr, rate, dt):
    ql, qr = convert_cloud(ql, qr, rate, dt)
    ql, qr = convert_cloud(ql, qr, rate, dt)
    return ql, qr


@gtscript.function
def clipped_spread(dl, ql):
    dl = min(max(1.0e-6, dl), 0.5 * ql)
    dl *= 2.0
    return dl


@gtscript.function
def flux_x(q, w):
    return w * (q[-1, 0, 0] - q)


@gtscript.function
def limited(x):
    from __externals__ import kord

    if __INLINED(kord > C.LIMIT_KORD):
        y = max(x, 0.0)
    else:
        y = x
    return y


# -- 1. parameter assignment in gtscript.function (refusal 1) ----------------------------------
def param_assign(
    ql: F,
    qr: F,
    dl: F,
    ql_new: F,
    qr_new: F,
    ql_seen: F,
    spread: F,
    rate: float,
    dt: float,
):
    with computation(PARALLEL), interval(...):
        ql_new, qr_new = convert_twice(ql, qr, rate, dt)  # noqa: RUF059 - fields
        ql_seen = ql  # the field passed as `ql` is not changed by the call
        local = 0.5 * ql
        spread = clipped_spread(dl, local)
        spread = spread + local  # nor is a temporary passed as `dl`


# -- 2. horizontal regions inside a run-time if, and ifs inside regions (refusal 2) ------------
def region_in_runtime_if(q: F, w: F_IJ, nord: F_K, fx: F, damp: float):
    from __externals__ import local_ie, local_is, local_je, local_js

    with computation(PARALLEL), interval(...):
        if nord == 0.0:
            with horizontal(region[local_is : local_ie + 2, local_js : local_je + 1]):
                fx = flux_x(q, w)
        else:
            fx = flux_x(q, w)
        if damp > 1.0e-5:
            with horizontal(region[local_is : local_ie + 1, local_js : local_je + 1]):
                fx = fx * (1.0 - damp)
        with horizontal(region[local_is, :], region[:, local_je]):
            if q > 0.5:
                fx = -fx
            else:
                fx = fx + 100.0


# -- 3. 1-D fields (refusal 3) -----------------------------------------------------------------
def one_d_combos(
    a_i: F_I,
    b_j: F_J,
    c_k: F_K,
    d_ij: F_IJ,
    e_ik: F_IK,
    f_jk: F_JK,
    q: F,
    o_ij: F,
    o_ik_jk: F,
    o_mixed: F,
    o_off: F,
    s_ij: F_IJ,
):
    with computation(PARALLEL), interval(...):
        o_ij = a_i * b_j + q
        o_ik_jk = a_i * c_k + b_j * c_k + a_i * e_ik - b_j * f_jk
        o_mixed = a_i * d_ij + b_j * d_ij + a_i * f_jk + b_j * e_ik + a_i * b_j * c_k
        o_off = a_i[1] - a_i[-1] + b_j[1] * q - b_j[-1] * q[0, -1, 0]
    with computation(FORWARD), interval(0, 1):
        s_ij = a_i + b_j
    with computation(FORWARD), interval(1, None):
        s_ij = s_ij + a_i * q


def one_d_edge_weights(qin: F, dxa: F_IJ, dya: F_IJ, edge_s: F_I, edge_w: F_J, qx: F, qy: F):
    # The a2b_ord4 edge pattern: an IJK temporary with offsets, weighted by a 1-D edge field.
    with computation(PARALLEL), interval(...):
        q1 = (qin[0, -1, 0] * dya + qin * dya[0, -1]) / (dya[0, -1] + dya)
        qy = edge_s * q1[-1, 0, 0] + (1.0 - edge_s) * q1
        q2 = (qin[-1, 0, 0] * dxa + qin * dxa[-1, 0]) / (dxa[-1, 0] + dxa)
        qx = edge_w * q2[0, -1, 0] + (1.0 - edge_w) * q2


def one_d_int_bool(q: F, n_i: I_I, m_j: B_J, out: F):
    with computation(PARALLEL), interval(...):
        if m_j and n_i > 1:
            out = q * n_i
        else:
            out = -q


# -- 4. an interval whose whole body is removed at compile time (refusal 4) ---------------------
def inlined_empty_interval(a: F, out: F):
    from __externals__ import do_bottom, do_top

    with computation(PARALLEL), interval(0, 1):
        if __INLINED(do_top):
            out = 2.0 * a
    with computation(PARALLEL), interval(1, -1):
        out = a
    with computation(FORWARD):  # noqa: SIM117 - the nested form FV3 uses
        with interval(-1, None):
            if __INLINED(do_bottom):
                out = 3.0 * a


# -- compile-time branches on externals and module constants ------------------------------------
def inlined_branches(a: F, b: F, out: F, prof: F):
    from __externals__ import grid_type, iv

    with computation(PARALLEL), interval(...):
        if __INLINED(grid_type < 3):
            out = a + b
        else:
            out = a - b
        out = limited(out - 0.5)
        if __INLINED(C.USE_MONOTONE):
            out = out * 2.0
    with computation(FORWARD):
        with interval(0, 1):
            if __INLINED(iv == LOCAL_IV_LIMIT):
                prof = a
            else:
                prof = 0.5 * a
        with interval(1, 2):
            prof = prof[0, 0, -1] + a
        with interval(2, -2):
            if __INLINED(iv != LOCAL_IV_LIMIT):
                prof = 0.5 * prof[0, 0, -1] + a
            else:
                prof = prof[0, 0, -1] - a
        with interval(-2, -1):
            prof = prof[0, 0, -1] * b
    with computation(BACKWARD), interval(-1, None):
        prof = prof[0, 0, -1] + b


# -- nested functions with tuple returns, module constants, math builtins ------------------------
def saturation_nested(t: F, rho: F, qv: F, qs: F, dqs: F, excess: F):
    with computation(PARALLEL), interval(...):
        qs, dqs = sat_ice_or_water(t, rho)
        excess = positive_part(qv - qs) / (1.0 + C.LAT_VAP / C.CP_AIR * dqs)


def builtins_mix(a: F, b: F, o1: F, o2: F, o3: F):
    with computation(PARALLEL), interval(...):
        x = abs(a - b)
        o1 = sqrt(x) + exp(-x) + log(1.0 + x)
        o2 = min(a, b) * max(a, b) ** 0.5 + floor(10.0 * a)
        sgn = 1.0 if a > b else -1.0
        o3 = sgn * asin(a - floor(a)) + cos(b) * sin(a)


# -- variable K offsets in a while loop (the remapping search) ------------------------------------
def remap_search(src: F, pe1: F, pe2: F, lev: I_IJ, out: F):
    # FORWARD over target layers; `lev` is the offset from the current level to the source layer
    # holding the target's top, carried from layer to layer in an IJ int field.
    with computation(FORWARD), interval(0, 1):
        lev = 0
    with computation(FORWARD), interval(0, -1):
        acc = 0.0
        while pe1[0, 0, lev + 1] < pe2[0, 0, 1]:
            acc += src[0, 0, lev] * (pe1[0, 0, lev + 1] - pe1[0, 0, lev])
            lev = lev + 1
        out = acc + src[0, 0, lev] * (pe2[0, 0, 1] - pe1[0, 0, lev])
        lev = lev - 1


# -- every corner and edge, with NDSL-style axis offsets as externals ----------------------------
def corners_and_edges(q: F, out: F):
    from __externals__ import i_end, i_start, j_end, j_start

    with computation(PARALLEL), interval(...):
        out = q
        with horizontal(region[i_start, :], region[i_end + 1, :]):
            out = out + 1.0
        with horizontal(region[:, j_start], region[:, j_end + 1]):
            out = out + 10.0
        with horizontal(region[i_start, j_start]):
            out = out * 2.0
        with horizontal(region[i_end + 1, j_start]):
            out = out * 3.0
        with horizontal(region[i_start, j_end + 1]):
            out = out * 5.0
        with horizontal(region[i_end + 1, j_end + 1]):
            out = out * 7.0
        with horizontal(region[i_start - 1, :], region[:, j_start - 1]):
            out = -out
        with horizontal(region[i_start + 1 : i_end, j_start + 1 : j_end]):
            out = out + 0.5 * (q[1, 0, 0] - q[0, -1, 0])


# -- FORWARD / BACKWARD with IJ temporaries: a tridiagonal solve ---------------------------------
def tridiagonal(a: F, b: F, c: F, d: F, x: F):
    with computation(FORWARD):
        with interval(0, 1):
            bet: Field[IJ, np.float64] = b
            gam = 0.0
            x = d / bet
        with interval(1, None):
            gam = c[0, 0, -1] / bet
            bet = b - a * gam
            x = (d - a * x[0, 0, -1]) / bet
    with computation(BACKWARD), interval(0, -1):
        x = x - gam[0, 0, 1] * x[0, 0, 1]


def forward_region_ij(q: F, out: F):
    from __externals__ import i_start, j_end

    with computation(FORWARD), interval(0, 1):
        s: Field[IJ, np.float64] = q
        with horizontal(region[i_start, :], region[:, j_end]):
            s = 0.0
        out = s
    with computation(FORWARD), interval(1, None):
        s = s + q
        out = s


# -- IJ, K, IK, JK fields in combination, IJ outputs, column sums -------------------------------
def axes_mix(q: F, w_ij: F_IJ, w_k: F_K, w_ik: F_IK, w_jk: F_JK, out: F, col: F_IJ, top: F_IJ):
    with computation(PARALLEL), interval(...):
        out = q * w_ij + w_k * w_ik - w_jk + w_ij[1, 0] * w_k
    with computation(FORWARD), interval(0, 1):
        col = q * w_k
        top = w_ij * w_ik + w_jk
    with computation(FORWARD), interval(1, None):
        col = col + q * w_k


# -- int and bool fields, bool and int scalars, and/or/not --------------------------------------
def int_bool_fields(q: F, n: FI, mask: FB, out: F, flag: FB, cnt: FI, use_mask: bool, shift: int):
    with computation(PARALLEL), interval(...):
        if (mask and n > shift) or not use_mask:
            out = q * n
        else:
            out = -q
        flag = q > 0.5 and n < 3
        cnt = n + shift
    with computation(PARALLEL), interval(1, -1):
        if not mask:
            cnt = n[0, 0, -1] + n[0, 0, 1] + cnt


# -- the call table ------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Arg:
    """One field argument: its axes (letters of ``IJK``), dtype and how its input is drawn:
    ``("uniform", lo, hi)``, ``("int", lo, hi)``, ``("bool",)``, ``("nan",)`` (an output, filled
    with NaN so untouched points show), ``("zero",)``, ``("edges",)`` / ``("edges2",)`` (the
    monotone interface pressures of the remap case)."""

    axes: str
    dtype: Any
    draw: tuple


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    definition: Callable[..., Any]
    fields: dict[str, Arg]
    shape: tuple[int, int, int]
    origin: tuple[int, int, int]
    domain: tuple[int, int, int]
    externals: dict[str, Any] = dataclasses.field(default_factory=dict)
    scalars: dict[str, Any] = dataclasses.field(default_factory=dict)
    # The C++ backends this case runs on in the test suite (each is one ~4 s compile, and the CI
    # budget is tight); the benchmark's --cpp and GT4PY_FV3_IDIOMS_ALL_CPP=1 run every case on
    # both. Variants with other externals are numpy/debug only.
    cpp: tuple[str, ...] = ("gt:cpu_ifirst",)
    constructs: tuple[str, ...] = ()


def fin(lo=0.0, hi=1.0, axes="IJK"):
    return Arg(axes, np.float64, ("uniform", lo, hi))


def fout(axes="IJK", dtype=np.float64):
    return Arg(axes, dtype, ("nan",) if dtype == np.float64 else ("zero",))


AXIS_OFFSETS = {"i_start": I[0], "i_end": I[-1], "j_start": J[0], "j_end": J[-1]}
# NDSL's axis_offsets on a domain extended by one point each side: the tile edge is one in.
AXIS_OFFSETS_EXTENDED = {
    "i_start": I[0] + 1,
    "i_end": I[-1] - 1,
    "j_start": J[0] + 1,
    "j_end": J[-1] - 1,
}
# ... and on a rank that holds no tile edge (NDSL moves the edge far away).
AXIS_OFFSETS_INTERIOR = {
    "i_start": I[0] - 32767,
    "i_end": I[-1] + 32767,
    "j_start": J[0] - 32767,
    "j_end": J[-1] + 32767,
}
LOCAL_OFFSETS = {
    "local_is": I[0] + 1,
    "local_ie": I[-1] - 1,
    "local_js": J[0] + 1,
    "local_je": J[-1] - 1,
}

S3 = (8, 7, 5)
O1 = (1, 1, 0)
D1 = (6, 5, 5)

CASES: list[Case] = [
    Case(
        "param_assign",
        param_assign,
        {
            "ql": fin(0.0, 1.0),
            "qr": fin(0.0, 1.0),
            "dl": fin(-0.1, 0.6),
            "ql_new": fout(),
            "qr_new": fout(),
            "ql_seen": fout(),
            "spread": fout(),
        },
        S3,
        (0, 0, 0),
        S3,
        scalars={"rate": 0.7, "dt": 0.4},
        constructs=("assignment to gtscript.function parameters", "augmented assignment"),
    ),
    Case(
        "region_in_runtime_if",
        region_in_runtime_if,
        {
            "q": fin(),
            "w": fin(axes="IJ"),
            "nord": Arg("K", np.float64, ("int", 0, 2)),
            "fx": fout(),
        },
        S3,
        O1,
        D1,
        externals=LOCAL_OFFSETS,
        scalars={"damp": 0.25},
        constructs=("horizontal(region) inside run-time if", "if inside region"),
    ),
    Case(
        "one_d_combos",
        one_d_combos,
        {
            "a_i": fin(axes="I"),
            "b_j": fin(axes="J"),
            "c_k": fin(axes="K"),
            "d_ij": fin(axes="IJ"),
            "e_ik": fin(axes="IK"),
            "f_jk": fin(axes="JK"),
            "q": fin(),
            "o_ij": fout(),
            "o_ik_jk": fout(),
            "o_mixed": fout(),
            "o_off": fout(),
            "s_ij": fout("IJ"),
        },
        S3,
        O1,
        D1,
        cpp=("gt:cpu_ifirst", "gt:cpu_kfirst"),
        constructs=("Field[I]", "Field[J]", "1-D fields with offsets", "IK/JK fields"),
    ),
    Case(
        "one_d_edge_weights",
        one_d_edge_weights,
        {
            "qin": fin(),
            "dxa": fin(0.5, 1.5, "IJ"),
            "dya": fin(0.5, 1.5, "IJ"),
            "edge_s": fin(axes="I"),
            "edge_w": fin(axes="J"),
            "qx": fout(),
            "qy": fout(),
        },
        (9, 8, 3),
        (2, 2, 0),
        (6, 5, 3),
        constructs=("Field[I] edge weights", "IJK temporaries with offsets"),
    ),
    Case(
        "one_d_int_bool",
        one_d_int_bool,
        {
            "q": fin(),
            "n_i": Arg("I", np.int64, ("int", 0, 4)),
            "m_j": Arg("J", np.bool_, ("bool",)),
            "out": fout(),
        },
        (6, 5, 3),
        (0, 0, 0),
        (6, 5, 3),
        cpp=(),
        constructs=("int Field[I]", "bool Field[J]"),
    ),
    Case(
        "inlined_empty_interval",
        inlined_empty_interval,
        {"a": fin(), "out": fout()},
        (4, 3, 5),
        (0, 0, 0),
        (4, 3, 5),
        externals={"do_top": False, "do_bottom": True},
        cpp=(),
        constructs=("__INLINED removing a whole interval body",),
    ),
    Case(
        "inlined_empty_interval_bottom",
        inlined_empty_interval,
        {"a": fin(), "out": fout()},
        (4, 3, 5),
        (0, 0, 0),
        (4, 3, 5),
        externals={"do_top": True, "do_bottom": False},
        cpp=(),
        constructs=("__INLINED removing a whole FORWARD computation",),
    ),
    Case(
        "inlined_branches",
        inlined_branches,
        {"a": fin(), "b": fin(), "out": fout(), "prof": fout()},
        (4, 3, 7),
        (0, 0, 0),
        (4, 3, 7),
        externals={"grid_type": 0, "iv": -2, "kord": 10},
        constructs=(
            "__INLINED on externals",
            "__INLINED on module constants",
            "from __externals__ in a gtscript.function",
            "with computation(): with interval(): nesting",
            "interval(1, 2) / (2, -2) / (-2, -1) / (-1, None)",
        ),
    ),
    Case(
        "inlined_branches_other",
        inlined_branches,
        {"a": fin(), "b": fin(), "out": fout(), "prof": fout()},
        (4, 3, 7),
        (0, 0, 0),
        (4, 3, 7),
        externals={"grid_type": 4, "iv": 0, "kord": 5},
        cpp=(),
    ),
    Case(
        "saturation_nested",
        saturation_nested,
        {
            "t": fin(240.0, 300.0),
            "rho": fin(0.5, 1.3),
            "qv": fin(0.0, 0.03),
            "qs": fout(),
            "dqs": fout(),
            "excess": fout(),
        },
        (5, 4, 3),
        (0, 0, 0),
        (5, 4, 3),
        constructs=(
            "nested gtscript.functions with tuple returns",
            "module constants C.X",
            "exp/log",
        ),
    ),
    Case(
        "builtins_mix",
        builtins_mix,
        {"a": fin(-2.0, 2.0), "b": fin(-2.0, 2.0), "o1": fout(), "o2": fout(), "o3": fout()},
        (5, 4, 3),
        (0, 0, 0),
        (5, 4, 3),
        constructs=("abs/min/max/sqrt/exp/log/floor/asin/sin/cos", "** power", "ternary"),
    ),
    Case(
        "remap_search",
        remap_search,
        {
            "src": fin(),
            "pe1": Arg("IJK", np.float64, ("edges",)),
            "pe2": Arg("IJK", np.float64, ("edges2",)),
            "lev": Arg("IJ", np.int64, ("zero",)),
            "out": fout(),
        },
        (4, 3, 9),
        (0, 0, 0),
        (4, 3, 9),
        cpp=("gt:cpu_ifirst", "gt:cpu_kfirst"),
        constructs=(
            "variable K offset q[0, 0, lev]",
            "while loop",
            "IntFieldIJ carried in FORWARD",
        ),
    ),
    Case(
        "corners_and_edges",
        corners_and_edges,
        {"q": fin(), "out": fout()},
        (9, 8, 2),
        (1, 1, 0),
        (7, 6, 2),
        externals=AXIS_OFFSETS_EXTENDED,
        constructs=("region at every corner and edge", "axis offsets I[0] + n as externals"),
    ),
    Case(
        "corners_and_edges_tile",
        corners_and_edges,
        {"q": fin(), "out": fout()},
        (9, 8, 2),
        (1, 1, 0),
        (7, 6, 2),
        externals=AXIS_OFFSETS,
        cpp=(),
    ),
    Case(
        "corners_and_edges_interior_rank",
        corners_and_edges,
        {"q": fin(), "out": fout()},
        (9, 8, 2),
        (1, 1, 0),
        (7, 6, 2),
        externals=AXIS_OFFSETS_INTERIOR,
        cpp=(),
    ),
    Case(
        "tridiagonal",
        tridiagonal,
        {
            "a": fin(-0.3, 0.3),
            "b": fin(2.0, 3.0),
            "c": fin(-0.3, 0.3),
            "d": fin(),
            "x": fout(),
        },
        (4, 3, 8),
        (0, 0, 0),
        (4, 3, 8),
        cpp=("gt:cpu_ifirst", "gt:cpu_kfirst"),
        constructs=("FORWARD/BACKWARD", "IJ temporary", "interval(0, -1)"),
    ),
    Case(
        "forward_region_ij",
        forward_region_ij,
        {"q": fin(), "out": fout()},
        (5, 4, 4),
        (0, 0, 0),
        (5, 4, 4),
        externals=AXIS_OFFSETS,
        cpp=(),
        constructs=("regions in FORWARD on an IJ temporary",),
    ),
    Case(
        "axes_mix",
        axes_mix,
        {
            "q": fin(),
            "w_ij": fin(axes="IJ"),
            "w_k": fin(axes="K"),
            "w_ik": fin(axes="IK"),
            "w_jk": fin(axes="JK"),
            "out": fout(),
            "col": fout("IJ"),
            "top": fout("IJ"),
        },
        (6, 5, 4),
        (0, 0, 0),
        (5, 5, 4),
        constructs=("IJ/K/IK/JK fields", "IJ outputs", "IJ column sums"),
    ),
    Case(
        "int_bool_fields",
        int_bool_fields,
        {
            "q": fin(),
            "n": Arg("IJK", np.int64, ("int", 0, 5)),
            "mask": Arg("IJK", np.bool_, ("bool",)),
            "out": fout(),
            "flag": Arg("IJK", np.bool_, ("zero",)),
            "cnt": Arg("IJK", np.int64, ("zero",)),
        },
        (5, 4, 4),
        (0, 0, 0),
        (5, 4, 4),
        scalars={"use_mask": True, "shift": 2},
        constructs=("int and bool fields", "bool/int scalars", "and/or/not"),
    ),
]

CASES_BY_NAME = {case.name: case for case in CASES}


def field_shape(case: Case, axes: str) -> tuple[int, ...]:
    return tuple(case.shape["IJK".index(ax)] for ax in axes)


def make_inputs(case: Case, seed: int = 0) -> dict[str, np.ndarray]:
    """Fresh seeded arrays for every field of ``case`` (the same on every interpreter)."""
    rng = np.random.default_rng([seed, sum(map(ord, case.name))])
    arrays: dict[str, np.ndarray] = {}
    for name, arg in case.fields.items():
        shape = field_shape(case, arg.axes)
        kind = arg.draw[0]
        if kind == "uniform":
            value = rng.uniform(arg.draw[1], arg.draw[2], size=shape)
        elif kind == "int":
            value = rng.integers(arg.draw[1], arg.draw[2], size=shape)
        elif kind == "bool":
            value = rng.random(size=shape) < 0.5
        elif kind == "nan":
            value = np.full(shape, np.nan)
        elif kind == "zero":
            value = np.zeros(shape)
        elif kind in ("edges", "edges2"):
            # Monotone interface values along K, equal at top and bottom for pe1 and pe2.
            nk = shape[2]
            if kind == "edges":
                steps = rng.uniform(0.2, 1.0, size=(*shape[:2], nk - 1))
            else:
                steps = rng.uniform(0.05, 2.0, size=(*shape[:2], nk - 1))
            value = np.concatenate([np.zeros((*shape[:2], 1)), np.cumsum(steps, axis=2)], axis=2)
            value = value / value[:, :, -1:] * 10.0
        else:
            raise ValueError(kind)
        arrays[name] = np.ascontiguousarray(value, dtype=arg.dtype)
    return arrays


def build(case: Case, backend: str, **kwargs: Any) -> Any:
    return gtscript.stencil(
        backend=backend,
        definition=case.definition,
        externals=dict(case.externals),
        name=f"fv3_idiom_{case.name}",
        **kwargs,
    )


def call(stencil: Any, case: Case, arrays: dict[str, np.ndarray]) -> None:
    stencil(**arrays, **case.scalars, origin=case.origin, domain=case.domain)


def load_module(path: str | pathlib.Path, name: str = "fv3_idiom_stencils") -> Any:
    """Import this file (or another stencil module) by path."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
