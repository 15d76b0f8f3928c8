"""Physical constants of the FV3-style tests, read by stencils as ``consts.NAME``."""

ALPHA = 0.25
GRAV = 9.80665
