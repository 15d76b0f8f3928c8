"""Released gt4py's gtfn backends by their old names (``gtx.gtfn_cpu`` is the way to go).

``GTFNBackendFactory(gpu=False)`` returns ``gtx.gtfn_cpu`` (``gpu=True``: ``gtx.gtfn_gpu``);
``run_gtfn``/``run_gtfn_cached`` are ``gtx.gtfn_cpu`` too, ``run_gtfn_gpu`` is ``gtx.gtfn_gpu``. Builder options of the released factory are not taken: build a
customized backend with ``gt4py.next.backends.gtfn.make_gtfn_backend``.
"""

from __future__ import annotations

from typing import Any


def GTFNBackendFactory(*, gpu: bool = False, **options: Any) -> Any:
    from ... import backends

    if options:
        raise TypeError(
            f"GTFNBackendFactory: options {sorted(options)} are not supported here; build a "
            "customized backend with gt4py.next.backends.gtfn.make_gtfn_backend"
        )
    return backends.gtfn_gpu if gpu else backends.gtfn_cpu


def __getattr__(name: str) -> Any:
    if name in ("run_gtfn", "run_gtfn_cached", "run_gtfn_imperative"):
        return GTFNBackendFactory()
    if name == "run_gtfn_gpu":
        return GTFNBackendFactory(gpu=True)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
