"""Analyses of a :class:`~clayx.model.Scop`: exact dependences of the program
it schedules (isl dataflow, once per :class:`~clayx.model.Origin`), the one
legality judge of a schedule against them, and the equivalence check of
data-layout changes."""

from .dependences import (KINDS, RAR, RAW, VALIDITY_KINDS, WAR, WAW, Dependence,
                          Dependences, compute_dependences, dependences)
from .legality import (Violation, carried_depth, check, check_parallel, is_legal,
                       parallel_violations, violations)

__all__ = ["KINDS", "RAR", "RAW", "VALIDITY_KINDS", "WAR", "WAW", "Dependence",
           "Dependences", "compute_dependences", "dependences",
           "Violation", "carried_depth", "check", "check_parallel", "is_legal",
           "parallel_violations", "violations"]
