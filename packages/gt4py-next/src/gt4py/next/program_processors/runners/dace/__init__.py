"""Released gt4py's dace backends by their old path: importable, but not built here.

There is no dace backend in this gt4py.next yet; calling ``make_dace_backend`` says so and
names the backends that exist.
"""

from __future__ import annotations

from typing import Any


def make_dace_backend(**options: Any) -> Any:
    raise NotImplementedError(
        "this gt4py.next has no dace backend yet; use gtx.gtfn_cpu (compiled C++) or "
        "gtx.embedded_numpy"
    )


def __getattr__(name: str) -> Any:
    if name.startswith("run_dace"):
        return make_dace_backend()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
