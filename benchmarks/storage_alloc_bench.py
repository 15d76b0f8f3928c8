"""Per-call cost of the GTScript storage API against plain numpy allocation.

    uv run python benchmarks/storage_alloc_bench.py [--repeat N]

Allocation is on the path of every stencil set-up; this shows what the layout lookup, argument
validation, padding and alignment add to ``numpy.empty`` / ``numpy.zeros``.
"""

from __future__ import annotations

import argparse
import timeit

import numpy as np

from gt4py import storage


SHAPES = {"small (8, 8, 8)": (8, 8, 8), "large (192, 192, 80)": (192, 192, 80)}


def _best_us(statement: object, number: int, repeat: int) -> float:
    return min(timeit.repeat(statement, number=number, repeat=repeat)) / number * 1e6  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for label, shape in SHAPES.items():
        number = 2000 if "small" in label else 20
        print(f"{label}, float64, best of {args.repeat} x {number} calls, microseconds per call")
        print(
            f"  numpy.empty                        {_best_us(lambda shape=shape: np.empty(shape), number, args.repeat):9.1f}"
        )
        print(
            f"  numpy.zeros                        {_best_us(lambda shape=shape: np.zeros(shape), number, args.repeat):9.1f}"
        )
        for backend in ("numpy", "gt:cpu_kfirst", "gt:cpu_ifirst"):

            def empty(backend: str = backend, shape: tuple[int, ...] = shape) -> object:
                return storage.empty(shape, backend=backend, aligned_index=(3, 3, 0))

            def zeros(backend: str = backend, shape: tuple[int, ...] = shape) -> object:
                return storage.zeros(shape, backend=backend, aligned_index=(3, 3, 0))

            print(f"  storage.empty({backend!r:16}) {_best_us(empty, number, args.repeat):9.1f}")
            print(f"  storage.zeros({backend!r:16}) {_best_us(zeros, number, args.repeat):9.1f}")


if __name__ == "__main__":
    main()
