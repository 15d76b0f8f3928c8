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

mkdir -p "$target"
uv pip install --python "$python" --no-deps --target "$target" \
    "${distributions[@]}" "${small_deps[@]}"
echo "icon4py ${version} installed in ${target}"
