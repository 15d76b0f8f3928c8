"""One compiled variant of a program: its entry point, how to feed it, what each stage made."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gt4py.infra import pipeline

from .. import ir
from . import _aliasing, _arguments as arguments, _call_stubs, _extents, _index_checks
from ._variant_keys import VariantKey


# The argument names and frontend types in call order, and the IR parameters by name.
ArgumentSpec = tuple[list[str], list[Any], dict[str, Any]]


class Variant:
    """One compiled variant: the loaded entry point and how to feed it.

    ``stages`` holds what each declared stage of the backend produced (``variant.stages["cpp"]``,
    ``["ir_optimized"]``, ...); ``compile_seconds`` how long making it took.
    """

    __slots__ = (
        "_extents",
        "alias_groups",
        "argument_spec",
        "callee",
        "compile_seconds",
        "converters",
        "description",
        "entry",
        "fuses",
        "key",
        "metrics",
        "run_embedded",
        "stages",
        "tables",
    )

    # What this variant was compiled for: argument types, static values, offset provider.
    description: str
    # Who it belongs to, as errors name it ("program 'p'").
    callee: str

    def __repr__(self) -> str:
        return f"<compiled variant {self.description}>"

    def __init__(
        self,
        key: VariantKey,
        entry: Callable[..., Any],
        converters: list[arguments.Converter],
        tables: list[Any],
        stages: pipeline.StageValues,
        argument_spec: ArgumentSpec,
        compile_seconds: float,
    ) -> None:
        self.key = key
        self.entry = entry
        self.converters = converters
        self.tables = tables
        self.stages = stages
        self.argument_spec = argument_spec
        self.compile_seconds = compile_seconds
        self.callee = "program"
        self.metrics: Any = None  # a TimedVariant's per-program record
        self._extents: _call_stubs.ExtentContract | None = None
        # per statement its operator call (for fields sharing memory; asked on first need)
        self.alias_groups: Callable[[], list[int] | None] = lambda: None
        # the call run embedded, where fields share memory so that no copy gives its result
        self.run_embedded: Callable[[tuple[Any, ...], Any, str], None] | None = None
        # whether the generated code runs consecutive statements as one loop nest (gtfn)
        self.fuses = True

    @property
    def extents(self) -> _call_stubs.ExtentContract:
        """What this variant needs of its arguments' extents (worked out on first use)."""
        if self._extents is None:
            program: ir.Program = self.stages["ir_optimized"]
            tables = {
                decl.name: _extents.TableFacts.of(self.tables[2 * i], self.tables[2 * i + 1])
                for i, decl in enumerate(program.offsets)
            }
            self._extents = _call_stubs.ExtentContract(
                self.callee,
                _extents.needs_of(program),
                list(_extents.statement_domains(program)),
                tables,
                {code: name for name, code in _extents.field_codes(program).items()},
                _index_checks.index_checks(program),
                _aliasing.AliasPlan(program, self.alias_groups, fuses=self.fuses),
                self._resolve_alias,
            )
        return self._extents

    def _resolve_alias(
        self, args: tuple[Any, ...], provider: Any, fields: tuple[Any, ...], datas: list[Any]
    ) -> list[Any] | None:
        """A stub found fields whose memory may be shared: the arrays to pass (copies where
        reads must not see the call's writes), or None when the call ran embedded."""
        plan = self.extents.alias
        assert plan is not None
        result, why = plan.resolve(fields, datas)
        if result is not None:
            return result
        if self.run_embedded is None:  # pragma: no cover  (operators read no written field)
            raise ValueError(f"{self.callee}: arguments {why}; pass fields that do not")
        self.run_embedded(args, provider, why)
        return None

    def stub(self, args: tuple[Any, ...], offset_provider: Any) -> _call_stubs.Stub:
        """The call stub for arguments of the kinds of ``args`` (checks, flattens, calls)."""
        names, types_, params = self.argument_spec
        return _call_stubs.make_stub(
            entry=self.entry,
            tables=self.tables,
            names=names,
            types_=types_,
            params=params,
            static=dict(self.key.static),
            args=args,
            offset_provider=offset_provider,
            metrics=self.metrics,
            extents=self.extents,
        )

    def __call__(self, args: tuple[Any, ...]) -> int:
        """A call without the checks of a stub (for tests of the flattening and of the per-point
        checks); returns the entry point's status (0, or the code of a field read outside)."""
        flat: list[Any] = []
        for convert, value in zip(self.converters, args, strict=True):
            convert(value, flat)
        return int(self.entry(*flat, *self.tables))


class TimedVariant(Variant):
    """A variant made while metrics were on: every call is counted and timed."""

    __slots__ = ()

    def __init__(self, metrics: Any, *args: Any) -> None:
        super().__init__(*args)
        self.metrics = metrics

    def __call__(self, args: tuple[Any, ...]) -> int:
        started = time.perf_counter()
        status = Variant.__call__(self, args)
        self.metrics.record_call(time.perf_counter() - started)
        return status


def ignore_static(value: Any, out: list[Any]) -> None:
    """The converter of a static argument: a constant in the code (its value is in the key)."""


__all__ = ["ArgumentSpec", "TimedVariant", "Variant", "ignore_static"]
