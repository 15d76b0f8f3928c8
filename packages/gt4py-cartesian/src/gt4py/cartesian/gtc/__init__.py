"""Released gt4py.cartesian's ``gtc`` package path: only the names frameworks import from it
(``gtc.passes.oir_pipeline``), faces over :mod:`gt4py.cartesian._released_passes`."""
