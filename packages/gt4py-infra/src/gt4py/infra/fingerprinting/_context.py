"""What built-in deconstructors need from the fingerprinter that uses them."""

from __future__ import annotations

from typing import Any, Protocol


class FoldContext(Protocol):
    """The naming policy and type identities of one fingerprinter (strict or lenient)."""

    def type_identity(self, cls: type) -> bytes:
        """The token that identifies ``cls`` in the headers of its instances' nodes."""
        ...

    def named_token(self, obj: Any, tag: bytes, name: str | None) -> bytes:
        """``obj`` as a leaf named ``name`` (a verified qualified name).

        With ``name`` None the object cannot be named: strict raises a FingerprintError that
        names the object; lenient falls back to an identity token.
        """
        ...

    def unknown_token(self, obj: Any) -> bytes:
        """``obj`` has no deconstructor: strict raises, lenient uses an identity token."""
        ...
