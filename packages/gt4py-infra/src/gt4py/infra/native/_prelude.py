"""The precompiled prelude: ``<gt4py/extension_prelude.hpp>`` compiled once per compile command.

A small generated module spends most of its compile parsing the standard library and
nanobind headers. A build with ``BuildOptions(precompiled_prelude=True)`` force-includes the
shipped prelude (``-include``) in front of its C++ sources; next to that copy of the header
lies its precompiled form, which the compiler reads instead of parsing the text. It is built
once per exact compile command (toolchain, flags, defines, includes: a precompiled header is
only valid for the flags it was made with) into the ``native/preludes`` build cache.

The precompiled form is used only where the compiler is seen to take it (``-H`` names the
loaded ``.gch`` with ``!``, GCC's mark); otherwise (another compiler, a failed precompile) the
entry records that and modules build as before. The prelude changes no meaning: every header
in it is one the sources include themselves, and its include guards make theirs no-ops.
"""

from __future__ import annotations

import logging
import pathlib
import shlex
import shutil
from collections.abc import Sequence
from typing import Final

from gt4py.infra import caching

from . import _tools


HEADER: Final = "gt4py/extension_prelude.hpp"
_COPY: Final = "extension_prelude.hpp"  # the header's copy in the entry, the .gch beside it
_UNUSABLE: Final = "unusable.txt"  # present when the compiler would not take the precompile
_logger = logging.getLogger(__name__)


def prelude_flags(
    compile_command: Sequence[str], shipped_include_dir: pathlib.Path, headers_digest: str
) -> list[str]:
    """The flags that force-include the precompiled prelude into a C++ compile made with
    ``compile_command`` (the full command before its source and output); ``[]`` when this
    compiler cannot use one."""
    key = caching.CacheKey(
        {"compile_command": shlex.join(compile_command), "shipped_headers": headers_digest}
    )
    cache = caching.BuildDirCache("native/preludes")
    with caching.build_label("the precompiled prelude"):
        entry = cache.get_or_build(
            key, lambda build_dir: _precompile(compile_command, shipped_include_dir, build_dir)
        )
    if (entry / _UNUSABLE).exists():
        return []
    return ["-include", str(entry / _COPY)]


def _precompile(
    compile_command: Sequence[str], shipped_include_dir: pathlib.Path, build_dir: pathlib.Path
) -> None:
    copy = build_dir / _COPY
    shutil.copyfile(shipped_include_dir / HEADER, copy)
    compiler, *flags = compile_command
    header = _tools.run_command(
        [compiler, *flags, "-x", "c++-header", str(copy), "-o", f"{copy}.gch"],
        cwd=build_dir,
        role="C++ compiler",
    )
    why = None
    if header.returncode != 0:
        why = f"precompiling failed:\n{header.stdout}"
    else:
        probe = build_dir / "probe.cpp"
        probe.write_text("int gt4py_prelude_probe;\n", encoding="utf-8")
        used = _tools.run_command(
            [compiler, *flags, "-H", "-include", str(copy), "-c", str(probe), "-o", "probe.o"],
            cwd=build_dir,
            role="C++ compiler",
        )
        if used.returncode != 0 or f"! {copy}.gch" not in used.stdout:
            why = f"the compiler does not load the precompiled header:\n{used.stdout[:2000]}"
        for leftover in (probe, build_dir / "probe.o"):
            leftover.unlink(missing_ok=True)
    if why is not None:
        pathlib.Path(f"{copy}.gch").unlink(missing_ok=True)
        (build_dir / _UNUSABLE).write_text(why, encoding="utf-8")
        _logger.info("modules build without a precompiled prelude: %s", why.splitlines()[0])
