"""Run icon4py 0.4.1's granules (diffusion, dycore) the way icon4py's own driver runs them.

icon4py builds every program of a granule through
``icon4py.model.common.model_options.setup_program``: ``program.with_backend(b)``, then for a
compiled backend ``.with_compilation_options(enable_jit=False)`` and ``.compile(<static
arguments as value lists>, offset_provider=...)``, then ``functools.partial(p,
**constant_args, offset_provider=...)``. This script does nothing of that itself: it builds
icon4py's OWN objects and lets them do it:

* the grid: the torus mesh of ``grid.py`` (240 cells / 360 edges / 120 vertices by default)
  wrapped into ``icon4py.model.common.grid.icon.IconGrid`` the way icon4py's grid manager does
  it for a single-rank global grid (``decomposition.halo.NoHalos`` ->
  ``grid_refinement.compute_domain_bounds`` on all-zero refinement control ->
  ``icon.get_start_and_end_index`` -> ``icon.icon_grid``);
* the vertical grid: ``vertical.VerticalGridConfig(num_levels=nlev)`` (icon4py's defaults but
  the Rayleigh damping height, see RAYLEIGH_DAMPING_HEIGHT),
  ``vertical.get_vct_a_and_vct_b``, ``vertical.VerticalGrid``;
* the configs' defaults: ``DiffusionConfig()``, ``NonHydrostaticConfig()``;
* the diagnostic states from icon4py's own initialisers
  (``initialize_diffusion_diagnostic_state``, ``initialize_solve_nonhydro_diagnostic_state``,
  ``initialize_prep_advection``);
* the granules: ``diffusion.Diffusion(...)`` and ``solve_nonhydro.SolveNonhydro(...)``, then
  ``Diffusion.run(...)`` / ``SolveNonhydro.time_step(...)`` per step, with the time-level
  swaps of icon4py's driver (``icon4py.model.driver.driver``: the advective-tendency pairs
  before each substep, the prognostic pair after it).

Every other input (metrics, interpolation coefficients, geometry, prognostics) is seeded
random data of the right magnitude, generated with numpy only (``numpy.random.default_rng``,
PCG64: bitwise identical across numpy 1.26 and 2.x), so that released gt4py and this gt4py
get bitwise identical inputs (``inputs.npz`` records them; ``compare_granules.py`` checks
that). The dycore starts from an isothermal hydrostatic column (exner, theta_v, rho from the
equation of state) with small perturbations, so a few substeps stay finite.

    python compat/icon4py/run_granules.py --granule diffusion --backend gtfn_cpu \
        --steps 8 --out /tmp/granules/ours-gtfn_cpu-diffusion

writes ``DIR/inputs.npz``, ``DIR/step_000.npz`` (the state before the first step) ...
``DIR/step_NNN.npz`` (every prognostic field, and the granule's diagnostic fields, after each
step) and ``DIR/report.json`` (versions, construction time, first-step time, median of the
steady steps, failures with tracebacks). Exit status 0 when every step ran and every written
field is finite, 1 otherwise.

``--backend``: ``embedded`` (this gt4py: ``gtx.embedded_numpy``; released gt4py has none,
there it means ``None`` as well), ``none`` (Python ``None``, released's and icon4py's
spelling of embedded), ``gtfn_cpu`` (``gtx.gtfn_cpu``), ``itir_python``
(``gtx.itir_python``). The backend object goes to the granule unchanged; icon4py's
``customize_backend`` passes a ``gt4py.next.backend.Backend`` (or ``None``) through as is.
(icon4py's own ``"gtfn_cpu"`` descriptor would call ``runners.gtfn.GTFNBackendFactory``, which
released gt4py 1.2.3 does not have.)
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import pathlib
import platform
import statistics
import sys
import time
import traceback
from typing import Any

import numpy as np


HERE = pathlib.Path(__file__).resolve().parent
BACKEND_CHOICES = ("embedded", "none", "gtfn_cpu", "itir_python")
GRANULES = ("diffusion", "dycore")

# Scales of the synthetic mesh: edge length ~ 10 km.
EDGE_LENGTH = 1.0e4
T0 = 250.0  # isothermal reference atmosphere [K]


def _load_grid_module():
    spec = importlib.util.spec_from_file_location("icon4py_compat_grid", HERE / "grid.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------------
# Backend


def resolve_backend(name: str, gtx: Any) -> Any:
    if name == "none":
        return None
    if name == "embedded":
        # ours: gtx.embedded_numpy; released gt4py has no such name and spells embedded None
        return getattr(gtx, "embedded_numpy", None)
    if name == "gtfn_cpu":
        return gtx.gtfn_cpu
    if name == "itir_python":
        return gtx.itir_python
    raise ValueError(name)


# ------------------------------------------------------------------------------------------
# Inputs: numpy only, seeded, recorded


class Inputs:
    """Seeded numpy arrays, generated in call order and recorded under their names."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.arrays: dict[str, np.ndarray] = {}

    def put(self, name: str, array: np.ndarray) -> np.ndarray:
        assert name not in self.arrays, name
        self.arrays[name] = np.ascontiguousarray(array)
        return self.arrays[name]

    def uniform(self, name: str, shape: tuple[int, ...], low: float, high: float) -> np.ndarray:
        return self.put(name, self.rng.uniform(low, high, size=shape))

    def around(self, name: str, base: np.ndarray, rel: float) -> np.ndarray:
        """``base * (1 + rel * u)``, u uniform in [-1, 1) (same shape as base)."""
        return self.put(name, base * (1.0 + rel * self.rng.uniform(-1.0, 1.0, size=base.shape)))


# ------------------------------------------------------------------------------------------
# icon4py's grid


def build_icon_grid(torus: Any, nlev: int, allocator: Any) -> Any:
    from icon4py.model.common import dimension as dims
    from icon4py.model.common.decomposition import halo
    from icon4py.model.common.grid import base, grid_refinement, icon

    import gt4py.next as gtx

    n_c, n_e, n_v = (torus.sizes[k] for k in ("Cell", "Edge", "Vertex"))
    size = base.HorizontalGridSize(num_vertices=n_v, num_edges=n_e, num_cells=n_c)
    config = base.GridConfig(
        horizontal_config=size,
        vertical_size=nlev,
        limited_area=False,
        distributed=False,
        keep_skip_values=True,
    )
    neighbor_tables = {
        getattr(dims, name): table
        for name, table in torus.tables.items()
        if isinstance(getattr(dims, name, None), gtx.FieldOffset)
    }
    # A global single-rank grid, as icon4py's GridManager builds it: no halos, refinement
    # control 0 everywhere (every point "unordered"), domain bounds from icon4py's helper.
    decomposition_info = halo.NoHalos(size, allocator=None)(None)
    refinement = {
        dim: gtx.as_field((dim,), np.zeros(n, dtype=np.int32))
        for dim, n in ((dims.CellDim, n_c), (dims.EdgeDim, n_e), (dims.VertexDim, n_v))
    }

    def bounds(dim):
        return grid_refinement.compute_domain_bounds(
            dim, refinement_fields=refinement, decomposition_info=decomposition_info
        )

    start_index, end_index = icon.get_start_and_end_index(bounds)
    domain_length = torus.nx * EDGE_LENGTH
    grid = icon.icon_grid(
        id_="00000000-0000-0000-0000-0000000c0a7f",
        allocator=allocator,
        config=config,
        neighbor_tables=neighbor_tables,
        start_index=start_index,
        end_index=end_index,
        grid_params=icon.GridParams(
            icon.TorusParams(
                domain_length=domain_length, domain_height=domain_length * math.sqrt(3) / 2
            )
        ),
        refinement_control=refinement,
    )
    return grid


# Rayleigh damping starts at 12.5 km (the value of icon4py's MCH_CH_R04B09 experiment); the
# VerticalGridConfig default, 45 km, lies above the default 23.5 km model top, which leaves the
# damping layer empty and skips the granules' damping-layer code.
RAYLEIGH_DAMPING_HEIGHT = 12500.0


def build_vertical_grid(nlev: int, allocator: Any) -> Any:
    from icon4py.model.common.grid import vertical as v_grid

    config = v_grid.VerticalGridConfig(
        num_levels=nlev, rayleigh_damping_height=RAYLEIGH_DAMPING_HEIGHT
    )
    vct_a, vct_b = v_grid.get_vct_a_and_vct_b(config, allocator=allocator)
    return v_grid.VerticalGrid(config=config, vct_a=vct_a, vct_b=vct_b)


# ------------------------------------------------------------------------------------------
# Synthetic state


class State:
    """Everything the granules need, as numpy arrays first (``Inputs``), then as fields."""

    def __init__(self, torus: Any, nlev: int, vct_a: np.ndarray, seed: int, allocator: Any):
        from icon4py.model.common import constants, dimension as dims

        import gt4py.next as gtx

        self.gtx, self.dims, self.allocator = gtx, dims, allocator
        self.inputs = Inputs(seed)
        self.nlev = nlev
        s = torus.sizes
        self.n = {dims.CellDim: s["Cell"], dims.EdgeDim: s["Edge"], dims.VertexDim: s["Vertex"]}
        self.width = {
            getattr(dims, f"{name}Dim"): s[name]
            for name in torus.tables  # local dimensions
        }
        c = constants
        self.grav, self.cpd, self.rd, self.cvd, self.p0 = c.GRAV, c.CPD, c.RD, c.CVD, c.P0REF

        # the vertical column: half-level heights (top -> surface), full-level heights
        z_ifc = np.asarray(vct_a, dtype=np.float64)
        assert z_ifc.shape == (nlev + 1,)
        z_mc = 0.5 * (z_ifc[:-1] + z_ifc[1:])
        self.z_ifc, self.z_mc = z_ifc, z_mc

    # -- field constructors ---------------------------------------------------------------
    def _shape(self, dims_: tuple, half: bool) -> tuple[int, ...]:
        shape = []
        for d in dims_:
            if d == self.dims.KDim:
                shape.append(self.nlev + (1 if half else 0))
            elif d in self.n:
                shape.append(self.n[d])
            else:
                shape.append(self.width[d])
        return tuple(shape)

    def field(self, dims_: tuple, array: np.ndarray, dtype: Any = None) -> Any:
        return self.gtx.as_field(dims_, array, dtype=dtype, allocator=self.allocator)

    def uniform(self, name, dims_, low, high, half=False):
        return self.field(dims_, self.inputs.uniform(name, self._shape(dims_, half), low, high))

    def const(self, name, dims_, value, half=False, dtype=np.float64):
        array = self.inputs.put(name, np.full(self._shape(dims_, half), value, dtype=dtype))
        return self.field(dims_, array)

    def column(self, name, dims_, profile, rel=0.0):
        """A K profile broadcast over the horizontal dimension, times ``1 + rel * u``."""
        shape = self._shape(dims_[:1], False) + profile.shape
        base = np.broadcast_to(profile, shape).copy()
        array = self.inputs.around(name, base, rel) if rel else self.inputs.put(name, base)
        return self.field(dims_, array)

    # -- reference atmosphere (isothermal, hydrostatic) -----------------------------------
    def exner_ref(self, z):
        return np.exp(-self.grav * z / (self.cpd * T0))

    def theta_ref(self, z):
        return T0 / self.exner_ref(z)

    def rho_from(self, exner, theta_v):
        return self.p0 * exner ** (self.cvd / self.rd) / (self.rd * theta_v)

    # -- geometry --------------------------------------------------------------------------
    def geometry(self):
        from icon4py.model.common.grid import states as grid_states

        d = self.dims
        C, E, L = d.CellDim, d.EdgeDim, EDGE_LENGTH
        area0 = math.sqrt(3) / 4 * L**2
        dual0 = L / math.sqrt(3)
        n_e = self.n[E]
        length = self.inputs.uniform("edge_length", (n_e,), 0.95 * L, 1.05 * L)
        dual = self.inputs.uniform("dual_edge_length", (n_e,), 0.95 * dual0, 1.05 * dual0)
        vv = self.inputs.uniform("vertex_vertex_length", (n_e,), 0.95 * math.sqrt(3) * L,
                                 1.05 * math.sqrt(3) * L)  # fmt: skip
        angle = self.inputs.uniform("edge_normal_angle", (n_e,), -math.pi, math.pi)

        def unit(name, local):
            a = self.inputs.uniform(name, (n_e, self.width[local]), -math.pi, math.pi)
            return (self.field((E, local), np.cos(a)), self.field((E, local), np.sin(a)))

        pnc, dnc = (
            unit("primal_normal_cell_angle", d.E2CDim),
            unit("dual_normal_cell_angle", d.E2CDim),
        )
        pnv, dnv = (
            unit("primal_normal_vert_angle", d.E2C2VDim),
            unit("dual_normal_vert_angle", d.E2C2VDim),
        )
        orientation = self.inputs.put(
            "tangent_orientation", np.where(self.inputs.rng.random(n_e) < 0.5, -1.0, 1.0)
        )
        edge = grid_states.EdgeParams(
            tangent_orientation=self.field((E,), orientation),
            primal_edge_lengths=self.field((E,), length),
            inverse_primal_edge_lengths=self.field((E,), 1.0 / length),
            dual_edge_lengths=self.field((E,), dual),
            inverse_dual_edge_lengths=self.field((E,), 1.0 / dual),
            inverse_vertex_vertex_lengths=self.field((E,), 1.0 / vv),
            primal_normal_vert_x=pnv[0],
            primal_normal_vert_y=pnv[1],
            dual_normal_vert_x=dnv[0],
            dual_normal_vert_y=dnv[1],
            primal_normal_cell_x=pnc[0],
            dual_normal_cell_x=dnc[0],
            primal_normal_cell_y=pnc[1],
            dual_normal_cell_y=dnc[1],
            edge_areas=self.uniform("edge_area", (E,), 0.9 * L * dual0, 1.1 * L * dual0),
            coriolis_frequency=self.uniform("coriolis_frequency", (E,), 0.5e-4, 1.5e-4),
            edge_center_lat=self.uniform("edge_center_lat", (E,), -0.5, 0.5),
            edge_center_lon=self.uniform("edge_center_lon", (E,), -math.pi, math.pi),
            primal_normal_x=self.field((E,), np.cos(angle)),
            primal_normal_y=self.field((E,), np.sin(angle)),
        )
        area = self.inputs.uniform("cell_area", (self.n[C],), 0.9 * area0, 1.1 * area0)
        cell = grid_states.CellParams(
            cell_center_lat=self.uniform("cell_center_lat", (C,), -0.5, 0.5),
            cell_center_lon=self.uniform("cell_center_lon", (C,), -math.pi, math.pi),
            area=self.field((C,), area),
            mean_cell_area=float(area.mean()),
        )
        return edge, cell

    # -- interpolation coefficients ---------------------------------------------------------
    def weights(self, name, dims_, spread=0.2):
        """Positive weights that sum to 1 over the local dimension."""
        shape = self._shape(dims_, False)
        w = self.inputs.rng.uniform(1.0 - spread, 1.0 + spread, size=shape)
        return self.field(dims_, self.inputs.put(name, w / w.sum(axis=1, keepdims=True)))

    def n2s(self, name):
        d = self.dims
        shape = self._shape((d.CellDim, d.C2E2CODim), False)
        inv_l2 = 1.0 / EDGE_LENGTH**2
        w = self.inputs.rng.uniform(0.9 * inv_l2, 1.1 * inv_l2, size=shape)
        w[:, 0] = -w[:, 1:].sum(axis=1)  # the Laplacian of a constant vanishes
        return self.field((d.CellDim, d.C2E2CODim), self.inputs.put(name, w))

    def diffusion_interpolation(self):
        from icon4py.model.atmosphere.diffusion import diffusion_states

        d, L = self.dims, EDGE_LENGTH
        return diffusion_states.DiffusionInterpolationState(
            e_bln_c_s=self.weights("e_bln_c_s", (d.CellDim, d.C2EDim)),
            rbf_coeff_1=self.uniform("rbf_coeff_1", (d.VertexDim, d.V2EDim), -0.3, 0.3),
            rbf_coeff_2=self.uniform("rbf_coeff_2", (d.VertexDim, d.V2EDim), -0.3, 0.3),
            geofac_div=self.uniform("geofac_div", (d.CellDim, d.C2EDim), -2.0 / L, 2.0 / L),
            geofac_n2s=self.n2s("geofac_n2s"),
            geofac_grg_x=self.uniform("geofac_grg_x", (d.CellDim, d.C2E2CODim), -1 / L, 1 / L),
            geofac_grg_y=self.uniform("geofac_grg_y", (d.CellDim, d.C2E2CODim), -1 / L, 1 / L),
            nudgecoeff_e=self.const("nudgecoeff_e", (d.EdgeDim,), 0.0),
        )

    def dycore_interpolation(self):
        from icon4py.model.atmosphere.dycore import dycore_states

        d, L = self.dims, EDGE_LENGTH
        return dycore_states.InterpolationState(
            c_lin_e=self.weights("c_lin_e", (d.EdgeDim, d.E2CDim)),
            c_intp=self.weights("c_intp", (d.VertexDim, d.V2CDim)),
            e_flx_avg=self.weights("e_flx_avg", (d.EdgeDim, d.E2C2EODim)),
            # gradient of divergence in one stencil: geofac_div * inverse dual length ~ 1/L^2
            geofac_grdiv=self.uniform(
                "geofac_grdiv", (d.EdgeDim, d.E2C2EODim), -1 / L**2, 1 / L**2
            ),
            geofac_rot=self.uniform("geofac_rot", (d.VertexDim, d.V2EDim), -1 / L, 1 / L),
            pos_on_tplane_e_1=self.uniform("pos_on_tplane_e_1", (d.EdgeDim, d.E2CDim), -L / 2, L / 2),
            pos_on_tplane_e_2=self.uniform("pos_on_tplane_e_2", (d.EdgeDim, d.E2CDim), -L / 2, L / 2),
            rbf_vec_coeff_e=self.uniform("rbf_vec_coeff_e", (d.EdgeDim, d.E2C2EDim), -0.3, 0.3),
            e_bln_c_s=self.weights("dycore_e_bln_c_s", (d.CellDim, d.C2EDim)),
            rbf_coeff_1=self.uniform("dycore_rbf_coeff_1", (d.VertexDim, d.V2EDim), -0.3, 0.3),
            rbf_coeff_2=self.uniform("dycore_rbf_coeff_2", (d.VertexDim, d.V2EDim), -0.3, 0.3),
            geofac_div=self.uniform("dycore_geofac_div", (d.CellDim, d.C2EDim), -2 / L, 2 / L),
            geofac_n2s=self.n2s("dycore_geofac_n2s"),
            geofac_grg_x=self.uniform("dycore_geofac_grg_x", (d.CellDim, d.C2E2CODim), -1 / L, 1 / L),
            geofac_grg_y=self.uniform("dycore_geofac_grg_y", (d.CellDim, d.C2E2CODim), -1 / L, 1 / L),
            nudgecoeff_e=self.const("dycore_nudgecoeff_e", (d.EdgeDim,), 0.0),
        )  # fmt: skip

    # -- vertical metrics --------------------------------------------------------------------
    def dz_full(self):
        return self.z_ifc[:-1] - self.z_ifc[1:]  # > 0, nlev

    def dz_half(self):
        z_ifc, z_mc = self.z_ifc, self.z_mc
        dz = np.empty(self.nlev + 1)
        dz[0] = z_ifc[0] - z_mc[0]
        dz[1:-1] = z_mc[:-1] - z_mc[1:]
        dz[-1] = 2.0 * (z_mc[-1] - z_ifc[-1])
        return dz

    def zd_vertoffset(self):
        """Level offsets for truly horizontal temperature diffusion: k + offset and
        k + offset + 1 stay inside the column (theta_v has nlev levels)."""
        d = self.dims
        shape = self._shape((d.CellDim, d.C2E2CDim, d.KDim), False)
        k = np.arange(self.nlev)
        target = np.clip(k + self.inputs.rng.integers(0, 2, size=shape), 0, self.nlev - 2)
        return self.field(
            (d.CellDim, d.C2E2CDim, d.KDim),
            self.inputs.put("zd_vertoffset", (target - k).astype(np.int32)),
            dtype=np.int32,
        )

    def diffusion_metrics(self):
        from icon4py.model.atmosphere.diffusion import diffusion_states

        d = self.dims
        CK = (d.CellDim, d.KDim)
        return diffusion_states.DiffusionMetricState(
            theta_ref_mc=self.column("theta_ref_mc", CK, self.theta_ref(self.z_mc)),
            wgtfac_c=self.uniform("wgtfac_c", CK, 0.4, 0.6, half=True),
            zd_vertoffset=self.zd_vertoffset(),
            zd_diffcoef=self.uniform("zd_diffcoef", CK, 0.0, 2.0e-3),
            zd_intcoef=self.uniform("zd_intcoef", (d.CellDim, d.C2E2CDim, d.KDim), 0.0, 1.0),
        )

    def dycore_metrics(self):
        from icon4py.model.atmosphere.dycore import dycore_states

        d = self.dims
        C, E, K = d.CellDim, d.EdgeDim, d.KDim
        CK, EK = (C, K), (E, K)
        nlev = self.nlev
        z_ifc, z_mc = self.z_ifc, self.z_mc
        theta_mc, theta_ic = self.theta_ref(z_mc), self.theta_ref(z_ifc)
        exner_mc = self.exner_ref(z_mc)
        dz_full, dz_half = self.dz_full(), self.dz_half()
        dz_prev = np.concatenate([dz_full[:1], dz_full[:-1]])
        coeff1 = dz_full / (dz_prev * (dz_prev + dz_full))
        coeff2 = dz_prev / (dz_full * (dz_prev + dz_full))
        dtheta_dz = theta_mc * self.grav / (self.cpd * T0)
        vwind_impl = self.inputs.uniform("vwind_impl_wgt", (self.n[C],), 0.6, 0.7)
        ddqz_full = self.inputs.around(
            "ddqz_z_full", np.broadcast_to(dz_full, (self.n[C], nlev)).copy(), 0.01
        )
        return dycore_states.MetricStateNonHydro(
            mask_prog_halo_c=self.const("mask_prog_halo_c", (C,), False, dtype=bool),
            rayleigh_w=self.uniform("rayleigh_w", (K,), 0.0, 1.0e-3, half=True),
            wgtfac_c=self.uniform("dycore_wgtfac_c", CK, 0.4, 0.6, half=True),
            wgtfacq_c=self.uniform("wgtfacq_c", CK, 0.2, 0.45),
            wgtfac_e=self.uniform("wgtfac_e", EK, 0.4, 0.6, half=True),
            wgtfacq_e=self.uniform("wgtfacq_e", EK, 0.2, 0.45),
            time_extrapolation_parameter_for_exner=self.uniform("exner_exfac", CK, 0.0, 0.3),
            reference_exner_at_cells_on_model_levels=self.column("exner_ref_mc", CK, exner_mc),
            reference_rho_at_cells_on_model_levels=self.column(
                "rho_ref_mc", CK, self.rho_from(exner_mc, theta_mc)
            ),
            reference_theta_at_cells_on_model_levels=self.column("theta_ref_mc_nh", CK, theta_mc),
            reference_rho_at_edges_on_model_levels=self.column(
                "rho_ref_me", EK, self.rho_from(exner_mc, theta_mc)
            ),
            reference_theta_at_edges_on_model_levels=self.column("theta_ref_me", EK, theta_mc),
            reference_theta_at_cells_on_half_levels=self.column("theta_ref_ic", CK, theta_ic),
            ddz_of_reference_exner_at_cells_on_half_levels=self.column(
                "d_exner_dz_ref_ic", CK, -self.grav / (self.cpd * theta_ic)
            ),
            ddqz_z_half=self.column("ddqz_z_half", CK, dz_half, rel=0.01),
            d2dexdz2_fac1_mc=self.column(
                "d2dexdz2_fac1_mc", CK, -self.grav / (self.cpd * theta_mc**2) * dtheta_dz
            ),
            d2dexdz2_fac2_mc=self.column(
                "d2dexdz2_fac2_mc",
                CK,
                2.0 * self.grav / (self.cpd**2 * theta_mc**2) * self.grav,
            ),
            ddxn_z_full=self.uniform("ddxn_z_full", EK, -1.0e-3, 1.0e-3),
            ddqz_z_full_e=self.column("ddqz_z_full_e", EK, dz_full, rel=0.01),
            ddxt_z_full=self.uniform("ddxt_z_full", EK, -1.0e-3, 1.0e-3),
            inv_ddqz_z_full=self.field(CK, self.inputs.put("inv_ddqz_z_full", 1.0 / ddqz_full)),
            vertoffset_gradp=self.const("vertoffset_gradp", (E, d.E2CDim, K), 0, dtype=np.int32),
            zdiff_gradp=self.uniform("zdiff_gradp", (E, d.E2CDim, K), -5.0, 5.0),
            nflat_gradp=self.gtx.int32(nlev // 2),
            pg_exdist=self.uniform("pg_exdist", EK, -1.0, 1.0),
            exner_w_explicit_weight_parameter=self.field((C,), 1.0 - vwind_impl),
            exner_w_implicit_weight_parameter=self.field((C,), vwind_impl),
            horizontal_mask_for_3d_divdamp=self.const("hmask_dd3d", (E,), 1.0),
            scaling_factor_for_3d_divdamp=self.uniform("scalfac_dd3d", (K,), 0.0, 1.0),
            coeff1_dwdz=self.column("coeff1_dwdz", CK, coeff1),
            coeff2_dwdz=self.column("coeff2_dwdz", CK, coeff2),
            coeff_gradekin=self.uniform(
                "coeff_gradekin", (E, d.E2CDim), 1.5 / EDGE_LENGTH, 2.0 / EDGE_LENGTH
            ),
        )

    # -- prognostics -------------------------------------------------------------------------
    def prognostic(self, prefix: str):
        from icon4py.model.common.states import prognostic_state

        d = self.dims
        C, E, K = d.CellDim, d.EdgeDim, d.KDim
        n_c, n_e, nlev = self.n[C], self.n[E], self.nlev
        exner = self.inputs.around(
            f"{prefix}exner", np.broadcast_to(self.exner_ref(self.z_mc), (n_c, nlev)).copy(), 1e-5
        )
        theta_v = self.inputs.around(
            f"{prefix}theta_v",
            np.broadcast_to(self.theta_ref(self.z_mc), (n_c, nlev)).copy(),
            1e-4,
        )
        rho = self.inputs.put(f"{prefix}rho", self.rho_from(exner, theta_v))
        vn = self.inputs.uniform(f"{prefix}vn", (n_e, nlev), -5.0, 5.0)
        w = self.inputs.uniform(f"{prefix}w", (n_c, nlev + 1), -0.01, 0.01)
        w[:, 0] = 0.0  # model top
        w[:, -1] = 0.0  # flat surface
        return prognostic_state.PrognosticState(
            rho=self.field((C, K), rho),
            w=self.field((C, K), w),
            vn=self.field((E, K), vn),
            exner=self.field((C, K), exner),
            theta_v=self.field((C, K), theta_v),
        )


PROGNOSTIC_NAMES = ("rho", "w", "vn", "exner", "theta_v")


def fields_of(obj: Any, names: tuple[str, ...], prefix: str) -> dict[str, np.ndarray]:
    return {f"{prefix}{n}": np.asarray(getattr(obj, n).asnumpy()).copy() for n in names}


# ------------------------------------------------------------------------------------------
# Granules


class DiffusionRun:
    def __init__(self, grid, vertical, state: State, backend, allocator):
        from icon4py.model.atmosphere.diffusion import diffusion, diffusion_states
        from icon4py.model.common.decomposition import definitions as decomposition

        edge, cell = state.geometry()
        interpolation = state.diffusion_interpolation()
        metrics = state.diffusion_metrics()
        self.prognostic = state.prognostic("")
        self.diagnostic = diffusion_states.initialize_diffusion_diagnostic_state(grid, allocator)
        config = diffusion.DiffusionConfig()
        self.dtime = 10.0
        self._construct = lambda: diffusion.Diffusion(
            grid=grid,
            config=config,
            params=diffusion.DiffusionParams(config),
            vertical_grid=vertical,
            metric_state=metrics,
            interpolation_state=interpolation,
            edge_params=edge,
            cell_params=cell,
            backend=backend,
            exchange=decomposition.single_node_exchange,
        )
        self.granule = None

    def construct(self) -> None:
        self.granule = self._construct()

    def step(self, i: int) -> None:
        self.granule.run(
            diagnostic_state=self.diagnostic, prognostic_state=self.prognostic, dtime=self.dtime
        )

    def snapshot(self) -> dict[str, np.ndarray]:
        out = fields_of(self.prognostic, PROGNOSTIC_NAMES, "")
        out.update(fields_of(self.diagnostic, ("hdef_ic", "div_ic", "dwdx", "dwdy"), "diag."))
        return out


class DycoreRun:
    """One step = one dynamics substep of SolveNonhydro.time_step, with the driver's
    time-level bookkeeping (icon4py.model.driver.driver: _do_dyn_substepping and
    _update_time_levels_for_velocity_tendencies); a model time step has
    ``config``'s default 5 substeps, so step i is substep i % 5 of time step i // 5."""

    def __init__(self, grid, vertical, state: State, backend, allocator):
        from icon4py.model.atmosphere.dycore import dycore_states, solve_nonhydro as solve_nh
        from icon4py.model.common import utils as common_utils
        from icon4py.model.common.decomposition import definitions as decomposition
        from icon4py.model.common.states import nonhydro_states

        edge, cell = state.geometry()
        interpolation = state.dycore_interpolation()
        metrics = state.dycore_metrics()
        self.prognostic_states = common_utils.TimeStepPair(
            state.prognostic("now."), state.prognostic("new.")
        )
        self.diagnostic = nonhydro_states.initialize_solve_nonhydro_diagnostic_state(
            grid, allocator
        )
        self.prep_adv = dycore_states.initialize_prep_advection(grid, allocator)
        owner_mask = state.const("cell_owner_mask", (state.dims.CellDim,), True, dtype=bool)
        config = solve_nh.NonHydrostaticConfig()
        self.ndyn_substeps = 5
        self.dtime = 2.0  # substep length [s]
        self.second_order_divdamp_factor = 0.0
        self._construct = lambda: solve_nh.SolveNonhydro(
            grid=grid,
            config=config,
            params=solve_nh.NonHydrostaticParams(config),
            metric_state_nonhydro=metrics,
            interpolation_state=interpolation,
            vertical_params=vertical,
            edge_geometry=edge,
            cell_geometry=cell,
            owner_mask=owner_mask,
            backend=backend,
            exchange=decomposition.single_node_exchange,
        )
        self.granule = None

    def construct(self) -> None:
        self.granule = self._construct()

    def step(self, i: int) -> None:
        substep = i % self.ndyn_substeps
        first, last = substep == 0, substep == self.ndyn_substeps - 1
        initial = i < self.ndyn_substeps  # the first model time step of the run
        if not (initial and first):
            self.diagnostic.vertical_wind_advective_tendency.swap()
        if not first:
            self.diagnostic.normal_wind_advective_tendency.swap()
        self.granule.time_step(
            diagnostic_state_nh=self.diagnostic,
            prognostic_states=self.prognostic_states,
            prep_adv=self.prep_adv,
            second_order_divdamp_factor=self.second_order_divdamp_factor,
            dtime=self.dtime,
            ndyn_substeps_var=self.ndyn_substeps,
            at_initial_timestep=initial,
            lprep_adv=True,
            at_first_substep=first,
            at_last_substep=last,
        )
        # the driver swaps after every substep but the last, and once more after the time
        # step: so after every substep, `current` is the state just computed
        self.prognostic_states.swap()

    def snapshot(self) -> dict[str, np.ndarray]:
        out = fields_of(self.prognostic_states.current, PROGNOSTIC_NAMES, "")
        out.update(
            fields_of(
                self.diagnostic,
                (
                    "theta_v_at_cells_on_half_levels",
                    "perturbed_exner_at_cells_on_model_levels",
                    "rho_at_cells_on_half_levels",
                    "mass_flux_at_edges_on_model_levels",
                    "exner_dynamical_increment",
                ),
                "diag.",
            )
        )
        out.update(
            fields_of(
                self.prep_adv,
                ("vn_traj", "mass_flx_me", "dynamical_vertical_mass_flux_at_cells_on_half_levels"),
                "prep_adv.",
            )
        )
        return out


# ------------------------------------------------------------------------------------------
# Driver


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("gt4py", "gt4py-next", "icon4py-common", "numpy", "dace"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[dist] = metadata.version(dist)
    import gt4py.next as gtx

    out["gt4py.next.__file__"] = str(pathlib.Path(gtx.__file__).parent)
    return out


def _failure(stage: str, exc: BaseException) -> dict[str, Any]:
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {
        "stage": stage,
        "type": f"{type(exc).__module__}.{type(exc).__qualname__}",
        "message": str(exc)[:4000],
        "traceback": "".join(tb)[-12000:],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=BACKEND_CHOICES, required=True)
    p.add_argument("--granule", choices=GRANULES, required=True)
    p.add_argument("--steps", type=int, default=3, help="steps to run (>= 6 for a median)")
    p.add_argument("--out", type=pathlib.Path, required=True)
    p.add_argument("--nlev", type=int, default=10)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--nx", type=int, default=12, help="torus vertices along x (default 12)")
    p.add_argument("--ny", type=int, default=10, help="torus vertices along y (default 10)")
    args = p.parse_args(argv)

    out: pathlib.Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("step_*.npz"):
        old.unlink()
    report: dict[str, Any] = {
        "granule": args.granule,
        "backend": args.backend,
        "steps_requested": args.steps,
        "nlev": args.nlev,
        "seed": args.seed,
        "mesh": {"nx": args.nx, "ny": args.ny},
        "env": {k: v for k, v in os.environ.items() if k.startswith("GT4PY_")},
        "failures": [],
        "steps_run": 0,
        "step_times_s": [],
    }

    def write_report() -> None:
        (out / "report.json").write_text(json.dumps(report, indent=1, default=str) + "\n")

    t_start = time.perf_counter()
    try:
        import gt4py.next as gtx

        report["versions"] = _versions()
        backend = resolve_backend(args.backend, gtx)
        report["backend_object"] = repr(backend)
        from icon4py.model.common import model_backends

        allocator = model_backends.get_allocator(backend)
        torus = _load_grid_module().build_grid(nx=args.nx, ny=args.ny, nlev=args.nlev)
        grid = build_icon_grid(torus, args.nlev, allocator)
        vertical = build_vertical_grid(args.nlev, allocator)
        state = State(torus, args.nlev, vertical.vct_a.asnumpy(), args.seed, allocator)
        run_cls = DiffusionRun if args.granule == "diffusion" else DycoreRun
        run = run_cls(grid, vertical, state, backend, allocator)
        np.savez(out / "inputs.npz", **state.inputs.arrays)
        report["sizes"] = {
            "cells": grid.num_cells,
            "edges": grid.num_edges,
            "vertices": grid.num_vertices,
            "levels": grid.num_levels,
        }
        report["setup_s"] = time.perf_counter() - t_start
    except Exception as exc:
        report["failures"].append(_failure("setup", exc))
        write_report()
        print(report["failures"][-1]["traceback"], file=sys.stderr)
        return 1

    t0 = time.perf_counter()
    try:
        run.construct()
        report["construction_s"] = time.perf_counter() - t0
    except Exception as exc:
        report["construction_s"] = time.perf_counter() - t0
        report["failures"].append(_failure("construct", exc))
        write_report()
        print(report["failures"][-1]["traceback"], file=sys.stderr)
        return 1

    np.savez(out / "step_000.npz", **run.snapshot())
    nonfinite: dict[str, list[str]] = {}
    for i in range(args.steps):
        t0 = time.perf_counter()
        try:
            run.step(i)
        except Exception as exc:
            report["failures"].append(_failure(f"step {i + 1}", exc))
            print(report["failures"][-1]["traceback"], file=sys.stderr)
            break
        report["step_times_s"].append(time.perf_counter() - t0)
        report["steps_run"] = i + 1
        snap = run.snapshot()
        bad = [k for k, v in snap.items() if v.dtype.kind == "f" and not np.isfinite(v).all()]
        if bad:
            nonfinite[str(i + 1)] = bad
        np.savez(out / f"step_{i + 1:03d}.npz", **snap)
        report["summary_last_step"] = {
            k: {"min": float(np.nanmin(v)), "max": float(np.nanmax(v))} for k, v in snap.items()
        }
        write_report()

    times = report["step_times_s"]
    report["first_step_s"] = times[0] if times else None
    report["steady_steps"] = len(times[1:])
    report["steady_step_median_s"] = statistics.median(times[1:]) if len(times) > 1 else None
    report["nonfinite"] = nonfinite
    report["total_s"] = time.perf_counter() - t_start
    report["ok"] = not report["failures"] and not nonfinite and report["steps_run"] == args.steps
    write_report()
    print(
        f"{args.granule} on {args.backend}: {report['steps_run']}/{args.steps} steps, "
        f"construct {report['construction_s']:.2f}s, first step {report['first_step_s']}, "
        f"steady median {report['steady_step_median_s']}, "
        f"{'ok' if report['ok'] else 'FAILED'} -> {out}"
    )
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
