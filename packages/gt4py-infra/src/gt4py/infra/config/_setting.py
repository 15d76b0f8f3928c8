"""One setting: its name, type, default, documentation and environment variables."""

from __future__ import annotations

import dataclasses
import math
import os
import pathlib
from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar, cast


T = TypeVar("T")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class ConfigError(ValueError):
    """A setting got a value it cannot take; the message names the setting and its source."""


class UnknownSettingError(ConfigError, KeyError):
    """A setting name that no package registered."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


@dataclasses.dataclass(frozen=True)
class LegacyAlias:
    """A released environment variable still read for a setting, with a ``DeprecationWarning``
    naming the setting's variable (which wins, with a warning, when both are set).

    ``convert`` turns the old variable's text (and the whole environment, for variables that
    only make sense together, like ``GT_CACHE_ROOT`` + ``GT_CACHE_DIR_NAME``) into the text the
    setting parses.
    """

    env: str
    convert: Callable[[str, Mapping[str, str]], str] | None = None

    def read(self, environ: Mapping[str, str]) -> str | None:
        raw = environ.get(self.env)
        if raw is None:
            return None
        return self.convert(raw, environ) if self.convert is not None else raw


@dataclasses.dataclass(frozen=True)
class RetiredVariable:
    """An environment variable of released gt4py that no setting reads any more.

    Set in the environment, it fails the first use of the config with a :class:`ConfigError`
    naming what to use instead, or, where ignoring it cannot change results (``fatal=False``,
    or its value is one of ``same_as_ours``: what gt4py does anyway), it only warns.
    ``released`` says what it did, ``instead`` what to do now (both end up in the message).
    """

    env: str
    released: str
    instead: str
    fatal: bool = True
    same_as_ours: tuple[str, ...] = ()

    def is_fatal(self, raw: str) -> bool:
        return self.fatal and raw.strip().lower() not in self.same_as_ours

    def message(self, raw: str) -> str:
        if self.is_fatal(raw):
            return (
                f"environment variable {self.env}={raw!r} was read by released gt4py "
                f"({self.released}) and has no equivalent here: {self.instead}; unset it"
            )
        return (
            f"environment variable {self.env} was read by released gt4py ({self.released}) "
            f"and is ignored here: {self.instead}"
        )


@dataclasses.dataclass(frozen=True)
class Setting(Generic[T]):
    """A typed, documented setting read from ``env`` (then ``aliases``) or its default.

    ``type`` is one of ``bool``, ``int``, ``float``, ``str`` or ``pathlib.Path``. ``choices``
    restricts the accepted values (text choices match ignoring case, ``_`` and ``-``, so
    released gt4py's ``debug`` or ``REL_WITH_DEB_INFO`` are ``Debug`` and ``RelWithDebInfo``);
    ``optional`` lets the empty string mean ``None``; a callable ``default`` is evaluated when
    the value is first needed (e.g. the CPU count). A ``float`` setting never takes ``nan``
    and takes ``inf``/``-inf`` only with ``allow_infinity`` (a limit that means "no limit" is
    spelled by leaving the setting unset, not by ``inf``); ``minimum`` bounds it from below
    (e.g. 0 for durations and timeouts). ``env_text`` rewrites environment text
    before it is parsed (released gt4py's spellings of a value); ``hint`` is appended to every
    error about a bad value (e.g. what a released value is called now).

    The object ``config.register`` returns is the setting's typed handle: a module keeps it
    (``ENABLE_JIT = config.register(Setting(...))``) and reads ``ENABLE_JIT.get()`` instead
    of ``config.get("enable_jit")``. A setting that was never registered has no value:
    its ``get`` and ``set`` raise :class:`UnknownSettingError`.
    """

    name: str
    type: type[T]
    default: T | Callable[[], T]
    doc: str
    env: str
    aliases: tuple[LegacyAlias, ...] = ()
    choices: tuple[T, ...] | None = None
    optional: bool = False
    minimum: int | float | None = None
    allow_infinity: bool = False
    env_text: Callable[[str], str] | None = None
    hint: str = ""

    def __post_init__(self) -> None:
        if self.type not in _PARSERS:
            raise TypeError(
                f"setting {self.name!r}: unsupported type {self.type!r} "
                f"(supported: {', '.join(t.__name__ for t in _PARSERS)})"
            )
        if not self.name.isidentifier():
            raise ValueError(f"setting name {self.name!r} must be a Python identifier")

    def get(self) -> T:
        """The current value (as ``config.get(name)``: set by code, environment, default)."""
        registry = _registry
        assert registry is not None
        return registry.value_of(self)

    def resolve(self) -> Resolved:
        """The current value and where it came from (as ``config.resolve(name)``)."""
        return _registry_of(self).resolve(self.name)

    def set(self, value: T | None, *, source: str = "set by code") -> None:
        """Set the value for this process (as ``config.set(name, value)``)."""
        _registry_of(self).set(self.name, value, source=source)

    def default_value(self) -> Any:
        value = self.default() if callable(self.default) else self.default
        return self.validate(value, source="default")

    def parse(self, text: str, *, source: str) -> Any:
        """Parse environment text; ``source`` names the variable for the error message."""
        stripped = (self.env_text(text) if self.env_text is not None else text).strip()
        if self.optional and stripped == "":
            return None
        try:
            value = _PARSERS[self.type](stripped)
        except ValueError:
            raise ConfigError(
                f"{source}={text!r} is not a valid {self._describe_type()} "
                f"for gt4py setting '{self.name}' ({self.doc}){self._hint()}"
            ) from None
        return self.validate(value, source=source)

    def validate(self, value: Any, *, source: str) -> Any:
        """Check (and normalize) a Python value given by code, a snapshot or a default."""
        if value is None:
            if self.optional:
                return None
            raise ConfigError(f"gt4py setting '{self.name}' ({source}) cannot be None")
        if self.type is pathlib.Path and isinstance(value, str | os.PathLike):
            value = _parse_path(os.fspath(value))
        elif self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            raise ConfigError(
                f"gt4py setting '{self.name}' ({source}) must be a {self._describe_type()}, "
                f"got {value!r} of type {type(value).__name__}"
            )
        if self.type is float:
            self._check_finite(cast(float, value), source)
        if self.choices is not None and value not in self.choices:
            value = self._choice_spelled(value)
            if value not in self.choices:
                raise ConfigError(
                    f"{source}={value!r} is not allowed for gt4py setting '{self.name}'; "
                    f"choose one of: {', '.join(map(str, self.choices))}{self._hint()}"
                )
        if self.minimum is not None and cast(float, value) < self.minimum:
            raise ConfigError(
                f"{source}={value!r} is too small for gt4py setting '{self.name}' "
                f"(minimum {self.minimum}){self._hint()}"
            )
        return value

    def _check_finite(self, value: float, source: str) -> None:
        # nan passes every comparison with a minimum (and turns a timeout into a busy loop);
        # inf is rarely what a number setting means.
        if math.isnan(value):
            problem = "is not a number"
        elif math.isinf(value) and not self.allow_infinity:
            problem = "is not a finite number"
        else:
            return
        raise ConfigError(
            f"{source}={value!r} {problem}: gt4py setting '{self.name}' ({self.doc}) needs a "
            f"{self._describe_type()}{self._hint()}"
        )

    def _choice_spelled(self, value: Any) -> Any:
        """The choice ``value`` spells ignoring case, ``_`` and ``-`` (else ``value``)."""
        if not isinstance(value, str):
            return value
        assert self.choices is not None
        folded = _fold(value)
        return next((c for c in self.choices if isinstance(c, str) and _fold(c) == folded), value)

    def _hint(self) -> str:
        return f"; {self.hint}" if self.hint else ""

    def _describe_type(self) -> str:
        if self.choices is not None:
            return "value (one of: " + ", ".join(map(str, self.choices)) + ")"
        text = {
            bool: "boolean (1/0, true/false, yes/no, on/off)",
            int: "integer",
            float: "number" if self.allow_infinity else "finite number",
            pathlib.Path: "path",
        }.get(self.type, self.type.__name__)
        if self.minimum is not None:
            text += f" >= {self.minimum}"
        return text + (" or empty" if self.optional else "")


@dataclasses.dataclass(frozen=True)
class Resolved:
    """A setting's current value and where it came from (for listings and errors)."""

    setting: Setting[Any]
    value: Any
    source: str


class _Store(Protocol):
    """What a `Setting` handle needs of the registry it was registered in (`_registry` binds
    its registry here: this module does not import it)."""

    def holds(self, setting: Setting[Any]) -> bool: ...

    def value_of(self, setting: Setting[T]) -> T: ...

    def resolve(self, name: str) -> Resolved: ...

    def set(self, name: str, value: Any, *, source: str = ...) -> None: ...


_registry: _Store | None = None  # bound by _registry at import (it imports this module)


def bind_registry(registry: _Store) -> None:
    global _registry
    _registry = registry


def _registry_of(setting: Setting[Any]) -> _Store:
    registry = _registry
    assert registry is not None
    if not registry.holds(setting):
        raise not_registered(setting)
    return registry


def not_registered(setting: Setting[Any]) -> UnknownSettingError:
    return UnknownSettingError(
        f"gt4py setting {setting.name!r} was not registered: read settings through the "
        "handle config.register(Setting(...)) returns"
    )


def _fold(text: str) -> str:
    return text.lower().replace("_", "").replace("-", "")


def _parse_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(text)


def _parse_path(text: str) -> pathlib.Path:
    if not text:
        raise ValueError(text)
    return pathlib.Path(os.path.expandvars(os.path.expanduser(text))).absolute()


_PARSERS: dict[type, Callable[[str], Any]] = {
    bool: _parse_bool,
    int: int,
    float: float,
    str: str,
    pathlib.Path: _parse_path,
}
