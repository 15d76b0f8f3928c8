"""Call stubs: the generated hot path of compiled calls takes exactly the calls of its kinds."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import config
from gt4py.next.backends import _arguments, _call_stubs


I = gtx.Dimension("I")
E = gtx.Dimension("E")
V = gtx.Dimension("V")
E2VDim = gtx.Dimension("E2VDim", gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=V, target=(E, E2VDim))
IField = gtx.Field[gtx.Dims[I], gtx.float64]


@dataclasses.dataclass
class Pair:
    first: IField
    second: IField


class Scaled(typing.NamedTuple):
    field: IField
    factor: float


@gtx.field_operator
def scale(a: IField, n: gtx.int32) -> IField:
    return a * gtx.astype(n, gtx.float64)


@gtx.field_operator
def combine(pair: Pair, scaled: Scaled, both: tuple[IField, IField]) -> IField:
    return pair.first - pair.second + scaled.field * scaled.factor + both[0] * both[1]


@gtx.field_operator
def edge_sum(v: gtx.Field[gtx.Dims[V], gtx.float64]) -> gtx.Field[gtx.Dims[E], gtx.float64]:
    return v(E2V[0]) + v(E2V[1])


def pool_of(entry):
    (pool,) = entry.__dict__["__gt_compiled_pools__"].values()
    return pool


def field(values, dtype=np.float64):
    return gtx.as_field([I], np.asarray(values, dtype=dtype))


@pytest.fixture
def counted_keys(monkeypatch):
    """Counts how often the general path computes a fast key (per argument)."""
    calls = []
    original = _arguments.argument_key

    def counting(value):
        calls.append(value)
        return original(value)

    monkeypatch.setattr(_arguments, "argument_key", counting)
    return calls


def test_repeated_calls_of_one_kind_take_the_stub(cache_dir, counted_keys):
    def scaled(a: IField, n: gtx.int32, out: IField):
        scale(a, n, out=out)

    prog = gtx.program(backend=gtx.itir_python)(scaled)
    a, out = field(range(4)), field([0] * 4)
    prog(a, 2, out, offset_provider={})
    after_first = len(counted_keys)
    assert after_first == 3
    for n in (3, 4, 5):
        prog(a, n, out, offset_provider={})
        assert out.asnumpy().tolist() == [0.0, n, 2.0 * n, 3.0 * n]
    assert len(counted_keys) == after_first  # no fast key: the stub took them
    assert "def stub(args, provider)" in pool_of(prog)._last_stub.source


def test_another_kind_misses_the_stub_and_gets_its_own(cache_dir, counted_keys, monkeypatch):
    made = []
    original = _call_stubs.make_stub
    monkeypatch.setattr(
        _call_stubs, "make_stub", lambda **kw: made.append(kw["args"]) or original(**kw)
    )

    def scaled(a: IField, n: gtx.int32, out: IField):
        scale(a, n, out=out)

    prog = gtx.program(backend=gtx.itir_python)(scaled)
    a, out = field([1, 2]), field([0, 0])
    for _ in range(3):  # alternating kinds: each call misses the last stub, no stub is remade
        prog(a, 2, out)
        assert out.asnumpy().tolist() == [2.0, 4.0]
        prog(a, np.int32(3), out)
        assert out.asnumpy().tolist() == [3.0, 6.0]
    # A Python int and an np.int32 are two kinds (two stubs) of one variant.
    assert len(made) == 2 and len(pool_of(prog).variants) == 1


def test_calls_alternating_between_variants_take_their_stubs(cache_dir, counted_keys):
    """A model alternating between a few variants of one program skips the fast key too: the
    stubs of the last calls are tried after the last one's (issue 28)."""

    def scaled(a: IField, n: gtx.int32, out: IField):
        scale(a, n, out=out)

    prog = gtx.program(backend=gtx.itir_python, static_params=("n",))(scaled)
    a, out = field(range(3)), field([0] * 3)
    for n in (1, 2, 3, 4, 5):  # one variant each; 5 pushes 1 out of the recent stubs
        prog(a, n, out)
    before = len(counted_keys)
    for _ in range(3):
        for n in (2, 5, 3, 4):
            prog(a, n, out)
            assert out.asnumpy().tolist() == [0.0, n, 2.0 * n]
    assert len(counted_keys) == before  # every call taken by a recent stub
    prog(a, 1, out)  # not among the recent ones: the general path, then recent again
    assert out.asnumpy().tolist() == [0.0, 1.0, 2.0]
    assert len(counted_keys) == before + 3


def test_a_wrong_argument_after_a_stubbed_call_gets_the_general_error(cache_dir):
    def scaled(a: IField, n: gtx.int32, out: IField):
        scale(a, n, out=out)

    prog = gtx.program(backend=gtx.itir_python)(scaled)
    a, out = field(range(3)), field([0] * 3)
    prog(a, 2, out)
    prog(a, 2, out)
    with pytest.raises(TypeError):
        prog(a, 2, gtx.as_field([gtx.Dimension("J")], np.zeros(3)))
    with pytest.raises(TypeError, match=r"takes 3 argument\(s\) \(a, n, out\), got 4"):
        prog(a, 2, out, 7)
    prog(a, 1, out)
    assert out.asnumpy().tolist() == [0.0, 1.0, 2.0]


def test_static_values_are_guarded(cache_dir):
    def scaled(a: IField, n: gtx.int32, out: IField):
        scale(a, n, out=out)

    prog = gtx.program(backend=gtx.itir_python, static_params=("n",))(scaled)
    a, out = field(range(3)), field([0] * 3)
    for n in (2, 2, 3, 3, 2):
        prog(a, n, out)
        assert out.asnumpy().tolist() == [0.0, n, 2.0 * n]
    assert sorted(dict(k.static)["n"] for k in pool_of(prog).variants) == [2, 3]


def test_collections_and_tuples_pass_through_the_stub(cache_dir, counted_keys):
    op = combine.with_backend(gtx.itir_python)
    out = field([0, 0, 0])
    for factor in (1.0, 2.0, 3.0):
        pair = Pair(field([5, 6, 7]), field([1, 1, 1]))
        scaled = Scaled(field([1, 2, 3]), factor)
        op(pair, scaled, (field([1, 1, 2]), field([2, 3, 4])), out=out)
        expected = [4 + factor + 2, 5 + 2 * factor + 3, 6 + 3 * factor + 8]
        assert out.asnumpy().tolist() == expected
    general = len(counted_keys)
    op(pair, scaled, (field([1, 1, 2]), field([2, 3, 4])), out=out)
    assert len(counted_keys) == general
    with pytest.raises(TypeError, match="argument 'both' must be a tuple of 2"):
        op(pair, scaled, (field([1, 1, 2]),), out=out)


def test_operator_domain_and_offset_provider_are_guarded(cache_dir):
    op = edge_sum.with_backend(gtx.itir_python)
    v = gtx.as_field([V], np.array([1.0, 10.0, 100.0]))
    out = gtx.as_field([E], np.zeros(2))
    first = {"E2V": gtx.as_connectivity([E, E2VDim], V, np.array([[0, 1], [1, 2]], np.int32))}
    second = {"E2V": gtx.as_connectivity([E, E2VDim], V, np.array([[2, 2], [0, 0]], np.int32))}
    for provider, expected in (
        (first, [11.0, 110.0]),
        (second, [200.0, 2.0]),
        (first, [11.0, 110.0]),
    ):
        op(v, out=out, offset_provider=provider)
        assert out.asnumpy().tolist() == expected
    op(v, out=out, domain={E: (1, 2)}, offset_provider=first)
    assert out.asnumpy().tolist() == [11.0, 110.0]
    out2 = gtx.as_field([E], np.zeros(2))
    op(v, out=out2, domain={E: (1, 2)}, offset_provider=first)
    assert out2.asnumpy().tolist() == [0.0, 110.0]


def test_metrics_count_calls_through_the_stub(cache_dir):
    from gt4py.next import metrics

    def scaled(a: IField, n: gtx.int32, out: IField):
        scale(a, n, out=out)

    scaled.__name__ = "stub_metrics_program"
    metrics.reset()
    with config.overrides(collect_metrics_level=1):
        prog = gtx.program(backend=gtx.itir_python)(scaled)
        a, out = field(range(3)), field([0] * 3)
        for _ in range(4):
            prog(a, 2, out)
    assert metrics.metrics_for("stub_metrics_program").calls == 4


# -- the compiled code of stubs is cached ---------------------------------------------------


STUB_SOURCE = "def stub(args, provider):\n    return args[0] == _c0\n"


def _stub_entries(root) -> list:
    return sorted((root / _call_stubs.NAMESPACE).rglob("*"))


def test_stub_code_is_stored_and_reused_by_a_new_process(cache_dir, monkeypatch):
    _call_stubs.stub_code.cache_clear()
    code = _call_stubs.stub_code(STUB_SOURCE)
    namespace = {"_c0": 3}
    exec(code, namespace)
    assert namespace["stub"]((3,), None) and not namespace["stub"]((4,), None)
    assert any(p.is_file() for p in _stub_entries(cache_dir))
    # a new process (no in-memory cache) does not compile: it unmarshals the stored code
    _call_stubs.stub_code.cache_clear()

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(_call_stubs, "compile", no_compile, raising=False)
    again = _call_stubs.stub_code(STUB_SOURCE)
    assert again.co_code == code.co_code and again.co_filename == "<gt4py call stub>"
    # another source is another entry
    monkeypatch.undo()
    _call_stubs.stub_code("def stub(args, provider):\n    return False\n")
    assert len([p for p in _stub_entries(cache_dir) if p.is_file() and "_files" in str(p)]) == 2


def test_a_damaged_stub_entry_is_rebuilt_not_run(cache_dir):
    _call_stubs.stub_code.cache_clear()
    _call_stubs.stub_code(STUB_SOURCE)
    (entry,) = [p for p in _stub_entries(cache_dir) if p.is_file() and "_files" in str(p)]
    data = bytearray(entry.read_bytes())
    data[-3] ^= 0xFF  # a flipped byte of the marshalled code
    entry.write_bytes(bytes(data))
    _call_stubs.stub_code.cache_clear()
    namespace = {"_c0": 5}
    exec(_call_stubs.stub_code(STUB_SOURCE), namespace)
    assert namespace["stub"]((5,), None) and not namespace["stub"]((3,), None)


def test_stub_code_without_a_usable_cache_compiles(cache_dir, monkeypatch):
    _call_stubs.stub_code.cache_clear()

    def broken(*args, **kwargs):
        raise OSError("read-only file system")

    monkeypatch.setattr(_call_stubs.caching.FileCache, "get_or_build", broken)
    namespace = {"_c0": 1}
    exec(_call_stubs.stub_code(STUB_SOURCE), namespace)
    assert namespace["stub"]((1,), None)
    _call_stubs.stub_code.cache_clear()
