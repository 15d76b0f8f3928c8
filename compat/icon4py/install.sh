#!/usr/bin/env bash
# Install icon4py 0.4.1 (ICON's Python port) into a plain directory, without its gt4py:
#
#     compat/icon4py/install.sh DIR [PYTHON]
#
# DIR then goes on PYTHONPATH (or ICON4PY_PATH for the pytest entry) next to whichever
# gt4py is under test. PYTHON defaults to python3.12 (icon4py needs Python >= 3.12).
# --no-deps keeps icon4py's pinned gt4py (and its heavy optional dependencies) out; the few
# small libraries icon4py imports at module level are listed explicitly (attrs, numpy come
# with gt4py).
#
# DaCe: icon4py.model.common.model_options (through which every granule builds its programs)
# does `import dace` at module level (only `dace.SDFG` is touched, as an annotation), so DaCe
# 2.0.0a10 goes into DIR too, again --no-deps, with exactly the packages `import dace` loads
# (found by importing it in a bare target): ml-dtypes, sympy + mpmath, astunparse + six,
# ordered-set, networkx (pyyaml, packaging, typing-extensions are already listed). Its other
# declared dependencies (cmake, ninja, scikit-build, fparser, ply, dill, click) are only used
# when DaCe builds an SDFG, which no backend used here does. DaCe is a dependency of this
# compat environment only, never of the gt4py packages. ml-dtypes 0.5.4 is the newest that
# imports with both numpy 1.26 (this workspace) and numpy 2.x (released gt4py's venv);
# 0.7 needs numpy 2.
#
# The granules (icon4py.model.atmosphere.diffusion.diffusion, .dycore.solve_nonhydro, driven by
# compat/icon4py/run_granules.py) import a few more libraries at module level:
# icon4py.model.common.states.utils imports xarray (-> pandas -> pytz, tzdata, python-dateutil
# -> six), icon4py.model.common.topography.from_file imports serialbox (serialbox4py).
#
# The driver (icon4py.model.driver, compat/icon4py/run_driver.py) reads the grid file with
# netCDF4 (-> cftime, certifi) and imports devtools (-> asttokens, executing, pygments) at
# module level. It also imports uxarray and zarr (icon4py.model.common.io, output only); they and
# their dependencies are not installed (output stays off): run_driver.py uses the placeholders in
# compat/icon4py/shims when they do not import.
#
# --compile-bytecode: with PYTHONDONTWRITEBYTECODE=1 (set in some CI images) Python never
# caches the bytecode of DIR, and every process would compile sympy, pandas, xarray, dace and
# icon4py from source again (~25 s of every run on 2 cores). The .pyc files are for PYTHON's
# version (3.12 for both this workspace and released gt4py's venv).
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 DIR [PYTHON]" >&2
    exit 2
fi
target="$1"
python="${2:-python3.12}"
version="0.4.1"

distributions=(
    "icon4py==${version}"
    "icon4py-common==${version}"
    "icon4py-atmosphere-diffusion==${version}"
    "icon4py-atmosphere-dycore==${version}"
    "icon4py-atmosphere-microphysics==${version}"
    "icon4py-atmosphere-muphys==${version}"
    "icon4py-atmosphere-physics-driver==${version}"
    "icon4py-atmosphere-tracer-advection==${version}"
    "icon4py-driver==${version}"
    "icon4py-testing==${version}"
    "icon4py-tools==${version}"
)
small_deps=(cattrs pyyaml array-api-compat packaging typing-extensions)
dace_deps=(
    "dace==2.0.0a10"
    "ml-dtypes==0.5.4" "sympy==1.14.0" "mpmath==1.3.0" "astunparse==1.6.3" "six==1.17.0"
    "ordered-set==4.1.0" "networkx==3.7"
)
granule_deps=(
    "xarray==2026.2.0" "pandas==2.3.3" "pytz==2026.6" "tzdata==2026.6"
    "python-dateutil==2.9.0.post0" "serialbox4py==2.6.3"
)
driver_deps=(
    "netCDF4==1.7.2" "cftime==1.6.6.1" "certifi==2026.10.19.post1"
    "devtools==0.13.0" "asttokens==2.4.1" "executing==2.3.0" "pygments==2.21.0"
)

mkdir -p "$target"
uv pip install --python "$python" --no-deps --compile-bytecode --target "$target" \
    "${distributions[@]}" "${small_deps[@]}" "${dace_deps[@]}" \
    "${granule_deps[@]}" "${driver_deps[@]}"
PYTHONPATH="$target" "$python" -c "import dace, icon4py.model.common.model_options, icon4py.model.atmosphere.diffusion.diffusion" \
    || echo "warning: icon4py.model.common.model_options does not import with $python" >&2
echo "icon4py ${version} installed in ${target}"
