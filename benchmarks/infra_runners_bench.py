"""Overhead of a trivial task's round trip through each gt4py.infra runner.

    uv run python benchmarks/infra_runners_bench.py [--rounds 2000]

Reports the first task of a fresh ProcessRunner (which starts a worker), the median and 90th
percentile of later sequential round trips (submit + result) per runner, the part of it spent
packing the task (config snapshot + pickle), and the throughput of a batch on two workers.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import pickle
import statistics
import sys
import time
from collections.abc import Callable

from gt4py.infra import config, runners
from gt4py.infra.runners._pickling import dumps_for_worker
from gt4py.infra.runners._protocol import TaskContext


TRIVIAL_TASK: Callable[[], int] = os.getpid  # picklable, does next to nothing


def round_trips_us(runner: runners.Runner, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        runner.submit(TRIVIAL_TASK).result()
        times.append((time.perf_counter() - start) * 1e6)
    return times


def packing_us(rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        dumps_for_worker(TRIVIAL_TASK)
        pickle.dumps(TaskContext(config.snapshot(), sys.getrecursionlimit(), os.getcwd()))
        times.append((time.perf_counter() - start) * 1e6)
    return times


def describe(name: str, samples: list[float]) -> str:
    deciles = statistics.quantiles(samples, n=10)
    return f"{name:<42} median {statistics.median(samples):9.1f} us   p90 {deciles[-1]:9.1f} us"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=2000)
    args = parser.parse_args()

    start = time.perf_counter()
    process_runner = runners.ProcessRunner(max_workers=1)
    process_runner.submit(TRIVIAL_TASK).result()
    first_task_ms = (time.perf_counter() - start) * 1e3
    print(f"{'process: first task (starts a worker)':<42} {first_task_ms:9.1f} ms")

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        cases: list[tuple[str, runners.Runner]] = [
            ("process: trivial task round trip", process_runner),
            ("thread: trivial task round trip", runners.ThreadRunner(max_workers=1)),
            ("serial: trivial task round trip", runners.SerialRunner()),
            ("executor(ThreadPool): round trip", runners.ExecutorRunner(pool)),
        ]
        for name, runner in cases:
            round_trips_us(runner, min(args.rounds, 100))  # warm-up
            print(describe(name, round_trips_us(runner, args.rounds)))
            runner.shutdown()
    print(describe("process: packing (snapshot + pickle)", packing_us(args.rounds)))

    with runners.ProcessRunner(max_workers=2) as batch_runner:
        batch_runner.submit(TRIVIAL_TASK).result()
        start = time.perf_counter()
        futures = [batch_runner.submit(TRIVIAL_TASK) for _ in range(args.batch)]
        concurrent.futures.wait(futures)
        elapsed = time.perf_counter() - start
    print(f"{'process, 2 workers: batch throughput':<42} {args.batch / elapsed:9.0f} tasks/s")


if __name__ == "__main__":
    main()
