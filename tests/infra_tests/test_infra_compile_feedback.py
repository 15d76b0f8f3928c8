"""Compile feedback (issue 30.7): a real build says when it starts, cache messages name what an
entry is built for, and waiting behind a live builder is no warning.

- A native build that misses logs a start line on ``gt4py.compile`` (a hit logs none); the
  compiler itself is faked here: the line is about the cache's decision, not about C++.
- ``caching.build_label`` (or ``label=``) names the program in miss diagnostics and lock waits.
- A waiter behind a live holder (a real process, beating) logs one INFO line and no warning;
  behind a stopped one (SIGSTOP) it warns once.
"""

from __future__ import annotations

import importlib.machinery
import logging
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator

import pytest

from gt4py.infra import caching, config, native
from gt4py.infra.caching import _locking
from gt4py.infra.native import _build, _start_log


SOURCE = {"m.cpp": "int f() { return 1; }\n"}


@pytest.fixture
def fake_compiler(monkeypatch) -> list[str]:
    """``build_extension`` with the toolchain and the compiler faked: builds write the
    extension file only; returns the names built."""
    built: list[str] = []

    def build_module(toolchain, module, options, *, cuda, ninja, build_dir, key):
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        (pathlib.Path(build_dir) / f"{module.name}{suffix}").write_bytes(b"not really a module")
        built.append(module.name)

    monkeypatch.setattr(_build, "ensure_toolchain", lambda spec: None)
    monkeypatch.setattr(_build, "build_module", build_module)
    return built


def start_lines(caplog) -> list[logging.LogRecord]:
    return [
        r for r in caplog.records if r.name == "gt4py.compile" and "… started" in r.getMessage()
    ]


def test_a_build_logs_its_start_on_a_miss_and_not_on_a_hit(cache_dir, fake_compiler, caplog):
    with (
        caplog.at_level(logging.INFO, logger="gt4py.compile"),
        caching.build_label("lap(a: Field[[I, J, K], float64]) for gtfn_cpu"),
    ):
        native.build_extension("m", SOURCE)
        (line,) = start_lines(caplog)
        caplog.clear()
        native.build_extension("m", SOURCE)  # a hit: no start line
        assert start_lines(caplog) == []
    assert fake_compiler == ["m"]
    message = line.getMessage()
    assert message.startswith("compiling lap(a: Field[[I, J, K], float64]) for gtfn_cpu … started")
    assert "C++ build of native module 'm', a cache miss" in message


def test_the_start_line_names_the_module_without_a_label(cache_dir, fake_compiler, caplog):
    with caplog.at_level(logging.INFO, logger="gt4py.compile"):
        native.build_extension("m", SOURCE)
    (line,) = start_lines(caplog)
    assert line.getMessage() == "compiling native module 'm' … started (C++ build, a cache miss)"


def test_the_start_line_follows_the_end_lines_level_policy(monkeypatch):
    # Unknown (a first build: C++ is slow) or slower than the threshold: WARNING, else INFO.
    monkeypatch.setattr(_start_log, "_durations", {})
    assert _start_log.start_level("kind") == logging.WARNING
    with _start_log.logged_start("kind", "quick"):
        pass
    assert _start_log.start_level("kind") == logging.INFO
    with config.overrides(compile_log_threshold_s=0.0):
        assert _start_log.start_level("kind") == logging.WARNING


def test_a_label_names_the_program_in_miss_diagnostics(cache_dir, caplog):
    key = caching.CacheKey({"source": "labelled"})
    cache = caching.FileCache("ns")
    with (
        config.overrides(cache_diagnostics=True),
        caplog.at_level(logging.INFO, logger="gt4py.infra.caching"),
    ):
        cache.get_or_build(key, lambda: b"x", label="lap for gtfn_cpu")
        with caching.build_label("stencil copy for numpy"):
            caching.BuildDirCache("dirs").get_or_build(key, lambda d: None)
        caching.FileCache("plain").get_or_build(key, lambda: b"y")  # no label: as before
    misses = [r.getMessage() for r in caplog.records if "cache miss" in r.getMessage()]
    assert misses == [
        f"cache miss in 'ns' for entry {key.digest[:8]} (lap for gtfn_cpu): first build",
        f"cache miss in 'dirs' for entry {key.digest[:8]} (stencil copy for numpy): first build",
        f"cache miss in 'plain' for entry {key.digest[:8]}: first build",
    ]


def test_an_explicit_label_holds_inside_the_build_too(cache_dir):
    seen = []

    def build() -> bytes:
        seen.append(caching.current_build_label())
        return b"x"

    with caching.build_label("outer"):
        caching.FileCache("ns").get_or_build(caching.CacheKey({"a": "1"}), build, label="inner")
        assert caching.current_build_label() == "outer"
    assert seen == ["inner"]
    assert caching.current_build_label() is None


# -- waiting for another builder --------------------------------------------------------------

KEY = caching.CacheKey({"source": "slow"})

HOLDER = textwrap.dedent(
    """\
    import sys, time
    from gt4py.infra import caching
    from gt4py.infra.caching import _locking
    _locking.HEARTBEAT_S = 0.05
    def build():
        print("building", flush=True)
        time.sleep(float(sys.argv[2]))
        return b"theirs"
    with caching.build_label("program lap on gtfn_cpu"):
        caching.FileCache("ns", root=sys.argv[1]).get_or_build(
            caching.CacheKey({"source": "slow"}), build
        )
    """
)


def start_holder(root: pathlib.Path, seconds: float) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "building"
    return process


@pytest.fixture
def short_thresholds(monkeypatch) -> None:
    monkeypatch.setattr(_locking, "REPORT_AFTER_S", 0.5)
    monkeypatch.setattr(_locking, "_RECHECK_S", 0.05)


def test_no_warning_while_a_live_process_builds(tmp_path, short_thresholds, caplog):
    holder = start_holder(tmp_path, 2.0)  # four times the threshold, beating all along
    try:
        with (
            caplog.at_level(logging.INFO, logger="gt4py.infra.caching"),
            caching.build_label("program lap on gtfn_cpu"),
        ):
            value = caching.FileCache("ns", root=tmp_path).get_or_build(KEY, lambda: b"ours")
        assert value == b"theirs"
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    (waiting,) = [r for r in caplog.records if "being built by" in r.getMessage()]
    assert waiting.levelno == logging.INFO
    message = waiting.getMessage()
    assert message.startswith(
        f"waiting for entry {KEY.digest[:8]} of cache 'ns' (program lap on gtfn_cpu) being "
        f"built by process {holder.pid} on host"
    )


def test_no_warning_while_a_live_thread_builds(tmp_path, short_thresholds, monkeypatch, caplog):
    monkeypatch.setattr(_locking, "HEARTBEAT_S", 0.05)
    cache = caching.FileCache("ns", root=tmp_path)
    building = threading.Event()

    def slow() -> bytes:
        building.set()
        time.sleep(1.5)
        return b"theirs"

    holder = threading.Thread(target=lambda: cache.get_or_build(KEY, slow))
    holder.start()
    assert building.wait(timeout=30)
    with caplog.at_level(logging.INFO, logger="gt4py.infra.caching"):
        value = cache.get_or_build(KEY, lambda: b"ours")
    holder.join(timeout=30)
    assert value == b"theirs"
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert [r for r in caplog.records if f"by process {os.getpid()}" in r.getMessage()]


def test_a_stopped_holder_is_warned_about(tmp_path, short_thresholds, caplog):
    holder = start_holder(tmp_path, 60.0)
    try:
        os.kill(holder.pid, signal.SIGSTOP)  # its heartbeat stops with it
        with (
            caplog.at_level(logging.INFO, logger="gt4py.infra.caching"),
            config.overrides(build_lock_timeout=3.0),
            pytest.raises(caching.CacheError, match=f"process {holder.pid}"),
        ):
            caching.FileCache("ns", root=tmp_path).get_or_build(KEY, lambda: b"ours")
    finally:
        os.kill(holder.pid, signal.SIGCONT)
        holder.kill()
        holder.wait(timeout=30)
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "A stopped or hung builder?" in warning
    assert "has shown no sign of life for" in warning
    assert f"process {holder.pid} on host" in warning


@pytest.fixture
def no_heartbeat_thread_left() -> Iterator[None]:
    yield
    assert not [t for t in threading.enumerate() if t.name.startswith("gt4py-lock-heartbeat")]


def test_the_heartbeat_stops_with_the_lock(tmp_path, no_heartbeat_thread_left):
    caching.FileCache("ns", root=tmp_path).get_or_build(KEY, lambda: b"x")
