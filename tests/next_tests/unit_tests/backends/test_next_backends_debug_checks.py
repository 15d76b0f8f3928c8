"""GT4PY_DEBUG: the generated code checks every field read per point (a second line of defence
behind the call stub's extent checks), and reports a read outside instead of making it."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import config


I = gtx.Dimension("I")
Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))
IField = gtx.Field[gtx.Dims[I], gtx.float64]


def right(a: IField) -> IField:
    return a(Ioff[1])


def program_on(backend):
    operator = gtx.field_operator(right)

    def shifted(a: IField, out: IField):
        operator(a, out=out)

    shifted.__module__ = __name__
    return gtx.program(shifted, backend=backend)


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param(lambda: gtx.itir_python, id="itir_python"),
        pytest.param(lambda: gtx.gtfn_cpu, id="gtfn_cpu", marks=pytest.mark.slow),
    ],
)
def test_debug_checks_every_read(cache_dir, backend):
    a = gtx.as_field([I], np.arange(5.0))
    provider = {"Ioff": I}
    for debug in (False, True):
        with config.overrides(debug=debug):
            prog = program_on(backend())
            out = gtx.as_field([I], np.zeros(4))
            prog(a, out, offset_provider=provider)
            assert out.asnumpy().tolist() == [1.0, 2.0, 3.0, 4.0]
            (variant,) = prog.compiled_variants
            code = variant.stages.get("cpp") or variant.stages["py"]
            checked = "gt_outside<double>(gt_status" in code or "status0 = " in code
            assert checked == debug
            if debug:
                # past the stub's checks (as if they had a hole): the entry point reports the
                # read outside `a` instead of making it
                too_long = gtx.as_field([I], np.zeros(5))
                assert variant((a, too_long)) == 1
