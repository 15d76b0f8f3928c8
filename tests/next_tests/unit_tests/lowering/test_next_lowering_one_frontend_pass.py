"""One frontend pass: a program is parsed and type-checked once, when it is decorated;
compiling it (lowering, for any backend) reads the typed tree that check kept."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import config
from gt4py.next.ffront import _program_checking, _source


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]
FACTOR = 2.0  # a module constant: lowering reads the value recorded at check time


@gtx.field_operator
def _scaled(a: IField) -> IField:
    return FACTOR * a


@pytest.fixture
def counted(monkeypatch):
    """Counts of program type deductions and of parsed definitions."""
    counts = {"type_deduction": 0, "parse": 0}
    run = _program_checking.ProgramTypeDeduction.run
    parse = _source.SourceDefinition.from_function.__func__

    def counting_run(self):
        counts["type_deduction"] += 1
        return run(self)

    def counting_parse(cls, function):
        counts["parse"] += 1
        return parse(cls, function)

    monkeypatch.setattr(_program_checking.ProgramTypeDeduction, "run", counting_run)
    monkeypatch.setattr(_source.SourceDefinition, "from_function", classmethod(counting_parse))
    return counts


@pytest.mark.parametrize("backend", [gtx.itir_python, gtx.gtfn_cpu], ids=lambda b: b.name)
def test_compiling_a_program_checks_it_once(backend, counted, cache_dir):
    def scaled(a: IField, out: IField):
        _scaled(a, out=out)

    program = gtx.program(backend=backend)(scaled)
    assert counted == {"type_deduction": 1, "parse": 1}  # at decoration
    a, out = gtx.as_field([I], np.arange(4.0)), gtx.zeros({I: 4})
    with config.overrides(async_compilation=False):
        program(a, out, offset_provider={})
        program.with_backend(backend)(a, out, offset_provider={})
    assert out.asnumpy().tolist() == [0.0, 2.0, 4.0, 6.0]
    assert counted == {"type_deduction": 1, "parse": 1}  # lowering parsed and checked nothing
