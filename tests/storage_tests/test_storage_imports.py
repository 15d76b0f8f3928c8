"""``import gt4py.storage`` pulls in numpy and gt4py.infra only: no cupy, jax, dace, torch ..."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap


# Run in a fresh interpreter: a meta-path finder records every import *attempt*, so a guarded
# `try: import cupy` is caught even where cupy is not installed.
_PROBE = textwrap.dedent(
    """
    import json, sys

    attempts = []

    class Recorder:
        def find_spec(self, name, path=None, target=None):
            attempts.append(name)
            return None

    sys.meta_path.insert(0, Recorder())
    before = set(sys.modules)
    import gt4py.storage
    new = sorted(set(sys.modules) - before)
    print(json.dumps({"attempts": attempts, "new": new}))
    """
)

_HEAVY = (
    "cupy",
    "cupyx",
    "jax",
    "jaxlib",
    "dace",
    "torch",
    "numba",
    "gt4py.next",
    "gt4py.cartesian",
    "gt4py.eve",
)


def _probe() -> dict[str, list[str]]:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_import_tries_no_heavy_or_optional_package() -> None:
    probe = _probe()
    tried = {name for name in probe["attempts"] if name.startswith(_HEAVY)}
    assert not tried, f"import gt4py.storage tried to import {sorted(tried)}"


def _is_allowed(module: str) -> bool:
    root = module.split(".", maxsplit=1)[0]
    return (
        root in sys.stdlib_module_names
        or root in ("numpy", "gt4py", "cython_runtime")
        or root.startswith("_cython_")  # the runtime of numpy's compiled extensions
    )


def test_import_loads_only_numpy_infra_and_the_stdlib() -> None:
    probe = _probe()
    foreign = sorted(name for name in probe["new"] if not _is_allowed(name))
    assert not foreign, f"import gt4py.storage loaded {foreign}"
    gt4py_modules = [name for name in probe["new"] if name.startswith("gt4py.")]
    assert "gt4py.storage" in gt4py_modules
    assert all(name.startswith(("gt4py.storage", "gt4py.infra")) for name in gt4py_modules)
