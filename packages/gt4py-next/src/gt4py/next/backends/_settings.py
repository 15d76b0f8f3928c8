"""The gt4py.next settings of the compiled backends, registered in the infra config registry.

Importing this module registers them (``python -m gt4py.infra.config`` lists them once the
``gt4py.infra.settings`` entry point of gt4py-next names this module).
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
    )
)
# The metrics settings are registered beside what they steer (gt4py.next.metrics, below the
# backends); importing them here lists them with the others.
from ..metrics import (  # noqa: E402
    COLLECT_METRICS_LEVEL as COLLECT_METRICS_LEVEL,
    DUMP_METRICS_AT_EXIT as DUMP_METRICS_AT_EXIT,
)
