"""StencilObject: a built stencil; checks arguments, fills in origins and domain, runs."""

from __future__ import annotations

import operator
import time
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from gt4py import storage
from gt4py.infra.tracebacks import hide_internal_frames

from ._array_likes import adopt_array_likes, is_plain_array
from ._errors import USER_ERRORS, StencilArgumentError
from .definitions import AccessKind, Boundary, DomainInfo, FieldInfo, ParameterInfo


if TYPE_CHECKING:
    from gt4py.infra.pipeline import StageValues


@typing.runtime_checkable
class _Array(typing.Protocol):
    """What a field argument must be: numpy, cupy or any array with these attributes."""

    shape: tuple[int, ...]
    dtype: Any
    ndim: int


class StencilObject:
    """A callable stencil. ``stencil(*fields_and_scalars, origin=, domain=, validate_args=,
    exec_info=)``; :meth:`run` is the unchecked fast path."""

    def __init__(
        self,
        module: types.ModuleType,
        metadata: Mapping[str, Any],
        *,
        source_path: str,
        stages: Callable[[], StageValues],
        stencil_id: str = "",
        options: Mapping[str, Any] | None = None,
        cache_key: str = "",
    ) -> None:
        self._run = module.run
        self._stages = stages
        self._stage_values: StageValues | None = None
        self.metadata = metadata
        self.backend: str = metadata["backend"]
        self.__name__ = self.name = metadata["name"]
        self.source_path = source_path
        self._params: list[dict[str, Any]] = list(metadata["params"])
        self._names = [p["name"] for p in self._params]
        self._fields = [p for p in self._params if p["kind"] == "field"]
        self._field_names = [p["name"] for p in self._fields]
        self.field_info = {
            p["name"]: FieldInfo(
                access=AccessKind.of(p["access"]),
                boundary=_boundary(p),
                axes=tuple(p["axes"]),
                data_dims=tuple(p["data_dims"]),
                dtype=np.dtype(p["dtype"]),
            )
            for p in self._fields
        }
        self.parameter_info = {
            p["name"]: ParameterInfo(access=AccessKind.of(p["access"]), dtype=np.dtype(p["dtype"]))
            for p in self._params
            if p["kind"] == "scalar"
        }
        self.domain_info = DomainInfo(
            parallel_axes=("I", "J"),
            sequential_axis="K",
            min_sequential_axis_size=int(metadata.get("min_k_size", 0)),
            ndim=3,
        )
        #: The stencil's identity: the first 10 hex digits of its cache key.
        self._gt_id_: str = stencil_id
        #: The digest of the stencil's whole cache key (orchestrated programs key on it).
        self._gt_cache_key_: str = cache_key
        self.options: dict[str, Any] = dict(options or {})
        self._field_indices = [i for i, p in enumerate(self._params) if p["kind"] == "field"]
        self._origin_sizes = {p["name"]: len(p["axes"]) for p in self._fields}
        self._dtypes = {p["name"]: np.dtype(p["dtype"]) for p in self._params}
        low = {"I": 0, "J": 0, "K": 0}
        for p in self._fields:
            for axis, (lo, _) in zip(p["axes"], p["halo"], strict=True):
                low[axis] = max(low[axis], -lo)
        self._default_origin = (low["I"], low["J"], low["K"])
        # metadata from before the large-domain halo: every domain size uses "halo"
        ni, nj = metadata.get("large_from", (1, 1))
        self._large_from = (int(ni), int(nj))
        self._field_flags = [p["kind"] == "field" for p in self._params]
        # Written fields, and fields only read that may share memory with one: a read-only
        # input overlapping an output is copied first, so the stencil reads it as it was
        # before the call, as it would with distinct arrays; two written fields sharing
        # memory are an error (ADR 0027).
        self._written = [
            i for i, p in enumerate(self._params) if p.get("access") in ("out", "inout")
        ]
        self._inputs = [
            i for i, p in enumerate(self._params) if p["kind"] == "field" and p["access"] == "in"
        ]
        if not self._written:
            self._inputs = []
        self._alias_pairs = [(i, j) for i in self._inputs for j in self._written] + [
            (i, j) for n, i in enumerate(self._written) for j in self._written[n + 1 :]
        ]
        self._few_pairs = 0 < len(self._alias_pairs) <= _PAIRWISE_LIMIT
        # generated Python (numpy, debug) writes array by array: its read-only outputs are
        # found before running; nanobind (C++ backends) rejects them before running anyway
        self._python_run = isinstance(module.run, types.FunctionType)
        # Validated call plans: the checks and the inferred origins/domain depend only on the
        # properties in the key (see _plan_key), so a repeated call shape skips them.
        self._plans: dict[tuple[Any, ...], tuple[dict[str, tuple[int, ...]], tuple[int, ...]]] = {}

    @property
    def stages(self) -> StageValues:
        """What the build produced per declared stage (``backend.STAGES``): every stage when
        this process built the stencil; loaded from the cache, the stages its entry holds
        (``py``, or ``cpp``/``cu`` and ``so``). Read on first access."""
        if self._stage_values is None:
            self._stage_values = self._stages()
        return self._stage_values

    def __repr__(self) -> str:
        return f"<StencilObject {self.name} ({self.backend})>"

    # -- calling --------------------------------------------------------------------------------
    def __call__(
        self,
        *args: Any,
        origin: Any = None,
        domain: Any = None,
        validate_args: bool = True,
        exec_info: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        try:
            if exec_info is not None:
                exec_info["call_start_time"] = exec_info["call_run_start_time"] = (
                    time.perf_counter()
                )
            values = self._bind(args, kwargs)
            for i in self._field_indices:  # one type test per field in the usual case
                value = values[i]
                if value.__class__ is not np.ndarray and not is_plain_array(value):
                    values, origin = adopt_array_likes(self, values, origin)
                    break
            key = self._plan_key(values, origin, domain) if validate_args and not kwargs else None
            plan = self._plans.get(key) if key is not None else None
            if plan is not None:
                origins, domain = plan
            else:
                origins = self._origins(values, origin)
                domain = self._domain(values, origins) if domain is None else tuple(domain)
                if validate_args:
                    self._validate(values, origins, domain)
                if key is not None:
                    if len(self._plans) >= _MAX_PLANS:
                        self._plans.clear()
                    self._plans[key] = (origins, domain)
            if self._few_pairs:  # one `is` per pair of the owners of the memory (ADR 0027)
                for i, j in self._alias_pairs:
                    a, b = values[i], values[j]
                    # a numpy array owning its memory is its own owner: no call for the usual case
                    owner_a = a if a.__class__ is np.ndarray and a.base is None else _owner(a)
                    owner_b = b if b.__class__ is np.ndarray and b.base is None else _owner(b)
                    if owner_a is owner_b or owner_a is _FOREIGN or owner_b is _FOREIGN:
                        values = self._separate_overlapping(values)
                        break
            elif self._alias_pairs:
                values = self._unaliased(values)
            if self._python_run and validate_args:
                problem = self._unwritable(values)
                if problem is not None:
                    raise StencilArgumentError(problem)
            if exec_info is not None:
                exec_info.update(
                    origin=dict(origins), domain=domain, run_start_time=time.perf_counter()
                )
            try:
                self._run(*values, domain, *(origins[n] for n in self._field_names))
            except TypeError:
                problem = self._unwritable(values) if validate_args else None
                if problem is not None:  # nanobind's rejection, said clearly
                    raise StencilArgumentError(problem) from None
                raise
            if exec_info is not None:
                self._record_call(exec_info)
        except USER_ERRORS as error:  # the user's frames only (ADR 0030)
            hide_internal_frames(error)
            raise

    # -- DaCe's SDFG-convertible protocol (orchestration, ADR 0042) ------------------------------
    def __sdfg__(self, *args: Any, origin: Any = None, domain: Any = None, **kwargs: Any) -> Any:
        """The stencil's SDFG for these arguments (arrays or DaCe data descriptors), with its
        origins and domain fixed, for a ``dace.program`` calling it (DaCe backends only)."""
        from ._orchestration import stencil_sdfg

        return stencil_sdfg(self, args, kwargs, origin, domain)

    def __sdfg_signature__(self) -> tuple[list[str], list[str]]:
        """The argument names a call in a ``dace.program`` may give, and the compile-time
        ones (none)."""
        from ._orchestration import stencil_signature

        return stencil_signature(self)

    def __sdfg_closure__(self, reevaluate: Mapping[str, str] | None = None) -> dict[str, Any]:
        """A stencil brings no arrays into the program's closure."""
        from ._orchestration import require_dace_backend

        require_dace_backend(self)
        return {}

    def closure_resolver(
        self, constant_args: Any, given_args: Any, parent_closure: Any = None
    ) -> Any:
        """DaCe's closure of the stencil: empty (its SDFG holds everything it needs)."""
        from ._orchestration import empty_closure, require_dace_backend

        require_dace_backend(self)
        return empty_closure()

    def run(
        self,
        _domain_: tuple[int, int, int],
        _origin_: Mapping[str, tuple[int, ...]],
        exec_info: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Run without any check: every argument by name, every field's origin given (a
        field's origin may list its data dimensions too, as released's ``run`` takes it)."""
        if exec_info is not None:
            exec_info.update(domain=_domain_, origin=_origin_, run_start_time=time.perf_counter())
        self._run(
            *(kwargs[n] for n in self._names),
            _domain_,
            *(_origin_[n][: self._origin_sizes[n]] for n in self._field_names),
        )
        if exec_info is not None:
            exec_info["run_end_time"] = time.perf_counter()
            if exec_info.get("__aggregate_data"):
                entry = self._aggregate_entry(exec_info)
                entry["run_time"] = exec_info["run_end_time"] - exec_info["run_start_time"]
                entry["total_run_time"] += entry["run_time"]

    def _record_call(self, exec_info: dict[str, Any]) -> None:
        """The end times of a call in ``exec_info``, released's keys; with
        ``exec_info["__aggregate_data"]`` true, also this stencil's running totals under its
        class name (calls, call and run times, as NDSL's timing reports read them)."""
        exec_info["run_end_time"] = exec_info["call_run_end_time"] = exec_info["call_end_time"] = (
            time.perf_counter()
        )
        if exec_info.get("__aggregate_data"):
            entry = self._aggregate_entry(exec_info)
            entry["call_start_time"] = exec_info["call_start_time"]
            entry["call_end_time"] = exec_info["call_end_time"]
            entry["call_time"] = exec_info["call_end_time"] - exec_info["call_start_time"]
            entry["total_call_time"] += entry["call_time"]
            entry["ncalls"] += 1
            entry["run_time"] = exec_info["run_end_time"] - exec_info["run_start_time"]
            entry["total_run_time"] += entry["run_time"]

    def _aggregate_entry(self, exec_info: dict[str, Any]) -> dict[str, Any]:
        return exec_info.setdefault(  # type: ignore[no-any-return]
            type(self).__name__,
            {"ncalls": 0, "total_call_time": 0.0, "total_run_time": 0.0},
        )

    def _unaliased(self, values: list[Any]) -> list[Any]:
        """``values`` as :meth:`_separate_overlapping` leaves them, for stencils with many
        field pairs (``__call__`` compares a few pairs itself): cheap unless two fields share
        the object owning their memory, or one has a foreign owner."""
        owners = {id(_owner(values[j])) for j in self._written}
        if len(owners) < len(self._written) or id(_FOREIGN) in owners:
            return self._separate_overlapping(values)
        for i in self._inputs:
            owner = _owner(values[i])
            if owner is _FOREIGN or id(owner) in owners:
                return self._separate_overlapping(values)
        return values

    def _separate_overlapping(self, values: list[Any]) -> list[Any]:
        """``values`` with a copy of every read-only input whose memory overlaps a written
        field's; two written fields sharing memory are an error (no order of writes is the
        stencil's meaning: numpy, debug and C++ write them in different orders)."""
        spans = {i: storage.byte_span(values[i]) for i in (*self._written, *self._inputs)}
        for n, i in enumerate(self._written):
            for j in self._written[n + 1 :]:
                if storage.spans_overlap(spans[i], spans[j]):
                    raise StencilArgumentError(
                        f"fields '{self._names[i]}' and '{self._names[j]}' are both written "
                        "by the stencil but share memory, so the result would depend on the "
                        "backend's order of writes; pass arrays that do not overlap (a copy "
                        "of one of them)"
                    )
        result = list(values)
        for i in self._inputs:
            if any(storage.spans_overlap(spans[i], spans[j]) for j in self._written):
                result[i] = values[i].copy(order="K")
        return result

    def _unwritable(self, values: list[Any]) -> str | None:
        """The error of a written field whose array is read-only (None: there is none)."""
        for i in self._written:
            flags = getattr(values[i], "flags", None)
            if flags is not None and not getattr(flags, "writeable", True):
                return (
                    f"field '{self._names[i]}' is written by the stencil, but its array is "
                    "read-only (flags.writeable is False); pass a writable array"
                )
        return None

    def _plan_key(self, values: list[Any], origin: Any, domain: Any) -> tuple[Any, ...] | None:
        """What validation and origin/domain inference depend on, or None if not memoizable.

        Fields count by (type, shape, dtype), scalars by type; origin and domain (None or a
        tuple) by value, the domain also by element types since ``6.0 == 6`` but only ints
        are valid.
        """
        if origin is not None and type(origin) is not tuple:
            return None
        if domain is None:
            domain_key: Any = None
        elif type(domain) is tuple:
            domain_key = (domain, tuple(map(type, domain)))
        else:
            return None
        parts: list[Any] = [origin, domain_key]
        for is_field, value in zip(self._field_flags, values, strict=True):
            if is_field:
                shape = getattr(value, "shape", None)
                dtype = getattr(value, "dtype", None)
                if shape is None or dtype is None:
                    return None
                parts.append((type(value), shape, dtype))
            else:
                parts.append(type(value))
        key = tuple(parts)
        try:
            hash(key)  # e.g. an origin holding a list, or a foreign array's list shape
        except TypeError:
            return None
        return key

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        if not kwargs and len(args) == len(self._names):
            return list(args)
        if len(args) > len(self._names):
            raise TypeError(f"{self.name}() takes {len(self._names)} arguments, got {len(args)}")
        values = dict(zip(self._names, args, strict=False))
        for key, value in kwargs.items():
            if key not in self._names:
                raise TypeError(f"{self.name}() got an unexpected argument {key!r}")
            if key in values:
                raise TypeError(f"{self.name}() got multiple values for argument {key!r}")
            values[key] = value
        missing = [n for n in self._names if n not in values]
        if missing:
            raise TypeError(f"{self.name}() is missing argument(s): {', '.join(missing)}")
        return [values[n] for n in self._names]

    def _origins(self, values: list[Any], origin: Any) -> dict[str, tuple[int, ...]]:
        result: dict[str, tuple[int, ...]] = {}
        shared = origin if isinstance(origin, tuple | list) else None
        per_field = origin if isinstance(origin, Mapping) else {}
        if origin is not None and shared is None and not isinstance(origin, Mapping):
            raise StencilArgumentError(f"origin must be a tuple or a dict, got {origin!r}")
        if per_field:
            shared = per_field.get("_all_")
            unknown = set(per_field) - set(self._field_names) - {"_all_"}
            if unknown:
                raise StencilArgumentError(f"origin given for unknown field(s) {sorted(unknown)}")
        for p in self._fields:
            name = p["name"]
            given = per_field.get(name, shared)
            if given is None:
                # Default: one origin shared by all fields, the largest low halo per axis.
                given = self._default_origin
            given = _indices(given, f"origin of field '{name}'")
            if len(given) == 3 and len(p["axes"]) < 3:
                given = tuple(given["IJK".index(a)] for a in p["axes"])
            elif p["data_dims"] and len(given) == len(p["axes"]) + len(p["data_dims"]):
                # released's origins may list the data dimensions too: always 0 there
                if any(given[len(p["axes"]) :]):
                    raise StencilArgumentError(
                        f"origin of field '{name}' must be 0 along its data dimensions, got {given}"
                    )
                given = given[: len(p["axes"])]
            if len(given) != len(p["axes"]):
                raise StencilArgumentError(
                    f"origin of field '{name}' must have {len(p['axes'])} entries "
                    f"(axes {p['axes']}), got {given}"
                )
            result[name] = given
        return result

    def _halo_key(self, domain: Sequence[int | None]) -> str:
        """The halo a call with ``domain`` reads fields with: ``halo_large`` once the domain
        has ``large_from`` (I, J) points (reads in regions at one edge of the domain then stay
        inside it, see ``_analysis.large_domain_read_extent``), else the one for any size."""
        ni, nj = self._large_from
        if domain[0] is not None and domain[1] is not None and domain[0] >= ni and domain[1] >= nj:
            return "halo_large"
        return "halo"

    def _domain(
        self, values: list[Any], origins: Mapping[str, tuple[int, ...]]
    ) -> tuple[int, int, int]:
        sizes = self._sizes(values, origins, "halo_large")
        if self._halo_key(sizes) == "halo":
            sizes = self._sizes(values, origins, "halo")
        if any(s is None for s in sizes):
            raise StencilArgumentError(
                f"cannot infer the domain of '{self.name}' (no field has all of I, J, K); "
                "pass domain=(ni, nj, nk)"
            )
        return tuple(sizes)  # type: ignore[return-value]

    def _sizes(
        self, values: list[Any], origins: Mapping[str, tuple[int, ...]], halo_key: str
    ) -> list[int | None]:
        sizes: list[int | None] = [None, None, None]
        for p, value in zip(self._params, values, strict=True):
            if p["kind"] != "field" or p["access"] == "none":
                continue  # unused fields bound no domain (their arguments are not checked)
            shape = np.shape(value)
            for n, axis in enumerate(p["axes"]):
                a = "IJK".index(axis)
                if n >= len(shape):
                    continue
                room = shape[n] - origins[p["name"]][n] - p.get(halo_key, p["halo"])[n][1]
                current = sizes[a]
                sizes[a] = room if current is None else min(current, room)
        return sizes

    def _validate(
        self, values: list[Any], origins: Mapping[str, tuple[int, ...]], domain: tuple[int, ...]
    ) -> None:
        if len(domain) != 3 or not all(
            isinstance(d, int | np.integer) and not isinstance(d, bool | np.bool_) and d > 0
            for d in domain
        ):
            raise StencilArgumentError(f"domain must be 3 positive integers, got {domain}")
        # the backends index in 64 bits (temporaries span the domain and their halos): keep
        # every size they compute far from overflowing
        points = 1
        for d in domain:
            points *= int(d) + _HALO_MARGIN
        if points > _MAX_POINTS:
            raise StencilArgumentError(
                f"domain {tuple(int(d) for d in domain)} is too large: the backends index "
                f"in 64 bits and allow at most 2**62 points (counting {_HALO_MARGIN} halo "
                "points per axis)"
            )
        for p in self._fields:
            for axis, entry in zip(p["axes"], origins[p["name"]], strict=True):
                if entry < 0:
                    raise StencilArgumentError(
                        f"origin of field '{p['name']}' must not be negative, got "
                        f"{origins[p['name']]} ({axis} is {entry})"
                    )
        halo_key = self._halo_key(domain)
        for p, value in zip(self._params, values, strict=True):
            name = p["name"]
            if p["kind"] == "scalar":
                if not isinstance(value, int | float | bool | np.generic) or isinstance(
                    value, np.ndarray
                ):
                    raise StencilArgumentError(
                        f"parameter '{name}' must be a scalar of type {p['dtype']}, got "
                        f"{type(value).__name__}"
                    )
                continue
            if p["access"] == "none":
                continue  # a field the stencil never touches: any argument will do (released)
            self._validate_field(p, value, origins[name], domain, halo_key)

    def _validate_field(
        self,
        p: Mapping[str, Any],
        value: Any,
        origin: tuple[int, ...],
        domain: tuple[int, ...],
        halo_key: str = "halo",
    ) -> None:
        name, axes = p["name"], p["axes"]
        if not isinstance(value, _Array):
            raise StencilArgumentError(
                f"field '{name}' must be an array (e.g. from gt4py.storage), got "
                f"{type(value).__name__}"
            )
        expected_ndim = len(axes) + len(p["data_dims"])
        if value.ndim != expected_ndim:
            raise StencilArgumentError(
                f"field '{name}' must have {expected_ndim} dimensions (axes {axes or 'none'}"
                f"{', data ' + str(tuple(p['data_dims'])) if p['data_dims'] else ''}), got "
                f"{value.ndim}"
            )
        if np.dtype(value.dtype) != self._dtypes[name]:
            raise StencilArgumentError(
                f"field '{name}' must have dtype {self._dtypes[name]}, got {value.dtype}"
            )
        if tuple(value.shape[len(axes) :]) != tuple(p["data_dims"]):
            raise StencilArgumentError(
                f"field '{name}' data dimensions must be {tuple(p['data_dims'])}, got "
                f"{tuple(value.shape[len(axes) :])}"
            )
        for n, axis in enumerate(axes):
            a = "IJK".index(axis)
            lo, hi = p.get(halo_key, p["halo"])[n]
            if axis == "K":
                lo, hi = _k_needs(p["k_accesses"], domain[2])
            first = origin[n] + lo
            if first < 0:
                raise StencilArgumentError(
                    f"field '{name}' is too small on the low side of axis {axis}: the stencil "
                    f"reads {-lo} point(s) before the domain, but origin is {origin[n]} "
                    f"({-first} point(s) missing)"
                )
            needed = origin[n] + domain[a] + hi
            if needed > value.shape[n]:
                raise StencilArgumentError(
                    f"field '{name}' is too small along axis {axis} by {needed - value.shape[n]} "
                    f"point(s): origin {origin[n]} + domain {domain[a]}"
                    f"{f' + halo {hi}' if hi else ''} needs {needed}, but the size is "
                    f"{value.shape[n]}"
                )


_MAX_PLANS = 64
_PAIRWISE_LIMIT = 8  # more field pairs to compare: a set of owners' ids
_HALO_MARGIN = 64
_MAX_POINTS = 2**62


def _indices(given: Any, what: str) -> tuple[int, ...]:
    """``given`` as a tuple of Python ints (numpy integers too; no floats, no bools)."""
    try:
        entries = tuple(given)
    except TypeError:
        raise StencilArgumentError(f"{what} must be a tuple of integers, got {given!r}") from None
    result = []
    for entry in entries:
        if isinstance(entry, bool | np.bool_):
            raise StencilArgumentError(f"{what} must be a tuple of integers, got {given!r}")
        try:
            result.append(operator.index(entry))
        except TypeError:
            raise StencilArgumentError(
                f"{what} must be a tuple of integers, got {given!r}"
            ) from None
    return tuple(result)


_FOREIGN = storage.FOREIGN_MEMORY


def _owner(array: Any) -> Any:
    """The object owning ``array``'s memory (``storage.memory_owner``), a numpy view's
    owning base without a call."""
    base = getattr(array, "base", _FOREIGN)
    if base.__class__ is np.ndarray and base.base is None:
        return base
    return storage.memory_owner(array)


def _k_needs(accesses: list[list[Any]], nk: int) -> tuple[int, int]:
    """The lowest and highest K offset from the domain that static accesses reach, relative
    to (0, nk): (low <= 0, high >= 0)."""
    low, high = 0, 0
    for s_level, s_off, e_level, e_off, dk in accesses:
        start = min(max((0 if s_level == "start" else nk) + s_off, 0), nk)
        end = min(max((0 if e_level == "start" else nk) + e_off, 0), nk)
        if end <= start:
            continue
        low = min(low, start + dk)
        high = max(high, end + dk - nk)
    return low, high


def _boundary(p: Mapping[str, Any]) -> Boundary:
    """Released's ``FieldInfo.boundary`` of a field's metadata: the points it is read beyond
    the domain, ``(lower, upper)`` for I, J and K whether or not the field has the axis. K's
    counts the levels below the first and above the last that intervals anchored at that
    end read (what no domain size changes)."""
    halo = dict(zip(p["axes"], p["halo"], strict=True))
    entries = [(-halo[a][0], halo[a][1]) if a in halo else (0, 0) for a in "IJ"]
    below = above = 0
    for s_level, s_off, e_level, e_off, dk in p["k_accesses"]:
        if s_level == "start":
            below = max(below, -(s_off + dk))
        if e_level == "end":
            above = max(above, e_off + dk)
    entries.append((below, above))
    return Boundary(entries)
