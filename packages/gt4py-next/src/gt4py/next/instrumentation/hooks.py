"""Released gt4py's ``instrumentation.hooks`` by its old path: importable, no hooks yet.

Released gt4py runs registered context managers around each program call
(``program_call_context``, ...). This gt4py.next has no such hooks: the names raise an
``AttributeError`` that says so.
"""

from __future__ import annotations

from typing import Any


_RELEASED_HOOKS = frozenset(
    {
        "program_call_context",
        "embedded_program_call_context",
        "compiled_program_call_context",
        "compile_variant_hook",
    }
)


def __getattr__(name: str) -> Any:
    if name in _RELEASED_HOOKS:
        raise AttributeError(
            f"{__name__}.{name}: this gt4py.next has no program call hooks; time calls with "
            "GT4PY_COLLECT_METRICS_LEVEL=1 and gt4py.next.metrics.program_metrics()"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
