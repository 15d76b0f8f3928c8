"""Released gt4py's gtfn backends by their old names; each warns and names the new spelling.

- ``run_gtfn`` and ``run_gtfn_cached`` are ``gtx.gtfn_cpu`` now (its translation is cached
  persistently, its compiled programs per backend), ``run_gtfn_gpu`` and
  ``run_gtfn_gpu_cached`` are ``gtx.gtfn_gpu``.
- ``GTFNBackendFactory(gpu=...)`` gives ``gtx.gtfn_cpu`` / ``gtx.gtfn_gpu``. Of the released
  factory's keywords those with the same meaning here map (``gpu``, ``cached``,
  ``name_postfix``, ``otf_workflow__cached_translation``, ``otf_workflow__cmake_build_type``);
  any other is a ``TypeError`` naming ``gt4py.next.backends.gtfn.make_gtfn_backend``.
- ``run_gtfn_imperative`` (a different gtfn code generator) and ``run_gtfn_no_transforms``
  (no IR transformations) have no equivalent: an ``AttributeError`` says what to use.
"""

from __future__ import annotations

import functools
from typing import Any

from ... import _relocated


_MAKE_GTFN_BACKEND = "gt4py.next.backends.gtfn.make_gtfn_backend"

_FACTORY_KEYWORDS = (
    "gpu",
    "cached",
    "name_postfix",
    "otf_workflow__cached_translation",
    "otf_workflow__cmake_build_type",
)
_BUILD_TYPES = ("Release", "Debug", "RelWithDebInfo", "MinSizeRel")


def _gtfn_backend_factory(
    *,
    gpu: bool = False,
    cached: bool = True,
    name_postfix: str = "",
    otf_workflow__cached_translation: bool = True,
    otf_workflow__cmake_build_type: Any = None,
    **options: Any,
) -> Any:
    """Released ``GTFNBackendFactory``: the stock gtfn backend for its default keywords.

    ``cached`` is accepted either way: compiled programs are always kept per backend here.
    ``otf_workflow__cmake_build_type`` (released ``config.CMakeBuildType`` or its value; as
    released, the ``cmake_build_type`` setting when not given) and
    ``otf_workflow__cached_translation=False`` give a backend built by ``make_gtfn_backend``
    unless they equal the stock backend's config.
    """
    del cached  # compiled programs are always cached per backend here
    if options:
        raise TypeError(
            f"GTFNBackendFactory: {', '.join(sorted(options))} have no equivalent here (it "
            f"takes {', '.join(_FACTORY_KEYWORDS)}); build a customized backend with "
            f"{_MAKE_GTFN_BACKEND}(GTFNConfig(...), translation=functools.partial(...))"
        )
    from ...backends import gtfn

    settings: dict[str, Any] = {}
    if otf_workflow__cmake_build_type is not None:
        build_type = getattr(
            otf_workflow__cmake_build_type, "value", otf_workflow__cmake_build_type
        )
        if build_type not in _BUILD_TYPES:
            raise TypeError(
                "GTFNBackendFactory: otf_workflow__cmake_build_type="
                f"{otf_workflow__cmake_build_type!r} is not one of {', '.join(_BUILD_TYPES)}"
            )
        settings["build_type"] = build_type
    config = gtfn.GTFNConfig(
        device="gpu" if gpu else "cpu",
        cached_translation=bool(otf_workflow__cached_translation),
        **settings,
    )
    return _gtfn_backend(config, name_postfix)


@functools.cache
def _gtfn_backend(config: Any, postfix: str) -> Any:
    """The stock backend when ``config`` is its config, else one built backend per setting."""
    from ...backends import _compiled_backend, gtfn

    stock = _compiled_backend.stock_backend(f"gtfn_{config.device}")
    if config == stock.config and not postfix:
        return stock
    return gtfn.make_gtfn_backend(config, name=f"gtfn_{config.device}{postfix}")


_NO_TRANSFORMS = (
    f"{_MAKE_GTFN_BACKEND}(passes=functools.partial(make_gtfn_passes, cse=False, "
    "constant_folding=False)) for fewer passes, or gtx.itir_python to debug generated code"
)

__getattr__ = _relocated.module_getattr(
    __name__,
    {
        "run_gtfn": _relocated.Moved("gtx.gtfn_cpu", "gt4py.next.backends:gtfn_cpu"),
        "run_gtfn_cached": _relocated.Moved("gtx.gtfn_cpu", "gt4py.next.backends:gtfn_cpu"),
        "run_gtfn_gpu": _relocated.Moved("gtx.gtfn_gpu", "gt4py.next.backends:gtfn_gpu"),
        "run_gtfn_gpu_cached": _relocated.Moved("gtx.gtfn_gpu", "gt4py.next.backends:gtfn_gpu"),
        "GTFNBackendFactory": _relocated.Moved(
            f"gtx.gtfn_cpu / gtx.gtfn_gpu (customized: {_MAKE_GTFN_BACKEND})",
            f"{__name__}:_gtfn_backend_factory",
        ),
        "run_gtfn_imperative": _relocated.Gone(
            replacement=f"gtx.gtfn_cpu (gtfn's loop-nest C++) or {_MAKE_GTFN_BACKEND}",
            why="released gt4py's imperative gtfn code generation is a different gtfn mode, "
            "which this gt4py.next does not have",
        ),
        "run_gtfn_no_transforms": _relocated.Gone(
            replacement=_NO_TRANSFORMS,
            why="this gt4py.next has no gtfn mode that skips the IR transformations",
        ),
    },
    otherwise=_relocated.Gone(
        replacement=f"{_MAKE_GTFN_BACKEND} with gt4py.next.backends.gtfn.GTFNConfig and the "
        "step builders make_gtfn_translation / make_gtfn_compiler / make_gtfn_passes",
        why="released gt4py's gtfn toolchain pieces (factories, workflow steps, its "
        "GTFNConfig) are not provided here",
    ),
)
