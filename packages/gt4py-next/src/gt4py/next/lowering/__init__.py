"""Lowering from the checked frontend definitions to the field-level IR (:mod:`gt4py.next.ir`).

``lower_program(program)`` for ``@program``s; ``lower_operator_call(op, arg_types, out_type,
domain_dims)`` for a field or scan operator called directly with ``out=``. Constructs the
compiled backends cannot handle raise :class:`LoweringError` naming the construct.
"""

from ._errors import LoweringError as LoweringError
from ._programs import lower_operator_call as lower_operator_call, lower_program as lower_program
from ._shifting import ShiftPusher as ShiftPusher


__all__ = ["LoweringError", "ShiftPusher", "lower_operator_call", "lower_program"]
