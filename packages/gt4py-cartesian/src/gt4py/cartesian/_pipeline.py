"""The declared stages of GTScript backends and the steps they share (Triton's ``compile()``).

A backend declares its stages as one ordered list (``backend.STAGES``), with the names
gt4py.next uses where the meaning matches:

- ``numpy``, ``debug``: ``frontend → ir → analysis → py``
- ``gt:cpu_ifirst``, ``gt:cpu_kfirst``: ``frontend → ir → analysis → cpp → so``
- ``gt:gpu``, ``cuda``: ``frontend → ir → analysis → cu → so``
- ``dace:cpu``, ``dace:cpu_kfirst``, ``dace:cpu_KJI``: ``frontend → ir → analysis → sdfg → cpp
  → so`` (``_dace``)

``frontend`` is the parsed definition (its source and ``ast``, a ``SourceInfo``), ``ir`` the
definition IR, ``analysis`` the analysed stencil, ``cpp``/``cu`` the generated source, ``so``
the built extension's path and ``py`` the generated stencil module. A step turns the previous
stage's value (the first step: the :class:`BuildRequest`) into its own stage's value; the
builder runs them in one loop. ``GT4PY_DUMP_STAGES`` writes each as ``<stage>.<suffix>``.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import pprint
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from gt4py.infra.pipeline import Stage


if TYPE_CHECKING:  # loading a cached stencil must not import the frontend, IR or analysis
    from ._analysis import AnalysedStencil
    from ._ir import Stencil
    from ._source import SourceInfo


FRONTEND: Final = Stage("frontend", "py")  # the parsed definition; dumped as its source
IR: Final = Stage("ir", "txt")  # the definition IR (_ir.Stencil)
ANALYSIS: Final = Stage("analysis", "txt")  # the analysed stencil (_analysis.AnalysedStencil)
PY: Final = Stage("py", "py")  # the generated stencil module (numpy, debug)
SDFG: Final = Stage("sdfg", "sdfg")  # the DaCe backends' dace.SDFG (dumped as its JSON)
CPP: Final = Stage("cpp", "cpp")  # the generated C++ source
CU: Final = Stage("cu", "cu")  # the generated CUDA source
SO: Final = Stage("so", "so")  # the built extension (a pathlib.Path)

#: The stages every backend starts with.
COMMON_STAGES: Final = (FRONTEND, IR, ANALYSIS)


@dataclasses.dataclass(frozen=True)
class BuildRequest:
    """What one stencil build starts from: the definition and how it is to be built."""

    func: Callable[..., Any]
    name: str
    backend: str
    externals: Mapping[str, Any]
    dtypes: Mapping[str, Any]
    annotation_locals: Mapping[str, Any] | None
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # the backend's own


#: One stage transition: (the previous stage's value, the request) -> this stage's value.
Step = Callable[[Any, BuildRequest], Any]


def parse_definition(request: BuildRequest, _: BuildRequest) -> SourceInfo:
    """``frontend``: the definition's source and its parsed ``def``."""
    from ._source import source_info

    return source_info(request.func)


def definition_ir(definition: SourceInfo, request: BuildRequest) -> Stencil:
    """``ir``: the definition IR, parsed from the ``frontend`` stage's source. The parser
    resolves names through the function itself (its globals, closure and the caller's
    locals), so it also gets ``request.func``."""
    from ._frontend import DefinitionParser

    return DefinitionParser(
        request.func,
        externals=request.externals,
        dtypes=request.dtypes,
        name=request.name,
        annotation_locals=request.annotation_locals,
        source=definition,
    ).parse()


def analysis(stencil: Stencil, _: BuildRequest) -> AnalysedStencil:
    from ._analysis import analyse

    return analyse(stencil)


def numpy_module(analysed: AnalysedStencil, request: BuildRequest) -> str:
    """``py`` of the numpy backend: the module with ``run(...)`` and ``METADATA``."""
    from ._numpy_codegen import generate

    code = _quiet_floating_point(generate(analysed), request)
    return with_metadata(code, analysed, request.backend)


def debug_module(analysed: AnalysedStencil, request: BuildRequest) -> str:
    """``py`` of the debug backend: the module with ``run(...)`` and ``METADATA``."""
    from ._debug_codegen import generate

    code = _quiet_floating_point(generate(analysed), request)
    return with_metadata(code, analysed, request.backend)


#: ``run`` under ``np.errstate``: a stencil computes values that masks and ``where`` then
#: discard (``x / y`` on points where ``y == 0``), and numpy would warn about each as the C++
#: backends never do. The backends' option ``ignore_np_errstate`` (released's, default true)
#: turns this off.
_QUIET_RUN = """

_run_with_warnings = run


def run(*args):
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        return _run_with_warnings(*args)
"""


def _quiet_floating_point(code: str, request: BuildRequest) -> str:
    return code + _QUIET_RUN if request.options.get("ignore_np_errstate", True) else code


def with_metadata(code: str, analysed: AnalysedStencil, backend: str) -> str:
    """``code`` with the ``METADATA`` a StencilObject is made from (parameters, halos)."""
    metadata = pprint.pformat(stencil_metadata(analysed, backend), width=100)
    return f"{code}\n\nMETADATA = {metadata}\n"


def stencil_metadata(analysed: AnalysedStencil, backend: str) -> dict[str, Any]:
    """What a StencilObject is made from: the parameters (dtypes, access, axes, halos) and
    the backend."""
    from ._analysis import ZERO
    from ._ir import FieldDecl

    params = []
    for p in analysed.ir.params:
        entry: dict[str, Any] = {
            "name": p.name,
            "dtype": p.dtype,
            "access": analysed.access[p.name],
        }
        if isinstance(p, FieldDecl):
            ext = analysed.field_extents.get(p.name, ZERO)
            k_accesses = sorted(analysed.k_accesses[p.name])
            k_low = min(
                [0] + [s_off + dk for s_lvl, s_off, _, _, dk in k_accesses if s_lvl == "start"]
            )
            halo = {"I": (ext.i_lo, ext.i_hi), "J": (ext.j_lo, ext.j_hi), "K": (min(0, k_low), 0)}
            large = analysed.large_domain_extents.get(p.name, ZERO)
            halo_large = dict(halo, I=(large.i_lo, large.i_hi), J=(large.j_lo, large.j_hi))
            entry.update(
                kind="field",
                axes=p.axes,
                data_dims=list(p.data_dims),
                halo=[halo[a] for a in p.axes],
                # the halo once the domain has at least large_from (I, J) points (reads in
                # regions at one edge stay inside the domain): the one the call checks then
                halo_large=[halo_large[a] for a in p.axes],
                k_accesses=[list(a) for a in k_accesses],
            )
        else:
            entry["kind"] = "scalar"
        params.append(entry)
    return {
        "name": analysed.ir.name,
        "backend": backend,
        "params": params,
        "large_from": list(analysed.large_domain_from),
    }


def render(stage: Stage, value: Any) -> str | bytes | None:
    """A stage value as its dump file's contents (``StageValues.dump``)."""
    if stage == FRONTEND:
        return f"# {value.filename}:{value.first_line}\n{value.source}"
    if stage == IR:
        return pprint.pformat(value, width=100) + "\n"
    if stage == ANALYSIS:
        return str(value.describe()) + "\n"
    if stage == SDFG and not isinstance(value, str):  # a dace.SDFG, as DaCe's JSON
        return json.dumps(value.to_json(), indent=1)  # (dace.SDFG.from_json reads it back)
    if isinstance(value, str):
        return value
    extension: pathlib.Path = value  # the so stage
    return extension.read_bytes()
