"""The field-level IR of gt4py.next: pointwise stencil programs as eve nodes, with a text form.

``to_text(node)`` prints a program or expression; ``parse_program`` / ``parse_expr`` read the
text back (round trip: ``parse_program(to_text(p)) == p``).
"""

from ._binding import (
    bind as bind,
    bind_lazily as bind_lazily,
    eager_safe as eager_safe,
    has_free_neighbour as has_free_neighbour,
    is_leaf as is_leaf,
    may_trap as may_trap,
    used_strictly as used_strictly,
)
from ._fingerprint import (
    program_fingerprint as program_fingerprint,
    remember_fingerprint as remember_fingerprint,
)
from ._helpers import (
    literal as literal,
    map_children as map_children,
    map_shifts as map_shifts,
    neighbour_key as neighbour_key,
    statement_with as statement_with,
)
from ._nodes import (
    Apply as Apply,
    AxisIndex as AxisIndex,
    Binding as Binding,
    Call as Call,
    CartesianShift as CartesianShift,
    Cast as Cast,
    Deref as Deref,
    DynamicShift as DynamicShift,
    Expr as Expr,
    FieldBound as FieldBound,
    FieldParam as FieldParam,
    Let as Let,
    Literal as Literal,
    LocalIndex as LocalIndex,
    NeighbourShift as NeighbourShift,
    OffsetDecl as OffsetDecl,
    Program as Program,
    Range as Range,
    Reduce as Reduce,
    ScalarParam as ScalarParam,
    Scan as Scan,
    Shift as Shift,
    SymRef as SymRef,
    Temporary as Temporary,
)
from ._occurrences import Occurrences as Occurrences, children as children
from ._parser import (
    IRParseError as IRParseError,
    parse_expr as parse_expr,
    parse_program as parse_program,
)
from ._printer import expr_text as expr_text, program_text as program_text, to_text as to_text
