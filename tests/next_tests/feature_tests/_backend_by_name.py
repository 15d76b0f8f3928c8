"""The backend a child-process script of the feature suite runs on, by its name."""

from __future__ import annotations

from typing import Any

import gt4py.next as gtx


def backend_by_name(name: str) -> Any:
    """A backend of ``gtx`` by name, or ``gtfn_gpu_emulated`` (gtfn_gpu's CUDA run on the CPU
    under host emulation, ADR 0019; not a backend of ``gtx``)."""
    if name == "gtfn_gpu_emulated":
        from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend

        return make_gtfn_backend(GTFNConfig(device="emulated"), name=name)
    return getattr(gtx, name)
