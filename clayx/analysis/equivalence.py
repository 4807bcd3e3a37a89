"""Exact check that a data-layout change keeps a program's meaning.

Clay's layout directives (:mod:`clayx.directives.layout`) change *which
memory cells* a program uses, not the order of its statement instances, so
the dependence-based legality check does not apply to them.  Instead
:func:`check` compares two programs -- the SCoP before a layout step (or a
group of them) and after it, each executed in its own schedule's order --
with isl's exact dataflow analysis (``isl.UnionAccessInfo`` /
``compute_flow``, must-writes and may-writes as in
:mod:`.dependences`):

1. **Reads.**  For every read reference of the new program, at every
   instance, the *source* of the value it reads -- a write instance
   (``S0[i]`` through the write reference ``S0_r1``) or "the initial value
   of cell ``c`` of array ``X``" -- is the same as in the old program.  With
   may-writes the source is the set of possible sources (the last must-write
   and the may-writes after it), compared as a set; since layout steps never
   reorder original instances, equal sets mean the same actual source.
   Statements created by ``datacopy`` are *transparent*: a value read from a
   copy instance stands for that instance's own source (composed through
   chains of copies).  A read of a never-written cell of an array the layout
   steps created (``add_array``) or redeclare (a reshaped dead array) is
   refused as a read before the first write.
2. **Final memory.**  For every array of the original program that may be
   live after the SCoP, every cell's last writer (through copies) is the
   same.  Which arrays are dead after the SCoP is the model's to say
   (:func:`~clayx.model.dead_arrays`: the front end's
   :attr:`~clayx.model.Array.live_out`, and the arrays ``add_array`` made).

By induction over the new program's execution order, (1) means every
statement instance reads the same values and computes the same results, and
(2) that the memory left behind is the same: the programs are equivalent.

Granularity: the accesses of one statement instance are ordered reads
first, then writes (``C[i] += x`` reads the old ``C[i]``); a statement made
by ``block`` keeps its parts in order (``{ t = a; b = t; }``: the second part
reads the first part's ``t``).  A C statement with a comma expression that
reads a cell after writing it is not modelled finer (as in the dependence
analysis).

What the directives record for this check (which statements are copies,
the parts of merged statements, which arrays are new or reshaped) is the
model's :class:`~clayx.model.LayoutInfo`, kept in the SCoP as the OpenScop
extension ``<clayx_layout>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import islpy as isl

from ..errors import LegalityError, ModelError
from ..model import (MAY_WRITE, READ, WRITE, Access, LayoutInfo, Scop, Statement,
                     dead_arrays, layout_info)
from .isl_util import small_point

__all__ = ["Difference", "check", "differences"]

_dt = isl.dim_type


# --- dataflow of one program ------------------------------------------------------

@dataclass
class _Ref:
    """One access as a dataflow "statement": its tag, statement and position."""
    tag: str
    stmt: Statement
    k: int
    access: Access
    copy: bool


@dataclass
class _Flow:
    """Value sources of one program: ``src`` maps each read tag instance (and
    each end-of-SCoP cell sink) to its sources: write tag instances or
    ``_init_<array>[cell]``."""
    src: isl.UnionMap
    refs: dict[str, _Ref] = field(default_factory=dict)


_INIT = "_init_"


def _tag(stmt: str, k: int, a: Access) -> str:
    return "_" + re.sub(r"\W", "_", a.ref or f"{stmt}_r{k}")


def _refs(scop: Scop, info: LayoutInfo) -> dict[str, _Ref]:
    out: dict[str, _Ref] = {}
    for st in scop.statements:
        for k, a in enumerate(st.accesses):
            t = _tag(st.name, k, a)
            if t in out:
                raise ModelError(f"two accesses share the reference id {a.ref!r}")
            out[t] = _Ref(t, st, k, a, st.name in info.copies)
    return out


def _domain(scop: Scop, st: Statement) -> isl.Set:
    return st.domain.intersect_params(scop.context)


def _renamed_domain(m: isl.Map, name: str) -> isl.Map:
    return m.set_tuple_name(_dt.in_, name)


def _flow(scop: Scop, info: LayoutInfo, ends: list[tuple[str, isl.Set]],
          arrays: set[str] | None) -> _Flow:
    """Dataflow of ``scop`` in its schedule's order, per access reference
    (of the accesses to ``arrays``; all when None), with the end-of-SCoP
    sinks ``ends`` (tag, cells of one array), composed through copy
    statements."""
    space = scop.context.get_space()
    ctx = space.get_ctx()
    refs = _refs(scop, info)
    if arrays is not None:
        refs = {t: r for t, r in refs.items() if r.access.array in arrays}
    sched = scop.schedule
    n = 2 * sched.max_depth + 1
    total = n + 3                       # [0|1, date…, part, phase]
    empty = isl.UnionMap.empty(space)
    reads, writes, mays, dates = empty, empty, empty, empty
    per_stmt: dict[str, isl.Map] = {}
    for r in sched:
        st = scop.statement(r.stmt)
        m = r.padded(n).intersect_domain(_domain(scop, st))
        per_stmt[r.stmt] = m if r.stmt not in per_stmt else per_stmt[r.stmt].union(m)
    for ref in refs.values():
        st, a = ref.stmt, ref.access
        if st.name not in per_stmt:
            raise ModelError(f"statement {st.name} has no scheduling relation")
        m = per_stmt[st.name].insert_dims(_dt.out, 0, 1).fix_val(_dt.out, 0, 0)
        m = m.add_dims(_dt.out, 2)
        m = m.fix_val(_dt.out, n + 1, info.part_of(st.name, ref.k))
        m = m.fix_val(_dt.out, n + 2, 0 if a.kind == READ else 1)
        dates = dates.union(isl.UnionMap.from_map(_renamed_domain(m, ref.tag)))
        acc = isl.UnionMap.from_map(_renamed_domain(
            a.relation.intersect_domain(_domain(scop, st)), ref.tag))
        if a.kind == READ:
            reads = reads.union(acc)
        elif a.kind == WRITE:
            writes = writes.union(acc)
        elif a.kind == MAY_WRITE:
            mays = mays.union(acc)
        else:
            raise ModelError(f"access {a.text or a.ref} has unknown kind {a.kind!r}")
    last = isl.Set.universe(isl.Space.set_alloc(ctx, 0, total)).fix_val(_dt.set, 0, 1)
    for k in range(1, total):
        last = last.fix_val(_dt.set, k, 0)
    for tag, cells in ends:
        ident = cells.identity().set_tuple_name(_dt.in_, tag)
        reads = reads.union(isl.UnionMap.from_map(ident))
        dates = dates.union(isl.UnionMap.from_map(
            isl.Map.from_domain_and_range(cells.set_tuple_name(tag), last)))
    info_ = isl.UnionAccessInfo.from_sink(reads).set_must_source(writes)
    info_ = info_.set_may_source(mays).set_schedule_map(dates)
    flow = info_.compute_flow()
    src = flow.get_may_dependence().reverse()
    nosrc = flow.get_may_no_source()
    ml = nosrc.get_map_list()
    for i in range(ml.n_map()):
        m = ml.get_at(i)
        arr = m.get_tuple_name(_dt.out)
        src = src.union(isl.UnionMap.from_map(m.set_tuple_name(_dt.out, _INIT + arr)))
    return _Flow(_through_copies(src, scop, refs), refs)


def _through_copies(src: isl.UnionMap, scop: Scop, refs: dict[str, _Ref]) -> isl.UnionMap:
    """Replace every source that is a copy statement's write instance by the
    sources of that instance's read (repeatedly: copies of copies)."""
    space = scop.context.get_space()
    hop = isl.UnionMap.empty(space)           # copy write tag[x] -> copy read tag[x]
    for st in scop.statements:
        cr = [r for r in refs.values() if r.stmt is st and r.copy and r.access.kind == READ]
        cw = [r for r in refs.values() if r.stmt is st and r.copy and r.access.is_write]
        if len(cr) != 1 or len(cw) != 1:
            continue
        ident = _domain(scop, st).identity()
        ident = ident.set_tuple_name(_dt.in_, cw[0].tag).set_tuple_name(_dt.out, cr[0].tag)
        hop = hop.union(isl.UnionMap.from_map(ident))
    if hop.is_empty():
        return src
    copy_writes = hop.domain()
    for _ in range(64):
        via = src.intersect_range(copy_writes)
        if via.is_empty():
            return src.coalesce()
        src = src.subtract(via).union(via.apply_range(hop).apply_range(src))
    raise ModelError("the copy statements copy values from each other without end "
                     "(a chain of copies the check cannot follow)")


# --- comparing two programs -------------------------------------------------------

@dataclass(frozen=True)
class Difference:
    """One way two programs differ: ``what`` is ``read`` (a reference reads a
    value from another source), ``uninitialized`` (a read of a never-written
    cell of a new array) or ``final`` (a live array's cell ends with another
    value); ``message`` says it with a witness."""

    what: str
    message: str
    where: str


def _fix_params(s, params: dict[str, int]):
    for k in range(s.dim(_dt.param)):
        name = s.get_dim_name(_dt.param, k)
        if name in params:
            s = s.fix_val(_dt.param, k, params[name])
    return s


def _instance(st: Statement | None, name: str, vals) -> str:
    if st is not None and len(st.iterators) == len(vals):
        return f"{name}[{', '.join(f'{n}={v}' for n, v in zip(st.iterators, vals))}]"
    return f"{name}[{', '.join(map(str, vals))}]"


def _cell(name: str, vals) -> str:
    return name + "".join(f"[{v}]" for v in vals)


def _describe_sources(src: isl.UnionMap, point: isl.Set, params: dict[str, int],
                      refs: dict[str, _Ref]) -> str:
    """The sources ``src`` gives the one-point set ``point``, in words."""
    rng = src.intersect_domain(isl.UnionSet.from_set(point)).range()
    out: list[str] = []
    sl = rng.get_set_list()
    for i in range(sl.n_set()):
        s = _fix_params(sl.get_at(i), params)
        name = s.get_tuple_name()
        while not s.is_empty() and len(out) < 4:
            if s.is_bounded():
                p = s.lexmin()
            else:
                p = isl.Set.from_point(s.sample_point())
            _, vals = small_point(p)
            if name.startswith(_INIT):
                out.append(f"the initial value of {_cell(name[len(_INIT):], vals)}")
            else:
                ref = refs.get(name)
                st = ref.stmt if ref else None
                body = f" (`{ref.access.text or ref.stmt.body}`)" if ref else ""
                out.append(f"the value written by {_instance(st, st.name if st else name, vals)}"
                           f"{body}")
            s = s.subtract(p)
    if not out:
        return "nothing (the program has no such read)"
    return " or ".join(out)


def _params_text(params: dict[str, int]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in params.items())


def differences(before: Scop, after: Scop, *, first: bool = True) -> list[Difference]:
    """How ``after`` computes something else than ``before`` (each in its own
    schedule's order); empty when they are equivalent.  With ``first``, stop
    at the first difference found (reads in statement and access order, then
    final values array by array)."""
    try:
        return _differences(before, after, first)
    except isl.Error as e:
        raise ModelError(f"the equivalence check failed in isl: {e}") from None


def _differences(before: Scop, after: Scop, first: bool) -> list[Difference]:
    ib, ia = layout_info(before), layout_info(after)
    dead = dead_arrays(after) | dead_arrays(before) | set(ia.new)
    fresh = set(ia.new) | (set(ia.reshaped) & dead)
    arrays = {a.name for a in before.arrays} | {a.name for a in after.arrays}
    affected = _affected(before, after, ib, ia)
    live = sorted((arrays if affected is None else arrays & affected) - dead)
    # end-of-SCoP sinks: the cells of live arrays written in either program
    ends: list[tuple[str, isl.Set]] = []
    end_array: dict[str, str] = {}
    for name in live:
        cells = None
        for scop in (before, after):
            for st in scop.statements:
                for a in st.accesses:
                    if a.array == name and a.is_write:
                        c = isl.UnionSet.from_set(
                            a.relation.intersect_domain(_domain(scop, st)).range())
                        cells = c if cells is None else cells.union(c)
        if cells is None:
            continue
        sl = cells.coalesce().get_set_list()
        for i in range(sl.n_set()):
            tag = f"_end{len(ends)}"
            ends.append((tag, sl.get_at(i)))
            end_array[tag] = name
    fb = _flow(before, ib, ends, affected)
    fa = _flow(after, ia, ends, affected)
    out: list[Difference] = []
    # reads of never-written cells of new (or redeclared) arrays
    sinks = [r for r in fa.refs.values() if r.access.kind == READ and not r.copy]
    if fresh:
        for r in sinks:
            bad = _fresh_reads(_restrict(fa.src, r.tag), fresh)
            if bad is None:
                continue
            params, vals = small_point(bad.wrap())
            n_in = bad.dim(_dt.in_)
            inst, cell = vals[:n_in], vals[n_in:]
            arr = bad.get_tuple_name(_dt.out)[len(_INIT):]
            st = r.stmt
            via = "" if arr == r.access.array else f" (through copies into {r.access.array})"
            why = (f"{arr} is a new array" if arr in ia.new else
                   f"{arr} is dead after the SCoP and reshaped: the generated code "
                   "declares it anew")
            msg = (f"{st.name} reads {_cell(arr, cell)} before it is written: e.g. "
                   f"{_params_text(params) + ': ' if params else ''}"
                   f"{_instance(st, st.name, inst)} reads `{r.access.text or r.access.array}` "
                   f"(access {r.k + 1}){via}, a cell of {arr} that no statement has "
                   f"written yet ({why})")
            out.append(Difference("uninitialized", msg, r.tag))
            if first:
                return out
    # every read of the new program: same sources
    for r in sinks:
        sb = _restrict(fb.src, r.tag)
        sa = _restrict(fa.src, r.tag)
        if sa.is_equal(sb):
            continue
        diff = sa.subtract(sb).domain().union(sb.subtract(sa).domain())
        pt_set = isl.Set.from_union_set(diff) if not diff.is_empty() else None
        if pt_set is None:
            continue
        params, vals = small_point(pt_set)
        point = _fix_params(pt_set, params)
        for k, v in enumerate(vals):
            point = point.fix_val(_dt.set, k, v)
        st = r.stmt
        old = _describe_sources(fb.src, point, params, fb.refs)
        new = _describe_sources(fa.src, point, params, fa.refs)
        msg = (f"{st.name} would read another value through `{r.access.text or r.access.array}`"
               f" (access {r.k + 1}, {r.access.array}): e.g. "
               f"{_params_text(params) + ': ' if params else ''}"
               f"{_instance(st, st.name, vals)} reads {new} instead of {old}")
        out.append(Difference("read", msg, r.tag))
        if first:
            return out
    # final memory of live arrays
    for tag, _cells in ends:
        sb = _restrict(fb.src, tag)
        sa = _restrict(fa.src, tag)
        if sa.is_equal(sb):
            continue
        diff = sa.subtract(sb).domain().union(sb.subtract(sa).domain())
        pt_set = isl.Set.from_union_set(diff)
        params, vals = small_point(pt_set)
        point = _fix_params(pt_set, params)
        for k, v in enumerate(vals):
            point = point.fix_val(_dt.set, k, v)
        name = end_array[tag]
        old = _describe_sources(fb.src, point, params, fb.refs)
        new = _describe_sources(fa.src, point, params, fa.refs)
        msg = (f"{_cell(name, vals)} would hold another value after the SCoP ({name} may be "
               f"used after it): e.g. {_params_text(params) + ': ' if params else ''}"
               f"its last value would be {new} instead of {old}")
        out.append(Difference("final", msg, name))
        if first:
            return out
    return out


def _affected(before: Scop, after: Scop, ib: LayoutInfo, ia: LayoutInfo) -> set[str] | None:
    """The arrays whose value flow may differ between the programs, or None
    (all of them) unless the statements both programs have run in the same
    relative order (same α parts, textual order and shared loops, as after
    layout directives, which only insert and merge statements).  An array
    is unaffected when every access to it is the same in both programs
    (reference, kind, relation, statement domain, part) and no copy
    statement touches it: its dataflow is then the same."""
    if not _same_order(before, after):
        return None
    rb, ra = _refs(before, ib), _refs(after, ia)
    out = set(ia.new) | set(ib.new)
    for tag in set(rb) | set(ra):
        x, y = rb.get(tag), ra.get(tag)
        if x is None or y is None:
            out.add((x or y).access.array)
            continue
        if x.copy or y.copy:
            out |= {x.access.array, y.access.array}
            continue
        same = (x.access.kind == y.access.kind and x.access.array == y.access.array
                and x.stmt.name == y.stmt.name
                and ib.part_of(x.stmt.name, x.k) == ia.part_of(y.stmt.name, y.k)
                and x.access.relation.is_equal(y.access.relation)
                and x.stmt.domain.is_equal(y.stmt.domain))
        if not same:
            out |= {x.access.array, y.access.array}
    return out


def _same_order(before: Scop, after: Scop) -> bool:
    """Whether the statements of both programs run in the same relative
    order in both: the same relations in the same β order, with equal α
    parts, sharing the same number of loops pairwise."""
    common = {s.name for s in before.statements} & {s.name for s in after.statements}
    rb = [r for r in before.schedule if r.stmt in common]
    ra = [r for r in after.schedule if r.stmt in common]
    if [r.stmt for r in rb] != [r.stmt for r in ra]:
        return False
    for x, y in zip(rb, ra):
        if len(x.beta) != len(y.beta) or not x.with_beta(y.beta).map.is_equal(y.map):
            return False
    for i in range(len(rb)):
        for j in range(i + 1, len(rb)):
            if _shared(rb[i].beta, rb[j].beta) != _shared(ra[i].beta, ra[j].beta):
                return False
    return True


def _shared(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    n = 0
    while n < min(len(a), len(b)) - 1 and a[n] == b[n]:
        n += 1
    return n


def _restrict(src: isl.UnionMap, tag: str) -> isl.UnionMap:
    """``src`` restricted to sinks of tuple ``tag``."""
    sp = _tag_space(src, tag)
    if sp is None:
        return isl.UnionMap.empty(src.get_space())
    return src.intersect_domain(isl.UnionSet.from_set(isl.Set.universe(sp)))


def _tag_space(src: isl.UnionMap, tag: str) -> isl.Space | None:
    ml = src.get_map_list()
    for i in range(ml.n_map()):
        m = ml.get_at(i)
        if m.get_tuple_name(_dt.in_) == tag:
            return m.get_space().domain()
    return None


def _fresh_reads(src: isl.UnionMap, fresh: set[str]) -> isl.Map | None:
    """The part of ``src`` (one sink tag) whose source is the initial value
    of an array of ``fresh`` (the first such array), or None."""
    ml = src.get_map_list()
    for i in range(ml.n_map()):
        m = ml.get_at(i)
        name = m.get_tuple_name(_dt.out)
        if name.startswith(_INIT) and name[len(_INIT):] in fresh and not m.is_empty():
            return m
    return None


def check(before: Scop, after: Scop, *, directive: str | None = None) -> None:
    """Raise :class:`~clayx.errors.LegalityError` when ``after`` does not
    compute the same values as ``before`` (see the module docstring): the
    message names the first differing reference or array with a witness
    (instance or cell, with parameter values) and both value sources."""
    found = differences(before, after, first=True)
    if not found:
        return None
    head = f"{directive} would change the program's meaning" if directive else \
        "the layout change would change the program's meaning"
    raise LegalityError(f"{head}: {found[0].message}", directive=directive)
