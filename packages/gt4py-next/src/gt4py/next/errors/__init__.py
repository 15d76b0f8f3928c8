"""Errors reported for user code of gt4py.next (``gtx.errors.DSLError`` and subclasses) and
for calls with arguments that do not fit (``CallArgumentError``, a ``TypeError``)."""

from ._exceptions import (
    CallArgumentError as CallArgumentError,
    DSLError as DSLError,
    DSLTypeError as DSLTypeError,
    InvalidParameterAnnotationError as InvalidParameterAnnotationError,
    MissingAttributeError as MissingAttributeError,
    MissingParameterAnnotationError as MissingParameterAnnotationError,
    UndefinedSymbolError as UndefinedSymbolError,
    UnsupportedPythonFeatureError as UnsupportedPythonFeatureError,
)


__all__ = [
    "CallArgumentError",
    "DSLError",
    "DSLTypeError",
    "InvalidParameterAnnotationError",
    "MissingAttributeError",
    "MissingParameterAnnotationError",
    "UndefinedSymbolError",
    "UnsupportedPythonFeatureError",
]
