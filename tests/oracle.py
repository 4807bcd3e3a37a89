"""A reference for the legality tests that shares nothing with
:mod:`clayx.analysis`: run a program's instances at concrete parameter
values, in its original order, list the pairs of accesses to one cell that
must stay ordered, and check them against the dates a new schedule gives.

The pairs are the ones clayx's value-based dependences hold at those values
(seed 001 §3.2.1, PPCG without live-range reordering): a later access ``x``
depends on an earlier access ``y`` of another instance to the same cell
when at least one of them writes and no must-write of the cell runs between
them (RAW: the last must-write before a read and the may-writes after it;
WAW likewise for a write; WAR: the reads since the last must-write before a
write).  Accesses of one instance are ordered reads first; an instance never
depends on itself.  Dates are found point by point (isl enumerates the
instances and dates of each relation), compared as padded tuples.
"""

from __future__ import annotations

import islpy as isl

from clayx.model import WRITE, Scop

_dt = isl.dim_type


def _fix(obj, params: dict[str, int]):
    for k in range(obj.dim(_dt.param)):
        name = obj.get_dim_name(_dt.param, k)
        if name in params:
            obj = obj.fix_val(_dt.param, k, params[name])
    return obj


#: The points of the sets enumerated so far, by the set's text (the
#: property tests ask for the dates of the same relations after every step).
_POINTS: dict[str, tuple[tuple[int, ...], ...]] = {}


def _points(s: isl.Set) -> tuple[tuple[int, ...], ...]:
    key = str(s)
    hit = _POINTS.get(key)
    if hit is not None:
        return hit
    out: list[tuple[int, ...]] = []

    def one(p):
        out.append(tuple(int(p.get_coordinate_val(_dt.set, k).to_python())
                         for k in range(s.dim(_dt.set))))
    s.foreach_point(one)
    if len(_POINTS) > 50000:
        _POINTS.clear()
    _POINTS[key] = tuple(out)
    return _POINTS[key]


def dates(scop: Scop, params: dict[str, int]) -> dict[tuple[str, tuple[int, ...]], tuple]:
    """``(statement, instance) -> date`` under ``scop.schedule`` (the
    smallest date when a relation gives several), dates padded to one
    length."""
    n = 2 * scop.schedule.max_depth + 1
    out: dict[tuple[str, tuple[int, ...]], tuple] = {}
    for r in scop.schedule:
        st = scop.statement(r.stmt)
        m = _fix(r.padded(n).intersect_domain(st.domain), params)
        for pt in _points(m.wrap()):
            key, date = (r.stmt, pt[:st.dim]), pt[st.dim:]
            if key not in out or date < out[key]:
                out[key] = date
    return out


def ordered_pairs(scop: Scop, params: dict[str, int]) -> set[tuple]:
    """The instance pairs ``((stmt, inst), (stmt, inst))`` of ``scop``, run
    in its own schedule's order at ``params``, that every legal schedule
    must keep in that order (see the module docstring)."""
    when = dates(scop, params)
    events: dict[tuple, list[tuple]] = {}
    for st in scop.statements:
        dom = _fix(st.domain, params)
        for a in st.accesses:
            rel = _fix(a.relation.intersect_domain(dom), params)
            for pt in _points(rel.wrap()):
                inst = (st.name, pt[:st.dim])
                cell = (a.array, pt[st.dim:])
                events.setdefault(cell, []).append(
                    (when[inst], 0 if a.kind == "read" else 1, inst, a.kind))
    pairs: set[tuple] = set()
    for seq in events.values():
        seq.sort(key=lambda e: (e[0], e[1]))
        window: list[tuple] = []            # since the last must-write, included
        for x in seq:
            for y in window:
                if y[2] != x[2] and (x[1] == 1 or y[1] == 1):
                    pairs.add((y[2], x[2]))
            window.append(x)
            if x[3] == WRITE:
                window = [x]
    return pairs


def broken_pairs(original: Scop, new: Scop, params: dict[str, int],
                 pairs: set[tuple] | None = None) -> set[tuple]:
    """The pairs of :func:`ordered_pairs` of ``original`` (or ``pairs``,
    computed before) that ``new``'s schedule runs in the other order or at
    the same date."""
    when = dates(new, params)
    if pairs is None:
        pairs = ordered_pairs(original, params)
    return {(y, x) for y, x in pairs if not when[y] < when[x]}
