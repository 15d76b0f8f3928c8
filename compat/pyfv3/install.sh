#!/usr/bin/env bash
# Install pyFV3 144d1620 on NDSL 2024.03.01 into a scratch virtual environment:
#
#     compat/pyfv3/install.sh VENV PYTHON [THIRDPARTY_DIR] [GT4PY_SOURCE]
#
# VENV            the virtual environment to create (replaced if it exists).
# PYTHON          the interpreter (Python >= 3.12: released gt4py 1.2.3 needs it).
# THIRDPARTY_DIR  where the source snapshots are (ndsl-2024.03.01.tar.gz, pyfv3-144d1620.tar.gz);
#                 default ../shared/thirdparty next to the repository root. Exit status 3 if
#                 they are missing (the pytest entry then skips).
# GT4PY_SOURCE    "released" (default): gt4py[standard]==1.2.3 from the registry, the yardstick
#                 that made compat/pyfv3/oracle/. Otherwise a repository root of this project:
#                 its gt4py-infra[native], gt4py-eve, gt4py-storage and gt4py-cartesian installed
#                 editable, so the environment follows that checkout's sources live.
#
# NDSL and pyFV3 are installed --no-deps from unpacked copies of the tarballs (never copied into
# the repository). NDSL 2024.03.01 predates numpy 2 and dace 2 (released gt4py 1.2.3 needs
# numpy >= 2): two of its lines are respelled in the unpacked copy before installing it --
#   ndsl/buffer.py:              numpy.lib.index_tricks -> numpy.lib._index_tricks_impl
#   ndsl/dsl/dace/dace_config.py: dace.config.Config._cfg_filename -> .cfg_filename()
# Nothing of gt4py is patched.
#
# numpy is pinned (NUMPY_VERSION) so that a run on this project's gt4py and the released oracle
# use the same numpy: the numpy-backend comparison is bitwise. The runtime libraries are the
# ones `import ndsl` / `import pyFV3` and the dycore run load (NDSL's setup.py list; mpich is
# the MPI library as a wheel, so no system MPI is needed: VENV/bin/mpirun).
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 VENV PYTHON [THIRDPARTY_DIR] [GT4PY_SOURCE]" >&2
    exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
venv="$1"
python="$2"
thirdparty="${3:-$repo_root/../shared/thirdparty}"
gt4py_source="${4:-released}"

NUMPY_VERSION="2.2.6"
NDSL_TARBALL="ndsl-2024.03.01.tar.gz"
PYFV3_TARBALL="pyfv3-144d1620.tar.gz"

for tarball in "$NDSL_TARBALL" "$PYFV3_TARBALL"; do
    if [[ ! -f "$thirdparty/$tarball" ]]; then
        echo "$0: $thirdparty/$tarball not found (THIRDPARTY_DIR must hold the NDSL and pyFV3 snapshots)" >&2
        exit 3
    fi
done
if [[ "$gt4py_source" != "released" && ! -f "$gt4py_source/packages/gt4py-cartesian/pyproject.toml" ]]; then
    echo "$0: GT4PY_SOURCE must be 'released' or a repository root of this project; $gt4py_source/packages/gt4py-cartesian/pyproject.toml not found" >&2
    exit 2
fi

rm -rf "$venv"
uv venv --quiet --python "$python" "$venv"
venv="$(cd "$venv" && pwd)"
vpy="$venv/bin/python"

# Unpacked sources live inside the venv, so the venv is self-contained.
src="$venv/src"
mkdir -p "$src"
tar -xzf "$thirdparty/$NDSL_TARBALL" -C "$src"
tar -xzf "$thirdparty/$PYFV3_TARBALL" -C "$src"
ndsl_dir="$(find "$src" -maxdepth 1 -type d -name 'ndsl-*' | head -1)"
pyfv3_dir="$(find "$src" -maxdepth 1 -type d -name 'pyfv3-*' | head -1)"

# The two respellings for numpy 2 / dace 2; fail loudly if the line is not where it should be.
respell() {  # file, old, new
    grep -qF "$2" "$1" || { echo "$0: '$2' not found in $1" >&2; exit 4; }
    python3 - "$1" "$2" "$3" <<'EOF'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new))
EOF
}
respell "$ndsl_dir/ndsl/buffer.py" \
    "from numpy.lib.index_tricks import IndexExpression" \
    "from numpy.lib._index_tricks_impl import IndexExpression"
respell "$ndsl_dir/ndsl/dsl/dace/dace_config.py" \
    "dace.config.Config._cfg_filename" \
    "dace.config.Config.cfg_filename()"

runtime_deps=(
    "numpy==$NUMPY_VERSION"
    "dace==2.0.0a10"
    "mpi4py==4.1.2" "mpich==5.0.2"
    xarray cftime f90nml fsspec netcdf4 scipy h5netcdf dask pyyaml
)

if [[ "$gt4py_source" == "released" ]]; then
    gt4py_reqs=("gt4py[standard]==1.2.3")
else
    root="$(cd "$gt4py_source" && pwd)"
    gt4py_reqs=(
        -e "$root/packages/gt4py-infra[native]"
        -e "$root/packages/gt4py-eve"
        -e "$root/packages/gt4py-storage"
        -e "$root/packages/gt4py-cartesian"
    )
fi

uv pip install --quiet --python "$vpy" --compile-bytecode "${gt4py_reqs[@]}" "${runtime_deps[@]}"
SETUPTOOLS_SCM_PRETEND_VERSION=2024.03.01 \
    uv pip install --quiet --python "$vpy" --no-deps "$ndsl_dir" "$pyfv3_dir"

"$vpy" -c "import numpy; assert numpy.__version__ == '$NUMPY_VERSION', numpy.__version__"
if [[ ! -x "$venv/bin/mpirun" ]]; then
    echo "$0: the mpich wheel did not put mpirun in $venv/bin" >&2
    exit 5
fi
echo "pyFV3 144d1620 + NDSL 2024.03.01 (gt4py: $gt4py_source, numpy $NUMPY_VERSION) installed in $venv"
