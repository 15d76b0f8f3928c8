"""The exceptions native builds raise: one for a broken toolchain, one for bad sources."""

from __future__ import annotations

import pathlib


# Compiler output beyond this is elided from the exception message (never from
# ``compiler_output`` or the kept build log): template errors can run to megabytes.
_MESSAGE_OUTPUT_LINES = 200


class NativeBuildError(RuntimeError):
    """Base of every error raised while building a native extension."""


class ToolchainError(NativeBuildError):
    """A build tool (compiler, CMake, Ninja, nanobind, nvcc) is missing or does not work.

    ``output`` holds what the failing tool printed ("" when it could not even be started).
    """

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output

    def __reduce__(self) -> tuple[type[ToolchainError], tuple[str, str]]:
        return (type(self), (str(self), self.output))


class CompilationError(NativeBuildError):
    """The compiler rejected a module's sources.

    ``compiler_output`` is everything the compiler (through Ninja) printed; ``source_dir`` is
    a copy of the sources and the ``build.ninja`` that failed, kept outside the published
    cache so the failure can be inspected and reproduced with ``ninja -C <source_dir>``.
    """

    def __init__(self, module_name: str, compiler_output: str, source_dir: pathlib.Path) -> None:
        self.module_name = module_name
        self.compiler_output = compiler_output
        self.source_dir = pathlib.Path(source_dir)
        super().__init__(self._message())

    def _message(self) -> str:
        lines = self.compiler_output.rstrip().splitlines()
        shown = "\n".join(lines[:_MESSAGE_OUTPUT_LINES])
        if len(lines) > _MESSAGE_OUTPUT_LINES:
            hidden = len(lines) - _MESSAGE_OUTPUT_LINES
            shown += f"\n... ({hidden} more lines in .compiler_output and build.log)"
        return (
            f"compiling native module {self.module_name!r} failed; sources kept in "
            f"{self.source_dir} (reproduce with: ninja -C {self.source_dir})\n{shown}"
        )

    # Compilation runs in worker processes: the error must cross a pickle boundary intact.
    def __reduce__(self) -> tuple[type[CompilationError], tuple[str, str, pathlib.Path]]:
        return (type(self), (self.module_name, self.compiler_output, self.source_dir))
