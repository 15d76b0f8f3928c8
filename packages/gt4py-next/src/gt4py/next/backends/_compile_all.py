"""``gtx.compile_all``: compile a whole model's programs ahead of time, on any runner.

Each item is what ``.compile()`` takes for one program or field operator (its offset providers
and the value lists of its static arguments). Per variant the caller lowers and optimizes (the
frontend reads the user's function), submits the backend's ``make_artifact`` (IR in, a path in
the shared cache out) to a runner from ``gt4py.infra.runners`` - worker processes, threads, or
any ``concurrent.futures.Executor`` such as a dask ``Client`` or an ``MPIPoolExecutor`` - and
loads the artifact in the caller when it is done. The task carries the caller's config snapshot,
never the user's function, so workers import no ``__main__``.

The call returns when every variant is built or has failed, reporting progress per variant
(done/total, failures with their errors) and, while nothing finishes, a heartbeat naming what
is still building: it never hangs silently.

Several processes (MPI ranks) compiling the same set on one shared cache build each entry once
(the caches' file locks); ``rank=(r, n)``, or the rank found in the environment, rotates the
order so that the ranks start on different programs and share the work.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import logging
import os
import socket
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, Literal

from ._table_layout import TableLayout


_logger = logging.getLogger("gt4py.next.compile_all")

#: Environment variables holding (rank, size) under common launchers: Open MPI, MPICH/PMI,
#: PMIx and Slurm.
RANK_VARIABLES: Final = (
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
    ("PMIX_RANK", "PMIX_SIZE"),
    ("PMI_RANK", "PMI_SIZE"),
    ("SLURM_PROCID", "SLURM_NTASKS"),
)


@dataclasses.dataclass(frozen=True)
class CompileProgress:
    """One progress event of :func:`compile_all`.

    ``kind`` is ``"built"`` (a variant was built and loaded), ``"failed"`` (with ``error``) or
    ``"waiting"`` (a heartbeat: nothing finished for a while; ``running`` names what is still
    building). ``done`` counts built and failed variants, out of ``total``.
    """

    kind: Literal["built", "failed", "waiting"]
    done: int
    total: int
    failed: int
    name: str
    seconds: float  # since compile_all started
    error: BaseException | None = None
    running: tuple[str, ...] = ()

    def __str__(self) -> str:
        head = f"[{self.done}/{self.total}] {self.seconds:7.1f} s"
        if self.kind == "built":
            return f"{head} built {self.name}"
        if self.kind == "failed":
            return f"{head} FAILED {self.name}: {type(self.error).__name__}: {self.error}"
        shown = ", ".join(self.running[:5]) + (" ..." if len(self.running) > 5 else "")
        return f"{head} still building {len(self.running)}: {shown}"


@dataclasses.dataclass(frozen=True)
class BuiltVariant:
    """A variant :func:`compile_all` made: where and how long its artifact took, and how many
    cache entries that task really built (0 for entries found in the cache or built by
    another process meanwhile), per cache namespace."""

    name: str
    build_seconds: float
    worker: str  # "host:pid"
    cache_builds: Mapping[str, int]


@dataclasses.dataclass
class CompileReport:
    """What :func:`compile_all` did."""

    total: int
    built: list[BuiltVariant]
    failures: dict[str, BaseException]
    wall_seconds: float
    runner: str

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def cache_builds(self) -> dict[str, int]:
        """Cache entries built by this call's tasks, summed per namespace (translations in
        ``next/translation``, C++ extensions in ``native/modules``...)."""
        total: collections.Counter[str] = collections.Counter()
        for variant in self.built:
            total.update(variant.cache_builds)
        return dict(total)

    def summary(self) -> str:
        builds = ", ".join(f"{n}: {c}" for n, c in sorted(self.cache_builds.items())) or "none"
        text = (
            f"compiled {len(self.built)} of {self.total} variant(s) in {self.wall_seconds:.1f} s "
            f"on {self.runner}; cache entries built: {builds}"
        )
        for name, error in self.failures.items():
            text += f"\n  FAILED {name}: {type(error).__name__}: {error}"
        return text


class CompileAllError(RuntimeError):
    """Some variants failed to compile; ``report`` holds them all (``report.failures``)."""

    def __init__(self, report: CompileReport) -> None:
        super().__init__(report.summary())
        self.report = report


@dataclasses.dataclass(frozen=True)
class _Built:
    """What the worker task returns: the artifact and what building it took."""

    artifact: Any
    seconds: float
    worker: str
    cache_builds: dict[str, int]


def build_variant(
    compiler: Any,
    program: Any,
    table_dtypes: Mapping[str, TableLayout],
    label: str | None = None,
) -> _Built:
    """The runner task: the backend's ``make_artifact`` (IR in, a picklable artifact out),
    timed, with the cache entries it built counted (in this thread, so exact per task).
    ``label`` names the variant in the caches' messages (a build's start, lock waits)."""
    from gt4py.infra import caching

    before = caching.builds_in_this_thread()
    started = time.perf_counter()
    with caching.build_label(label):
        artifact = compiler.make_artifact(program, table_dtypes)
    seconds = time.perf_counter() - started
    after = caching.builds_in_this_thread()
    builds = {n: c - before.get(n, 0) for n, c in after.items() if c != before.get(n, 0)}
    return _Built(artifact, seconds, f"{socket.gethostname()}:{os.getpid()}", builds)


def _artifact_of(built: _Built) -> Any:
    return built.artifact


def rank_from_environment() -> tuple[int, int] | None:
    """(rank, size) as set by mpirun/srun, or None outside a parallel launch."""
    for rank_name, size_name in RANK_VARIABLES:
        rank, size = os.environ.get(rank_name), os.environ.get(size_name)
        if rank is not None and size is not None:
            try:
                return int(rank), int(size)
            except ValueError:
                continue
    return None


def _items(programs: Iterable[Any]) -> list[tuple[Any, dict[str, Any]]]:
    items = []
    for item in programs:
        if isinstance(item, tuple):
            if len(item) != 2 or not isinstance(item[1], Mapping):
                raise TypeError(
                    "compile_all(): give each item as a program / field operator, or as "
                    "(program, {'offset_provider': ..., 'static_name': [values...]}), "
                    f"got a tuple of {len(item)}"
                )
            items.append((item[0], dict(item[1])))
        else:
            items.append((item, {}))
    return items


def _pool_of(definition: Any) -> Any:
    from ..ffront.decorator import FieldOperator, Program
    from ._step_backend import StepBackend

    if not isinstance(definition, Program | FieldOperator):
        raise TypeError(
            f"compile_all(): {definition!r} is not a gt4py.next program or field operator "
            f"(got {type(definition).__name__})"
        )
    backend, name = definition.backend, definition.__name__
    if not isinstance(backend, StepBackend):
        raise ValueError(
            f"compile_all(): {name} runs on the embedded backend {backend.name}, which compiles "
            "nothing: use .with_backend(gtx.gtfn_cpu) (or another compiled backend) first"
        )
    try:
        return backend.pool(definition)
    except Exception as error:  # e.g. a definition that does not type-check: its failure
        return _Unusable(f"{_kind(definition)} '{name}' on {backend.name}", error)


@dataclasses.dataclass
class _Unusable:
    """What stands for a definition whose pool cannot be made (its error is its failure)."""

    name: str
    error: Exception


def _kind(definition: Any) -> str:
    from ..ffront.decorator import Program

    return "program" if isinstance(definition, Program) else "field operator"


def _progress_sink(progress: Any) -> Callable[[CompileProgress], None]:
    if progress is None:

        def log(event: CompileProgress) -> None:
            level = logging.INFO if event.kind == "built" else logging.WARNING
            _logger.log(level, "%s", event)

        return log
    if progress is True:

        def show(event: CompileProgress) -> None:
            print(event, file=sys.stderr, flush=True)

        return show
    if progress is False:
        return lambda event: None
    if not callable(progress):
        raise TypeError(
            "compile_all(progress=...) takes None (log), True (print to stderr), False or a "
            f"callable receiving CompileProgress events, got {progress!r}"
        )
    return progress  # type: ignore[no-any-return]


def compile_all(
    programs: Iterable[Any],
    *,
    offset_provider: Any = None,
    runner: Any = None,
    progress: Any = None,
    timeout: float | None = None,
    heartbeat: float = 30.0,
    rank: tuple[int, int] | None = None,
    raise_on_error: bool = True,
) -> CompileReport:
    """Compile a set of programs and field operators ahead of time; return when all are built.

    ``programs`` holds programs / field operators on compiled backends, each alone (compiled
    for ``offset_provider``, the default) or as ``(program, {"offset_provider": ...,
    "n": [1, 2]})`` - the keywords of its ``.compile()``: its own offset provider (or a list
    of them) and the values of its static arguments. Argument types come from the declared
    parameter types, as for ``.compile()``.

    ``runner`` is where the builds run: ``None`` for the default runner (``ProcessRunner``
    with ``build_jobs`` workers unless ``build_jobs_mode`` says otherwise), any
    ``gt4py.infra.runners.Runner``, any ``concurrent.futures.Executor`` (e.g.
    ``mpi4py.futures.MPIPoolExecutor()``) or a dask ``distributed.Client``. Workers on other
    hosts must see the same cache directory (``GT4PY_BUILD_CACHE_DIR``) under the same path.

    ``progress`` gets a :class:`CompileProgress` per variant built or failed, and one every
    ``heartbeat`` seconds while nothing finishes: ``None`` logs them (logger
    ``gt4py.next.compile_all``), ``True`` prints them to stderr, or pass a callable.
    ``timeout`` (seconds) gives up on what is still building then, as failures.

    ``rank=(r, n)`` (default: from ``OMPI_COMM_WORLD_RANK``/``PMI_RANK``/``SLURM_PROCID``
    and their sizes) starts rank ``r`` at the ``r/n``-th item, so ranks sharing a cache build
    different programs first and find the others built.

    Returns a :class:`CompileReport`; failures (lowering, build, load, timeout) raise one
    :class:`CompileAllError` listing all of them at the end unless ``raise_on_error=False``.
    Variants built by earlier calls count as done without a task.
    """
    from gt4py.infra import runners

    from ._compiled_programs import PendingVariant

    if not heartbeat > 0:
        raise ValueError(
            f"compile_all(heartbeat={heartbeat!r}) must be a positive number of seconds"
        )
    started = time.perf_counter()
    items = _items(programs)
    pools = [_pool_of(definition) for definition, _ in items]  # type errors at once
    the_runner = runners.as_runner(runner)
    sink = _progress_sink(progress)
    if rank is None:
        rank = rank_from_environment()
    order = list(range(len(items)))
    if rank is not None and rank[1] > 1 and items:
        start = (rank[0] % rank[1]) * len(items) // rank[1]
        order = order[start:] + order[:start]

    failures: dict[str, BaseException] = {}
    built: list[BuiltVariant] = []
    outstanding: dict[concurrent.futures.Future[Any], tuple[str, Any, PendingVariant]] = {}
    planned: list[tuple[int, Any, Any]] = []
    seen: set[tuple[int, Any]] = set()
    done = 0

    def report(kind: Any, name: str, error: BaseException | None = None) -> None:
        event = CompileProgress(
            kind,
            done,
            total,
            len(failures),
            name,
            time.perf_counter() - started,
            error,
            tuple(n for n, _, _ in outstanding.values()) if kind == "waiting" else (),
        )
        try:
            sink(event)
        except Exception:  # a broken progress callback must not lose the compilation
            _logger.exception("compile_all: the progress callback raised")

    # Plan everything first, so that `total` is known before the first event.
    for index in order:
        options = dict(items[index][1])
        pool = pools[index]
        if isinstance(pool, _Unusable):
            failures[pool.name] = pool.error
            continue
        provider = options.pop("offset_provider", offset_provider)
        try:
            variants = pool.plan_ahead_of_time(provider, options)
        except Exception as error:
            failures[f"{pool._callee} on {pool.backend.name}"] = error
            continue
        for key, variant_provider, _ in variants:
            if (id(pool), key) not in seen:  # the same program listed twice
                seen.add((id(pool), key))
                planned.append((index, key, variant_provider))
    total = len(planned) + len(failures)
    done = len(failures)
    for name, planning_error in failures.items():
        report("failed", name, planning_error)

    for index, key, provider in planned:
        pool = pools[index]
        name = _variant_name(pool, key, planned, index)
        if key in pool.variants:  # compiled before
            done += 1
            report("built", name)
            continue
        if key in pool.pending:  # an earlier asynchronous .compile(): wait for it below
            pending = pool.pending[key]
            outstanding[pending.future] = (name, pool, pending)
            continue
        try:
            prepared = pool.prepare(key, provider)
            task = _make_task(pool, prepared)
            future = the_runner.submit(task)
        except Exception as error:
            failures[name] = error
            done += 1
            report("failed", name, error)
            continue
        pending = PendingVariant(pool, prepared, future, _artifact_of)
        pool.pending[key] = pending
        outstanding[future] = (name, pool, pending)

    deadline = None if timeout is None else started + timeout
    while outstanding:
        wait_for = heartbeat
        if deadline is not None:
            wait_for = min(wait_for, max(0.0, deadline - time.perf_counter()))
        finished, _ = concurrent.futures.wait(
            list(outstanding), timeout=wait_for, return_when=concurrent.futures.FIRST_COMPLETED
        )
        for future in [f for f in outstanding if f in finished]:  # in submission order
            name, pool, pending = outstanding.pop(future)
            key = pending.prepared.key
            done += 1
            try:
                pending.result()  # loads the artifact here and installs the variant
            except Exception as error:
                pool.pending.pop(key, None)  # a later call may try again
                failures[name] = error
                report("failed", name, error)
                continue
            result = future.result()
            if isinstance(result, _Built):
                built.append(BuiltVariant(name, result.seconds, result.worker, result.cache_builds))
            report("built", name)
        if not finished and outstanding:
            if deadline is not None and time.perf_counter() >= deadline:
                for future, (name, pool, pending) in list(outstanding.items()):
                    future.cancel()
                    pool.pending.pop(pending.prepared.key, None)
                    done += 1
                    failures[name] = TimeoutError(
                        f"still building after compile_all(timeout={timeout})"
                    )
                    report("failed", name, failures[name])
                outstanding.clear()
            else:
                report("waiting", "")

    result = CompileReport(
        total, built, failures, time.perf_counter() - started, _describe_runner(the_runner)
    )
    if failures and raise_on_error:
        raise CompileAllError(result)
    return result


def _make_task(pool: Any, prepared: Any) -> Any:
    import functools

    return functools.partial(
        build_variant,
        pool.backend.compiler,
        prepared.optimized,
        prepared.table_dtypes,
        pool.build_label(prepared.key),
    )


def _variant_name(pool: Any, key: Any, planned: list[Any], index: int) -> str:
    """``program 'p' on gtfn_cpu``, with the static values / provider when it has several."""
    name = f"{pool._callee} on {pool.backend.name}"
    siblings = sum(1 for i, *_ in planned if i == index)
    if siblings == 1:
        return name
    extra = ", ".join(f"{n}={v!r}" for n, v in key.static)
    if not extra:
        extra = f"offset provider {key.offset_provider and hex(key.offset_provider[0][1])}"
    return f"{name} [{extra}]"


def _describe_runner(runner: Any) -> str:
    text = repr(runner)
    return text if not text.startswith("<") else type(runner).__name__


__all__ = [
    "BuiltVariant",
    "CompileAllError",
    "CompileProgress",
    "CompileReport",
    "compile_all",
    "rank_from_environment",
]
