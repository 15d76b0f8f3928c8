"""C++ identifiers for a program's own names (parameters, temporaries).

The generated C++ and CUDA spell a program's fields and scalars by their names (``a``,
``a_array``, ``a_s_K``), next to names of its own (``gt_status``, the CUDA kernels' ``rows``).
A name that is a C++ keyword (``new``, ``double``) or one the generator uses itself would not
compile, or would silently mean the other thing; :func:`cxx_safe` renames such names before
the code is generated. Only the text changes: arguments are passed by position, and status
codes and messages come from the program as the user wrote it.
"""

from __future__ import annotations

import re
from typing import Any, Final

from gt4py.eve import NodeTranslator
from gt4py.infra import native

from ... import ir


CXX_KEYWORDS: Final = native.CXX_KEYWORDS
# Names the generators declare themselves (besides everything starting with ``gt_``), and the
# namespaces and types the generated code names.
GENERATED: Final = frozenset(
    [
        "index_t",
        "Params",
        "rows",
        "row",
        "shape",
        "s",
        "m",
        "nb",
        "std",
        "gt4py",
        "run",
        "NB_MODULE",
        "dim3",
        "blockIdx",
        "threadIdx",
        "blockDim",
        "gridDim",
    ]
)
_GENERATED_PATTERN: Final = re.compile(r"(gt_|GT_|i_|lo\d|hi\d)")


def is_safe(name: str) -> bool:
    return not (
        name in CXX_KEYWORDS or name in GENERATED or _GENERATED_PATTERN.match(name) is not None
    )


def cxx_safe(program: ir.Program) -> ir.Program:
    """``program`` with every parameter and temporary whose name is not a safe C++ identifier
    renamed (``new`` -> ``new_``, made unique)."""
    names = [p.name for p in program.params] + [t.name for t in program.temporaries]
    taken = set(names)
    renamed: dict[str, str] = {}
    for name in names:
        if is_safe(name):
            continue
        new = f"u_{name}" if _GENERATED_PATTERN.match(name) else f"{name}_"
        while new in taken or not is_safe(new):
            new += "_"
        taken.add(new)
        renamed[name] = new
    if not renamed:
        return program
    result: ir.Program = _Rename(renamed).visit(program)
    return result


def _renames(field: str, *, many: bool = False) -> Any:
    """A visit method renaming the name (``many``: the list of names) in ``field``."""

    def visit(self: _Rename, node: Any) -> Any:
        value = getattr(node, field)
        renamed = [self._name(v) for v in value] if many else self._name(value)
        return self.generic_visit(node).replace(**{field: renamed})

    return visit


class _Rename(NodeTranslator):
    """Renames the parameters and temporaries in every node that names one."""

    def __init__(self, renamed: dict[str, str]) -> None:
        self.renamed = renamed

    def _name(self, name: str) -> str:
        return self.renamed.get(name, name)

    visit_FieldParam = visit_ScalarParam = visit_Temporary = visit_SymRef = _renames("name")
    visit_Deref = visit_FieldBound = _renames("field")
    visit_Apply = visit_Scan = _renames("outputs", many=True)
