"""Analyses of a :class:`~clayx.model.Scop`: exact dependences (isl dataflow),
computed once per SCoP, and their views under a schedule."""

from .dependences import (KINDS, RAR, RAW, VALIDITY_KINDS, WAR, WAW, Dependence,
                          Dependences, carried_depth, carried_depths, clear_cache,
                          compute_dependences, dependences, violated)
from .legality import (Violation, check, check_parallel, is_legal, parallel_violations,
                       violations)

__all__ = ["KINDS", "RAR", "RAW", "VALIDITY_KINDS", "WAR", "WAW", "Dependence",
           "Dependences", "carried_depth", "carried_depths", "clear_cache",
           "compute_dependences", "dependences", "violated",
           "Violation", "check", "check_parallel", "is_legal", "parallel_violations",
           "violations"]
