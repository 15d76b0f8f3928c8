"""Making fields: ``empty``, ``zeros``, ``ones``, ``full``, ``as_field``, ``as_connectivity``.

Every constructor allocates new memory through ``allocator=`` / ``device=`` (see
:mod:`gt4py.next.allocators`); ``as_field`` and ``as_connectivity`` copy their data in.
To wrap an existing array without copying, use ``NdArrayField(domain, array)``.
Each has ``.partial(**kwargs)`` (released gt4py's fluid partial): ``zeros.partial(allocator=b)``
is ``functools.partial(zeros, allocator=b)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from gt4py.eve.utils import with_fluid_partial
from gt4py.infra.definitions import CPU_DEVICE, Device

from ._allocators import NamespaceAllocator, resolve_allocator
from ._dimensions import Dimension, NamedIndex
from ._domain import Domain, DomainLike, UnitRange, domain as as_domain
from ._field import scalar_dtype
from .embedded import _array_ns
from .embedded.nd_array_field import NdArrayConnectivityField, NdArrayField


@with_fluid_partial
def empty(
    domain: DomainLike,
    dtype: Any = np.float64,
    *,
    aligned_index: Sequence[NamedIndex] | None = None,
    allocator: Any = None,
    device: Device | None = None,
) -> NdArrayField:
    """A new field over ``domain`` with uninitialized values.

    >>> import gt4py.next as gtx
    >>> I = gtx.Dimension("I")
    >>> gtx.empty({I: 3}).domain
    Domain(I=[0, 3))
    """
    return _allocate(
        domain, dtype, None, aligned_index=aligned_index, allocator=allocator, device=device
    )


@with_fluid_partial
def zeros(
    domain: DomainLike,
    dtype: Any = np.float64,
    *,
    aligned_index: Sequence[NamedIndex] | None = None,
    allocator: Any = None,
    device: Device | None = None,
) -> NdArrayField:
    """A new field over ``domain`` filled with zeros."""
    return _allocate(
        domain, dtype, 0, aligned_index=aligned_index, allocator=allocator, device=device
    )


@with_fluid_partial
def ones(
    domain: DomainLike,
    dtype: Any = np.float64,
    *,
    aligned_index: Sequence[NamedIndex] | None = None,
    allocator: Any = None,
    device: Device | None = None,
) -> NdArrayField:
    """A new field over ``domain`` filled with ones."""
    return _allocate(
        domain, dtype, 1, aligned_index=aligned_index, allocator=allocator, device=device
    )


@with_fluid_partial
def full(
    domain: DomainLike,
    fill_value: Any,
    dtype: Any = None,
    *,
    aligned_index: Sequence[NamedIndex] | None = None,
    allocator: Any = None,
    device: Device | None = None,
) -> NdArrayField:
    """A new field over ``domain`` filled with ``fill_value`` (dtype from it unless given)."""
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
    if isinstance(fill_value, (bool, int, float)):
        from .embedded._elementwise import literal

        fill_value = literal(fill_value, scalar_dtype(dtype), "full")
    return _allocate(
        domain, dtype, fill_value, aligned_index=aligned_index, allocator=allocator, device=device
    )


def _allocate(
    domain: DomainLike,
    dtype: Any,
    fill_value: Any,
    *,
    aligned_index: Sequence[NamedIndex] | None,
    allocator: Any,
    device: Device | None,
) -> NdArrayField:
    dom = _finite_domain(as_domain(domain))
    dt = scalar_dtype(dtype)
    resolved = resolve_allocator(allocator, device)
    if isinstance(resolved, NamespaceAllocator):
        if aligned_index and _array_ns.namespace_name(resolved.array_ns) in ("numpy", "cupy"):
            data = _aligned_buffer(dom, dt, aligned_index, device)
            if fill_value is not None:
                data[...] = fill_value
        else:
            data = resolved.full(dom.shape, fill_value, dt, device)
        return NdArrayField._make(dom, data, resolved.array_ns)
    data = _custom_buffer(resolved, dom, dt, device, aligned_index)
    if fill_value is not None:
        data[...] = fill_value
    return NdArrayField._make(dom, data, _array_ns.namespace_of(data))


#: Byte alignment of the element at ``aligned_index``: one cache line, which is also enough
#: for every SIMD width the C++ backends vectorize for.
FIELD_BYTE_ALIGNMENT: Final = 64


def _aligned_buffer(
    domain: Domain,
    dtype: np.dtype[Any],
    aligned_index: Sequence[NamedIndex],
    device: Device | None,
) -> Any:
    """A buffer from gt4py.storage's allocator core whose ``aligned_index`` point is aligned.

    ``aligned_index`` is in domain coordinates (``J(0)`` on a domain starting at ``J=-2`` is the
    third element along J); dimensions it does not name align at the domain's start.
    """
    from gt4py import storage

    position = [0] * len(domain.dims)
    for index in aligned_index:
        axis = domain.dim_index(index.dim)
        if axis is None:
            raise ValueError(
                f"aligned_index names {index.dim}, which is not a dimension of {domain}"
            )
        start = domain[index.dim].unit_range.start
        position[axis] = int(index.value - start)
    buffer = storage.allocate(
        domain.shape,
        dtype,
        byte_alignment=FIELD_BYTE_ALIGNMENT,
        aligned_index=position,
        device=device if device is not None else CPU_DEVICE,
    )
    return buffer.ndarray


def _custom_buffer(
    allocator: Any,
    domain: Domain,
    dtype: np.dtype[Any],
    device: Device | None,
    aligned_index: Sequence[NamedIndex] | None,
) -> Any:
    buffer = allocator.__gt_allocate__(
        domain=domain, dtype=dtype, device=device, aligned_index=aligned_index
    )
    if _array_ns.namespace_of(buffer) is None:
        raise TypeError(
            f"{allocator!r}.__gt_allocate__ returned {type(buffer).__name__}, not an array"
        )
    if tuple(buffer.shape) != domain.shape or buffer.dtype != dtype:
        raise ValueError(
            f"{allocator!r}.__gt_allocate__ returned an array of shape {tuple(buffer.shape)} and "
            f"dtype {buffer.dtype}; expected {domain.shape} and {dtype}"
        )
    return buffer


def _finite_domain(dom: Domain) -> Domain:
    if not dom.is_finite():
        raise ValueError(f"cannot allocate a field over the unbounded {dom}")
    return dom


_NO_ORIGIN: Final[Mapping[Dimension, int]] = {}


def _field_domain(
    domain: DomainLike | Sequence[Dimension],
    shape: tuple[int, ...],
    origin: Mapping[Dimension, int] | None,
) -> Domain:
    """The domain of new field data of ``shape``: given, or from dims and an origin."""
    if isinstance(domain, Sequence) and all(isinstance(d, Dimension) for d in domain):
        dims: tuple[Dimension, ...] = tuple(domain)  # type: ignore[arg-type]  # checked above
        if len(dims) != len(shape):
            raise ValueError(
                f"data with {len(shape)} dimensions (shape {shape}) does not fit the "
                f"{len(dims)} dimensions ({', '.join(map(str, dims))})"
            )
        origin_of: Mapping[Dimension, int] = origin or _NO_ORIGIN
        unknown = [d for d in origin_of if d not in dims]
        if unknown:
            raise ValueError(
                f"origin names dimensions the field lacks: {', '.join(map(str, unknown))}"
            )
        ranges = tuple(
            UnitRange(-origin_of.get(d, 0), -origin_of.get(d, 0) + n)
            for d, n in zip(dims, shape, strict=True)
        )
        return Domain._make(dims, ranges)
    if origin is not None:
        raise ValueError("origin= only goes with a list of dimensions, not with a full domain")
    dom = _finite_domain(as_domain(domain))  # type: ignore[arg-type]
    if dom.shape != tuple(shape):
        raise ValueError(f"data of shape {tuple(shape)} does not fit {dom} (shape {dom.shape})")
    return dom


def _source_array(data: Any) -> tuple[Any, Any]:
    xp = _array_ns.namespace_of(data)
    if xp is None:
        data = np.asarray(data)
        xp = np
    return data, xp


@with_fluid_partial
def as_field(
    domain: DomainLike | Sequence[Dimension],
    data: Any,
    dtype: Any = None,
    *,
    origin: Mapping[Dimension, int] | None = None,
    aligned_index: Sequence[NamedIndex] | None = None,
    allocator: Any = None,
    device: Device | None = None,
) -> NdArrayField:
    """A new field holding a copy of ``data``.

    ``domain`` is a full domain, or a list of dimensions: then the ranges start at 0, or at
    ``-origin[dim]`` (``origin={I: 1}`` puts array index 0 at ``I = -1``). Without
    ``allocator``/``device`` the field stays in the namespace of ``data`` (numpy for lists).
    """
    data, source_ns = _source_array(data)
    dt = scalar_dtype(dtype if dtype is not None else data.dtype)
    dom = _field_domain(domain, tuple(data.shape), origin)
    if allocator is None and device is None:
        resolved: Any = NamespaceAllocator(source_ns)
    else:
        resolved = resolve_allocator(allocator, device)
    if isinstance(resolved, NamespaceAllocator) and device is None:
        array = _array_ns.copy_into_namespace(resolved.array_ns, data, dt)
        return NdArrayField._make(dom, array, resolved.array_ns)
    if isinstance(resolved, NamespaceAllocator):
        array = resolved.full(dom.shape, None, dt, device)
    else:
        array = _custom_buffer(resolved, dom, dt, device, aligned_index)
    target_ns = _array_ns.namespace_of(array)
    array[...] = _array_ns.as_namespace_array(target_ns, data)
    return NdArrayField._make(dom, array, target_ns)


class _Infer:
    def __repr__(self) -> str:
        return "<inferred>"


_INFER: Final = _Infer()
DEFAULT_SKIP_VALUE: Final = -1


@with_fluid_partial
def as_connectivity(
    domain: DomainLike | Sequence[Dimension],
    codomain: Dimension,
    data: Any,
    dtype: Any = None,
    *,
    allocator: Any = None,
    device: Device | None = None,
    skip_value: int | _Infer | None = _INFER,
) -> NdArrayConnectivityField:
    """A neighbour table: ``data[e, n]`` is the index (along ``codomain``) of neighbour ``n``.

    ``gtx.as_connectivity([E, E2VDim], codomain=V, data=table)``. Missing neighbours hold
    ``skip_value``; by default it is ``-1`` if the table contains ``-1``, else ``None``.
    """
    if not isinstance(codomain, Dimension):
        raise TypeError(f"as_connectivity: codomain must be a Dimension, got {codomain!r}")
    field = as_field(domain, data, dtype, allocator=allocator, device=device)
    if field.dtype.kind not in "iu":
        raise TypeError(f"as_connectivity: the table needs an integer dtype, got {field.dtype}")
    xp = field.array_ns
    table = field._data
    if skip_value is _INFER:
        has_default = table.size and bool(xp.any(table == DEFAULT_SKIP_VALUE))
        skip_value = DEFAULT_SKIP_VALUE if has_default else None
    valid = table if skip_value is None else table[table != skip_value]
    if valid.size and int(xp.min(valid)) < 0:
        raise ValueError(
            f"as_connectivity: the table contains the negative index {int(xp.min(valid))}"
            + (
                ""
                if skip_value is not None
                else "; if it marks missing neighbours, pass skip_value=-1"
            )
        )
    return NdArrayConnectivityField(
        field.domain,
        table,
        codomain,
        skip_value=skip_value,  # type: ignore[arg-type]  # resolved above
        array_ns=xp,
    )
