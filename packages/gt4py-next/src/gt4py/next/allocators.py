"""Where field memory comes from: the ``allocator=`` protocol of the field constructors.

``gtx.zeros(domain, allocator=...)`` accepts ``None`` (numpy, or cupy for a GPU ``device=``),
an array namespace, a :class:`FieldBufferAllocator` (``__gt_allocate__``), or anything with a
``__gt_allocator__`` holding one of those (backends, programs). The public names; the
implementation is ``gt4py.next._allocators``.
"""

from ._allocators import (
    FieldBufferAllocator as FieldBufferAllocator,
    NamespaceAllocator as NamespaceAllocator,
    resolve_allocator as resolve_allocator,
)


__all__ = ["FieldBufferAllocator", "NamespaceAllocator", "resolve_allocator"]
