#!/usr/bin/env bash
# The GPU checks of issue 15 / ADR 0019, as ONE script for a machine with a GPU (an H200 was
# the target). Run from the repository root:  bash benchmarks/gpu_checks.sh [OUTDIR]
# Needs the workspace venv with cupy (uv sync, then `uv pip install cupy-cuda12x` or the
# cuda13 one matching the driver) and nvcc (a CUDA toolkit or the nvidia-cuda-nvcc wheels).
# Writes one log per step into OUTDIR (default ./gpu_checks_out) and a summary at the end;
# goes on after a failing step so that one run gives every figure.
set -u
OUT=${1:-gpu_checks_out}
mkdir -p "$OUT"
PY=${PYTHON:-.venv/bin/python}
export GT4PY_BUILD_CACHE_DIR=${GT4PY_BUILD_CACHE_DIR:-$(mktemp -d)}  # a cold cache to start
status=0
step() {  # step NAME COMMAND...: run, log, keep going
  local name=$1; shift
  echo "=== $name: $*" | tee -a "$OUT/summary.txt"
  local started=$SECONDS
  "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  echo "    rc=$rc, $((SECONDS - started)) s; last lines:" | tee -a "$OUT/summary.txt"
  tail -n 3 "$OUT/$name.log" | sed 's/^/    /' | tee -a "$OUT/summary.txt"
  [ $rc -eq 0 ] || status=1
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/device.txt" 2>&1
$PY -c "import cupy; print('cupy', cupy.__version__, 'devices', cupy.cuda.runtime.getDeviceCount())" >> "$OUT/device.txt" 2>&1
cat "$OUT/device.txt" | tee -a "$OUT/summary.txt"

# 1. unit tests of the GPU backends (compile-only ones and the execution ones)
step unit_gpu $PY -m pytest -q -rs tests/next_tests/unit_tests/backends/test_next_backends_gtfn_gpu.py tests/cartesian_tests/test_cartesian_gpu_backend.py
# 2. the next feature suite on gtfn_gpu and embedded_cupy (passed / failed per backend)
step feature_gtfn_gpu $PY -m pytest -q -rf tests/next_tests/feature_tests -k "gtfn_gpu"
step feature_embedded_cupy $PY -m pytest -q -rf tests/next_tests/feature_tests -k "embedded_cupy"
# 3. the cartesian feature suite on gt:gpu
step cartesian_gt_gpu $PY -m pytest -q -rf tests/cartesian_tests -k "gt:gpu"
# 3b. dace:gpu (ADR 0047; needs the dace extra): every dace:gpu-parametrised test, unsampled
step cartesian_dace_gpu env GT4PY_DACE_TESTS=all $PY -m pytest -q -rf tests/cartesian_tests -k "dace:gpu and not emulated"
# 4. benchmarks: lap first call cold (this cache is empty) and warm (a second process), steady,
#    tiny call, and the 1024x1024x80 float64 bandwidth case against a cupy copy
step bench_gpu_cold $PY benchmarks/next_gpu_bench.py lap
step bench_gpu_warm $PY benchmarks/next_gpu_bench.py lap tiny bandwidth
# the shared side-by-side scripts (they allocate host fields: gtfn_gpu rejects them unless the
# script allocates with the backend; their output says which)
step shared_next_lap $PY benchmarks/workloads/next_lap.py gtfn_gpu
step shared_next_unstructured $PY benchmarks/workloads/next_unstructured.py gtfn_gpu

echo "=== done (status $status); logs in $OUT" | tee -a "$OUT/summary.txt"
exit $status
