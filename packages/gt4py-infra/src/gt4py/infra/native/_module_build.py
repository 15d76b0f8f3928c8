"""Building one extension module with a set-up toolchain: a generated build.ninja, one Ninja run.

The module's directory holds ``src/`` (the sources as given), ``build.ninja`` (the toolchain's
recorded commands with this module's files and options), ``build.log`` and the extension.
All paths in ``build.ninja`` are relative, so a kept failed build can be rerun where it lies
with ``ninja -C <dir>``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import pathlib
import platform
import re
import shlex
import shutil
from collections.abc import Mapping, Sequence
from typing import Final

from gt4py.infra import caching, config

from . import _tools
from ._errors import CompilationError, ToolchainError
from ._failed_builds import keep_failed_build, raise_if_disk_full
from ._host import targets_build_host
from ._options import CXX_STANDARD_FLAGS, BuildOptions
from ._prelude import prelude_flags
from ._toolchain import OBJECTS_SLOT, OUTPUT_SLOT, Toolchain


CXX_SUFFIXES: Final = frozenset({".cpp", ".cc", ".cxx", ".c++"})
CUDA_SUFFIXES: Final = frozenset({".cu"})
# .cu compiled as C++ by the host compiler: <gt4py/cuda_launch.hpp> includes the emulation
EMULATION_FLAGS: Final = ("-x", "c++", "-DGT4PY_CUDA_EMULATION")
# Restrictive on purpose: such names need no quoting in shells, Ninja files or messages.
_SOURCE_NAME: Final = re.compile(r"[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*")
# Starts with the literal, so a search skips to its occurrences (a leading ``\b`` made it try
# every position of every source: ~4 ms per generated program, on every cache hit too); the
# word boundary before it is checked on each match (``_declared_modules``).
_NB_MODULE: Final = re.compile(r"NB_MODULE\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)")
_IDENTIFIER_CHARS: Final = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
)


def _declared_modules(code: str) -> set[str]:
    """The names given to ``NB_MODULE(name, ...)`` in ``code`` (not ``XNB_MODULE(...)``)."""
    return {
        match.group(1)
        for match in _NB_MODULE.finditer(code)
        if match.start() == 0 or code[match.start() - 1] not in _IDENTIFIER_CHARS
    }


# Headers shipped with gt4py.infra (``#include <gt4py/python_semantics.hpp>``): on the include
# path of every build, after the module's own and the options' directories.
SHIPPED_INCLUDE_DIR: Final = pathlib.Path(__file__).parent / "include"


@functools.cache
def shipped_headers_digest() -> str:
    """Digest of the shipped headers' names and contents: part of every build key, since any
    build may include them (an installed gt4py-infra does not change while a process runs)."""
    digest = hashlib.sha256()
    for path in sorted(SHIPPED_INCLUDE_DIR.rglob("*")):
        if path.is_file():
            content = path.read_bytes()
            name = path.relative_to(SHIPPED_INCLUDE_DIR).as_posix()
            digest.update(f"{name}\0{len(content)}\0".encode())
            digest.update(content)
    return digest.hexdigest()


@dataclasses.dataclass(frozen=True)
class ModuleSources:
    """Validated sources of one module: every file, and which of them are compiled how."""

    name: str
    files: Mapping[str, str]
    cxx: tuple[str, ...]
    cuda: tuple[str, ...]

    @classmethod
    def validate(cls, name: str, sources: Mapping[str, str], *, cuda: bool) -> ModuleSources:
        if not isinstance(name, str) or not (name.isidentifier() and name.isascii()):
            raise ValueError(
                f"native module name {name!r} is not an ASCII identifier; it must be the name "
                "given to NB_MODULE(<name>, m)"
            )
        if not isinstance(sources, Mapping) or not sources:
            raise ValueError(f"native module {name!r}: sources must be a non-empty mapping")
        cxx: list[str] = []
        cuda_files: list[str] = []
        for filename, code in sources.items():
            if not isinstance(filename, str) or not _SOURCE_NAME.fullmatch(filename):
                raise ValueError(
                    f"native module {name!r}: source name {filename!r} must be a relative path "
                    "of letters, digits, '_', '.', '+', '-' separated by '/'"
                )
            if any(part in {".", ".."} for part in filename.split("/")):
                raise ValueError(f"native module {name!r}: source name {filename!r} leaves src/")
            if not isinstance(code, str):
                raise TypeError(
                    f"native module {name!r}: the code of {filename!r} must be a str, "
                    f"got {type(code).__name__}"
                )
            suffix = pathlib.PurePosixPath(filename).suffix
            if suffix in CXX_SUFFIXES:
                cxx.append(filename)
            elif suffix in CUDA_SUFFIXES:
                if not cuda:
                    raise ValueError(
                        f"native module {name!r}: {filename!r} is a CUDA source; build with "
                        "BuildOptions(cuda=True), or cuda_emulation=True to run it on the CPU"
                    )
                cuda_files.append(filename)
        if not cxx and not cuda_files:
            raise ValueError(
                f"native module {name!r} has no source to compile (C++: "
                f"{', '.join(sorted(CXX_SUFFIXES))}; CUDA: .cu); got {sorted(sources)}"
            )
        declared = {m for code in sources.values() for m in _declared_modules(code)}
        if declared and name not in declared:
            raise ValueError(
                f"native module name {name!r} does not match NB_MODULE({', '.join(sorted(declared))}"
                ", m) in its sources; Python finds a module by that name, so they must agree"
            )
        return cls(name, dict(sources), tuple(sorted(cxx)), tuple(sorted(cuda_files)))


@dataclasses.dataclass(frozen=True)
class CudaToolkit:
    nvcc: _tools.Tool
    include_dir: pathlib.Path
    library_dir: pathlib.Path

    shared: bool = False  # only libcudart.so (the runtime wheel): linked with an rpath

    @classmethod
    def locate(cls, nvcc: _tools.Tool) -> CudaToolkit:
        root = _cuda_root(nvcc)
        # a toolkit; or the wheels: nvcc in nvidia/cuda_nvcc, the runtime in
        # nvidia/cuda_runtime (CUDA 12), or both in nvidia/cu13 (CUDA 13)
        targets = [root / "targets" / f"{platform.machine()}-linux", root]
        targets.append(root.parent / "cuda_runtime")
        include = next(
            (t / "include" for t in targets if (t / "include" / "cuda_runtime.h").exists()), None
        )
        libraries = [t / lib for t in targets for lib in ("lib64", "lib")]
        library = next((d for d in libraries if (d / "libcudart_static.a").exists()), None)
        shared = False
        if library is None:
            library = next((d for d in libraries if any(d.glob("libcudart.so*"))), None)
            shared = library is not None
        if include is None or library is None:
            raise ToolchainError(
                f"nvcc at {nvcc.path} has no CUDA runtime in its toolkit {root} (looked for "
                "cuda_runtime.h and libcudart_static.a or libcudart.so); point CUDACXX at the "
                "nvcc of a full CUDA toolkit, or pip install nvidia-cuda-runtime-cu12 beside "
                "nvidia-cuda-nvcc-cu12"
            )
        return cls(nvcc, include, library, shared)

    def runtime_link_flags(self) -> list[str]:
        if not self.shared:
            # The static runtime: the module then loads without CUDA's lib directory on the
            # loader path. These are the libraries nvcc itself links it with.
            return [f"-L{self.library_dir}", "-lcudart_static", "-ldl", "-lrt", "-lpthread"]
        runtime = sorted(p.name for p in self.library_dir.glob("libcudart.so*"))[-1]
        return [f"-L{self.library_dir}", f"-l:{runtime}", f"-Wl,-rpath,{self.library_dir}"]


def _cuda_root(nvcc: _tools.Tool) -> pathlib.Path:
    """The toolkit nvcc belongs to, as nvcc itself reports it (``TOP``), so that wrapper
    scripts and symlinks around nvcc are no problem."""
    dry_run = _tools.run_tool(nvcc, ["--dryrun", "-x", "cu", "-c", os.devnull, "-o", os.devnull])
    for line in dry_run.stdout.splitlines():
        if line.startswith("#$ TOP="):
            return pathlib.Path(os.path.realpath(line.removeprefix("#$ TOP=").strip()))
    return pathlib.Path(os.path.realpath(nvcc.path)).parent.parent


def build_module(
    toolchain: Toolchain,
    module: ModuleSources,
    options: BuildOptions,
    *,
    cuda: CudaToolkit | None,
    ninja: _tools.Tool,
    build_dir: pathlib.Path,
    key: caching.CacheKey,
) -> pathlib.Path:
    """Build ``module`` in the empty ``build_dir``; returns the extension's path there.

    ``key`` is the module's cache key; a failed build is kept under it (see _failed_builds).
    """
    if options.openmp and toolchain.openmp_flags is None:
        raise ToolchainError(
            f"OpenMP was requested but the C++ compiler {toolchain.cxx} does not support it "
            "(CMake's OpenMP probe failed); use a compiler with OpenMP or build with openmp=False"
        )
    if not build_dir.is_dir():  # never recreate a removed (session) directory chain
        raise FileNotFoundError(f"the build directory {build_dir} is gone")
    for filename, code in module.files.items():
        path = build_dir / "src" / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code, encoding="utf-8")
    output = module.name + toolchain.extension_suffix
    cxx_command = _cxx_command(toolchain, options, cuda)
    prelude = (
        prelude_flags(cxx_command, SHIPPED_INCLUDE_DIR, shipped_headers_digest())
        if options.precompiled_prelude and module.cxx
        else []
    )
    (build_dir / "build.ninja").write_text(
        _ninja_file(toolchain, module, options, cuda, output, cxx_command, prelude),
        encoding="utf-8",
    )
    jobs = str(config.BUILD_JOBS.get())
    completed = _tools.run_tool(ninja, ["-j", jobs], cwd=build_dir)
    (build_dir / "build.log").write_text(completed.stdout, encoding="utf-8")
    if completed.returncode != 0:
        raise_if_disk_full(completed.stdout, build_dir, f"building native module {module.name!r}")
        kept = keep_failed_build(build_dir, key)
        raise CompilationError(module.name, completed.stdout, kept)
    shutil.rmtree(build_dir / "obj", ignore_errors=True)  # objects are rebuilt, never reused
    return build_dir / output


def _cxx_command(
    toolchain: Toolchain, options: BuildOptions, cuda: CudaToolkit | None
) -> list[str]:
    """The C++ compile command of a module before its source and output."""
    openmp = list(toolchain.openmp_flags or ()) if options.openmp else []
    user_includes = [
        "-Isrc",
        *(f"-I{directory}" for directory in options.include_dirs),
        f"-I{SHIPPED_INCLUDE_DIR}",
    ]
    cuda_includes = [f"-I{cuda.include_dir}"] if cuda else []
    # Before the extra flags, so that an explicit -march=... there wins (the last one does).
    tuning = (
        toolchain.host_tuning_flags
        if options.host_tuned and not targets_build_host(options.extra_compile_flags)
        else ()
    )
    return [
        *toolchain.compile_command,
        f"-std={CXX_STANDARD_FLAGS[options.cxx_standard]}",
        *options.define_flags(),
        *user_includes,
        *cuda_includes,
        *openmp,
        *tuning,
        *options.extra_compile_flags,
    ]


def _ninja_file(
    toolchain: Toolchain,
    module: ModuleSources,
    options: BuildOptions,
    cuda: CudaToolkit | None,
    output: str,
    cxx_command: Sequence[str],
    prelude: Sequence[str],
) -> str:
    """``build.ninja``: ``cxx_command`` (:func:`_cxx_command`) compiles the C++ sources,
    with the ``prelude`` flags (``_prelude``), and the emulated CUDA ones."""
    openmp = list(toolchain.openmp_flags or ()) if options.openmp else []
    objects_slot = toolchain.link_command.index(OBJECTS_SLOT)
    link_before = [
        "$out" if token == OUTPUT_SLOT else token for token in toolchain.link_command[:objects_slot]
    ]
    link_after = [
        *toolchain.link_command[objects_slot + 1 :],
        *openmp,
        *options.extra_link_flags,
        *options.library_flags(),
    ]
    if cuda:
        link_after += cuda.runtime_link_flags()

    lines = [
        f"# Generated by gt4py.infra.native for module {module.name}: run `ninja` here to rebuild.",
        "ninja_required_version = 1.3",
        "",
        "rule cxx",
        f"  command = {_command([*cxx_command, *prelude])} -c $in -o $out",
        "  description = C++ $in",
        "",
        "rule link",
        f"  command = {_command(link_before)} $in {_command(link_after)}",
        "  description = Linking $out",
        "",
    ]
    if options.cuda_emulation:  # the host compiler, with the runtime and launch emulated
        lines += [
            "rule cuda",
            f"  command = {_command([*cxx_command, *EMULATION_FLAGS])} -c $in -o $out",
            "  description = CUDA (emulated on the host) $in",
            "",
        ]
    elif cuda:
        lines += [
            "rule cuda",
            f"  command = {_command(_nvcc_command(toolchain, options, cuda, openmp))} -c $in -o $out",
            "  description = CUDA $in",
            "",
        ]
    objects = []
    for rule, filenames in (("cxx", module.cxx), ("cuda", module.cuda)):
        for filename in filenames:
            objects.append(f"obj/{filename}.o")
            lines.append(f"build {objects[-1]}: {rule} src/{filename}")
    lines += [f"build {output}: link {' '.join(objects)}", f"default {output}", ""]
    return "\n".join(lines)


def _nvcc_command(
    toolchain: Toolchain, options: BuildOptions, cuda: CudaToolkit, openmp: Sequence[str]
) -> list[str]:
    """nvcc with the toolchain's flags: preprocessor and optimization flags directly, the rest
    (PIC, visibility ...) forwarded to the host compiler, which is the toolchain's."""
    command = [
        cuda.nvcc.path,
        "-ccbin",
        toolchain.cxx,
        f"-std={CXX_STANDARD_FLAGS[options.cxx_standard]}",
    ]
    remaining = iter(toolchain.compile_command[1:])
    for token in remaining:
        if token in {"-I", "-isystem", "-D"}:
            command += [token, next(remaining, "")]
        elif token.startswith(("-I", "-D", "-O")) or token == "-g":
            command.append(token)
        else:
            command += ["-Xcompiler", token]
    command += [*options.define_flags(), "-Isrc"]
    command += [f"-I{directory}" for directory in options.include_dirs]
    command.append(f"-I{SHIPPED_INCLUDE_DIR}")
    # the runtime's headers where nvcc would not look (the CUDA 12 wheels keep them apart,
    # in nvidia/cuda_runtime/include)
    command.append(f"-I{cuda.include_dir}")
    for flag in openmp:
        command += ["-Xcompiler", flag]
    command += options.extra_cuda_flags
    return command


def _command(tokens: Sequence[str]) -> str:
    """Shell-quoted for the command line, '$' doubled for Ninja (``$in``/``$out`` kept)."""
    return " ".join(
        token if token in {"$in", "$out"} else shlex.quote(token).replace("$", "$$")
        for token in tokens
    )
