"""Print every `name>=X` dependency the workspace's distributions declare.

CI installs them as direct requirements with `--resolution lowest-direct` (the lowest version
each admits), so every declared lower bound is a tested one (issue 12: numpy 1.26 has no np.bool; attrs < 25.2 cannot build eve's models).
"""

from __future__ import annotations

import pathlib
import re
import tomllib


ROOT = pathlib.Path(__file__).resolve().parent.parent
_LOWER = re.compile(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*>=\s*([0-9][^,;\s]*)")


def lower_bounds() -> dict[str, str]:
    bounds: dict[str, str] = {}
    for pyproject in sorted(ROOT.glob("packages/*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text())["project"]
        requirements = list(project.get("dependencies", []))
        for extra in ("native", "scipy"):  # the extras the suite runs with
            requirements += project.get("optional-dependencies", {}).get(extra, [])
        for requirement in requirements:
            match = _LOWER.match(requirement)
            if match and not match.group(1).startswith("gt4py"):
                bounds[match.group(1).lower()] = match.group(2)
    return bounds


if __name__ == "__main__":
    for name, version in sorted(lower_bounds().items()):
        print(f"{name}>={version}")
