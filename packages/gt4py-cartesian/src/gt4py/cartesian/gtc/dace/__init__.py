"""Released gt4py.cartesian's ``gtc.dace`` package path: only :mod:`.nodes`, which frameworks
import (NDSL 2024's orchestration)."""
