"""Exact (value-based) dependences with isl dataflow, computed once per program.

The analysis follows PPCG without live-range reordering (seed 001 §3.2.1),
with the *original* schedule (the padded β/α union map of the program's
:class:`~clayx.model.Origin`):

- **RAW** (flow): sink = reads, must-sources = must-writes, may-sources =
  may-writes.  Value-based: a read depends only on the last must-write before
  it (and on every may-write after that last must-write).
- **WAR/WAW** (false): PPCG's relation is sink = all writes, may-sources =
  reads ∪ writes, cut = must-writes; a read source gives a WAR, a write source
  a WAW.  It is computed as two cheaper calls with the same result (a test
  checks it): WAW with sink = all writes, must-sources = must-writes,
  may-sources = may-writes; WAR as a flow in *reversed* time (sink = reads,
  must-sources = must-writes, may-sources = may-writes, dates negated): the
  first must-write after each read and the may-writes before it.
- **RAR** (input, for locality only, never in :meth:`Dependences.validity`):
  sink = reads, must-sources = reads, so each read depends on the *last*
  earlier read of the same element (Pluto's choice; it keeps the relations
  small and uniform, and the full RAR relation is its transitive closure).
  It is the most expensive family (many reads of one array), so it is
  computed on first use only.

The original schedule is given to isl without the date dimensions that are
the same constant for every statement (same order, fewer levels, up to 2x
faster).  Statement domains are intersected with the SCoP's context.

Every access is tagged with its reference so one dataflow call per family
yields dependences per (source reference, sink reference): the tagged
instance of an access of ``S0`` is ``[S0[i, j] -> _tk[]]`` (one tag per
distinct (kind, relation) of a statement: ``A[i][j]`` read three times is
analysed once and reported as three dependences, one per reference, sharing
one relation object).  Accesses of the same statement instance share its date, so an instance never depends on
itself (the read of ``C[i][j] += …`` does not see the write of the same
instance).

A :class:`Dependence` is one relation ``S[i…] -> T[j…]`` between two
references; :class:`Dependences` is the tuple of all of them for a SCoP, with
views by kind, statement pair and array.

:func:`dependences` gives the dependences of the program a SCoP schedules:
its :class:`~clayx.model.Origin` (the statements, context and original order
the front end produced, shared by every SCoP derived from it), computed once
per program and remembered there.  The answer never depends on which SCoP,
original or transformed, was asked about first.  :func:`compute_dependences`
computes them afresh, in a given order.  Judging a schedule against them is
:mod:`.legality`'s job, and only its.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterable, Iterator

import islpy as isl

from ..errors import ModelError
from ..model.schedule import ClaySchedule
from ..model.scop import MAY_WRITE, READ, WRITE, Access, Scop, Statement

RAW, WAR, WAW, RAR = "RAW", "WAR", "WAW", "RAR"
KINDS = (RAW, WAR, WAW, RAR)
#: The kinds a transformation must respect.
VALIDITY_KINDS = (RAW, WAR, WAW)

_dt = isl.dim_type


# --- one dependence -------------------------------------------------------------

@dataclass(frozen=True)
class Dependence:
    """The dependence between two references: ``relation`` is
    ``S[i…] -> T[j…]`` (``source`` instance to ``sink`` instance), restricted
    to the domains, with the SCoP's parameters in the SCoP's order.

    ``kind`` is ``RAW``, ``WAR``, ``WAW`` or ``RAR``; ``array`` the array (or
    scalar) both references access; ``source_ref``/``sink_ref`` the
    :attr:`Access.ref` ids (``{stmt}_r{k}``, ``k`` the access index in the
    statement, when the access has none).  ``common`` is the number of loops
    enclosing both statements in the original schedule (the length of their
    common β-prefix, at most the depth of either); ``None`` means
    ``min(dim(S), dim(T))``, or ``dim(S)`` when ``S`` is ``T``.

    Equality compares the relation with ``is_equal``; the hash ignores it.
    """

    kind: str
    source: str
    sink: str
    array: str
    source_ref: str
    sink_ref: str
    relation: isl.Map = field(hash=False)
    common: int | None = None

    # -- distance and direction --------------------------------------------
    @property
    def common_loops(self) -> int:
        """Number of leading iterators the distance is measured on."""
        n_in = self.relation.dim(_dt.in_)
        n_out = self.relation.dim(_dt.out)
        c = min(n_in, n_out) if self.common is None else self.common
        return max(0, min(c, n_in, n_out))

    @cached_property
    def deltas(self) -> isl.Set:
        """The distance set ``{ j[:c] - i[:c] }`` over the ``c`` =
        :attr:`common_loops` leading iterators.

        When source and sink are the same statement (then ``c`` is its
        dimension) this is ``relation.deltas()``; otherwise the relation is
        first projected on its ``c`` leading input and output iterators
        (the common-prefix projection) and the tuple names are dropped, so the
        deltas are taken between the iterators of the loops both statements
        share.  Parameters are kept: a distance may depend on them.
        """
        m = self.relation
        c = self.common_loops
        n_in, n_out = m.dim(_dt.in_), m.dim(_dt.out)
        if n_in > c:
            m = m.project_out(_dt.in_, c, n_in - c)
        if n_out > c:
            m = m.project_out(_dt.out, c, n_out - c)
        m = m.reset_tuple_id(_dt.in_).reset_tuple_id(_dt.out)
        return m.deltas()

    @cached_property
    def _distance(self) -> tuple[int, ...] | None:
        d = self.deltas
        if d.is_empty():
            return None
        p = d.sample_point()
        n = d.dim(_dt.set)
        vals = tuple(int(p.get_coordinate_val(_dt.set, k).to_python())
                     for k in range(n))
        point = isl.Set.universe(d.get_space())
        for k, v in enumerate(vals):
            point = point.fix_val(_dt.set, k, v)
        return vals if d.is_subset(point) else None

    @property
    def is_uniform(self) -> bool:
        """True when the distance over the common loops is one constant
        vector for every pair (and every parameter value)."""
        return self._distance is not None

    def distance(self) -> tuple[int, ...] | None:
        """The constant distance vector ``sink - source`` over the common
        loops (see :attr:`deltas`), or None if it is not constant.  Two
        statements with no common loop have the distance ``()``."""
        return self._distance

    @cached_property
    def _direction(self) -> tuple[str, ...]:
        d = self.deltas
        out = []
        for k in range(d.dim(_dt.set)):
            pos = not d.lower_bound_val(_dt.set, k, 1).is_empty()
            neg = not d.upper_bound_val(_dt.set, k, -1).is_empty()
            zero = not d.fix_val(_dt.set, k, 0).is_empty()
            out.append({(True, False, False): "<",
                        (False, True, False): "=",
                        (False, False, True): ">",
                        (True, True, False): "<=",
                        (False, True, True): ">="}.get((pos, zero, neg), "*"))
        return tuple(out)

    def direction(self) -> tuple[str, ...]:
        """Per common loop: ``'<'`` (every distance > 0: the sink's iteration
        is later), ``'='`` (always 0), ``'>'`` (always < 0), ``'<='``
        (≥ 0, both occur), ``'>='`` (≤ 0, both occur), ``'*'`` otherwise."""
        return self._direction

    def __str__(self) -> str:
        return f"{self.kind} {self.source} -> {self.sink} on {self.array}: {self.relation}"


# --- all dependences of a SCoP ---------------------------------------------------

class Dependences:
    """All the dependences of a SCoP (a tuple of :class:`Dependence`, ordered
    by kind (RAW, WAR, WAW, RAR), then source and sink statement and
    reference order), with views.

    ``schedule`` is the original schedule they were computed with; ``space``
    the SCoP's parameter space (for empty union maps).  RAR dependences may
    be given as a callable (``rar``), computed on the first view that needs
    them: :meth:`validity` and views restricted to RAW/WAR/WAW never do.
    """

    def __init__(self, deps: Iterable[Dependence], *, space: isl.Space,
                 schedule: ClaySchedule | None = None,
                 rar: Callable[[], Iterable[Dependence]] | None = None):
        deps = tuple(deps)
        self._validity = tuple(d for d in deps if d.kind != RAR)
        self._rar: tuple[Dependence, ...] | None = tuple(d for d in deps if d.kind == RAR) \
            if rar is None else None
        self._rar_thunk = rar
        self.space = space
        self.schedule = schedule

    def _rars(self) -> tuple[Dependence, ...]:
        if self._rar is None:
            self._rar = tuple(self._rar_thunk())
            self._rar_thunk = None
        return self._rar

    @property
    def all(self) -> tuple[Dependence, ...]:
        """Every dependence (computes the RAR ones if not done yet)."""
        return self._validity + self._rars()

    def __len__(self) -> int:
        return len(self.all)

    def __iter__(self) -> Iterator[Dependence]:
        return iter(self.all)

    def of_kind(self, *kinds: str) -> tuple[Dependence, ...]:
        """The dependences of the given kinds."""
        for k in kinds:
            if k not in KINDS:
                raise ModelError(f"unknown dependence kind {k!r} "
                                 f"(expected one of {', '.join(KINDS)})")
        deps = self._validity + (self._rars() if RAR in kinds else ())
        return tuple(d for d in deps if d.kind in kinds)

    def between(self, source: str, sink: str, *kinds: str) -> tuple[Dependence, ...]:
        """The dependences from statement ``source`` to statement ``sink``
        (of the given kinds, all if none)."""
        deps = self.of_kind(*kinds) if kinds else self.all
        return tuple(d for d in deps if d.source == source and d.sink == sink)

    def on_array(self, name: str, *kinds: str) -> tuple[Dependence, ...]:
        """The dependences on array (or scalar) ``name`` (of the given kinds,
        all if none)."""
        deps = self.of_kind(*kinds) if kinds else self.all
        return tuple(d for d in deps if d.array == name)

    def union_map(self, *kinds: str) -> isl.UnionMap:
        """The union of the relations of the given kinds (all if none),
        coalesced."""
        deps = self.of_kind(*kinds) if kinds else self.all
        um = isl.UnionMap.empty(self.space)
        for d in deps:
            um = um.union(isl.UnionMap.from_map(d.relation))
        return um.coalesce()

    def validity(self) -> isl.UnionMap:
        """RAW ∪ WAR ∪ WAW: what a transformation must respect."""
        return self.union_map(*VALIDITY_KINDS)

    def counts(self) -> dict[str, int]:
        """Number of dependences per kind (every kind present, maybe 0)."""
        out = {k: 0 for k in KINDS}
        for d in self.all:
            out[d.kind] += 1
        return out

    def __str__(self) -> str:
        return "\n".join(str(d) for d in self.all)

    def __repr__(self) -> str:
        c = ", ".join(f"{k}={v}" for k, v in self.counts().items())
        return f"<Dependences {c}>"


# --- computation ------------------------------------------------------------------

@dataclass
class _Tag:
    stmt: str
    index: int      # statement position in the SCoP
    k: int          # access position in the statement
    access: Access
    ref: str


def _common_loops(schedule: ClaySchedule, s: str, t: str) -> int:
    """Loops enclosing both statements: the longest common β-prefix length,
    at most the depth of either relation (min over relation pairs)."""
    best = None
    for r1 in schedule.of(s):
        for r2 in schedule.of(t):
            n = min(r1.depth, r2.depth)
            c = 0
            while c < n and r1.beta[c] == r2.beta[c]:
                c += 1
            best = c if best is None else min(best, c)
    return best or 0


def _order_map(schedule: ClaySchedule) -> tuple[isl.UnionMap, int]:
    """The padded schedule without the dimensions that hold the same constant
    for every relation (β values shared by all statements, zero padding): the
    same lexicographic order with fewer levels, which makes isl's dataflow up
    to 2x faster.  Returns the map and its number of output dimensions."""
    n = 2 * schedule.max_depth + 1
    const: dict[int, int | None] = {}
    for r in schedule:
        for p in range(n):
            if p % 2 == 0:
                v = r.beta[p // 2] if p // 2 < len(r.beta) else 0
            else:
                v = None if (p + 1) // 2 <= r.depth else 0
            if p not in const:
                const[p] = v
            elif const[p] != v:
                const[p] = None
    drop = sorted((p for p, v in const.items() if v is not None), reverse=True)
    if len(drop) == n:      # keep one dimension (a single statement, no loop)
        drop = drop[:-1]
    um = None
    for r in schedule:
        m = r.padded(n)
        for p in drop:
            m = m.project_out(_dt.out, p, 1)
        m = isl.UnionMap.from_map(m)
        um = m if um is None else um.union(m)
    if um is None:
        return isl.UnionMap("{ }"), 0
    return um, n - len(drop)


def compute_dependences(scop: Scop, schedule: ClaySchedule | None = None) -> Dependences:
    """Compute the dependences of ``scop``'s statements afresh, with
    ``schedule`` as the program order (default: ``scop.schedule``); nothing
    is remembered (see :func:`dependences` for those of the original
    program)."""
    return _compute_checked(scop.statements, scop.context,
                            scop.schedule if schedule is None else schedule)


def _compute_checked(statements: tuple[Statement, ...], context: isl.Set,
                     schedule: ClaySchedule) -> Dependences:
    try:
        return _compute(statements, context, schedule)
    except isl.Error as e:  # never let a raw isl error reach a user
        raise ModelError(f"dependence analysis failed: {e}") from e


@dataclass
class _Tagged:
    """Tagged accesses ``[S[i] -> _tk[]] -> A[…]`` and the tagged order map."""
    reads: isl.UnionMap
    writes: isl.UnionMap
    may_writes: isl.UnionMap
    sched: isl.UnionMap
    n_dates: int
    tags: dict[str, list[_Tag]]


def _tagged(statements: tuple[Statement, ...], context: isl.Set,
            schedule: ClaySchedule) -> _Tagged:
    space = context.get_space()
    ctx = space.get_ctx()
    empty = isl.UnionMap.empty(space)
    reads, writes, may_writes, tagger = empty, empty, empty, empty
    tags: dict[str, list[_Tag]] = {}
    domains = isl.UnionSet.empty(space)
    names = {s.name for s in statements}
    unscheduled = names - {r.stmt for r in schedule}
    if unscheduled:
        raise ModelError(f"statement(s) {', '.join(sorted(unscheduled))} have no "
                         "scheduling relation")
    n = 0
    for si, s in enumerate(statements):
        domains = domains.union(isl.UnionSet.from_set(s.domain))
        domain = s.domain.intersect_params(context)
        groups: list[tuple[Access, list[_Tag]]] = []
        for k, a in enumerate(s.accesses):
            if a.kind not in (READ, WRITE, MAY_WRITE):
                raise ModelError(f"access {a.text or a.ref} of {s.name} has unknown "
                                 f"kind {a.kind!r}")
            t = _Tag(s.name, si, k, a, a.ref or f"{s.name}_r{k}")
            # references with the same kind and relation (``A[i]`` read twice)
            # have the same dependences: analyse one, report each
            for rep, members in groups:
                if rep.kind == a.kind and rep.array == a.array \
                        and rep.relation.is_equal(a.relation):
                    members.append(t)
                    break
            else:
                groups.append((a, [t]))
        for a, members in groups:
            tag = f"_t{n}"
            n += 1
            tags[tag] = members
            tset = isl.Set.universe(
                isl.Space.set_alloc(ctx, 0, 0).set_tuple_name(_dt.set, tag))
            # [S[i] -> tag[]] -> S[i], then -> A[f(i)]
            untag = isl.Map.from_domain_and_range(domain, tset).domain_map()
            acc = isl.UnionMap.from_map(untag.apply_range(a.relation))
            tagger = tagger.union(isl.UnionMap.from_map(untag))
            if a.kind == READ:
                reads = reads.union(acc)
            elif a.kind == WRITE:
                writes = writes.union(acc)
            else:
                may_writes = may_writes.union(acc)
    dates, n_dates = _order_map(schedule)
    sched = tagger.apply_range(dates.intersect_domain(domains))
    return _Tagged(reads, writes, may_writes, sched, n_dates, tags)


def _compute(statements: tuple[Statement, ...], context: isl.Set,
             schedule: ClaySchedule) -> Dependences:
    space = context.get_space()
    ctx = space.get_ctx()
    dims = {s.name: s.dim for s in statements}
    tg = _tagged(statements, context, schedule)
    reads, writes, may_writes, sched, tags = tg.reads, tg.writes, tg.may_writes, tg.sched, tg.tags
    n_dates = tg.n_dates

    def flow(sink, must, may, order=sched) -> isl.UnionMap:
        info = isl.UnionAccessInfo.from_sink(sink)
        if must is not None:
            info = info.set_must_source(must)
        if may is not None:
            info = info.set_may_source(may)
        # may-dependences include the must ones
        return info.set_schedule_map(order).compute_flow().get_may_dependence()

    order = {k: i for i, k in enumerate(KINDS)}
    common: dict[tuple[str, str], int] = {}

    def collect(um: isl.UnionMap, kind: str) -> list[Dependence]:
        found: list[tuple[tuple, Dependence]] = []
        ml = um.get_map_list()
        for idx in range(ml.n_map()):
            m = ml.get_at(idx)
            if m.is_empty():
                continue
            sp = m.get_space()
            srcs = tags[sp.domain().unwrap().get_tuple_name(_dt.out)]
            snks = tags[sp.range().unwrap().get_tuple_name(_dt.out)]
            rel = m.domain_factor_domain().range_factor_domain()
            rel = rel.align_params(space).coalesce()
            key = (srcs[0].stmt, snks[0].stmt)
            if key not in common:
                common[key] = (dims[key[0]] if key[0] == key[1]
                               else _common_loops(schedule, *key))
            for src in srcs:
                for snk in snks:
                    dep = Dependence(kind, src.stmt, snk.stmt, src.access.array,
                                     src.ref, snk.ref, rel, common[key])
                    found.append(((src.index, snk.index, src.k, snk.k), dep))
        found.sort(key=lambda kd: kd[0])
        return [d for _, d in found]

    # RAW: the last must-write before each read, and the may-writes after it
    deps = collect(flow(reads, writes, may_writes), RAW)
    # WAW: PPCG's false family restricted to write sources
    deps += collect(flow(writes.union(may_writes), writes, may_writes), WAW)
    # WAR: PPCG's false family restricted to read sources (sink = all writes,
    # cut = must-writes) is, in reversed time, a flow from the writes to the
    # reads: the first must-write after each read, and the may-writes before
    # it.  Same relation, at the cost of a RAW computation (the direct form
    # with reads as may-sources cut by must-writes is 3-4x slower).
    xs = ", ".join(f"x{k}" for k in range(n_dates))
    neg = isl.UnionMap(f"{{ [{xs}] -> [{', '.join(f'-x{k}' for k in range(n_dates))}] }}",
                       context=ctx)
    deps += collect(flow(reads, writes, may_writes, sched.apply_range(neg)).reverse(), WAR)

    def rar() -> list[Dependence]:
        try:
            # each read depends on the last earlier read of the element
            return collect(flow(reads, reads, None), RAR)
        except isl.Error as e:
            raise ModelError(f"dependence analysis (RAR) failed: {e}") from e

    return Dependences(sorted(deps, key=lambda d: order[d.kind]), space=space,
                       schedule=schedule, rar=rar)


# --- the dependences of the original program ---------------------------------------

_MEMO_KEY = "clayx.analysis.dependences"


def dependences(scop: Scop) -> Dependences:
    """The dependences of the program ``scop`` schedules: those of its
    :attr:`~clayx.model.Scop.origin` (the statements in their original
    order, under the original context), computed on first use and
    remembered on the origin, which every SCoP derived from it shares.

    The same object is returned for the front end's SCoP and for any SCoP a
    schedule change made from it, whichever is asked first; a layout step
    (new statements) starts a new program, whose dependences are those in
    its order at that point.
    """
    o = scop.origin
    return o.memo(_MEMO_KEY, lambda: _compute_checked(o.statements, o.context, o.schedule))
