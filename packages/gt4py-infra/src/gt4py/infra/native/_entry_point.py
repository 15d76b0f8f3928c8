"""The C++ text of a generated extension's entry point: ``run`` bound through one ``nb::args``.

Both stacks generate a ``run`` function with one parameter per field, origin, scalar or table
and bind it here (one binding generator). nanobind's typed binding (``m.def("run", &run)``)
builds every parameter's signature text, loader and dispatch with templates at compile time;
with ICON's 30 to 200 parameters or an FV3 stencil's 20 to 50 fields that was most of the
build (a 64-parameter gtfn program: 4.4 s at -O3 typed, 2.4 s so, 1.4 s unbound; a 49-field
GTScript stencil: 7.2 s typed, 2.4 s unbound). Here the count is checked, then each argument
is cast on its own with ``nb::try_cast`` (one caster instantiation per distinct type), and a
failed cast is a ``TypeError`` naming the argument.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence


#: the per-argument cast (``nb::cast`` would raise a bare ``std::bad_cast``)
_CAST = """\
template <class T> static T gt_argument(nb::handle value, bool convert, const char* message) {
  T result;
  if (!nb::try_cast<T>(value, result, convert)) throw nb::type_error(message);
  return result;
}
"""


@dataclasses.dataclass(frozen=True)
class Parameter:
    """One parameter of ``run``: its C++ type and name, and whether nanobind may convert the
    argument (``False`` for arrays the generated code writes: a converted copy would take the
    writes)."""

    type: str
    name: str
    convert: bool = True

    @property
    def declaration(self) -> str:
        """``"<type> <name>"``, as in ``run``'s parameter list."""
        return f"{self.type} {self.name}"


def entry_point(
    module: str, parameters: Sequence[Parameter], *, returns: bool = True, doc: str = ""
) -> str:
    """``NB_MODULE(module, m)`` defining the Python ``run(*args)`` that calls the C++
    ``run(...)`` (declared before it with ``parameters``; ``returns``: whether it returns an
    ``int`` status, else ``void``)."""
    casts = []
    for n, p in enumerate(parameters):
        message = f"run(): argument {n} ({p.name}) is not a {p.type}"
        convert = "true" if p.convert else "false"
        casts.append(f'        gt_argument<{p.type}>(args[{n}], {convert}, "{message}")')
    call = "run(\n" + ",\n".join(casts) + ")"
    doc_argument = ", " + _cxx_string(doc) if doc else ""
    return (
        f"{_CAST}\n"
        f"NB_MODULE({module}, m) {{\n"
        f'  m.def("run", [](nb::args args) -> {"int" if returns else "void"} {{\n'
        f"    if (args.size() != {len(casts)})\n"
        f'      throw nb::type_error("run() takes {len(casts)} arguments");\n'
        f"    {'return ' if returns else ''}{call};\n"
        f"  }}{doc_argument});\n"
        "}\n"
    )


def _cxx_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
