"""What a native module is built with, besides its sources."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Mapping
from typing import Final, Literal, cast


BuildType = Literal["Release", "Debug", "RelWithDebInfo", "MinSizeRel"]
BUILD_TYPES: Final[tuple[str, ...]] = ("Release", "Debug", "RelWithDebInfo", "MinSizeRel")

# nanobind itself needs C++17; the flag spelling "c++2b" is understood by GCC >= 11 and
# Clang >= 12, "c++23" only by newer ones.
CXX_STANDARD_FLAGS: Final[Mapping[int, str]] = {17: "c++17", 20: "c++20", 23: "c++2b"}

_MACRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Values are str, int or None (a bare -DNAME), checked at run time: a typed signature would
# make mypy reject a literal like {"N": 3, "NAME": '"x"'} (inferred dict[str, object]).
DefineValue = object


@dataclasses.dataclass(frozen=True, init=False)
class BuildOptions:
    """Options of one native module build; every field is part of the module's cache key.

    Collections are accepted in any iterable/mapping form and stored as sorted or ordered
    tuples, so equal options compare, hash and fingerprint equal. ``build_type=None`` means
    "the ``cmake_build_type`` setting at build time"; ``host_tuned=None`` the
    ``native_host_tuned`` setting (tuned: C++ sources are compiled for the build machine's CPU,
    ``-march=native``, and the build is keyed by that CPU). Include and library directories are
    keyed by path, not by the files in them: put a version of external headers in a define
    if they change under the same path. ``cuda_emulation`` compiles ``.cu`` sources with the
    host C++ compiler instead of nvcc (``-x c++ -DGT4PY_CUDA_EMULATION``): the shipped
    ``<gt4py/cuda_emulation.hpp>`` then runs every kernel launch on the CPU (ADR 0019).
    ``precompiled_prelude`` force-includes the shipped ``<gt4py/extension_prelude.hpp>`` in
    front of the C++ sources, precompiled once per compile command where the compiler can
    (``_prelude.py``): for many small modules that include those headers anyway.
    """

    cxx_standard: int
    build_type: BuildType | None
    defines: tuple[tuple[str, str | None], ...]
    include_dirs: tuple[str, ...]
    library_dirs: tuple[str, ...]
    libraries: tuple[str, ...]
    extra_compile_flags: tuple[str, ...]
    extra_link_flags: tuple[str, ...]
    openmp: bool
    cuda: bool
    extra_cuda_flags: tuple[str, ...]
    host_tuned: bool | None
    cuda_emulation: bool
    precompiled_prelude: bool

    def __init__(
        self,
        *,
        cxx_standard: int = 17,
        build_type: BuildType | None = None,
        defines: Mapping[str, DefineValue] | Iterable[tuple[str, DefineValue]] = (),
        include_dirs: Iterable[str | os.PathLike[str]] = (),
        library_dirs: Iterable[str | os.PathLike[str]] = (),
        libraries: Iterable[str] = (),
        extra_compile_flags: Iterable[str] = (),
        extra_link_flags: Iterable[str] = (),
        openmp: bool = False,
        cuda: bool = False,
        extra_cuda_flags: Iterable[str] = (),
        host_tuned: bool | None = None,
        cuda_emulation: bool = False,
        precompiled_prelude: bool = False,
    ) -> None:
        if cxx_standard not in CXX_STANDARD_FLAGS:
            raise ValueError(
                f"BuildOptions: cxx_standard={cxx_standard!r} is not supported; "
                f"use one of {sorted(CXX_STANDARD_FLAGS)}"
            )
        if build_type is not None and build_type not in BUILD_TYPES:
            raise ValueError(
                f"BuildOptions: build_type={build_type!r} is not one of {BUILD_TYPES} (or None "
                "for the 'cmake_build_type' setting)"
            )
        for flag_name, flag in (
            ("openmp", openmp),
            ("cuda", cuda),
            ("cuda_emulation", cuda_emulation),
            ("precompiled_prelude", precompiled_prelude),
        ):
            if not isinstance(flag, bool):
                raise TypeError(f"BuildOptions: {flag_name} must be a bool, got {flag!r}")
        if host_tuned is not None and not isinstance(host_tuned, bool):
            raise TypeError(
                f"BuildOptions: host_tuned must be a bool or None (the 'native_host_tuned' "
                f"setting), got {host_tuned!r}"
            )
        setattr_ = object.__setattr__  # frozen dataclass: assign once, here
        setattr_(self, "cxx_standard", cxx_standard)
        setattr_(self, "build_type", build_type)
        setattr_(self, "defines", _normalize_defines(defines))
        setattr_(self, "include_dirs", _directories("include_dirs", include_dirs))
        setattr_(self, "library_dirs", _directories("library_dirs", library_dirs))
        setattr_(self, "libraries", _words("libraries", libraries))
        setattr_(self, "extra_compile_flags", _words("extra_compile_flags", extra_compile_flags))
        setattr_(self, "extra_link_flags", _words("extra_link_flags", extra_link_flags))
        setattr_(self, "openmp", openmp)
        setattr_(self, "cuda", cuda)
        setattr_(self, "extra_cuda_flags", _words("extra_cuda_flags", extra_cuda_flags))
        setattr_(self, "host_tuned", host_tuned)
        setattr_(self, "cuda_emulation", cuda_emulation)
        setattr_(self, "precompiled_prelude", precompiled_prelude)

    def with_build_type(self, build_type: BuildType) -> BuildOptions:
        return dataclasses.replace(self, build_type=build_type)

    def resolved(self) -> BuildOptions:
        """These options with each field left to a setting (None) set to its current value:
        what is actually built, hence what the cache key holds."""
        from gt4py.infra import config

        build_type = self.build_type or cast(BuildType, config.CMAKE_BUILD_TYPE.get())
        host_tuned = config.NATIVE_HOST_TUNED.get() if self.host_tuned is None else self.host_tuned
        return dataclasses.replace(self, build_type=build_type, host_tuned=host_tuned)

    def define_flags(self) -> list[str]:
        return [
            f"-D{name}" if value is None else f"-D{name}={value}" for name, value in self.defines
        ]

    def library_flags(self) -> list[str]:
        """``-L`` and ``-l`` flags; a library given as a path (``/x/libfoo.a``) is passed as is."""
        flags = [f"-L{directory}" for directory in self.library_dirs]
        for library in self.libraries:
            is_path = os.sep in library or library.endswith((".a", ".so", ".dylib"))
            flags.append(library if is_path else f"-l{library}")
        return flags


def _check_word(field: str, word: object) -> str:
    if not isinstance(word, str):
        raise TypeError(f"BuildOptions: {field} must hold strings, got {word!r}")
    if not word or any(c in word for c in "\n\r\0"):
        raise ValueError(
            f"BuildOptions: {field} entry {word!r} is empty or holds a newline/NUL character"
        )
    return word


def _words(field: str, words: Iterable[str]) -> tuple[str, ...]:
    if isinstance(words, str):  # a lone string would otherwise be split into characters
        raise TypeError(
            f"BuildOptions: {field} must be a sequence of strings, not the string {words!r}"
        )
    return tuple(_check_word(field, word) for word in words)


def _directories(field: str, directories: Iterable[str | os.PathLike[str]]) -> tuple[str, ...]:
    if isinstance(directories, str):
        raise TypeError(
            f"BuildOptions: {field} must be a sequence of paths, not the string {directories!r}"
        )
    # Absolute, because the build runs in a cache directory, not in the caller's cwd.
    return tuple(os.path.abspath(_check_word(field, os.fspath(d))) for d in directories)


def _normalize_defines(
    defines: Mapping[str, DefineValue] | Iterable[tuple[str, DefineValue]],
) -> tuple[tuple[str, str | None], ...]:
    pairs = defines.items() if isinstance(defines, Mapping) else defines
    normalized: dict[str, str | None] = {}
    for name, value in pairs:
        if not isinstance(name, str) or not _MACRO_NAME.fullmatch(name):
            raise ValueError(f"BuildOptions: define name {name!r} is not a valid macro name")
        if isinstance(value, bool) or not isinstance(value, str | int | None):
            raise TypeError(
                f"BuildOptions: define {name} has value {value!r}; use a str, an int or None"
            )
        text = None if value is None else str(value)
        if text and any(c in text for c in "\n\r\0"):
            raise ValueError(f"BuildOptions: define {name} value {text!r} holds a newline/NUL")
        normalized[name] = text
    return tuple(sorted(normalized.items()))
