"""gamma/erf/erfc on the numpy paths, ours (scipy on and off) vs released (issue 30.8).

Per stack and function: the median call time over N points and the largest relative error
against Python's ``math``; each in a new process. Released gt4py from ``GT4PY_RELEASED_PYTHON``.
Run: ``uv run python benchmarks/special_functions.py [N]``.
"""

from __future__ import annotations

import sys

import _yardstick


CASES = (("cartesian", "gamma"), ("cartesian", "erf"), ("cartesian", "erfc"), ("next", "gamma"))


def main() -> None:
    points = sys.argv[1] if len(sys.argv) > 1 else "1000000"
    pythons = _yardstick.interpreters()
    if "released 1.2.3" not in pythons:
        print(_yardstick.missing_released_hint())
    runs: dict[str, tuple[str, dict[str, str]]] = {
        "ours (scipy)": (pythons["ours"], {}),
        "ours (no scipy)": (pythons["ours"], {"GT4PY_SPECIAL_FUNCTIONS_SCIPY": "0"}),
    }
    if "released 1.2.3" in pythons:
        runs["released 1.2.3"] = (pythons["released 1.2.3"], {})
    print(f"{points} points; median call (ms) and max relative error vs math")
    print(f"{'':18} {'stack':10} {'function':8} {'call':>9} {'max rel err':>12}")
    for stack, function in CASES:
        for label, (python, env) in runs.items():
            result = _yardstick.run_workload(
                python, "special_functions", stack, function, points, extra_env=env
            )
            print(
                f"{label:18} {stack:10} {function:8} {result['call_s'] * 1e3:9.1f} "
                f"{result['max_rel_error']:12.2e}"
            )


if __name__ == "__main__":
    main()
