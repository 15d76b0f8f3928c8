#!/usr/bin/env bash
# Regenerate compat/pyfv3/oracle/ with released gt4py 1.2.3:
#
#     compat/pyfv3/make_oracle.sh [WORK_DIR] [THIRDPARTY_DIR]
#
# Installs pyFV3 + NDSL + gt4py[standard]==1.2.3 into WORK_DIR/venv (install.sh; kept if it is
# already there: delete it to reinstall), runs the dycore twice on numpy, 2 steps, 6 MPI ranks
# (run_dycore.py; two fresh output folders, the second reusing the first one's stencil cache),
# checks the two runs are bitwise equal (compare.py), and stores the first run's rank{r}.npz
# files, timings and a MANIFEST (numpy / gt4py / mpich versions, date) in compat/pyfv3/oracle/.
# WORK_DIR defaults to a fresh temporary folder.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
thirdparty="${2:-$here/../../../shared/thirdparty}"
python312="$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")/versions/3.12.1/bin/python3.12"
steps=2
backend=numpy

mkdir -p "$work"
work="$(cd "$work" && pwd)"
venv="$work/venv"
if [[ ! -x "$venv/bin/mpirun" ]]; then
    bash "$here/install.sh" "$venv" "$python312" "$thirdparty" released
fi

run() {  # output folder, cache root
    "$venv/bin/mpirun" -n 6 "$venv/bin/python" "$here/run_dycore.py" \
        --backend "$backend" --steps "$steps" --out "$1" --cache-root "$2"
}
rm -rf "$work/run1" "$work/run2"
run "$work/run1" "$work/cache"
run "$work/run2" "$work/cache"
"$venv/bin/python" "$here/compare.py" "$work/run2" --oracle "$work/run1" > "$work/determinism.txt" || {
    cat "$work/determinism.txt"
    echo "$0: two released runs differ: not deterministic, no oracle written" >&2
    exit 1
}

oracle="$here/oracle"
rm -rf "$oracle"
mkdir -p "$oracle"
cp "$work"/run1/rank*.npz "$oracle/"
cp "$work"/run1/timings-rank*.json "$oracle/"
"$venv/bin/python" - "$oracle/MANIFEST.json" "$steps" "$backend" <<'EOF'
import datetime, json, sys
from importlib import metadata

path, steps, backend = sys.argv[1], int(sys.argv[2]), sys.argv[3]
manifest = {
    "producer": "compat/pyfv3/make_oracle.sh (run_dycore.py, 6 MPI ranks)",
    "case": "pyFV3 DynamicalCore, Jablonowski-Williamson baroclinic, c12, 9 levels",
    "backend": backend,
    "steps": steps,
    "versions": {d: metadata.version(d) for d in ("gt4py", "numpy", "ndsl", "pyFV3", "mpi4py", "mpich", "dace")},
    "deterministic": "two runs bitwise equal",
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
}
with open(path, "w") as f:
    json.dump(manifest, f, indent=1)
    f.write("\n")
EOF
du -sh "$oracle"
echo "oracle written to $oracle (work folder: $work)"
