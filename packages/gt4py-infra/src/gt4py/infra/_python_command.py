"""The command line of every Python interpreter gt4py starts (build workers, probes).

``python -c`` puts the current directory first on ``sys.path``, and the user site directory
and ``PYTHONPATH`` are read before any of gt4py's code runs: a ``pickle.py`` another local
user left in a shared working directory ran in the build worker as the victim (issue 44).
Every interpreter gt4py starts is therefore isolated (``-I``: no current or script directory
on ``sys.path``, no user site, no ``PYTHON*`` variables) and gets the parent's interpreter
settings explicitly instead (ADR 0037): its warning options, ``-X`` options (dev mode,
faulthandler, UTF-8 mode ...), ``-O`` and ``-B``, as the parent has them after reading its own
environment. A build worker then receives the parent's ``sys.path`` (ProcessRunner), so it
imports what its parent would import, not what lies in the directory it runs in.
"""

from __future__ import annotations

import subprocess
import sys


__all__ = ["python_command"]


def python_command(*arguments: str) -> list[str]:
    """``[sys.executable, <the parent's interpreter flags>, "-I", *arguments]``.

    Raises ``OSError`` when the interpreter is unknown (an embedded Python)."""
    if not sys.executable:
        raise OSError("sys.executable is unknown (an embedded interpreter?)")
    # the interpreter flags multiprocessing's spawn passes too (-W, -X, -O, -B, -E, -s ...)
    inherited: list[str] = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]
    return [sys.executable, *inherited, "-I", *arguments]
