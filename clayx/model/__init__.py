"""The polyhedral model: :class:`Scop` (with the :class:`Origin` program its
schedule reorders), :class:`Statement`, :class:`Array`, :class:`Access`,
Clay's :class:`ClaySchedule` of β/α :class:`Relation` s, and the record data
layout steps keep in a SCoP (:class:`LayoutInfo`, :func:`dead_arrays`)."""

from .ids import ARRAY_IDS_TAG, array_ids
from .layout import LAYOUT_TAG, LayoutInfo, dead_arrays, layout_info, with_layout
from .schedule import Beta, ClaySchedule, Mark, Relation, beta_tree_error
from .scop import (MAY_WRITE, READ, WRITE, Access, Array, Origin, Scop, Statement,
                   bracket_subscripts, identifiers, substitute_iterators)

__all__ = ["Beta", "ClaySchedule", "Mark", "Relation", "beta_tree_error", "Access", "Array", "Origin", "Scop",
           "Statement", "READ", "WRITE", "MAY_WRITE", "bracket_subscripts", "substitute_iterators",
           "identifiers", "LAYOUT_TAG", "LayoutInfo", "dead_arrays", "layout_info",
           "with_layout", "ARRAY_IDS_TAG", "array_ids"]
