"""eve nodes and datamodels under mypy: their generated keyword-only ``__init__`` is visible.

eve's datamodel metaclass is a ``typing.dataclass_transform``, so mypy checks constructor
calls of every node class (no hand-written ``__init__`` stubs) against the field annotations.
"""

from __future__ import annotations

from gt4py.eve import Node, SourceLocation
from gt4py.eve.datamodels import DataModel, field
from gt4py.next.ir import _nodes as ir


class Interval(DataModel):
    start: int
    stop: int
    label: str = field(default="", fingerprint=False)
    tags: list[str] = field(factory=list)


class Assign(Node):
    target: str
    value: ir.Expr
    location: SourceLocation | None = None


# Right: every field by keyword, defaults left out.
ok_interval = Interval(start=0, stop=3)
ok_labelled = Interval(start=0, stop=3, label="k", tags=["a"])
ok_literal = ir.Literal(value="1.5", dtype="float64")
ok_deref = ir.Deref(field="a", shifts=[ir.CartesianShift(dim="I", amount=1)])
ok_assign = Assign(target="out", value=ok_deref)
ok_location = SourceLocation(filename="lap.py", line=3, column=5)

# Wrong: a misspelled keyword, a missing field, a positional argument, a wrong type.
misspelled = ir.Literal(value="1.5", dtyp="float64")  # P: reportCallIssue, reportCallIssue  # E: call-arg  # fmt: skip
missing = ir.SymRef()  # P: reportCallIssue  # E: call-arg
positional = Interval(0, 3)  # P: reportCallIssue  # E: call-arg
wrong_type = ir.CartesianShift(dim="I", amount="1")  # P: reportArgumentType  # E: arg-type
wrong_child = Assign(target="out", value="a")  # P: reportArgumentType  # E: arg-type
no_such_field = SourceLocation(filename="lap.py", line=3, column=5, col=4)  # P: reportCallIssue  # E: call-arg  # fmt: skip

# Frozen by default: fields cannot be assigned after construction.
ok_literal.value = "2.0"  # P: reportAttributeAccessIssue  # E: misc
