"""Layout makers and layout-map helpers."""

from __future__ import annotations

import numpy as np
import pytest

from gt4py.storage import (
    AxisOrderLayout,
    c_order_layout,
    is_valid_layout_map,
    strides_follow_layout_map,
)


I_CONTIGUOUS_K_MIDDLE = AxisOrderLayout("JKI", data_dimensions="outer")
I_CONTIGUOUS = AxisOrderLayout("KJI", data_dimensions="outer")
K_CONTIGUOUS_DATA_INNER = AxisOrderLayout("IJK", data_dimensions="inner")


@pytest.mark.parametrize(
    ("dimensions", "expected"),
    [
        # I contiguous, then K, J outermost, data outermost
        (("I", "J", "K"), (2, 0, 1)),
        (("I", "J"), (1, 0)),
        (("I", "K"), (1, 0)),
        (("J", "K"), (0, 1)),
        (("K",), (0,)),
        (("I", "J", "K", "0"), (3, 1, 2, 0)),
        (("J", "K", "0"), (1, 2, 0)),
        (("I", "K", "0"), (2, 1, 0)),
        (("0",), (0,)),
    ],
)
def test_i_first_axis_order(dimensions: tuple[str, ...], expected: tuple[int, ...]) -> None:
    assert I_CONTIGUOUS_K_MIDDLE(dimensions) == expected


def test_axis_order_ignores_the_order_dimensions_are_given_in() -> None:
    # The same axis is contiguous whatever position it has in the storage.
    assert I_CONTIGUOUS(("I", "J", "K")) == (2, 1, 0)
    assert I_CONTIGUOUS(("K", "J", "I")) == (0, 1, 2)
    assert I_CONTIGUOUS(("J", "I", "K")) == (1, 2, 0)


def test_data_dimensions_inner_or_outer_keep_their_given_order() -> None:
    assert K_CONTIGUOUS_DATA_INNER(("I", "J", "K", "0", "1")) == (0, 1, 2, 3, 4)
    assert I_CONTIGUOUS(("I", "J", "K", "0", "1")) == (4, 3, 2, 0, 1)


def test_c_order_follows_position_not_names() -> None:
    assert c_order_layout(("K", "J", "I")) == (0, 1, 2)
    assert c_order_layout(()) == ()


def test_axis_order_refuses_unknown_or_repeated_names() -> None:
    with pytest.raises(ValueError, match=r"name axes \['X'\] that this layout does not order"):
        I_CONTIGUOUS(("I", "X"))
    with pytest.raises(ValueError, match="more than once"):
        I_CONTIGUOUS(("I", "I"))


@pytest.mark.parametrize(
    ("axis_order", "data_dimensions", "message"),
    [
        ("IIK", "outer", "each axis once"),
        ("", "outer", "each axis once"),
        ("IJ0", "outer", "not data dimensions"),
        ("IJK", "middle", "'inner' or 'outer'"),
    ],
)
def test_axis_order_layout_validates_itself(
    axis_order: str, data_dimensions: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        AxisOrderLayout(axis_order, data_dimensions=data_dimensions)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("layout_map", "ndim", "valid"),
    [
        ((2, 0, 1), None, True),
        ((), 0, True),
        ([1, 0], 2, True),
        ((0, 1), 3, False),
        ((0, 0), None, False),
        ((1, 2), None, False),
        ((0, True), None, False),
        (np.array([1, 0]), 2, True),
        ((np.int64(1), np.int64(0)), 2, True),
        (np.array([[0, 1]]), None, False),
        ("01", None, False),
        (None, None, False),
    ],
)
def test_is_valid_layout_map(layout_map: object, ndim: int | None, valid: bool) -> None:
    assert is_valid_layout_map(layout_map, ndim) is valid


def test_strides_follow_layout_map() -> None:
    assert strides_follow_layout_map((96, 8, 24), (0, 2, 1))
    assert not strides_follow_layout_map((8, 96, 24), (0, 2, 1))
    assert not strides_follow_layout_map((8, 96), (0, 2, 1))
