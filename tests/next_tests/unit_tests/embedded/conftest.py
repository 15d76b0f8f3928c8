"""A small unstructured mesh shared by the embedded tests.

Vertices 0..4, edges 0..5; edge 5 has only one vertex (skip value -1 for the second).
"""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx


V = gtx.Dimension("V")
E = gtx.Dimension("E")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)

E2V_TABLE = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 0], [2, -1]], dtype=np.int32)
V2E_TABLE = np.array([[0, 4, -1], [0, 1, -1], [1, 2, 5], [2, 3, -1], [3, 4, -1]], dtype=np.int32)


class Mesh:
    V, E, K, E2VDim, V2EDim = V, E, K, E2VDim, V2EDim
    E2V = gtx.FieldOffset("E2V", source=V, target=(E, E2VDim))
    V2E = gtx.FieldOffset("V2E", source=E, target=(V, V2EDim))
    e2v_table = E2V_TABLE
    v2e_table = V2E_TABLE

    def __init__(self) -> None:
        self.e2v = gtx.as_connectivity([E, E2VDim], codomain=V, data=E2V_TABLE)
        self.v2e = gtx.as_connectivity([V, V2EDim], codomain=E, data=V2E_TABLE)
        self.offset_provider = {"E2V": self.e2v, "V2E": self.v2e}


@pytest.fixture
def mesh() -> Mesh:
    return Mesh()
