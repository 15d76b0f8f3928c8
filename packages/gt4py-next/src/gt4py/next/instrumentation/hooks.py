"""Released gt4py's ``instrumentation.hooks``: callbacks run around program calls.

``program_call_context`` (every program call), ``embedded_program_call_context`` (a program's
embedded execution), ``compiled_program_call_context`` (the call of a compiled variant) and
``compile_variant_hook`` (a variant about to be compiled). Register a callback with
``hook.register(callback, name=..., index=...)``, take it out with ``hook.remove(...)``; see
:mod:`gt4py.next.instrumentation._hook_machinery` for the semantics.
"""

from __future__ import annotations

from ._hook_machinery import (
    compile_variant_hook as compile_variant_hook,
    compiled_program_call_context as compiled_program_call_context,
    embedded_program_call_context as embedded_program_call_context,
    program_call_context as program_call_context,
)


__all__ = [
    "compile_variant_hook",
    "compiled_program_call_context",
    "embedded_program_call_context",
    "program_call_context",
]
