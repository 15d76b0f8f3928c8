"""Where a node came from in the user's source."""

from __future__ import annotations

from typing import ClassVar

from gt4py.eve.datamodels import DataModel, root_validator


class SourceLocation(DataModel):
    """A span in a source file: 1-based lines and columns; the end is optional.

    Fields annotated with this class (or ``SourceLocation | None``) are left out of
    fingerprints: moving code around must not change what it compiles to.
    """

    __eve_is_location__: ClassVar[bool] = True

    filename: str
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    @root_validator
    def _positions_are_valid(self) -> None:
        if self.line < 1 or self.column < 1:
            raise ValueError(
                f"source positions are 1-based, got line {self.line}, column {self.column}"
            )
        if self.end_line is not None and self.end_line < self.line:
            raise ValueError(f"end_line {self.end_line} comes before line {self.line}")
        if (
            self.end_line == self.line
            and self.end_column is not None
            and self.end_column < self.column
        ):
            raise ValueError(f"end_column {self.end_column} comes before column {self.column}")

    def __str__(self) -> str:
        text = f"{self.filename}:{self.line}:{self.column}"
        if self.end_line is not None:
            text += f"-{self.end_line}"
            if self.end_column is not None:
                text += f":{self.end_column}"
        return text
