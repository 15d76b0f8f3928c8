#!/usr/bin/env bash
# Regenerate the stored oracle of the icon4py driver test with released gt4py 1.2.3:
#
#     compat/icon4py/make_driver_oracle.sh ICON4PY_DIR [SCRATCH_DIR]
#
# ICON4PY_DIR: compat/icon4py/install.sh's directory. SCRATCH_DIR (default: a new temporary
# directory) gets a venv with gt4py[standard]==1.2.3 (Python 3.12) and the run. Released's
# embedded execution cannot run the driver (its concat_where), and icon4py's own backend name
# gtfn_cpu needs gtfn.GTFNBackendFactory, which released removed: the oracle run uses the
# backend object gtx.gtfn_cpu. It writes compat/icon4py/oracle/driver_released_gtfn_cpu.npz
# (the prognostic fields and the tracer after the last of 3 steps, float64, compressed) and
# the run's report next to it. Takes ~25 min on a loaded 2-core machine (cold gtfn builds).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
icon4py="${1:?usage: $0 ICON4PY_DIR [SCRATCH_DIR]}"
scratch="${2:-$(mktemp -d)}"
python312="${PY312:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")/versions/3.12.1/bin/python3.12}"
venv="$scratch/released"
if [[ ! -x "$venv/bin/python" ]]; then
    uv venv -q -p "$python312" "$venv"
fi
uv pip install -q -p "$venv/bin/python" "gt4py[standard]==1.2.3" "netCDF4==1.7.2"
mkdir -p "$here/oracle"
PATH="$venv/bin:$PATH" GT4PY_BUILD_CACHE_DIR="$scratch/cache" GT4PY_BUILD_CACHE_LIFETIME=persistent \
    PYTHONPATH="$icon4py" \
    "$venv/bin/python" -W ignore "$here/run_driver.py" --backend gtx.gtfn_cpu --steps 3 \
    --out "$scratch/run" --oracle "$here/oracle/driver_released_gtfn_cpu.npz"
cp "$scratch/run/report.json" "$here/oracle/driver_released_gtfn_cpu.report.json"
echo "oracle written: $here/oracle/driver_released_gtfn_cpu.npz"
