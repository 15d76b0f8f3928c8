"""Compiled programs: a pool of variants per program, keyed on what decides the code.

The key of a call: per argument its field dims and dtype (or scalar type), the dims of an
explicit ``domain=`` of a direct operator call, and the identity of the offset provider (its
tables are converted once per variant). A variant is made on first use (JIT) or ahead of time
by :meth:`ProgramPool.compile`; with ``enable_jit=False`` a call matching no compiled variant
is an error listing what was compiled.

Making a variant: lower to IR, run the passes, translate (cached persistently under a strict
fingerprint of the IR, the table dtypes and the translation step), build and load.
"""

from __future__ import annotations

import inspect
import os
import pathlib
import time
from collections.abc import Callable
from typing import Any

from .. import ir
from ..ffront import type_specifications as ts
from . import _arguments as arguments


class Variant:
    """One compiled variant: the loaded entry point and how to feed it."""

    __slots__ = ("call_count", "compute_time", "converters", "entry", "stages", "tables")

    def __init__(
        self,
        entry: Callable[..., Any],
        converters: list[arguments.Converter],
        tables: list[Any],
        stages: dict[str, Any],
    ) -> None:
        self.entry = entry
        self.converters = converters
        self.tables = tables
        self.stages = stages
        self.call_count = 0
        self.compute_time = 0.0

    def __call__(self, args: tuple[Any, ...]) -> None:
        flat: list[Any] = []
        for convert, value in zip(self.converters, args, strict=True):
            convert(value, flat)
        self.entry(*flat, *self.tables)


class ProgramPool:
    """The variants of one program or directly called operator on one backend."""

    def __init__(self, backend: Any, definition: Any, *, enable_jit: bool = True) -> None:
        self.backend = backend
        self.definition = definition
        self.enable_jit = enable_jit
        self.variants: dict[Any, Variant] = {}
        self._providers: dict[int, Any] = {}  # keeps keyed offset providers alive
        self._is_program = hasattr(definition, "definition_stage") and not hasattr(
            definition, "__gt_signature__"
        )
        self._binder: inspect.Signature | None = None

    # -- the call path --------------------------------------------------------------------------

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any], offset_provider: Any) -> None:
        if self._is_program:
            if kwargs:
                args = self._bind(args, kwargs)
            key: Any = (
                tuple([arguments.argument_key(a) for a in args]),
                _provider_key(offset_provider),
            )
            variant = self.variants.get(key)
            if variant is None:
                variant = self._miss(key, args, None, offset_provider)
            variant(args)
            return
        out = kwargs.pop("out")
        domain = kwargs.pop("domain", None)
        if kwargs:
            args = self._bind(args, kwargs)
        domain_dims, bounds = _domain_bounds(domain)
        call_args = (*args, out, *bounds)
        key = (
            tuple([arguments.argument_key(a) for a in call_args]),
            domain_dims,
            _provider_key(offset_provider),
        )
        variant = self.variants.get(key)
        if variant is None:
            variant = self._miss(key, call_args, domain_dims, offset_provider)
        variant(call_args)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if self._binder is None:
            parameters = list(inspect.signature(self.definition.definition).parameters.values())
            if getattr(self.definition, "axis", None) is not None and not self._is_program:
                parameters = parameters[1:]  # a scan's carry
            self._binder = inspect.Signature(parameters)
        return tuple(self._binder.bind(*args, **kwargs).arguments.values())

    def _miss(
        self, key: Any, args: tuple[Any, ...], domain_dims: Any, offset_provider: Any
    ) -> Variant:
        if not self.enable_jit:
            compiled = "\n  ".join(map(_describe_key, self.variants)) or "(nothing)"
            raise RuntimeError(
                f"{self.definition.__name__} was called with {_describe_key(key)}, which matches "
                f"no compiled variant, and JIT compilation is disabled (enable_jit=False).\n"
                f"Compiled variants:\n  {compiled}"
            )
        variant = self.make_variant(args, domain_dims, offset_provider)
        self._providers[_provider_key(offset_provider)] = offset_provider
        self.variants[key] = variant
        return variant

    # -- making variants ------------------------------------------------------------------------

    def lower(self, args: tuple[Any, ...], domain_dims: Any) -> tuple[ir.Program, list[Any]]:
        """The IR of this call and the frontend types of its (flattened-by-name) arguments."""
        from .. import lowering

        if self._is_program:
            program = lowering.lower_program(self.definition)
            declared = [p.type for p in self.definition.definition_stage.params]
            return program, declared
        signature = self.definition.__gt_signature__
        declared = [t for _, t in signature.params]
        n = len(declared)
        arg_types = [
            arguments.type_of_argument(v, d) for v, d in zip(args[:n], declared, strict=True)
        ]
        out_type = arguments.type_of_argument(args[n], None)
        program = lowering.lower_operator_call(self.definition, arg_types, out_type, domain_dims)
        bounds = [ts.ScalarType(__import__("numpy").dtype("int64"))] * (len(args) - n - 1)
        return program, [*arg_types, out_type, *bounds]

    def make_variant(
        self, args: tuple[Any, ...], domain_dims: Any, offset_provider: Any
    ) -> Variant:
        started = time.perf_counter()
        program, types_ = self.lower(args, domain_dims)
        stages: dict[str, Any] = {"ir": program}
        optimized = self.backend.optimize(program)
        stages["ir_optimized"] = optimized
        tables, table_dtypes = arguments.table_arguments(optimized, offset_provider)
        entry, backend_stages = self.backend.compiler(optimized, table_dtypes)
        stages.update(backend_stages)
        params = {p.name: p for p in optimized.params}
        names = _argument_names(optimized, types_, self._is_program, self.definition)
        converters = [
            arguments.converter_for(name, type_, params)
            for name, type_ in zip(names, types_, strict=True)
        ]
        stages["compile_seconds"] = time.perf_counter() - started
        _dump_stages(self.definition.__name__, stages)
        return Variant(entry, converters, tables, stages)

    def compile(
        self, offset_provider: Any, args: tuple[Any, ...], domain_dims: Any = None
    ) -> Variant:
        key: Any
        if self._is_program:
            key = (tuple([arguments.argument_key(a) for a in args]), _provider_key(offset_provider))
        else:
            key = (
                tuple([arguments.argument_key(a) for a in args]),
                domain_dims,
                _provider_key(offset_provider),
            )
        if key not in self.variants:
            self.variants[key] = self.make_variant(args, domain_dims, offset_provider)
            self._providers[_provider_key(offset_provider)] = offset_provider
        return self.variants[key]


def _provider_key(offset_provider: Any) -> Any:
    """Offset providers count by the identity of their tables (a fresh ``{}`` per call, or a
    new dict holding the same tables, reuses the variant; the pool keeps them alive)."""
    if not offset_provider:
        return ()
    return tuple([(name, id(value)) for name, value in offset_provider.items()])


def _argument_names(
    program: ir.Program, types_: list[Any], is_program: bool, definition: Any
) -> list[str]:
    if is_program:
        return [p.name for p in definition.definition_stage.params]
    signature = definition.__gt_signature__
    names = [name for name, _ in signature.params] + ["__out"]
    bounds = [p.name for p in program.params if p.name.startswith("__domain_")]
    return names + bounds


def _domain_bounds(domain: Any) -> tuple[Any, tuple[int, ...]]:
    if domain is None:
        return None, ()
    if isinstance(domain, dict):
        dims = tuple(d.value for d in domain)
        values: list[int] = []
        for rng in domain.values():
            start, stop = (rng.start, rng.stop) if hasattr(rng, "start") else rng
            values.extend((int(start), int(stop)))
        return _ordered(dims, values)
    dims = tuple(d.value for d in domain.dims)
    values = [int(v) for r in domain.ranges for v in (r.start, r.stop)]
    return _ordered(dims, values)


def _ordered(dims: tuple[str, ...], values: list[int]) -> tuple[Any, tuple[int, ...]]:
    # the lowered program takes the bounds in the output's dimension order; keep the given
    # order in the key and the program (lower_operator_call iterates the output dims)
    return dims, tuple(values)


def _describe_key(key: Any) -> str:
    parts = []
    for entry in key[0]:
        if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], tuple):
            dims = ", ".join(d.value for d in entry[0])
            parts.append(f"Field[[{dims}], {entry[1]}]")
        else:
            parts.append(getattr(entry, "__name__", str(entry)))
    return f"({', '.join(parts)})"


def _dump_stages(name: str, stages: dict[str, Any]) -> None:
    directory = os.environ.get("GT4PY_DUMP_STAGES")
    if not directory:
        return
    root = pathlib.Path(directory) / name
    root.mkdir(parents=True, exist_ok=True)
    for stage, value in stages.items():
        if isinstance(value, ir.Program):
            (root / f"{stage}.ir").write_text(ir.to_text(value))
        elif isinstance(value, str):
            suffix = ".cpp" if stage == "cpp" else ".py" if stage == "python" else ".txt"
            (root / f"{stage}{suffix}").write_text(value)
