"""``import_generated_module``: imports generated source from a cache entry, never bytecode."""

from __future__ import annotations

import os
import pathlib
import py_compile
import sys

import pytest

from gt4py.infra.caching import import_generated_module


def _write(path: pathlib.Path, text: str) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_imports_the_module_with_its_file_and_name(tmp_path: pathlib.Path) -> None:
    path = _write(tmp_path / "entry" / "stencil_module.py", "VALUE = 6 * 7\n")
    module = import_generated_module(path, "gt4py_test_generated_a")
    assert module.VALUE == 42
    assert module.__name__ == "gt4py_test_generated_a"
    assert module.__file__ == str(path)
    assert "gt4py_test_generated_a" not in sys.modules  # the caller decides


def test_writes_no_bytecode(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as in a default interpreter
    entry = tmp_path / "entry"
    path = _write(entry / "stencil_module.py", "VALUE = 1\n")
    import_generated_module(path, "gt4py_test_generated_b")
    assert sorted(p.name for p in entry.rglob("*")) == ["stencil_module.py"]


def test_ignores_existing_bytecode(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A stale or damaged .pyc beside the source (with matching metadata) must not be run.
    path = _write(tmp_path / "entry" / "stencil_module.py", "VALUE = 'bytecode'\n")
    py_compile.compile(str(path), doraise=True)
    stat = path.stat()
    path.write_text("VALUE = 'source!!'\n")  # different content, same mtime and size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    module = import_generated_module(path, "gt4py_test_generated_c")
    assert module.VALUE == "source!!"


def test_a_changed_file_imports_the_new_content(tmp_path: pathlib.Path) -> None:
    path = _write(tmp_path / "entry" / "stencil_module.py", "VALUE = 'first'\n")
    first = import_generated_module(path, "gt4py_test_generated_d")
    path.write_text("VALUE = 'second, longer'\n")
    second = import_generated_module(path, "gt4py_test_generated_d")
    assert (first.VALUE, second.VALUE) == ("first", "second, longer")


def test_a_missing_file_is_an_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError):
        import_generated_module(tmp_path / "absent.py", "gt4py_test_generated_e")
