"""Pretty-print generated source with clang-format or ruff, when they are installed."""

from __future__ import annotations

import importlib.util
import logging
import shutil
import subprocess
from collections.abc import Sequence
from typing import Final


_logger = logging.getLogger(__name__)

_CLANG_LANGUAGES: Final = {
    "c": "c",
    "cpp": "cpp",
    "c++": "cpp",
    "cxx": "cpp",
    "cuda": "cu",
    "hip": "hip",
}
_PYTHON_LANGUAGES: Final = frozenset({"python", "py"})
SUPPORTED_LANGUAGES: Final = tuple(sorted({*_CLANG_LANGUAGES, *_PYTHON_LANGUAGES}))


def format_source(
    language: str, source: str, *, style: str | None = None, timeout: float = 60.0
) -> str:
    """``source`` formatted by the language's formatter, or unchanged if none is available.

    C, C++, CUDA and HIP go through ``clang-format`` (``style`` is its ``--style``, default
    ``LLVM``); Python through ``ruff format`` in isolated mode (``style`` is passed to
    ``--config``, e.g. ``"line-length = 100"``). A formatter that is missing, fails (e.g. on a
    syntax error) or times out leaves the code unchanged; failures are logged.
    """
    key = language.lower()
    if key in _CLANG_LANGUAGES:
        executable = shutil.which("clang-format")
        if executable is None:
            _logger.debug("clang-format not found; %s code left unformatted", language)
            return source
        command = [
            executable,
            f"--assume-filename=generated.{_CLANG_LANGUAGES[key]}",
            f"--style={style or 'LLVM'}",
        ]
    elif key in _PYTHON_LANGUAGES:
        executable = _find_ruff()
        if executable is None:
            _logger.debug("ruff not found; Python code left unformatted")
            return source
        command = [executable, "format", "--isolated", "--stdin-filename", "generated.py"]
        if style:
            command += ["--config", style]
        command.append("-")
    else:
        raise ValueError(
            f"cannot format {language!r} source; supported languages: "
            f"{', '.join(SUPPORTED_LANGUAGES)}"
        )
    return _run_formatter(command, source, timeout)


def _find_ruff() -> str | None:
    found = shutil.which("ruff")
    if found is not None:
        return found
    if importlib.util.find_spec("ruff") is None:
        return None
    try:
        from ruff.__main__ import find_ruff_bin

        return str(find_ruff_bin())
    except (ImportError, FileNotFoundError):
        return None


def _run_formatter(command: Sequence[str], source: str, timeout: float) -> str:
    try:
        completed = subprocess.run(
            command, input=source, capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        _logger.warning("formatter %s failed to run (%s); code left unformatted", command[0], error)
        return source
    if completed.returncode != 0:
        first_line = (completed.stderr or completed.stdout).strip().splitlines()[:1]
        _logger.warning(
            "formatter %s exited with status %d (%s); code left unformatted",
            command[0],
            completed.returncode,
            first_line[0] if first_line else "no message",
        )
        return source
    return completed.stdout
