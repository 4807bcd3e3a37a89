"""Analyses of a :class:`~clayx.model.Scop`: exact dependences (isl dataflow),
computed once per SCoP, and their views under a schedule."""

from .dependences import (KINDS, RAR, RAW, VALIDITY_KINDS, WAR, WAW, Dependence,
                          Dependences, carried_depth, carried_depths, clear_cache,
                          compute_dependences, dependences, violated)

__all__ = ["KINDS", "RAR", "RAW", "VALIDITY_KINDS", "WAR", "WAW", "Dependence",
           "Dependences", "carried_depth", "carried_depths", "clear_cache",
           "compute_dependences", "dependences", "violated"]
