"""The backends model: where a program runs and where its fields live.

- :class:`Backend` (abstract): ``name`` (a label for logs and metrics, never identity) and
  ``allocator`` (exposed as ``__gt_allocator__`` for ``gtx.zeros(..., allocator=backend)``).
- :class:`EmbeddedBackend`: runs the Python definitions directly on fields of an array
  namespace: ``gtx.embedded_numpy`` (the default), ``embedded_cupy``, ``embedded_jax``.
- :class:`CompiledBackend` (abstract): a ``compiler`` (the compile pipeline) and ``STAGES``,
  the pipeline as declared stages; the concrete one, ``StepBackend``, and the stock compiled
  backends are in ``gt4py.next.backends`` (above the frontend, as they need the variant pool).

:func:`execution_mode` is the one place that decides how a program, field operator or scan
operator runs for a backend: embedded, compiled, or an error.
"""

from __future__ import annotations

import abc
import enum
import importlib
import os
import sys
import threading
import warnings
from typing import Any, Final

from gt4py.infra.deprecation import GT4PyDeprecationWarning


class ExecutionMode(enum.Enum):
    EMBEDDED = "embedded"
    COMPILED = "compiled"


class Backend(abc.ABC):
    """Where programs run and fields are allocated."""

    __slots__ = ()

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """A label for logs and metrics (two backends may share one)."""

    @property
    @abc.abstractmethod
    def allocator(self) -> Any:
        """What ``gtx.zeros(..., allocator=backend)`` allocates with."""

    @property
    def __gt_allocator__(self) -> Any:
        return self.allocator

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class _NamedBackend(Backend):
    """A backend given its name when it is made (the embedded and the step-assembled ones)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def name(self) -> str:
        return self._name


class EmbeddedBackend(_NamedBackend):
    """Runs operator bodies as Python on fields of ``array_ns`` (numpy, cupy, jax.numpy)."""

    __slots__ = ("_array_ns",)

    def __init__(self, name: str, array_ns: Any) -> None:
        super().__init__(name)
        self._array_ns = array_ns

    @property
    def array_ns(self) -> Any:
        return self._array_ns

    @property
    def allocator(self) -> Any:
        return self._array_ns

    def __reduce__(self) -> Any:
        return (_embedded_backend_by_name, (self._name,))


class CompiledBackend(Backend):
    """Translates definitions into native code through the stages it declares (``STAGES``).

    Concrete compiled backends run definitions through :meth:`run` and compile ahead of time
    through :meth:`compile`.
    """

    __slots__ = ()

    @property
    @abc.abstractmethod
    def compiler(self) -> Any:
        """The compile pipeline after the IR passes (IR -> loadable artifact -> entry point)."""

    @property
    @abc.abstractmethod
    def STAGES(self) -> tuple[Any, ...]:
        """The pipeline as declared ``gt4py.infra.pipeline.Stage`` values, in order
        (``gt4py.infra.pipeline.describe(backend.STAGES)`` prints it)."""

    @abc.abstractmethod
    def run(
        self,
        definition: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        *,
        offset_provider: Any,
    ) -> Any:
        """Run a program, field operator or scan operator (``definition``) on arguments."""

    @abc.abstractmethod
    def compile(self, definition: Any, **static_arguments: Any) -> Any:
        """Compile ``definition`` ahead of time for the given argument types and statics."""


_PACKAGE_DIRECTORY: Final = os.path.dirname(os.path.abspath(__file__))


def _user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called here that points at the first frame
    outside gt4py.next (the user's decorator line or ``with_backend`` call)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIRECTORY):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def resolve_backend(backend: Any, what: str) -> Backend:
    """``backend`` itself, except ``None``: released gt4py 1.2.x's spelling of embedded
    execution, which means ``gtx.embedded_numpy`` here with a DeprecationWarning (ADR 0025;
    type checkers reject it already, the hard TypeError comes in a later release)."""
    if backend is None:
        warnings.warn(
            f"backend=None ({what}) is deprecated: it means embedded execution, spelled "
            "gtx.embedded_numpy (the default when backend= is left out); backend=None will be "
            "a TypeError in gt4py-next 0.3 (docs/migration.md)",
            GT4PyDeprecationWarning,
            stacklevel=_user_stacklevel(),
        )
        return embedded_numpy
    return backend  # type: ignore[no-any-return]  # checked by execution_mode


def execution_mode(backend: object, what: str) -> ExecutionMode:
    """How ``what`` (e.g. "program 'copy'") runs on ``backend``; a clear TypeError otherwise."""
    if isinstance(backend, EmbeddedBackend):
        return ExecutionMode.EMBEDDED
    if isinstance(backend, CompiledBackend):
        return ExecutionMode.COMPILED
    raise TypeError(
        f"{backend!r} is not a gt4py.next backend ({what}); pass one such as gtx.embedded_numpy"
    )


# -- the embedded backends ------------------------------------------------------------------------

_EMBEDDED_NAMESPACES: Final = {
    "embedded_numpy": ("numpy", "numpy", ""),
    "embedded_cupy": ("cupy", "cupy", "pip install gt4py-next[cuda12] (or [cuda13], [rocm])"),
    "embedded_jax": ("jax.numpy", "jax", "pip install gt4py-next[jax]"),
}
_embedded_backends: dict[str, EmbeddedBackend] = {}
_lock = threading.Lock()


def _embedded_backend_by_name(name: str) -> EmbeddedBackend:
    """The embedded backend ``name``, created on first use (importing its array namespace)."""
    backend = _embedded_backends.get(name)
    if backend is not None:
        return backend
    module_name, package, install = _EMBEDDED_NAMESPACES[name]
    with _lock:
        if name not in _embedded_backends:
            try:
                array_ns = importlib.import_module(module_name)
            except ImportError:
                raise AttributeError(
                    f"{name} needs {package}, which is not installed: {install}"
                ) from None
            _embedded_backends[name] = EmbeddedBackend(name, array_ns)
    return _embedded_backends[name]


def lazy_embedded_backend(name: str) -> EmbeddedBackend | None:
    """For module ``__getattr__``: the backend called ``name`` or ``None`` if there is none."""
    if name not in _EMBEDDED_NAMESPACES:
        return None
    return _embedded_backend_by_name(name)


embedded_numpy: Final = _embedded_backend_by_name("embedded_numpy")
DEFAULT_BACKEND: Final[Backend] = embedded_numpy


# -- asynchronous compilation ---------------------------------------------------------------------

_pending_compilations: list[Any] = []


def register_compilation(future: Any) -> None:
    """Record a compilation running in the background (a ``concurrent.futures.Future``)."""
    with _lock:
        _pending_compilations.append(future)


def wait_for_compilation() -> None:
    """Block until every background compilation has finished (re-raising the first failure).

    Embedded backends compile nothing, so with them this returns at once.
    """
    with _lock:
        pending = list(_pending_compilations)
        _pending_compilations.clear()
    for future in pending:
        future.result()
