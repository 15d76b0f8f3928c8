"""``DataModel``: typed, validated, frozen-by-default classes built on attrs.

Each subclass is turned into a slotted attrs class (keyword-only, ``eq`` by fields) by the
metaclass when it is defined; slots keep nodes small and halve the garbage collector's work
when large trees are built. The validator is compiled lazily, on the first construction,
because annotations may name classes defined later in the module. Compiling resolves the
annotations once and produces a per-class function of precomputed ``isinstance`` checks;
it replaces the class's ``__attrs_post_init__``, so every later construction pays only for
the checks themselves.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import typing
from typing import Any, ClassVar, Final, TypeVar, dataclass_transform

import attrs

from ._compile import compile_and_validate, validate_assignment
from ._errors import DataModelDefinitionError
from ._field import field, validated_field_names
from ._generic import concrete_class, has_type_vars


_M = TypeVar("_M", bound="DataModel")

_MUTABLE_DEFAULT_TYPES: Final = (list, dict, set, bytearray)


@dataclasses.dataclass(frozen=True)
class ModelOptions:
    """Class-level options, given as class keywords: ``class P(DataModel, frozen=False)``."""

    frozen: bool = True
    kw_only: bool = True
    type_check: bool = True


# Type checkers cannot see the ``__init__`` attrs generates at class creation; this tells them
# every datamodel takes its fields as keyword arguments, as a dataclass would.
@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
class DataModelMeta(type):
    """Builds every datamodel class as a slotted attrs class (see :class:`DataModel`).

    Class keywords ``frozen``, ``kw_only`` and ``type_check`` are consumed here.
    """

    def __new__(
        mcls,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        *,
        frozen: bool | None = None,
        kw_only: bool | None = None,
        type_check: bool | None = None,
        **kwargs: Any,
    ) -> DataModelMeta:
        if "__attrs_attrs__" in namespace or not any(isinstance(b, DataModelMeta) for b in bases):
            # attrs re-creating the class with slots, or DataModel itself: build it as is.
            return super().__new__(mcls, name, bases, namespace, **kwargs)
        _check_namespace(name, namespace)
        draft = super().__new__(mcls, name, bases, namespace, **kwargs)
        built = _make_attrs_class(draft, frozen=frozen, kw_only=kw_only, type_check=type_check)
        assert isinstance(built, DataModelMeta)
        return built

    def __init__(
        cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> None:
        super().__init__(name, bases, namespace)


class DataModel(metaclass=DataModelMeta):
    """Base of typed, validated datamodels (frozen, keyword-only, compared by fields).

    Subclass with annotated fields; class keywords ``frozen``, ``kw_only`` and ``type_check``
    change the defaults. Values are checked against the annotations on construction (and on
    assignment for mutable models); a mismatch raises :class:`DataModelTypeError`.
    Define ``__post_init__(self)`` (run after validation) for extra initialisation, and
    ``@validator("field")`` / ``@root_validator`` methods for extra checks.

    Generic models: ``class Box(DataModel, Generic[T])``; ``Box[int]`` is a concrete subclass
    whose ``T`` fields are checked as ``int``; type arguments are checked against the
    type variable's bound or constraints.
    """

    __slots__ = ()

    __eve_options__: ClassVar[ModelOptions] = ModelOptions()
    __eve_field_names__: ClassVar[tuple[str, ...]] = ()
    #: ``(attribute name, __init__ argument name)`` of the fields set by ``__init__``.
    __eve_init_names__: ClassVar[tuple[tuple[str, str], ...]] = ()

    @classmethod
    def __eve_class_built__(cls) -> None:
        """Called once the attrs class is complete; subclasses extend it (call super())."""

    @classmethod
    def __class_getitem__(cls, params: Any) -> Any:
        if not isinstance(params, tuple):
            params = (params,)
        if not cls.__dict__.get("__parameters__"):
            raise TypeError(
                f"{cls.__qualname__} is not a generic datamodel (no free type variables)"
            )
        if any(has_type_vars(param) for param in params):
            # Still generic (``Sub(Box[T])``): let typing build the alias it needs.
            return super().__class_getitem__(params)  # type: ignore[misc]
        return concrete_class(cls, params)

    @classmethod
    def __eve_concretize__(cls, args: tuple[Any, ...]) -> type | None:
        """The concrete class ``cls[args]``, or None if ``args`` are not all concrete."""
        if not cls.__dict__.get("__parameters__") or any(has_type_vars(a) for a in args):
            return None
        return concrete_class(cls, args)


def _check_namespace(name: str, namespace: dict[str, Any]) -> None:
    for reserved in ("__init__", "__attrs_post_init__"):
        if reserved in namespace:
            raise DataModelDefinitionError(
                f"{name} defines {reserved}; datamodels generate it. "
                "Put extra initialisation in __post_init__(self)."
            )


def _own_annotations(cls: type) -> dict[str, Any]:
    """The annotations written in the class body, unevaluated where possible.

    Python 3.14 evaluates annotations lazily; asking for forward references there avoids
    NameErrors for names defined later.
    """
    if sys.version_info >= (3, 14):
        import annotationlib

        return dict(annotationlib.get_annotations(cls, format=annotationlib.Format.FORWARDREF))
    return dict(inspect.get_annotations(cls))


def _check_defaults(cls: type, annotations: dict[str, Any]) -> None:
    for field_name in annotations:
        default = cls.__dict__.get(field_name)
        if isinstance(default, _MUTABLE_DEFAULT_TYPES):
            raise DataModelDefinitionError(
                f"field '{field_name}' of {cls.__qualname__} has the mutable default "
                f"{default!r}, which would be shared by every instance; use "
                f"field(factory={type(default).__name__})"
            )


def _make_attrs_class(
    draft: type,
    *,
    frozen: bool | None,
    kw_only: bool | None,
    type_check: bool | None,
) -> type:
    inherited: ModelOptions = draft.__eve_options__  # type: ignore[attr-defined]
    frozen_base = _frozen_base_with_fields(draft) if frozen is False else None
    if frozen_base is not None:
        raise DataModelDefinitionError(
            f"{draft.__qualname__} cannot be mutable (frozen=False): its base "
            f"{frozen_base.__qualname__} is frozen and has fields"
        )
    options = ModelOptions(
        frozen=inherited.frozen if frozen is None else frozen,
        kw_only=inherited.kw_only if kw_only is None else kw_only,
        type_check=inherited.type_check if type_check is None else type_check,
    )
    own_annotations = _own_annotations(draft)
    _check_defaults(draft, own_annotations)
    draft.__eve_options__ = options  # type: ignore[attr-defined]
    if "__eve_generic_origin__" not in draft.__dict__:
        draft.__eve_defining_locals__ = _defining_function_locals()  # type: ignore[attr-defined]
    # Replaced by the compiled validator on the first construction.
    draft.__attrs_post_init__ = compile_and_validate  # type: ignore[attr-defined]
    # attrs freezes by replacing __setattr__, which subclasses inherit and cannot undo. Classes
    # without fields have nothing to protect, so they stay thawed at the attrs level (but
    # hashable, and their subclasses frozen by default); ``class M(Node, frozen=False)`` works.
    freeze = options.frozen and _declares_or_inherits_fields(draft, own_annotations)
    cls: type = attrs.define(
        draft,
        slots=True,
        frozen=freeze,
        kw_only=options.kw_only,
        eq=True,
        order=False,
        unsafe_hash=True if options.frozen and not freeze else None,
        weakref_slot=True,
        on_setattr=None if freeze else validate_assignment,
    )
    attributes = attrs.fields(cls)
    cls.__eve_field_names__ = tuple(a.name for a in attributes)  # type: ignore[attr-defined]
    cls.__eve_init_names__ = tuple((a.name, a.alias) for a in attributes if a.init)  # type: ignore[attr-defined]
    cls.__eve_info__ = None  # type: ignore[attr-defined]
    _check_validator_targets(cls, set(cls.__eve_field_names__))  # type: ignore[attr-defined]
    cls.__eve_class_built__()  # type: ignore[attr-defined]
    return cls


def _defining_function_locals() -> dict[str, Any] | None:
    """A snapshot of the locals of the function whose body defines the class being built.

    Annotations of classes defined inside functions (tests, factories) may name other local
    classes; they are strings under ``from __future__ import annotations`` and can only be
    resolved later with those locals at hand. Module-level classes need nothing.
    """
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None or frame.f_locals is frame.f_globals:
        return None
    return dict(frame.f_locals)


_CLASS_VAR_PREFIXES: Final = (
    "ClassVar",
    "typing.ClassVar",
    "t.ClassVar",
    "typing_extensions.ClassVar",
)


def _declares_or_inherits_fields(cls: type, own_annotations: dict[str, Any]) -> bool:
    if any(getattr(base, "__eve_field_names__", ()) for base in cls.__mro__[1:]):
        return True
    for annotation in own_annotations.values():
        if isinstance(annotation, str):
            if not annotation.startswith(_CLASS_VAR_PREFIXES):
                return True
        elif typing.get_origin(annotation) is not ClassVar and annotation is not ClassVar:
            return True
    return False


def _frozen_base_with_fields(cls: type) -> type | None:
    """A frozen datamodel base whose fields a mutable subclass would make assignable."""
    for base in cls.__mro__[1:]:
        if issubclass(base, DataModel) and base.__eve_options__.frozen and base.__eve_field_names__:
            return base
    return None


def _check_validator_targets(cls: type, field_names: set[str]) -> None:
    for name, member in vars(cls).items():
        targets = validated_field_names(member)
        unknown = [target for target in targets if target not in field_names]
        if unknown:
            raise DataModelDefinitionError(
                f"validator {cls.__qualname__}.{name} refers to unknown field(s) "
                f"{', '.join(map(repr, unknown))} (fields: {', '.join(sorted(field_names))})"
            )


# --- helpers on instances ------------------------------------------------------------------


def fields(model: DataModel | type[DataModel]) -> tuple[attrs.Attribute[Any], ...]:
    """The attrs field definitions of a datamodel class or instance."""
    cls = model if isinstance(model, type) else type(model)
    if not (isinstance(cls, type) and issubclass(cls, DataModel)):
        raise TypeError(f"{model!r} is not a datamodel class or instance")
    return tuple(attrs.fields(cls))  # type: ignore[arg-type]  # attrs' stubs miss the metaclass


def evolve(model: _M, **changes: Any) -> _M:
    """A copy of ``model`` with some fields replaced (validated like a new instance)."""
    cls = type(model)
    if not isinstance(model, DataModel):
        raise TypeError(f"evolve() expects a datamodel instance, got {type(model).__qualname__}")
    init_names = dict(cls.__eve_init_names__)
    unknown = [name for name in changes if name not in init_names]
    if unknown:
        raise TypeError(
            f"{cls.__qualname__} has no field(s) {', '.join(map(repr, unknown))} that can be "
            f"changed (fields: {', '.join(init_names)})"
        )
    arguments = {alias: getattr(model, name) for name, alias in cls.__eve_init_names__}
    for name, value in changes.items():
        arguments[init_names[name]] = value
    return cls(**arguments)
