"""The control steps of a script: ``print`` and ``break`` (Clay reference
§3.6), registered like the directives so that the parser, the session's
plan, ``--list`` and completion know them from the one registry.

Neither changes the SCoP nor is checked.  :func:`show` is the text clayx
gives a value (a query's result, what ``print`` prints).
"""

from __future__ import annotations

from typing import Any

from ..model import Scop
from .params import Value
from .registry import directive

__all__ = ["break_", "print_", "show"]


def show(v: Any) -> str:
    """A value as the prompt shows it: ``[0, 1]`` for a β or array, the
    integer or string itself otherwise."""
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(show(x) for x in v) + "]"
    return str(v)


@directive("print", Value("values", variadic=True), kind="control")
def print_(scop: Scop, *values: Any) -> str:
    """Print values (integers, β-vectors, strings, what a query returned),
    separated by blanks::

        i = get_beta_loop(1); print(i);      prints  [0]

    Changes nothing; not checked.  In batch mode (``clayx --script``) the
    text goes to standard error in Clay's form (``ref array [0]``).
    """
    return " ".join(show(v) for v in values)


@directive("break", kind="control", stops=True)
def break_(scop: Scop) -> None:
    """End the script here: the steps after it are not applied (Clay does
    not even parse them)::

        reorder([0], [1, 0]); break(); fuse([0]);      applies the reorder only

    Changes nothing; not checked.
    """
    return None
