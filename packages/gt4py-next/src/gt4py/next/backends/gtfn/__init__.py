"""The gtfn backend: the IR as C++ loop nests (OpenMP), nanobind bindings, infra native build."""

from ._steps import (
    GTFNConfig as GTFNConfig,
    make_gtfn_backend as make_gtfn_backend,
    make_gtfn_compiler as make_gtfn_compiler,
    make_gtfn_passes as make_gtfn_passes,
    make_gtfn_translation as make_gtfn_translation,
)
