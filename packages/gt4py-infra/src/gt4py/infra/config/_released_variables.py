"""Released gt4py 1.2.3's environment variables that no setting of this gt4py reads.

The released variables with an equivalent are read as deprecated aliases of their setting
(``LegacyAlias``, declared with the setting; ``GT4PY_ENABLE_JIT_DEFAULT`` with gt4py.next's
``enable_jit``). Those declared here have none: a fatal one fails the first use of the config
naming what to use instead (ignoring it would change what is built or computed); the others
only warn, because results cannot depend on them. gt4py.next declares its own beside its
settings; released gt4py.cartesian's are here (gt4py.cartesian registers the few it keeps, such as the
literal precisions, beside the code they steer).

General-purpose variables that other tools read too (``CXX``, ``CXXFLAGS``, ``CUDA_HOME``,
``CUDAARCHS``, ``OMP_NUM_THREADS``, ``BOOST_ROOT``...) are never reported: docs/configuration.md
says what gt4py does with each.
"""

from __future__ import annotations

from ._registry import REGISTRY
from ._setting import RetiredVariable


_CXXFLAGS = (
    "put the flags in CXXFLAGS, which every native build of both stacks uses (and is keyed on)"
)

RELEASED_VARIABLES = (
    # -- both stacks (released gt4py.next's config) ------------------------------------------
    RetiredVariable(
        "GT4PY_BUILD_CACHE_VERSION_ID",
        released="forced old builds to be reused by a newer gt4py",
        instead=(
            "cache keys hold the sources and versions of what built an entry; to start from "
            "an empty cache run `python -m gt4py.infra.cache clean` or point "
            "GT4PY_BUILD_CACHE_DIR elsewhere"
        ),
        fatal=False,
    ),
    # -- released gt4py.cartesian's config -----------------------------------------------------
    RetiredVariable(
        "GT4PY_COMPILE_OPT_LEVEL",
        released="the -O level of gt4py.cartesian's C++ builds",
        instead=(
            "use GT4PY_CMAKE_BUILD_TYPE (Release: -O3, the default; Debug: -O0 -g; "
            "RelWithDebInfo; MinSizeRel: -Os)"
        ),
        same_as_ours=("3",),
    ),
    RetiredVariable(
        "GT4PY_EXTRA_COMPILE_OPT_FLAGS",
        released="extra optimization flags of gt4py.cartesian's C++ builds",
        instead=_CXXFLAGS,
        same_as_ours=("",),
    ),
    RetiredVariable(
        "GT4PY_EXTRA_COMPILE_ARGS",
        released="extra compiler flags of gt4py.cartesian's C++ builds",
        instead=_CXXFLAGS,
        same_as_ours=("",),
    ),
    RetiredVariable(
        "GT4PY_EXTRA_LINK_ARGS",
        released="extra linker flags of gt4py.cartesian's builds",
        instead="put the flags in LDFLAGS, which every native build of both stacks uses",
        same_as_ours=("",),
    ),
    RetiredVariable(
        "GT4PY_CARTESIAN_EXTRA_CUDA_COMPILE_ARGS",
        released="extra nvcc flags of gt4py.cartesian's CUDA builds",
        instead=(
            "nvcc takes no flags from the environment (host-compiler flags in CXXFLAGS reach "
            "it through -Xcompiler)"
        ),
        same_as_ours=("",),
    ),
    RetiredVariable(
        "GT4PY_CARTESIAN_ENABLE_OPENMP",
        released="whether gt4py.cartesian's C++ builds use OpenMP",
        # ignored with a warning, a build with OpenMP was what "False" got (issue 44): an error
        instead=(
            "the C++ backends build with OpenMP wherever the C++ compiler has it (one without "
            "it builds without); set OMP_NUM_THREADS=1 to run stencils on one thread, with the "
            "same results"
        ),
        same_as_ours=("1", "true", "yes", "on"),
    ),
    RetiredVariable(
        "GT_CACHE_LOAD_RETRIES",
        released="how often a stencil load from the cache was retried",
        instead=(
            "a concurrent build is waited for on a file lock instead "
            "(GT4PY_BUILD_LOCK_TIMEOUT bounds the wait)"
        ),
        fatal=False,
    ),
    RetiredVariable(
        "GT_CACHE_LOAD_RETRY_DELAY",
        released="the delay between stencil load retries",
        instead=(
            "a concurrent build is waited for on a file lock instead "
            "(GT4PY_BUILD_LOCK_TIMEOUT bounds the wait)"
        ),
        fatal=False,
    ),
    RetiredVariable(
        "GT_INCLUDE_PATH",
        released="the GridTools C++ headers gt4py.cartesian compiled against",
        instead="the generated C++ uses no GridTools headers",
        fatal=False,
    ),
    RetiredVariable(
        "GT_CPP_TEMPLATE_DEPTH",
        released="-ftemplate-depth of gt4py.cartesian's C++ builds",
        instead="the generated C++ uses no deep templates (CXXFLAGS=-ftemplate-depth=N if needed)",
        fatal=False,
    ),
    RetiredVariable(
        "OPENMP_CPPFLAGS",
        released="gt4py.cartesian's OpenMP compiler flags",
        instead="OpenMP flags come from CMake's OpenMP probe of the C++ compiler (GT4PY_CXX)",
        fatal=False,
    ),
    RetiredVariable(
        "OPENMP_LDFLAGS",
        released="gt4py.cartesian's OpenMP linker flags",
        instead="OpenMP flags come from CMake's OpenMP probe of the C++ compiler (GT4PY_CXX)",
        fatal=False,
    ),
    RetiredVariable(
        "CUDA_ARCH",
        released="the GPU architecture of gt4py.cartesian's CUDA builds",
        instead="CUDA builds target the current device (cupy's), else nvcc's default",
        fatal=False,
    ),
    RetiredVariable(
        "CUDA_HOST_CXX",
        released="nvcc's host compiler in gt4py.cartesian",
        instead="nvcc's host compiler is the C++ compiler of every native build (GT4PY_CXX, CXX)",
        fatal=False,
    ),
    RetiredVariable(
        "DACE_DEFAULT_BLOCK_SIZE",
        released="the GPU block size of gt4py.cartesian's dace backends",
        instead="dace:gpu's thread blocks are 32 x 8 along the layout's two innermost axes",
        fatal=False,
    ),
    RetiredVariable(
        "CLANG_FORMAT_EXECUTABLE",
        released="the clang-format that formatted generated code",
        instead="the clang-format on PATH formats generated code, when there is one",
        fatal=False,
    ),
)

REGISTRY.retire(*RELEASED_VARIABLES)
