"""FV3 GTScript idioms (fv3_idiom_stencils.py) on every backend, against numpy and hand-written numpy.

* numpy vs debug: bitwise (``np.array_equal`` with NaN positions);
* gt:cpu_ifirst / gt:cpu_kfirst vs numpy: ``rtol=1e-13, atol=0`` (ints and bools exact);
* gt:gpu_emulated (the gt:gpu CUDA, run on the host) vs numpy, the same way, on every case;
* numpy and debug vs the expectations of fv3_idiom_references.py (so all backends agreeing on a wrong
  answer still fails).

Each stencil is built once per backend for the whole module (``_built``); the C++ builds share
the conftest's session cache root.
"""

import os
import pathlib
import sys

import numpy as np
import pytest


_HERE = pathlib.Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

import fv3_idiom_references as references  # noqa: E402
import fv3_idiom_stencils as idioms  # noqa: E402


# The numpy backend evaluates both sides of a masked branch (on the masked-out points too).
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

CASES = idioms.CASES
CPP = ("gt:cpu_ifirst", "gt:cpu_kfirst")
EMULATED_GPU = "gt:gpu_emulated"  # every case: its kernels run nowhere else without a GPU
SEED = 2024
# Every case on both C++ backends (about 4 s a compile); by default each case's `cpp` subset.
ALL_CPP = os.environ.get("GT4PY_FV3_IDIOMS_ALL_CPP", "") not in ("", "0")

_built: dict[tuple[str, str], object] = {}
_results: dict[tuple[str, str], dict[str, np.ndarray]] = {}


def _run(case, backend):
    """The outputs of ``case`` on ``backend`` (seeded inputs); one build per case and backend."""
    key = (case.name, backend)
    if key not in _results:
        if key not in _built:
            _built[key] = idioms.build(case, backend)
        arrays = idioms.make_inputs(case, SEED)
        idioms.call(_built[key], case, arrays)
        _results[key] = arrays
    return {name: value.copy() for name, value in _results[key].items()}


def _params():
    out = []
    for case in CASES:
        out.append(pytest.param(case, "debug", id=f"{case.name}-debug"))
        for backend in CPP if ALL_CPP else case.cpp:
            out.append(
                pytest.param(case, backend, id=f"{case.name}-{backend}", marks=pytest.mark.slow)
            )
        out.append(
            pytest.param(
                case, EMULATED_GPU, id=f"{case.name}-{EMULATED_GPU}", marks=pytest.mark.slow
            )
        )
    return out


@pytest.mark.parametrize(("case", "backend"), _params())
def test_backend_agrees_with_numpy(case, backend):
    want = _run(case, "numpy")
    got = _run(case, backend)
    for name in case.fields:
        g, w = got[name], want[name]
        assert g.dtype == w.dtype and g.shape == w.shape, name
        if backend == "debug" or w.dtype != np.float64:
            assert np.array_equal(g, w, equal_nan=w.dtype == np.float64), (
                f"{case.name}.{name}: {backend} differs from numpy at "
                f"{np.argwhere(~((g == w) | (np.isnan(g) & np.isnan(w))))[:5].tolist()}, "
                f"max abs diff {np.nanmax(np.abs(g.astype(float) - w.astype(float)))}"
            )
        else:
            np.testing.assert_allclose(g, w, rtol=1e-13, atol=0, err_msg=f"{case.name}.{name}")


@pytest.mark.parametrize("backend", ["numpy", "debug"])
@pytest.mark.parametrize(
    "case", [c for c in CASES if c.name in references.REFERENCES], ids=lambda c: c.name
)
def test_matches_hand_written_numpy(case, backend):
    inputs = idioms.make_inputs(case, SEED)
    expected = references.REFERENCES[case.name](case, inputs)
    got = _run(case, backend)
    assert expected, case.name
    for name, want in expected.items():
        g = got[name]
        if want.dtype == np.float64:
            np.testing.assert_allclose(
                g, want, rtol=1e-13, atol=1e-300, err_msg=f"{case.name}.{name}"
            )
        else:
            np.testing.assert_array_equal(g, want, err_msg=f"{case.name}.{name}")
    # Inputs are left alone (outputs are the fields the reference names).
    fresh = idioms.make_inputs(case, SEED)
    for name, value in fresh.items():
        if name not in expected:
            assert np.array_equal(got[name], value, equal_nan=True), f"{case.name}: {name} changed"


def test_every_case_has_a_reference_and_differs_across_variants():
    assert set(references.REFERENCES) == {c.name for c in CASES}
    # The variants with other externals really compute something else.
    for a, b in [
        ("inlined_branches", "inlined_branches_other"),
        ("inlined_empty_interval", "inlined_empty_interval_bottom"),
        ("corners_and_edges", "corners_and_edges_tile"),
        ("corners_and_edges", "corners_and_edges_interior_rank"),
    ]:
        ra, rb = _run(idioms.CASES_BY_NAME[a], "numpy"), _run(idioms.CASES_BY_NAME[b], "numpy")
        assert any(not np.array_equal(ra[n], rb[n], equal_nan=True) for n in ra), (a, b)


def test_parameter_assignment_keeps_the_callers_values():
    case = idioms.CASES_BY_NAME["param_assign"]
    got = _run(case, "numpy")
    inputs = idioms.make_inputs(case, SEED)
    assert np.array_equal(got["ql_seen"], inputs["ql"])
    assert np.array_equal(got["ql"], inputs["ql"])
    assert not np.array_equal(got["ql_new"], inputs["ql"])  # the return value did flow back


def test_interior_rank_regions_are_all_or_nothing():
    # NDSL moves the edges of a rank without tile edge 32767 points away: the edge regions are
    # empty and the interior region covers the whole domain.
    case = idioms.CASES_BY_NAME["corners_and_edges_interior_rank"]
    got = _run(case, "numpy")
    q = idioms.make_inputs(case, SEED)["q"]
    dom = tuple(slice(o, o + n) for o, n in zip(case.origin, case.domain, strict=True))
    inner = q[dom] + 0.5 * (q[2:9, 1:7, :] - q[1:8, 0:6, :])
    np.testing.assert_array_equal(got["out"][dom], inner)
    assert np.isnan(got["out"][0]).all() and np.isnan(got["out"][:, -1]).all()


def test_remap_search_moves_across_several_source_layers():
    # The seeded profile must exercise the while loop (more than one step somewhere) and the
    # K offset must really vary, else the case would not test variable offsets.
    case = idioms.CASES_BY_NAME["remap_search"]
    x = idioms.make_inputs(case, SEED)
    pe1, pe2 = x["pe1"], x["pe2"]
    nk = pe1.shape[2]
    # Source layer holding each target top: the loop runs (that difference) times per level.
    src = (pe1[:, :, None, 1:] < pe2[:, :, 1:, None]).sum(axis=3)
    steps = np.diff(np.concatenate([np.zeros((*pe1.shape[:2], 1), int), src], axis=2), axis=2)
    assert steps.max() > 1 and (steps == 0).any() and src.shape[2] == nk - 1
