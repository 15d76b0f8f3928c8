"""``gtx.compile_all``: a program set compiled ahead of time on a runner, with progress."""

from __future__ import annotations

import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import threading
import time

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import runners
from gt4py.next.backends import _compile_all


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]
SCRIPT = pathlib.Path(__file__).with_name("compile_all_ranks.py")


def make_program(k, backend=None, **options):
    @gtx.field_operator
    def op(a: IField, n: gtx.int32) -> IField:
        return a * gtx.astype(n, gtx.float64) + float(k)

    def shifted(a: IField, n: gtx.int32, out: IField):
        op(a, n, out=out)

    shifted.__name__ = f"shifted_{k}"
    return gtx.program(backend=backend or gtx.itir_python, enable_jit=False, **options)(shifted)


def run(program, n):
    a, out = gtx.as_field([I], np.arange(4.0)), gtx.zeros({I: 4})
    program(a, n, out, offset_provider={})
    return out.asnumpy().tolist()


def test_serial_compiles_every_variant_and_reports_progress(cache_dir):
    p0 = make_program(0)
    p1 = make_program(1, static_params=("n",))
    events = []
    report = gtx.compile_all(
        [p0, (p1, {"n": [2, 3]})],
        offset_provider={},
        runner=runners.SerialRunner(),
        progress=events.append,
    )
    assert report.ok and report.total == 3 and len(report.built) == 3
    assert [e.done for e in events] == [1, 2, 3] and {e.total for e in events} == {3}
    assert all(e.kind == "built" for e in events)
    assert report.cache_builds == {"next/itir_python": 3}
    # enable_jit=False: these calls run only because compile_all made their variants
    assert run(p0, 2) == [0.0, 2.0, 4.0, 6.0]
    assert run(p1, 3) == [1.0, 4.0, 7.0, 10.0]
    assert "shifted_1' on itir_python [n=2]" in " ".join(v.name for v in report.built)
    # a second call finds everything compiled: no task, nothing built
    again = gtx.compile_all([p0, (p1, {"n": [2, 3]})], offset_provider={}, progress=False)
    assert again.total == 3 and again.built == [] and again.cache_builds == {}


def test_process_runner_builds_in_workers_and_a_second_start_loads(cache_dir):
    programs = [make_program(k, gtx.gtfn_cpu) for k in range(3)]
    with runners.ProcessRunner(max_workers=2) as runner:
        report = gtx.compile_all(programs, offset_provider={}, runner=runner, progress=False)
    workers = {v.worker for v in report.built}
    assert workers and f"{os.uname().nodename}:{os.getpid()}" not in workers
    assert report.cache_builds["native/modules"] == 3
    assert report.cache_builds["next/translation"] == 3
    assert [run(p, 1) for p in programs][2] == [2.0, 3.0, 4.0, 5.0]
    # new program objects (a new process would be the same): all loaded from the cache
    fresh = [make_program(k, gtx.gtfn_cpu) for k in range(3)]
    second = gtx.compile_all(fresh, offset_provider={}, runner=runners.SerialRunner())
    assert second.cache_builds == {} and len(second.built) == 3
    assert run(fresh[1], 2) == [1.0, 3.0, 5.0, 7.0]


class _BrokenCompiler:
    def make_artifact(self, program, table_dtypes):
        raise RuntimeError(f"no code for {program.name}")


def test_failures_are_collected_with_their_errors(cache_dir, monkeypatch):
    good, bad = make_program(0), make_program(1)
    real_make_task = _compile_all._make_task

    def make_task(pool, prepared):
        if pool.definition is bad:
            return lambda: _compile_all.build_variant(_BrokenCompiler(), prepared.optimized, {})
        return real_make_task(pool, prepared)

    monkeypatch.setattr(_compile_all, "_make_task", make_task)
    events = []
    with pytest.raises(gtx.CompileAllError) as info:
        gtx.compile_all(
            [good, bad], offset_provider={}, runner=runners.SerialRunner(), progress=events.append
        )
    report = info.value.report
    assert len(report.built) == 1 and list(report.failures) == [
        "program 'shifted_1' on itir_python"
    ]
    assert "no code for" in str(info.value) and "FAILED" in str(info.value)
    assert [e.kind for e in events] == ["built", "failed"] and events[-1].failed == 1
    assert not _pool(bad).pending  # a failed build is not left pending
    # without raising: the report says the same
    report = gtx.compile_all(
        [bad], offset_provider={}, runner=runners.SerialRunner(), raise_on_error=False
    )
    assert not report.ok and isinstance(
        report.failures["program 'shifted_1' on itir_python"], RuntimeError
    )


def _pool(program):
    (pool,) = program.__dict__["__gt_compiled_pools__"].values()
    return pool


def test_frontend_errors_are_failures_not_crashes(cache_dir):
    p0 = make_program(0, static_params=("n",))
    report = gtx.compile_all(
        [(p0, {"n": 2}), make_program(1)], offset_provider={}, raise_on_error=False
    )
    (error,) = report.failures.values()
    assert isinstance(error, TypeError) and "as a list" in str(error)
    assert len(report.built) == 1


def test_a_definition_that_does_not_type_check_is_a_failure_of_its_own(cache_dir):
    @gtx.field_operator
    def identity(a: IField) -> IField:
        return a

    def bad(a: IField, s: gtx.float64):
        identity(a, out=s)

    broken = gtx.program(backend=gtx.itir_python)(bad)
    report = gtx.compile_all(
        [broken, make_program(0)], offset_provider={}, raise_on_error=False, progress=False
    )
    assert list(report.failures) == ["program 'bad' on itir_python"]
    assert "'out' must be a field" in str(report.failures["program 'bad' on itir_python"])
    assert len(report.built) == 1


class _StuckRunner(runners.Runner):
    """Futures that finish only when released (a slow or hung compile farm)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.pool = concurrent.futures.ThreadPoolExecutor(1)

    def submit(self, task):
        def wait_then_run():
            self.release.wait()
            return task()

        return self.pool.submit(wait_then_run)

    def shutdown(self, wait=True):
        self.release.set()
        self.pool.shutdown(wait=wait)


def test_heartbeat_names_what_is_still_building(cache_dir):
    runner = _StuckRunner()
    events = []

    def progress(event):
        events.append(event)
        if event.kind == "waiting" and len(events) >= 2:
            runner.release.set()

    report = gtx.compile_all(
        [make_program(0)], offset_provider={}, runner=runner, progress=progress, heartbeat=0.05
    )
    runner.shutdown()
    waiting = [e for e in events if e.kind == "waiting"]
    assert len(waiting) >= 2 and waiting[0].running == ("program 'shifted_0' on itir_python",)
    assert "still building 1: program 'shifted_0'" in str(waiting[0])
    assert report.ok and events[-1].kind == "built"


def test_timeout_gives_up_with_failures(cache_dir):
    runner = _StuckRunner()
    started = time.perf_counter()
    with pytest.raises(gtx.CompileAllError, match="TimeoutError"):
        gtx.compile_all(
            [make_program(0)], offset_provider={}, runner=runner, timeout=0.2, progress=False
        )
    assert time.perf_counter() - started < 5
    runner.shutdown()


def test_rank_rotates_the_order(cache_dir):
    programs = [make_program(k) for k in range(4)]
    report = gtx.compile_all(
        programs, offset_provider={}, runner=runners.SerialRunner(), rank=(1, 2), progress=False
    )
    assert [v.name.split("'")[1] for v in report.built] == [
        "shifted_2",
        "shifted_3",
        "shifted_0",
        "shifted_1",
    ]


def test_rank_from_environment(monkeypatch):
    for rank_name, size_name in _compile_all.RANK_VARIABLES:
        monkeypatch.delenv(rank_name, raising=False)
        monkeypatch.delenv(size_name, raising=False)
    assert _compile_all.rank_from_environment() is None
    monkeypatch.setenv("SLURM_PROCID", "3")
    monkeypatch.setenv("SLURM_NTASKS", "8")
    assert _compile_all.rank_from_environment() == (3, 8)


def test_embedded_programs_and_non_programs_are_refused_at_once():
    @gtx.program
    def embedded(a: IField, out: IField):
        pass

    with pytest.raises(ValueError, match="embedded backend"):
        gtx.compile_all([embedded])
    with pytest.raises(TypeError, match=r"not a gt4py\.next program"):
        gtx.compile_all([len])
    with pytest.raises(ValueError, match="heartbeat"):
        gtx.compile_all([], heartbeat=0)


def test_as_runner():
    assert isinstance(runners.as_runner(None), runners.Runner)
    serial = runners.SerialRunner()
    assert runners.as_runner(serial) is serial
    with concurrent.futures.ThreadPoolExecutor(1) as executor:
        runner = runners.as_runner(executor)
        assert isinstance(runner, runners.ExecutorRunner) and runner.executor is executor
    with pytest.raises(TypeError, match=r"concurrent\.futures\.Executor"):
        runners.as_runner("dask")


@pytest.mark.slow
def test_dask_local_cluster(cache_dir):
    distributed = pytest.importorskip("distributed")
    programs = [make_program(k, gtx.gtfn_cpu) for k in range(3)]
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        report = gtx.compile_all(programs, offset_provider={}, runner=client, progress=False)
        worker_pids = set(client.run(os.getpid).values())
    assert {int(v.worker.split(":")[1]) for v in report.built} <= worker_pids
    assert report.cache_builds["native/modules"] == 3
    assert run(programs[2], 2) == [2.0, 4.0, 6.0, 8.0]


def _ranks_env(cache: pathlib.Path) -> dict[str, str]:
    env = dict(os.environ, GT4PY_BUILD_CACHE_DIR=str(cache))
    for rank_name, size_name in _compile_all.RANK_VARIABLES:
        env.pop(rank_name, None)
        env.pop(size_name, None)
    return env


def _rank_reports(out: pathlib.Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("rank-*.json"))]


@pytest.mark.slow
def test_ranks_on_one_cache_build_each_entry_once(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    env = _ranks_env(tmp_path / "cache")
    ranks = [
        subprocess.Popen(
            [
                sys.executable,
                str(SCRIPT),
                str(out),
                "--count",
                "8",
                "--rank",
                str(r),
                "--size",
                "4",
            ],
            env=env,
        )
        for r in range(4)
    ]
    assert [p.wait(timeout=300) for p in ranks] == [0, 0, 0, 0]
    reports = _rank_reports(out)
    assert len(reports) == 4
    builds = sum(r["cache_builds"].get("next/itir_python", 0) for r in reports)
    entries = list((tmp_path / "cache").rglob("next/itir_python/**/*.entry"))
    assert builds == 8, reports  # each of the 8 programs built once, by one of the ranks
    assert not entries or len(entries) == 8
    assert all(r["results"] == reports[0]["results"] for r in reports)


def _mpirun() -> list[str]:
    """The launcher of the MPI that mpi4py uses: the ``mpich`` wheel's (the test dependency
    group installs it: no system MPI needed) in this environment's scripts, else one on PATH."""
    pytest.importorskip("mpi4py")
    here = pathlib.Path(sysconfig.get_path("scripts")) / "mpirun"
    mpirun = str(here) if here.exists() else shutil.which("mpirun")
    if mpirun is None:
        pytest.skip("no mpirun (the test group's mpich wheel, or apt-get install openmpi-bin)")
    version = subprocess.run([mpirun, "--version"], capture_output=True, text=True, timeout=60)
    if "Open MPI" not in version.stdout + version.stderr:
        return [mpirun]  # MPICH's hydra: runs as root, oversubscribes as needed
    command = [mpirun, "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")  # Open MPI refuses root without it
    return command


@pytest.mark.slow
def test_mpirun_two_ranks_share_the_work(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    result = subprocess.run(
        [*_mpirun(), "-n", "2", sys.executable, str(SCRIPT), str(out)],
        env=_ranks_env(tmp_path / "cache"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    reports = _rank_reports(out)
    assert len(reports) == 2
    assert sum(r["cache_builds"].get("next/itir_python", 0) for r in reports) == 6
    assert reports[0]["results"] == reports[1]["results"]


@pytest.mark.slow
def test_mpi_pool_executor(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    command = [*_mpirun(), "-n", "3", sys.executable, "-m", "mpi4py.futures", str(SCRIPT)]
    result = subprocess.run(
        [*command, str(out), "--executor", "mpi"],
        env=_ranks_env(tmp_path / "cache"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (report,) = _rank_reports(out)
    assert report["cache_builds"] == {"next/itir_python": 6}
    assert str(report["pid"]) not in {w.split(":")[1] for w in report["workers"]}
