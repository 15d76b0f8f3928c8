"""Declared compile stages and the values a compile produced for them."""

from __future__ import annotations

import dataclasses
import os
import pathlib
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from gt4py.infra import config
from gt4py.infra.caching import _trust
from gt4py.infra.caching._atomic import atomic_write_bytes
from gt4py.infra.caching._errors import CacheError


#: How a stage value becomes a dump file's contents; None skips the stage.
Render = Callable[["Stage", Any], str | bytes | None]


@dataclasses.dataclass(frozen=True)
class Stage:
    """One declared stage of a backend's pipeline; ``suffix`` is its dump file's extension."""

    name: str
    suffix: str

    def __post_init__(self) -> None:
        if not self.name or any(c in self.name for c in "/\\\0") or self.name.startswith("."):
            raise ValueError(f"stage name {self.name!r} cannot be a dump file name")
        if not self.suffix or self.suffix.startswith(".") or "/" in self.suffix:
            raise ValueError(
                f"stage {self.name!r}: suffix {self.suffix!r} needs no dot, e.g. 'cpp'"
            )

    @property
    def file_name(self) -> str:
        return f"{self.name}.{self.suffix}"


class Deferred:
    """A stage value made on first read (``StageValues`` resolves it, once): for values that
    a compile has at hand only at a cost, e.g. IR a warm start would have to unpickle."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make

    def resolve(self) -> Any:
        return self._make()


def describe(stages: Sequence[Stage]) -> str:
    """The pipeline in one line: ``frontend → ir → ir_optimized → cpp → so``."""
    return " → ".join(stage.name for stage in stages)


class StageValues(Mapping[str, Any]):
    """What a compile produced per declared stage, read-only, in declared order.

    Only declared stages may have a value (a typo is an error, not a silently extra stage);
    a declared stage may be missing (not produced, or not produced yet).
    """

    def __init__(self, declared: Sequence[Stage], values: Mapping[str, Any]) -> None:
        names = [stage.name for stage in declared]
        if len(set(names)) != len(names):
            duplicates = sorted({name for name in names if names.count(name) > 1})
            raise ValueError(f"stages declared twice: {', '.join(duplicates)}")
        undeclared = [name for name in values if name not in names]
        if undeclared:
            raise ValueError(
                f"values for undeclared stages {', '.join(map(repr, undeclared))}; "
                f"the declared pipeline is {describe(declared)}"
            )
        self._declared = tuple(declared)
        self._values = {name: values[name] for name in names if name in values}

    @property
    def declared(self) -> tuple[Stage, ...]:
        return self._declared

    def __getitem__(self, name: str) -> Any:
        value = self._values[name]
        if isinstance(value, Deferred):
            value = self._values[name] = value.resolve()
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        present = ", ".join(self._values)
        return f"StageValues({describe(self._declared)}; present: {present or 'none'})"

    def dump(self, directory: pathlib.Path, render: Render | None = None) -> list[pathlib.Path]:
        """Write ``<stage>.<suffix>`` into ``directory`` for each present stage, atomically.

        ``render`` turns a value into the file's text or bytes (None: skip the stage); by
        default text stays text, bytes stay bytes, a path is copied, anything else is its
        ``repr``. ``directory`` (and its parents) is created. Returns the written files, in
        declared order. A directory that cannot be created or written to is a
        ``config.ConfigError`` naming it and the ``dump_stages`` setting
        (``GT4PY_DUMP_STAGES``) that asked for the dump.

        The dumps get the caches' protection (ADR 0026): directories and files are created
        private (or group-shared with ``GT4PY_BUILD_CACHE_SHARED_GROUP``) whatever the umask,
        and an existing dump directory, or one on the way to ``directory`` below the
        ``dump_stages`` root, that another user owns or can write, or a symlink another user
        planted there, is refused (a ``CacheError`` naming it), never written through.
        """
        render = _default_render if render is None else render
        directory = pathlib.Path(directory)
        written: list[pathlib.Path] = []
        for stage in self._declared:
            if stage.name not in self._values:
                continue
            content = render(stage, self[stage.name])
            if content is None:
                continue
            path = directory / stage.file_name
            data = content.encode("utf-8") if isinstance(content, str) else content
            try:
                if not written:
                    _make_trusted_directory(directory)
                atomic_write_bytes(path, data)
            except _UntrustedDumpDirectory as untrusted:
                raise untrusted.error from None
            except (OSError, CacheError) as error:
                raise dump_error(directory, error) from error
            written.append(path)
        return written


class _UntrustedDumpDirectory(Exception):
    """Carries the trust check's ``CacheError`` past the handler of write failures."""

    def __init__(self, error: CacheError) -> None:
        super().__init__(str(error))
        self.error = error


def _make_trusted_directory(directory: pathlib.Path) -> None:
    """Create ``directory`` as the caches create theirs, checking what exists on the way.

    The root is the ``dump_stages`` setting when ``directory`` lies below it, else
    ``directory`` itself; it is checked as a cache root (``check_root``: a symlink another user
    owns, or a directory another user owns or can write, is refused). Below it every existing
    component must be trusted as a cache entry is; missing ones (and a missing root with its
    parents) are created with the caches' mode, whatever the umask.
    """
    directory = pathlib.Path(os.path.abspath(directory))
    configured = dump_directory()
    root = directory
    if configured is not None:
        configured = pathlib.Path(os.path.abspath(configured))
        if directory == configured or configured in directory.parents:
            root = configured
    policy = _trust.current_policy()
    try:
        if not _trust.check_root(root):
            _make_missing(root, policy)
        current = root
        for part in directory.relative_to(root).parts:
            current = current / part
            try:
                info = os.lstat(current)
            except FileNotFoundError:
                _make_missing(current, policy)
                continue
            _trust.check_entry(current, info, "stage dump directory")
            if stat.S_ISLNK(info.st_mode):  # our own link: what it points at counts too
                _trust.check_entry(current, os.stat(current), "stage dump directory")
    except CacheError as error:
        raise _UntrustedDumpDirectory(error) from error


def _make_missing(path: pathlib.Path, policy: _trust.Policy) -> None:
    """Create ``path`` and its missing parents with the caches' directory mode."""
    missing = []
    while not os.path.lexists(path):
        missing.append(path)
        path = path.parent
    for new in reversed(missing):
        try:
            os.mkdir(new, 0o700)
        except FileExistsError:  # made meanwhile (another process): checked as existing
            _trust.check_entry(new, os.lstat(new), "stage dump directory")
            continue
        _trust.secure_new_directory(new, policy)


def dump_error(directory: pathlib.Path, error: OSError | CacheError) -> config.ConfigError:
    """The error for stage dumps that cannot be written to ``directory``."""
    cause = error if isinstance(error, OSError) else error.__cause__
    if isinstance(cause, OSError):
        where = f" ({cause.filename})" if cause.filename else ""
        reason = f"{cause.strerror or cause}{where}"
    else:
        reason = str(error)
    message = f"cannot write the compile stages to {directory}: {reason}"
    try:
        resolved = config.DUMP_STAGES.resolve()
    except config.ConfigError:
        resolved = None
    if resolved is None or resolved.value is None:
        return config.ConfigError(f"{message} (stage dumps: GT4PY_DUMP_STAGES)")
    return config.ConfigError(
        f"{message}. They are written because GT4PY_DUMP_STAGES (setting dump_stages, "
        f"{resolved.source}) is {resolved.value}; point it at a directory you can write to, "
        "or unset it"
    )


def _default_render(stage: Stage, value: Any) -> str | bytes:
    if isinstance(value, str | bytes):
        return value
    if isinstance(value, os.PathLike):
        return pathlib.Path(value).read_bytes()
    return repr(value)


def dump_directory() -> pathlib.Path | None:
    """Where compile stages are dumped: the ``dump_stages`` setting (``GT4PY_DUMP_STAGES``)."""
    return config.DUMP_STAGES.get()


__all__ = ["Stage", "StageValues", "describe", "dump_directory"]
