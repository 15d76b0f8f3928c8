"""The process-wide settings registry: resolution order, overrides, snapshots.

Resolution, highest first: a value set by code (``set``, ``overrides``, ``apply``), the
setting's environment variable, its legacy aliases (released gt4py's names, with a
``DeprecationWarning``), its default. Environment values are re-read on every ``get`` (one dict
lookup) and their parse is memoized on the raw text, so tests and users can change
``os.environ`` at any time.

Released variables that no setting reads any more are registered as :class:`RetiredVariable`;
the first use of the config fails naming what to use instead (or warns, where ignoring them is
harmless).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
import warnings
from collections.abc import Iterator, Mapping
from typing import Any, Final, TypeVar

from gt4py.infra.deprecation import GT4PyDeprecationWarning

from ._setting import (
    ConfigError,
    Resolved as Resolved,
    RetiredVariable,
    Setting,
    UnknownSettingError,
    bind_registry,
    not_registered,
)
from ._unknown_variables import warn_about_unknown_variables


_UNSET: Final = object()
_T = TypeVar("_T")


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """Every registered setting's value at one moment; picklable, applied in workers."""

    values: Mapping[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.values[name]


class _Registry:
    def __init__(self) -> None:
        self._settings: dict[str, Setting[Any]] = {}
        self._explicit: dict[str, tuple[Any, str]] = {}
        # Values applied from a snapshot before their setting was registered (a worker that
        # has not yet imported the DSL package defining them).
        self._pending: dict[str, Any] = {}
        self._env_memo: dict[str, tuple[str, Any, str]] = {}
        self._defaults: dict[str, Any] = {}
        self._warned: set[tuple[str, str]] = set()
        # Settings whose environment variables have not been checked yet: each is checked at
        # the first use of the config after its registration (see check_environment).
        self._unchecked: list[Setting[Any]] = []
        self._retired: dict[str, RetiredVariable] = {}
        self._unchecked_retired: list[RetiredVariable] = []
        self._unknown_checked = False
        self._needs_check = True  # one test on the hot path (get) instead of two
        self._lock = threading.RLock()

    # -- registration ------------------------------------------------------------------------
    def register(self, setting: Setting[_T]) -> Setting[_T]:
        """Add ``setting``; returns its handle (the registered object, for ``.get()``).

        Registering an equal setting again (a reloaded module) returns the first one.
        """
        with self._lock:
            self._declare(
                self._settings,
                setting.name,
                setting,
                self._unchecked,
                f"gt4py setting '{setting.name}' is already registered",
            )
            if setting.name in self._pending:
                value = self._pending.pop(setting.name)
                self._explicit[setting.name] = (
                    setting.validate(value, source="snapshot"),
                    "snapshot",
                )
            registered: Setting[_T] = self._settings[setting.name]
        return registered

    def retire(self, *variables: RetiredVariable) -> None:
        """Declare released environment variables that no setting reads (checked at next use)."""
        with self._lock:
            for variable in variables:
                self._declare(
                    self._retired,
                    variable.env,
                    variable,
                    self._unchecked_retired,
                    f"variable {variable.env} is already declared retired",
                )

    def _declare(
        self, known: dict[str, _T], key: str, item: _T, unchecked: list[_T], clash: str
    ) -> None:
        # Declaring an equal item again (a reloaded module) keeps the first; a different one
        # under the same key is an error. A new item is checked at the next use of the config.
        existing = known.get(key)
        if existing is not None and existing != item:
            raise ConfigError(clash)
        if existing is None:
            known[key] = item
            unchecked.append(item)
            self._needs_check = True

    def retired(self) -> list[RetiredVariable]:
        """The retired released variables, sorted by name."""
        return [self._retired[name] for name in sorted(self._retired)]

    def holds(self, setting: Setting[Any]) -> bool:
        """Whether ``setting`` is the registered one of its name (a handle, not a look-alike)."""
        return self._settings.get(setting.name) is setting

    def setting(self, name: str) -> Setting[Any]:
        try:
            return self._settings[name]
        except KeyError:
            import difflib  # only for an error message

            close = difflib.get_close_matches(name, self._settings, n=3)
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise UnknownSettingError(f"unknown gt4py setting {name!r}{hint}") from None

    def names(self) -> list[str]:
        return sorted(self._settings)

    def known_variables(self) -> set[str]:
        """Every environment variable a registered setting reads (aliases included), and the
        retired released ones (they have their own message)."""
        return {
            env
            for setting in self._settings.values()
            for env in (setting.env, *(alias.env for alias in setting.aliases))
        } | set(self._retired)

    # -- checking the environment ------------------------------------------------------------
    def check_environment(self) -> None:
        """Parse the set variables of every setting not checked yet; warn about unknown names.

        Runs at the first use of the config and again at the next use after a package
        registered more settings, so a malformed ``GT4PY_*`` value fails early, naming the
        variable and what it accepts, whichever setting is read first. A setting stays
        unchecked (and the next use raises again) until its variables parse. A setting's
        variable set together with one of its deprecated aliases warns that it wins. A set
        retired variable raises (again at every use, until it is unset) or warns once.
        ``GT4PY_*`` variables that no setting reads get one warning per process (see
        ``_unknown_variables``).
        """
        with self._lock:
            while self._unchecked:
                self._check_variables(self._unchecked[0])
                self._unchecked.pop(0)
            while self._unchecked_retired:
                self._check_retired(self._unchecked_retired[0])
                self._unchecked_retired.pop(0)
            if not self._unknown_checked:
                self._unknown_checked = True
                warn_about_unknown_variables(self.known_variables())
            self._needs_check = False

    def _check_variables(self, setting: Setting[Any]) -> None:
        raw = os.environ.get(setting.env)
        if raw is not None:
            self._parse_memo(setting, raw, setting.env, f"env {setting.env}")
        for alias in setting.aliases:
            alias_raw = alias.read(os.environ)
            if alias_raw is None:
                continue
            self._parse_memo(setting, alias_raw, alias.env, f"env {alias.env} (deprecated alias)")
            if raw is not None:
                warnings.warn(
                    f"environment variables {setting.env} and {alias.env} (its deprecated "
                    f"released name) are both set: {setting.env}={raw!r} wins, "
                    f"{alias.env} is ignored; unset {alias.env}",
                    GT4PyDeprecationWarning,
                    stacklevel=5,
                )

    def _check_retired(self, variable: RetiredVariable) -> None:
        raw = os.environ.get(variable.env)
        if raw is None:
            return
        if variable.is_fatal(raw):
            raise ConfigError(variable.message(raw))
        warnings.warn(variable.message(raw), UserWarning, stacklevel=5)

    # -- reading -----------------------------------------------------------------------------
    def get(self, name: str) -> Any:
        if self._needs_check:
            self.check_environment()
        explicit = self._explicit.get(name, _UNSET)
        if explicit is not _UNSET:
            return explicit[0]  # type: ignore[index]
        return self._resolve_implicit(self.setting(name))[0]

    def value_of(self, setting: Setting[_T]) -> _T:
        """``get`` for a handle: checks that ``setting`` is the registered one (one step)."""
        if self._needs_check:
            self.check_environment()
        if self._settings.get(setting.name) is not setting:
            raise not_registered(setting)
        explicit = self._explicit.get(setting.name, _UNSET)
        if explicit is not _UNSET:
            return explicit[0]  # type: ignore[index,no-any-return]
        value: _T = self._resolve_implicit(setting)[0]
        return value

    def resolve(self, name: str) -> Resolved:
        if self._needs_check:
            self.check_environment()
        setting = self.setting(name)
        explicit = self._explicit.get(name)
        if explicit is not None:
            return Resolved(setting, explicit[0], explicit[1])
        value, source = self._resolve_implicit(setting)
        return Resolved(setting, value, source)

    def _resolve_implicit(self, setting: Setting[Any]) -> tuple[Any, str]:
        environ = os.environ
        raw = environ.get(setting.env)
        if raw is not None:
            return self._parse_memo(setting, raw, setting.env, f"env {setting.env}")
        for alias in setting.aliases:
            raw = alias.read(environ)
            if raw is not None:
                self._warn_legacy(alias.env, setting)
                return self._parse_memo(
                    setting, raw, alias.env, f"env {alias.env} (deprecated alias)"
                )
        if setting.name not in self._defaults:
            self._defaults[setting.name] = setting.default_value()
        return self._defaults[setting.name], "default"

    def _parse_memo(
        self, setting: Setting[Any], raw: str, var: str, source: str
    ) -> tuple[Any, str]:
        memo_key = f"{setting.name}\0{var}"
        memo = self._env_memo.get(memo_key)
        if memo is not None and memo[0] == raw:
            return memo[1], memo[2]
        value = setting.parse(raw, source=var)
        self._env_memo[memo_key] = (raw, value, source)
        return value, source

    def _warn_legacy(self, env: str, setting: Setting[Any]) -> None:
        key = (env, setting.name)
        if key in self._warned:
            return
        self._warned.add(key)
        warnings.warn(
            f"environment variable {env} is deprecated; use {setting.env} "
            f"(gt4py setting '{setting.name}') instead",
            GT4PyDeprecationWarning,
            stacklevel=4,
        )

    # -- writing -----------------------------------------------------------------------------
    def set(self, name: str, value: Any, *, source: str = "set by code") -> None:
        setting = self.setting(name)
        with self._lock:
            self._explicit[name] = (setting.validate(value, source=source), source)

    def unset(self, name: str) -> None:
        self.setting(name)
        with self._lock:
            self._explicit.pop(name, None)

    @contextlib.contextmanager
    def overrides(self, **values: Any) -> Iterator[None]:
        with self._lock:
            for name, value in values.items():  # validate all before changing anything
                self.setting(name).validate(value, source="overrides()")
            saved = {name: self._explicit.get(name, _UNSET) for name in values}
            for name, value in values.items():
                self.set(name, value, source="overrides()")
        try:
            yield
        finally:
            with self._lock:
                for name, previous in saved.items():
                    if previous is _UNSET:
                        self._explicit.pop(name, None)
                    else:
                        self._explicit[name] = previous  # type: ignore[assignment]

    # -- snapshots ---------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        values = {name: self.get(name) for name in self._settings}
        values.update({n: v for n, v in self._pending.items() if n not in values})
        return Snapshot(values)

    def apply(self, snapshot: Snapshot) -> None:
        with self._lock:
            for name, value in snapshot.values.items():
                setting = self._settings.get(name)
                if setting is None:
                    self._pending[name] = value
                else:
                    self._explicit[name] = (setting.validate(value, source="snapshot"), "snapshot")


REGISTRY: Final = _Registry()
bind_registry(REGISTRY)
