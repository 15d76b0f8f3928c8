"""Splitting identifiers into words and joining them in another case style."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from typing import Final


class CaseStyle(enum.Enum):
    """Ways of writing multi-word identifiers."""

    SNAKE = "snake_case"
    SCREAMING_SNAKE = "SCREAMING_SNAKE_CASE"
    KEBAB = "kebab-case"
    CAMEL = "camelCase"
    PASCAL = "PascalCase"
    CONCATENATED = "concatenated"  # lower case, no separators (cannot be split back)


# Word boundaries inside camel/Pascal case: "HTTPServer" -> HTTP, Server; "int32Value" ->
# int32, Value; runs of capitals stay together except their last letter before a lower one.
_CAMEL_WORD: Final = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")


def split_words(name: str, style: CaseStyle | None = None) -> list[str]:
    """The lower-case words of ``name``; the style is guessed when not given."""
    if not isinstance(name, str):
        raise TypeError(f"expected a str, got {type(name).__qualname__}")
    if style is CaseStyle.CONCATENATED:
        raise ValueError("concatenated names have no word boundaries to split at")
    if style in (CaseStyle.SNAKE, CaseStyle.SCREAMING_SNAKE):
        parts = name.split("_")
    elif style is CaseStyle.KEBAB:
        parts = name.split("-")
    else:
        # camel/Pascal, or guessing: split at separators, then at case changes.
        parts = [
            word for chunk in re.split(r"[_\-\s]+", name) for word in _CAMEL_WORD.findall(chunk)
        ]
    return [part.lower() for part in parts if part]


def join_words(words: Iterable[str], style: CaseStyle) -> str:
    """``words`` joined in ``style``."""
    words = [word.lower() for word in words if word]
    if style is CaseStyle.SNAKE:
        return "_".join(words)
    if style is CaseStyle.SCREAMING_SNAKE:
        return "_".join(words).upper()
    if style is CaseStyle.KEBAB:
        return "-".join(words)
    if style is CaseStyle.CAMEL:
        return words[0] + "".join(word.capitalize() for word in words[1:]) if words else ""
    if style is CaseStyle.PASCAL:
        return "".join(word.capitalize() for word in words)
    if style is CaseStyle.CONCATENATED:
        return "".join(words)
    raise TypeError(f"expected a CaseStyle, got {style!r}")


def convert_case(name: str, to: CaseStyle, *, source: CaseStyle | None = None) -> str:
    """``name`` rewritten in the case style ``to``: ``convert_case("fooBar", SNAKE) == "foo_bar"``."""
    return join_words(split_words(name, source), to)


def to_snake_case(name: str) -> str:
    return convert_case(name, CaseStyle.SNAKE)


def to_camel_case(name: str) -> str:
    return convert_case(name, CaseStyle.CAMEL)


def to_pascal_case(name: str) -> str:
    return convert_case(name, CaseStyle.PASCAL)


def to_kebab_case(name: str) -> str:
    return convert_case(name, CaseStyle.KEBAB)
