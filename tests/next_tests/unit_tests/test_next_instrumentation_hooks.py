"""gt4py.next.instrumentation.hooks: callbacks around program calls and variant compiles."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import config
from gt4py.next import metrics
from gt4py.next.backends import _compiled_programs
from gt4py.next.instrumentation import _hook_machinery, hooks, metrics as released_metrics


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]

HOOKS = (
    hooks.program_call_context,
    hooks.embedded_program_call_context,
    hooks.compiled_program_call_context,
    hooks.compile_variant_hook,
)

COMPILED = [
    "itir_python",
    pytest.param("gtfn_cpu", marks=pytest.mark.slow),  # builds C++
]


@gtx.field_operator
def add_one(a: IField) -> IField:
    return a + 1.0


def make_program(backend: Any) -> Any:
    def plus_one(a: IField, out: IField):
        add_one(a, out=out)

    program = gtx.program(backend=backend)(plus_one)
    program.__name__ = f"plus_one_{uuid.uuid4().hex[:8]}"  # its own metrics row
    return program


def fields() -> tuple[Any, Any]:
    return gtx.as_field([I], np.arange(4.0)), gtx.zeros({I: 4})


@pytest.fixture(autouse=True)
def no_callbacks_left() -> Iterator[None]:
    assert all(hook.callbacks == () for hook in HOOKS)
    yield
    for hook in HOOKS:
        for name in list(hook.registry):
            hook.remove(name)


class Log:
    """Callbacks for every hook that record what they were called with, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, ...]] = []
        self.calls: dict[str, list[dict[str, Any]]] = {hook.name: [] for hook in HOOKS}

    def context(self, hook_name: str, **arguments: Any) -> contextlib.AbstractContextManager:
        self.calls[hook_name].append(arguments)

        @contextlib.contextmanager
        def around() -> Iterator[None]:
            self.events.append(("enter", hook_name))
            try:
                yield
            finally:
                self.events.append(("exit", hook_name))

        return around()

    def register_all(self) -> None:
        def program_call(program, args, offset_provider, enable_jit, kwargs):
            return self.context(
                "program_call_context",
                program=program,
                args=args,
                offset_provider=offset_provider,
                enable_jit=enable_jit,
                kwargs=kwargs,
            )

        def embedded_call(program, args, offset_provider, kwargs):
            return self.context(
                "embedded_program_call_context",
                program=program,
                args=args,
                offset_provider=offset_provider,
                kwargs=kwargs,
            )

        def compiled_call(program_pool, key, args, kwargs, offset_provider):
            return self.context(
                "compiled_program_call_context",
                program_pool=program_pool,
                key=key,
                args=args,
                kwargs=kwargs,
                offset_provider=offset_provider,
            )

        def compile_variant(program_pool, key, backend, argument_descriptors, offset_provider):
            self.events.append(("event", "compile_variant_hook"))
            self.calls["compile_variant_hook"].append(
                {
                    "program_pool": program_pool,
                    "key": key,
                    "backend": backend,
                    "argument_descriptors": argument_descriptors,
                    "offset_provider": offset_provider,
                }
            )

        hooks.program_call_context.register(program_call)
        hooks.embedded_program_call_context.register(embedded_call)
        hooks.compiled_program_call_context.register(compiled_call)
        hooks.compile_variant_hook.register(compile_variant)


# -- the machinery ------------------------------------------------------------------------------


@_hook_machinery.context_hook
def sample_context(a: int, b: str) -> contextlib.AbstractContextManager:
    """A context hook for these tests."""


@_hook_machinery.event_hook
def sample_event(a: int, b: str) -> None:
    """An event hook for these tests."""


def test_released_names_and_declarations() -> None:
    assert isinstance(hooks.program_call_context, _hook_machinery.ContextHook)
    assert isinstance(hooks.embedded_program_call_context, _hook_machinery.ContextHook)
    assert isinstance(hooks.compiled_program_call_context, _hook_machinery.ContextHook)
    assert isinstance(hooks.compile_variant_hook, _hook_machinery.EventHook)
    assert list(hooks.program_call_context.signature.parameters) == [
        "program",
        "args",
        "offset_provider",
        "enable_jit",
        "kwargs",
    ]
    assert list(hooks.compiled_program_call_context.signature.parameters) == [
        "program_pool",
        "key",
        "args",
        "kwargs",
        "offset_provider",
    ]
    assert list(hooks.compile_variant_hook.signature.parameters) == [
        "program_pool",
        "key",
        "backend",
        "argument_descriptors",
        "offset_provider",
    ]
    assert "every call of a program" in (hooks.program_call_context.__doc__ or "")
    assert "0 callback(s)" in repr(hooks.compile_variant_hook)


def test_registration_order_index_and_remove() -> None:
    order: list[str] = []

    def make(tag: str) -> Any:
        def callback(a, b):
            order.append(tag)

        return callback

    first, second, third, fourth = (make(t) for t in "1234")
    try:
        sample_event.register(first)
        sample_event.register(second, name="second")
        sample_event.register(third, index=0)
        sample_event.register(fourth, name="fourth", index=-1)  # as list.insert
        sample_event(1, "x")
        assert order == ["3", "1", "4", "2"]
        assert sample_event.callbacks == (third, first, fourth, second)
        assert list(sample_event.registry)[2:] == ["fourth", "second"]

        sample_event.remove("second")  # by name
        sample_event.remove(third)  # by object
        sample_event.remove(fourth)  # by object, registered under a name
        assert sample_event.callbacks == (first,)
        with pytest.raises(KeyError, match="no callback registered under the name 'second'"):
            sample_event.remove("second")
        with pytest.raises(KeyError, match="is not registered"):
            sample_event.remove(third)
        with pytest.raises(ValueError, match="already registered"):
            sample_event.register(make("5"), name=next(iter(sample_event.registry)))
    finally:
        for name in list(sample_event.registry):
            sample_event.remove(name)
    assert sample_event.callbacks == ()


def test_signature_mismatch_is_an_error() -> None:
    def fewer(a):
        pass

    def renamed(a, c):
        pass

    def with_default(a, b=""):
        pass

    def annotated(a: float, b: bytes) -> None:  # annotations are not compared
        pass

    for wrong in (fewer, renamed, with_default):
        with pytest.raises(ValueError, match="does not match hook signature"):
            sample_event.register(wrong)
    with pytest.raises(TypeError, match="callable"):
        sample_event.register(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="does not match hook signature"):
        hooks.program_call_context.register(lambda program, args, kwargs: None)
    sample_event.register(annotated)
    sample_event.remove(annotated)

    class Context:  # a class is a callback too: its __init__'s parameters count
        def __init__(self, a: int, b: str) -> None:
            self.a = a

        def __enter__(self) -> None:
            pass

        def __exit__(self, *exc: object) -> None:
            pass

    sample_context.register(Context)
    with sample_context(1, "x"):
        pass
    sample_context.remove(Context)


def test_context_hook_stacks_in_order_and_nests() -> None:
    events: list[str] = []

    def make(tag: str) -> Any:
        @contextlib.contextmanager
        def callback(a, b):
            events.append(f"enter {tag} {a}")
            yield
            events.append(f"exit {tag} {a}")

        return callback

    one, two = make("one"), make("two")
    sample_context.register(one)
    sample_context.register(two)
    try:
        with sample_context(1, "x"), sample_context(2, "y"):  # a fresh stack per call
            events.append("body")
        assert events == [
            "enter one 1",
            "enter two 1",
            "enter one 2",
            "enter two 2",
            "body",
            "exit two 2",
            "exit one 2",
            "exit two 1",
            "exit one 1",
        ]
    finally:
        sample_context.remove(one)
        sample_context.remove(two)
    assert isinstance(sample_context(1, "x"), contextlib.nullcontext)


def test_raising_callbacks() -> None:
    events: list[str] = []

    class Boom(Exception):
        pass

    def make(tag: str, *, on_enter: bool = False, on_exit: bool = False) -> Any:
        class Context:
            def __init__(self, a, b):
                pass

            def __enter__(self) -> None:
                events.append(f"enter {tag}")
                if on_enter:
                    raise Boom(f"enter {tag}")

            def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
                events.append(f"exit {tag} {type(exc).__name__ if exc else None}")
                if on_exit:
                    raise Boom(f"exit {tag}")
                return True  # tries to swallow: ignored

        return Context

    # raised on enter: the body does not run, what was entered is exited with the error
    sample_context.register(make("a"), name="a")
    sample_context.register(make("b", on_enter=True), name="b")
    sample_context.register(make("c"), name="c")
    with pytest.raises(Boom, match="enter b"), sample_context(1, "x"):
        events.append("body")
    assert events == ["enter a", "enter b", "exit a Boom"]

    # raised on exit: the others still exit, the first error propagates
    events.clear()
    for name in ("a", "b", "c"):
        sample_context.remove(name)
    sample_context.register(make("a", on_exit=True), name="a")
    sample_context.register(make("b", on_exit=True), name="b")
    with pytest.raises(Boom, match="exit b"), sample_context(1, "x"):
        events.append("body")
    assert events == ["enter a", "enter b", "body", "exit b None", "exit a None"]

    # the body's error reaches every context and is not swallowed
    events.clear()
    for name in ("a", "b"):
        sample_context.remove(name)
    sample_context.register(make("a"), name="a")
    with pytest.raises(KeyError), sample_context(1, "x"):
        raise KeyError("body")
    assert events == ["enter a", "exit a KeyError"]
    sample_context.remove("a")

    # not a context manager
    sample_context.register(lambda a, b: 42, name="bad")
    with pytest.raises(TypeError, match="not a context manager"), sample_context(1, "x"):
        pass
    sample_context.remove("bad")

    # an event callback that raises stops the ones after it
    def raising(a, b):
        raise Boom("event")

    def after(a, b):
        events.append("after")

    events.clear()
    sample_event.register(raising)
    sample_event.register(after)
    with pytest.raises(Boom, match="event"):
        sample_event(1, "x")
    assert events == []
    sample_event.remove(raising)
    sample_event.remove(after)


# -- the call sites -----------------------------------------------------------------------------


def test_embedded_program_hooks() -> None:
    program = make_program(gtx.embedded_numpy)
    a, out = fields()
    log = Log()
    log.register_all()
    program(a, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.arange(4.0) + 1)
    assert log.events == [
        ("enter", "program_call_context"),
        ("enter", "embedded_program_call_context"),
        ("exit", "embedded_program_call_context"),
        ("exit", "program_call_context"),
    ]
    (call,) = log.calls["program_call_context"]
    assert call["program"] is program
    assert call["args"] == (a,) and call["kwargs"] == {"out": out}
    assert call["offset_provider"] == {} and isinstance(call["enable_jit"], bool)
    (embedded,) = log.calls["embedded_program_call_context"]
    assert embedded["program"] is program
    assert embedded["args"] == (a,) and embedded["kwargs"] == {"out": out}
    assert embedded["offset_provider"] == {}


def test_embedded_call_with_only_the_embedded_hook() -> None:
    program = make_program(gtx.embedded_numpy)
    a, out = fields()
    seen: list[Any] = []

    def embedded_call(program, args, offset_provider, kwargs):
        seen.append(args)
        return contextlib.nullcontext()

    hooks.embedded_program_call_context.register(embedded_call)
    program(a, out)
    assert seen == [(a, out)]


@pytest.mark.parametrize("backend_name", COMPILED)
def test_compiled_program_hooks(backend_name: str, cache_dir: Any) -> None:
    backend = getattr(gtx, backend_name)
    program = make_program(backend)
    a, out = fields()
    log = Log()
    log.register_all()
    program(a, out)
    program(a, out)
    np.testing.assert_array_equal(out.asnumpy(), np.arange(4.0) + 1)
    one_call = [
        ("enter", "program_call_context"),
        ("enter", "compiled_program_call_context"),
        ("exit", "compiled_program_call_context"),
        ("exit", "program_call_context"),
    ]
    # the compile (once) inside the first program call, before the compiled call
    assert log.events == [one_call[0], ("event", "compile_variant_hook"), *one_call[1:], *one_call]
    assert log.calls["embedded_program_call_context"] == []

    (variant,) = program.compiled_variants
    (compile_call,) = log.calls["compile_variant_hook"]
    pool = compile_call["program_pool"]
    assert isinstance(pool, _compiled_programs.ProgramPool)
    assert pool.definition is program and pool.backend is backend
    assert compile_call["key"] == variant.key and compile_call["backend"] is backend
    assert compile_call["argument_descriptors"] == {} and compile_call["offset_provider"] == {}

    for call in log.calls["compiled_program_call_context"]:
        assert call["program_pool"] is pool and call["key"] == variant.key
        assert call["args"] == (a, out) and call["kwargs"] == {}
        assert call["offset_provider"] == {}
    for call in log.calls["program_call_context"]:
        assert call["program"] is program and call["args"] == (a, out)
        assert call["enable_jit"] is True  # the enable_jit setting's default


def test_compiled_hooks_see_enable_jit_and_static_arguments(cache_dir: Any) -> None:
    @gtx.program(backend=gtx.itir_python, static_params=("n",))
    def add_n(a: IField, n: gtx.int32, out: IField):
        add_one(a, out=out)

    a, out = fields()
    log = Log()
    log.register_all()
    add_n.compile(n=[3])  # ahead of time: the event, no call
    assert [e[0] for e in log.events] == ["event"]
    (compile_call,) = log.calls["compile_variant_hook"]
    assert compile_call["argument_descriptors"] == {"n": 3}
    add_n(a, 3, out, enable_jit=False)  # the hook runs once, with the call's enable_jit
    (call,) = log.calls["program_call_context"]
    assert call["enable_jit"] is False and call["args"] == (a, 3, out)
    assert len(log.calls["compile_variant_hook"]) == 1
    (compiled,) = log.calls["compiled_program_call_context"]
    assert compiled["key"] == compile_call["key"]


def test_direct_operator_call_runs_the_compiled_hook(cache_dir: Any) -> None:
    operator = add_one.with_backend(gtx.itir_python)
    a, out = fields()
    log = Log()
    log.register_all()
    operator(a, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.arange(4.0) + 1)
    assert log.calls["program_call_context"] == []  # as released: not a program call
    (call,) = log.calls["compiled_program_call_context"]
    assert call["args"] == (a,) and call["kwargs"]["out"] is out
    assert len(log.calls["compile_variant_hook"]) == 1


def test_a_raising_callback_stops_the_call(cache_dir: Any) -> None:
    program = make_program(gtx.itir_python)
    a, out = fields()

    def refuse(program_pool, key, backend, argument_descriptors, offset_provider):
        raise RuntimeError("no compiling today")

    hooks.compile_variant_hook.register(refuse)
    with pytest.raises(RuntimeError, match="no compiling today"):
        program(a, out)
    assert program.compiled_variants == ()
    hooks.compile_variant_hook.remove(refuse)

    @contextlib.contextmanager
    def failing_enter(program, args, offset_provider, enable_jit, kwargs):
        raise RuntimeError("not now")
        yield

    hooks.program_call_context.register(failing_enter)
    with pytest.raises(RuntimeError, match="not now"):
        program(a, out)
    assert program.compiled_variants == ()  # nothing ran
    np.testing.assert_array_equal(out.asnumpy(), 0.0)
    hooks.program_call_context.remove(failing_enter)
    program(a, out)
    np.testing.assert_array_equal(out.asnumpy(), np.arange(4.0) + 1)


def test_without_callbacks_no_hook_is_entered(cache_dir: Any, monkeypatch: Any) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a hook was called without callbacks")

    monkeypatch.setattr(_hook_machinery.ContextHook, "__call__", fail)
    monkeypatch.setattr(_hook_machinery.EventHook, "__call__", fail)
    monkeypatch.setattr(_compiled_programs.ProgramPool, "_call_hooked", fail)
    a, out = fields()
    make_program(gtx.embedded_numpy)(a, out)
    compiled = make_program(gtx.itir_python)
    compiled(a, out)
    compiled(a, out)
    add_one.with_backend(gtx.itir_python)(a, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.arange(4.0) + 1)


# -- embedded metrics ---------------------------------------------------------------------------


def test_embedded_calls_are_metrics_rows() -> None:
    program = make_program(gtx.embedded_numpy)
    key = metrics.embedded_key(program.__name__, "embedded_numpy")
    assert key == f"{program.__name__}[embedded_numpy]"
    a, out = fields()
    program(a, out)  # metrics off (the default): nothing recorded
    assert key not in metrics.program_metrics()
    try:
        with config.overrides(collect_metrics_level=1):
            program(a, out)
            program(a, out)
        row = metrics.program_metrics()[key]
        assert row["calls"] == 2 and row["compute_time_s"] > 0
        assert row["mean_compute_time_s"] == pytest.approx(row["compute_time_s"] / 2)
        assert row["variants"] == 0 and row["compile_time_s"] == 0.0
        assert key in metrics.table()
        assert key in released_metrics.dumps()
        assert key in released_metrics.dumps_json()
    finally:
        metrics.reset()  # nothing left for the at-exit dump of the test process
    assert key not in metrics.program_metrics()


# -- released's per-call samples (icon4py's stencil tests read them) ---------------------------


@pytest.mark.parametrize("backend", [gtx.embedded_numpy, *COMPILED])
def test_metrics_samples_by_current_source_key(backend: Any) -> None:
    program = make_program(getattr(gtx, backend) if isinstance(backend, str) else backend)
    a, out = fields()
    keys: list[str] = []

    @contextlib.contextmanager
    def capture_key(program: Any, args: Any, offset_provider: Any, enable_jit: Any, kwargs: Any):
        yield
        keys.append(released_metrics.get_current_source_key())

    try:
        with config.overrides(collect_metrics_level=released_metrics.ALL):
            program(a, out)  # compiles (and records) the variant
            hooks.program_call_context.register(capture_key, name="capture_key")
            try:
                for _ in range(3):
                    program(a, out)
            finally:
                hooks.program_call_context.remove("capture_key")
        assert len(set(keys)) == 1 and keys[0].startswith(program.__name__)
        assert released_metrics.is_current_source_key_set()
        assert keys[0] in released_metrics.sources
        source = released_metrics.sources[keys[0]]
        samples = source.metrics["compute"].samples
        assert len(samples) == 4 and all(s > 0 for s in samples)
        assert source.metrics["compute"].mean == pytest.approx(sum(samples) / 4)
        assert released_metrics.get_current_source() is source
        released_metrics.add_sample_to_current_source("mine", 1.5)
        assert source.metrics["mine"].samples == [1.5]
    finally:
        metrics.reset()
    assert released_metrics.sources[keys[0]].metrics["compute"].samples == []


def test_metrics_source_key_unset_without_recorded_calls() -> None:
    import contextvars

    def fresh() -> None:
        assert not released_metrics.is_current_source_key_set()
        with pytest.raises(LookupError, match="collect_metrics_level"):
            released_metrics.get_current_source_key()
        program = make_program(gtx.embedded_numpy)
        program(*fields())  # metrics off: nothing recorded, no key
        assert not released_metrics.is_current_source_key_set()
        released_metrics.set_current_source_key("mine")
        assert released_metrics.get_current_source_key() == "mine"
        with pytest.raises(TypeError, match="strings"):
            released_metrics.set_current_source_key(3)  # type: ignore[arg-type]

    contextvars.Context().run(fresh)
    with pytest.raises(ValueError, match="no samples"):
        released_metrics.Metric("x").mean  # noqa: B018
    with pytest.raises(TypeError, match="Source"):
        released_metrics.sources["x"] = 1  # type: ignore[assignment]
