"""Finding the build tools (C++ compiler, CMake, Ninja, nvcc) and naming them for cache keys.

A tool's identity is its path plus its ``--version`` output. Running ``--version`` costs a
process, and a cache hit must run no tool at all, so the output is itself cached on disk,
keyed on the tool's path and its executable's size and modification time (ccache's default
compiler check). A wrapper script that starts a different compiler than before without being
modified itself is therefore not noticed: edit (touch) the wrapper after such a change.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Sequence

from gt4py.infra import caching, config, pipeline

from ._errors import ToolchainError


_VERSION_TIMEOUT_S = 60
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
) -> subprocess.Popen[str]:
    """Start ``command``, its stdout and stderr merged into one text pipe; a command that cannot
    start is a ToolchainError (``role`` names it there, e.g. "C++ compiler")."""
    try:
        return subprocess.Popen(
            list(command),
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
    except OSError as error:
        what = f"the {role} {command[0]}" if role else command[0]
        raise ToolchainError(f"cannot run {what}: {error}") from error


def run_command(
    command: Sequence[str], *, cwd: str | os.PathLike[str] | None = None, role: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` to its end (see ``start_command``)."""
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
        try:
            completed = subprocess.run(
                [path, "--version"],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=_VERSION_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ToolchainError(f"cannot run the {role} {path} --version: {error}") from error
        if completed.returncode != 0:
            raise ToolchainError(
                f"the {role} {path} does not work: '--version' exited with {completed.returncode}",
                output=completed.stdout + completed.stderr,
            )
        return completed.stdout.strip().encode()

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
