"""A script that compiles a small program set with ``gtx.compile_all``.

Run as one of several ranks (``mpirun -n 2 python compile_all_ranks.py OUT``, or several
processes given ``--rank r --size n``) on one shared cache, or under
``mpirun -n 3 python -m mpi4py.futures compile_all_ranks.py OUT --executor mpi`` to compile on an
``MPIPoolExecutor``. Writes ``OUT/rank-<r>.json``: the report's figures and what each variant
computes. (The main guard is for mpi4py.futures, whose workers run the script as
``__worker__``; gt4py's own tasks never need the script.)
"""

import argparse
import json
import os
import pathlib
import time

import numpy as np

import gt4py.next as gtx
from gt4py.infra import runners
from gt4py.next.backends._compile_all import rank_from_environment


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--backend", default="itir_python")
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--rank", type=int)
    parser.add_argument("--size", type=int)
    parser.add_argument("--executor", choices=["serial", "mpi"], default="serial")
    options = parser.parse_args()

    I = gtx.Dimension("I")
    IField = gtx.Field[gtx.Dims[I], gtx.float64]
    backend = getattr(gtx, options.backend)

    def make(k):
        # k distinct programs (distinct constants -> distinct code and cache keys)
        @gtx.field_operator
        def op(a: IField) -> IField:
            return a * float(k) + 1.0

        def scaled(a: IField, out: IField):
            op(a, out=out)

        scaled.__name__ = f"scaled_{k}"
        return gtx.program(backend=backend, enable_jit=False)(scaled)

    programs = [make(k) for k in range(options.count)]
    rank = None if options.rank is None else (options.rank, options.size)
    runner = runners.SerialRunner()
    if options.executor == "mpi":
        from mpi4py.futures import MPIPoolExecutor

        runner = runners.ExecutorRunner(MPIPoolExecutor(), owns_executor=True)
    started = time.perf_counter()
    report = gtx.compile_all(programs, offset_provider={}, runner=runner, rank=rank, progress=False)
    wall = time.perf_counter() - started
    runner.shutdown()
    a = gtx.as_field([I], np.arange(4.0))
    results = []
    for program in programs:
        out = gtx.zeros({I: 4})
        program(a, out, offset_provider={})  # enable_jit=False: only what compile_all built runs
        results.append(out.asnumpy().tolist())
    me = (rank or rank_from_environment() or (0, 1))[0]
    pathlib.Path(options.out, f"rank-{me}.json").write_text(
        json.dumps(
            {
                "pid": os.getpid(),
                "wall": wall,
                "total": report.total,
                "cache_builds": report.cache_builds,
                "workers": sorted({v.worker for v in report.built}),
                "order": [v.name for v in report.built],
                "results": results,
            }
        )
    )


if __name__ == "__main__":
    main()
