"""Fields backed by an array of any array-API namespace (numpy now; cupy and jax alike).

:class:`EmbeddedField` gives every embedded field its operators; :class:`NdArrayField` holds
one array, :class:`NdArrayConnectivityField` a neighbour table. The operations themselves
live in the private ``_elementwise``, ``_shifts``, ``_reductions`` and ``_concat_where``
modules, which work on any embedded field; as they build fields of the classes here, the
classes reach them through the functions those modules register (:func:`register_operations`).

This module is the public face: :class:`EmbeddedField` lives in ``_embedded_field``,
:class:`NdArrayField` in ``_ndarray_field``, :class:`NdArrayConnectivityField` in
``_ndarray_connectivity``, the registry of operations in ``_field_operations``.
"""

from __future__ import annotations

from ._embedded_field import EmbeddedField as EmbeddedField, is_field as is_field
from ._field_operations import register_operations as register_operations
from ._ndarray_connectivity import NdArrayConnectivityField as NdArrayConnectivityField
from ._ndarray_field import NdArrayField as NdArrayField
