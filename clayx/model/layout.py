"""What data-layout steps record about a SCoP, and which arrays are dead.

Clay's layout directives (:mod:`clayx.directives.layout`) change which
memory cells a program uses.  What the equivalence check
(:mod:`clayx.analysis.equivalence`) and code generation then need to know --
which statements are copies, the parts of merged statements, which arrays
are new or reshaped -- is a :class:`LayoutInfo`, kept in the SCoP as the
OpenScop extension ``<clayx_layout>`` (statements by position), so it
survives an OpenScop round trip.

:func:`dead_arrays` says which arrays' values after the SCoP cannot matter:
those the front end found dead (:attr:`Array.live_out
<clayx.model.Array.live_out>`) and those ``add_array`` made.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from ..errors import ModelError
from .scop import Scop

__all__ = ["LAYOUT_TAG", "LayoutInfo", "dead_arrays", "layout_info", "with_layout"]

#: The OpenScop extension that carries :class:`LayoutInfo`.
LAYOUT_TAG = "clayx_layout"


@dataclass(frozen=True)
class LayoutInfo:
    """What layout directives record about a SCoP.

    - ``new``: arrays added by ``add_array`` (dead after the SCoP, declared
      by the generated code);
    - ``reshaped``: original arrays whose subscripts ``dimreorder`` /
      ``dimprivatize`` / ``dimcontract`` changed (a dead one is redeclared by
      the generated code with its new shape);
    - ``copies``: names of the statements ``datacopy`` created
      (transparent for the equivalence check);
    - ``parts``: for statements made by ``block``, ``(name, (b1, b2, …))``:
      access ``k`` belongs to part ``#{b <= k}`` (parts run in order).
    """

    new: tuple[str, ...] = ()
    reshaped: tuple[str, ...] = ()
    copies: frozenset[str] = frozenset()
    parts: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def part_bounds(self, stmt: str) -> tuple[int, ...]:
        """The part boundaries of statement ``stmt`` (``()``: one part)."""
        for name, bounds in self.parts:
            if name == stmt:
                return bounds
        return ()

    def part_of(self, stmt: str, k: int) -> int:
        """The part (0-based) of access ``k`` of statement ``stmt``."""
        return sum(1 for b in self.part_bounds(stmt) if b <= k)

    @property
    def empty(self) -> bool:
        """True when nothing is recorded."""
        return not (self.new or self.reshaped or self.copies or self.parts)


def layout_info(scop: Scop) -> LayoutInfo:
    """The :class:`LayoutInfo` recorded in ``scop.extensions`` (statements
    are stored by position, so the record survives OpenScop's renaming)."""
    text = next((t for tag, t in scop.extensions if tag == LAYOUT_TAG), None)
    if text is None:
        return LayoutInfo()
    return _parse_layout(text, tuple(s.name for s in scop.statements))


@lru_cache(maxsize=64)
def _parse_layout(text: str, names: tuple[str, ...]) -> LayoutInfo:
    new: list[str] = []
    reshaped: list[str] = []
    copies: set[str] = set()
    parts: list[tuple[str, tuple[int, ...]]] = []

    def stmt(tok: str, line: str) -> str:
        if not tok.isdigit() or int(tok) >= len(names):
            raise ModelError(f"<{LAYOUT_TAG}>: no statement number {tok} in {line!r}")
        return names[int(tok)]

    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        kind, rest = words[0], words[1:]
        if kind == "new" and len(rest) == 1:
            new.append(rest[0])
        elif kind == "reshaped" and len(rest) == 1:
            reshaped.append(rest[0])
        elif kind == "copy" and len(rest) == 1:
            copies.add(stmt(rest[0], line))
        elif kind == "parts" and len(rest) >= 2 and all(w.isdigit() for w in rest[1:]):
            parts.append((stmt(rest[0], line), tuple(int(w) for w in rest[1:])))
        else:
            raise ModelError(f"<{LAYOUT_TAG}>: cannot read the line {line!r}")
    return LayoutInfo(tuple(new), tuple(reshaped), frozenset(copies), tuple(parts))


def with_layout(scop: Scop, info: LayoutInfo) -> Scop:
    """``scop`` with ``info`` stored as its ``<clayx_layout>`` extension
    (removed when ``info`` is empty).  Statements not in the SCoP are
    dropped from the record."""
    index = {s.name: k for k, s in enumerate(scop.statements)}
    lines = ["# clayx layout record: new/reshaped arrays, copy statements, block parts"]
    lines += [f"new {a}" for a in info.new]
    lines += [f"reshaped {a}" for a in info.reshaped]
    lines += [f"copy {index[s]}" for s in sorted(info.copies, key=lambda s: index.get(s, -1))
              if s in index]
    lines += [f"parts {index[s]} {' '.join(map(str, b))}" for s, b in info.parts
              if s in index and b]
    exts = tuple((t, x) for t, x in scop.extensions if t != LAYOUT_TAG)
    if len(lines) > 1:
        exts += ((LAYOUT_TAG, "\n".join(lines)),)
    return replace(scop, extensions=exts)


def dead_arrays(scop: Scop) -> frozenset[str]:
    """The arrays of ``scop`` whose values after the SCoP cannot matter:
    those the front end found dead (``live_out`` false: locals of the
    enclosing function used nowhere else) and those ``add_array`` made.
    From OpenScop (no source) only the added arrays are dead."""
    names = {a.name for a in scop.arrays}
    dead = {a.name for a in scop.arrays if not a.live_out}
    return frozenset(dead | (set(layout_info(scop).new) & names))
