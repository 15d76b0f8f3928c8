"""Print strict fingerprints of the shared samples as JSON (run in a fresh interpreter).

    python tests/infra_tests/infra_fingerprint_probe.py

Used by test_infra_fingerprinting_processes.py: identical output from processes with
different PYTHONHASHSEED values shows that strict fingerprints do not depend on the process.
"""

from __future__ import annotations

import json
import pathlib
import sys


def main() -> None:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import infra_fingerprint_samples as samples

    from gt4py.infra import fingerprinting as fp

    results = {
        "sample": fp.strict(samples.build_sample()),
        "cyclic": fp.strict(samples.build_cyclic()),
    }
    results.update({name: fp.strict(value) for name, value in samples.build_variants().items()})
    json.dump(results, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
