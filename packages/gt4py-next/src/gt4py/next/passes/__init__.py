"""IR passes of gt4py.next, each a small module: temporaries vs recomputation, domain
inference, constant folding, common subexpressions, values a statement's outputs share.

Lowering materializes intermediates as candidate temporaries; ``choose_temporaries`` keeps or
inlines them (heuristic and figures: ADR 0013), ``infer_domains`` sizes the kept ones.
"""

from __future__ import annotations

from .. import ir
from ._collector import collector_paused
from .common_subexpressions import cse as cse
from .constant_folding import fold_constants as fold_constants
from .domain_inference import DomainInferenceError as DomainInferenceError, infer_domains
from .shared_values import share_values as share_values
from .temporaries import POLICIES as POLICIES, Policy as Policy, choose_temporaries


def default_pipeline(
    program: ir.Program,
    *,
    cse: bool = True,
    constant_folding: bool = True,
    temporaries: Policy = "auto",
) -> ir.Program:
    """The passes every compiled backend runs; ``temporaries`` picks the policy of
    :func:`choose_temporaries` (``"auto"``, ``"materialize"``, ``"recompute"``)."""
    from . import common_subexpressions

    with collector_paused():
        program = choose_temporaries(program, temporaries)
        program = infer_domains(program)
        if constant_folding:
            program = fold_constants(program)
        if cse:
            program = common_subexpressions.cse(program)
        return share_values(program)


__all__ = [
    "POLICIES",
    "DomainInferenceError",
    "Policy",
    "choose_temporaries",
    "cse",
    "default_pipeline",
    "fold_constants",
    "infer_domains",
    "share_values",
]
