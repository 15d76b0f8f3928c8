"""Every row of the builtin vocabulary, end to end: spelled in the DSL, lowered to its IR call,
run on every backend against numpy, and folded (or left alone) by constant folding.

The field operators are written from the table (one per DSL spelling of each row) into a
module file, so a row added to the table is tested here without touching this file.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import sys
from typing import Any

import numpy as np
import pytest

import gt4py.next as gtx


pytestmark = pytest.mark.ours_only

# the table is private to our implementation: nothing to test on released gt4py
vocabulary = pytest.importorskip("gt4py.next._builtin_vocabulary")
ir = pytest.importorskip("gt4py.next.ir")
lowering = pytest.importorskip("gt4py.next.lowering")
fold_constants = pytest.importorskip("gt4py.next.passes").fold_constants


Kind, Result = vocabulary.Kind, vocabulary.Result

FLOATS = np.array([-2.5, -1.0, -0.25, 0.5, 1.75, 3.0])
OTHER_FLOATS = np.array([0.75, -1.5, 2.0, 1.25, -0.5, 2.5])
INTS = np.array([-7, -3, -1, 0, 4, 9], dtype=np.int32)
OTHER_INTS = np.array([2, -2, 3, 5, -4, 1], dtype=np.int32)
BOOLS = np.array([True, True, False, False, True, False])
OTHER_BOOLS = np.array([True, False, True, False, False, True])
# inside every unary math function's domain (arccosh: shifted by one, below)
UNIT = np.linspace(0.05, 0.95, 6)
SPECIAL = np.array([1.0, np.inf, -np.inf, np.nan, 0.0, -2.0])
# functions whose interesting inputs are signed or beyond one
SIGNED_MATH = {"floor", "ceil", "trunc", "cbrt", "abs", "sinh", "arcsinh", "exp", "arctan"}


@dataclasses.dataclass(frozen=True)
class Case:
    """One DSL spelling of a row, on operands of one dtype."""

    row: vocabulary.Builtin
    spelling: str  # the DSL expression, over the parameters a, b, c
    dtype: str  # of the operands (bool, int32, float64)

    @property
    def id(self) -> str:
        word = self.spelling.split("(")[0] if "(" in self.spelling else "operator"
        return f"{self.row.ir_name}-{word}-{self.dtype}"

    @property
    def name(self) -> str:
        return self.id.replace("-", "_")

    @property
    def operands(self) -> int:
        return 1 if self.row.kind is Kind.REDUCTION else self.row.arity

    @property
    def result_dtype(self) -> str:
        if self.row.result is Result.BOOL:
            return "bool"
        if self.row.result is Result.FLOAT and self.dtype != "float64":
            return "float64"
        return self.dtype


def _spellings(row: vocabulary.Builtin) -> list[str]:
    """The DSL expressions of ``row``: its Python operator and each builtin name."""
    spellings = []
    if row.symbol is not None:
        if row.arity == 1:
            spellings.append(f"{row.symbol}a")
        else:
            spellings.append(f"a {row.symbol} b")
    for name in row.dsl_names:
        if row.kind is Kind.REDUCTION:
            spellings.append(f"{name}(a(E2V), axis=E2VDim)")
        else:
            spellings.append(f"{name}({', '.join('abc'[: row.arity])})")
    return spellings


def _dtypes(row: vocabulary.Builtin) -> list[str]:
    if row.accepts == "b":
        return ["bool"]
    if row.kind in (Kind.ARITHMETIC, Kind.BINARY_MATH) or row.ir_name == "abs":
        return ["float64", "int32"]  # Python's rules for //, %, ** on ints
    return ["float64"]


CASES = [
    Case(row, spelling, dtype)
    for row in vocabulary.VOCABULARY
    for spelling in _spellings(row)
    for dtype in _dtypes(row)
    if not (row.ir_name == "divides" and dtype == "int32")  # float result: its own test
]


def _signature(case: Case) -> str:
    field = "EField" if case.row.kind is not Kind.REDUCTION else "VField"
    params = [f"{p}: {field}_{case.dtype}" for p in "abc"[: case.operands]]
    if case.row.kind is Kind.SELECT:  # where(mask, a, b)
        params[0] = "a: EField_bool"
    return ", ".join(params)


def _module_source() -> str:
    names = sorted(vocabulary.DSL_BUILTINS)
    lines = [
        "import gt4py.next as gtx",
        f"from gt4py.next import {', '.join(names)}",
        "Edge = gtx.Dimension('Edge')",
        "Vertex = gtx.Dimension('Vertex')",
        "E2VDim = gtx.Dimension('E2V', kind=gtx.DimensionKind.LOCAL)",
        "E2V = gtx.FieldOffset('E2V', source=Vertex, target=(Edge, E2VDim))",
    ]
    for dtype in ("bool", "int32", "float64"):
        lines.append(f"EField_{dtype} = gtx.Field[gtx.Dims[Edge], gtx.{dtype}]")
        lines.append(f"VField_{dtype} = gtx.Field[gtx.Dims[Vertex], gtx.{dtype}]")
    for case in CASES:
        params = ", ".join(f"{p}" for p in "abc"[: case.operands])
        result = f"EField_{case.result_dtype}"
        lines += [
            "",
            "@gtx.field_operator",
            f"def op_{case.name}({_signature(case)}) -> {result}:",
            f"    return {case.spelling}",
            "",
            "@gtx.program",
            f"def prog_{case.name}({_signature(case)}, out: {result}):",
            f"    op_{case.name}({params}, out=out)",
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def dsl(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The module of one field operator and one program per case."""
    path = tmp_path_factory.mktemp("vocabulary") / "vocabulary_cases.py"
    path.write_text(_module_source())
    spec = importlib.util.spec_from_file_location("vocabulary_cases", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclass-like lookups of the frontend need it there
    spec.loader.exec_module(module)
    return module


def _inputs(case: Case) -> list[np.ndarray]:
    row = case.row
    if case.dtype == "bool":
        return [BOOLS, OTHER_BOOLS][: case.operands]
    if case.dtype == "int32":
        if row.ir_name == "power":
            return [INTS, np.abs(OTHER_INTS) % 4]  # no negative integer exponents
        return [INTS, OTHER_INTS][: case.operands]
    if row.kind is Kind.SELECT:
        return [BOOLS, FLOATS, OTHER_FLOATS]
    if row.kind is Kind.UNARY_MATH:
        if row.result is Result.BOOL:
            return [SPECIAL]
        if row.ir_name == "arccosh":
            return [UNIT + 1.0]
        return [FLOATS if row.ir_name in SIGNED_MATH else UNIT]
    if row.ir_name == "power":
        return [np.abs(FLOATS), OTHER_FLOATS]
    return [FLOATS, OTHER_FLOATS][: case.operands]


# The reference does not read the table: the DSL spelling itself, evaluated by numpy (whose
# operators follow Python's rules, and whose functions carry the builtins' names).
_NUMPY_REDUCTIONS = {"neighbor_sum": np.sum, "max_over": np.max, "min_over": np.min}


def _reference(case: Case, inputs: list[np.ndarray], e2v: np.ndarray) -> np.ndarray:
    if case.row.kind is Kind.REDUCTION:
        return _NUMPY_REDUCTIONS[case.row.dsl_names[0]](inputs[0][e2v], axis=1)
    namespace: dict[str, Any] = {n: getattr(np, n, None) for n in vocabulary.DSL_BUILTINS}
    namespace["gamma"] = np.vectorize(math.gamma)  # the C library's, through Python
    namespace["neg"] = np.negative  # the DSL name of unary minus (released gtx.neg)
    namespace.update(zip("abc", inputs, strict=False))
    return np.asarray(eval(case.spelling, namespace))


def _lowered_calls(program: Any) -> set[str]:
    lowered = lowering.lower_program(program)
    calls = {c.fun for c in lowered.walk_values().if_isinstance(ir.Call)}
    return calls | {f"reduce:{r.op}" for r in lowered.walk_values().if_isinstance(ir.Reduce)}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_row_lowers_to_its_ir_call(dsl, case):
    program = getattr(dsl, f"prog_{case.name}")
    expected = case.row.ir_name
    if case.row.kind is Kind.REDUCTION:
        expected = f"reduce:{expected}"
    assert expected in _lowered_calls(program)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_row_runs_like_numpy(dsl, case, backend, mesh):
    inputs = _inputs(case)
    e2v = mesh.e2v
    if case.row.kind is Kind.REDUCTION:
        vertices = np.resize(inputs[0], mesh.num_vertices).astype(case.dtype)
        inputs = [vertices]
        args = [gtx.as_field([gtx.Dimension("Vertex")], vertices, allocator=backend)]
        size = mesh.num_edges
    else:
        args = [gtx.as_field([gtx.Dimension("Edge")], x, allocator=backend) for x in inputs]
        size = len(inputs[0])
    zeros = np.zeros(size, dtype=case.result_dtype)
    out = gtx.as_field([gtx.Dimension("Edge")], zeros, allocator=backend)
    operator = getattr(dsl, f"op_{case.name}")
    with np.errstate(all="ignore"):
        operator.with_backend(backend)(
            *args, out=out, offset_provider=mesh.offset_provider(backend)
        )
        expected = _reference(case, inputs, e2v)
    result = out.asnumpy()
    assert result.dtype == np.dtype(case.result_dtype)
    if result.dtype.kind == "f":
        np.testing.assert_allclose(result, expected, rtol=1e-12, equal_nan=True)
    else:
        np.testing.assert_array_equal(result, expected)


def _literal(value: Any, dtype: str) -> str:
    return f"{value}:{dtype}"


POINTWISE = [row for row in vocabulary.IR_CALLS.values() if row.kind is not Kind.SELECT]


@pytest.mark.parametrize("row", POINTWISE, ids=[row.ir_name for row in POINTWISE])
def test_constant_folding_computes_the_foldable_rows_with_numpy(row):
    dtype = "bool" if row.accepts == "b" else "int32" if row.result is Result.SAME else "float64"
    values = {"bool": (True, False), "int32": (-7, 2), "float64": (0.75, 0.5)}[dtype]
    args = ", ".join(_literal(v, dtype) for v in values[: row.arity])
    text = f"{row.ir_name}({args})"
    result_dtype = "bool" if row.result is Result.BOOL else "float64"
    program = ir.parse_program(
        f"program p(out: field[I] {result_dtype}) {{\n"
        f"  out <- apply[I: 0:int64 .. 4:int64]({text});\n}}"
    )
    folded = fold_constants(program).body[0].values[0]
    if not row.foldable:
        assert ir.expr_text(folded) == text
        return
    assert isinstance(folded, ir.Literal)
    expected = getattr(np, row.numpy)(*(np.dtype(dtype).type(v) for v in values[: row.arity]))
    assert folded.dtype == ("bool" if row.result is Result.BOOL else dtype)
    assert folded.value == (
        repr(bool(expected)) if folded.dtype == "bool" else repr(expected.item())
    )
