"""Property-based fuzzing of both stacks (issue 44): drawn programs and stencils over int32,
float64 and bool fields holding edge values (0, -1, the extremes, NaN, the infinities,
subnormals) run on every CPU backend, and on the emulated GPU ones, in a child process.

What must hold: no signal and no hang (the child ends, exit status 0, within its timeout);
every backend gives the reference's result (gt4py.next: embedded; GTScript: debug), or fails
where the reference fails. The operations drawn are those whose result is defined by numpy
on every platform (``+ - * // %`` — by zero included — ``/`` on floats, minimum, maximum,
abs, comparisons, logical operators, where); float -> integer conversions of out-of-range
values are platform-defined in numpy and pinned separately (ADR 0036).

Each example compiles one module per case and compiled backend: the case count is bounded
(``EXAMPLES`` x ``CASES`` per stack) to keep CI time at about a minute per stack.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest


hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

pytestmark = pytest.mark.slow

CHILD = pathlib.Path(__file__).with_name("fuzz_backends_child.py")
#: drawn examples per stack and test run, and cases (programs / stencils) per example: each
#: case is 2 (gt4py.next) / 3 (GTScript) C++ builds, each example one child process
EXAMPLES = int(os.environ.get("GT4PY_FUZZ_EXAMPLES", "2"))
CASES = int(os.environ.get("GT4PY_FUZZ_CASES", "2"))
#: a child running longer than this hangs (it compiles CASES x backends modules)
CHILD_TIMEOUT_S = 420

INT_EDGES = [0, -1, 1, 2, -2, 7, -7, 2**31 - 1, -(2**31), 2**31 - 2, -(2**31) + 1]
FLOAT_EDGES = [
    "0.0", "-0.0", "1.0", "-1.0", "0.5", "-2.5", "0.1", "3.0",
    "nan", "inf", "-inf", "5e-324", "-2.2250738585072014e-308", "1e308", "-1e308",
    "1.7976931348623157e308",
]  # fmt: skip
#: points per field: every edge value of its dtype is among them, the rest drawn
SIZE = 20

INT_FIELDS, FLOAT_FIELDS, BOOL_FIELDS = ("a", "b"), ("x", "y"), ("m",)
# (the operations C++ leaves undefined for some values first: Hypothesis starts simple)
INT_OPS = ("//", "%", "+", "-", "*")
FLOAT_OPS = ("//", "%", "/", "+", "-", "*")
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


# -- expressions: trees rendered for each stack ---------------------------------------------------


def _render(tree: tuple, stack: str) -> str:
    kind = tree[0]
    if kind == "field":
        return tree[1]
    if kind == "bin":
        return f"({_render(tree[2], stack)} {tree[1]} {_render(tree[3], stack)})"
    if kind in ("minimum", "maximum"):
        name = f"gtx.{kind}" if stack == "next" else kind[:3]
        return f"{name}({_render(tree[1], stack)}, {_render(tree[2], stack)})"
    if kind == "abs":
        return f"{'gtx.abs' if stack == 'next' else 'abs'}({_render(tree[1], stack)})"
    if kind == "where":
        cond, yes, no = (_render(t, stack) for t in tree[1:])
        return (
            f"gtx.where({cond}, {yes}, {no})" if stack == "next" else f"({yes} if {cond} else {no})"
        )
    if kind == "cmp":
        return f"({_render(tree[2], stack)} {tree[1]} {_render(tree[3], stack)})"
    if kind in ("and", "or"):
        op = {"and": "&", "or": "|"}[kind] if stack == "next" else kind
        return f"({_render(tree[1], stack)} {op} {_render(tree[2], stack)})"
    if kind == "not":
        return (
            f"(~{_render(tree[1], stack)})"
            if stack == "next"
            else f"(not {_render(tree[1], stack)})"
        )
    raise AssertionError(tree)


def _numbers(dtype: str, depth: int, *, root: bool = False) -> st.SearchStrategy[tuple]:
    fields = INT_FIELDS if dtype == "int" else FLOAT_FIELDS
    leaf = st.sampled_from(fields).map(lambda name: ("field", name))
    if depth == 0:
        return leaf
    inner = _numbers(dtype, depth - 1)
    ops = INT_OPS if dtype == "int" else FLOAT_OPS
    compound = [
        st.tuples(st.just("bin"), st.sampled_from(ops), inner, inner),
        st.tuples(st.sampled_from(["minimum", "maximum"]), inner, inner),
        st.tuples(st.just("abs"), inner),
        st.tuples(st.just("where"), _booleans(depth - 1), inner, inner),
    ]
    return st.one_of(*compound) if root else st.one_of(*compound, leaf)


def _booleans(depth: int) -> st.SearchStrategy[tuple]:
    leaf = st.sampled_from(BOOL_FIELDS).map(lambda name: ("field", name))
    comparison = st.sampled_from(["int", "float"]).flatmap(
        lambda dtype: st.tuples(
            st.just("cmp"),
            st.sampled_from(COMPARISONS),
            _numbers(dtype, 0),
            _numbers(dtype, 0),
        )
    )
    if depth == 0:
        return st.one_of(leaf, comparison)
    inner = _booleans(depth - 1)
    return st.one_of(
        leaf,
        comparison,
        st.tuples(st.sampled_from(["and", "or"]), inner, inner),
        st.tuples(st.just("not"), inner),
    )


def _values(edges: list, drawn: st.SearchStrategy) -> st.SearchStrategy[list]:
    """Every edge value, and drawn ones up to SIZE, in a drawn order."""
    extra = st.lists(drawn, min_size=SIZE - len(edges), max_size=SIZE - len(edges))
    return extra.flatmap(lambda values: st.permutations(edges + values))


def _case() -> st.SearchStrategy[dict]:
    ints = _values(INT_EDGES, st.integers(-(2**31), 2**31 - 1))
    floats = _values(FLOAT_EDGES, st.floats(width=64).map(repr))
    return st.fixed_dictionaries(
        {
            "int_tree": _numbers("int", 3, root=True),
            "float_tree": _numbers("float", 3, root=True),
            "a": ints,
            "b": ints,
            "x": floats,
            "y": floats,
            "m": st.lists(st.booleans(), min_size=SIZE, max_size=SIZE),
        }
    )


# -- the property -------------------------------------------------------------------------------


def _run_child(stack: str, cases: list[dict], work: pathlib.Path) -> tuple[dict, dict]:
    rendered = [
        {
            **case,
            "int": _render(case["int_tree"], stack),
            "float": _render(case["float_tree"], stack),
        }
        for case in cases
    ]
    for case in rendered:
        del case["int_tree"], case["float_tree"]
    cases_file = work / "cases.json"
    cases_file.write_text(json.dumps(rendered, indent=1))
    try:
        done = subprocess.run(
            [sys.executable, str(CHILD), stack, str(cases_file), str(work)],
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
            cwd=work,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{stack}: the child hung (> {CHILD_TIMEOUT_S} s) on the cases in {cases_file}")
    assert done.returncode == 0, (
        f"{stack}: the child ended with {done.returncode} (a negative status is a signal) on "
        f"the cases in {cases_file}:\n{done.stderr[-3000:]}"
    )
    with np.load(work / "results.npz") as npz:
        results = {key: npz[key] for key in npz.files}
    return results, json.loads((work / "errors.json").read_text())


def _check(stack: str, cases: list[dict], work: pathlib.Path) -> None:
    from fuzz_backends_child import CARTESIAN_BACKENDS, NEXT_BACKENDS

    backends = NEXT_BACKENDS if stack == "next" else CARTESIAN_BACKENDS
    reference, others = backends[0], backends[1:]
    results, errors = _run_child(stack, cases, work)
    problems = []
    for n, case in enumerate(cases):
        where = f"case {n}: int {_render(case['int_tree'], stack)}; float {_render(case['float_tree'], stack)}"
        if f"{n}|{reference}" in errors:
            failing = [b for b in others if f"{n}|{b}" not in errors]
            if failing:
                problems.append(
                    f"{where}: {reference} fails ({errors[f'{n}|{reference}']}), {failing} do not"
                )
            continue
        for backend in others:
            if f"{n}|{backend}" in errors:
                problems.append(f"{where}: {backend} fails: {errors[f'{n}|{backend}']}")
                continue
            for part in ("int", "float"):
                want, got = results[f"{n}|{reference}|{part}"], results[f"{n}|{backend}|{part}"]
                same = (
                    (want == got) | (np.isnan(want) & np.isnan(got))
                    if part == "float"
                    else want == got
                )
                if not same.all():
                    bad = np.flatnonzero(~same)
                    inputs = {k: [case[k][i] for i in bad[:3]] for k in ("a", "b", "x", "y", "m")}
                    problems.append(
                        f"{where}: {backend} {part} differs at {bad[:3].tolist()}: "
                        f"{got[bad[:3]].tolist()} != {want[bad[:3]].tolist()} for {inputs}"
                    )
    assert not problems, "\n".join(problems)


def _settings():
    return hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        # no shrinking: each try is a child process compiling modules; the failure message
        # names the cases, their values and the JSON file holding them
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
        suppress_health_check=list(hypothesis.HealthCheck),
    )


@pytest.mark.gpu_emulation
@pytest.mark.parametrize("stack", ["next", "cartesian"])
def test_no_value_crashes_or_changes_a_result_on_any_backend(stack, tmp_path_factory):
    sys.path.insert(0, str(CHILD.parent))

    @_settings()
    @hypothesis.given(cases=st.lists(_case(), min_size=CASES, max_size=CASES))
    def prop(cases: list[dict]) -> None:
        work = tmp_path_factory.mktemp(f"fuzz-{stack}")
        _check(stack, cases, work)

    try:
        prop()
    finally:
        sys.path.remove(str(CHILD.parent))
