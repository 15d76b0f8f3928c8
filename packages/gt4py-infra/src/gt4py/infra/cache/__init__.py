"""The cache command: ``python -m gt4py.infra.cache info|clean [--older-than AGE]``.

The caches themselves are in :mod:`gt4py.infra.caching`.
"""
