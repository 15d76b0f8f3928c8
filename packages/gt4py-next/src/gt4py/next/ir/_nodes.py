"""The field-level IR: programs of pointwise stencil applications, as eve nodes.

Every expression denotes *one value at the current point* of the domain being computed.
Fields are read with :class:`Deref` (the current point moved by a chain of shifts); tuples
are split during lowering, so every expression has a scalar type. A program is a list of
:class:`Apply` (compute expressions over a domain into output fields) and :class:`Scan`
(the same, level by level along one axis, with carried values).

Dimensions, offsets and parameters are referred to by name; the :class:`Program` declares
them. Dtypes are numpy dtype names (``"float64"``).
"""

from __future__ import annotations

from gt4py.eve import Node
from gt4py.eve.datamodels import field


class Expr(Node):
    """A value at the current point."""


class Literal(Expr):
    value: str  # Python literal text: "1.5", "-3", "True"
    dtype: str


class SymRef(Expr):
    """A scalar parameter, a ``Let`` binding or a scan carry."""

    name: str


class Shift(Node):
    """One step of moving the point a :class:`Deref` reads at."""


class CartesianShift(Shift):
    """``a(I + 1)`` and ``a(Koff[1])``: move along ``dim`` by ``amount``."""

    dim: str
    amount: int


class NeighbourShift(Shift):
    """``a(E2V[0])`` (``index=0``) or ``a(E2V)`` inside a reduction (``index=None``: the
    neighbour the enclosing reduction over the offset's local dimension is at)."""

    offset: str
    index: int | None = None
    # `index=None` only: how many enclosing reductions over the same local dimension to skip
    # (a shift pushed into an intermediate that reduces over that dimension itself, e.g.
    # `z = neighbor_sum(w(C2E2C)); neighbor_sum(z(C2E2C))`, refers to the outer reduction)
    outer: int = 0


class LocalIndex(Shift):
    """``a[E2CDim(0)]``: read neighbour ``index`` of a field over the local dimension ``dim``."""

    dim: str
    index: int


class DynamicShift(Shift):
    """``a(as_offset(Koff, k_offsets))``: move along ``dim`` by a value read at the point."""

    dim: str
    amount: Expr


class Deref(Expr):
    """The value of field ``field`` at the current point after ``shifts`` (applied in order)."""

    field: str
    shifts: list[Shift]


class AxisIndex(Expr):
    """The index of the current point along ``dim`` (domain conditions of concat_where)."""

    dim: str


class Call(Expr):
    """A builtin: arithmetic (``plus``...), comparison, logic, math, ``if_`` (where)."""

    fun: str
    args: list[Expr]


class Cast(Expr):
    value: Expr
    dtype: str


class Let(Expr):
    """``name = value`` visible in ``body``."""

    name: str
    value: Expr
    body: Expr


class Reduce(Expr):
    """``neighbor_sum`` / ``max_over`` / ``min_over`` (``op``: plus, maximum, minimum) over the
    neighbours enumerated by the local dimension ``axis``; neighbours for which one of the
    ``tables`` holds its skip value are left out."""

    op: str
    axis: str
    init: Expr
    body: Expr
    tables: list[str]


class Range(Node):
    """``dim`` from ``start`` to ``stop`` (absolute indices, expressions over scalar params)."""

    dim: str
    start: Expr
    stop: Expr


class FieldBound(Expr):
    """The first (``upper=False``) or one-past-last index of field ``field`` along ``dim``."""

    field: str
    dim: str
    upper: bool


class Binding(Node):
    """``name = value``, computed once per point before a statement's values and visible to
    the bindings after it and to all values (values the outputs share)."""

    name: str
    value: Expr


class Apply(Node):
    """Compute ``values[i]`` at every point of ``domain`` into field ``outputs[i]`` (after the
    ``bindings``, in order)."""

    outputs: list[str]
    domain: list[Range]
    values: list[Expr]
    bindings: list[Binding] = field(factory=list)


class Scan(Node):
    """Sweep ``axis`` of ``domain`` (upwards if ``forward``) carrying ``carries`` (initially
    ``init``); at each level the ``bindings`` are computed (from the carries of the level
    before), then the carries become ``values``, which are written to ``outputs``."""

    outputs: list[str]
    domain: list[Range]
    axis: str
    forward: bool
    carries: list[str]
    init: list[Expr]
    values: list[Expr]
    bindings: list[Binding] = field(factory=list)


class FieldParam(Node):
    name: str
    dims: list[str]
    dtype: str


class ScalarParam(Node):
    name: str
    dtype: str


class OffsetDecl(Node):
    """A neighbour table ``name``: for each point along ``domain_dim`` (and each entry of the
    local dimension ``local``; ``None``: one neighbour) an index along ``codomain``."""

    name: str
    domain_dim: str
    local: str | None
    codomain: str


class Temporary(Node):
    """A field the program allocates itself (a materialized intermediate, e.g. a scan called
    inside a field operator), over ``domain``. Lowering leaves ``domain`` empty; the
    ``domain_inference`` pass fills it in from the points its readers need."""

    name: str
    dims: list[str]
    dtype: str
    domain: list[Range]


class Program(Node):
    name: str
    params: list[FieldParam | ScalarParam]
    offsets: list[OffsetDecl]
    body: list[Apply | Scan]
    temporaries: list[Temporary] = field(factory=list)
