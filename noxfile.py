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
PYTHONS = ["3.11", "3.12"]


def _find_pyenv_pythons() -> None:
    """Put pyenv's interpreters of PYTHONS first on PATH, so that nox and uv find them by
    version (pyenv's shims answer only for the selected version; session names stay
    `tests-3.11`, not a machine's path)."""
    versions = pathlib.Path(os.environ.get("PYENV_ROOT", "~/.pyenv")).expanduser() / "versions"
    found = [
        str(path / "bin")
        for version in PYTHONS
        for path in sorted(versions.glob(f"{version}.*"))[-1:]
        if (path / "bin" / f"python{version}").exists()
    ]
    if found:
        os.environ["PATH"] = os.pathsep.join([*found, os.environ.get("PATH", "")])


_find_pyenv_pythons()


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


@nox.session(python="3.12")
def compat(session: nox.Session) -> None:
    """icon4py 0.4.1 unchanged on this gt4py.next: install it, run every program on embedded,
    gtfn_cpu and itir_python, compare; then run the diffusion and dycore granules on embedded,
    none, gtfn_cpu and itir_python and compare them (ICON4PY_PATH: an existing install;
    ICON4PY_RESULTS: where reports go; ICON4PY_GRANULE_REFERENCE: released gt4py's granule
    runs; posargs go to run_programs.py, e.g. `-- --modules diffusion`)."""
    _sync(session, "test")
    cache = pathlib.Path(session.cache_dir)
    site = pathlib.Path(os.environ.get("ICON4PY_PATH", cache / "icon4py-0.4.1"))
    results = pathlib.Path(os.environ.get("ICON4PY_RESULTS", cache / "icon4py-results"))
    python = str(pathlib.Path(session.virtualenv.location) / "bin" / "python")
    if not (site / "icon4py").is_dir() or not (site / "dace").is_dir():  # dace: granules
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
    # The granules as icon4py's driver runs them (run_granules.py): diffusion and dycore on
    # every backend, each compared to embedded field by field, every step (rtol 1e-10);
    # ICON4PY_GRANULE_REFERENCE=DIR: released gt4py's gtfn_cpu runs, DIR/<granule>, as well.
    granules = results / "granules"
    reference = os.environ.get("ICON4PY_GRANULE_REFERENCE")
    failed = []
    for granule in ("diffusion", "dycore"):
        for backend in ("embedded", "none", "gtfn_cpu", "itir_python"):
            session.run(
                "python", "-W", "ignore", str(harness / "run_granules.py"),
                "--granule", granule, "--backend", backend, "--steps", "3",
                "--out", str(granules / f"{granule}-{backend}"),
                env={"PYTHONPATH": str(site)}, success_codes=[0, 1],
            )  # fmt: skip
        pairs = [
            (f"{granule}-embedded", f"{granule}-{b}") for b in ("none", "gtfn_cpu", "itir_python")
        ]
        for a, b in pairs:
            verdict = session.run(
                "python", str(harness / "compare_granules.py"), "--quiet",
                str(granules / a), str(granules / b), "--json", str(granules / f"{a}_vs_{b}.json"),
                success_codes=[0, 1, 2], silent=True,
            )  # fmt: skip
            session.log(str(verdict).strip())
            failed += [] if str(verdict).startswith("PASS") else [f"{a} vs {b}"]
        if reference:
            for b in ("embedded", "gtfn_cpu"):
                verdict = session.run(
                    "python", str(harness / "compare_granules.py"), "--quiet",
                    str(pathlib.Path(reference) / granule), str(granules / f"{granule}-{b}"),
                    success_codes=[0, 1, 2], silent=True,
                )  # fmt: skip
                session.log(str(verdict).strip())
                failed += [] if str(verdict).startswith("PASS") else [f"released vs {b}"]
    if failed:
        session.error(f"granules disagree: {failed} (details: {granules}/*_vs_*.json)")


# --- Release: one package at a time (independent versions, ADR 0021) -------------------------


def _distributions(root: pathlib.Path) -> dict[str, pathlib.Path]:
    """Every distribution of the workspace: name -> its folder under packages/."""
    import tomllib

    found = {}
    for pyproject in sorted((root / "packages").glob("*/pyproject.toml")):
        found[tomllib.loads(pyproject.read_text())["project"]["name"]] = pyproject.parent
    return found


def _version_file(folder: pathlib.Path) -> pathlib.Path:
    """Where a distribution's version lives: its _version.py, or pyproject.toml (meta)."""
    found = list(folder.glob("src/gt4py/*/_version.py"))
    return found[0] if found else folder / "pyproject.toml"


_VERSION_LINE = r'(?m)^(__version__|version) = "([^"]+)"$'


def current_version(root: pathlib.Path, dist: str) -> str:
    import re

    match = re.search(_VERSION_LINE, _version_file(_distributions(root)[dist]).read_text())
    assert match is not None, dist
    return match.group(2)


def dependents_refusing(root: pathlib.Path, dist: str, version: str) -> list[str]:
    """Requirements on `dist` (dependencies and extras of every workspace distribution) whose
    range does not admit `version`, as 'dependent: requirement' lines."""
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    refusing = []
    for name, folder in _distributions(root).items():
        project = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
        requirements = list(project.get("dependencies", []))
        for extra in project.get("optional-dependencies", {}).values():
            requirements += extra
        for text in requirements:
            requirement = Requirement(text)
            if canonicalize_name(requirement.name) != canonicalize_name(dist):
                continue
            if not requirement.specifier.contains(Version(version), prereleases=True):
                refusing.append(f"{name}: {text}")
    return sorted(set(refusing))


def bump_version(root: pathlib.Path, dist: str, version: str, *, write: bool = True) -> str:
    """Set `dist`'s version and date its changelog's 'Unreleased' section; refuse (ValueError,
    nothing written) when the new version is not above the old one or when a dependent's
    range would not admit it. Returns the old version."""
    import datetime
    import re

    from packaging.version import InvalidVersion, Version

    folders = _distributions(root)
    if dist not in folders:
        raise ValueError(f"unknown distribution {dist!r}; one of {', '.join(sorted(folders))}")
    try:
        new = Version(version)
    except InvalidVersion as error:
        raise ValueError(f"{version!r} is not a PEP 440 version") from error
    old = current_version(root, dist)
    if new <= Version(old):
        raise ValueError(f"{dist}: {version} is not above the current version {old}")
    refusing = dependents_refusing(root, dist, version)
    if refusing:
        raise ValueError(
            f"{dist} {version} is outside the range of its dependents; widen these ranges "
            "(and release those dependents) first:\n  " + "\n  ".join(refusing)
        )
    changelog = folders[dist] / "CHANGELOG.md"
    if not re.search(r"(?m)^## Unreleased$", changelog.read_text()):
        raise ValueError(f"{changelog} has no '## Unreleased' section to release")
    if write:
        path = _version_file(folders[dist])
        path.write_text(re.sub(_VERSION_LINE, rf'\1 = "{version}"', path.read_text(), count=1))
        today = datetime.date.today().isoformat()
        changelog.write_text(
            re.sub(
                r"(?m)^## Unreleased$",
                f"## Unreleased\n\n## {version} ({today})",
                changelog.read_text(),
                count=1,
            )
        )
    return old


@nox.session(venv_backend="none")
def bump(session: nox.Session) -> None:
    """Release one package: `uv run nox -s bump -- gt4py-next 0.1.1 [--check]`. Writes its
    version and dates its changelog; fails if a dependent's range would not admit it (then
    nothing is written). --check: only check."""
    args = [arg for arg in session.posargs if arg != "--check"]
    if len(args) != 2:
        session.error("usage: nox -s bump -- <distribution> <new version> [--check]")
    dist, version = args
    write = "--check" not in session.posargs
    try:
        old = bump_version(REPO, dist, version, write=write)
    except ValueError as error:
        session.error(str(error))
    verb = "bumped" if write else "may bump"
    session.log(f"{dist}: {verb} {old} -> {version}; every dependent's range admits it")
    if write:
        session.log(
            "next: `uv lock`, review the changelog, commit, `uv build --package " + dist + "`"
        )
