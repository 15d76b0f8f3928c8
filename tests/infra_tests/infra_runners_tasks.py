"""Importable build tasks for the runner tests (worker processes import this module by name).

Scripts and tests put this directory on ``sys.path`` and import it as ``infra_runners_tasks``.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from typing import Any

from gt4py.infra import config


def build_artifact(name: str, size: int) -> bytes:
    """A deterministic stand-in for a build: bytes derived from the inputs only."""
    digest = hashlib.sha256(f"{name}:{size}".encode()).digest()
    return (digest * (size // len(digest) + 1))[:size]


def setting_and_pid(name: str) -> tuple[Any, int]:
    return config.get(name), os.getpid()


def setting_source(name: str) -> str:
    return config.resolve(name).source


def recursion_limit_and_pid() -> tuple[int, int]:
    return sys.getrecursionlimit(), os.getpid()


def nest(depth: int) -> int:
    """Recurses ``depth`` frames deep: fails under a default recursion limit for large depths."""
    return 0 if depth == 0 else 1 + nest(depth - 1)


def cwd() -> str:
    return os.getcwd()


def pid() -> int:
    return os.getpid()


def sleep_then_touch(seconds: float, path: str) -> None:
    time.sleep(seconds)
    with open(path, "x"):
        pass


def sleep_then_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


class BuildFailedError(Exception):
    """An ordinary, picklable exception."""


def fail(message: str) -> None:
    raise BuildFailedError(message)


class StubbornError(Exception):
    """Pickles, but cannot be rebuilt: ``__init__`` takes two arguments, ``args`` holds one."""

    def __init__(self, stage: str, detail: str) -> None:
        super().__init__(f"{stage} failed: {detail}")


def fail_stubbornly(stage: str, detail: str) -> None:
    raise StubbornError(stage, detail)


def exit_task(code: int) -> None:
    sys.exit(code)


def unpicklable_result() -> Any:
    return lambda: None


def kill_own_worker() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def noisy(value: int) -> int:
    """Prints to stdout and runs a child that prints: neither may corrupt the worker protocol."""
    print("noise from the task " * 1000)
    subprocess.run([sys.executable, "-c", "print('noise from a compiler ' * 1000)"], check=True)
    return value * 2


def read_stdin() -> str:
    return sys.stdin.read()


def interpreter_state() -> tuple[int, int, str]:
    """How the worker's interpreter was started, and where its ``pickle`` came from."""
    import pickle

    return sys.flags.isolated, sys.flags.no_user_site, str(pickle.__file__)
