"""Small helpers for compiler writers: unique ids, content hashes, recursion limits."""

from ._content_hash import content_hash as content_hash
from ._recursion import recursion_limit as recursion_limit
from ._uid import UIDGenerator as UIDGenerator


__all__ = ["UIDGenerator", "content_hash", "recursion_limit"]
