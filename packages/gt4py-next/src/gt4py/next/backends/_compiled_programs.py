"""Compiled programs: a pool of variants per program, keyed on what decides the code.

A :class:`VariantKey` is the frontend type of every argument, the values of the static
arguments (constants in the generated code), the dims of an explicit ``domain=`` of a direct
operator call, and the identity of the offset provider's tables. The call path first looks a
call up by a cheap *fast key* (per argument its dims and dtype, or its Python type); only a
miss computes the :class:`VariantKey`, which is also what ``.compile()`` produces from the
declared parameter types, so ahead-of-time variants serve later calls.

A variant is made on first use (JIT) or ahead of time by :meth:`ProgramPool.compile`; with JIT
disabled a call matching no compiled variant is an error listing what was compiled and what
was asked. Making a variant: lower to IR (in the caller: lowering reads the user's function),
run the passes, then the backend's ``make_artifact`` (translation + build; cached, and in a
runner worker when compiling asynchronously; the task carries IR only), then ``load_artifact``
in the caller.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import itertools
import pathlib
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .. import ir
from ..ffront import type_specifications as ts
from ..ffront._call_arguments import check_call_arguments, check_operator_out, check_scan_out
from . import _arguments as arguments, _call_stubs, _extents


@dataclasses.dataclass(frozen=True)
class VariantKey:
    """What decides the code of one variant."""

    arguments: tuple[Any, ...]  # frontend types of the arguments (a direct call: then ``out``)
    static: tuple[tuple[str, Any], ...] = ()
    domain_dims: tuple[str, ...] | None = None
    offset_provider: tuple[tuple[str, int], ...] = ()

    def describe(self, names: list[str]) -> str:
        parts = [f"{n}: {t}" for n, t in zip(names, self.arguments, strict=False)]
        static = dict(self.static)
        parts = [
            f"{p} = {static[n]!r}" if n in static else p for p, n in zip(parts, names, strict=False)
        ]
        text = f"({', '.join(parts)})"
        if self.domain_dims is not None:
            text += f" domain over ({', '.join(self.domain_dims)})"
        if self.offset_provider:
            text += f" offset_provider {{{', '.join(n for n, _ in self.offset_provider)}}}"
        return text


class Variant:
    """One compiled variant: the loaded entry point and how to feed it."""

    __slots__ = (
        "_extents",
        "argument_spec",
        "callee",
        "converters",
        "description",
        "entry",
        "key",
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
        stages: dict[str, Any],
        argument_spec: ArgumentSpec,
    ) -> None:
        self.key = key
        self.entry = entry
        self.converters = converters
        self.tables = tables
        self.stages = stages
        self.argument_spec = argument_spec
        self.callee = "program"
        self._extents: _call_stubs.ExtentContract | None = None

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
            )
        return self._extents

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
            metrics=getattr(self, "metrics", None),
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

    __slots__ = ("metrics",)

    def __init__(self, metrics: Any, *args: Any) -> None:
        super().__init__(*args)
        self.metrics = metrics

    def __call__(self, args: tuple[Any, ...]) -> int:
        started = time.perf_counter()
        status = Variant.__call__(self, args)
        self.metrics.record_call(time.perf_counter() - started)
        return status


# The argument names and frontend types in call order, and the IR parameters by name.
ArgumentSpec = tuple[list[str], list[Any], dict[str, Any]]


@dataclasses.dataclass
class _Prepared:
    """A variant lowered and optimized in the caller, waiting for its artifact."""

    key: VariantKey
    optimized: ir.Program
    stages: dict[str, Any]
    converters: list[arguments.Converter]
    tables: list[Any]
    table_dtypes: dict[str, str]
    started: float
    argument_spec: ArgumentSpec


def make_artifact(compiler: Any, program: ir.Program, table_dtypes: Mapping[str, str]) -> Any:
    """The runner task: translate and build (IR in, a picklable artifact out)."""
    return compiler.make_artifact(program, table_dtypes)


class PendingVariant:
    """A variant being built in the background; :meth:`result` waits and installs it."""

    def __init__(
        self,
        pool: ProgramPool,
        prepared: _Prepared,
        future: Any,
        artifact_of: Callable[[Any], Any] | None = None,
    ) -> None:
        self.pool = pool
        self.prepared = prepared
        self.future = future
        # What the future's result holds the artifact in (a task may return more).
        self.artifact_of = artifact_of

    def done(self) -> bool:
        return bool(self.future.done())

    def result(self) -> Variant:
        key = self.prepared.key
        installed = self.pool.variants.get(key)
        if installed is not None:
            return installed
        artifact = self.future.result()  # re-raises a failed build
        if self.artifact_of is not None:
            artifact = self.artifact_of(artifact)
        variant = self.pool._finish(self.prepared, artifact)
        self.pool.variants[key] = variant
        self.pool.pending.pop(key, None)
        return variant


class ProgramPool:
    """The variants of one program or directly called operator on one backend."""

    def __init__(self, backend: Any, definition: Any) -> None:
        self.backend = backend
        self.definition = definition
        self.variants: dict[VariantKey, Variant] = {}
        self.pending: dict[VariantKey, PendingVariant] = {}
        self._fast: dict[Any, Variant] = {}
        # Fast key -> call stub (``never`` where the kinds need the general path); the stub of
        # the last call is tried first, so repeated calls of one kind skip the fast key.
        self._stubs: dict[Any, _call_stubs.Stub] = {}
        self._last_stub: _call_stubs.Stub = _call_stubs.never
        self._last_domain_dims: Any = None
        self._providers: dict[Any, Any] = {}  # keeps keyed offset providers alive
        self._is_program = hasattr(definition, "definition_stage") and not hasattr(
            definition, "__gt_signature__"
        )
        self._binder: inspect.Signature | None = None
        if self._is_program:
            params = definition.definition_stage.params
            self._names: list[str] = [p.name for p in params]
            self._declared: list[Any] = [p.type for p in params]
        else:
            signature = definition.__gt_signature__
            self._names = [name for name, _ in signature.params] + ["out"]
            self._declared = [t for _, t in signature.params] + [None]
        kind = "program" if self._is_program else "field operator"
        self._callee = f"{kind} '{definition.__name__}'"
        self._is_scan = not self._is_program and getattr(definition, "axis", None) is not None
        self._last_out: Any = None
        self._returns = None if self._is_program else definition.__gt_signature__.definition.returns
        self._static_names: tuple[str, ...] = ()
        self._static_indices: tuple[int, ...] = ()
        declared_static = getattr(definition, "static_params", None)
        if declared_static:
            self._set_static(tuple(declared_static))

    @property
    def enable_jit(self) -> bool:
        chosen = getattr(self.definition, "enable_jit", None)
        if chosen is not None:
            return bool(chosen)
        from gt4py.infra import config

        from . import _settings  # noqa: F401  (registers the setting)

        return bool(config.get("enable_jit"))

    def _set_static(self, names: tuple[str, ...]) -> None:
        for name in names:
            if name not in self._names or (not self._is_program and name == "out"):
                raise ValueError(
                    f"{self.definition.__name__} has no parameter {name!r} to make static "
                    f"(parameters: {', '.join(self._names)})"
                )
            declared = self._declared[self._names.index(name)]
            if not isinstance(declared, ts.ScalarType):
                raise TypeError(
                    f"static argument {name!r} of {self.definition.__name__} must be a scalar "
                    f"parameter, it is declared {declared}"
                )
        self._static_names = names
        self._static_indices = tuple(self._names.index(n) for n in names)

    # -- the call path --------------------------------------------------------------------------

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any], offset_provider: Any) -> None:
        if self._is_program:
            if kwargs:
                args = self._bind(args, kwargs)
            if self._last_stub(args, offset_provider):
                return
            self._call_general(args, None, offset_provider)
            return
        out = kwargs.pop("out")
        domain = kwargs.pop("domain", None)
        if self._is_scan:
            check_scan_out(self.definition.__name__, self.definition.axis, out)
        elif out is not self._last_out:  # the same `out` as the last call passed already
            check_operator_out(self.definition.__name__, self._returns, out)
            self._last_out = out
        if kwargs:
            args = self._bind(args, kwargs)
        domain_dims, bounds = _domain_bounds(domain)
        call_args = (*args, out, *bounds)
        if domain_dims == self._last_domain_dims and self._last_stub(call_args, offset_provider):
            return
        self._call_general(call_args, domain_dims, offset_provider)

    def _call_general(self, args: tuple[Any, ...], domain_dims: Any, offset_provider: Any) -> None:
        """A call the last stub did not take: find the variant by its fast key, then make the
        stub of these argument kinds the one tried first."""
        given = len(args) - 2 * len(domain_dims or ())
        if given != len(self._names):
            raise TypeError(
                f"{self.definition.__name__}() takes {len(self._names)} argument(s) "
                f"({', '.join(self._names)}), got {given}"
            )
        check_call_arguments(self._callee, self._names, self._declared, args, scan=self._is_scan)
        fast: Any = (
            tuple([arguments.argument_key(a) for a in args]),
            tuple([args[i] for i in self._static_indices]),
            domain_dims,
            _provider_key(offset_provider),
        )
        variant = self._fast.get(fast)
        if variant is None:
            variant = self._lookup(fast, args, domain_dims, offset_provider)
        stub = self._stubs.get(fast)
        if stub is None:
            stub = self._stubs[fast] = variant.stub(args, offset_provider)
        self._last_stub, self._last_domain_dims = stub, domain_dims
        if not stub(args, offset_provider):  # pragma: no cover  (made from these arguments)
            raise RuntimeError(f"{self._callee}: the call stub does not take its own arguments")

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if self._binder is None:
            parameters = list(inspect.signature(self.definition.definition).parameters.values())
            if getattr(self.definition, "axis", None) is not None and not self._is_program:
                parameters = parameters[1:]  # a scan's carry
            self._binder = inspect.Signature(parameters)
        return tuple(self._binder.bind(*args, **kwargs).arguments.values())

    def _key_of_call(
        self, args: tuple[Any, ...], domain_dims: Any, offset_provider: Any
    ) -> VariantKey:
        count = len(self._declared)
        types_ = tuple(
            arguments.type_of_argument(v, d)
            for v, d in zip(args[:count], self._declared, strict=True)
        )
        static = tuple(
            (n, _static_value(n, args[i], self._declared[i]))
            for n, i in zip(self._static_names, self._static_indices, strict=True)
        )
        return VariantKey(types_, static, domain_dims, _provider_key(offset_provider))

    def _lookup(
        self, fast: Any, args: tuple[Any, ...], domain_dims: Any, offset_provider: Any
    ) -> Variant:
        key = self._key_of_call(args, domain_dims, offset_provider)
        arguments.check_offset_provider(self._callee, self.definition, offset_provider)
        variant = self.variants.get(key)
        if variant is None:
            pending = self.pending.get(key)
            if pending is not None:
                variant = pending.result()
            elif not self.enable_jit:
                raise self._no_variant_error(key)
            else:
                variant = self._finish(self.prepare(key, offset_provider), None)
                self.variants[key] = variant
        self._fast[fast] = variant
        return variant

    def _no_variant_error(self, key: VariantKey) -> RuntimeError:
        known = [*self.variants, *self.pending]
        compiled = "\n  ".join(k.describe(self._names) for k in known) or "(nothing)"
        return RuntimeError(
            f"{self.definition.__name__} was called with {key.describe(self._names)}, which "
            f"matches no compiled variant, and JIT compilation is disabled (enable_jit=False).\n"
            f"Compiled variants:\n  {compiled}"
        )

    # -- ahead of time --------------------------------------------------------------------------

    def compile(
        self,
        offset_provider: Any,
        static_args: dict[str, Any],
        *,
        asynchronous: bool | None = None,
    ) -> list[VariantKey]:
        """Compile every combination of the static argument values (each given as a list) for
        every offset provider given (one, or a list), from the declared parameter types.

        An operator is compiled for the call ``op(*args, out=out, offset_provider=...)``
        without ``domain=`` (the domain is ``out``'s), ``out`` typed as the operator returns."""
        planned = self.plan_ahead_of_time(offset_provider, static_args)
        if asynchronous is None:
            from gt4py.infra import config

            from . import _settings  # noqa: F401  (registers the setting)

            asynchronous = bool(config.get("async_compilation"))
        for key, provider, new in planned:
            if not new:
                continue
            prepared = self.prepare(key, provider)
            if asynchronous:
                self._submit(prepared)
            else:
                self.variants[key] = self._finish(prepared, None)
        return [key for key, _, _ in planned]

    def plan_ahead_of_time(
        self, offset_provider: Any, static_args: dict[str, Any]
    ) -> list[tuple[VariantKey, Any, bool]]:
        """The variants ``compile(offset_provider, static_args)`` stands for: per variant its
        key, its offset provider and whether it still has to be made (neither compiled nor
        pending). Checks the static arguments and the declared types; builds nothing."""
        for name, values in static_args.items():
            if not isinstance(values, list):
                raise TypeError(
                    f"{self.definition.__name__}.compile(): give the values of the static "
                    f"argument {name!r} as a list, e.g. {name}=[{values!r}]"
                )
        names = tuple(static_args)
        if names and set(names) != set(self._static_names):
            if self._static_names or self.variants or self.pending:
                raise ValueError(
                    f"{self.definition.__name__}.compile(): static arguments "
                    f"({', '.join(names)}) differ from this program's "
                    f"({', '.join(self._static_names) or 'none'})"
                )
            self._set_static(names)
        missing = [n for n in self._static_names if n not in static_args]
        if missing:
            raise TypeError(
                f"{self.definition.__name__}.compile() needs values for the static "
                f"argument(s) {', '.join(missing)} (e.g. {missing[0]}=[...])"
            )
        for name, declared in zip(self._names, self._declared, strict=True):
            if isinstance(declared, ts.FieldType) and declared.dims is None:
                raise TypeError(
                    f"{self.definition.__name__}.compile(): parameter {name!r} is declared "
                    f"{declared} without dimensions; call the program to compile it instead"
                )
        declared_arguments = (
            tuple(self._declared)
            if self._is_program
            else (*self._declared[:-1], self._compilable_return_type())
        )
        providers = offset_provider if isinstance(offset_provider, list) else [offset_provider]
        value_lists = [static_args[n] for n in self._static_names]
        planned = []
        seen = set()
        for provider in providers:
            for values in itertools.product(*value_lists):
                static = tuple(
                    (n, _static_value(n, v, self._declared[self._names.index(n)]))
                    for n, v in zip(self._static_names, values, strict=True)
                )
                key = VariantKey(declared_arguments, static, None, _provider_key(provider))
                new = key not in self.variants and key not in self.pending and key not in seen
                seen.add(key)
                planned.append((key, provider, new))
        return planned

    def _compilable_return_type(self) -> Any:
        """What ``out`` is for an operator compiled ahead of time: a field or a tuple of them."""
        returns = self.definition.__gt_signature__.definition.returns

        def fields_only(type_: Any) -> bool:
            if isinstance(type_, ts.TupleType):
                return all(fields_only(t) for t in type_.types)
            return isinstance(type_, ts.FieldType) and type_.dims is not None

        if not fields_only(returns):
            raise TypeError(
                f"{self.definition.__name__}.compile(): the operator returns {returns}, and only "
                "operators returning fields (or tuples of fields) with dimensions are compiled "
                "ahead of time; call it with 'out=' to compile it instead"
            )
        return returns

    def _submit(self, prepared: _Prepared) -> None:
        from gt4py.infra import runners

        from .._backend import register_compilation

        task = functools.partial(
            make_artifact, self.backend.compiler, prepared.optimized, prepared.table_dtypes
        )
        future = runners.default_runner().submit(task)
        pending = PendingVariant(self, prepared, future)
        self.pending[prepared.key] = pending
        register_compilation(pending)

    # -- making variants ------------------------------------------------------------------------

    def _lower(self, key: VariantKey) -> tuple[ir.Program, list[Any]]:
        """The IR of a variant and the frontend types of its arguments in call order."""
        from .. import lowering

        if self._is_program:
            program = lowering.lower_program(self.definition)
            if key.static:
                program = _bind_static(program, dict(key.static))
            return program, list(key.arguments)
        *arg_types, out_type = key.arguments
        program = lowering.lower_operator_call(
            self.definition,
            arg_types,
            out_type,
            None if key.domain_dims is None else list(key.domain_dims),
        )
        if key.static:
            program = _bind_static(program, dict(key.static))
        bounds = [ts.ScalarType(np.dtype("int64"))] * (2 * len(key.domain_dims or ()))
        return program, [*key.arguments, *bounds]

    def prepare(self, key: VariantKey, offset_provider: Any) -> _Prepared:
        """Lower and optimize the variant ``key`` in this process (the frontend reads the
        user's function); what is left is the backend's ``make_artifact`` and the load."""
        self._providers[key.offset_provider] = offset_provider
        started = time.perf_counter()
        program, types_ = self._lower(key)
        optimized = self.backend.optimize(program)
        tables, table_dtypes = arguments.table_arguments(optimized, offset_provider)
        device_tables = getattr(self.backend.compiler, "device_tables", None)
        if device_tables is not None:  # gtfn_gpu: the tables on the device, once per variant
            tables = device_tables(tables)
        params = {p.name: p for p in optimized.params}
        static = dict(key.static)
        names = _argument_names(optimized, self._is_program, self.definition)
        converters = [
            _ignore_static if name in static else arguments.converter_for(name, type_, params)
            for name, type_ in zip(names, types_, strict=True)
        ]
        frontend = getattr(self.definition, "definition_stage", None)
        stages: dict[str, Any] = {
            "frontend": repr(frontend),
            "ir": program,
            "ir_optimized": optimized,
        }
        return _Prepared(
            key,
            optimized,
            stages,
            converters,
            tables,
            table_dtypes,
            started,
            (names, list(types_), params),
        )

    def _finish(self, prepared: _Prepared, artifact: Any) -> Variant:
        compiler = self.backend.compiler
        if artifact is None:
            artifact = compiler.make_artifact(prepared.optimized, prepared.table_dtypes)
        entry, backend_stages = compiler.load_artifact(artifact)
        stages = {**prepared.stages, **backend_stages}
        stages["compile_seconds"] = time.perf_counter() - prepared.started
        _dump_stages(self.definition.__name__, _variant_label(prepared.key, self._names), stages)
        from .. import metrics

        parts = (
            prepared.key,
            entry,
            prepared.converters,
            prepared.tables,
            stages,
            prepared.argument_spec,
        )
        variant: Variant
        if metrics.level() > 0:
            record = metrics.metrics_for(self.definition.__name__)
            record.variants += 1
            record.compile_time_s += stages["compile_seconds"]
            variant = TimedVariant(record, *parts)
        else:
            variant = Variant(*parts)
        variant.description = prepared.key.describe(self._names)
        variant.callee = self._callee
        return variant


def _ignore_static(value: Any, out: list[Any]) -> None:
    """A static argument is a constant in the code (its value is part of the key)."""


def _static_value(name: str, value: Any, declared: Any) -> Any:
    """A static argument's value as the Python scalar of its declared dtype."""
    dtype = np.dtype(ts.element_dtype(declared))
    if isinstance(value, (bool, np.bool_)) != (dtype.kind == "b") or not isinstance(
        value, (int, float, np.number, np.bool_)
    ):
        raise TypeError(f"static argument {name!r} is declared {dtype.name}, got {value!r}")
    converted = dtype.type(value).item()
    if dtype.kind in "iu" and converted != value:
        raise TypeError(f"static argument {name!r} is declared {dtype.name}, got {value!r}")
    return converted


def _literal_text(value: Any) -> str:
    return repr(value)


def _bind_static(program: ir.Program, values: dict[str, Any]) -> ir.Program:
    """The program with its static scalar parameters replaced by literals."""
    from gt4py.eve import NodeTranslator

    dtypes = {p.name: p.dtype for p in program.params if p.name in values}

    class BindStatic(NodeTranslator):
        def visit_SymRef(self, node: ir.SymRef) -> ir.Expr:
            if node.name in dtypes:
                text = _literal_text(values[node.name])
                return ir.Literal(value=text, dtype=dtypes[node.name])
            return node

        def visit_Let(self, node: ir.Let) -> ir.Let:
            if node.name in dtypes:  # a binding shadowing a static name keeps its own value
                raise NotImplementedError(f"a local value shadows static argument {node.name!r}")
            return self.generic_visit(node)  # type: ignore[no-any-return]

    bound: ir.Program = BindStatic().visit(program)
    return bound.replace(params=[p for p in bound.params if p.name not in dtypes])


def _provider_key(offset_provider: Any) -> tuple[tuple[str, int], ...]:
    """Offset providers count by the identity of their tables (a fresh ``{}`` per call, or a
    new dict holding the same tables, reuses the variant; the pool keeps them alive)."""
    if not offset_provider:
        return ()
    return tuple([(name, id(value)) for name, value in offset_provider.items()])


def _argument_names(program: ir.Program, is_program: bool, definition: Any) -> list[str]:
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
        return dims, tuple(values)
    # the lowered program takes the bounds in the given order (lower_operator_call follows it)
    dims = tuple(d.value for d in domain.dims)
    return dims, tuple(int(v) for r in domain.ranges for v in (r.start, r.stop))


def _variant_label(key: VariantKey, names: list[str]) -> str:
    """A short directory name per variant, the same in every process."""
    import hashlib

    return "variant-" + hashlib.sha1(key.describe(names).encode()).hexdigest()[:10]


def _dump_stages(name: str, variant: str, stages: dict[str, Any]) -> None:
    from gt4py.infra import config

    from . import _settings  # noqa: F401  (registers the setting)

    directory = config.get("dump_stages")
    if directory is None:
        return
    root = pathlib.Path(directory) / name / variant
    root.mkdir(parents=True, exist_ok=True)
    for stage, value in stages.items():
        if isinstance(value, ir.Program):
            (root / f"{stage}.ir").write_text(ir.to_text(value))
        elif isinstance(value, str):
            suffix = ".cpp" if stage == "cpp" else ".py" if stage == "python" else ".txt"
            (root / f"{stage}{suffix}").write_text(value)
