#!/usr/bin/env bash
# The test suite against the lowest versions the distributions declare (`name>=X` -> X).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .venv-lowest
uv venv -q --python 3.11 .venv-lowest
python3 .ci/lowest_bounds.py > .venv-lowest/lowest.txt
echo "lowest of: $(tr '\n' ' ' < .venv-lowest/lowest.txt)"
uv pip install -q --python .venv-lowest/bin/python --resolution lowest-direct -r .venv-lowest/lowest.txt \
  -e packages/gt4py-infra -e "packages/gt4py-infra[native]" -e packages/gt4py-eve \
  -e packages/gt4py-storage -e packages/gt4py-next -e packages/gt4py-cartesian \
  "pytest>=8" "pytest-timeout>=2.3" "hypothesis>=6.100"
.venv-lowest/bin/python -m pytest "$@"
