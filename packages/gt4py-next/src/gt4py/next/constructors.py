"""Making fields: ``empty``, ``zeros``, ``ones``, ``full``, ``as_field``, ``as_connectivity``.

Every constructor allocates new memory through ``allocator=`` / ``device=`` (see
:mod:`gt4py.next.allocators`); ``as_field`` and ``as_connectivity`` copy their data in.
The public names; the implementation is ``gt4py.next._constructors``.
"""

from ._constructors import (
    DEFAULT_SKIP_VALUE as DEFAULT_SKIP_VALUE,
    FIELD_BYTE_ALIGNMENT as FIELD_BYTE_ALIGNMENT,
    as_connectivity as as_connectivity,
    as_field as as_field,
    empty as empty,
    full as full,
    ones as ones,
    zeros as zeros,
)


__all__ = [
    "DEFAULT_SKIP_VALUE",
    "FIELD_BYTE_ALIGNMENT",
    "as_connectivity",
    "as_field",
    "empty",
    "full",
    "ones",
    "zeros",
]
