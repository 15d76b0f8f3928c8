#!/usr/bin/env bash
# Installs NOAA-GFDL's NDSL (develop 3bd38245, from ../shared/thirdparty) into a scratch venv
# beside this repository's gt4py packages, as an NDSL user would have it; never into the
# project's own environment. NDSL's code is never copied into the repository.
#
#   compat/ndsl/install.sh VENV [PYTHON] [THIRDPARTY_DIR] [GT4PY]
#
# GT4PY: a repository root (default: this one; its packages installed editable) or
# "released" (gt4py 1.2.3 from the registry: the yardstick; needs Python >= 3.12).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
VENV="${1:?usage: install.sh VENV [PYTHON] [THIRDPARTY_DIR] [GT4PY]}"
PYTHON="${2:-python3}"
THIRDPARTY="${3:-$REPO/../shared/thirdparty}"
GT4PY="${4:-$REPO}"
TARBALL="$THIRDPARTY/ndsl-3bd38245.tar.gz"
[ -f "$TARBALL" ] || { echo "no NDSL snapshot at $TARBALL" >&2; exit 3; }

# What NDSL imports at run time (its setup.py, less the plotting and serialbox extras), with
# the DaCe released gt4py pins: NDSL imports dace itself.
DEPS=(mpi4py mpich cftime "xarray>=2025.01.2" "f90nml>=1.1.0" netcdf4 scipy h5netcdf h5py
      dask "numpy>=2" matplotlib pytest-subtests dacite pytest "dace==2.0.0a10")

uv venv -q --allow-existing -p "$PYTHON" "$VENV"
if [ "$GT4PY" = released ]; then
  uv pip install -q -p "$VENV/bin/python" "gt4py[standard]==1.2.3" "${DEPS[@]}"
else
  uv pip install -q -p "$VENV/bin/python" -e "$GT4PY/packages/gt4py-infra[native]" \
    -e "$GT4PY/packages/gt4py-eve" -e "$GT4PY/packages/gt4py-storage" \
    -e "$GT4PY/packages/gt4py-cartesian" "${DEPS[@]}"
fi
SRC="$VENV/ndsl-src"
rm -rf "$SRC" && mkdir -p "$SRC"
tar xzf "$TARBALL" -C "$SRC" --strip-components=1
SETUPTOOLS_SCM_PRETEND_VERSION=0.0.0 uv pip install -q -p "$VENV/bin/python" --no-deps "$SRC"
echo "NDSL installed in $VENV (its tests: $SRC/tests)"
