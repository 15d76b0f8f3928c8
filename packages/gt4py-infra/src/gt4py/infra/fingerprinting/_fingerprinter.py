"""The Fingerprinter: dispatch tables, naming policy, registration and pickling."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final, TypeAlias

from . import _encoding as enc, _naming as naming
from ._errors import FingerprintError
from ._fold import ORDERED, Entry, Node, fold
from ._records import record_entry
from ._standard import STANDARD_TABLE, fallback_entry


Deconstructor: TypeAlias = Callable[[Any], Any]

# Bumped by every register(): fingerprinters compare it with the generation their dispatch
# cache was built for, once per call, so a registration anywhere in a chain is seen at once.
_registry_generation = 0

# Dispatch caches hold their types strongly; beyond this many types (classes created at run
# time in a loop) a cache starts over rather than grow without end.
_DISPATCH_CACHE_LIMIT: Final = 8192

_IDENTITY_SERIALS: Final = naming.IdentitySerials()

_PUBLIC_MODULE: Final = "gt4py.infra.fingerprinting"


class Fingerprinter:
    """Content hashes of Python values under one contract (strict or lenient).

    Calling a fingerprinter gives a hex digest (32 characters, xxh3_128); ``digest`` gives the
    16 raw bytes. A deconstructor registered for a class maps an instance to simpler values
    (typically a tuple of its parts), which are fingerprinted in turn; the class identity is
    folded in as well, so a deconstructed value never collides with its parts. Returning a
    tuple folds its elements directly as the node's children (one node per instance).

    Dispatch looks for a deconstructor along the class's MRO: the nearest registered class
    wins; for the same class, a registration in an extension wins over the base's. Failing
    that, records (dataclasses, attrs classes, named tuples, enums) are folded by their
    fields, then standard types by the built-in table, and anything else is refused (strict)
    or keyed by identity (lenient).
    """

    __module__ = _PUBLIC_MODULE
    __slots__ = (
        "_base",
        "_dispatch",
        "_generation",
        "_own",
        "_public_name",
        "_strict",
        "_user_table",
    )

    #: Deepest nesting folded before giving up (reached only by runaway deconstructors).
    max_depth: ClassVar[int] = 1_000_000

    def __init__(
        self,
        strict: bool = True,
        deconstructors: Mapping[type, Deconstructor] | None = None,
        base: Fingerprinter | None = None,
    ) -> None:
        if base is not None and not isinstance(base, Fingerprinter):
            raise TypeError(f"base must be a Fingerprinter, got {naming.describe(base)}")
        self._strict = bool(strict)
        self._base = base
        self._own: dict[type, Deconstructor] = {}
        for cls, deconstructor in (deconstructors or {}).items():
            _check_registration(cls, deconstructor)
            self._own[cls] = deconstructor
        self._public_name: str | None = None
        self._user_table: dict[type, Deconstructor] = {}
        self._dispatch: dict[type, Entry] = {}
        self._generation = -1  # forces a build on first use

    # --- public API ------------------------------------------------------------------------

    @property
    def is_strict(self) -> bool:
        return self._strict

    def __call__(self, value: Any) -> str:
        """The fingerprint of ``value`` as 32 hex characters."""
        return self.digest(value).hex()

    def digest(self, value: Any) -> bytes:
        """The fingerprint of ``value`` as 16 bytes."""
        if self._generation != _registry_generation:
            self._rebuild()
        return fold(value, self._dispatch, self._resolve, self.max_depth)

    def register(self, cls: type, deconstructor: Deconstructor) -> None:
        """Use ``deconstructor`` for instances of ``cls`` (and of subclasses without their own).

        Meant for DSL packages at import time. It applies to this fingerprinter and to every
        one extended from it — registering on ``strict`` covers ``lenient`` too — including
        extensions made before the registration. Registering a class again replaces the
        earlier deconstructor.
        """
        global _registry_generation
        _check_registration(cls, deconstructor)
        self._own[cls] = deconstructor
        _registry_generation += 1

    def extend(self, overrides: Mapping[type, Deconstructor]) -> Fingerprinter:
        """A new fingerprinter with ``overrides`` on top of this one's table; this one is unchanged.

        Later registrations on this fingerprinter show through in the extension, unless the
        extension overrides the same class.
        """
        return Fingerprinter(self._strict, overrides, base=self)

    def __repr__(self) -> str:
        if self._public_name is not None:
            return f"{_PUBLIC_MODULE}.{self._public_name}"
        mode = "strict" if self._strict else "lenient"
        classes = ", ".join(sorted(cls.__qualname__ for cls in self._own))
        return f"<Fingerprinter {mode}, base={self._base!r}, overrides for [{classes}]>"

    def __reduce__(self) -> str | tuple[Any, ...]:
        if self._public_name is not None:
            # By reference: unpickling gives back the module-level instance of that process.
            return self._public_name
        # By value: the base (itself by reference or value) and this layer's deconstructors,
        # which must then be picklable (module-level functions, not lambdas).
        return (Fingerprinter, (self._strict, dict(self._own), self._base))

    # --- FoldContext: what the built-in deconstructors ask of us ----------------------------

    def type_identity(self, cls: type) -> bytes:
        return enc.NODE_REF_TAG + fold(
            cls, self._dispatch, self._resolve, self.max_depth, annotate_errors=False
        )

    def named_token(self, obj: Any, tag: bytes, name: str | None) -> bytes:
        if name is not None:
            return enc.encode_name(tag, name)
        if not self._strict:
            return enc.encode_identity(_IDENTITY_SERIALS.serial(obj))
        raise FingerprintError(
            f"strict fingerprinting cannot name {naming.describe(obj)}: "
            f"{naming.why_unnamed(obj)}. Strict fingerprints identify functions and classes by "
            "a module-level name that imports back to the same object. Define it at module "
            "level, register a deconstructor for it, or use fingerprinting.lenient for keys "
            "that live only in this process."
        )

    def unknown_token(self, obj: Any) -> bytes:
        if not self._strict:
            return enc.encode_identity(_IDENTITY_SERIALS.serial(obj))
        cls = type(obj)
        cls_name = f"{cls.__module__}.{cls.__qualname__}"
        raise FingerprintError(
            f"strict fingerprinting has no deconstructor for {cls_name} "
            f"(value {naming.describe(obj)}). Register one with "
            f"fingerprinting.strict.register({cls.__qualname__}, fn), where fn returns simpler, "
            "fingerprintable parts of the value (e.g. a tuple), make the class a dataclass or "
            "attrs class, or use fingerprinting.lenient for keys that live only in this process."
        )

    # --- dispatch --------------------------------------------------------------------------

    def _rebuild(self) -> None:
        generation = _registry_generation
        layers: list[Fingerprinter] = []
        layer: Fingerprinter | None = self
        while layer is not None:
            layers.append(layer)
            layer = layer._base
        table: dict[type, Deconstructor] = {}
        for layer in reversed(layers):  # the base first, so extensions override it
            table.update(layer._own)
        self._user_table = table
        self._dispatch = {}
        self._generation = generation

    def _resolve(self, cls: type) -> Entry:
        entry = self._resolve_uncached(cls)
        if len(self._dispatch) >= _DISPATCH_CACHE_LIMIT:
            self._dispatch = {}
        self._dispatch[cls] = entry
        return entry

    def _resolve_uncached(self, cls: type) -> Entry:
        mro = cls.__mro__
        for candidate in mro:
            deconstructor = self._user_table.get(candidate)
            if deconstructor is not None:
                return self._deconstructor_entry(cls, deconstructor)
        entry = record_entry(self, cls)
        if entry is not None:
            return entry
        for candidate in mro:
            standard = STANDARD_TABLE.get(candidate)
            if standard is not None:
                entry = standard.factory(self, cls)
                if candidate is cls or not standard.subclass_identity:
                    return entry
                return _with_class_identity(entry, b"<" + self.type_identity(cls))
        return fallback_entry(self)

    def _deconstructor_entry(self, cls: type, deconstructor: Deconstructor) -> Entry:
        identity = self.type_identity(cls)
        spliced_header = b"X(" + identity
        single_header = b"X" + identity
        label = f"<{getattr(deconstructor, '__name__', 'deconstructor')}()>"
        single_labels = (label,)

        def deconstructed(value: Any) -> Node:
            parts = deconstructor(value)
            if parts is value:
                raise FingerprintError(
                    f"the deconstructor {naming.describe(deconstructor)} for "
                    f"{cls.__qualname__} returned the value itself; it must return simpler parts"
                )
            if type(parts) is tuple:
                # Splice the parts in as children: no extra node per deconstructed value.
                return spliced_header, parts, ORDERED, None
            return single_header, (parts,), ORDERED, single_labels

        return True, deconstructed


def _with_class_identity(entry: Entry, prefix: bytes) -> Entry:
    """The entry of a base class, specialised to a subclass whose identity must count."""
    may_be_node, handler = entry

    def of_subclass(value: Any) -> bytes | Node:
        result = handler(value)
        if isinstance(result, bytes):
            return prefix + result
        header, children, ordering, labels = result
        return prefix + header, children, ordering, labels

    return may_be_node, of_subclass


def _check_registration(cls: Any, deconstructor: Any) -> None:
    if not isinstance(cls, type):
        raise TypeError(f"deconstructors are registered for classes, got {naming.describe(cls)}")
    if not callable(deconstructor):
        raise TypeError(
            f"the deconstructor for {cls.__qualname__} must be callable, "
            f"got {naming.describe(deconstructor)}"
        )


def _public(instance: Fingerprinter, name: str) -> Fingerprinter:
    instance._public_name = name
    return instance


strict: Final = _public(Fingerprinter(strict=True), "strict")
lenient: Final = _public(Fingerprinter(strict=False, base=strict), "lenient")
