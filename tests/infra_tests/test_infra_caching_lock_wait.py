"""A waiter behind another builder says whom it waits for, and can give up (build_lock_timeout).

The other builder is a real process holding the build lock (running, or stopped with SIGSTOP
like a suspended job). A running holder beats (its record's mtime); the warning comes only
once a holder has shown no sign of life for clearly longer than a build there takes (60 s
when nobody knows); those tests stop the holder and run the wait on a fake clock.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from gt4py.infra import caching, config
from gt4py.infra.caching import _locking


KEY = caching.CacheKey({"source": "slow"})

HOLDER = textwrap.dedent(
    """\
    import sys, time
    from gt4py.infra import caching
    from gt4py.infra.caching import _locking
    _locking.HEARTBEAT_S = 0.05  # alive, and visibly so within the tests' short thresholds
    cache = caching.FileCache("ns", root=sys.argv[1])
    def build():
        print("building", flush=True)
        time.sleep(float(sys.argv[2]))
        return b"theirs"
    cache.get_or_build(caching.CacheKey({"source": "slow"}), build)
    """
)


@pytest.fixture
def holder(tmp_path, request) -> Iterator[subprocess.Popen]:
    seconds = getattr(request, "param", 60.0)
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "building"
    yield process
    process.send_signal(signal.SIGCONT)
    process.kill()
    process.wait(timeout=30)


def test_timeout_raises_naming_the_holder(tmp_path, holder):
    with (
        config.overrides(build_lock_timeout=0.3),
        pytest.raises(caching.CacheError, match="GT4PY_BUILD_LOCK_TIMEOUT") as info,
    ):
        caching.FileCache("ns", root=tmp_path).get_or_build(KEY, lambda: b"ours")
    message = str(info.value)
    assert f"process {holder.pid} on host {socket.gethostname()}" in message
    assert KEY.digest[:8] in message
    assert str(tmp_path) in message


def test_a_stopped_builder_is_reported_once_then_given_up_on(tmp_path, holder, monkeypatch, caplog):
    os.kill(holder.pid, signal.SIGSTOP)
    monkeypatch.setattr(_locking, "REPORT_AFTER_S", 0.2)
    with (
        caplog.at_level(logging.WARNING, logger="gt4py.infra.caching"),
        config.overrides(build_lock_timeout=1.0),
        pytest.raises(caching.CacheError, match=f"process {holder.pid}"),
    ):
        caching.FileCache("ns", root=tmp_path).get_or_build(KEY, lambda: b"ours")
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert f"process {holder.pid} on host" in warnings[0].getMessage()
    assert "GT4PY_BUILD_LOCK_TIMEOUT" in warnings[0].getMessage()


@pytest.mark.parametrize("holder", [1.5], indirect=True)
def test_without_timeout_the_waiter_reports_and_gets_the_entry(
    tmp_path, holder, monkeypatch, caplog
):
    monkeypatch.setattr(_locking, "REPORT_AFTER_S", 0.2)
    with caplog.at_level(logging.INFO, logger="gt4py.infra.caching"):
        value = caching.FileCache("ns", root=tmp_path).get_or_build(KEY, lambda: b"ours")
    assert value == b"theirs"
    # A live holder (it beats) building for longer than the threshold: no warning, one INFO.
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    (waiting,) = [r for r in caplog.records if "being built by" in r.getMessage()]
    assert waiting.levelno == logging.INFO
    assert f"process {holder.pid} on host" in waiting.getMessage()
    assert holder.wait(timeout=30) == 0
    locks = tmp_path / "ns" / "_locks"
    assert not list(locks.glob("*.holder"))  # the record goes with the lock


def test_a_killed_holder_leaves_a_record_that_clean_removes(tmp_path, holder):
    holder.kill()
    holder.wait(timeout=30)
    locks = tmp_path / "ns" / "_locks"
    assert list(locks.glob("*.holder"))
    assert caching.FileCache("ns", root=tmp_path).get_or_build(KEY, lambda: b"ours") == b"ours"
    assert not list(locks.glob("*.holder"))
    (locks / f"{KEY.digest}.holder").write_text("{}")  # as if killed again
    from gt4py.infra.caching._inventory import clean

    clean(tmp_path, older_than=3600)
    assert not list(locks.glob("*.holder"))


class FakeClock:
    """``_locking._now``: each reading is ``step`` seconds after the previous one."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def wait_with_fake_clock(tmp_path, holder, monkeypatch, caplog, timeout: float) -> str:
    """Wait for the stopped holder on a fast fake clock until ``timeout``; the one warning."""
    os.kill(holder.pid, signal.SIGSTOP)  # no heartbeat: silent (the fixture resumes it)
    monkeypatch.setattr(_locking, "_now", FakeClock(2.0))
    monkeypatch.setattr(_locking, "_RECHECK_S", 0.01)
    with (
        caplog.at_level(logging.WARNING, logger="gt4py.infra.caching"),
        config.overrides(build_lock_timeout=timeout),
        pytest.raises(caching.CacheError, match="gave up after waiting"),
    ):
        caching.FileCache("ns", root=tmp_path).get_or_build(KEY, lambda: b"ours")
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    return warning


def waited_in(warning: str) -> float:
    found = re.search(r"still waiting after (\d+) s", warning)
    assert found is not None, warning
    return float(found[1])


def test_the_warning_comes_after_60_s_when_build_times_are_unknown(
    tmp_path, holder, monkeypatch, caplog
):
    # An ordinary 10 s build does not look like a hung builder any more (it warned after 5 s).
    warning = wait_with_fake_clock(tmp_path, holder, monkeypatch, caplog, timeout=90.0)
    assert _locking.REPORT_AFTER_S == 60.0
    assert 60 <= waited_in(warning) <= 64
    assert "warned after 60 s: nothing is known about build times there" in warning
    assert f"process {holder.pid} on host {socket.gethostname()}" in warning
    assert KEY.digest[:8] in warning


@pytest.mark.parametrize(("expected_s", "after"), [(30.0, 90.0), (2.0, 10.0)])
def test_the_warning_follows_the_holders_build_time(
    tmp_path, holder, monkeypatch, caplog, expected_s, after
):
    # As if the holder had built in this namespace before, taking up to expected_s.
    lock = tmp_path / "ns" / "_locks" / f"{KEY.digest}.lock"
    record = json.loads(_locking.holder_path(lock).read_text())
    assert record["pid"] == holder.pid and "expected_s" not in record  # its first build
    record["expected_s"] = expected_s
    _locking.holder_path(lock).write_text(json.dumps(record))
    warning = wait_with_fake_clock(tmp_path, holder, monkeypatch, caplog, timeout=after + 20)
    assert after <= waited_in(warning) <= after + 4
    assert f"warned after {after:.0f} s: builds there took up to {expected_s:.1f} s" in warning
