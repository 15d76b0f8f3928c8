"""eve's deconstructors for infra fingerprints, by their old path; they live in
`gt4py.eve.datamodels._fingerprints` (below `datamodels`, which registers them on import)."""

from __future__ import annotations

from .datamodels._fingerprints import (
    _getters as _getters,
    deconstruct_datamodel as deconstruct_datamodel,
    register as register,
)


__all__ = ["deconstruct_datamodel", "register"]
