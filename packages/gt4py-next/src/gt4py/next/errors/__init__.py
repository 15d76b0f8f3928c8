"""Errors reported for user code of gt4py.next (``gtx.errors.DSLError`` and subclasses)."""

from ._exceptions import (
    DSLError as DSLError,
    DSLTypeError as DSLTypeError,
    InvalidParameterAnnotationError as InvalidParameterAnnotationError,
    MissingAttributeError as MissingAttributeError,
    MissingParameterAnnotationError as MissingParameterAnnotationError,
    UndefinedSymbolError as UndefinedSymbolError,
    UnsupportedPythonFeatureError as UnsupportedPythonFeatureError,
)


__all__ = [
    "DSLError",
    "DSLTypeError",
    "InvalidParameterAnnotationError",
    "MissingAttributeError",
    "MissingParameterAnnotationError",
    "UndefinedSymbolError",
    "UnsupportedPythonFeatureError",
]
