"""Small helpers for compiler writers: unique ids, case styles, content hashes, dispatch."""

from ._case_style import (
    CaseStyle as CaseStyle,
    convert_case as convert_case,
    join_words as join_words,
    split_words as split_words,
    to_camel_case as to_camel_case,
    to_kebab_case as to_kebab_case,
    to_pascal_case as to_pascal_case,
    to_snake_case as to_snake_case,
)
from ._content_hash import content_hash as content_hash
from ._dispatcher import SingleDispatcher as SingleDispatcher, single_dispatch as single_dispatch
from ._recursion import recursion_limit as recursion_limit
from ._uid import UIDGenerator as UIDGenerator


__all__ = [
    "CaseStyle",
    "SingleDispatcher",
    "UIDGenerator",
    "content_hash",
    "convert_case",
    "join_words",
    "recursion_limit",
    "single_dispatch",
    "split_words",
    "to_camel_case",
    "to_kebab_case",
    "to_pascal_case",
    "to_snake_case",
]
