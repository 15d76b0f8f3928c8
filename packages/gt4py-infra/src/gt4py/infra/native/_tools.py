"""Finding the build tools (C++ compiler, CMake, Ninja, nvcc) and naming them for cache keys.

A tool's identity is its path plus its ``--version`` output. Running ``--version`` costs a
process, and a cache hit must run no tool at all, so the output is itself cached on disk,
keyed on the tool's path and its executable's size and modification time (ccache's default
compiler check). A wrapper script that starts a different compiler than before without being
modified itself is therefore not noticed: edit (touch) the wrapper after such a change.

Tools are run by :func:`start_command` / :func:`run_command`: each in a process group of its
own that is stopped when the wait for it is interrupted, or by a watchdog process when this
process dies (see "tool processes" below), so that a killed build leaves no compiler running.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import importlib.util
import logging
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Sequence
from typing import Any, Final

from gt4py.infra import caching, config, pipeline

from ._errors import ToolchainError


_VERSION_TIMEOUT_S = 60
_logger = logging.getLogger("gt4py.infra.native")
_NATIVE_EXTRA_HINT = "install the native build tools with: pip install 'gt4py-infra[native]'"


@dataclasses.dataclass(frozen=True)
class Tool:
    """An executable build tool: where it is and what it is (for cache keys)."""

    role: str  # "C++ compiler", "CMake", ... (for messages)
    path: str  # absolute path it is run by; symlinks kept, ccache-style wrappers need argv[0]
    identity: str  # path and version output


def find_cxx() -> Tool:
    """The C++ compiler: the ``cxx_compiler`` setting (GT4PY_CXX), else $CXX, else c++/g++/clang++."""
    configured = config.CXX_COMPILER.get()
    if configured:
        source = config.CXX_COMPILER.resolve().source
        return _configured_tool("C++ compiler", configured, f"the cxx_compiler setting ({source})")
    from_env = os.environ.get("CXX")
    if from_env:
        return _configured_tool("C++ compiler", from_env, "$CXX")
    for candidate in ("c++", "g++", "clang++"):
        path = shutil.which(candidate)
        if path is not None:
            return _tool("C++ compiler", os.path.abspath(path))
    raise ToolchainError(
        "no C++ compiler found: none of c++, g++, clang++ is on PATH; install one or set "
        "GT4PY_CXX (or CXX) to the compiler's path, e.g. GT4PY_CXX=/usr/bin/g++"
    )


def locate_cxx() -> str | None:
    """The path of the C++ compiler :func:`find_cxx` would choose, without running it; None
    when there is none (a runtime image without a compiler)."""
    configured = config.CXX_COMPILER.get() or os.environ.get("CXX")
    if configured:
        return _existing_executable(configured)
    for candidate in ("c++", "g++", "clang++"):
        path = shutil.which(candidate)
        if path is not None:
            return os.path.abspath(path)
    return None


def locate_nvcc() -> str | None:
    """The path of the nvcc :func:`find_nvcc` would choose, without running it, or None."""
    try:
        return find_nvcc_path()
    except ToolchainError:
        return None


def stamp(path: str) -> list[object]:
    """What identifies the file at ``path`` without running it: path, size, modification time."""
    info = os.stat(path)  # follows symlinks: the file that actually runs
    return [path, info.st_size, info.st_mtime_ns]


def _existing_executable(value: str) -> str | None:
    path = value if os.sep in value else shutil.which(value)
    return os.path.abspath(path) if path is not None and _is_executable(path) else None


def find_cmake() -> Tool:
    """CMake from the ``cmake`` wheel (the [native] extra), else from PATH."""
    # Located without importing the package: `import cmake` lists the files of its whole
    # distribution (~0.2 s), and a cache hit must stay cheap.
    spec = importlib.util.find_spec("cmake")
    locations = list(spec.submodule_search_locations or ()) if spec else []
    bundled = [os.path.join(location, "data", "bin", "cmake") for location in locations]
    return _bundled_or_path_tool("CMake", "cmake", bundled)


def find_ninja() -> Tool:
    """Ninja from the ``ninja`` wheel (installed among the environment's scripts), else PATH."""
    scripts = {sysconfig.get_path("scripts"), os.path.dirname(sys.executable)}
    return _bundled_or_path_tool("Ninja", "ninja", [os.path.join(d, "ninja") for d in scripts])


def find_nvcc() -> Tool:
    """The CUDA compiler: $CUDACXX, else nvcc on PATH, else under $CUDA_HOME / $CUDA_PATH."""
    from_env = os.environ.get("CUDACXX")
    if from_env:
        return _configured_tool("CUDA compiler", from_env, "$CUDACXX")
    return _tool("CUDA compiler", find_nvcc_path())


def find_nvcc_path() -> str:
    """nvcc's path as :func:`find_nvcc` chooses it (without running it)."""
    from_env = os.environ.get("CUDACXX")
    if from_env:
        path = _existing_executable(from_env)
        if path is None:
            raise ToolchainError(f"CUDACXX={from_env!r} is not an executable")
        return path
    path = shutil.which("nvcc")
    if path is None:
        roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
        candidates = [os.path.join(root, "bin", "nvcc") for root in roots if root]
        candidates += wheel_nvcc_candidates(_nvidia_wheel_roots())
        path = next((c for c in candidates if _is_executable(c)), None)
    if path is None:
        raise ToolchainError(
            "CUDA sources need nvcc, which was not found on PATH, in $CUDA_HOME/bin, "
            "/usr/local/cuda/bin or the nvidia-cuda-nvcc wheels; install the CUDA toolkit, "
            "pip install nvidia-cuda-nvcc-cu12 nvidia-cuda-runtime-cu12 (what "
            "gt4py-next[cuda12] brings), or set CUDACXX to nvcc's path"
        )
    return os.path.abspath(path)


def _nvidia_wheel_roots() -> list[str]:
    """The directories of the ``nvidia`` namespace package the NVIDIA wheels install into
    (found without importing anything)."""
    spec = importlib.util.find_spec("nvidia")
    return list(spec.submodule_search_locations or ()) if spec else []


def wheel_nvcc_candidates(roots: list[str]) -> list[str]:
    """nvcc as the CUDA 12 wheel (``nvidia/cuda_nvcc/bin``) or the CUDA 13 wheels
    (``nvidia/cu13/bin``) install it under each of ``roots``."""
    return [
        os.path.join(root, sub, "bin", "nvcc") for root in roots for sub in ("cuda_nvcc", "cu13")
    ]


def nanobind_version() -> str:
    try:
        import nanobind
    except ImportError:
        raise ToolchainError(f"nanobind is not installed; {_NATIVE_EXTRA_HINT}") from None
    return str(nanobind.__version__)


def nanobind_cmake_dir() -> str:
    import nanobind

    return str(nanobind.cmake_dir())


def nanobind_backend_identity() -> str | None:
    """The installed prebuilt nanobind backend (``nanobind-backend``), or None without one.

    Named by its compiled backend files, one per backend ABI major version: a split-mode
    module needs a backend of its ABI, not of one release. Found without importing it.
    """
    spec = importlib.util.find_spec("nanobind_backend")
    if spec is None or not spec.submodule_search_locations:
        return None
    directory = next(iter(spec.submodule_search_locations))
    try:
        backends = sorted(n for n in os.listdir(directory) if n.startswith("_nb_backend_"))
    except OSError:
        return None
    return f"{directory}: {', '.join(backends)}" if backends else None


def free_threaded_python() -> bool:
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def start_command(
    command: Sequence[str], *, cwd: str | os.PathLike[str] | None = None, role: str = ""
) -> ToolProcess:
    """Start ``command``, its stdout and stderr merged into one text pipe, its stdin empty; a
    command that cannot start is a ToolchainError (``role`` names it there, e.g. "C++
    compiler"). The process runs in its own process group and never outlives this process
    (see :class:`ToolProcess`)."""
    try:
        process = ToolProcess(
            list(command),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            **_OWN_GROUP,
        )
    except OSError as error:
        what = f"the {role} {command[0]}" if role else command[0]
        raise ToolchainError(f"cannot run {what}: {error}") from error
    _watchdog.watch(process)
    return process


def run_command(
    command: Sequence[str], *, cwd: str | os.PathLike[str] | None = None, role: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` to its end (see ``start_command``); interrupted (Ctrl-C, any exception
    while waiting), it is stopped with its whole process group before the exception goes on."""
    process = start_command(command, cwd=cwd, role=role)
    output = process.communicate()[0]
    return subprocess.CompletedProcess(list(command), process.returncode, output)


def run_tool(
    tool: Tool, args: Sequence[str], *, cwd: str | os.PathLike[str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``tool`` with stdout and stderr merged; a tool that cannot start is a ToolchainError."""
    return run_command([tool.path, *args], cwd=cwd, role=tool.role)


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _configured_tool(role: str, value: str, source: str) -> Tool:
    path = value if os.sep in value else shutil.which(value)
    if path is None or not _is_executable(path):
        hint = (
            "set GT4PY_CXX (or CXX) to the path of a C++ compiler, e.g. GT4PY_CXX=/usr/bin/g++"
            if role == "C++ compiler"
            else "set it to the path of an existing executable"
        )
        raise ToolchainError(
            f"the {role} {value!r} given by {source} does not exist or is not executable; {hint}"
        )
    return _tool(role, os.path.abspath(path))


def _bundled_or_path_tool(role: str, name: str, bundled: Sequence[str]) -> Tool:
    for candidate in sorted(bundled):
        if _is_executable(candidate):
            return _tool(role, candidate)
    path = shutil.which(name)
    if path is None:
        raise ToolchainError(f"{role} ({name}) was not found; {_NATIVE_EXTRA_HINT}")
    return _tool(role, os.path.abspath(path))


_identity_memo: dict[tuple[str, int, int], str] = {}
_identity_lock = threading.Lock()


def _tool(role: str, path: str) -> Tool:
    return Tool(role=role, path=path, identity=f"{path}\n{_version_output(role, path)}")


def _version_output(role: str, path: str) -> str:
    stat = os.stat(path)  # follows symlinks: the file that actually runs
    memo_key = (path, stat.st_size, stat.st_mtime_ns)
    with _identity_lock:
        if memo_key in _identity_memo:
            return _identity_memo[memo_key]

    def probe() -> bytes:
        process = start_command([path, "--version"], role=role)
        try:
            output: str = process.communicate(timeout=_VERSION_TIMEOUT_S)[0]
        except subprocess.TimeoutExpired as error:
            process.stop_group()
            raise ToolchainError(f"cannot run the {role} {path} --version: {error}") from error
        if process.returncode != 0:
            raise ToolchainError(
                f"the {role} {path} does not work: '--version' exited with {process.returncode}",
                output=output,
            )
        return output.strip().encode()

    key = caching.CacheKey(
        {
            "path": path,
            "real_path": os.path.realpath(path),
            "size": str(stat.st_size),
            "mtime_ns": str(stat.st_mtime_ns),
        }
    )
    with pipeline.collect_outcomes():  # probing a compiler is no outcome of the compile
        output = caching.FileCache("native/tool-versions").get_or_build(key, probe).decode()
    with _identity_lock:
        _identity_memo[memo_key] = output
    return output


# -- tool processes: in their own process group, never outliving this process ------------------
#
# A build tool runs in a process group of its own (``process_group=0``), so that it and the
# processes it starts can be stopped together, and so that Ctrl-C in a terminal reaches this
# process only: the interrupted wait (``KeyboardInterrupt``) stops the group before the
# exception goes on. When this process dies without unwinding (SIGTERM's or SIGHUP's default
# action, SIGKILL, a crash), a watchdog stops the groups it was told about: a small Python
# process, started with the first tool, that reads a pipe from this process (``+pid`` when a
# tool starts, ``-pid`` when it was reaped) and, at end of file (this process is gone; the
# kernel closes the pipe however it ends), stops every group still listed.
#
# Stopping a group is SIGTERM, up to ``STOP_GRACE_S`` to end, then SIGKILL. The grace matters
# for Ninja: it runs each job in a process group of its own and forwards the SIGTERM to them,
# then waits for them; a SIGKILL would leave its compilers running. (``PR_SET_PDEATHSIG`` was
# not used: it reaches only the direct child, not the compilers Ninja or the compiler driver
# start, fires when the starting *thread* ends, and needs a ``preexec_fn``, which is unsafe in
# a process with threads.) POSIX only; elsewhere tools run as plain child processes.

#: Seconds a stopped tool's process group gets between SIGTERM and SIGKILL.
STOP_GRACE_S: Final = 5.0
_POSIX: Final = os.name == "posix"
_OWN_GROUP: Final[dict[str, Any]] = {"process_group": 0} if _POSIX else {}

_WATCHDOG_CODE: Final = r"""
import os, signal, sys, time
for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"):
    signal.signal(getattr(signal, name), signal.SIG_IGN)
grace = float(sys.argv[1])
groups = set()
pending = b""
while True:
    try:
        chunk = os.read(0, 65536)
    except InterruptedError:
        continue
    if not chunk:
        break
    *lines, pending = (pending + chunk).split(b"\n")
    for line in lines:
        if line[:1] == b"+":
            groups.add(int(line[1:]))
        elif line[:1] == b"-":
            groups.discard(int(line[1:]))

def running(group):
    # A group whose members are all zombies (nobody reaps them yet) counts as ended.
    try:
        names = os.listdir("/proc")
    except OSError:
        try:
            os.killpg(group, 0)
        except OSError:
            return False
        return True
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as file:
                    fields = file.read().rpartition(b")")[2].split()
            except OSError:
                continue
            if len(fields) > 2 and int(fields[2]) == group and fields[0] != b"Z":
                return True
    return False

for group in groups:
    try:
        os.killpg(group, signal.SIGTERM)
    except OSError:
        pass
deadline = time.monotonic() + grace
while time.monotonic() < deadline and any(running(group) for group in groups):
    time.sleep(0.05)
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""


class ToolProcess(subprocess.Popen[str]):
    """A running build tool (see :func:`start_command`): waiting for it (``wait``,
    ``communicate``) that ends in an exception other than a timeout stops its process group
    (:meth:`stop_group`) before the exception goes on."""

    def wait(self, timeout: float | None = None) -> int:
        try:
            returncode = super().wait(timeout)
        except subprocess.TimeoutExpired:
            raise
        except BaseException:
            self.stop_group()
            raise
        _watchdog.forget(self)
        return returncode

    def poll(self) -> int | None:
        returncode = super().poll()
        if returncode is not None:
            # Reaped: its pid may be reused from now on, so the watchdog must not signal it.
            _watchdog.forget(self)
        return returncode

    def communicate(self, input: Any = None, timeout: float | None = None) -> tuple[Any, Any]:
        try:
            return super().communicate(input, timeout)
        except subprocess.TimeoutExpired:
            raise
        except BaseException:
            self.stop_group()
            raise

    def stop_group(self, grace: float = STOP_GRACE_S) -> None:
        """Stop the tool and everything in its process group: SIGTERM, up to ``grace``
        seconds for the tool to end, then SIGKILL; the tool is reaped."""
        stop_tools([self], grace)


def stop_tools(processes: Sequence[ToolProcess], grace: float = STOP_GRACE_S) -> None:
    """Stop the process groups of ``processes`` together (see :meth:`ToolProcess.stop_group`)."""
    try:
        for process in processes:
            _signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + grace
        for process in processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                subprocess.Popen.wait(process, timeout=max(0.0, deadline - time.monotonic()))
    finally:  # even when a second Ctrl-C cuts the grace short
        for process in processes:
            _signal_group(process, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                subprocess.Popen.wait(process, timeout=1.0)
            _watchdog.forget(process)


def stop_all_tools(grace: float = STOP_GRACE_S) -> None:
    """Stop every build tool this process started and has not reaped (e.g. when a build worker
    finds its parent gone)."""
    stop_tools(_watchdog.running(), grace)


def _signal_group(process: subprocess.Popen[str], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if _POSIX:
            # The group outlives its leader while any member runs, and its id is not reused
            # meanwhile: signalling it after the leader was reaped reaches only stragglers.
            os.killpg(process.pid, signum)
        elif process.returncode is None:
            process.kill()


class _Watchdog:
    """The watchdog process of this process's tools, started with the first tool."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._failed = False
        self._tools: dict[int, ToolProcess] = {}

    def watch(self, tool: ToolProcess) -> None:
        with self._lock:
            self._tools[tool.pid] = tool
            if _POSIX and self._started():
                self._send(f"+{tool.pid}\n")

    def forget(self, tool: ToolProcess) -> None:
        with self._lock:
            if self._tools.pop(tool.pid, None) is not None and self._process is not None:
                self._send(f"-{tool.pid}\n")

    def running(self) -> list[ToolProcess]:
        with self._lock:
            return list(self._tools.values())

    def _started(self) -> bool:
        if self._process is not None:
            return True
        if self._failed or not sys.executable:
            return False
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG_CODE, str(STOP_GRACE_S)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                process_group=0,  # a Ctrl-C or a signal to our group leaves it running
            )
        except OSError as error:
            self._failed = True
            _logger.warning(
                "gt4py: cannot start the watchdog that stops build tools if this process is "
                "killed (%s); a killed build may leave compilers running",
                error,
            )
            return False
        return True

    def _send(self, line: str) -> None:
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write(line.encode())
            self._process.stdin.flush()
        except OSError:  # it died (someone killed it): start a new one with the next tool
            self._process = None

    def close(self) -> None:
        """At exit: end the watchdog (it stops any tool still listed)."""
        with self._lock:
            process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            assert process.stdin is not None
            process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_GRACE_S + 1.0)

    def after_fork_in_child(self) -> None:
        # The child must not share our watchdog: closing the inherited pipe end keeps our
        # watchdog's end-of-file tied to our life, and the child starts its own.
        process, self._process = self._process, None
        if process is not None and process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()  # empty: every line was flushed when written
            _forked_away.append(process)  # never collected here: it is not our child
        self._lock = threading.Lock()
        self._tools = {}


_watchdog = _Watchdog()
_forked_away: list[subprocess.Popen[bytes]] = []
atexit.register(_watchdog.close)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_watchdog.after_fork_in_child)
