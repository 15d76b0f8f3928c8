"""Released gt4py.cartesian's ``stencil_object`` module: :class:`StencilObject`, the type of
every built stencil (each stencil is an instance of its own subclass, named after the stencil,
its backend and its id, as released's are), with ``field_info``, ``parameter_info``,
``domain_info``, ``_gt_id_``, ``options``, ``__call__`` and the unchecked ``run``."""

from ._stencil_object import StencilObject as StencilObject


__all__ = ["StencilObject"]
