"""Declared compile stages and the values a compile produced for them."""

from __future__ import annotations

import dataclasses
import os
import pathlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from gt4py.infra import config
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
                    directory.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(path, data)
            except (OSError, CacheError) as error:
                raise dump_error(directory, error) from error
            written.append(path)
        return written


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
