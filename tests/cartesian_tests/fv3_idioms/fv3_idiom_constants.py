"""Physical constants of the idiom stencils, read as ``C.NAME`` the way FV3 physics reads
``constants.NAME`` from a module of its own (values chosen for this suite, not FV3's)."""

E_SAT0 = 611.21  # saturation pressure at the reference temperature [Pa]
T_REF = 273.16  # reference temperature [K]
R_VAP = 461.5  # gas constant of water vapour
LAT_VAP = 2.5e6  # latent heat of vaporisation
D_CP_VAP = -2339.5  # heat capacity difference vapour - liquid
CP_AIR = 1004.6
ICE_SHIFT = 1.5  # the ice branch evaluates the water formula this many K colder
LIMIT_KORD = 8  # `__INLINED(kord > C.LIMIT_KORD)`: module constant in a compile-time branch
USE_MONOTONE = True  # module constant as the whole `__INLINED` condition
