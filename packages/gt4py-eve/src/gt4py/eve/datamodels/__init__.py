"""Typed, validated, frozen-by-default datamodels on attrs.

from gt4py.eve import datamodels as dm

class Interval(dm.DataModel):
    start: int
    stop: int
    label: str = dm.field(default="", fingerprint=False)

    @dm.root_validator
    def _ordered(self) -> None:
        if self.start > self.stop:
            raise ValueError("start must not exceed stop")
"""

from . import _fingerprints
from ._compile import ModelInfo as ModelInfo, model_info as model_info
from ._constrained import ConstrainedStr as ConstrainedStr
from ._errors import (
    DataModelDefinitionError as DataModelDefinitionError,
    DataModelTypeError as DataModelTypeError,
)
from ._field import (
    Coerced as Coerced,
    field as field,
    root_validator as root_validator,
    validator as validator,
)
from ._model import (
    DataModel as DataModel,
    DataModelMeta as DataModelMeta,
    ModelOptions as ModelOptions,
    evolve as evolve,
    fields as fields,
)


__all__ = [
    "Coerced",
    "ConstrainedStr",
    "DataModel",
    "DataModelDefinitionError",
    "DataModelMeta",
    "DataModelTypeError",
    "ModelInfo",
    "ModelOptions",
    "evolve",
    "field",
    "fields",
    "model_info",
    "root_validator",
    "validator",
]


# Here, not in gt4py.eve: that package loads its parts lazily, and every datamodel (hence
# every node) must be fingerprintable as soon as its class can exist.
_fingerprints.register()
