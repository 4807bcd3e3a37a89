"""Exact legality of a transformed Clay schedule (seed 004 §5, made exact).

A schedule is legal when every instance pair of every RAW, WAR and WAW
dependence of the *original* program is executed in the same order: the sink's
date ``[β0, α1, β1, …]`` is lexicographically greater than the source's under
the new (padded) schedule.  RAR dependences never constrain a schedule.

- :func:`violations` lists the broken dependences, each as a
  :class:`Violation`: the violating instance pairs, the date dimension where
  the order breaks (the outermost one) and a concrete witness pair with its
  dates.  :func:`check` raises :class:`~clayx.errors.LegalityError` with
  them; :func:`is_legal` answers yes or no.
- :func:`parallel_violations` / :func:`check_parallel`: the dependences that
  a loop carries (so it cannot run in parallel).
- :func:`carried_depth`: the loop that orders a dependence's pairs under a
  schedule (a view for display).

"The original program" is the one ``scop`` schedules, its
:attr:`~clayx.model.Scop.origin`: every function takes its dependences as
``deps`` and defaults to :func:`~clayx.analysis.dependences` of ``scop``,
which depend on that origin only.  The caches below are keyed by the
objects they are computed from (a :class:`Dependences`, a schedule), never
by what was asked first.  This module is clayx's only judge of a schedule:
the session, the prompt and the tests all ask it.

Speed: a legal schedule (the common case of a directive step) costs one
isl emptiness test per (source, sink) statement pair with dependences: the
union of that pair's dependences against the pairs the schedule runs in the
wrong order.  Those are built per pair of relations on the dates up to the
first β where the β-vectors differ (two relations that differ at β0 need no
isl work at all).  Single dependences are examined, and witnesses sampled,
only for the statement pairs that fail; relations shared between
dependences (repeated references) are examined once.

Schedules may be unions of relations per statement (index-set splitting),
have implicitly defined α dimensions (strip-mining: an instance's date is the
point its constraints allow) and any number of dimensions (padded with zeros
to a common length).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Sequence

import islpy as isl

from ..errors import DirectiveError, LegalityError, ModelError
from ..model.schedule import ClaySchedule, Relation
from ..model.scop import Scop, Statement
from .dependences import VALIDITY_KINDS, Dependence, Dependences, dependences
from .isl_util import IdentityCache, point_values, small_point, wrap_isl

_dt = isl.dim_type

#: Kinds of break: the sink runs strictly before the source at
#: :attr:`Violation.dimension`, both run at the same date, or (parallel loops)
#: the pair runs in two different iterations of the loop.
REVERSED, TIED, CARRIED = "reversed", "tied", "carried"


# --- the result ---------------------------------------------------------------------

@dataclass(frozen=True)
class Violation:
    """One dependence broken by a schedule (or carried by a parallel loop).

    - ``dependence``: the :class:`~clayx.analysis.Dependence` of the original
      program.
    - ``pairs``: the violating source → sink instance pairs (an ``isl.Map``
      in the dependence's space, parameters included).
    - ``dimension``: 1-based index in the date vector ``[β0, α1, β1, …]``
      where the order breaks (the outermost one over all pairs); see
      :attr:`depth` and :attr:`kind`.
    - ``kind``: ``'reversed'`` (equal dates before ``dimension``, the sink
      strictly earlier at it), ``'tied'`` (the same date: ``dimension`` is
      the last dimension of the statements' dates) or ``'carried'`` (from
      :func:`parallel_violations`: the pair runs in two different
      iterations of the loop at ``dimension``).
    - ``witness``: one violating pair, ``{'params': {name: value},
      'source': (i, …), 'sink': (j, …)}`` (small parameter values first,
      deterministic), and ``source_date``/``sink_date`` its dates under the
      schedule checked.
    """

    dependence: Dependence
    pairs: isl.Map = field(compare=False, repr=False)
    dimension: int
    kind: str
    witness: dict[str, Any]
    source_date: tuple[int, ...]
    sink_date: tuple[int, ...]
    source_statement: Statement | None = field(default=None, compare=False, repr=False)
    sink_statement: Statement | None = field(default=None, compare=False, repr=False)

    @property
    def depth(self) -> int | None:
        """The α depth (1-based) of :attr:`dimension`, or None when the
        order breaks at a β dimension (textual order)."""
        return self.dimension // 2 if self.dimension % 2 == 0 else None

    @property
    def dimension_name(self) -> str:
        """``α<depth>`` or ``β<k>`` for :attr:`dimension`."""
        p = self.dimension - 1
        return f"α{(p + 1) // 2}" if p % 2 else f"β{p // 2}"

    def _instance(self, stmt: str, st: Statement | None, values: Sequence[int]) -> str:
        if st is not None and len(st.iterators) == len(values):
            inner = ", ".join(f"{n}={v}" for n, v in zip(st.iterators, values))
        else:
            inner = ", ".join(str(v) for v in values)
        return f"{stmt}[{inner}]"

    def __str__(self) -> str:
        d = self.dependence
        src = d.source
        if self.source_statement is not None and self.source_statement.body:
            src += f" ({self.source_statement.body})"
        if d.sink == d.source:
            snk = f"{d.sink} (same)"
        else:
            snk = d.sink
            if self.sink_statement is not None and self.sink_statement.body:
                snk += f" ({self.sink_statement.body})"
        where = f"at {self.dimension_name} (dimension {self.dimension})"
        if self.kind == REVERSED:
            what = f"{where} the sink runs before the source"
        elif self.kind == TIED:
            what = f"{where} the sink runs at the same date as the source"
        else:
            what = f"the loop {self.dimension_name} (dimension {self.dimension}) carries it"
        w = self.witness
        params = ", ".join(f"{k} = {v}" for k, v in w["params"].items())
        pair = (f"{self._instance(d.source, self.source_statement, w['source'])} -> "
                f"{self._instance(d.sink, self.sink_statement, w['sink'])}")
        eg = f"e.g. {params}: {pair}" if params else f"e.g. {pair}"
        return (f"{d.kind} on {d.array}: {src} -> {snk}: {what}; {eg}, dates "
                f"{list(self.source_date)} -> {list(self.sink_date)}")


# --- caches ---------------------------------------------------------------------------

_lock = threading.Lock()
_validity_cache: "weakref.WeakKeyDictionary[Dependences, tuple]" = weakref.WeakKeyDictionary()


class _Sched:
    """A schedule's forms used by the checks: padded maps per statement
    (for dates and witnesses) and, on demand, wrongly ordered pairs per
    statement pair (:meth:`bad`)."""

    def __init__(self, schedule: ClaySchedule):
        self.schedule = schedule
        self.n = 2 * schedule.max_depth + 1
        per: dict[str, isl.Map] = {}
        for r in schedule:
            m = r.padded(self.n)
            per[r.stmt] = m if r.stmt not in per else per[r.stmt].union(m)
        self.per = per
        ctx = next(iter(per.values())).get_ctx() if per else isl.DEFAULT_CONTEXT
        self.space = isl.Space.set_alloc(ctx, 0, self.n)
        self._bad: dict[tuple[str, str], isl.Map | None] = {}
        self._parts: dict[tuple[str, str], tuple[isl.Map, ...]] = {}

    def depth_of(self, stmt: str) -> int:
        """The largest α depth of the relations of ``stmt``."""
        return max((r.depth for r in self.schedule.of(stmt)), default=0)

    def bad(self, s: str, t: str) -> isl.Map | None:
        """``S[i] -> T[j]`` pairs the schedule runs in the wrong order (the
        date of ``T[j]`` lexicographically ≤ that of ``S[i]``); None when
        the β-vectors alone order every pair forward.

        Per pair of relations, only the dates up to the first β dimension
        where their β-vectors differ are compared (that β decides ties), so
        the maps stay small: a directive step usually touches few of them.
        """
        key = (s, t)
        if key not in self._bad:
            parts = self.bad_parts(s, t)
            self._bad[key] = _union_memo.get(parts, (), lambda: _union(parts))
        return self._bad[key]

    def bad_parts(self, s: str, t: str) -> tuple[isl.Map, ...]:
        """The pieces of :meth:`bad`, one per pair of relations that has
        some (their union is not built: a statement split into many parts
        has many, and a union of many maps costs much more than asking
        each one)."""
        key = (s, t)
        if key not in self._parts:
            self._parts[key] = tuple(m for rs in self.schedule.of(s)
                                     for rt in self.schedule.of(t)
                                     if (m := _bad_pairs(rs, rt)) is not None)
        return self._parts[key]


def _union(maps: Sequence[isl.Map]) -> isl.Map | None:
    """The union of ``maps`` (None when there is none)."""
    out = None
    for m in maps:
        out = m if out is None else out.union(m)
    return out


class _Memo:
    """A small thread-safe LRU of values computed from several objects,
    keyed by their identities and some plain values; it keeps the objects
    alive (so their ids are not reused while cached) and checks them on a
    hit.  The value must depend on those only."""

    def __init__(self, size: int):
        self._size = size
        self._items: "OrderedDict[tuple, tuple]" = OrderedDict()
        self._lock = threading.Lock()

    def get(self, objs: tuple, extra: tuple, build):
        key = tuple(map(id, objs)) + extra
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and all(a is b for a, b in zip(hit[0], objs)):
                self._items.move_to_end(key)
                return hit[1]
        value = build()
        with self._lock:
            self._items[key] = (objs, value)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


#: :func:`_bad_pairs` by the two relations' maps and what their β-vectors
#: decide: a directive step leaves most relations' maps as they were, so
#: the next check (a replayed script's, the whitebox oracle's) builds only
#: the pairs of the relations it changed.
_pair_memo = _Memo(8192)
#: The union of a statement pair's :func:`_bad_pairs` by their identities
#: (the same pieces, the same union object), and whether a union of
#: dependences meets one of them.
_union_memo = _Memo(2048)
_meet_memo = _Memo(8192)


def _bad_pairs(rs: Relation, rt: Relation) -> isl.Map | None:
    """Instance pairs of relations ``rs`` (source) and ``rt`` (sink) with
    the sink's date ≤ the source's (see :meth:`_Sched.bad`)."""
    k = 0
    n = min(len(rs.beta), len(rt.beta))
    while k < n and rs.beta[k] == rt.beta[k]:
        k += 1
    if k == n:          # the same relation: compare whole dates
        how = "whole"
    elif k == 0:
        if rt.beta[0] > rs.beta[0]:
            return None
        how = "all"
    else:
        how = "gt" if rt.beta[k] > rs.beta[k] else "ge"
    return _pair_memo.get((rs.map, rt.map), (k, how),
                          lambda: _pairs_in_order(rs.map, rt.map, k, how))


def _pairs_in_order(ms: isl.Map, mt: isl.Map, k: int, how: str) -> isl.Map:
    """:func:`_bad_pairs` of the maps ``ms`` and ``mt`` whose β-vectors
    agree up to ``k`` (``how``: ``whole``, the same relation, whole dates
    compared; ``all``, every pair; ``gt``/``ge``, the sink's β_k after the
    source's, or not)."""
    if how == "all":
        return _all_pairs(ms, mt)
    if how == "whole":
        cmp_len, strict = ms.dim(_dt.out), False
    else:
        # dates agree on β0..β(k-1); α1..αk decide, then β_k
        cmp_len = 2 * k
        ms = ms.project_out(_dt.out, cmp_len, ms.dim(_dt.out) - cmp_len)
        mt = mt.project_out(_dt.out, cmp_len, mt.dim(_dt.out) - cmp_len)
        strict = how == "gt"
    space = isl.Space.set_alloc(ms.get_ctx(), 0, cmp_len)
    order = isl.Map.lex_gt(space) if strict else isl.Map.lex_ge(space)
    return ms.apply_range(order).apply_range(mt.reverse())


def _all_pairs(ms: isl.Map, mt: isl.Map) -> isl.Map:
    """Every (source, sink) pair of instances the two relations schedule."""
    return isl.Map.from_domain_and_range(ms.domain(), mt.domain())


#: The per-schedule views the checks share, for the last few schedules.
_sched = IdentityCache(_Sched)


def _validity(deps: Dependences):
    """The validity dependences and, per (source, sink) statement pair, the
    union of their relations (coalesced); computed once per object."""
    with _lock:
        hit = _validity_cache.get(deps)
    if hit is not None:
        return hit
    vs = deps.of_kind(*VALIDITY_KINDS)
    pairs: dict[tuple[str, str], isl.Map] = {}
    seen: set[int] = set()
    for d in vs:
        if id(d.relation) not in seen:
            seen.add(id(d.relation))
            key = (d.source, d.sink)
            pairs[key] = d.relation if key not in pairs else pairs[key].union(d.relation)
    hit = (vs, {k: m.coalesce() for k, m in pairs.items()})
    with _lock:
        _validity_cache[deps] = hit
    return hit


# --- helpers ---------------------------------------------------------------------------

def _order(scop: Scop, deps: Sequence[Dependence]) -> list[Dependence]:
    """Deterministic order: kind (RAW, WAR, WAW), source, sink (statement
    order in the SCoP), array, references."""
    kinds = {k: i for i, k in enumerate(VALIDITY_KINDS)}
    pos = {s.name: i for i, s in enumerate(scop.statements)}
    return sorted(deps, key=lambda d: (kinds.get(d.kind, 9), pos.get(d.source, 1 << 30),
                                       d.source, pos.get(d.sink, 1 << 30), d.sink,
                                       d.array, d.source_ref, d.sink_ref))


def prefix_equal(space: isl.Space, p: int) -> isl.Map:
    """``{ x -> y : x_k = y_k for k < p }`` on the date space ``space`` (a
    set space): the pairs of dates equal on their first ``p`` dimensions."""
    m = isl.Map.universe(isl.Space.map_from_set(space))
    for k in range(p):
        m = m.equate(_dt.in_, k, _dt.out, k)
    return m


def _pairs_through(rel: isl.Map, src: isl.Map, snk: isl.Map, dates: isl.Map) -> isl.Map:
    """The pairs of ``rel`` whose (source date, sink date) lies in ``dates``."""
    order = src.apply_range(dates).apply_range(snk.reverse())
    return rel.intersect(order)


def _date(sched_map: isl.Map, params: dict[str, int], inst: tuple[int, ...]) -> tuple[int, ...]:
    """The date of one instance under a statement's padded schedule."""
    m = sched_map
    for k in range(m.dim(_dt.param)):
        name = m.get_dim_name(_dt.param, k)
        if name in params:
            m = m.fix_val(_dt.param, k, params[name])
    for k, v in enumerate(inst):
        m = m.fix_val(_dt.in_, k, v)
    r = m.range()
    if r.is_empty():
        return ()
    if r.is_bounded():
        r = r.lexmin()
    return point_values(r)[1]


def _witness(pairs: isl.Map, sch: _Sched, dep: Dependence):
    params, vals = small_point(pairs.wrap())
    n_src = pairs.dim(_dt.in_)
    src, snk = vals[:n_src], vals[n_src:]
    return ({"params": params, "source": src, "sink": snk},
            _date(sch.per[dep.source], params, src), _date(sch.per[dep.sink], params, snk))


def _describe(scop: Scop, dep: Dependence, pairs: isl.Map, sch: _Sched) -> Violation:
    """Where ``pairs`` (all violating) break first, and a witness there."""
    src, snk = sch.per[dep.source], sch.per[dep.sink]
    dates = pairs.apply_domain(src).apply_range(snk)
    kind, dim, at = TIED, None, pairs
    for p in range(sch.n):
        if not dates.order_gt(_dt.in_, p, _dt.out, p).is_empty():
            kind, dim = REVERSED, p + 1
            c = prefix_equal(sch.space, p).order_gt(_dt.in_, p, _dt.out, p)
            at = _pairs_through(pairs, src, snk, c)
            break
        dates = dates.equate(_dt.in_, p, _dt.out, p)
        if dates.is_empty():
            break
    if dim is None:
        dim = 2 * max(sch.depth_of(dep.source), sch.depth_of(dep.sink)) + 1
    witness, sd, kd = _witness(at, sch, dep)
    return Violation(dep, pairs, dim, kind, witness, sd, kd,
                     _stmt(scop, dep.source), _stmt(scop, dep.sink))


def _stmt(scop: Scop, name: str) -> Statement | None:
    for s in scop.statements:
        if s.name == name:
            return s
    return None


def _deps(scop: Scop, deps: Dependences | None) -> Dependences:
    """``deps``, or the dependences of the program ``scop`` schedules."""
    return dependences(scop) if deps is None else deps


def _violated(scop: Scop, deps: Dependences,
              sch: _Sched) -> list[tuple[Dependence, isl.Map]]:
    """Every violated validity dependence with its violating pairs."""
    vs, pair_maps = _validity(deps)
    suspects = _suspect_pairs(sch, pair_maps)
    if not suspects:
        return []
    out: list[tuple[Dependence, isl.Map]] = []
    memo: dict[tuple[int, str, str], isl.Map | None] = {}
    for d in _order(scop, vs):
        if (d.source, d.sink) not in suspects:
            continue
        key = (id(d.relation), d.source, d.sink)
        if key not in memo:
            v = d.relation.intersect(suspects[(d.source, d.sink)])
            memo[key] = None if v.is_empty() else v.coalesce()
        if memo[key] is not None:
            out.append((d, memo[key]))
    return out


def _suspect_pairs(sch: _Sched, pair_maps) -> dict[tuple[str, str], isl.Map]:
    """For each statement pair whose union of dependences has a pair in the
    wrong order: the wrongly ordered pairs of the schedule (``bad``)."""
    return {key: sch.bad(*key) for key in _suspects(sch, pair_maps)}


def _suspects(sch: _Sched, pair_maps):
    """The statement pairs of :func:`_suspect_pairs`, one at a time (their
    wrongly ordered pairs are not built: :func:`is_legal` needs none)."""
    for (s, t), m in pair_maps.items():
        if s not in sch.per or t not in sch.per:
            raise ModelError(f"the schedule has no relation for "
                             f"{s if s not in sch.per else t}")
        if any(_meet_memo.get((m, part), (), lambda part=part: not m.intersect(part).is_empty())
               for part in sch.bad_parts(s, t)):
            yield (s, t)


def _carried_pairs(sch: _Sched, prefix: tuple[int, ...], depth: int,
                   pair_maps, first: bool = False) -> dict[tuple[str, str], isl.Map]:
    """For each statement pair under the loop ``prefix`` whose union of
    dependences has a pair in two different iterations of it (α
    ``depth``): the instance pairs of the schedule that run so (``first``:
    only the first such statement pair found)."""
    p = 2 * depth - 1
    space = isl.Space.set_alloc(sch.space.get_ctx(), 0, p + 1)
    same = prefix_equal(space, p)
    differ = same.order_lt(_dt.in_, p, _dt.out, p).union(same.order_gt(_dt.in_, p, _dt.out, p))
    rels: dict[str, list[isl.Map]] = {}
    for r in sch.schedule.relations_under(prefix):
        # the dates up to α<depth>; β0..β(depth-1) are the prefix for all
        m = r.map.project_out(_dt.out, p + 1, r.map.dim(_dt.out) - p - 1)
        rels.setdefault(r.stmt, []).append(m)
    carried: dict[tuple[str, str], isl.Map] = {}
    for (s_, t_), m in pair_maps.items():
        if s_ not in rels or t_ not in rels:
            continue
        c = None
        for ms in rels[s_]:
            for mt in rels[t_]:
                x = ms.apply_range(differ).apply_range(mt.reverse())
                c = x if c is None else c.union(x)
        if not m.intersect(c).is_empty():
            carried[(s_, t_)] = c
            if first:
                break
    return carried


def _describe_all(scop: Scop, found, sch: _Sched, limit: int | None) -> list[Violation]:
    out: list[Violation] = []
    memo: dict[tuple[int, str, str], Violation] = {}
    for d, pairs in found[:limit] if limit is not None else found:
        key = (id(d.relation), d.source, d.sink)
        if key not in memo:
            memo[key] = _describe(scop, d, pairs, sch)
            out.append(memo[key])
        else:
            v = memo[key]
            out.append(Violation(d, v.pairs, v.dimension, v.kind, v.witness,
                                 v.source_date, v.sink_date,
                                 v.source_statement, v.sink_statement))
    return out


# --- the public API ------------------------------------------------------------------

@wrap_isl
def violations(scop: Scop, deps: Dependences | None = None, *,
               limit: int | None = None) -> list[Violation]:
    """The dependences of the original program that ``scop.schedule``
    breaks (empty when it is legal).

    ``deps`` defaults to :func:`~clayx.analysis.dependences` of ``scop``:
    those of its origin, the program as the front end produced it (or as
    the last layout step left it), whatever was asked before.
    Only RAW, WAR and WAW count.  A dependence is broken when some pair has
    a sink date ≤ the source date, lexicographically, on the padded dates.
    Sorted by kind (RAW, WAR, WAW), source, sink, array; ``limit`` keeps the
    first ones only.
    """
    deps = _deps(scop, deps)
    sch = _sched(scop.schedule)
    return _describe_all(scop, _violated(scop, deps, sch), sch, limit)


@wrap_isl
def is_legal(scop: Scop, deps: Dependences | None = None) -> bool:
    """True when ``scop.schedule`` respects every RAW, WAR and WAW
    dependence of the original program (see :func:`violations`)."""
    deps = _deps(scop, deps)
    sch = _sched(scop.schedule)
    _, pair_maps = _validity(deps)
    return next(_suspects(sch, pair_maps), None) is None


def _message(head: str, shown: Sequence[Violation], total: int) -> str:
    lines = [f"{head}: it breaks {total} dependence{'s' if total != 1 else ''}"]
    lines += [f"  {v}" for v in shown]
    if total > len(shown):
        lines.append(f"  ... and {total - len(shown)} more")
    return "\n".join(lines)


@wrap_isl
def check(scop: Scop, deps: Dependences | None = None, *, directive: str | None = None,
          max_shown: int = 3, limit: int | None = None) -> None:
    """Raise :class:`~clayx.errors.LegalityError` when ``scop.schedule``
    breaks a dependence of the original program; return None when legal.

    The message reads ``"<directive> is illegal: it breaks N
    dependence(s)"`` followed by the first ``max_shown`` violations (kind,
    array, statements, dimension, witness pair with parameter values and
    dates) and ``"... and K more"``.  The error's ``violations`` holds the
    described violations (all, or the first ``limit``), ``total`` the number
    of broken dependences.
    """
    deps = _deps(scop, deps)
    sch = _sched(scop.schedule)
    found = _violated(scop, deps, sch)
    if not found:
        return None
    n = max(max_shown, limit) if limit is not None else None
    vs = _describe_all(scop, found, sch, n)
    head = f"{directive} is illegal" if directive else "the schedule is illegal"
    raise LegalityError(_message(head, vs[:max_shown], len(found)),
                        violations=vs if limit is None else vs[:limit],
                        total=len(found), directive=directive)


# --- parallel loops -------------------------------------------------------------------

def _loop_prefix(scop: Scop, loop: Sequence[int], depth: int | None,
                 directive: str) -> tuple[tuple[int, ...], int]:
    loop = tuple(loop)
    depth = len(loop) if depth is None else depth
    if depth < 1 or depth > len(loop):
        raise DirectiveError(f"depth {depth} is out of range for the β-prefix "
                             f"{list(loop)} (1..{len(loop)})", directive=directive)
    prefix = loop[:depth]
    if not scop.schedule.is_loop(prefix):
        raise DirectiveError(f"the beta {list(prefix)} is not a loop", directive=directive)
    return prefix, depth


@wrap_isl
def parallel_violations(scop: Scop, loop: Sequence[int], depth: int | None = None,
                        deps: Dependences | None = None, *,
                        limit: int | None = None,
                        directive: str = "parallelize") -> list[Violation]:
    """The dependences carried by the loop ``loop[:depth]`` (α dimension
    ``depth``, default ``len(loop)``): empty when its iterations may run in
    parallel (``parallelize(loop, depth)``).

    Only instances scheduled under that loop (relations whose β-vector
    starts with ``loop[:depth]``) are considered.  A RAW/WAR/WAW pair is
    carried when both dates are equal on every dimension before
    ``α<depth>`` and differ at it; pairs inside one iteration are fine.
    Each result has kind ``'carried'``, ``dimension == 2·depth`` and a
    witness pair of instances in two different iterations.
    """
    prefix, depth = _loop_prefix(scop, loop, depth, directive)
    deps = _deps(scop, deps)
    sch = _sched(scop.schedule)
    vs, pair_maps = _validity(deps)
    p = 2 * depth - 1
    carried = _carried_pairs(sch, prefix, depth, pair_maps)
    if not carried:
        return []
    out: list[Violation] = []
    memo: dict[tuple[int, str, str], Violation | None] = {}
    for d in _order(scop, vs):
        if (d.source, d.sink) not in carried:
            continue
        key = (id(d.relation), d.source, d.sink)
        if key not in memo:
            pairs = d.relation.intersect(carried[(d.source, d.sink)])
            if pairs.is_empty():
                memo[key] = None
            else:
                pairs = pairs.coalesce()
                witness, sd, kd = _witness(pairs, sch, d)
                memo[key] = Violation(d, pairs, p + 1, CARRIED, witness, sd, kd,
                                      _stmt(scop, d.source), _stmt(scop, d.sink))
        v = memo[key]
        if v is not None:
            out.append(Violation(d, v.pairs, v.dimension, v.kind, v.witness,
                                 v.source_date, v.sink_date,
                                 v.source_statement, v.sink_statement))
            if limit is not None and len(out) >= limit:
                break
    return out


@wrap_isl
def is_parallel(scop: Scop, loop: Sequence[int], depth: int | None = None,
                deps: Dependences | None = None, *, directive: str = "parallelize") -> bool:
    """Whether the loop ``loop[:depth]`` carries no dependence: the
    answer of ``not parallel_violations(...)`` without describing what it
    carries (no witness search, 2-3x cheaper: the automatic scheduler's
    parallel marks ask it for every loop)."""
    prefix, depth = _loop_prefix(scop, loop, depth, directive)
    _, pair_maps = _validity(_deps(scop, deps))
    return not _carried_pairs(_sched(scop.schedule), prefix, depth, pair_maps, first=True)


@wrap_isl
def check_parallel(scop: Scop, loop: Sequence[int], depth: int | None = None,
                   deps: Dependences | None = None, *, directive: str = "parallelize",
                   max_shown: int = 3) -> None:
    """Raise :class:`~clayx.errors.LegalityError` when the loop
    ``loop[:depth]`` carries a dependence (see :func:`parallel_violations`),
    naming each carried dependence and two conflicting iterations."""
    vs = parallel_violations(scop, loop, depth, deps, directive=directive)
    if not vs:
        return None
    prefix = list(tuple(loop)[:len(loop) if depth is None else depth])
    n = len(vs)
    head = (f"{directive} is illegal: the loop {prefix} carries {n} "
            f"dependence{'s' if n != 1 else ''}")
    lines = [head] + [f"  {v}" for v in vs[:max_shown]]
    if n > max_shown:
        lines.append(f"  ... and {n - max_shown} more")
    raise LegalityError("\n".join(lines), violations=vs, total=n, directive=directive)


# --- a view for display ---------------------------------------------------------------

@wrap_isl
def carried_depth(dep: Dependence, schedule: ClaySchedule) -> int | None:
    """The 1-based α depth of the outermost loop that orders some pair of
    ``dep`` forward under ``schedule`` (the sink's date first greater at
    that α dimension), 0 when only β dimensions (textual order) order its
    pairs forward, None when no pair is ordered forward (the dependence is
    empty, or every pair is broken: see :func:`violations` for that)."""
    sch = _sched(schedule)
    if dep.source not in sch.per or dep.sink not in sch.per:
        raise ModelError(f"the schedule has no relation for "
                         f"{dep.source if dep.source not in sch.per else dep.sink}")
    dates = dep.relation.apply_domain(sch.per[dep.source]).apply_range(sch.per[dep.sink])
    textual = False
    for p in range(sch.n):
        if dates.is_empty():
            break
        if not dates.order_lt(_dt.in_, p, _dt.out, p).is_empty():
            if p % 2:
                return (p + 1) // 2
            textual = True
        dates = dates.equate(_dt.in_, p, _dt.out, p)
    return 0 if textual else None


__all__ = ["CARRIED", "REVERSED", "TIED", "Violation", "carried_depth", "check",
           "check_parallel", "is_legal", "is_parallel", "parallel_violations", "prefix_equal",
           "violations"]
