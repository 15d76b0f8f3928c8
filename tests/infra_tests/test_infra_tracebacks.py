"""``gt4py.infra.tracebacks``: user-facing errors lose gt4py's frames, keep the user's (ADR 0030).

A fake "gt4py" package written to ``tmp_path`` stands for the internal sources (``roots=``),
so that these tests see exactly which frames are whose.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import traceback
import types

import pytest

from gt4py.infra import config, tracebacks


INTERNAL = """
def entry(callback):
    try:
        return middle(callback)
    except ValueError as error:  # what a gt4py entry point does
        from gt4py.infra.tracebacks import hide_internal_frames

        hide_internal_frames(error, roots=ROOTS)
        raise


def middle(callback):
    return deeper(callback)


def deeper(callback):
    return callback()


def fail():
    raise ValueError("bad definition")


def fail_handling_internal():
    try:
        {}["missing"]
    except KeyError:
        raise ValueError("bad definition")


def fail_with_cause(cause_callback):
    try:
        cause_callback()
    except Exception as cause:
        raise ValueError("bad definition") from cause
"""

USER = """
import internal_pkg


def user_callback():
    return internal_pkg.fail()


def user_cause():
    raise ZeroDivisionError("the user's own error")


def call(what):
    return internal_pkg.entry(what)
"""


def _load(name: str, path: pathlib.Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def modules(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch):
    internal_dir = tmp_path / "fake_gt4py"
    internal_dir.mkdir()
    (internal_dir / "internal_pkg.py").write_text(INTERNAL)
    (tmp_path / "user_code.py").write_text(USER)
    internal = _load("internal_pkg", internal_dir / "internal_pkg.py")
    internal.ROOTS = (str(internal_dir) + "/",)
    user = _load("user_code", tmp_path / "user_code.py")
    monkeypatch.delenv("GT4PY_TRACEBACK_FILTERING", raising=False)
    yield internal, user, str(internal_dir) + "/"
    for name in ("internal_pkg", "user_code"):
        sys.modules.pop(name, None)


def _frames(error: BaseException) -> list[tuple[str, str]]:
    return [
        (pathlib.Path(f.filename).name, f.name) for f in traceback.extract_tb(error.__traceback__)
    ]


def _raise_through(user: types.ModuleType, callback) -> ValueError:
    with pytest.raises(ValueError) as info:
        user.call(callback)
    return info.value


def test_only_the_users_frames_remain_in_order(modules) -> None:
    _internal, user, _ = modules
    error = _raise_through(user, user.user_callback)
    # this test's frame, the user's call, the user's callback; internal_pkg's five are gone
    # (entry, middle, deeper and fail; the entry point's own frame is not added again)
    assert _frames(error) == [
        ("test_infra_tracebacks.py", "_raise_through"),
        ("user_code.py", "call"),
        ("user_code.py", "user_callback"),
    ]
    assert error.__notes__ == [
        "(gt4py: 4 internal frames hidden from this traceback; set "
        "GT4PY_TRACEBACK_FILTERING=off to show them)"
    ]


def test_the_kept_frames_keep_their_lines(modules) -> None:
    _internal, user, _ = modules
    error = _raise_through(user, user.user_callback)
    last = traceback.extract_tb(error.__traceback__)[-1]
    assert last.line == "return internal_pkg.fail()"
    printed = "".join(traceback.format_exception(error))
    assert "internal_pkg.py" not in printed
    assert "user_code.py" in printed and "bad definition" in printed


def test_off_shows_every_frame(modules, monkeypatch: pytest.MonkeyPatch) -> None:
    _internal, user, _ = modules
    monkeypatch.setenv("GT4PY_TRACEBACK_FILTERING", "off")
    error = _raise_through(user, user.user_callback)
    names = [name for _, name in _frames(error)]
    assert names[-5:] == ["entry", "middle", "deeper", "user_callback", "fail"]
    assert not getattr(error, "__notes__", None)


def test_the_setting_reads_on_off_and_boolean_spellings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GT4PY_TRACEBACK_FILTERING", raising=False)
    assert config.TRACEBACK_FILTERING.get() == "on"
    for text, expected in [("off", "off"), ("0", "off"), ("false", "off"), ("ON", "on")]:
        monkeypatch.setenv("GT4PY_TRACEBACK_FILTERING", text)
        assert config.get("traceback_filtering") == expected
    monkeypatch.setenv("GT4PY_TRACEBACK_FILTERING", "some")
    with pytest.raises(config.ConfigError, match="GT4PY_TRACEBACK_FILTERING"):
        config.TRACEBACK_FILTERING.get()
    monkeypatch.delenv("GT4PY_TRACEBACK_FILTERING")
    with config.overrides(traceback_filtering="off"):
        assert not tracebacks.filtering_enabled()
    assert tracebacks.filtering_enabled()


def test_an_internal_context_is_suppressed(modules) -> None:
    internal, user, _ = modules
    error = _raise_through(user, internal.fail_handling_internal)
    assert isinstance(error.__context__, KeyError)  # still there for code that looks
    assert error.__suppress_context__
    printed = "".join(traceback.format_exception(error))
    assert "KeyError" not in printed and "During handling" not in printed


def test_a_cause_stays_without_internal_frames(modules) -> None:
    internal, user, _ = modules
    error = _raise_through(user, lambda: internal.fail_with_cause(user.user_cause))
    cause = error.__cause__
    assert isinstance(cause, ZeroDivisionError)
    assert [name for _, name in _frames(cause)] == ["user_cause"]
    printed = "".join(traceback.format_exception(error))
    assert "the user's own error" in printed and "internal_pkg.py" not in printed


def test_filtering_twice_counts_each_frame_once(modules) -> None:
    _internal, user, root = modules
    error = _raise_through(user, user.user_callback)
    tracebacks.hide_internal_frames(error, roots=[root])  # an outer entry point, say
    assert error.__notes__ == [
        "(gt4py: 4 internal frames hidden from this traceback; set "
        "GT4PY_TRACEBACK_FILTERING=off to show them)"
    ]


def test_an_error_raised_again_with_its_first_traceback(modules) -> None:
    internal, _, root = modules
    try:
        internal.middle(internal.fail)
    except ValueError as caught:
        error = caught
    first = error.__traceback__
    for _ in range(2):  # as a program raises its definition error at every call
        try:
            raise error.with_traceback(first)
        except ValueError as again:
            tracebacks.hide_internal_frames(again, roots=[root])
        assert len(error.__notes__) == 1
        assert error.__notes__[0].startswith("(gt4py: 3 internal frames hidden")
        assert {name for _, name in _frames(error)} == {
            "test_an_error_raised_again_with_its_first_traceback"
        }


def test_the_installed_packages_count_as_internal() -> None:
    import gt4py.eve
    import gt4py.infra

    roots = tracebacks.internal_roots()
    assert any(gt4py.infra.__file__.startswith(r) for r in roots)
    assert any(gt4py.eve.__file__.startswith(r) for r in roots)
    assert tracebacks.is_internal(gt4py.infra.__file__)
    assert tracebacks.is_internal("<gt4py call stub>")
    assert not tracebacks.is_internal(__file__)
    assert not tracebacks.is_internal("<stdin>")
