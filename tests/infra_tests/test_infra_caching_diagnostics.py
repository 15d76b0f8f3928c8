"""Cache diagnostics: one line per miss saying why."""

from __future__ import annotations

import logging
import os
import pathlib
import subprocess
import sys

import pytest

from gt4py.infra import caching, config


LOGGER = "gt4py.infra.caching"


def key(**parts: str) -> caching.CacheKey:
    return caching.CacheKey(parts)


def miss_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    caplog.clear()
    return [line for line in lines if "cache miss" in line]


@pytest.fixture
def debug_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    return caplog


def test_first_build_changed_part_and_hit(tmp_path, debug_log):
    cache = caching.FileCache("next/translation", root=tmp_path)
    first = key(source="s1", options="o1", compiler="c1")
    cache.get_or_build(first, lambda: b"1")
    (line,) = miss_lines(debug_log)
    assert line == f"cache miss in 'next/translation' for entry {first.digest[:8]}: first build"

    cache.get_or_build(first, lambda: b"unused")
    assert miss_lines(debug_log) == []  # a hit says nothing

    second = key(source="s2", options="o1", compiler="c1")
    cache.get_or_build(second, lambda: b"2")
    (line,) = miss_lines(debug_log)
    assert line.endswith(f"key part 'source' changed (nearest previous entry {first.digest[:8]})")


def test_nearest_previous_entry_shares_most_parts_and_all_differences_are_listed(
    tmp_path, debug_log
):
    cache = caching.FileCache("ns", root=tmp_path)
    far = key(source="a", options="a", compiler="a", device="a")
    near = key(source="b", options="b", compiler="x", device="x")
    for k in (far, near):
        cache.put(k, b"")
    debug_log.clear()
    wanted = key(source="c", options="c", compiler="x", device="x")
    cache.get_or_build(wanted, lambda: b"")
    (line,) = miss_lines(debug_log)
    assert line.endswith(
        f"key parts 'options', 'source' changed (nearest previous entry {near.digest[:8]})"
    )


def test_added_and_removed_parts_count_as_changed(tmp_path, debug_log):
    cache = caching.FileCache("ns", root=tmp_path)
    old = key(source="s", legacy="l")
    cache.put(old, b"")
    debug_log.clear()
    assert cache.get(key(source="s", device="cpu")) is None
    (line,) = miss_lines(debug_log)
    assert line.endswith(
        f"key parts 'device', 'legacy' changed (nearest previous entry {old.digest[:8]})"
    )


def test_corrupt_entry_line_names_the_reason(tmp_path, debug_log):
    cache = caching.FileCache("ns", root=tmp_path)
    k = key(source="s")
    cache.put(k, b"x" * 1000)
    path = tmp_path / "ns" / "_files" / k.digest
    path.write_bytes(path.read_bytes()[:500])
    debug_log.clear()
    assert cache.get_or_build(k, lambda: b"fresh") == b"fresh"
    (line,) = miss_lines(debug_log)
    # 64-byte header + '{"source":"s"}' + payload
    assert line.endswith("entry corrupt, rebuilt (truncated: 500 bytes, expected 1078)")

    path.write_bytes(b"garbage" * 10)
    assert cache.get_or_build(k, lambda: b"again") == b"again"
    (line,) = miss_lines(debug_log)
    assert "entry corrupt, rebuilt (not a gt4py cache entry (bad magic))" in line


def test_build_dir_cache_lines(tmp_path, debug_log):
    cache = caching.BuildDirCache("native/modules", root=tmp_path)
    first = key(sources="a", flags="-O2")
    cache.get_or_build(first, lambda p: (p / "x").write_text("a"))
    assert miss_lines(debug_log)[0].endswith("first build")
    second = key(sources="a", flags="-O3")
    entry = cache.get_or_build(second, lambda p: (p / "x").write_text("b"))
    (line,) = miss_lines(debug_log)
    assert line.endswith(f"key part 'flags' changed (nearest previous entry {first.digest[:8]})")
    (entry / "x").write_text("tampered")
    cache.get_or_build(second, lambda p: (p / "x").write_text("b"))
    (line,) = miss_lines(debug_log)
    assert line.endswith("entry corrupt, rebuilt (x has 8 bytes, expected 1)")


def test_one_line_per_miss_even_under_contention(tmp_path, debug_log):
    cache = caching.FileCache("ns", root=tmp_path)
    for i in range(5):
        cache.get_or_build(key(n=str(i)), lambda: b"")
        assert len(miss_lines(debug_log)) == 1


def test_silent_unless_asked(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)  # INFO is not enough without the setting
    with config.overrides(cache_diagnostics=False):
        caching.FileCache("ns", root=tmp_path).get_or_build(key(a="1"), lambda: b"")
    assert miss_lines(caplog) == []


def test_setting_reports_at_info_whatever_the_logger_level(tmp_path, caplog):
    # The logger is at its default (WARNING effective): the setting alone turns lines on.
    assert not logging.getLogger(LOGGER).isEnabledFor(logging.INFO)
    with config.overrides(cache_diagnostics=True):
        caching.FileCache("ns", root=tmp_path).get_or_build(key(a="1"), lambda: b"")
    records = [r for r in caplog.records if r.name == LOGGER]
    assert [r.levelno for r in records] == [logging.INFO]
    assert records[0].getMessage().endswith("first build")


def test_explicitly_silenced_logger_wins_over_the_setting(tmp_path, caplog):
    logger = logging.getLogger(LOGGER)
    logger.setLevel(logging.ERROR)
    try:
        with config.overrides(cache_diagnostics=True):
            caching.FileCache("ns", root=tmp_path).get_or_build(key(a="1"), lambda: b"")
    finally:
        logger.setLevel(logging.NOTSET)
    assert miss_lines(caplog) == []


_SCRIPT = """
import sys
from gt4py.infra import caching
cache = caching.FileCache("ns", root=sys.argv[1])
cache.get_or_build(caching.CacheKey({"source": "s1"}), lambda: b"1")
cache.get_or_build(caching.CacheKey({"source": "s1"}), lambda: b"1")
cache.get_or_build(caching.CacheKey({"source": "s2"}), lambda: b"2")
"""


def test_environment_variable_reaches_stderr_without_logging_configured(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    env["GT4PY_CACHE_DIAGNOSTICS"] = "1"
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    lines = result.stderr.splitlines()
    first = caching.CacheKey({"source": "s1"}).digest[:8]
    assert lines == [
        f"gt4py.infra.caching: cache miss in 'ns' for entry {first}: first build",
        "gt4py.infra.caching: cache miss in 'ns' for entry "
        f"{caching.CacheKey({'source': 's2'}).digest[:8]}: key part 'source' changed "
        f"(nearest previous entry {first})",
    ]
    assert result.stdout == ""


def test_no_stderr_output_by_default(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(pathlib.Path(tmp_path))],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    assert result.stderr == ""


def test_impossible_root_reads_as_absent_not_corrupt(tmp_path, debug_log):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert caching.FileCache("ns", root=blocker).get(key(a="1")) is None
    assert caching.BuildDirCache("ns", root=blocker).get(key(a="1")) is None
    assert [line.split(": ", 1)[1] for line in miss_lines(debug_log)] == ["first build"] * 2
