"""C++ spellings shared by the gtfn C++ and CUDA generators: the IR dtypes' C++ types and the
includes every generated module starts with."""

from __future__ import annotations

from collections.abc import Sequence

from gt4py.infra import native


CXX_TYPES = {
    "bool": "bool",
    "int8": "std::int8_t",
    "int16": "std::int16_t",
    "int32": "std::int32_t",
    "int64": "std::int64_t",
    "uint8": "std::uint8_t",
    "uint16": "std::uint16_t",
    "uint32": "std::uint32_t",
    "uint64": "std::uint64_t",
    "float32": "float",
    "float64": "double",
}

INCLUDES = r"""#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
// Python's arithmetic (gt4py::floordiv, mod, power, minimum, maximum, abs): gt4py.infra.native
#include <gt4py/python_semantics.hpp>

namespace nb = nanobind;
using index_t = std::int64_t;

"""


def run_function(parameters: Sequence[native.Parameter], body: str) -> str:
    """``static int run(...) { body }`` over ``parameters``."""
    signature = ",\n    ".join(p.declaration for p in parameters)
    return f"static int run(\n    {signature}) {{\n{body}\n  return 0;\n}}\n\n"
