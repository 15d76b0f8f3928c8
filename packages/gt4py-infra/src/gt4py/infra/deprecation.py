"""The category of gt4py's own deprecation warnings.

Every deprecation gt4py announces on purpose (a released name, setting or spelling that still
works) is a :class:`GT4PyDeprecationWarning`. It is a ``DeprecationWarning``, so user filters
and ``pytest.warns(DeprecationWarning)`` see it as one; its own class lets a test suite turn
every *other* deprecation (numpy's, in particular) into an error while still showing gt4py's
(the workspace's pytest configuration does exactly that, issue 45).
"""

from __future__ import annotations


__all__ = ["GT4PyDeprecationWarning"]


class GT4PyDeprecationWarning(DeprecationWarning):
    """A deprecation announced by gt4py itself; the message names the new spelling."""
