"""UnitRange, Domain, gtx.domain(...) and domain-condition algebra."""

from __future__ import annotations

import math
import pickle

import pytest

import gt4py.next as gtx
from gt4py.next import common


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)


def test_unit_range_basics():
    r = gtx.UnitRange(2, 5)
    assert (r.start, r.stop, len(r)) == (2, 5, 3)
    assert list(r) == [2, 3, 4]
    assert r[0] == 2 and r[-1] == 4
    assert r[1:] == gtx.UnitRange(3, 5)
    assert 4 in r and 5 not in r and "a" not in r
    assert r + 1 == gtx.UnitRange(3, 6)
    assert r - 2 == gtx.UnitRange(0, 3)
    assert r & gtx.UnitRange(4, 10) == gtx.UnitRange(4, 5)
    assert gtx.UnitRange(3, 5) <= r and not gtx.UnitRange(1, 3) <= r
    assert str(r) == "[2, 5)"
    assert pickle.loads(pickle.dumps(r)) == r


def test_unit_range_empty_is_normalized():
    assert gtx.UnitRange(5, 2) == gtx.UnitRange(0, 0)
    assert (gtx.UnitRange(0, 3) & gtx.UnitRange(7, 9)).is_empty()


def test_unbounded_ranges():
    r = gtx.UnitRange(None, 5)
    assert r.start == -math.inf and not r.is_finite() and r.is_right_finite()
    assert gtx.UnitRange.infinite() & gtx.UnitRange(1, 4) == gtx.UnitRange(1, 4)
    assert r + 3 == gtx.UnitRange(None, 8)
    assert repr(gtx.UnitRange.infinite()) == "UnitRange(-inf, inf)"
    with pytest.raises(ValueError, match="unbounded"):
        len(r)
    with pytest.raises(ValueError, match="start cannot be inf"):
        gtx.UnitRange(math.inf, 3)


def test_unit_range_errors():
    with pytest.raises(TypeError, match="integers"):
        gtx.UnitRange(0.5, 3)
    with pytest.raises(ValueError, match="step 1"):
        gtx.UnitRange(0, 10)[::2]


def test_domain_helper_forms():
    dom = gtx.domain({I: 10, J: (1, 5)})
    assert dom.dims == (I, J)
    assert dom.ranges == (gtx.UnitRange(0, 10), gtx.UnitRange(1, 5))
    assert dom.shape == (10, 4) and dom.size == 40 and dom.ndim == 2
    assert gtx.domain([(I, 10), (J, range(1, 5))]) == dom
    assert gtx.Domain(dims=(I, J), ranges=((0, 10), (1, 5))) == dom
    assert gtx.Domain(common.NamedRange(I, gtx.UnitRange(0, 10)), (J, (1, 5))) == dom
    assert gtx.domain(dom) is dom
    assert dom[J] == common.NamedRange(J, gtx.UnitRange(1, 5))
    assert dom[0].dim is I
    assert dom[1:].dims == (J,)
    assert dom.dim_index(K) is None
    assert list(dom) == [(I, gtx.UnitRange(0, 10)), (J, gtx.UnitRange(1, 5))]
    assert {dom: 1}[gtx.domain({I: 10, J: (1, 5)})] == 1
    assert pickle.loads(pickle.dumps(dom)) == dom
    assert repr(dom) == "Domain(I=[0, 10), J=[1, 5))"


def test_domain_errors():
    with pytest.raises(ValueError, match="twice"):
        gtx.domain([(I, 3), (I, 4)])
    with pytest.raises(TypeError, match="Dimension objects"):
        gtx.domain({"I": 3})
    with pytest.raises(ValueError, match="pair up"):
        gtx.Domain(dims=(I, J), ranges=((0, 1),))
    with pytest.raises(KeyError, match="K is not a dimension"):
        gtx.domain({I: 3})[K]
    with pytest.raises(ValueError, match="must not be negative"):
        gtx.domain({I: -1})


def test_domain_intersection_and_replace():
    a = gtx.domain({I: (0, 10), J: (0, 5)})
    b = gtx.domain({I: (3, 20), K: (0, 4)})
    assert a & b == gtx.domain({I: (3, 10), J: (0, 5), K: (0, 4)})
    assert a.replace(J, (K, (0, 2))) == gtx.domain({I: (0, 10), K: (0, 2)})
    assert a.replace(1) == gtx.domain({I: (0, 10)})
    assert (a & gtx.domain({I: (20, 30)})).is_empty()


def test_condition_algebra():
    union = (I == 0) | (I >= 9)
    assert isinstance(union, common.DomainUnion) and len(union) == 2
    both = (I >= 1) & (K < 5)
    assert both == gtx.domain({I: (1, None), K: (None, 5)})
    distributed = union & (K < 5)
    assert list(distributed) == [
        gtx.domain({I: (0, 1), K: (None, 5)}),
        gtx.domain({I: (9, None), K: (None, 5)}),
    ]
    assert list(~(K < 5)) == [gtx.domain({K: (5, None)})]
    complement = ~gtx.domain({I: (2, 4)})
    assert list(complement) == [gtx.domain({I: (None, 2)}), gtx.domain({I: (4, None)})]
    assert list(~union) == [gtx.domain({I: (None, 0)}), gtx.domain({I: (1, 9)})]
