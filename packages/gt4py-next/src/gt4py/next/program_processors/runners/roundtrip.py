"""Released gt4py's roundtrip backends by their old path (``default`` is ``gtx.itir_python``).

``roundtrip.default`` compiled a program to generated Python for debugging; that is
``gtx.itir_python`` now (generated numpy code from the same IR), with a ``DeprecationWarning``.
The released workflow pieces (``Roundtrip``, ``with_temporaries``, ``no_transforms``, ``gtir``)
have no equivalent: an ``AttributeError`` says what to use.
"""

from __future__ import annotations

from ... import _relocated


__getattr__ = _relocated.module_getattr(
    __name__,
    {"default": _relocated.Moved("gtx.itir_python", "gt4py.next.backends:itir_python")},
    otherwise=_relocated.Gone(
        replacement="gtx.itir_python (generated numpy code from the IR), or "
        "gt4py.next.backends.python_numpy.make_itir_python_backend(cse=...)",
        why="released gt4py's roundtrip workflow pieces are not provided here",
    ),
)
