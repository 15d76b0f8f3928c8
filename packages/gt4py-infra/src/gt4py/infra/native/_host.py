"""Builds tuned to the build machine's CPU (``-march=native``): the flag, and the CPU's identity.

Such a build may use instructions other CPUs lack; with a cache shared between machines (a
parallel file system, MPI ranks on mixed nodes) it must only be found again on the same kind
of CPU, so the CPU becomes part of its key (ADR 0023).
"""

from __future__ import annotations

import functools
import os
import pathlib
import platform
from collections.abc import Iterable
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from . import _tools


_HOST_TUNING_FLAGS = ("-march=native", "-mcpu=native", "-mtune=native", "-xHost")


def targets_build_host(flags: Iterable[str]) -> bool:
    """Whether any of ``flags`` tunes the code for the CPU it is compiled on."""
    return any(flag in _HOST_TUNING_FLAGS for flag in flags)


def host_tuning_flags(cxx: _tools.Tool) -> list[str]:
    """The flag with which the C++ compiler ``cxx`` tunes code to this CPU; [] if it has none.

    ``-march=native`` where the compiler takes it (GCC, Clang, icpx on x86 and Arm); else
    ``-mcpu=native`` (GCC on POWER, older Clang on Arm). Asked once, when the toolchain is set up.
    """
    from . import _tools  # the toolchain's: a warm process asks only host_cpu_identity

    for flag in ("-march=native", "-mcpu=native"):
        probe = _tools.run_tool(cxx, [flag, "-fsyntax-only", "-x", "c++", os.devnull])
        if probe.returncode == 0 and flag not in probe.stdout:  # no "unused flag" warning
            return [flag]
    return []


@functools.cache
def host_cpu_identity() -> str:
    """The CPU model and instruction-set flags of this machine (Linux: ``/proc/cpuinfo``)."""
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"{platform.machine()}:{platform.processor()}"
    wanted = ("model name", "flags", "Features", "CPU part", "CPU implementer")
    first_cpu = text.split("\n\n", 1)[0]
    fields = [
        line.split(":", 1)[1].strip()
        for line in first_cpu.splitlines()
        if ":" in line and line.split(":", 1)[0].strip() in wanted
    ]
    return f"{platform.machine()}:" + "|".join(fields)
