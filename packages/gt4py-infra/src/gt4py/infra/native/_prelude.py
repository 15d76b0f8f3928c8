"""The precompiled prelude: ``<gt4py/extension_prelude.hpp>`` compiled once per compile command.

A small generated module spends most of its compile parsing the standard library and
nanobind headers. A build with ``BuildOptions(precompiled_prelude=True)`` force-includes the
shipped prelude (``-include``) in front of its C++ sources; next to that copy of the header
lies its precompiled form, which the compiler reads instead of parsing the text. It is built
once per exact compile command (toolchain, flags, defines, includes: a precompiled header is
only valid for the flags it was made with) into the ``native/preludes`` build cache.

The key also holds the content of every header the precompile reads, as the compiler's
dependency output (``-M``) lists them for that command: a header changed in place (a
nanobind upgrade in the same environment) makes a new precompile, never a stale one that
the compiler would load without a check (issue 44). The list is made once per process and
command and its files' contents hashed again whenever one of them changed on disk.

The precompiled form is used only where the compiler is seen to take it (``-H`` names the
loaded ``.gch`` with ``!``, GCC's mark); otherwise (another compiler, one that refuses to
precompile) the entry records that and modules build as before. A precompile that failed
for a passing reason (the compiler killed, the disk full, a compiler crash) is not recorded:
modules build without the prelude meanwhile and the precompile is tried again after
``RETRY_AFTER_S``, or in the next process. The prelude changes no meaning: every header in it
is one the sources include themselves, and its include guards make theirs no-ops.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pathlib
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import Final

from gt4py.infra import caching

from . import _tools
from ._failed_builds import _DISK_FULL_MESSAGES


HEADER: Final = "gt4py/extension_prelude.hpp"
_COPY: Final = "extension_prelude.hpp"  # the header's copy in the entry, the .gch beside it
_UNUSABLE: Final = "unusable.txt"  # present when the compiler would not take the precompile
_logger = logging.getLogger(__name__)

#: Seconds before a precompile that failed for a passing reason is tried again (per process).
RETRY_AFTER_S: Final = 60.0
# What a compiler's output says when it did not fail on the header but was stopped: killed
# (by the OOM killer, a timeout, a user), crashed, or out of disk space.
_TRANSIENT_MESSAGES: Final = (
    *_DISK_FULL_MESSAGES,
    "signal terminated program",  # GCC's driver: "Killed signal terminated program cc1plus"
    "internal compiler error",
    "unable to execute command",  # Clang's driver, its front end killed
    "crashed with signal",
)


class _TransientFailure(Exception):
    """The precompile failed for a reason that may pass (not a refusal of the compiler)."""


# compile command -> when its precompile may be tried again (monotonic seconds)
_retry_at: dict[str, float] = {}
# compile command -> (digest of the headers read, the stat of each of them)
_headers_read: dict[str, tuple[str, tuple[tuple[str, int, int, int], ...]]] = {}
_lock = threading.Lock()


def prelude_flags(
    compile_command: Sequence[str], shipped_include_dir: pathlib.Path, headers_digest: str
) -> list[str]:
    """The flags that force-include the precompiled prelude into a C++ compile made with
    ``compile_command`` (the full command before its source and output); ``[]`` when this
    compiler cannot use one, or its precompile failed lately for a passing reason."""
    command = shlex.join(compile_command)
    with _lock:
        if time.monotonic() < _retry_at.get(command, 0.0):
            return []
    key = caching.CacheKey(
        {
            "compile_command": command,
            "shipped_headers": headers_digest,
            "headers_read": _headers_read_digest(compile_command, shipped_include_dir),
        }
    )
    cache = caching.BuildDirCache("native/preludes")
    try:
        with caching.build_label("the precompiled prelude"):
            entry = cache.get_or_build(
                key, lambda build_dir: _precompile(compile_command, shipped_include_dir, build_dir)
            )
    except _TransientFailure as failure:
        with _lock:
            _retry_at[command] = time.monotonic() + RETRY_AFTER_S
        _logger.warning(
            "building without the precompiled prelude for now (tried again in %.0f s): %s",
            RETRY_AFTER_S,
            failure,
        )
        return []
    if (entry / _UNUSABLE).exists():
        return []
    return ["-include", str(entry / _COPY)]


def _headers_read_digest(compile_command: Sequence[str], shipped_include_dir: pathlib.Path) -> str:
    """A digest of the names and contents of every header the precompile reads; listed by
    the compiler (``-M``) once per process and command, listed and hashed again when one of
    them changed on disk since (its size, modification time or inode)."""
    command = shlex.join(compile_command)
    with _lock:
        known = _headers_read.get(command)
    if known is not None and _stats([path for path, *_ in known[1]]) == known[1]:
        return known[0]
    paths = _list_headers(compile_command, shipped_include_dir)
    if paths is None:  # the compiler cannot list them (nor precompile, as far as is seen)
        with _lock:
            _headers_read[command] = ("unlisted", ())
        return "unlisted"
    stats = _stats(paths)
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"{path}\0".encode())
        try:
            digest.update(hashlib.sha256(pathlib.Path(path).read_bytes()).digest())
        except OSError as error:
            digest.update(f"unreadable: {error.errno}".encode())
    result = digest.hexdigest()
    with _lock:
        _headers_read[command] = (result, stats)
    return result


def _stats(paths: Sequence[str]) -> tuple[tuple[str, int, int, int], ...]:
    result = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            result.append((path, -1, -1, -1))
        else:
            result.append((path, info.st_size, info.st_mtime_ns, info.st_ino))
    return tuple(result)


def _list_headers(
    compile_command: Sequence[str], shipped_include_dir: pathlib.Path
) -> list[str] | None:
    """The files the prelude's precompile reads, from the compiler's ``-M`` output (absolute,
    sorted); ``None`` if the compiler fails to list them."""
    compiler, *flags = compile_command
    with tempfile.TemporaryDirectory(prefix="gt4py-prelude-deps-") as scratch:
        deps = pathlib.Path(scratch) / "prelude.d"
        listed = _tools.run_command(
            [
                compiler,
                *flags,
                "-x",
                "c++-header",
                str(shipped_include_dir / HEADER),
                "-M",
                "-MF",
                str(deps),
            ],
            cwd=scratch,
            role="C++ compiler",
        )
        if listed.returncode != 0 or not deps.is_file():
            return None
        text = deps.read_text(encoding="utf-8", errors="surrogateescape")
        # make syntax: "target: dep dep \<newline> dep"; a space in a name is "\ "
        text = text.replace("\\\n", " ").replace("\\ ", "\0")
        _, _, listed_files = text.partition(": ")
        return sorted(
            {
                os.path.abspath(os.path.join(scratch, token.replace("\0", " ")))
                for token in listed_files.split()
            }
        )


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
    _raise_if_transient(header, "the precompile")
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
        _raise_if_transient(used, "the probe of the precompiled header")
        if used.returncode != 0 or f"! {copy}.gch" not in used.stdout:
            why = f"the compiler does not load the precompiled header:\n{used.stdout[:2000]}"
        for leftover in (probe, build_dir / "probe.o"):
            leftover.unlink(missing_ok=True)
    if why is not None:
        pathlib.Path(f"{copy}.gch").unlink(missing_ok=True)
        (build_dir / _UNUSABLE).write_text(why, encoding="utf-8")
        _logger.info("modules build without a precompiled prelude: %s", why.splitlines()[0])


def _raise_if_transient(completed: subprocess.CompletedProcess[str], what: str) -> None:
    """A :class:`_TransientFailure` if the compiler was stopped rather than refused: killed
    by a signal, crashed, or out of disk space (its output says so)."""
    output = completed.stdout or ""
    if completed.returncode < 0 or (
        completed.returncode != 0 and any(message in output for message in _TRANSIENT_MESSAGES)
    ):
        raise _TransientFailure(
            f"{what} stopped (exit status {completed.returncode}):\n{output[:2000]}"
        )
