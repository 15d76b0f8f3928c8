"""What the translation of a program may assume about each of its neighbour tables."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class TableLayout:
    """A neighbour table's element dtype, its number of columns and whether it holds skip
    values; part of the variant key and of the translation input (a record of primitives, so
    it fingerprints and pickles as its fields).

    ``columns=None``: the count is only known at run time (a one-dimensional table, or one not
    described yet); the generated code then reads it from the array. ``has_skip=False``: no
    entry is the skip value, so the generated code does not check for it.
    """

    dtype: str
    columns: int | None = None
    has_skip: bool = True

    def __post_init__(self) -> None:
        if self.columns is not None and (
            isinstance(self.columns, bool) or not isinstance(self.columns, int) or self.columns < 0
        ):
            raise ValueError(f"TableLayout: columns={self.columns!r} is not a count")

    def __str__(self) -> str:  # dumps and messages: "int32", "int32[3]", "int32[3]?"
        if self.columns is None:
            return self.dtype
        return f"{self.dtype}[{self.columns}]{'?' if self.has_skip else ''}"
