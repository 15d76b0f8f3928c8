"""itir_python: the IR as generated Python/numpy, loaded from the cache without a compiler."""

from ._backend import make_itir_python_backend as make_itir_python_backend
