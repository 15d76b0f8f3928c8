"""gt4py.infra.pipeline: declared stages, their dumps, and the compile log."""

from __future__ import annotations

import logging
import os
import pathlib
import stat
import threading

import pytest

from gt4py.infra import caching, config, pipeline


STAGES = (
    pipeline.Stage("frontend", "py"),
    pipeline.Stage("ir", "ir"),
    pipeline.Stage("ir_optimized", "ir"),
    pipeline.Stage("cpp", "cpp"),
    pipeline.Stage("so", "so"),
)


# -- stages ------------------------------------------------------------------------------------


def test_describe():
    assert pipeline.describe(STAGES) == "frontend → ir → ir_optimized → cpp → so"
    assert pipeline.describe(()) == ""


@pytest.mark.parametrize(("name", "suffix"), [("", "ir"), ("a/b", "ir"), ("ir", ".ir"), ("x", "")])
def test_stage_names_must_make_file_names(name, suffix):
    with pytest.raises(ValueError):
        pipeline.Stage(name, suffix)


def test_stage_values_iterate_in_declared_order():
    values = pipeline.StageValues(STAGES, {"cpp": "int main;", "frontend": "def f(): ...", "ir": 1})
    assert list(values) == ["frontend", "ir", "cpp"]
    assert next(iter(values.items())) == ("frontend", "def f(): ...")
    assert len(values) == 3
    assert values.declared == STAGES
    assert "so" not in values  # declared, not produced (yet)
    with pytest.raises(KeyError):
        values["so"]


def test_stage_values_are_read_only():
    values = pipeline.StageValues(STAGES, {"ir": 1})
    with pytest.raises(TypeError):
        values["ir"] = 2  # type: ignore[index]


def test_undeclared_stage_is_an_error_naming_it():
    with pytest.raises(ValueError, match="'ir_optimised'"):
        pipeline.StageValues(STAGES, {"ir": 1, "ir_optimised": 2})


def test_stage_declared_twice_is_an_error():
    with pytest.raises(ValueError, match="ir"):
        pipeline.StageValues((*STAGES, pipeline.Stage("ir", "txt")), {})


def test_dump_writes_text_bytes_file_copies_and_reprs(tmp_path):
    built = tmp_path / "built.so"
    built.write_bytes(b"\x7fELF...")
    values = pipeline.StageValues(
        STAGES,
        {"frontend": "def f(): ...", "ir": ("tree", 1), "cpp": b"int x;\n", "so": built},
    )
    out = tmp_path / "dump" / "nested"
    written = values.dump(out)
    assert [p.name for p in written] == ["frontend.py", "ir.ir", "cpp.cpp", "so.so"]
    assert (out / "frontend.py").read_text() == "def f(): ..."
    assert (out / "ir.ir").read_text() == repr(("tree", 1))
    assert (out / "cpp.cpp").read_bytes() == b"int x;\n"
    assert (out / "so.so").read_bytes() == b"\x7fELF..."
    assert not (out / "ir_optimized.ir").exists()
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in written)  # no temps


def test_deferred_values_are_made_once_on_first_read_and_dumped(tmp_path):
    made = []

    def make():
        made.append(1)
        return "lowered"

    values = pipeline.StageValues(STAGES, {"ir": pipeline.Deferred(make)})
    assert made == [] and list(values) == ["ir"]
    assert values["ir"] == "lowered" and values["ir"] == "lowered"
    assert made == [1]
    again = pipeline.StageValues(STAGES, {"ir": pipeline.Deferred(make)})
    (written,) = again.dump(tmp_path)
    assert written.read_text() == "lowered" and made == [1, 1]


def test_dump_render_chooses_contents_and_none_skips(tmp_path):
    values = pipeline.StageValues(STAGES, {"ir": 1, "cpp": "code"})

    def render(stage: pipeline.Stage, value: object) -> str | None:
        return None if stage.name == "ir" else f"// {stage.name}\n{value}"

    written = values.dump(tmp_path, render)
    assert written == [tmp_path / "cpp.cpp"]
    assert (tmp_path / "cpp.cpp").read_text() == "// cpp\ncode"


def test_dump_directory_is_the_dump_stages_setting(tmp_path, monkeypatch):
    monkeypatch.delenv("GT4PY_DUMP_STAGES", raising=False)
    assert pipeline.dump_directory() is None
    monkeypatch.setenv("GT4PY_DUMP_STAGES", str(tmp_path))
    assert pipeline.dump_directory() == tmp_path
    with config.overrides(dump_stages=tmp_path / "x"):
        assert pipeline.dump_directory() == tmp_path / "x"


# -- the dumps' trust (issue 44, item 5: the caches' checks, ADR 0026) -----------------------

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")


@posix_only
def test_dumps_are_private_whatever_the_umask(tmp_path):
    """Under umask 000 the dumps were world-writable directories and files."""
    root = tmp_path / "dumps"
    target = root / "program" / "gtfn_cpu" / "label"
    previous = os.umask(0)
    try:
        with config.overrides(dump_stages=root):
            written = pipeline.StageValues(STAGES, {"cpp": "code"}).dump(target)
    finally:
        os.umask(previous)
    for directory in (root, root / "program", root / "program" / "gtfn_cpu", target):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    assert [stat.S_IMODE(path.stat().st_mode) for path in written] == [0o600]


@posix_only
def test_a_dump_directory_others_can_write_is_refused(tmp_path):
    root = tmp_path / "dumps"
    shared = root / "program"
    shared.mkdir(parents=True)
    shared.chmod(0o777)  # as if another user had made it for everyone
    with config.overrides(dump_stages=root), pytest.raises(caching.CacheError) as error:
        pipeline.StageValues(STAGES, {"cpp": "code"}).dump(shared / "gtfn_cpu")
    assert str(shared) in str(error.value) and "every user can write it" in str(error.value)
    assert not (shared / "gtfn_cpu").exists()
    root.chmod(0o777)
    with config.overrides(dump_stages=root), pytest.raises(caching.CacheError, match="dumps"):
        pipeline.StageValues(STAGES, {"cpp": "code"}).dump(root / "other")


@posix_only
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root (chown)")
@pytest.mark.parametrize("where", ["root", "below"])
def test_a_symlink_another_user_planted_is_refused_not_followed(tmp_path, where):
    """Another user's symlink (at the dump root, or on the way below it) pointing at a
    directory of the victim's: the dumps are not written through it."""
    victim = tmp_path / "victims-files"
    victim.mkdir()
    root = tmp_path / "dumps"
    if where == "root":
        root.symlink_to(victim)
        link = root
    else:
        root.mkdir()
        link = root / "program"
        link.symlink_to(victim)
    os.lchown(link, 65534, 65534)  # nobody's now
    with config.overrides(dump_stages=root), pytest.raises(caching.CacheError) as error:
        pipeline.StageValues(STAGES, {"cpp": "code"}).dump(root / "program" / "gtfn_cpu")
    assert str(link) in str(error.value)
    assert list(victim.iterdir()) == []


# -- the compile log ---------------------------------------------------------------------------


def compile_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "gt4py.compile"]


def test_fast_compile_logs_one_info_line(caplog):
    caplog.set_level(logging.INFO, logger="gt4py.compile")
    with (
        config.overrides(compile_log_threshold_s=60.0),
        pipeline.CompileEvent(what="lap(a: Field[[I, J, K], float64])", target="gtfn_cpu") as e,
    ):
        e.note("translation cache", "hit")
        e.note("build", "miss")
    [record] = compile_records(caplog)
    assert record.levelno == logging.INFO
    message = record.getMessage()
    assert message.startswith("compiling lap(a: Field[[I, J, K], float64]) for gtfn_cpu … ")
    assert message.endswith(" s (translation cache hit, build miss)")
    assert e.seconds is not None and 0 <= e.seconds < 60


def test_slow_compile_logs_a_warning(caplog):
    caplog.set_level(logging.INFO, logger="gt4py.compile")
    with config.overrides(compile_log_threshold_s=0.0), pipeline.CompileEvent("f()", "gtfn_cpu"):
        pass
    [record] = compile_records(caplog)
    assert record.levelno == logging.WARNING


def test_threshold_comes_from_the_environment(caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="gt4py.compile")
    monkeypatch.setenv("GT4PY_COMPILE_LOG_THRESHOLD_S", "0")
    assert config.get("compile_log_threshold_s") == 0.0
    with pipeline.CompileEvent(what="f()", target="t"):
        pass
    assert [r.levelno for r in compile_records(caplog)] == [logging.WARNING]


def test_quiet_by_default_below_the_threshold(caplog):
    caplog.set_level(logging.WARNING)  # what Python shows without any logging set up
    with pipeline.CompileEvent(what="f()", target="t"):
        pass
    assert config.get("compile_log_threshold_s") == 1.0
    assert compile_records(caplog) == []


def test_failed_compile_logs_nothing(caplog):
    caplog.set_level(logging.DEBUG, logger="gt4py.compile")
    with pytest.raises(RuntimeError), pipeline.CompileEvent(what="f()", target="t") as event:
        raise RuntimeError("the compiler said no")
    assert compile_records(caplog) == []
    assert event.seconds is not None


def test_other_work_is_worded_by_its_verb(caplog):
    caplog.set_level(logging.INFO, logger="gt4py.compile")
    toolchain = pipeline.CompileEvent("the native toolchain (once per machine)", verb="setting up")
    with config.overrides(compile_log_threshold_s=60.0), toolchain:
        pass
    [record] = compile_records(caplog)
    assert record.getMessage().startswith("setting up the native toolchain (once per machine) … ")


def test_note_outcome_goes_to_the_innermost_event():
    pipeline.note_outcome("nowhere", "hit")  # no event: nothing happens
    with pipeline.CompileEvent("outer()", "t") as outer:
        pipeline.note_outcome("a", "hit")
        with pipeline.CompileEvent("inner()", "t") as inner:
            pipeline.note_outcome("b", "miss")
        pipeline.note_outcome("c", "hit")
    assert outer.notes == [("a", "hit"), ("c", "hit")]
    assert inner.notes == [("b", "miss")]


def test_repeated_notes_are_counted():
    with pipeline.CompileEvent("f()", "t") as event:
        for _ in range(3):
            pipeline.note_outcome("next/translation", "hit")
    assert event.message().endswith("(next/translation hit x3)")


def test_an_event_is_entered_once():
    event = pipeline.CompileEvent("f()", "t")
    with event:
        pass
    with pytest.raises(RuntimeError):
        event.__enter__()


def test_collect_outcomes_travel_back_and_are_replayed():
    def worker(results: list) -> None:  # e.g. a compilation worker building an artifact
        with pipeline.collect_outcomes() as notes:
            pipeline.note_outcome("build", "miss")
        results.append(notes)

    results: list = []
    with pipeline.CompileEvent("f()", "t") as event:
        with pipeline.collect_outcomes() as local:
            pipeline.note_outcome("local", "hit")
        thread = threading.Thread(target=worker, args=(results,))
        thread.start()
        thread.join()
        for part, outcome in results[0]:
            event.note(part, outcome)
    assert local == [("local", "hit")]
    assert event.notes == [("build", "miss")]


def test_caches_note_their_hits_and_misses(tmp_path):
    files = caching.FileCache("test/notes", root=tmp_path)
    dirs = caching.BuildDirCache("test/dirs", root=tmp_path)
    key = caching.CacheKey({"source": "s"})
    with pipeline.CompileEvent("f()", "t") as event:
        files.get_or_build(key, lambda: b"x")
        files.get_or_build(key, lambda: b"x")
        files.get_or_build_object(caching.CacheKey({"source": "o"}), lambda: {"a": 1})
        dirs.get_or_build(key, lambda path: (path / "f").write_text("x"))
        dirs.get_or_build(key, lambda path: (path / "f").write_text("x"))
    assert event.notes == [
        ("test/notes", "miss"),
        ("test/notes", "hit"),
        ("test/notes", "miss"),
        ("test/dirs", "miss"),
        ("test/dirs", "hit"),
    ]


def test_cache_hit_in_a_fresh_process_is_noted(tmp_path: pathlib.Path):
    key = caching.CacheKey({"source": "s"})
    caching.FileCache("test/notes", root=tmp_path).put(key, b"x")
    with pipeline.collect_outcomes() as notes:
        caching.FileCache("test/notes", root=tmp_path).get_or_build(key, lambda: b"y")
    assert notes == [("test/notes", "hit")]
