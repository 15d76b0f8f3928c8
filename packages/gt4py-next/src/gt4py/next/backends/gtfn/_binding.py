"""The Python entry point of a generated module: ``run`` bound through one ``nb::args``.

nanobind's typed binding (``m.def("run", &run)``) builds the signature, argument loaders and
dispatch of every parameter at compile time. ICON's programs take 30 to 200 parameters (fields
with their origins, scalars, tables); there that template work was most of the C++ build
(a 64-parameter dycore program: 4.4 s at -O3, 2.4 s bound this way, 1.4 s without a binding).
Here each argument is cast on its own (``nb::try_cast``: the casters of the few distinct types
are instantiated once), after the count is checked, with the same checks as before: device,
writability (``nb::ro`` for fields only read), integer and float conversions.
"""

from __future__ import annotations

from collections.abc import Sequence


#: one argument cast, failing with a TypeError that names the parameter (``nb::cast`` would
#: raise a bare ``std::bad_cast``); the caster of each type is instantiated once
_CAST = """\
template <class T> static T gt_argument(nb::handle value, const char* message) {
  T result;
  if (!nb::try_cast<T>(value, result)) throw nb::type_error(message);
  return result;
}
"""


def entry_point(module: str, parameters: Sequence[str]) -> str:
    """``NB_MODULE(module, m)`` defining ``run(*args)`` that calls ``static int run(...)``;
    ``parameters`` are the C++ declarations of its parameters (``"<type> <name>"``)."""
    casts = []
    for n, parameter in enumerate(parameters):
        type_, name = parameter.rsplit(" ", 1)
        message = f"run(): argument {n} ({name}) is not a {type_}"
        casts.append(f'        gt_argument<{type_}>(args[{n}], "{message}")')
    return (
        f"{_CAST}\n"
        f"NB_MODULE({module}, m) {{\n"
        '  m.def("run", [](nb::args args) -> int {\n'
        f"    if (args.size() != {len(casts)})\n"
        f'      throw nb::type_error("run() takes {len(casts)} arguments");\n'
        "    return run(\n" + ",\n".join(casts) + ");\n"
        "  });\n"
        "}\n"
    )
