"""`pip install "gt4py[next]"` resolves to this split, not to released gt4py 1.x (ADR 0021).

The resolution runs with `uv pip install --dry-run --find-links <built wheels>`. The hermetic
test needs no network: third-party requirements are stand-in wheels of their lowest admitted
version, and a stand-in `gt4py 1.2.3` plays released gt4py on the index. A second test asks
the real PyPI when it can be reached.
"""

from __future__ import annotations

import base64
import hashlib
import pathlib
import re
import subprocess
import sys
import tomllib
import urllib.request
import zipfile

import pytest
from packaging.requirements import Requirement
from packaging.version import Version


REPO = pathlib.Path(__file__).resolve().parents[2]
RELEASED = "1.2.3"  # the newest released gt4py these tests stand in for

pytestmark = pytest.mark.slow


def _meta_version() -> Version:
    project = tomllib.loads((REPO / "packages/gt4py/pyproject.toml").read_text())["project"]
    return Version(project["version"])


def test_meta_version_is_a_final_release_above_released_gt4py():
    version = _meta_version()
    # Installers skip pre-releases unless asked: 2.0.0a0 lost to released 1.2.3.
    assert not version.is_prerelease and not version.is_devrelease, version
    assert version.major >= 2 and version > Version(RELEASED)


def _stub_wheel(directory: pathlib.Path, name: str, version: str, requires=()) -> None:
    dist = re.sub(r"[-_.]+", "_", name).lower()
    info = f"{dist}-{version}.dist-info"
    files = {
        f"{info}/METADATA": "Metadata-Version: 2.1\n"
        f"Name: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: stub\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    with zipfile.ZipFile(directory / f"{dist}-{version}-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)
        wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")


def _requirements_of(wheel: pathlib.Path) -> list[Requirement]:
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    return [Requirement(line[len("Requires-Dist: ") :]) for line in text.splitlines() if line.startswith("Requires-Dist: ")]  # fmt: skip


@pytest.fixture(scope="module")
def stand_ins(dist_dir: pathlib.Path, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """Stand-in wheels: each third-party requirement at its lowest admitted version, and
    released gt4py."""
    out = tmp_path_factory.mktemp("stand-ins")
    lowest: dict[str, str] = {}
    for wheel in dist_dir.glob("*.whl"):
        for req in _requirements_of(wheel):
            if req.name.startswith("gt4py"):
                continue
            bounds = [s.version for s in req.specifier if s.operator in (">=", "==", "~=")]
            lowest.setdefault(req.name, bounds[0] if bounds else "1.0")
    for name, version in lowest.items():
        _stub_wheel(out, name, version)
    _stub_wheel(out, "gt4py", RELEASED, requires=["numpy>=1.26"])
    return out


@pytest.fixture(scope="module")
def empty_venv(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    venv = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run(["uv", "venv", "--quiet", "-p", sys.executable, str(venv)], check=True)
    return venv / "bin" / "python"


def _dry_run(python: pathlib.Path, requirement: str, *links: pathlib.Path, offline: bool) -> dict[str, str]:  # fmt: skip
    command = ["uv", "pip", "install", "--dry-run", "-p", str(python)]
    command += ["--no-index"] if offline else []
    for directory in links:
        command += ["--find-links", str(directory)]
    out = subprocess.run(
        [*command, requirement], capture_output=True, text=True, check=False, timeout=300
    )
    assert out.returncode == 0, out.stdout + out.stderr
    print(out.stderr)
    return dict(re.findall(r"^ \+ (\S+)==(\S+)$", out.stderr, flags=re.MULTILINE))


BOTH_STACKS = {
    "gt4py",
    "gt4py-next",
    "gt4py-cartesian",
    "gt4py-eve",
    "gt4py-storage",
    "gt4py-infra",
}


@pytest.mark.parametrize(
    ("requirement", "wanted", "unwanted"),
    [
        # Released gt4py 1.x users' commands: one wheel with both stacks (ADR 0021, amended).
        ("gt4py", BOTH_STACKS, {"scipy", "cupy-cuda12x"}),
        ("gt4py[standard]", BOTH_STACKS | {"scipy"}, set()),
        ("gt4py[cuda12]", BOTH_STACKS | {"cupy-cuda12x", "nvidia-cuda-nvcc-cu12"}, set()),
        ("gt4py[testing]", BOTH_STACKS | {"pytest", "hypothesis"}, set()),
        ("gt4py[jax]", BOTH_STACKS | {"jax"}, set()),
        # This split's own commands.
        ("gt4py[next]", BOTH_STACKS, set()),
        ("gt4py[all]", BOTH_STACKS, set()),
        ("gt4py-next", {"gt4py-next", "gt4py-eve", "gt4py-storage", "gt4py-infra"}, {"gt4py", "gt4py-cartesian"}),
        ("gt4py-next[cuda12]", {"gt4py-next", "cupy-cuda12x"}, {"gt4py", "gt4py-cartesian"}),
        ("gt4py-cartesian", {"gt4py-cartesian", "gt4py-infra"}, {"gt4py", "gt4py-next"}),
    ],
)  # fmt: skip
def test_extras_resolve_to_this_split(
    dist_dir, stand_ins, empty_venv, requirement, wanted, unwanted
):
    installed = _dry_run(empty_venv, requirement, dist_dir, stand_ins, offline=True)
    assert wanted <= installed.keys(), installed
    assert not unwanted & installed.keys(), installed
    if "gt4py" in installed:
        assert installed["gt4py"] == str(_meta_version())
    assert "dace" not in installed


def _pypi_reachable() -> bool:
    try:
        urllib.request.urlopen("https://pypi.org/simple/gt4py/", timeout=5).close()
    except OSError:
        return False
    return True


def test_extras_resolve_to_this_split_against_pypi(dist_dir, empty_venv):
    if not _pypi_reachable():
        pytest.skip("PyPI is not reachable")
    installed = _dry_run(empty_venv, "gt4py[next]", dist_dir, offline=False)
    assert installed["gt4py"] == str(_meta_version())
    assert installed["gt4py-next"].startswith("0.")


# Released gt4py 1.2.3's extras (its wheel's METADATA) and what stands in for the ones not offered.
RELEASED_EXTRAS = {"cartesian", "cuda12", "cuda13", "jax", "jax-cuda12", "jax-cuda13", "next", "rocm6", "rocm7", "standard", "testing"}  # fmt: skip
NOT_OFFERED = {"rocm7": "needs numpy>=2, which the lock does not test yet (docs/migration.md)"}


def test_released_extras_exist_on_the_meta_distribution():
    """`pip install gt4py[x]` with an unknown extra only warns, then installs without it."""
    meta = tomllib.loads((REPO / "packages/gt4py/pyproject.toml").read_text())["project"]
    missing = RELEASED_EXTRAS - meta["optional-dependencies"].keys() - NOT_OFFERED.keys()
    assert not missing, missing
    migration = (REPO / "docs/migration.md").read_text()
    for extra in NOT_OFFERED:
        assert f"gt4py[{extra}]" in migration, extra


def test_no_extra_installs_nothing_used():
    """Every extra names a requirement; ``dace`` (the dace:* backends, ADR 0041) is DaCe on
    gt4py-cartesian, and gt4py's passes it through (released 1.2.3 installs DaCe always)."""
    extras_of = {}
    for pyproject in (REPO / "packages").glob("*/pyproject.toml"):
        extras = tomllib.loads(pyproject.read_text())["project"].get("optional-dependencies", {})
        extras_of[pyproject.parent.name] = extras
        for name, requirements in extras.items():
            assert requirements, f"{pyproject}: extra {name!r} installs nothing"
    assert [r.split(">")[0] for r in extras_of["gt4py-cartesian"]["dace"]] == ["dace"]
    assert extras_of["gt4py"]["dace"] == ["gt4py-cartesian[dace]>=0.1,<0.2"]
    assert all(
        "dace" not in extras
        for name, extras in extras_of.items()
        if name not in {"gt4py", "gt4py-cartesian"}
    )
