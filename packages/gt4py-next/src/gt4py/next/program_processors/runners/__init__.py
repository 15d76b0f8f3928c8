"""Released gt4py's backend modules by their old paths: ``runners.gtfn``, ``runners.dace``."""
