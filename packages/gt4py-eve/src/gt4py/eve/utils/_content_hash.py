"""Content hashes of arbitrary values, via infra's strict fingerprints."""

from __future__ import annotations

from typing import Any

from gt4py.infra import fingerprinting


def content_hash(*values: Any, fingerprinter: fingerprinting.Fingerprinter | None = None) -> str:
    """A hex digest of ``values`` that is equal across processes for equal content.

    Uses ``fingerprinting.strict`` unless another fingerprinter is given; eve nodes are hashed
    by class and fields, leaving out ``fingerprint=False`` fields and source locations.
    """
    chosen = fingerprinting.strict if fingerprinter is None else fingerprinter
    return chosen(values[0] if len(values) == 1 else values)
