"""Content fingerprints of Python values: cache keys for IR trees, types, functions, arrays.

    from gt4py.infra import fingerprinting as fp
    key = fp.strict((program_ir, column_axis, np.dtype("float64")))   # 32 hex characters

A fingerprint is one generic bottom-up fold over the value: each class has a *deconstructor*
that maps an instance to simpler values, folded in turn, down to leaves (numbers, strings,
bytes, names); the pieces are aggregated with xxh3_128.

Two instances, two contracts:

``strict`` — for everything persistent (on-disk caches, keys shared between processes).
    Deterministic across processes, machines of the same byte order, and ``PYTHONHASHSEED``
    values, for the same code. Functions and classes count by their qualified name
    (``module:qualname``), and only after verifying that importing the module and walking the
    name gives back the very same object; their code is *not* hashed. Lambdas, functions and
    classes defined inside functions, and objects without a deconstructor are refused with a
    ``FingerprintError`` that names the object and suggests a fix. Names in ``__main__`` are
    taken as they are: two different scripts may both define ``__main__.f``.

``lenient`` — for in-memory caches of one process.
    Everything strict accepts gets the same fingerprint as under strict; what strict refuses
    is keyed by identity: a per-process serial number that is never reused, not even after
    the object is gone. Identity-keyed objects count as themselves, whatever their content.

What is folded, and how:

- ``None``, bools, ints, floats, complex, str, bytes: ``1``, ``1.0`` and ``True`` all differ;
  floats are exact, ``-0.0`` differs from ``0.0``, every NaN is the same.
- tuples and lists (told apart), in order; sets and frozensets (told apart), in any order;
  dicts by content in any insertion order — the items are sorted by the fingerprints of
  their keys, as equal dicts compare equal (use a list of pairs where order matters).
- dataclasses, attrs classes and named tuples: the verified class name, the field names and
  the field values; a field with ``metadata={METADATA_KEY: False}`` is left out. Enums: class
  and member name. attrs is recognised without being imported.
- classes, functions, numpy ufuncs, typing forms: by verified qualified name; bound methods
  and ``functools.partial`` by their parts; modules by name; generic aliases
  (``list[int]``) by origin and arguments; paths, slices, ranges, ``...``.
- numpy: dtypes (byte order and record layout included), scalars (dtype and bytes), arrays
  (dtype, shape and content; object arrays element by element).
- a subclass of a standard type folds as its base plus its own class identity.

Shared sub-values are folded once per call; cycles (a list containing itself, objects that
refer to each other) are encoded as back-references along the current path, so they neither
recurse forever nor depend on where the cycle sits; deep nesting uses an explicit stack, not
Python recursion.

Extending: ``fp.strict.register(MyNode, fn)`` registers globally (DSL packages, at import) and
applies to ``lenient`` and to every extension too; ``fp.strict.extend({T: fn})`` returns a new
fingerprinter for one call site and leaves the original alone. Dispatch follows the MRO.

Pickling: ``strict`` and ``lenient`` pickle by reference (unpickled, they *are* the module-level
instances of the receiving process). An extended fingerprinter pickles by value: its base by
reference and its own table, which then must hold picklable (module-level) deconstructors.
"""

from __future__ import annotations

from ._errors import FingerprintError as FingerprintError
from ._fingerprinter import (
    Deconstructor as Deconstructor,
    Fingerprinter as Fingerprinter,
    lenient as lenient,
    strict as strict,
)
from ._records import METADATA_KEY as METADATA_KEY


__all__ = [
    "METADATA_KEY",
    "Deconstructor",
    "FingerprintError",
    "Fingerprinter",
    "lenient",
    "strict",
]
