"""GTScript functions of the FV3-style tests, imported by the test module as a module
(``helpers.damp(a, b)``), calling each other and reading ``consts.NAME`` of a third module."""

import fv3_consts as consts

from gt4py.cartesian import gtscript


@gtscript.function
def scaled(x):
    return x * consts.ALPHA


@gtscript.function
def damp(x, y):
    # a function calling a function of its own module, with a constant of another module
    return scaled(x) + scaled(y) / consts.GRAV


@gtscript.function
def upwind(q, c):
    # FV3's flux form: read the upstream neighbour, chosen by the sign of the Courant number
    return q[-1, 0, 0] if c > 0.0 else q
