"""DaCe orchestration (issue 42 items 3-4, ADR 0042): the stencils' side of DaCe's
SDFG-convertible protocol, and orchestrated programs keyed on what the user wrote so that a
warm start in a new process neither parses nor optimises."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, Field, computation, interval


dace = pytest.importorskip("dace")

from gt4py.cartesian._orchestration import OrchestrationError, Program, program  # noqa: E402


def _copy_plus_one(a: Field[float], b: Field[float]):  # type: ignore[valid-type]
    with computation(PARALLEL), interval(...):
        b = a + 1.0


def _double(a: Field[float], b: Field[float]):  # type: ignore[valid-type]
    with computation(PARALLEL), interval(...):
        b = 2.0 * a


# -- the stencil side -----------------------------------------------------------------------------
def test_a_numpy_stencil_refuses_every_protocol_method_naming_its_backend() -> None:
    stencil = gtscript.stencil("numpy", _copy_plus_one)
    calls = [
        stencil.__sdfg_signature__,
        stencil.__sdfg_closure__,
        lambda: stencil.closure_resolver({}, set()),
        lambda: stencil.__sdfg__(np.zeros((3, 3, 3)), np.zeros((3, 3, 3))),
    ]
    for call in calls:
        with pytest.raises(
            TypeError, match=r"'_copy_plus_one' is built for 'numpy': only the DaCe"
        ):
            call()


def test_a_lazy_numpy_stencil_refuses_without_being_built() -> None:
    lazy = gtscript.lazy_stencil("numpy", _copy_plus_one)
    with pytest.raises(OrchestrationError, match="built for 'numpy'"):
        lazy.__sdfg_signature__()
    assert lazy._implementation is None


@pytest.mark.slow
def test_a_lazy_dace_stencil_gives_field_info_and_its_sdfg_without_a_native_build(
    monkeypatch,
) -> None:
    """NDSL makes every stencil of an orchestrated component a lazy stencil and asks for its
    field_info at once: the program compiles the stencils' SDFGs itself, so nothing is
    compiled for them; the description is cached, as a new process would find it."""
    from gt4py.cartesian._dace import _build

    monkeypatch.setattr(_build, "build_extension", lambda *a: pytest.fail("a native build"))
    a, b = np.zeros((4, 4, 3)), np.ones((4, 4, 3))
    lazy = gtscript.lazy_stencil("dace:cpu", _copy_plus_one)
    assert list(lazy.field_info) == ["a", "b"] and lazy.field_info["b"].access.name == "WRITE"
    assert lazy.__sdfg_signature__() == (["a", "b"], [])
    sdfg = lazy.__sdfg__(a, b, origin=(0, 0, 0), domain=(4, 4, 3))
    assert sdfg.arg_names == ["a", "b"] and lazy._implementation is None
    monkeypatch.setattr(_build, "sdfg_stage", lambda *a: pytest.fail("described again"))
    again = gtscript.lazy_stencil("dace:cpu", _copy_plus_one)
    assert again.__sdfg__(a, b, origin=(0, 0, 0), domain=(4, 4, 3)).arg_names == ["a", "b"]
    monkeypatch.undo()
    lazy(a, b)  # a call builds the stencil
    assert lazy._implementation is not None and np.array_equal(b, a + 1.0)


def test_a_lazy_numpy_stencil_describes_itself_as_the_built_one() -> None:
    lazy = gtscript.lazy_stencil("numpy", _copy_plus_one)
    described = lazy.field_info
    assert lazy._implementation is None
    assert described == gtscript.stencil("numpy", _copy_plus_one).field_info


def test_a_dace_program_calling_a_numpy_stencil_fails_naming_the_backend() -> None:
    stencil = gtscript.stencil("numpy", _copy_plus_one)

    @dace.program
    def calls_a_numpy_stencil(a: dace.float64[4, 4, 4], b: dace.float64[4, 4, 4]):
        stencil(a, b)

    with pytest.raises(TypeError, match="built for 'numpy'"):
        calls_a_numpy_stencil.to_sdfg()


# -- keys -----------------------------------------------------------------------------------------
def test_the_key_names_each_stencil_by_its_cache_key() -> None:
    first = gtscript.stencil("numpy", _copy_plus_one)
    again = gtscript.stencil("numpy", _copy_plus_one)
    other = gtscript.stencil("numpy", _double)
    lazy = gtscript.lazy_stencil("numpy", _copy_plus_one)
    assert first._gt_cache_key_ and first._gt_cache_key_ == again._gt_cache_key_
    assert first._gt_cache_key_.startswith(first._gt_id_)
    assert lazy._lazy_cache_key() == first._gt_cache_key_
    assert lazy._implementation is None  # keyed without building

    class Component:
        def __init__(self, stencil):
            self.stencil = stencil

        @program
        def __call__(self, a, b):
            self.stencil(a, b)

    key = lambda stencil: Component(stencil).__call__.static_parts()  # noqa: E731
    assert key(first) == key(again) == key(lazy)
    changed = {k for k in key(first) if key(first)[k] != key(other)[k]}
    assert changed == {"closure"}


def test_a_closure_value_that_cannot_be_keyed_is_an_error_naming_it() -> None:
    class Opaque:
        pass

    thing = Opaque()

    @program
    def uses_opaque(a):
        a[:] = thing.value

    with pytest.raises(OrchestrationError, match=r"cannot key 'thing' \(a .*Opaque\)"):
        uses_opaque.static_parts()


def test_a_function_without_source_is_refused() -> None:
    namespace: dict[str, object] = {}
    exec("def no_source(a):\n    a[:] = 1.0\n", namespace)  # noqa: S102
    with pytest.raises(OrchestrationError, match="its source is not available"):
        program(namespace["no_source"])


# -- build once, load everywhere ------------------------------------------------------------------
_MODULE = """
import numpy as np
from gt4py.cartesian._orchestration import program

SCALE = {scale}


def helper(a, b):
    b[:] = a * SCALE


@program
def step(a, b, c):
    helper(a, b)
    c[:] = b + a
"""

_RUN = """
import sys, numpy as np
sys.path.insert(0, {folder!r})
{forbid}
import component
a = np.random.default_rng(0).random({shape}); b = np.zeros_like(a); c = np.zeros_like(a)
component.step(a, b, c)
assert np.allclose(c, (component.SCALE + 1.0) * a), "wrong result"
print("OUTCOME", component.step.last_outcome)
"""

# A warm start must not parse: DaCe's Python frontend and its simplification are made to fail.
_FORBID = """
import dace.frontend.python.parser as parser, dace.sdfg.sdfg as sdfg
def refuse(*args, **kwargs): raise AssertionError("parsed or optimised on a warm start")
parser.DaceProgram.to_sdfg = parser.DaceProgram._parse = refuse
parser.DaceProgram.closure_resolver = refuse
sdfg.SDFG.simplify = sdfg.SDFG.compile = refuse
"""


def _run(folder: pathlib.Path, cache: pathlib.Path, shape: tuple[int, ...], forbid: bool) -> str:
    script = _RUN.format(folder=str(folder), shape=shape, forbid=_FORBID if forbid else "")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    env["GT4PY_BUILD_CACHE_DIR"] = str(cache)
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        cwd=folder,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (folder / ".dacecache").exists()  # the build lives in gt4py's cache only
    return result.stdout.split("OUTCOME ")[-1].strip()


@pytest.mark.slow
def test_a_warm_start_in_a_new_process_neither_parses_nor_optimises(tmp_path) -> None:
    folder, cache = tmp_path / "user", tmp_path / "cache"
    folder.mkdir()
    (folder / "component.py").write_text(_MODULE.format(scale=2.0))
    assert _run(folder, cache, (4, 5, 6), forbid=False) == "built"
    assert _run(folder, cache, (4, 5, 6), forbid=True) == "hit"
    # what the user wrote changed: a closure value two calls deep -> built again, right result
    (folder / "component.py").write_text(_MODULE.format(scale=3.0))
    assert _run(folder, cache, (4, 5, 6), forbid=False) == "built"
    # other shapes are another program (DaCe specialises on them)
    assert _run(folder, cache, (3, 5, 6), forbid=False) == "built"
    assert _run(folder, cache, (3, 5, 6), forbid=True) == "hit"
    entries = list((cache / "cartesian" / "orchestration" / "_dirs").iterdir())
    assert len(entries) == 3
    assert {p.name for p in entries[0].iterdir()} >= {"program.sdfgz", "call.json"}


@pytest.mark.slow
def test_a_damaged_entry_is_rebuilt(tmp_path) -> None:
    folder, cache = tmp_path / "user", tmp_path / "cache"
    folder.mkdir()
    (folder / "component.py").write_text(_MODULE.format(scale=2.0))
    assert _run(folder, cache, (4, 4, 4), forbid=False) == "built"
    (entry,) = (cache / "cartesian" / "orchestration" / "_dirs").iterdir()
    library = entry / json.loads((entry / "call.json").read_text())["library"]
    library.write_bytes(b"not a library")
    assert _run(folder, cache, (4, 4, 4), forbid=False) == "built"
    assert _run(folder, cache, (4, 4, 4), forbid=True) == "hit"


def test_a_method_is_keyed_on_the_state_it_reads() -> None:
    class Scaled:
        def __init__(self, factor: float) -> None:
            self.factor = factor

        @program
        def __call__(self, a, b):
            b[:] = a * self.factor

    assert isinstance(Scaled(2.0).__call__, Program)
    assert Scaled(2.0).__call__.static_parts() == Scaled(2.0).__call__.static_parts()
    assert Scaled(2.0).__call__.static_parts() != Scaled(3.0).__call__.static_parts()


# -- stencils in one program ----------------------------------------------------------------------
_STENCILS = """
import numpy as np
import gt4py.storage as gs
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import FORWARD, PARALLEL, Field, computation, interval
from gt4py.cartesian._orchestration import program


def lap(a: Field[float], b: Field[float]):
    with computation(PARALLEL), interval(...):
        b = 4.0 * a[0, 0, 0] - a[1, 0, 0] - a[-1, 0, 0] - a[0, 1, 0] - a[0, -1, 0]


def scale(b: Field[float], c: Field[float], w: float):
    with computation(PARALLEL), interval(...):
        c = w * b


def cumsum(a: Field[float], c: Field[float], d: Field[float]):
    with computation(FORWARD):
        with interval(0, 1):
            d = a + c
        with interval(1, None):
            d = d[0, 0, -1] + a + c


N, NK = 10, 5
ORIGIN, DOMAIN = (1, 1, 0), (N, N, NK)


def make(backend, lazy=False):
    decorate = gtscript.lazy_stencil if lazy else gtscript.stencil
    return [decorate(backend, f) for f in (lap, scale, cumsum)]


def fields(backend):
    rng = np.random.default_rng(1)
    shape = (N + 2, N + 2, NK)
    a = gs.from_array(rng.random(shape), backend=backend, aligned_index=ORIGIN)
    return [a] + [gs.zeros(shape, float, backend=backend, aligned_index=ORIGIN) for _ in range(3)]


def one_by_one(a, b, c, d, w):
    s_lap, s_scale, s_cum = make("numpy")
    s_lap(a, b, origin=ORIGIN, domain=DOMAIN)
    s_scale(b, c, w, origin=ORIGIN, domain=DOMAIN)
    s_cum(a, c, d, origin=ORIGIN, domain=DOMAIN)


s_lap, s_scale, s_cum = make("dace:cpu", lazy=True)


@program
def step(a, b, c, d, w: float):
    s_lap(a, b, origin=ORIGIN, domain=DOMAIN)
    s_scale(b, c, w, origin=ORIGIN, domain=DOMAIN)
    s_cum(a, c, d, origin=ORIGIN, domain=DOMAIN)
"""

_RUN_STENCILS = """
import sys, numpy as np
sys.path.insert(0, {folder!r})
{forbid}
import stencils as s
got = s.fields("dace:cpu")
s.step(*got, 0.5)
want = [np.asarray(x).copy() for x in s.fields("dace:cpu")]
s.one_by_one(*want, 0.5)
for name, x, y in zip("abcd", got, want):
    assert np.array_equal(np.asarray(x), y), name
print("OUTCOME", s.step.last_outcome)
"""


@pytest.mark.slow
def test_dace_stencils_in_one_orchestrated_program_equal_numpy_and_start_warm(tmp_path) -> None:
    folder, cache = tmp_path / "user", tmp_path / "cache"
    folder.mkdir()
    (folder / "stencils.py").write_text(_STENCILS)
    sys.path.insert(0, str(folder))
    try:
        import stencils  # the program parses into one SDFG: three nested stencil SDFGs
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("stencils", None)
    prog = dace.program(stencils.step.func)
    sdfg = prog.to_sdfg(*stencils.fields("dace:cpu"), 0.5, simplify=False)
    nested = [s for s in sdfg.all_sdfgs_recursive() if s is not sdfg]
    assert len(nested) == 3

    def run(forbid: bool) -> str:
        script = _RUN_STENCILS.format(folder=str(folder), forbid=_FORBID if forbid else "")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
        env["GT4PY_BUILD_CACHE_DIR"] = str(cache)
        result = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script)],
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
            cwd=folder,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout.split("OUTCOME ")[-1].strip()

    assert run(forbid=False) == "built"
    assert run(forbid=True) == "hit"
    # the build lives in gt4py's cache: DaCe's unmanaged .dacecache is never left in the cwd
    assert not (folder / ".dacecache").exists() and not (folder / "_dacegraphs").exists()


def _bottom(a: Field[float], b: Field[float]):  # type: ignore[valid-type]
    with computation(PARALLEL), interval(...):
        b = a.at(K=0)


@pytest.mark.slow
def test_dace_stencil_sdfg_errors_name_the_problem() -> None:
    good = gtscript.stencil("dace:cpu", _copy_plus_one)
    a, b = np.zeros((4, 4, 3)), np.zeros((4, 4, 3))
    assert good.__sdfg_signature__() == (["a", "b"], [])
    assert good.__sdfg_closure__() == {}
    sdfg = good.__sdfg__(a, b, origin=(0, 0, 0), domain=(4, 4, 3))
    assert sdfg.arg_names == ["a", "b"]
    assert not {"__I", "__J", "__K", "__a_origin_I"} & set(map(str, sdfg.free_symbols))
    # the arrays' layout is the arguments': written into the code, no symbol left to replace
    assert not any("stride" in s or "size" in s for s in map(str, sdfg.free_symbols))
    codes = [n.code.as_string for n, _ in sdfg.all_nodes_recursive() if hasattr(n, "code")]
    assert codes and not any("__a_stride" in c or "__I" in c for c in codes)
    with pytest.raises(OrchestrationError, match="takes 2 arguments, got 3"):
        good.__sdfg__(a, b, a)
    with pytest.raises(OrchestrationError, match="has no argument 'c'"):
        good.__sdfg__(a, b, c=a)
    with pytest.raises(OrchestrationError, match=r"missing arguments \['b'\]"):
        good.__sdfg__(a)
    with pytest.raises(OrchestrationError, match="is not 3 sizes"):
        good.__sdfg__(a, b, domain=(4, 4))
    with pytest.raises(OrchestrationError, match="needs 3 indices"):
        good.__sdfg__(a, b, origin=(0, 0))
    # a checked index (here K at an absolute index): no error record among the arguments, the
    # checked tasklet keeps its own and reports a bad index itself (ADR 0046)
    bottom = gtscript.stencil("dace:cpu", _bottom)
    sdfg = bottom.__sdfg__(a, b)
    assert "__gt_kerror" not in sdfg.arrays
    checked = [
        n
        for n, _ in sdfg.all_nodes_recursive()
        if isinstance(n, dace.nodes.Tasklet) and "gt_kcheck(" in n.code.as_string
    ]
    assert len(checked) == 1 and "std::abort()" in checked[0].code.as_string


@pytest.mark.slow
def test_repeated_calls_of_a_stencil_get_copies_of_one_frozen_sdfg(monkeypatch) -> None:
    """pyFV3 calls one stencil per tracer: the SDFG's JSON is read and its tasklets rewritten
    once per stencil and layout; each call still gets its own SDFG (a program's passes change
    what they are given)."""
    from gt4py.cartesian import _orchestration

    fixes = []
    real = _orchestration._fix_symbols
    monkeypatch.setattr(
        _orchestration,
        "_fix_symbols",
        lambda sdfg, values: (fixes.append(values), real(sdfg, values)),
    )
    stencil = gtscript.stencil("dace:cpu", _copy_plus_one)
    a, b = np.zeros((4, 4, 3)), np.zeros((4, 4, 3))
    first = stencil.__sdfg__(a, b, origin=(0, 0, 0), domain=(4, 4, 3))
    second = stencil.__sdfg__(a, b, origin=(0, 0, 0), domain=(4, 4, 3))
    assert first is not second and _without_guids(first) == _without_guids(second)
    assert len(fixes) == 1
    other = stencil.__sdfg__(a, b, origin=(1, 0, 0), domain=(3, 4, 3))  # another origin
    assert len(fixes) == 2 and _without_guids(other) != _without_guids(first)


def _without_guids(sdfg) -> str:
    """The SDFG's JSON without its elements' ids (each copy has its own)."""
    return re.sub(r'"guid": "[^"]*"', "", json.dumps(sdfg.to_json()))


@pytest.mark.slow
def test_dace_stencils_survive_ndsl_style_symbol_replacement_and_schedule_tree_round_trip(
    tmp_path,
) -> None:
    """What NDSL's orchestration does to a program's SDFG, with DaCe's API only: replace each
    nested SDFG's numeric symbol mapping in it (DaCe's inliner then replaces the same symbols
    again), simplify, expand the maps, and rebuild the SDFG from its schedule tree. C++
    tasklets are opaque to DaCe: the stencils' SDFGs keep no symbol in their code and give
    each tasklet the memlets and global code it needs, or this fails to compile."""
    import numbers

    from dace.transformation.dataflow import MapExpansion

    folder = tmp_path / "user"
    folder.mkdir()
    (folder / "stencils.py").write_text(_STENCILS)
    sys.path.insert(0, str(folder))
    try:
        import stencils
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("stencils", None)
    got = stencils.fields("dace:cpu")
    sdfg = dace.program(stencils.step.func).to_sdfg(*got, 0.5, simplify=False)
    for nested in sdfg.all_sdfgs_recursive():
        if nested.parent_nsdfg_node is not None:
            mapping = nested.parent_nsdfg_node.symbol_mapping.items()
            nested.replace_dict({k: v for k, v in mapping if isinstance(v, numbers.Number)})
    sdfg.simplify(skip={"ScalarToSymbolPromotion"})
    sdfg.apply_transformations_repeated(MapExpansion)
    rebuilt = sdfg.as_schedule_tree().as_sdfg(skip={"ScalarToSymbolPromotion"})
    rebuilt.build_folder = str(tmp_path / "build")  # never a .dacecache in the cwd
    rebuilt.compile()(**dict(zip("abcd", got, strict=True)), w=0.5)
    want = [np.asarray(x).copy() for x in stencils.fields("dace:cpu")]
    stencils.one_by_one(*want, 0.5)
    for name, x, y in zip("abcd", got, want, strict=True):
        assert np.array_equal(np.asarray(x), y), name


# -- run-time data indices in a program (ADR 0046) ---------------------------------------------
_DATA_INDEX = """
import sys
import numpy as np
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import IJK, PARALLEL, Field, computation, interval
from gt4py.cartesian._orchestration import program

V = Field[IJK, (np.float64, 8)]


def loop(a: V, b: V, top: int):
    with computation(PARALLEL), interval(...):
        n = 0
        while n < top:
            b[0, 0, 0][n] = a[0, 0, 0][n] + 4
            n = n + 1


s_loop = gtscript.lazy_stencil("dace:cpu", loop)


@program
def twice(a, tmp, b, top: int):
    s_loop(a, tmp, top)
    s_loop(tmp, b, top)


a = np.random.default_rng(0).random((3, 3, 4, 8))
tmp, b = np.zeros_like(a), np.zeros_like(a)
top = int(sys.argv[1])
twice(a, tmp, b, top)
assert np.array_equal(b, (a + 4) + 4), "wrong result"
print("OK")
"""


@pytest.mark.slow
def test_a_run_time_data_index_in_an_orchestrated_program(tmp_path) -> None:
    script = tmp_path / "data_index.py"
    script.write_text(_DATA_INDEX)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    env["GT4PY_BUILD_CACHE_DIR"] = str(tmp_path / "cache")

    def run(top: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script), str(top)],
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
            cwd=tmp_path,
        )

    good = run(8)
    assert good.returncode == 0 and "OK" in good.stdout, good.stdout + good.stderr
    # one past the end: the program cannot raise; it reports and aborts, never reading past
    bad = run(9)
    assert bad.returncode != 0
    assert (
        "IndexError: data index 8 of field 'b' is outside the field (data dimension 0 has "
        "size 8) (stencil" in bad.stderr
    ) or "IndexError: data index 8 of field 'a' is outside the field" in bad.stderr, bad.stderr
