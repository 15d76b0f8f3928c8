"""Released gt4py's compilation options of programs and operators (``with_compilation_options``).

The options steer how a compiled backend builds and picks variants; embedded backends accept
and ignore them (they compile nothing):

- ``enable_jit``: build a variant on a call that matches none (``None``: the ``enable_jit``
  setting, ``GT4PY_ENABLE_JIT``); ``False``: only ``.compile()``d variants run.
- ``static_params``: scalar parameters whose values are constants of the generated code (one
  variant per value).
- ``connectivities``: the offset provider ``.compile()`` uses when it is given none.
- ``static_domains``: one variant per combination of the field arguments' domains, which are
  then constants of the variant (a call on other domains needs another variant).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypedDict


class CompilationOptionsArgs(TypedDict, total=False):
    """The keyword arguments of ``with_compilation_options`` (for ``Unpack`` in signatures)."""

    enable_jit: bool | None
    static_params: Sequence[str] | None
    connectivities: Any
    static_domains: bool


@dataclasses.dataclass(frozen=True)
class CompilationOptions:
    enable_jit: bool | None = None
    static_params: tuple[str, ...] | None = None
    connectivities: Any = None
    static_domains: bool = False

    def __post_init__(self) -> None:
        if self.enable_jit is not None and not isinstance(self.enable_jit, bool):
            raise TypeError(f"enable_jit must be True, False or None, got {self.enable_jit!r}")
        if self.static_params is not None:
            params = self.static_params
            if isinstance(params, str) or not all(isinstance(p, str) for p in params):
                raise TypeError(
                    f"static_params must be a sequence of parameter names, got {params!r}"
                )
            object.__setattr__(self, "static_params", tuple(params))
        if not isinstance(self.static_domains, bool):
            raise TypeError(f"static_domains must be True or False, got {self.static_domains!r}")

    def replace(self, what: str, **changes: Any) -> CompilationOptions:
        """These options with ``changes``; an unknown option is a TypeError naming ``what``."""
        unknown = sorted(set(changes) - _NAMES)
        if unknown:
            raise TypeError(
                f"{what}: unknown compilation option(s) {', '.join(map(repr, unknown))} "
                f"(the options are {', '.join(sorted(_NAMES))})"
            )
        return dataclasses.replace(self, **changes)


_NAMES = frozenset(f.name for f in dataclasses.fields(CompilationOptions))
DEFAULT_OPTIONS = CompilationOptions()
