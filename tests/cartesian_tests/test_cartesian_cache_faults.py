"""A damaged stencil cache entry is detected, reported and rebuilt by the next process.

Every file a stencil loads lies in its cache entry (``cartesian/stencils``): the generated
module and, for the C++ backends, the extension beside it. infra checks the entry (size and
checksum of each file) on every read, so each kind of damage below must give, in the next
process, the right result and the diagnostic ``entry corrupt, rebuilt``; the process after
that loads the healed entry. ``benchmarks/cartesian_cache_faults.py`` prints the same matrix
as a table (also for another checkout, to compare).

A bit flip turns the stencil's constant 2.5 into 3.5 where it can (the source text ``2.5``,
the IEEE double in the extension or in bytecode), so that damage which slipped through would
show as a wrong result rather than as luck.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import struct
import subprocess
import sys
import textwrap
from collections.abc import Callable

import pytest


SCRIPT = textwrap.dedent(
    """
    import json
    import sys

    import numpy as np
    from gt4py.cartesian import gtscript
    from gt4py.cartesian.gtscript import PARALLEL, computation, interval

    def scale(a: gtscript.Field[np.float64], out: gtscript.Field[np.float64]):
        with computation(PARALLEL), interval(...):
            out = 2.5 * a

    stencil = gtscript.stencil(backend=sys.argv[1], definition=scale, name=sys.argv[2])
    a = np.arange(8.0).reshape(2, 2, 2)
    out = np.zeros_like(a)
    stencil(a, out)
    print("RESULT", json.dumps({"sum": float(out.sum()), "module": stencil.source_path}))
    """
)
RIGHT, WRONG = 2.5 * 28.0, 3.5 * 28.0  # sum(arange(8)) == 28
MODULE_FILE = "stencil_module.py"
MANIFEST = ".gt4py-cache-manifest.json"


def flip_bit(path: pathlib.Path) -> None:
    """Flip one bit: 2.5 -> 3.5 in a double or in text if either is there, else mid-file."""
    data = bytearray(path.read_bytes())
    double = struct.pack("<d", 2.5)
    if (at := data.find(double)) >= 0:
        data[at + 6] ^= 0x08  # exponent/mantissa byte 0x04 -> 0x0C: 3.5
    elif (at := data.find(b"2.5")) >= 0:
        data[at] ^= 0x01  # '2' -> '3'
    else:
        data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))


def truncate(path: pathlib.Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _extension(entry: pathlib.Path) -> pathlib.Path:
    """The extension the stencil loads: beside its module (or, in checkouts before issue 14,
    where the module's ``absolute_path`` says, in the native-module cache)."""
    beside = [p for p in entry.iterdir() if p.name.startswith("gtcpp_") and p.suffix == ".so"]
    if beside:
        (extension,) = beside
        return extension
    recorded = re.search(r"absolute_path='([^']+)'", (entry / MODULE_FILE).read_text())
    assert recorded is not None, "the stencil module names no extension"
    return pathlib.Path(recorded[1])


def _native_extension(entry: pathlib.Path) -> pathlib.Path:
    root = entry.parents[3]  # <root>/cartesian/stencils/_dirs/<digest>
    (extension,) = root.glob(f"native/modules/_dirs/*/{_extension(entry).name}")
    return extension


def _bytecode(entry: pathlib.Path) -> list[pathlib.Path]:
    return sorted(entry.glob("__pycache__/*.pyc"))


# name -> (damage done to the entry directory, C++ backends only)
FAULTS: dict[str, tuple[Callable[[pathlib.Path], None], bool]] = {
    "module truncated": (lambda entry: truncate(entry / MODULE_FILE), False),
    "module bit flip": (lambda entry: flip_bit(entry / MODULE_FILE), False),
    "module deleted": (lambda entry: (entry / MODULE_FILE).unlink(), False),
    "manifest garbage": (lambda entry: (entry / MANIFEST).write_bytes(b"\x00{garbage"), False),
    "manifest deleted": (lambda entry: (entry / MANIFEST).unlink(), False),
    "bytecode bit flip": (lambda entry: [flip_bit(p) for p in _bytecode(entry)], False),
    "extension truncated": (lambda entry: truncate(_extension(entry)), True),
    "extension bit flip": (lambda entry: flip_bit(_extension(entry)), True),
    "extension deleted": (lambda entry: _extension(entry).unlink(), True),
    "native-cache extension truncated": (lambda entry: truncate(_native_extension(entry)), True),
}


def run(
    directory: pathlib.Path, backend: str, name: str, cache: pathlib.Path, src: str | None = None
) -> tuple[subprocess.CompletedProcess[str], dict[str, object] | None]:
    """Run the stencil in a new process, as users do (Python's bytecode cache on)."""
    script = directory / "fault_script.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(GT4PY_BUILD_CACHE_DIR=str(cache), GT4PY_CACHE_DIAGNOSTICS="1")
    if src is not None:
        env["PYTHONPATH"] = src
    done = subprocess.run(
        [sys.executable, str(script), backend, name],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    result = None
    if done.returncode == 0 and "RESULT " in done.stdout:
        result = json.loads(done.stdout.split("RESULT ", 1)[1])
    return done, result


def classify(done: subprocess.CompletedProcess[str], result: dict[str, object] | None) -> str:
    """The outcome of a run after damage: rebuilt, unaffected, error (...) or WRONG RESULT."""
    if result is None:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        return f"error ({lines[-1][:90] if lines else done.returncode})"
    if result["sum"] != RIGHT:
        return f"WRONG RESULT ({result['sum']} instead of {RIGHT})"
    if "entry corrupt, rebuilt" in done.stderr or "cartesian/stencils' for entry" in done.stderr:
        return "rebuilt"
    return "unaffected"


def _cases() -> list[object]:
    cases: list[object] = []
    for backend in ("numpy", "debug", "gt:cpu_ifirst"):
        for fault, (_, cpp_only) in FAULTS.items():
            if cpp_only and not backend.startswith("gt:"):
                continue
            marks = [pytest.mark.slow] if backend.startswith("gt:") else []
            cases.append(pytest.param(backend, fault, marks=marks, id=f"{backend}-{fault}"))
    return cases


@pytest.mark.parametrize(("backend", "fault"), _cases())
def test_damaged_entry_is_rebuilt_in_the_next_process(tmp_path, backend, fault, request):
    if backend.startswith("gt:"):  # share the toolchain of the C++ tests (set up once)
        cache = pathlib.Path(request.getfixturevalue("_shared_native_cache"))
    else:
        cache = tmp_path / "cache"
    name = "scale_" + "".join(c if c.isalnum() else "_" for c in fault)
    done, result = run(tmp_path, backend, name, cache)
    assert result is not None and result["sum"] == RIGHT, done.stderr
    entry = pathlib.Path(str(result["module"])).parent
    assert not _bytecode(entry), "generated modules must not keep unchecked bytecode"

    damage, _ = FAULTS[fault]
    damage(entry)
    done, result = run(tmp_path, backend, name, cache)
    outcome = classify(done, result)
    if fault in ("bytecode bit flip", "native-cache extension truncated"):
        # nothing the stencil loads was damaged (there is no bytecode; the stencil's entry
        # holds its own copy of the extension)
        assert outcome == "unaffected", done.stderr
    else:
        assert outcome == "rebuilt", done.stderr
        assert "entry corrupt, rebuilt" in done.stderr, done.stderr
    healed, result = run(tmp_path, backend, name, cache)
    assert classify(healed, result) == "unaffected", healed.stderr
