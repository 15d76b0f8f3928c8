"""Small helpers for compiler writers: unique ids, content hashes, recursion limits, and
``.partial(...)`` on functions (``with_fluid_partial``)."""

from ._content_hash import content_hash as content_hash
from ._partial import fluid_partial as fluid_partial, with_fluid_partial as with_fluid_partial
from ._recursion import recursion_limit as recursion_limit
from ._uid import UIDGenerator as UIDGenerator


__all__ = [
    "UIDGenerator",
    "content_hash",
    "fluid_partial",
    "recursion_limit",
    "with_fluid_partial",
]
