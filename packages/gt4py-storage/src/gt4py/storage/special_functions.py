"""gamma, erf and erfc of arrays, shared by gt4py.next and GTScript (ADR 0028).

C conventions (``tgamma``, ``erf``, ``erfc``); scipy.special computes them on NumPy arrays when
it is installed (``pip install gt4py-storage[scipy]``, on by default: the
``special_functions_scipy`` setting). Importing this module imports numpy only.
"""

from ._special_functions import erf as erf, erfc as erfc, gamma as gamma


__all__ = ["erf", "erfc", "gamma"]
