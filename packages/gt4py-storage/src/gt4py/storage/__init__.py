"""gt4py.storage: buffers, layouts and devices for both DSL stacks.

- The GTScript storage API: :func:`empty`, :func:`zeros`, :func:`ones`, :func:`full`,
  :func:`from_array` (``backend=``, ``aligned_index=``, ``dimensions=``), returning plain numpy
  or cupy arrays.
- The backend layout registry: :func:`register_backend`, :func:`backend_layout`,
  :func:`registered_backends`, :func:`unregister_backend`.
- The allocator core shared with gt4py.next: :func:`allocate` returning a :class:`TensorBuffer`.
- Memory sharing between arrays, as both DSL stacks check it before a call:
  :func:`memory_owner` (with :data:`FOREIGN_MEMORY`), :func:`byte_span`, :func:`spans_overlap`,
  :func:`data_address`.
- The GPU backends' check before they build: :func:`require_gpu` (cupy and a usable GPU, or
  :class:`NoGPUError` / an ``ImportError`` that names the problem).

Importing this package imports numpy and gt4py.infra only; cupy is imported on first GPU use.
"""

from ._creation import (
    empty as empty,
    from_array as from_array,
    full as full,
    ones as ones,
    zeros as zeros,
)
from ._devices import NoGPUError as NoGPUError, require_gpu as require_gpu
from ._layouts import (
    AxisOrderLayout as AxisOrderLayout,
    LayoutMaker as LayoutMaker,
    LayoutMap as LayoutMap,
    c_order_layout as c_order_layout,
    is_valid_layout_map as is_valid_layout_map,
    strides_follow_layout_map as strides_follow_layout_map,
)
from ._memory import (
    FOREIGN_MEMORY as FOREIGN_MEMORY,
    byte_span as byte_span,
    data_address as data_address,
    memory_owner as memory_owner,
    spans_overlap as spans_overlap,
)
from ._registry import (
    BackendLayout as BackendLayout,
    UnknownBackendError as UnknownBackendError,
    backend_layout as backend_layout,
    register_backend as register_backend,
    registered_backends as registered_backends,
    unregister_backend as unregister_backend,
)
from ._tensor_buffer import TensorBuffer as TensorBuffer, allocate as allocate
from ._version import __version__ as __version__


__all__ = [
    "FOREIGN_MEMORY",
    "AxisOrderLayout",
    "BackendLayout",
    "LayoutMaker",
    "LayoutMap",
    "NoGPUError",
    "TensorBuffer",
    "UnknownBackendError",
    "__version__",
    "allocate",
    "backend_layout",
    "byte_span",
    "c_order_layout",
    "data_address",
    "empty",
    "from_array",
    "full",
    "is_valid_layout_map",
    "memory_owner",
    "ones",
    "register_backend",
    "registered_backends",
    "require_gpu",
    "spans_overlap",
    "strides_follow_layout_map",
    "unregister_backend",
    "zeros",
]
