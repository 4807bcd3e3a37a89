"""The polyhedral model: :class:`Scop`, :class:`Statement`, :class:`Array`,
:class:`Access` and Clay's :class:`ClaySchedule` of β/α :class:`Relation` s."""

from .schedule import Beta, ClaySchedule, Mark, Relation
from .scop import (MAY_WRITE, READ, WRITE, Access, Array, Scop, Statement,
                   identifiers, substitute_iterators)

__all__ = ["Beta", "ClaySchedule", "Mark", "Relation", "Access", "Array", "Scop",
           "Statement", "READ", "WRITE", "MAY_WRITE", "substitute_iterators",
           "identifiers"]
