"""Released gt4py.cartesian's ``backend`` module, as frameworks use it: ``from_name(name)``
gives a backend's description, whose ``storage_info`` says how to allocate fields for it.

    >>> from gt4py.cartesian import backend
    >>> info = backend.from_name("gt:cpu_ifirst").storage_info
    >>> info["device"], info["alignment"], info["layout_map"](("I", "J", "K"))
    ('cpu', 1, (2, 1, 0))

``storage_info`` holds released's keys: ``device`` ("cpu"/"gpu"), ``alignment`` (elements),
``layout_map(dimensions)`` and ``is_optimal_layout(array, dimensions)``, from gt4py.storage's
layout registry, the one place layouts live. ``REGISTRY`` maps every user backend's name to
its description. The pipelines themselves are :mod:`gt4py.cartesian._backends`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gt4py import storage

from . import _backends


class Backend:
    """A GTScript backend as released describes it: ``name``, ``storage_info``,
    ``languages``."""

    def __init__(self, name: str) -> None:
        layout = storage.backend_layout(name)
        self.name = name
        self.storage_info: dict[str, Any] = {
            "alignment": layout.alignment,
            "device": layout.device,
            "layout_map": layout.layout_map,
            "is_optimal_layout": layout.is_optimal_layout,
        }
        pipeline = _backends.get_backend(name)
        stages = {stage.name for stage in pipeline.STAGES}
        computation = "cuda" if "cu" in stages else "c++" if "cpp" in stages else "python"
        self.languages = {"computation": computation, "bindings": ["python"]}

    def __repr__(self) -> str:
        return f"<gt4py.cartesian backend {self.name!r}>"


def from_name(name: str) -> Backend:
    """The backend registered as ``name``; a ``ValueError`` listing the registered ones.

    Descriptions are reused while the name's registration is the same object: a backend
    registered again under the same name gets a new description, never a stale one."""
    if not isinstance(name, str) or name not in _backends.backend_names():
        raise ValueError(
            f"Backend {name!r} is not registered. Valid options are: "
            f"{', '.join(_backends.backend_names())}"
        )
    pipeline = _backends.get_backend(name)
    cached = _DESCRIPTIONS.get(name)
    if cached is None or cached[0] is not pipeline:
        cached = _DESCRIPTIONS[name] = (pipeline, Backend(name))
    return cached[1]


_DESCRIPTIONS: dict[str, tuple[_backends.Backend, Backend]] = {}


class _Registry(Mapping[str, Backend]):
    """Every user backend by name (released's ``backend.REGISTRY``), described on access."""

    def __getitem__(self, name: str) -> Backend:
        if name not in _backends.backend_names():
            raise KeyError(name)
        return from_name(name)

    def __iter__(self) -> Iterator[str]:
        return iter(_backends.backend_names())

    def __len__(self) -> int:
        return len(_backends.backend_names())


REGISTRY: Mapping[str, Backend] = _Registry()

__all__ = ["REGISTRY", "Backend", "from_name"]
