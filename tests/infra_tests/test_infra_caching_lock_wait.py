"""A waiter behind another builder says whom it waits for, and can give up (build_lock_timeout).

The other builder is a real process holding the build lock (running, or stopped with SIGSTOP
like a suspended job).
"""

from __future__ import annotations

import logging
import os
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
    with caplog.at_level(logging.WARNING, logger="gt4py.infra.caching"):
        value = caching.FileCache("ns", root=tmp_path).get_or_build(KEY, lambda: b"ours")
    assert value == b"theirs"
    assert len([r for r in caplog.records if "still waiting" in r.getMessage()]) == 1
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
