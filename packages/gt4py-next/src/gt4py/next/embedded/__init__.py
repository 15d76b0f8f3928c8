"""Embedded execution: field operations run directly on arrays (numpy, cupy, jax.numpy).

This is the reference semantics of gt4py.next. An operator body runs embedded by calling
the Python function with fields inside an :func:`embedded_context` that provides the offset
provider for shifts such as ``f(E2V)`` and, with ``lazy=True``, reuses dead temporaries::

    with embedded_context(offset_provider=offset_provider, lazy=True):
        out[domain] = operator_body(*fields)
"""

# The operation modules register themselves with the field classes on import (the classes do not
# import them): import them with the package, before any field can be used.
from . import _builtins as _builtins, _elementwise as _elementwise, _shifts as _shifts
from .context import (
    embedded_context as embedded_context,
    get_offset_provider as get_offset_provider,
)
from .exceptions import (
    DomainError as DomainError,
    EmbeddedError as EmbeddedError,
    FieldDTypeError as FieldDTypeError,
    NonContiguousDomainError as NonContiguousDomainError,
    OffsetProviderError as OffsetProviderError,
)
from .nd_array_field import (
    EmbeddedField as EmbeddedField,
    NdArrayConnectivityField as NdArrayConnectivityField,
    NdArrayField as NdArrayField,
)


__all__ = [
    "DomainError",
    "EmbeddedError",
    "EmbeddedField",
    "FieldDTypeError",
    "NdArrayConnectivityField",
    "NdArrayField",
    "NonContiguousDomainError",
    "OffsetProviderError",
    "embedded_context",
    "get_offset_provider",
]
