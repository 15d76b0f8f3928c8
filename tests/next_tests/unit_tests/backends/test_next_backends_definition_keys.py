"""A warm start never lowers (issue 28): the lowered and optimized IR of a variant is cached under
a key of the checked definition, and whatever the user changes that the IR depends on — a
callee's body, a helper module's constant, a static value — is a miss that lowers again.

Each run is a new process on one persistent cache (itir_python: no C++ compiler needed). A run
given ``--refuse-lowering`` replaces the lowering entry points with ones that fail (test-only
instrumentation), so it succeeds only when every variant came from the cache.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from gt4py.next.backends import _definition_keys


HELPERS = """\
import gt4py.next as gtx

I = gtx.Dimension("I")
FACTOR = {factor}


@gtx.field_operator
def scaled(a: gtx.Field[[I], gtx.float64]) -> gtx.Field[[I], gtx.float64]:
    return {body}


@gtx.field_operator
def twice(a: gtx.Field[[I], gtx.float64]) -> gtx.Field[[I], gtx.float64]:
    return scaled(a) + scaled(a)
"""

SCRIPT = textwrap.dedent(
    """\
    import sys
    import numpy as np
    import gt4py.next as gtx
    from gt4py.next import lowering

    import helpers

    if "--refuse-lowering" in sys.argv:
        def refuse(*args, **kwargs):
            raise SystemExit("LOWERED")
        lowering.lower_program = lowering.lower_operator_call = refuse

    @gtx.program(backend=gtx.itir_python, static_params=("s",))
    def program(a: gtx.Field[[helpers.I], gtx.float64], s: gtx.float64, out: gtx.Field[[helpers.I], gtx.float64]):
        helpers.twice(a * s, out=out)

    a = gtx.as_field([helpers.I], np.arange(4.0))
    out = gtx.zeros({helpers.I: 4})
    program(a, float(sys.argv[1]), out, offset_provider={})
    print(out.asnumpy().tolist())
    """
)


@pytest.fixture
def project(tmp_path: pathlib.Path):
    (tmp_path / "main.py").write_text(SCRIPT)
    environment = {
        **os.environ,
        "GT4PY_BUILD_CACHE_DIR": str(tmp_path / "cache"),
        "GT4PY_BUILD_CACHE_LIFETIME": "persistent",
        "PYTHONPATH": str(tmp_path),
    }

    def run(*, factor: str = "2.0", body: str = "a * FACTOR", s: str = "1.0", refuse: bool):
        (tmp_path / "helpers.py").write_text(HELPERS.format(factor=factor, body=body))
        arguments = [s, "--refuse-lowering"] if refuse else [s]
        done = subprocess.run(
            [sys.executable, str(tmp_path / "main.py"), *arguments],
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if "LOWERED" in done.stderr:
            return "lowered"
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    return run


def test_warm_start_reads_the_lowered_ir_from_the_cache(project) -> None:
    assert project(refuse=True) == "lowered"  # cold: nothing cached yet
    assert project(refuse=False) == "[0.0, 4.0, 8.0, 12.0]"
    assert project(refuse=True) == "[0.0, 4.0, 8.0, 12.0]"  # a new process: no lowering


def test_what_the_ir_depends_on_is_a_miss(project) -> None:
    assert project(refuse=False) == "[0.0, 4.0, 8.0, 12.0]"
    # a helper module's constant, a callee's body, a static value: each lowers again
    assert project(factor="3.0", refuse=True) == "lowered"
    assert project(factor="3.0", refuse=False) == "[0.0, 6.0, 12.0, 18.0]"
    assert project(body="a * FACTOR + 1.0", refuse=True) == "lowered"
    assert project(body="a * FACTOR + 1.0", refuse=False) == "[2.0, 6.0, 10.0, 14.0]"
    assert project(s="2.0", refuse=True) == "lowered"
    assert project(s="2.0", refuse=False) == "[0.0, 8.0, 16.0, 24.0]"
    # and the first definition is still a hit
    assert project(refuse=True) == "[0.0, 4.0, 8.0, 12.0]"


def test_a_customized_optimize_step_is_not_keyed() -> None:
    assert _definition_keys.lowered_key(object(), None, lambda program: program) is None  # type: ignore[arg-type]
