"""Released gt4py's backend modules by their old paths: ``runners.gtfn``, ``runners.dace``,
``runners.roundtrip`` and ``runners.double_roundtrip`` (each name warns or says what to use)."""
