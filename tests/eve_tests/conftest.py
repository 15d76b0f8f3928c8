"""Shared fixtures of the eve tests.

``eve_sample_ir`` (next to this file) holds a small expression IR used by several test files
and by subprocesses; it is imported by its plain module name so that class names (and hence
strict fingerprints) are the same in every process.
"""

from __future__ import annotations

import sys
from pathlib import Path


TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))
