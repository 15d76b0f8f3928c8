"""Released gt4py's mypy plugin path, ``gt4py.next.type_system.mypy_plugin``: deprecated.

A gt4py 1.2 project's configuration (``plugins = ["gt4py.next.type_system.mypy_plugin"]``)
keeps loading and checking with :mod:`gt4py.next.mypy_plugin`, the plugin's path now. mypy
prints a line naming the new path on every run (on standard error, where it cannot be taken
for one of the checked code's errors), and importing this module warns
(``GT4PyDeprecationWarning``). The alias goes with the relocated names (docs/migration.md).
"""

from __future__ import annotations

import sys
import warnings

from mypy.plugin import Plugin  # tach-ignore

from gt4py.infra.deprecation import GT4PyDeprecationWarning

from .. import mypy_plugin as _plugin


MESSAGE = (
    "gt4py: the mypy plugin gt4py.next.type_system.mypy_plugin is deprecated; "
    'use plugins = ["gt4py.next.mypy_plugin"] (docs/migration.md)'
)

GT4PyNextPlugin = _plugin.GT4PyNextPlugin

warnings.warn(MESSAGE, GT4PyDeprecationWarning, stacklevel=2)


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point: gt4py.next.mypy_plugin's plugin, with a line naming its path."""
    print(MESSAGE, file=sys.stderr)
    return _plugin.plugin(version)
