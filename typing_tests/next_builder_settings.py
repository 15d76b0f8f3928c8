"""Backend builders take explicit keyword settings: a misspelled one is an error."""

from __future__ import annotations

import functools

from gt4py.next.backends.gtfn import (
    GTFNConfig,
    make_gtfn_backend,
    make_gtfn_compiler,
    make_gtfn_translation,
)


config = GTFNConfig(device="cpu")
backend = make_gtfn_backend(
    config,
    name="gtfn_serial",
    translation=functools.partial(make_gtfn_translation, openmp=False),
    compiler=functools.partial(make_gtfn_compiler, extra_compile_flags=("-O2",)),
)

bad_config = GTFNConfig(devise="gpu")  # P: reportCallIssue  # E: call-arg
bad_step = functools.partial(make_gtfn_translation, opnemp=False)  # P: reportCallIssue  # E: call-arg  # fmt: skip
bad_backend = make_gtfn_backend(config, translaton=make_gtfn_translation)  # P: reportCallIssue  # E: call-arg  # fmt: skip
bad_value = functools.partial(make_gtfn_compiler, extra_compile_flags="-O2")  # P: reportArgumentType  # E: arg-type  # fmt: skip
