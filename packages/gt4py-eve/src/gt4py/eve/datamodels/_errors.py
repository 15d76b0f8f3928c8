"""Errors raised when a datamodel is defined or constructed wrongly."""

from __future__ import annotations


class DataModelTypeError(TypeError):
    """A field value does not have the declared type.

    The message names the model class, the field, the expected and the received type;
    the same facts are kept as attributes for programmatic use.
    """

    def __init__(self, model: type, field_name: str, explanation: str) -> None:
        self.model = model
        self.field_name = field_name
        self.explanation = explanation
        model_name = model.__qualname__.rsplit("<locals>.", 1)[-1]
        super().__init__(f"invalid value for field '{field_name}' of {model_name}: {explanation}")


class DataModelDefinitionError(TypeError):
    """A datamodel class is declared wrongly (bad options, annotation, validator...)."""
