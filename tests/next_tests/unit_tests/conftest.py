"""Setup shared by the unit tests of gt4py.next.

``golden_programs`` (next to this file) holds the IR programs and snippet helpers of the golden
tests of lowering and of both code generators; the test files import it by its plain module
name, as the eve tests do with ``eve_sample_ir``.
"""

from __future__ import annotations

import sys
from pathlib import Path


UNIT_TESTS_DIR = Path(__file__).resolve().parent
if str(UNIT_TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(UNIT_TESTS_DIR))
