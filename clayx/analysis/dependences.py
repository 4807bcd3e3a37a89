"""Exact (value-based) dependences with isl dataflow, computed once per SCoP.

The analysis follows PPCG without live-range reordering (seed 001 §3.2.1),
with the *original* schedule (the front end's padded β/α union map):

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
views by kind, statement pair and array.  :func:`dependences` caches the
result on the SCoP's ``statements`` tuple, which transformations keep
(``dataclasses.replace``), so the analysis runs once per SCoP.

Under any schedule, :func:`carried_depths`/:func:`carried_depth` tell which
loop carries a dependence and :func:`violated` gives the instance pairs that
a schedule executes in the wrong order.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
import functools
from functools import cached_property
from typing import Callable, Iterable, Iterator

import islpy as isl

from ..errors import ModelError
from ..model.schedule import ClaySchedule
from ..model.scop import MAY_WRITE, READ, WRITE, Access, Scop

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


def compute_dependences(scop: Scop,
                        original_schedule: ClaySchedule | None = None) -> Dependences:
    """Compute the dependences of ``scop`` (uncached; see :func:`dependences`).

    ``original_schedule`` is the program order; by default ``scop.schedule``
    is taken as the original (the front end's output is the original).
    """
    schedule = original_schedule if original_schedule is not None else scop.schedule
    try:
        return _compute(scop, schedule)
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


def _tagged(scop: Scop, schedule: ClaySchedule) -> _Tagged:
    space = scop.context.get_space()
    ctx = space.get_ctx()
    empty = isl.UnionMap.empty(space)
    reads, writes, may_writes, tagger = empty, empty, empty, empty
    tags: dict[str, list[_Tag]] = {}
    names = {s.name for s in scop.statements}
    unscheduled = names - {r.stmt for r in schedule}
    if unscheduled:
        raise ModelError(f"statement(s) {', '.join(sorted(unscheduled))} have no "
                         "scheduling relation")
    n = 0
    for si, s in enumerate(scop.statements):
        domain = s.domain.intersect_params(scop.context)
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
    sched = tagger.apply_range(dates.intersect_domain(scop.domains()))
    return _Tagged(reads, writes, may_writes, sched, n_dates, tags)


def _compute(scop: Scop, schedule: ClaySchedule) -> Dependences:
    space = scop.context.get_space()
    ctx = space.get_ctx()
    tg = _tagged(scop, schedule)
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
                common[key] = (scop.statement(key[0]).dim if key[0] == key[1]
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


# --- cache -------------------------------------------------------------------------

_CACHE_SIZE = 32
_cache: "OrderedDict[int, tuple[tuple, ClaySchedule, Dependences]]" = OrderedDict()
_lock = threading.Lock()


def dependences(scop: Scop, original_schedule: ClaySchedule | None = None) -> Dependences:
    """The dependences of ``scop``, computed once per ``statements`` tuple.

    A transformed SCoP keeps its original's ``statements`` tuple, so asking
    for its dependences returns the ones computed for the original.  Without
    ``original_schedule`` the first call for a statements tuple takes
    ``scop.schedule`` as the original order (call it on the front end's
    output first, or pass ``original_schedule``); later calls return the
    cached result.  An explicit ``original_schedule`` different from the one
    the cached result was computed with recomputes (and replaces) it.
    Small LRU (32 SCoPs); the cache keeps the tuple alive so its id is not
    reused.
    """
    key = id(scop.statements)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] is scop.statements:
            if original_schedule is None or original_schedule is hit[1] \
                    or original_schedule == hit[1]:
                _cache.move_to_end(key)
                return hit[2]
    deps = compute_dependences(scop, original_schedule)
    with _lock:
        _cache[key] = (scop.statements, deps.schedule, deps)
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return deps


def clear_cache() -> None:
    """Forget every cached result."""
    with _lock:
        _cache.clear()


# --- under a schedule ----------------------------------------------------------------

class IdentityCache:
    """A small thread-safe LRU of values computed from an object, keyed by
    the object's identity (schedules are immutable values, so one computed
    view serves every later question about the same schedule).  The cache
    keeps the object alive so its id is not reused while cached."""

    def __init__(self, build, size: int = 8):
        self._build = build
        self._size = size
        self._items: "OrderedDict[int, tuple[object, object]]" = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, obj):
        key = id(obj)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and hit[0] is obj:
                self._items.move_to_end(key)
                return hit[1]
        value = self._build(obj)
        with self._lock:
            self._items[key] = (obj, value)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


#: ``schedule.union_map()``, remembered for the last few schedules (a
#: legality check asks for it once per dependence).
_padded = IdentityCache(lambda schedule: schedule.union_map())


def _wrap_isl(fn):
    """Turn a raw ``isl.Error`` into a :class:`ModelError`."""
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        try:
            return fn(*args, **kw)
        except isl.Error as e:
            raise ModelError(f"{fn.__name__}: isl failed: {e}") from e
    return wrapper


def _dates(dep: Dependence, schedule: ClaySchedule) -> isl.Map | None:
    """``dates(source) -> dates(sink)`` for the pairs of ``dep`` under the
    padded ``schedule``; None when empty."""
    um = _padded(schedule)
    d = isl.UnionMap.from_map(dep.relation).apply_domain(um).apply_range(um)
    if d.is_empty():
        return None
    return isl.Map.from_union_map(d)


@_wrap_isl
def carried_depths(dep: Dependence, schedule: ClaySchedule) -> set[int]:
    """Every depth at which some pair of ``dep`` is first ordered forward
    under ``schedule``.

    The pairs' dates are compared dimension by dimension on the padded
    schedule ``[β0, α1, β1, …]``: a pair equal on dimensions ``< p`` whose
    sink date is strictly greater at ``p`` is carried at α depth ``(p+1)/2``
    when ``p`` is an α dimension, and at ``0`` (textual order,
    loop-independent) when ``p`` is a β dimension.  Pairs ordered backwards
    or with equal dates are not carried anywhere (see :func:`violated`).
    """
    m = _dates(dep, schedule)
    out: set[int] = set()
    if m is None:
        return out
    for p in range(m.dim(_dt.in_)):
        if not m.order_lt(_dt.in_, p, _dt.out, p).is_empty():
            out.add((p + 1) // 2 if p % 2 else 0)
        m = m.equate(_dt.in_, p, _dt.out, p)
        if m.is_empty():
            break
    return out


def carried_depth(dep: Dependence, schedule: ClaySchedule) -> int | None:
    """The 1-based α depth that carries ``dep`` under ``schedule`` (the
    outermost one when different pairs are carried at different depths), 0
    when only β (textual order) orders it, None when no pair is carried
    (the dependence is empty, or entirely violated)."""
    ds = carried_depths(dep, schedule)
    loops = [d for d in ds if d > 0]
    if loops:
        return min(loops)
    return 0 if ds else None


@_wrap_isl
def violated(dep: Dependence, schedule: ClaySchedule) -> isl.Map:
    """The pairs of ``dep`` whose sink is scheduled at or before its source
    (lexicographically, on the padded schedule): empty for a legal schedule.
    Same space and parameters as ``dep.relation``."""
    um = _padded(schedule)
    rel = dep.relation
    n = 2 * schedule.max_depth + 1
    ctx = rel.get_ctx()
    lex_ge = isl.UnionMap.from_map(isl.Map.lex_ge(isl.Space.set_alloc(ctx, 0, n)))
    src = um.intersect_domain(isl.UnionSet.from_set(rel.domain()))
    snk = um.intersect_domain(isl.UnionSet.from_set(rel.range()))
    later = src.apply_range(lex_ge).apply_range(snk.reverse())
    v = isl.UnionMap.from_map(rel).intersect(later)
    if v.is_empty():
        return isl.Map.empty(rel.get_space())
    return isl.Map.from_union_map(v).align_params(rel.get_space()).coalesce()
