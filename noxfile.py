"""Developer sessions: `uv run nox -s <session>` (list them with `uv run nox -l`).

Each session installs the locked workspace into its own virtual environment with uv, so a
session proves the lock file is enough on its own.
"""

from __future__ import annotations

import os
import pathlib

import nox


nox.options.default_venv_backend = "uv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["lint", "tach", "mypy", "tests"]

REPO = pathlib.Path(__file__).parent
PACKAGES = ["infra", "eve", "storage", "next", "cartesian"]
PYTHON_312 = (
    pathlib.Path(os.environ.get("PYENV_ROOT", "~/.pyenv")).expanduser()
    / "versions/3.12.1/bin/python3.12"
)
PYTHONS = ["3.11"] + ([str(PYTHON_312)] if PYTHON_312.exists() else [])


def _sync(session: nox.Session, *groups: str) -> None:
    session.run_install(
        "uv",
        "sync",
        "--locked",
        "--no-default-groups",
        *(f"--group={group}" for group in groups),
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
        external=True,
    )


@nox.session(python=PYTHONS)
@nox.parametrize("package", PACKAGES)
def tests(session: nox.Session, package: str) -> None:
    """One package's tests, e.g. `uv run nox -s "tests-3.11(package='infra')"`."""
    _sync(session, "test")
    path = REPO / "tests" / f"{package}_tests"
    if not path.exists():
        session.skip(f"no tests for {package} yet")
    session.run("pytest", str(path), *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff lint and format check."""
    _sync(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def tach(session: nox.Session) -> None:
    """Layer and dependency boundaries of tach.toml."""
    _sync(session, "lint")
    session.run("tach", "check")
    session.run("tach", "check-external")


@nox.session
def mypy(session: nox.Session) -> None:
    """Type checking (strict for gt4py.infra; and every other package)."""
    _sync(session, "typing")
    session.run(
        "mypy",
        "packages/gt4py-infra/src/gt4py/infra",
        "packages/gt4py-eve/src/gt4py/eve",
        "packages/gt4py-storage/src/gt4py/storage",
        "packages/gt4py-next/src/gt4py/next",
        "packages/gt4py-cartesian/src/gt4py/cartesian",
    )


@nox.session(venv_backend="none")
def build(session: nox.Session) -> None:
    """Build every wheel and sdist into dist/."""
    session.run("uv", "build", "--all-packages", "--out-dir", "dist", external=True)


@nox.session(python=[str(PYTHON_312)] if PYTHON_312.exists() else ["3.12"])
def compat(session: nox.Session) -> None:
    """icon4py 0.4.1 unchanged on this gt4py.next: install it, run every program on embedded,
    gtfn_cpu and itir_python, compare (ICON4PY_PATH: an existing install; ICON4PY_RESULTS:
    where reports go; posargs go to run_programs.py, e.g. `-- --modules diffusion`)."""
    _sync(session, "test")
    cache = pathlib.Path(session.cache_dir)
    site = pathlib.Path(os.environ.get("ICON4PY_PATH", cache / "icon4py-0.4.1"))
    results = pathlib.Path(os.environ.get("ICON4PY_RESULTS", cache / "icon4py-results"))
    python = str(pathlib.Path(session.virtualenv.location) / "bin" / "python")
    if not (site / "icon4py").is_dir():
        session.run("bash", "compat/icon4py/install.sh", str(site), python, external=True)
    harness = REPO / "compat" / "icon4py"
    session.run(
        "python", "-W", "ignore", str(harness / "run_programs.py"),
        "--site", str(site), "--out", str(results),
        "--backends", "embedded,gtfn_cpu,itir_python", "--isolate", "--timeout", "600",
        *session.posargs,
        env={"PYTHONPATH": str(site)},
    )  # fmt: skip
    session.run(
        "python", str(harness / "compare.py"), "--results", str(results),
        "--failures-out", str(results / "ours_failures.txt"),
    )  # fmt: skip
