"""``python -m gt4py.infra.cache info|clean``."""

from __future__ import annotations

import io
import os
import pathlib
import subprocess
import sys
import time

import pytest

from gt4py.infra import caching, config
from gt4py.infra.caching._cli import human_size, main, parse_duration


DAY = 86400.0


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def age(path: pathlib.Path, seconds: float) -> None:
    """Pretend ``path`` was last read and written ``seconds`` ago."""
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)


@pytest.fixture
def populated(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "cache"
    translation = caching.FileCache("next/translation", root=root)
    translation.put(caching.CacheKey({"source": "s1", "options": "o"}), b"x" * 1000)
    translation.put(caching.CacheKey({"source": "s2", "options": "o"}), b"y" * 2048)
    stencils = caching.FileCache("cartesian/stencils", root=root)
    stencils.put(caching.CacheKey({"stencil": "copy"}), b"z" * (3 << 20))
    modules = caching.BuildDirCache("native/modules", root=root)
    modules.get_or_build(
        caching.CacheKey({"sources": "a", "compiler": "g++"}),
        lambda path: (path / "module.so").write_bytes(b"\0" * 5000),
    )
    return root


def namespace_rows(output: str) -> dict[str, tuple[int, str]]:
    rows = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[1].isdigit():
            rows[fields[0]] = (int(fields[1]), " ".join(fields[2:]))
    return rows


def test_info_lists_namespaces_with_counts_and_sizes(populated):
    code, output = run("info", "--root", str(populated))
    assert code == 0
    assert output.splitlines()[0] == f"cache root: {populated} (--root)"
    rows = namespace_rows(output)
    assert rows["next/translation"][0] == 2
    assert rows["cartesian/stencils"] == (1, "3.0 MiB")
    assert rows["native/modules"][0] == 1
    assert rows["native/modules"][1].endswith("KiB")
    assert rows["total"][0] == 4
    assert "source=" not in output  # entries only with --verbose


def test_info_verbose_lists_entries_with_key_parts_and_age(populated):
    old = caching.CacheKey({"stencil": "copy"})
    age(populated / "cartesian" / "stencils" / "_files" / old.digest, 3 * DAY)
    code, output = run("info", "--verbose", "--root", str(populated))
    assert code == 0
    (line,) = [line for line in output.splitlines() if line.strip().startswith(old.digest[:8])]
    assert "stencil=copy" in line
    assert "3.0d ago" in line
    assert "3.0 MiB" in line
    assert "compiler=g++ sources=a" in output
    assert "options=o source=s1" in output


def test_info_flags_corrupt_entries_and_leftovers_in_verbose_mode(populated):
    files = populated / "next" / "translation" / "_files"
    victim = caching.CacheKey({"source": "s1", "options": "o"}).digest
    (files / victim).write_bytes(b"garbage")
    (files / f".tmp-{victim}-1-abcd").write_bytes(b"half a write")
    code, output = run("info", "-v", "--root", str(populated))
    assert code == 0
    assert "key parts unreadable" in output
    assert "1 temp/trash item(s)" in output


def test_info_on_missing_and_empty_roots(tmp_path):
    assert run("info", "--root", str(tmp_path / "nope"))[1].splitlines()[1].strip() == (
        "(does not exist yet: nothing cached)"
    )
    assert "(no cache namespaces)" in run("info", "--root", str(tmp_path))[1]


def test_info_defaults_to_the_configured_directory(populated):
    with config.overrides(build_cache_dir=populated):
        code, output = run("info")
    assert code == 0
    assert output.startswith(f"cache root: {populated} (build_cache_dir, from overrides()")
    assert namespace_rows(output)["total"][0] == 4


def test_clean_removes_everything_the_caches_made_and_nothing_else(populated):
    unrelated = populated / "notes.txt"
    unrelated.write_text("mine")
    (populated / "project").mkdir()
    (populated / "project" / "data.bin").write_bytes(b"keep")
    code, output = run("clean", "--root", str(populated))
    assert code == 0
    assert output.startswith("removed 4 entries")
    assert namespace_rows(run("info", "--root", str(populated))[1]) == {}
    assert sorted(p.name for p in populated.iterdir()) == ["notes.txt", "project"]
    assert (populated / "project" / "data.bin").read_bytes() == b"keep"
    # The caches work again afterwards.
    cache = caching.FileCache("next/translation", root=populated)
    assert cache.get_or_build(caching.CacheKey({"source": "s1"}), lambda: b"new") == b"new"


def test_clean_one_namespace(populated):
    code, output = run("clean", "--namespace", "next/translation", "--root", str(populated))
    assert code == 0
    assert output.startswith("removed 2 entries")
    assert "namespace 'next/translation'" in output
    rows = namespace_rows(run("info", "--root", str(populated))[1])
    assert "next/translation" not in rows
    assert rows["cartesian/stencils"][0] == 1
    assert rows["native/modules"][0] == 1


def test_clean_a_namespace_prefix(populated):
    caching.FileCache("next/translation/v2", root=populated).put(
        caching.CacheKey({"source": "s"}), b"nested"
    )
    caching.FileCache("nextgen", root=populated).put(caching.CacheKey({"source": "s"}), b"kept")
    code, output = run("clean", "--namespace", "next", "--root", str(populated))
    assert code == 0
    assert output.startswith("removed 3 entries")
    rows = namespace_rows(run("info", "--root", str(populated))[1])
    assert sorted(rows) == ["cartesian/stencils", "native/modules", "nextgen", "total"]


def test_clean_unknown_namespace_says_so(populated):
    code, output = run("clean", "--namespace", "next/nothing", "--root", str(populated))
    assert code == 0
    assert "no cache namespace 'next/nothing'" in output
    assert namespace_rows(run("info", "--root", str(populated))[1])["total"][0] == 4


def test_clean_older_than_trims_by_last_use(populated):
    translation = populated / "next" / "translation" / "_files"
    stale = caching.CacheKey({"source": "s1", "options": "o"})
    age(translation / stale.digest, 8 * DAY)
    modules = populated / "native" / "modules" / "_dirs"
    (module_entry,) = modules.iterdir()
    age(module_entry / ".gt4py-cache-manifest.json", 10 * DAY)
    # A temp file of an abandoned write, and one of a write in progress.
    (translation / ".tmp-abandoned-1-aaaa").write_bytes(b"half")
    age(translation / ".tmp-abandoned-1-aaaa", 9 * DAY)
    (translation / ".tmp-in-progress-2-bbbb").write_bytes(b"half")

    code, output = run("clean", "--older-than", "7d", "--root", str(populated))
    assert code == 0
    assert output.splitlines()[0].startswith("removed 2 entries unused for more than 7.0d")
    assert "removed 1 leftover temp/trash item(s)" in output
    remaining = sorted(p.name for p in translation.iterdir())
    assert remaining == [
        ".tmp-in-progress-2-bbbb",
        caching.CacheKey({"source": "s2", "options": "o"}).digest,
    ]
    assert not modules.exists() or list(modules.iterdir()) == []
    rows = namespace_rows(run("info", "--root", str(populated))[1])
    assert rows["total"][0] == 2
    # Nothing else is that old.
    assert run("clean", "--older-than", "1h", "--root", str(populated))[1].startswith(
        "removed 0 entries"
    )


def test_clean_removes_locks_nobody_holds_but_keeps_held_ones(populated):
    import filelock

    locks = populated / "next" / "translation" / "_locks"
    held_key = caching.CacheKey({"source": "held"})
    caching.FileCache("next/translation", root=populated).get_or_build(held_key, lambda: b"")
    held = filelock.FileLock(locks / f"{held_key.digest}.lock")
    with held:
        assert run("clean", "--namespace", "next/translation", "--root", str(populated))[0] == 0
        assert [p.name for p in locks.iterdir()] == [f"{held_key.digest}.lock"]
    assert run("clean", "--root", str(populated))[0] == 0
    assert not locks.exists()


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", 90.0),
        ("90s", 90.0),
        ("15m", 900.0),
        ("12h", 43200.0),
        ("7d", 7 * DAY),
        ("1.5h", 5400.0),
    ],
)
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["7w", "-1d", "d", "", "seven days", "1e3s"])
def test_bad_durations_are_rejected(bad, capsys):
    with pytest.raises(SystemExit) as info:
        main(["clean", f"--older-than={bad}", "--root", "/nonexistent"])
    assert info.value.code == 2
    assert f"invalid age {bad!r}" in capsys.readouterr().err


def test_bad_namespace_is_rejected(capsys):
    with pytest.raises(SystemExit):
        main(["clean", "--namespace", "../etc", "--root", "/nonexistent"])
    assert "invalid cache namespace" in capsys.readouterr().err


def test_human_sizes():
    assert human_size(0) == "0 B"
    assert human_size(1023) == "1023 B"
    assert human_size(1536) == "1.5 KiB"
    assert human_size(3 << 30) == "3.0 GiB"


def test_module_entry_point(populated):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    env["GT4PY_BUILD_CACHE_DIR"] = str(populated)
    result = subprocess.run(
        [sys.executable, "-m", "gt4py.infra.cache", "info"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"cache root: {populated} (build_cache_dir, from env")
    assert namespace_rows(result.stdout)["total"][0] == 4


def test_listing_and_diagnostics_do_not_count_as_use(populated, caplog):
    # Reading key parts for `info -v` or for a miss explanation must not refresh access
    # times, or `clean --older-than` could never trim anything.
    import logging

    stale_file = populated / "cartesian" / "stencils" / "_files"
    stale_file = stale_file / caching.CacheKey({"stencil": "copy"}).digest
    (module_entry,) = (populated / "native" / "modules" / "_dirs").iterdir()
    manifest = module_entry / ".gt4py-cache-manifest.json"
    for path in (stale_file, manifest):
        age(path, 30 * DAY)
    assert run("info", "-v", "--root", str(populated))[0] == 0
    caplog.set_level(logging.DEBUG, logger="gt4py.infra.caching")
    caching.FileCache("cartesian/stencils", root=populated).get(caching.CacheKey({"stencil": "x"}))
    caching.BuildDirCache("native/modules", root=populated).get(caching.CacheKey({"sources": "b"}))
    assert "nearest previous entry" in caplog.text  # the scans did read both entries
    code, output = run("clean", "--older-than", "29d", "--root", str(populated))
    assert code == 0
    assert output.startswith("removed 2 entries")
    assert not stale_file.exists()
    assert not module_entry.exists()


def test_info_under_session_lifetime_explains_what_it_shows(populated):
    with config.overrides(build_cache_dir=populated, build_cache_lifetime="session"):
        code, output = run("info")
    assert code == 0
    assert "lifetime 'session'" in output.splitlines()[1]
    assert namespace_rows(output)["total"][0] == 4
