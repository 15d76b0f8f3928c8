"""Codegen: templated generators (format strings, jinja2), their errors, and format_source."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any

import eve_sample_ir as ir
import pytest

from gt4py import eve
from gt4py.eve import codegen


class PythonGenerator(codegen.TemplatedGenerator):
    Module = codegen.as_jinja("# module {{ name }}\n{% for stmt in body %}{{ stmt }}\n{% endfor %}")
    Assign = codegen.as_fmt("{target} = {value}")
    Sym = codegen.as_fmt("{id}")
    Name = codegen.as_fmt("{id}")
    Literal = codegen.as_fmt("{value}")
    BinOp = codegen.as_fmt("({left} {op} {right})")
    Call = codegen.as_jinja("{{ func }}({{ args | join(', ') }})")
    Lambda = codegen.as_jinja("(lambda {{ params | join(', ') }}: {{ body }})")


def _module() -> ir.Module:
    return ir.Module(
        name="demo",
        body=[
            ir.Assign(target=ir.Sym(id="a"), value=ir.Literal(value=2)),
            ir.Assign(
                target=ir.Sym(id="b"),
                value=ir.BinOp(
                    op=ir.BinaryOperator.MUL,
                    left=ir.Name(id="a"),
                    right=ir.Call(func="print", args=[ir.Literal(value=1), ir.Name(id="a")]),
                ),
            ),
            ir.Assign(
                target=ir.Sym(id="f"),
                value=ir.Lambda(params=[ir.Sym(id="x")], body=ir.Name(id="x")),
            ),
        ],
    )


def test_format_and_jinja_templates_render_a_tree() -> None:
    assert PythonGenerator.apply(_module()) == (
        "# module demo\na = 2\nb = (a * print(1, a))\nf = (lambda x: x)\n"
    )


def test_generated_code_runs() -> None:
    namespace: dict[str, Any] = {"print": lambda *args: sum(args)}
    source = PythonGenerator.apply(_module())
    exec(compile(source, "<generated>", "exec"), namespace)
    assert namespace["b"] == 2 * (1 + 2)
    assert namespace["f"](5) == 5


def test_visit_methods_win_over_templates_and_templates_see_context() -> None:
    class Custom(PythonGenerator):
        Literal = codegen.as_jinja("{{ value * scale }}{{ suffix }}")

        def visit_Name(self, node: ir.Name, **kwargs: Any) -> str:
            return node.id.upper()

        def visit_BinaryOperator(self, op: ir.BinaryOperator, **kwargs: Any) -> str:
            return {"*": "times"}.get(op.value, op.value)

    expr = ir.BinOp(op=ir.BinaryOperator.MUL, left=ir.Name(id="a"), right=ir.Literal(value=3))
    assert Custom.apply(expr, scale=2, suffix="f") == "(A times 6f)"


def test_templates_are_found_along_the_node_mro() -> None:
    class Generic(codegen.TemplatedGenerator):
        Expr = codegen.as_fmt("<{_this_node.__class__.__name__}>")

    assert Generic.apply(ir.Literal(value=1)) == "<Literal>"


def test_enum_leaves_render_as_their_values() -> None:
    class OnlyBinOp(PythonGenerator):
        BinOp = codegen.as_jinja("{{ op }}")

    assert (
        OnlyBinOp.apply(
            ir.BinOp(op=ir.BinaryOperator.SUB, left=ir.Literal(value=1), right=ir.Literal(value=1))
        )
        == "-"
    )


def test_missing_template_names_the_node_class() -> None:
    class Partial(codegen.TemplatedGenerator):
        Literal = codegen.as_fmt("{value}")

    with pytest.raises(
        codegen.TemplateMissingError,
        match=r"Partial has no template or visit method for node class BinOp.*visit_BinOp/BinOp, visit_Expr/Expr",
    ):
        Partial.apply(
            ir.BinOp(op=ir.BinaryOperator.ADD, left=ir.Literal(value=1), right=ir.Literal(value=2))
        )


def test_bad_jinja_template_fails_when_the_generator_is_defined() -> None:
    with pytest.raises(codegen.TemplateDefinitionError) as info:

        class Broken(codegen.TemplatedGenerator):
            Call = codegen.as_jinja("{{ func }}(\n{% for a in args %}{{ a }}")

    message = str(info.value)
    assert "node class 'Call' in Broken" in message
    assert "line 2" in message
    assert "{{ func }}" in message


def test_bad_format_template_fails_when_the_generator_is_defined() -> None:
    with pytest.raises(
        codegen.TemplateDefinitionError, match=r"node class 'Literal' in Broken.*'\{value'"
    ):

        class Broken(codegen.TemplatedGenerator):
            Literal = codegen.as_fmt("{value")


def test_rendering_errors_name_node_class_template_and_available_values() -> None:
    class Typo(codegen.TemplatedGenerator):
        Literal = codegen.as_fmt("{valu}")
        Name = codegen.as_jinja("{{ idd }}")

    with pytest.raises(codegen.TemplateRenderingError) as info:
        Typo.apply(ir.Literal(value=1))
    message = str(info.value)
    assert "node class 'Literal' in Typo" in message
    assert "no value named 'valu'" in message
    assert "available values: _this_generator, _this_node, value" in message
    assert "'{valu}'" in message
    with pytest.raises(
        codegen.TemplateRenderingError, match=r"'idd' is undefined.*available values: .*id"
    ):
        Typo.apply(ir.Name(id="x"))


def test_template_errors_inside_jinja_are_wrapped() -> None:
    class Failing(codegen.TemplatedGenerator):
        Literal = codegen.as_jinja("{{ value / 0 }}")

    with pytest.raises(codegen.TemplateRenderingError, match="ZeroDivisionError") as info:
        Failing.apply(ir.Literal(value=1))
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_templates_must_be_strings() -> None:
    with pytest.raises(TypeError, match="FormatTemplate takes the template text"):
        codegen.as_fmt(3)  # type: ignore[arg-type]


@pytest.mark.slow
def test_jinja_is_imported_lazily() -> None:
    import subprocess
    import sys

    code = "import sys, gt4py.eve; print('jinja2' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


# --- format_source -------------------------------------------------------------------------


def test_format_source_python_with_ruff() -> None:
    if codegen._format._find_ruff() is None:
        pytest.skip("ruff is not installed")
    assert eve.format_source("python", "x=( 1+2 )\n") == "x = 1 + 2\n"
    assert eve.format_source("python", "def f(a,b): return a\n", style="indent-width = 2") == (
        "def f(a, b):\n  return a\n"
    )


def _fake_tool(directory: Path, name: str, script: str) -> None:
    path = directory / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_format_source_cpp_uses_clang_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in clang-format that records its arguments and upper-cases the code.
    _fake_tool(tmp_path, "clang-format", f'echo "$@" > {tmp_path}/args; tr a-z A-Z')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert eve.format_source("cpp", "int x;") == "INT X;"
    assert "--style=LLVM" in (tmp_path / "args").read_text()
    assert eve.format_source("cuda", "int y;", style="Google") == "INT Y;"
    args = (tmp_path / "args").read_text()
    assert "--style=Google" in args and "generated.cu" in args


def test_format_source_leaves_code_unchanged_without_the_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no formatters
    monkeypatch.setattr(codegen._format.importlib.util, "find_spec", lambda name: None)
    assert eve.format_source("cpp", "int   x;") == "int   x;"
    assert eve.format_source("python", "x=1") == "x=1"


def test_format_source_leaves_code_unchanged_when_the_tool_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _fake_tool(tmp_path, "clang-format", 'echo "error: cannot parse" >&2; exit 3')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with caplog.at_level(logging.WARNING, logger="gt4py.eve.codegen._format"):
        assert eve.format_source("c++", "int x") == "int x"
    assert "exited with status 3 (error: cannot parse)" in caplog.text


def test_format_source_python_syntax_error_leaves_code_unchanged() -> None:
    if codegen._format._find_ruff() is None:
        pytest.skip("ruff is not installed")
    assert eve.format_source("python", "def (:\n") == "def (:\n"


def test_format_source_unknown_language() -> None:
    with pytest.raises(
        ValueError, match="cannot format 'cobol' source; supported languages: c, c\\+\\+, cpp"
    ):
        eve.format_source("cobol", "")
