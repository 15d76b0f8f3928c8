"""``python -m gt4py.infra.config [--json]``: every gt4py setting, its value and its source."""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from importlib.metadata import entry_points

from gt4py.infra import config
from gt4py.infra.config._unknown_variables import PROVIDERS_GROUP, describe_unknown


#: Distributions that define settings declare a module here, e.g. gt4py-next's settings.
ENTRY_POINT_GROUP = PROVIDERS_GROUP


def _load_provider_settings() -> None:
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            entry.load()
        except Exception as error:  # a broken plugin must not hide the others
            print(f"warning: cannot load settings of {entry.value}: {error}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gt4py.infra.config", description=__doc__)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    _load_provider_settings()
    try:
        with warnings.catch_warnings():  # unknown and retired names are listed below, once
            warnings.simplefilter("ignore", UserWarning)
            rows = config.settings()
    except config.ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    unknown = config.unknown_environment_variables()
    ignored = [
        variable.message(os.environ[variable.env])
        for variable in config.retired()
        if variable.env in os.environ
    ]
    if args.json:
        payload = {
            "settings": [
                {
                    "name": r.setting.name,
                    "value": None if r.value is None else str(r.value),
                    "source": r.source,
                    "env": r.setting.env,
                    "doc": r.setting.doc,
                }
                for r in rows
            ],
            "unknown_environment_variables": unknown,
            "ignored_released_variables": ignored,
        }
        print(json.dumps(payload, indent=2))
        return 0
    width = max(len(r.setting.name) for r in rows)
    for r in rows:
        print(f"{r.setting.name:<{width}}  {r.value!s:<40}  [{r.source}]")
        print(f"{'':<{width}}  {r.setting.env}: {r.setting.doc}")
    known = {r.setting.env for r in rows}
    for variable in unknown:
        print(f"warning: {describe_unknown(variable, known)}", file=sys.stderr)
    for message in ignored:
        print(f"warning: {message}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
