"""The gt4py.next settings of the compiled backends, registered in the infra config registry.

Importing this module registers them (``python -m gt4py.infra.config`` lists them once the
``gt4py.infra.settings`` entry point of gt4py-next names this module), with released gt4py.next's
variable names: ``GT4PY_ENABLE_JIT_DEFAULT`` is a deprecated alias of ``GT4PY_ENABLE_JIT``, and
the released variables without an equivalent are declared retired here (they fail or warn at
the next use of the config, naming what to use instead).
"""

from __future__ import annotations

from gt4py.infra import config


ASYNC_COMPILATION = config.register(
    config.Setting(
        name="async_compilation",
        type=bool,
        default=True,
        doc="program.compile() builds variants in the background (infra runners); "
        "gtx.wait_for_compilation() waits for them",
        env="GT4PY_ASYNC_COMPILATION",
    )
)
ENABLE_JIT = config.register(
    config.Setting(
        name="enable_jit",
        type=bool,
        default=True,
        doc="compile a program variant on its first call; off: only .compile()d variants run "
        "(the decorator's enable_jit= takes precedence)",
        env="GT4PY_ENABLE_JIT",
        aliases=(config.LegacyAlias("GT4PY_ENABLE_JIT_DEFAULT"),),
    )
)
config.retire(
    config.RetiredVariable(
        "GT4PY_VERBOSE_EXCEPTIONS",
        released="longer DSL error messages",
        instead="DSL errors have one format, with the source location of the user's code",
        fatal=False,
    ),
    config.RetiredVariable(
        "GT4PY_UNSTRUCTURED_HORIZONTAL_HAS_UNIT_STRIDE",
        released="experimental: gtfn assumed unit stride of horizontal dimensions",
        instead="gtfn uses the strides of the fields it is called with",
        fatal=False,
    ),
    config.RetiredVariable(
        "GT4PY_ADD_GPU_TRACE_MARKERS",
        released="NVTX/ROC-TX markers in generated GPU code",
        instead=(
            "no markers are generated; GT4PY_COLLECT_METRICS_LEVEL=1 times every program, "
            "and a profiler's CUDA trace shows the kernels"
        ),
        fatal=False,
    ),
    config.RetiredVariable(
        "GT4PY_KEEP_DACE_BUILD_FILES",
        released="kept the dace backend's build folder",
        instead="there is no dace backend (GT4PY_DUMP_STAGES writes every stage of a build)",
        fatal=False,
    ),
    config.RetiredVariable(
        "GT4PY_SKIP_DACE_WARNINGS",
        released="hid dace's warnings",
        instead="there is no dace backend",
        fatal=False,
    ),
)
# The metrics settings are registered beside what they steer (gt4py.next.metrics, below the
# backends); importing them here lists them with the others.
from ..metrics import (  # noqa: E402
    COLLECT_METRICS_LEVEL as COLLECT_METRICS_LEVEL,
    DUMP_METRICS_AT_EXIT as DUMP_METRICS_AT_EXIT,
)
