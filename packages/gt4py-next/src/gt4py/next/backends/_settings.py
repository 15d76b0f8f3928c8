"""The gt4py.next settings of the compiled backends, registered in the infra config registry.

Importing this module registers them (``python -m gt4py.infra.config`` lists them once the
``gt4py.infra.settings`` entry point of gt4py-next names this module).
"""

from __future__ import annotations

import pathlib

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
COLLECT_METRICS_LEVEL = config.register(
    config.Setting(
        name="collect_metrics_level",
        type=int,
        default=0,
        minimum=0,
        doc="above 0: count calls and time them per compiled program (gt4py.next.metrics)",
        env="GT4PY_COLLECT_METRICS_LEVEL",
    )
)
DUMP_METRICS_AT_EXIT: config.Setting[pathlib.Path | None] = config.register(
    config.Setting(
        name="dump_metrics_at_exit",
        type=pathlib.Path,
        default=None,
        optional=True,
        doc="JSON file the collected metrics are written to at exit (unset: a table on stderr)",
        env="GT4PY_DUMP_METRICS_AT_EXIT",
    )
)
