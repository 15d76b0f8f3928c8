"""Compiled programs: a pool of variants per program, keyed on what decides the code.

The call path first looks a call up by a cheap *fast key* (per argument its dims and dtype, or
its Python type); only a miss computes the :class:`~._variant_keys.VariantKey`, which is also
what ``.compile()`` produces from the declared parameter types, so ahead-of-time variants
serve later calls.

A variant is made on first use (JIT) or ahead of time by :meth:`ProgramPool.compile`; with JIT
disabled a call matching no compiled variant is an error listing what was compiled and what
was asked. Making a variant runs the backend's declared stages (``backend.STAGES``):
``frontend → ir → ir_optimized`` in the caller (lowering reads the user's function), then the
backend's ``compiler.make_artifact`` (the remaining stages, e.g. ``cpp → so``; cached, and in a
runner worker when compiling asynchronously: the task carries IR only), then
``compiler.load`` in the caller. Each variant compile is one line of the ``gt4py.compile`` log
(``infra.pipeline.CompileEvent``) with the caches' outcomes; ``GT4PY_DUMP_STAGES`` dumps the
stages as ``<dir>/<program>/<backend>/<variant>/<stage>.<suffix>``.

This module holds the pool and its call path; making one variant is in ``_variant_making``.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable
from typing import Any

from ..errors import CallArgumentError
from ..ffront import type_specifications as ts
from ..ffront._call_arguments import (
    argument_count_message,
    check_call_arguments,
    check_operator_out,
    check_scan_out,
)
from ..ffront.decorator import Program, ScanOperator, enable_jit_override
from ..instrumentation._hook_machinery import (
    compile_variant_hook as _compile_variant_hook,
    compiled_program_call_context as _compiled_program_call_context,
)
from . import _arguments as arguments, _call_stubs, _settings
from ._variant_keys import (
    VariantKey,
    domain_arity,
    domain_bounds,
    field_domains,
    provider_key,
    static_token,
    static_value,
)
from ._variant_making import Prepared, VariantMaker, make_artifact as make_artifact
from ._variants import Variant


class PendingVariant:
    """A variant being built in the background; :meth:`result` waits and installs it."""

    def __init__(
        self,
        pool: ProgramPool,
        prepared: Prepared,
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
        with self.pool.compile_event(key) as event:
            artifact = self.future.result()  # re-raises a failed build
            if self.artifact_of is not None:
                artifact = self.artifact_of(artifact)
            variant = self.pool._finish(self.prepared, artifact, event)
        self.pool.variants[key] = variant
        self.pool.pending.pop(key, None)
        return variant


# How many stubs of earlier calls are tried after the last one's (a model alternates between
# a few variants of a program; a miss then costs this many failed guard checks).
_RECENT_STUBS = 4


class ProgramPool(VariantMaker):
    """The variants of one program or directly called operator on one backend."""

    def __init__(self, backend: Any, definition: Any) -> None:
        self.backend = backend
        self.definition = definition
        self.variants: dict[VariantKey, Variant] = {}
        self.pending: dict[VariantKey, PendingVariant] = {}
        self._fast: dict[Any, Variant] = {}
        # Fast key -> call stub (``never`` where the kinds need the general path); the stub of
        # the last call is tried first, then those of the calls before (``_recent``, most
        # recent first), so calls alternating between a few kinds skip the fast key too.
        self._stubs: dict[Any, _call_stubs.Stub] = {}
        self._last_stub: _call_stubs.Stub = _call_stubs.never
        self._last_domain_dims: Any = None
        self._recent: list[tuple[_call_stubs.Stub, Any]] = []
        self._providers: dict[Any, Any] = {}  # keeps keyed offset providers alive
        self._is_program = isinstance(definition, Program)
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
        self._is_scan = isinstance(definition, ScanOperator)
        self._last_out: Any = None
        self._returns = None if self._is_program else definition.__gt_signature__.definition.returns
        self._static_names: tuple[str, ...] = ()
        self._static_indices: tuple[int, ...] = ()
        # static_domains: the fields' domains are part of the key (and constants of the code)
        self._static_domains = bool(definition.compilation_options.static_domains)
        self._ir_names = self._names if self._is_program else [*self._names[:-1], "__out"]
        declared_static = definition.compilation_options.static_params
        if declared_static:
            self._set_static(tuple(declared_static))

    @property
    def enable_jit(self) -> bool:
        """Whether a call matching no variant builds one: the call's ``enable_jit=``, else the
        definition's compilation option, else the ``enable_jit`` setting."""
        chosen = enable_jit_override.get()
        if chosen is None:
            chosen = self.definition.compilation_options.enable_jit
        if chosen is not None:
            return bool(chosen)
        return bool(_settings.ENABLE_JIT.get())

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
        # The one check hooks cost when none is registered (no context to enter and exit).
        if _compiled_program_call_context.callbacks:
            self._call_hooked(args, kwargs, offset_provider)
            return
        if self._is_program:
            if kwargs:
                args = self._bind(args, kwargs)
            if not self._static_domains and (
                self._last_stub(args, offset_provider)
                or self._recent_stub_took(args, None, offset_provider)
            ):
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
        domain_dims, bounds = domain_bounds(domain)
        call_args = (*args, out, *bounds)
        if not self._static_domains and (
            (domain_dims == self._last_domain_dims and self._last_stub(call_args, offset_provider))
            or self._recent_stub_took(call_args, domain_dims, offset_provider)
        ):
            return
        self._call_general(call_args, domain_dims, offset_provider)

    def _recent_stub_took(self, args: tuple[Any, ...], domain_dims: Any, provider: Any) -> bool:
        """Whether the stub of one of the calls before the last took this call (it becomes
        the one tried first): alternating variants cost a few guard checks, not the fast key."""
        for n, (stub, dims) in enumerate(self._recent):
            if n and dims == domain_dims and stub(args, provider):
                self._last_stub, self._last_domain_dims = stub, dims
                self._recent.insert(0, self._recent.pop(n))
                return True
        return False

    def _call_hooked(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], offset_provider: Any
    ) -> None:
        """A call with ``compiled_program_call_context`` callbacks: the variant is found (or
        compiled) first, so that the hook gets its key, then called inside the hook."""
        given_args, given_kwargs = args, dict(kwargs)
        domain_dims = None
        if not self._is_program:
            out = kwargs.pop("out")
            domain = kwargs.pop("domain", None)
            if self._is_scan:
                check_scan_out(self.definition.__name__, self.definition.axis, out)
            else:
                check_operator_out(self.definition.__name__, self._returns, out)
        if kwargs:
            args = self._bind(args, kwargs)
        if not self._is_program:
            domain_dims, bounds = domain_bounds(domain)
            args = (*args, out, *bounds)
        # Arguments of kinds called before skip the argument check, as the last stub does:
        # the stub's guards check them (a call they reject takes the general path).
        fast = None
        if len(args) - 2 * domain_arity(domain_dims) == len(self._names):
            fast = self._fast_key(args, domain_dims, offset_provider)
        variant = self._fast.get(fast)
        if variant is None:
            fast, variant = self._find(args, domain_dims, offset_provider)
        with _compiled_program_call_context(
            self, variant.key, given_args, given_kwargs, offset_provider or {}
        ):
            stub = self._stubs.get(fast)
            if stub is None or not stub(args, offset_provider):
                self._call_general(args, domain_dims, offset_provider)

    def _call_general(self, args: tuple[Any, ...], domain_dims: Any, offset_provider: Any) -> None:
        """A call the last stub did not take: find the variant by its fast key, then make the
        stub of these argument kinds the one tried first."""
        fast, variant = self._find(args, domain_dims, offset_provider)
        self._run(fast, variant, args, domain_dims, offset_provider)

    def _find(
        self, args: tuple[Any, ...], domain_dims: Any, offset_provider: Any
    ) -> tuple[Any, Variant]:
        """The fast key of a call and its variant (checks the arguments; compiles on a miss
        with JIT enabled)."""
        given = len(args) - 2 * domain_arity(domain_dims)
        if given != len(self._names):
            raise CallArgumentError(
                argument_count_message(self.definition.__name__, self._names, given)
            )
        check_call_arguments(self._callee, self._names, self._declared, args, scan=self._is_scan)
        fast = self._fast_key(args, domain_dims, offset_provider)
        variant = self._fast.get(fast)
        if variant is None:
            variant = self._lookup(fast, args, domain_dims, offset_provider)
        return fast, variant

    def _fast_key(self, args: tuple[Any, ...], domain_dims: Any, offset_provider: Any) -> Any:
        """What the variant of a call is looked up by first (the kinds of its arguments)."""
        return (
            tuple([arguments.argument_key(a) for a in args]),
            tuple([static_token(args[i]) for i in self._static_indices]),
            domain_dims,
            provider_key(offset_provider),
            field_domains(self._ir_names, args) if self._static_domains else (),
        )

    def _run(
        self,
        fast: Any,
        variant: Variant,
        args: tuple[Any, ...],
        domain_dims: Any,
        offset_provider: Any,
    ) -> None:
        """Call ``variant`` through the stub of these argument kinds, the one tried first
        from now on."""
        stub = self._stubs.get(fast)
        if stub is None:
            stub = self._stubs[fast] = variant.stub(args, offset_provider)
        self._last_stub, self._last_domain_dims = stub, domain_dims
        recent = [(stub, domain_dims)]
        recent += [entry for entry in self._recent if entry[0] is not stub][: _RECENT_STUBS - 1]
        self._recent = recent
        if not stub(args, offset_provider):  # pragma: no cover  (made from these arguments)
            raise RuntimeError(f"{self._callee}: the call stub does not take its own arguments")

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if self._binder is None:
            parameters = list(inspect.signature(self.definition.definition).parameters.values())
            if self._is_scan:
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
            (n, static_value(n, args[i], self._declared[i]))
            for n, i in zip(self._static_names, self._static_indices, strict=True)
        )
        domains = field_domains(self._ir_names, args) if self._static_domains else ()
        return VariantKey(types_, static, domain_dims, provider_key(offset_provider), domains)

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
                variant = self._make(key, offset_provider)
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

    def prepare(self, key: VariantKey, offset_provider: Any) -> Prepared:
        """:meth:`VariantMaker.prepare`, announced to the ``compile_variant_hook`` first."""
        if _compile_variant_hook.callbacks:
            _compile_variant_hook(self, key, self.backend, dict(key.static), offset_provider or {})
        return super().prepare(key, offset_provider)

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
            asynchronous = bool(_settings.ASYNC_COMPILATION.get())
        for key, provider, new in planned:
            if not new:
                continue
            if asynchronous:
                self._submit(self.prepare(key, provider))
            else:
                self.variants[key] = self._make(key, provider)
        return [key for key, _, _ in planned]

    def plan_ahead_of_time(
        self, offset_provider: Any, static_args: dict[str, Any]
    ) -> list[tuple[VariantKey, Any, bool]]:
        """The variants ``compile(offset_provider, static_args)`` stands for: per variant its
        key, its offset provider and whether it still has to be made (neither compiled nor
        pending). Checks the static arguments and the declared types; builds nothing."""
        if self._static_domains:
            raise TypeError(
                f"{self.definition.__name__}.compile(): with static_domains=True the variants "
                "depend on the fields' domains, which only a call knows; call it (with JIT "
                "enabled) to compile it, or drop static_domains"
            )
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
                    (n, static_value(n, v, self._declared[self._names.index(n)]))
                    for n, v in zip(self._static_names, values, strict=True)
                )
                key = VariantKey(declared_arguments, static, None, provider_key(provider))
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

    def _submit(self, prepared: Prepared) -> None:
        from gt4py.infra import runners

        from .._backend import register_compilation

        if self._install_from_caches(prepared):
            return
        task = functools.partial(
            make_artifact,
            self.backend.compiler,
            prepared.optimized,
            prepared.table_dtypes,
            self.build_label(prepared.key),
        )
        future = runners.default_runner().submit(task)
        pending = PendingVariant(self, prepared, future)
        self.pending[prepared.key] = pending
        register_compilation(pending)

    def _install_from_caches(self, prepared: Prepared) -> bool:
        """Make the artifact here if every one of its steps is a cache hit (a warm start: a
        worker would cost its start and the task's transfer for a few lookups); the first
        miss leaves it to the worker, which then builds from that step on."""
        from gt4py.infra import caching

        if not self.backend.compiler.cached_steps:
            return False
        try:  # a miss raises out of the event, which then logs nothing
            with self.compile_event(prepared.key) as event:
                with caching.hits_only():
                    artifact = self.backend.compiler.make_artifact(
                        prepared.optimized, prepared.table_dtypes
                    )
                self.variants[prepared.key] = self._finish(prepared, artifact, event)
        except Exception:  # WouldBuild; any other failure is the worker's to report
            return False
        return True
