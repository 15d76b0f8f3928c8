"""``python -m gt4py.infra.cache info|clean``: show what the cache holds and trim it."""

from __future__ import annotations

import argparse
import pathlib
import re
import sys
import time
from collections.abc import Sequence
from typing import Final, TextIO

from ._errors import CacheError
from ._inventory import STALE_TEMP_AGE, clean, find_namespaces, inspect_namespace
from ._layout import validate_namespace


_DURATION: Final = re.compile(r"\s*(\d+(?:\.\d*)?)\s*([smhd]?)\s*")
_SECONDS_PER_UNIT: Final = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str) -> float:
    """Seconds in ``text`` such as ``"90s"``, ``"15m"``, ``"12h"``, ``"7d"`` (bare: seconds)."""
    match = _DURATION.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"invalid age {text!r}: use a number with an optional unit s, m, h or d (e.g. 7d)"
        )
    return float(match[1]) * _SECONDS_PER_UNIT[match[2]]


def _namespace_argument(text: str) -> str:
    try:
        return validate_namespace(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def human_size(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def human_age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    for unit, length in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= length:
            return f"{seconds / length:.1f}{unit}"
    return f"{seconds:.0f}s"


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out
    parser = _parser()
    arguments = parser.parse_args(argv)
    root, origin = _root(arguments.root)
    try:
        if arguments.command == "info":
            _info(root, origin, verbose=arguments.verbose, out=out)
        else:
            roots = [root] if origin == "--root" else [root, *_overlay()]
            for each in roots:
                _clean(each, arguments.namespace, arguments.older_than, out=out)
            if arguments.namespace is None:
                _remove_dead_sessions(out)
    except CacheError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--root",
        type=pathlib.Path,
        help="the cache root (default: the build_cache_dir setting, GT4PY_BUILD_CACHE_DIR)",
    )
    parser = argparse.ArgumentParser(
        prog="python -m gt4py.infra.cache",
        description="Show what gt4py's build cache holds, and trim it.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="{info,clean}")
    info = commands.add_parser(
        "info", parents=[common], help="list namespaces with entry counts and sizes"
    )
    info.add_argument(
        "-v", "--verbose", action="store_true", help="list every entry with key parts and age"
    )
    clean_parser = commands.add_parser(
        "clean",
        parents=[common],
        help="remove cache entries (all, one namespace, or those unused for a while)",
        description=(
            "Remove cache entries. Safe while other processes use the cache: each entry is "
            "renamed away before it is deleted. Temp files of builds in progress are kept "
            f"unless older than --older-than (default {STALE_TEMP_AGE / 3600:.0f}h). Also "
            "cleans the overlay directory (GT4PY_BUILD_CACHE_OVERLAY) unless --root is given, "
            "and, unless --namespace is given, removes the session caches of processes that "
            "ended without removing them (killed with SIGKILL, crashed)."
        ),
    )
    clean_parser.add_argument(
        "--namespace",
        type=_namespace_argument,
        help="only this namespace and those nested in it, e.g. next/translation or next",
    )
    clean_parser.add_argument(
        "--older-than",
        type=parse_duration,
        metavar="AGE",
        help="only entries not used (read or written) for AGE, e.g. 90s, 30m, 12h, 7d",
    )
    return parser


def _root(explicit: pathlib.Path | None) -> tuple[pathlib.Path, str]:
    if explicit is not None:
        return explicit.expanduser(), "--root"
    from gt4py.infra import config

    # The persistent directory, also under lifetime "session": a session's caches are
    # private temporary directories that vanish with their process.
    resolved = config.BUILD_CACHE_DIR.resolve()
    return pathlib.Path(resolved.value), f"build_cache_dir, from {resolved.source}"


def _overlay() -> list[pathlib.Path]:
    from gt4py.infra import config

    overlay = config.BUILD_CACHE_OVERLAY.get()
    return [] if overlay is None else [pathlib.Path(overlay)]


def _remove_dead_sessions(out: TextIO) -> None:
    from gt4py.infra.config._session_dirs import remove_dead_sessions

    removed = remove_dead_sessions()
    if removed:
        print(
            f"removed {len(removed)} session cache(s) of processes that ended without removing "
            f"them: {', '.join(map(str, removed))}",
            file=out,
        )


def _lifetime() -> str:
    from gt4py.infra import config

    return config.BUILD_CACHE_LIFETIME.get()


def _info(root: pathlib.Path, origin: str, *, verbose: bool, out: TextIO) -> None:
    print(f"cache root: {root} ({origin})", file=out)
    if origin != "--root" and _lifetime() == "session":
        print(
            "  (lifetime 'session': each process builds into its own temporary directory; "
            "shown here is the persistent cache)",
            file=out,
        )
    if not root.is_dir():
        print("  (does not exist yet: nothing cached)", file=out)
        return
    namespaces = [inspect_namespace(root, n, with_key_parts=verbose) for n in find_namespaces(root)]
    if not namespaces:
        print("  (no cache namespaces)", file=out)
        return
    width = max(len("namespace"), *(len(ns.name) for ns in namespaces))
    print(f"{'namespace':<{width}}  {'entries':>7}  {'size':>10}", file=out)
    now = time.time()
    for ns in namespaces:
        print(f"{ns.name:<{width}}  {len(ns.entries):>7}  {human_size(ns.size):>10}", file=out)
        if ns.scratch_count:
            print(
                f"{'':<{width}}  + {ns.scratch_count} temp/trash item(s), "
                f"{human_size(ns.scratch_size)} (removed by `clean`)",
                file=out,
            )
        if verbose:
            for entry in ns.entries:
                parts = (
                    "(key parts unreadable: entry corrupt)"
                    if entry.key_parts is None
                    else " ".join(f"{k}={v}" for k, v in entry.key_parts.items())
                )
                print(
                    f"    {entry.digest[:8]} {entry.kind:<4} {human_size(entry.size):>10} "
                    f"{human_age(now - entry.last_used):>6} ago  {parts}",
                    file=out,
                )
    total_entries = sum(len(ns.entries) for ns in namespaces)
    total_size = sum(ns.size for ns in namespaces)
    print(f"{'total':<{width}}  {total_entries:>7}  {human_size(total_size):>10}", file=out)


def _clean(
    root: pathlib.Path, namespace: str | None, older_than: float | None, *, out: TextIO
) -> None:
    if not root.is_dir():
        print(f"cache root {root} does not exist: nothing to clean", file=out)
        return
    if namespace is not None and not find_namespaces(root, within=namespace):
        print(f"no cache namespace {namespace!r} under {root}: nothing to clean", file=out)
        return
    report = clean(root, namespace=namespace, older_than=older_than)
    scope = f"namespace {namespace!r}" if namespace else "all namespaces"
    age = "" if older_than is None else f" unused for more than {human_age(older_than)}"
    print(
        f"removed {report.entries_removed} entr{'y' if report.entries_removed == 1 else 'ies'}"
        f"{age} ({human_size(report.bytes_freed)}) from {scope} under {root}",
        file=out,
    )
    if report.scratch_removed:
        print(f"removed {report.scratch_removed} leftover temp/trash item(s)", file=out)


__all__: list[str] = []
