"""nanobind's static support library (static mode) compiled as a few unity chunks.

CMake builds the library from its eleven sources, each parsing Python's, the STL's and
nanobind's headers again: about 24 s of CPU. nanobind's sources are made to be compiled as
one translation unit (its ``nb_combined.cpp``), so they are split here into one chunk per build
job, balanced by size, and each chunk is compiled with the flags CMake chose for them: about a
third of the CPU time, spread over the cores. The archive is written where CMake's link command
expects it. Where the configured project is not laid out as expected (no compile commands for
the library), ``None`` tells the caller to let Ninja build it CMake's way.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shlex
import subprocess
from collections.abc import Sequence

from . import _tools


def build_in_chunks(
    build_dir: pathlib.Path, library: str, jobs: int
) -> subprocess.CompletedProcess[str] | None:
    """Build the static library ``library`` (a path relative to ``build_dir``) of the CMake
    project configured in ``build_dir``; the result of the failing step, or of the last one."""
    target = re.fullmatch(r"lib(.+)\.a", pathlib.PurePath(library).name)
    archiver = _cmake_cache_value(build_dir, "CMAKE_AR")
    if target is None or archiver is None:
        return None
    entries = json.loads((build_dir / "compile_commands.json").read_text(encoding="utf-8"))
    marker = f"/{target.group(1)}.dir/"
    sources: list[pathlib.Path] = []
    flags: list[str] | None = None
    for entry in entries:
        tokens = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
        if not any(marker in token for token in tokens):
            continue
        sources.append(pathlib.Path(entry["directory"], entry["file"]).resolve())
        flags = flags or _without_file_flags(tokens)
    if not sources or flags is None:
        return None

    chunk_dir = build_dir / "unity"
    chunk_dir.mkdir(exist_ok=True)
    chunks = _balanced(sources, max(1, min(jobs, len(sources))))
    objects, compiles = [], []
    for index, chunk in enumerate(chunks):
        source = chunk_dir / f"chunk{index}.cpp"
        source.write_text("".join(f'#include "{s}"\n' for s in chunk), encoding="utf-8")
        objects.append(chunk_dir / f"chunk{index}.o")
        compiles.append([*flags, "-c", str(source), "-o", str(objects[-1])])
    # One process per chunk, all at once: there are at most `jobs` of them.
    running = [(c, _tools.start_command(c, cwd=build_dir, role="C++ compiler")) for c in compiles]
    # A chunk whose pipe is full waits for its turn here; all are read before any is judged.
    try:
        results = [(c, p.communicate()[0], p.returncode) for c, p in running]
    except (
        BaseException
    ):  # interrupted: stop every chunk's compiler now, not only the one waited on
        _tools.stop_tools([p for _, p in running])
        raise
    for command, output, returncode in results:
        if returncode != 0:
            return _described(subprocess.CompletedProcess(command, returncode, output))
    output_path = build_dir / library
    output_path.unlink(missing_ok=True)
    archive = [archiver, "rcs", str(output_path), *map(str, objects)]
    return _described(_tools.run_command(archive, cwd=build_dir, role="archiver"))


def _described(completed: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """The output prefixed by the command, as Ninja shows a failing step."""
    completed.stdout = f"{shlex.join(map(str, completed.args))}\n{completed.stdout or ''}"
    return completed


def _without_file_flags(tokens: Sequence[str]) -> list[str]:
    """A CMake compile command without its source, object and dependency-file arguments."""
    kept: list[str] = []
    remaining = iter(tokens)
    for token in remaining:
        if token in {"-o", "-c", "-MT", "-MF"}:
            next(remaining, None)
        elif token not in {"-MD", "-MMD"}:
            kept.append(token)
    return kept


def _balanced(sources: Sequence[pathlib.Path], count: int) -> list[list[pathlib.Path]]:
    """``count`` chunks of about equal total source size (largest first, each to the lightest)."""
    size = {source: os.path.getsize(source) for source in sources}
    chunks: list[list[pathlib.Path]] = [[] for _ in range(count)]
    totals = [0] * count
    for source in sorted(sources, key=lambda s: -size[s]):
        lightest = totals.index(min(totals))
        chunks[lightest].append(source)
        totals[lightest] += size[source]
    return [chunk for chunk in chunks if chunk]


def _cmake_cache_value(build_dir: pathlib.Path, name: str) -> str | None:
    try:
        text = (build_dir / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(rf"^{name}:[A-Z]+=(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else None
