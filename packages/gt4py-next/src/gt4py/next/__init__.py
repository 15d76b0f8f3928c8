"""gt4py.next: field operators and programs on Cartesian and unstructured grids.

``import gt4py.next as gtx``: the field model (:class:`Dimension`, :class:`Domain`,
:class:`Field`, :class:`FieldOffset`, :class:`Connectivity`), field constructors
(:func:`as_field`, :func:`zeros`, ...), scalar types (``gtx.float64``, ...), builtins
(``where``, ``neighbor_sum``, math functions, ...), ``gtx.experimental``, the decorators
``field_operator``, ``scan_operator`` and ``program``, and the backends (``embedded_numpy``, the
default; ``embedded_cupy`` and ``embedded_jax`` created on first access).
"""

from typing import Any

from gt4py.infra.definitions import (
    Device as Device,
    DeviceType as DeviceType,
    is_scalar_type as is_scalar_type,
)

from . import (
    common as common,
    errors as errors,
    experimental as experimental,
    ffront as ffront,
)
from ._backend import (
    Backend as Backend,
    CompiledBackend as CompiledBackend,
    EmbeddedBackend as EmbeddedBackend,
    embedded_numpy as embedded_numpy,
    lazy_embedded_backend as _lazy_embedded_backend,
    wait_for_compilation as wait_for_compilation,
)
from ._relocated import (
    Gone as _Gone,
    forbid_gone_packages as _forbid_gone_packages,
    module_getattr as _module_getattr,
)
from ._version import __version__ as __version__

# Registers the compiled backends' settings (async_compilation, enable_jit, metrics) so that
# config.get/overrides know them from the start; the backends themselves are built lazily.
from .backends import _settings as _backend_settings  # noqa: F401
from .backends._compile_all import (
    CompileAllError as CompileAllError,
    CompileProgress as CompileProgress,
    CompileReport as CompileReport,
    compile_all as compile_all,
)
from .common import (
    CartesianConnectivity as CartesianConnectivity,
    Connectivity as Connectivity,
    Dimension as Dimension,
    DimensionKind as DimensionKind,
    Dims as Dims,
    Domain as Domain,
    Field as Field,
    FieldOffset as FieldOffset,
    GridType as GridType,
    UnitRange as UnitRange,
    domain as domain,
    unit_range as unit_range,
)
from .constructors import (
    as_connectivity as as_connectivity,
    as_field as as_field,
    empty as empty,
    full as full,
    ones as ones,
    zeros as zeros,
)
from .ffront._builtin_catalog import *  # noqa: F403  (the builtins and IndexType: its __all__)
from .ffront.decorator import (
    field_operator as field_operator,
    program as program,
    scan_operator as scan_operator,
)
from .ffront.fbuiltins import (
    bool_ as bool,
    float as float,
    float32 as float32,
    float64 as float64,
    int as int,
    int8 as int8,
    int16 as int16,
    int32 as int32,
    int64 as int64,
    tuple as tuple,
    uint8 as uint8,
    uint16 as uint16,
    uint32 as uint32,
    uint64 as uint64,
)


def _lazy(name: str) -> Any:
    if name in ("gtfn_cpu", "gtfn_gpu", "itir_python"):  # compiled backends, built on first access
        from . import backends

        return getattr(backends, name)
    if name == "CUPY_DEVICE_TYPE":  # as released: where cupy arrays live, None without cupy
        import importlib.util

        from gt4py.infra.definitions import DeviceType

        return DeviceType.CUDA if importlib.util.find_spec("cupy") is not None else None
    if name in ("typing", "program_processors"):  # program_processors: released backend paths
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_STAGGERED = _Gone(
    "separate Dimensions joined by an explicit FieldOffset or connectivity",
    "staggered dimensions (half-integer Cartesian shifts such as I + 0.5) are not supported",
)

_ITERATOR = _Gone(
    "field_operator / program (their lowered form is gt4py.next.ir, the field-level IR; "
    "see the migration guide)",
    "there is no iterator IR, and no iterator-level embedded execution, here",
)
# Released modules without a counterpart: `import gt4py.next.iterator[.anything]` and the others
# fail with what to use instead, not Python's bare "No module named ...".
_forbid_gone_packages(
    {
        f"{__name__}.iterator": _ITERATOR,
        f"{__name__}.otf": _Gone(
            "gt4py.next.backends (make_gtfn_backend, compile_all; the compile pipeline as data) "
            "and gt4py.infra (caching, runners)",
            "released gt4py's on-the-fly compilation workflow (otf.workflow, otf.stages, "
            "otf.compilation) is not here",
        ),
        f"{__name__}.field_utils": _Gone(
            "Field.asnumpy() and the constructors (gtx.as_field, gtx.zeros, ...)",
            "released gt4py's field helpers are not here",
        ),
        f"{__name__}.fingerprinting": _Gone(
            "gt4py.infra.fingerprinting", "gt4py.next has no fingerprinting module of its own"
        ),
        f"{__name__}.named_collections": _Gone(
            "tuples of fields", "released gt4py's named collections of fields are not here"
        ),
        f"{__name__}.utils": _Gone(
            "the public API of gt4py.next",
            "released gt4py.next's internal helpers (tree_map, flatten_nested_tuple, ...) "
            "are not here",
        ),
    }
)

# Released top-level names without a counterpart here: each fails naming what to use instead.
__getattr__ = _module_getattr(
    __name__,
    {
        "FieldConstructor": _Gone(
            "gtx.empty / zeros / ones / full / as_field with allocator=, aligned_index=, device=",
            "fields are built by the constructor functions; there is no constructor class",
        ),
        "is_staggered": _STAGGERED,
        "flip_staggered": _STAGGERED,
        "as_non_staggered": _STAGGERED,
        "iterator": _ITERATOR,
    },
    # embedded_cupy / embedded_jax import their array library on first access
    lazy=_lazy_embedded_backend,
    fallback=_lazy,
)

_LAZY_NAMES = (
    "CUPY_DEVICE_TYPE",
    "gtfn_cpu",
    "gtfn_gpu",
    "itir_python",
    "program_processors",
    "typing",
)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_NAMES})


__all__ = [
    "CUPY_DEVICE_TYPE",
    "Backend",
    "CartesianConnectivity",
    "CompileAllError",
    "CompileProgress",
    "CompileReport",
    "CompiledBackend",
    "Connectivity",
    "Device",
    "DeviceType",
    "Dimension",
    "DimensionKind",
    "Dims",
    "Domain",
    "EmbeddedBackend",
    "Field",
    "FieldOffset",
    "GridType",
    "IndexType",
    "UnitRange",
    "__version__",
    "abs",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctanh",
    "as_connectivity",
    "as_field",
    "astype",
    "bool",
    "broadcast",
    "cbrt",
    "ceil",
    "common",
    "compile_all",
    "cos",
    "cosh",
    "domain",
    "embedded_numpy",
    "empty",
    "errors",
    "exp",
    "field_operator",
    "experimental",
    "ffront",
    "float",
    "float32",
    "float64",
    "floor",
    "fmod",
    "full",
    "gamma",
    "gtfn_cpu",
    "gtfn_gpu",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_scalar_type",
    "isfinite",
    "isinf",
    "isnan",
    "itir_python",
    "log",
    "max_over",
    "maximum",
    "min_over",
    "minimum",
    "neg",
    "neighbor_sum",
    "ones",
    "power",
    "program",
    "program_processors",
    "scan_operator",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
    "tuple",
    "typing",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "unit_range",
    "wait_for_compilation",
    "where",
    "zeros",
]
