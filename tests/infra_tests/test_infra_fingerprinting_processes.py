"""Strict fingerprints are the same in fresh interpreters with different hash seeds."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import pytest

from gt4py.infra import fingerprinting as fp


HERE = pathlib.Path(__file__).resolve().parent
PROBE = HERE / "infra_fingerprint_probe.py"


def _probe(hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    completed = subprocess.run(
        [sys.executable, str(PROBE)], env=env, capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    result: dict[str, str] = json.loads(completed.stdout)
    return result


@pytest.fixture
def samples(monkeypatch: pytest.MonkeyPatch) -> Any:
    # The same top-level module name the probe uses, so names verify identically here.
    monkeypatch.syspath_prepend(str(HERE))
    return importlib.import_module("infra_fingerprint_samples")


@pytest.mark.slow
def test_strict_fingerprints_agree_across_processes_and_hash_seeds(samples: Any) -> None:
    first = _probe("0")
    second = _probe("4242")
    assert first == second

    here = {
        "sample": fp.strict(samples.build_sample()),
        "cyclic": fp.strict(samples.build_cyclic()),
    }
    here.update({name: fp.strict(value) for name, value in samples.build_variants().items()})
    assert here == first


@pytest.mark.slow
def test_every_changed_field_changes_the_fingerprint(samples: Any) -> None:
    results = _probe("1")
    assert len(set(results.values())) == len(results), results


def test_sample_variants_differ_in_process(samples: Any) -> None:
    base = fp.strict(samples.build_sample())
    variants = {name: fp.strict(value) for name, value in samples.build_variants().items()}
    assert base not in variants.values()
    assert len(set(variants.values())) == len(variants)
    # Fields marked fingerprint=False (source_line, Config.cache_note) do not count.
    sample = samples.build_sample()
    assert fp.strict(dataclasses.replace(sample, source_line=99)) == base


@pytest.mark.slow
def test_importing_fingerprinting_does_not_import_attrs() -> None:
    code = (
        "import sys\n"
        "from gt4py.infra import fingerprinting as fp\n"
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class P:\n"
        "    x: int\n"
        "fp.strict((P(1), [1.0, {'a': None}]))\n"
        "assert 'attrs' not in sys.modules, 'attrs was imported'\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
