"""The IR programs and helpers of the golden tests of lowering and of both code generators.

The generator tests (``codegen/``) give these IR programs to ``gtfn`` and ``itir_python`` and
look for snippets in what comes out: ``@`` in a snippet stands for a generator-chosen number
(``lo@``, ``acc@``) and runs of whitespace match any whitespace, so renumbering or reindenting
does not break them, but a wrong index, bound, stride or update does. The lowering test
(``lowering/``) compares whole lowered programs with the texts of :data:`LOWERED`.

Imported by its plain module name (``conftest.py`` puts this directory on ``sys.path``).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Final


# -- snippets of generated code --------------------------------------------------------------------


def snippet_pattern(snippet: str) -> str:
    """The regular expression of ``snippet``: ``@`` a number, whitespace any whitespace."""
    parts = re.split(r"(@|\s+)", snippet.strip())
    return "".join(r"\d+" if p == "@" else r"\s*" if p.isspace() else re.escape(p) for p in parts)


def snippet_assertions(
    language: str,
) -> tuple[Callable[..., None], Callable[[str, str], None]]:
    """``assert_snippet(source, snippet, count=None)`` and ``assert_no_snippet(source,
    snippet)`` for code generated in ``language`` (named in their failure messages)."""

    def assert_snippet(source: str, snippet: str, count: int | None = None) -> None:
        found = re.findall(snippet_pattern(snippet), source)
        assert found, f"missing from the generated {language}:\n{snippet}\n--- in ---\n{source}"
        if count is not None:
            assert len(found) == count, f"{snippet!r} occurs {len(found)} times, not {count}"

    def assert_no_snippet(source: str, snippet: str) -> None:
        assert not re.search(snippet_pattern(snippet), source), (
            f"unexpected in the generated {language}: {snippet}"
        )

    return assert_snippet, assert_no_snippet


# -- IR programs given to the generators -----------------------------------------------------------

STENCIL: Final = """program lap(a: field[I, J] float64, out: field[I, J] float64, n: int64) {
  out <- apply[I: 1:int64 .. minus(n, 1:int64), J: 1:int64 .. 9:int64](minus($a(I+1), multiplies(2.0:float64, $a(J-1))));
}"""

SHIFT_1D: Final = """program shift(a: field[I] int32, out: field[I] int32) {
  out <- apply[I: 0:int64 .. 8:int64](floordiv($a(I+2), 3:int32));
}"""

_NEIGHBOUR_REDUCTION: Final = """program div(a: field[Edge, K] float64, out: field[Vertex, K] float64)
offsets(V2E: Vertex[V2E] -> Edge) {
  out <- apply[Vertex: bound<lo>(out, Vertex) .. bound<hi>(out, Vertex), K: bound<lo>(out, K) .. bound<hi>(out, K)](reduce<OP, V2E; V2E>(INIT, $a(V2E[*])));
}"""


def neighbour_reduction(op: str, init: str) -> str:
    """A reduction with ``op`` from ``init`` (an IR literal) over a vertex's edges, per level."""
    return _NEIGHBOUR_REDUCTION.replace("OP", op).replace("INIT", init)


NEIGHBOUR_SUM: Final = neighbour_reduction("plus", "0.0:float64")

NEIGHBOUR_MAX: Final = """program m(a: field[Edge] float64, out: field[Vertex] float64)
offsets(V2E: Vertex[V2E] -> Edge) {
  out <- apply[Vertex: 0:int64 .. 4:int64](reduce<maximum, V2E; V2E>(-inf:float64, $a(V2E[*])));
}"""

_SCAN: Final = """program acc(a: field[I, K] float64, out: field[I, K] float64) {
  out <- scan<K, DIRECTION; c0>[I: bound<lo>(out, I) .. bound<hi>(out, I), K: 0:int64 .. 5:int64](init(0.0:float64); plus(c0, $a(K+1)));
}"""


def scan(direction: str) -> str:
    """A running sum along K, ``forward`` or ``backward``."""
    return _SCAN.replace("DIRECTION", direction)


WHERE: Final = """program w(a: field[I] float64, out: field[I] float64) {
  out <- apply[I: 0:int64 .. 8:int64](if_(lt($a, 0.0:float64), neg($a), $a));
}"""


# -- IR texts lowering gives -----------------------------------------------------------------------


def normalized(text: str) -> str:
    """``text`` (an IR program) dedented, stripped, without trailing spaces on its lines."""
    return "\n".join(line.rstrip() for line in textwrap.dedent(text).strip().splitlines())


_FULL_OUT = "I: bound<lo>(out, I) .. bound<hi>(out, I), J: bound<lo>(out, J) .. bound<hi>(out, J)"

#: The IR text lowering gives for each program of the lowering golden test, by program name.
LOWERED: Final[dict[str, str]] = {
    "copy": f"""
        program copy(a: field[I, J] float64, out: field[I, J] float64) {{
          out <- apply[{_FULL_OUT}]($a);
        }}
    """,
    "east_minus_west": f"""
        program east_minus_west(a: field[I, J] float64, out: field[I, J] float64) {{
          out <- apply[{_FULL_OUT}](multiplies(0.5:float64, minus($a(I+1), $a(I-1))));
        }}
    """,
    "edge_sum": """
        program edge_sum(e: field[Edge] float64, out: field[Vertex] float64)
        offsets(V2E: Vertex[V2E] -> Edge) {
          out <- apply[Vertex: bound<lo>(out, Vertex) .. bound<hi>(out, Vertex)](reduce<plus, V2E; V2E>(0.0:float64, $e(V2E[*])));
        }
    """,
    "clipped": f"""
        program clipped(a: field[I, J] float64, limit: float64, out: field[I, J] float64) {{
          out <- apply[{_FULL_OUT}](if_(gt($a, limit), limit, $a));
        }}
    """,
    "running_sum": """
        program running_sum(a: field[I, K] float64, out: field[I, K] float64) {
          out <- scan<K, forward; __carry>[I: bound<lo>(out, I) .. bound<hi>(out, I), K: bound<lo>(out, K) .. bound<hi>(out, K)](init(0.0:float64); plus(__carry, $a));
        }
    """,
    "sum_and_difference": """
        program sum_and_difference(a: field[I, J] float64, b: field[I, J] float64, out_sum: field[I, J] float64, out_difference: field[I, J] float64) {
          out_sum <- apply[I: bound<lo>(out_sum, I) .. bound<hi>(out_sum, I), J: bound<lo>(out_sum, J) .. bound<hi>(out_sum, J)](plus($a, $b));
          out_difference <- apply[I: bound<lo>(out_difference, I) .. bound<hi>(out_difference, I), J: bound<lo>(out_difference, J) .. bound<hi>(out_difference, J)](minus($a, $b));
        }
    """,
    "interior_copy": """
        program interior_copy(a: field[I, J] float64, out: field[I, J] float64, n: int32) {
          out <- apply[I: 1:int64 .. minus(n, 1:int64), J: 0:int64 .. n]($a);
        }
    """,
    "sliced_copy": """
        program sliced_copy(a: field[I, J] float64, out: field[I, J] float64) {
          out <- apply[I: plus(bound<lo>(out, I), 1:int64) .. plus(bound<hi>(out, I), -1:int64), J: bound<lo>(out, J) .. bound<hi>(out, J)]($a);
        }
    """,
}
