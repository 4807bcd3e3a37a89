"""Clay directives that change the β-tree (seed 004 §5, Fig. 8): reorder,
fuse, split (alias distribute), split_children, iss, collapse, peel,
embed/unembed; ``context`` on the parameters; and the queries
``get_beta_loop``, ``get_beta_stmt``, ``get_beta_loop_by_name``.

Every directive gets its β (and ``split`` its depth) checked against the
schedule by the parameter types (Clay's messages, :mod:`.params`; an empty
β is refused as no loop, no statement, or not found), checks what else
it needs, then returns a new SCoP whose β-vectors are normalized.  Marks follow the statements they applied to.  Legality is the
caller's job: the session checks every dependence after the step.
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from ..errors import DirectiveError
from ..model import Relation, Scop
from .common import (BAD_INEQUALITY, DEPTH_OVERFLOW, EMPTY, NEED_LOOP, NOT_FOUND,
                     WRONG_COEFFICIENT, Inequality, add_inequality, alpha_out, clay_inequality,
                     clay_matching, fail, nonempty, rebuild)
from .params import ORDER_TOO_SMALL, VECTOR_WRONG, Beta, Depth, Int, Ints, List, String
from .registry import directive

_dt = isl.dim_type


def _moved(r: Relation, pos: int, value: int) -> Relation:
    """``r`` with β[pos] set to ``value``."""
    b = list(r.beta)
    b[pos] = value
    return r.with_beta(tuple(b))


# --- reorder ----------------------------------------------------------------------

@directive("reorder", Beta("loop", loop=True, root=True), Ints("order"))
def reorder(scop: Scop, loop, order) -> Scop:
    """Permute the children (statements and loops) of a loop or of the root.

    Arguments: ``loop`` a loop β-prefix or ``[]`` (the root); ``order`` the
    new position of each child, in program order: child k moves to position
    ``order[k]`` (Clay: β at depth ``len(loop)+1`` becomes ``order[β]``).
    ``order`` has an entry for each child (extra entries are ignored), no
    two children the same target (Clay would merge them); the targets give
    the new order, gaps allowed.

        for i: { S0; S1; S2 }      reorder([0], [2, 0, 1])
        ->  for i: { S1; S2; S0 }

    Checks: ``loop`` a loop or ``[]`` (not found / not a loop), ``order``
    long enough ("the order array is too small"), no repeated target.
    Legality: checked against all dependences after the step.
    """
    name = "reorder"
    kids = scop.schedule.children(loop)
    if len(order) < len(kids):
        raise fail(name, f"{ORDER_TOO_SMALL}: the loop has {len(kids)} children, got "
                   f"{list(order)}", 2)
    order = tuple(order[:len(kids)])
    if len(set(order)) != len(order):
        raise fail(name, f"the order array sends two children to one place: {list(order)} "
                   "(Clay would merge them)", 2)
    d = len(loop)
    index = {k: n for n, k in enumerate(kids)}
    pairs = []
    for r in scop.schedule:
        new = r
        if r.beta[:d] == loop and len(r.beta) > d:
            new = _moved(r, d, order[index[r.beta[:d + 1]]])
        pairs.append((r, new))
    return rebuild(scop, pairs)


# --- fuse ------------------------------------------------------------------------------

@directive("fuse", Beta("loop", loop=True), aliases=("fusenext", "fuse_next", "merge"))
def fuse(scop: Scop, loop) -> Scop:
    """Fuse a loop with the loop right after it (its next sibling).

    Arguments: ``loop`` a loop β-prefix.  The children of the next loop
    come after those of the first; α dimensions are untouched (the fused
    loop runs over the union of both ranges; each statement keeps its own
    bounds).  When the next sibling is a statement, or there is none,
    nothing changes (Clay's ``fuse``, reference 5.3).

        for i: S0             fuse([0])
        for i: S1        ->   for i: { S0; S1 }

    Checks, in Clay's order: ``loop`` not empty, found, a loop.
    Legality: checked against all dependences after the step.
    Aliases: fusenext, fuse_next, merge (Clay's FUSENEXT).
    """
    sched = scop.schedule
    sibs = sched.children(loop[:-1])
    k = sibs.index(loop)
    if k + 1 >= len(sibs) or not sched.is_loop(sibs[k + 1]):
        return scop                     # Clay: nothing to fuse with, success
    nxt = sibs[k + 1]
    d = len(loop)
    shift = max(r.beta[d] for r in sched.relations_under(loop)) + 1
    pairs = []
    for r in sched:
        new = r
        if r.beta[:d] == nxt:
            new = r.with_beta(loop + (r.beta[d] + shift,) + r.beta[d + 1:])
        pairs.append((r, new))
    return rebuild(scop, pairs)


# --- split / distribute ----------------------------------------------------------------------

def _split(scop: Scop, beta, depth: int, name: str, arg: int = 1) -> Scop:
    sched = scop.schedule
    n = len(beta)
    pre = beta[:depth - 1]
    moved = [r for r in sched.relations_under(beta[:depth])
             if r.beta[depth:n] > beta[depth:]]
    if not moved:
        raise fail(name, f"nothing to split: {list(beta)} is the last one in the "
                   f"loop at depth {depth}", arg)
    moved_ids = {id(r) for r in moved}
    pairs = []
    for r in sched:
        new = r
        if id(r) in moved_ids or (r.beta[:depth - 1] == pre and len(r.beta) >= depth
                                  and r.beta[depth - 1] > beta[depth - 1]):
            new = _moved(r, depth - 1, r.beta[depth - 1] + 1)
        pairs.append((r, new))
    return rebuild(scop, pairs)


def _split_pre(beta, depth) -> None:
    if len(beta) <= 1 or depth <= 0 or depth >= len(beta):
        raise fail("split", f"{DEPTH_OVERFLOW} (expected 1..{len(beta) - 1}, got {depth})"
                   if len(beta) > 1 else DEPTH_OVERFLOW, 2)


@directive("split", Beta("beta"), Depth("depth", bound="enclosing"),
           aliases=("fission", "distribute"),
           pre=_split_pre)
def split(scop: Scop, beta, depth) -> Scop:
    """Distribute the loop at ``depth`` around ``beta`` into two loops.

    Arguments: ``beta`` a statement (or loop) β-vector; ``depth`` with
    ``1 <= depth < len(beta)``, the loop ``beta[:depth]`` to split.  Everything
    in that loop up to and including ``beta`` (in program order) stays in the
    first loop; everything after it goes to a new loop right after (every
    loop between ``depth`` and ``beta`` is split the same way).  Exactly:
    relations with ``β[:depth] == beta[:depth]`` and ``β[depth:] > beta[depth:]``,
    and the later siblings of the loop, get ``β[depth-1] += 1``; then
    β-vectors are normalized.  Refused when nothing follows ``beta``.

        for i: { S0; S1; S2 }      split([0, 1], 1)
        ->  for i: { S0; S1 }
            for i: { S2 }

    Checks, in Clay's order: ``beta`` not empty, ``1 <= depth < len(beta)``
    (both before the look-up), ``beta`` found, something follows it in
    that loop.
    Legality: checked against all dependences after the step.
    Aliases: fission, distribute (Clay's, reference §3.2).  The paper's
    DISTRIBUTE of a loop after its first ``n`` children is
    ``split_children(loop, n)``, that is ``split(loop + [n-1], len(loop))``.
    """
    return _split(scop, beta, depth, "split")


@directive("split_children", Beta("loop", loop=True, empty=None), Int("n"))
def split_children(scop: Scop, loop, n) -> Scop:
    """Distribute a loop in two: its first ``n`` children stay, the rest go to
    a new loop right after it (the Clay paper's DISTRIBUTE, Fig. 4 and 9;
    clayx's own name: in Clay's scripts ``distribute`` is ``split``).

    Arguments: ``loop`` a loop β-prefix; ``n`` with ``1 <= n < number of
    children``: the children with β at depth ``len(loop)+1`` below ``n`` stay.

        for i: { S0; S1; S2 }      split_children([0], 2)
        ->  for i: { S0; S1 }
            for i: { S2 }

    Checks: ``loop`` a loop (``[]`` is not one), ``1 <= n <`` its children.
    Legality: checked against all dependences after the step.
    Same as ``split(loop + [n-1], len(loop))``.
    """
    name = "split_children"
    kids = scop.schedule.children(loop)
    if not 1 <= n < len(kids):
        raise fail(name, f"{DEPTH_OVERFLOW}: n must be in 1..{len(kids) - 1} "
                   f"(the loop has {len(kids)} children), got {n}", 2)
    return _split(scop, kids[n - 1], len(loop), name, 2)


# --- index-set splitting ----------------------------------------------------------------------

def _halves(scop: Scop, rels, ineq: Inequality, keep_empty: bool = False):
    """For each relation of ``rels``: (old, T ∩ c, T ∩ ¬c); unless
    ``keep_empty``, halves that schedule no instance are None (a relation
    with both empty keeps its first half)."""
    out = []
    for r in rels:
        m1 = add_inequality(r.map, ineq, scop.params)
        m2 = add_inequality(r.map, ineq.negated(), scop.params)
        if keep_empty:
            out.append((r, m1, m2))
            continue
        h1 = m1 if nonempty(scop, m1, r.stmt) else None
        h2 = m2 if nonempty(scop, m2, r.stmt) else None
        if h1 is None and h2 is None:
            h1 = m1
        out.append((r, h1, h2))
    return out


@directive("iss", Beta("loop", loop=True, lookup=False), List("inequality", strict=True),
           aliases=("indexsetsplit", "index_set_split"))
def iss(scop: Scop, loop, inequality) -> Scop:
    """Index-set split (Clay's ``iss``, reference 5.10): every relation
    under a loop becomes two, in the same loop: the part with ``e ≥ 0``
    moves after all the loop's children, its complement ``e < 0`` keeps
    the β.

    Arguments: ``loop`` a loop β-prefix; ``inequality`` ``e ≥ 0`` as a list
    whose number of parts says what each fills (missing trailing
    coefficients are 0): ``{c}`` a constant, ``{P | c}`` parameter
    coefficients and constant, ``{I | P | c}`` the original iterators'
    coefficients first, ``{A | I | P | c}`` the α dimensions' first.
    Exactly: each relation T under ``loop`` becomes ``T ∩ (-e-1 ≥ 0)`` at
    its β and ``T ∩ (e ≥ 0)`` at β with ``β[len(loop)] += M + 1`` (M the
    largest such β in the loop); then β-vectors are normalized.  Halves
    without instances are kept (as in Clay).

        for i: { P(i); R(i) }        iss([0], {1||-3})           (i - 3 >= 0)
        ->  for i: { if (i <= 2) P(i); if (i <= 2) R(i);
                     if (i >= 3) P(i); if (i >= 3) R(i) }

    Checks, in Clay's order: ``loop`` not empty; at most 4 parts; found;
    in a loop; the parts' sizes (against the first matching statement);
    every matching β a loop; a constant given.
    Legality: checked against all dependences after the step.
    Aliases: indexsetsplit, index_set_split.  Inverse: collapse.
    """
    rels, ineq = clay_inequality(scop, loop, inequality, directive="iss")
    return split_index_set(scop, loop, rels, ineq, new_loop=False)


def split_index_set(scop: Scop, loop, rels, ineq: Inequality, *, new_loop: bool) -> Scop:
    """Clay's iss effect on ``rels`` (the relations under ``loop``): the
    complement of ``ineq`` keeps each β, the part satisfying it moves after
    the loop's children (``new_loop`` false) or, as ``peel`` does, into a
    new loop right after ``loop`` whose later siblings move one further."""
    d = len(loop)
    shift = max(r.beta[d] for r in rels) + 1
    halves = {id(r): (h1, h2) for r, h1, h2 in _halves(scop, rels, ineq, keep_empty=True)}
    pairs = []
    for r in scop.schedule:
        if id(r) not in halves:
            new = r
            if (new_loop and r.beta[:d - 1] == loop[:-1] and len(r.beta) >= d
                    and r.beta[d - 1] > loop[-1]):
                new = _moved(r, d - 1, r.beta[d - 1] + 1)
            pairs.append((r, new))
            continue
        sat, comp = halves[id(r)]
        # Clay's union: the satisfying part first, then its complement
        pairs.append((r, replace(r, map=comp, rank=r.rank + (1,))))
        moved = replace(r, map=sat, rank=r.rank + (0,))
        moved = (_moved(moved, d - 1, loop[-1] + 1) if new_loop
                 else _moved(moved, d, r.beta[d] + shift))
        pairs.append((r, moved))
    return rebuild(scop, pairs)


@directive("peel", Beta("loop", loop=True, lookup=False), List("inequality", strict=True))
def peel(scop: Scop, loop, inequality) -> Scop:
    """Peel a loop in two consecutive loops (Clay's ``peel``, reference
    5.11): the loop keeps the iterations with ``α + P·p + c < 0``, a new
    loop right after it gets those with ``α + P·p + c ≥ 0`` (α the loop's
    own dimension).

    Arguments: ``loop`` a loop β-prefix; ``inequality`` ``{c}`` or
    ``{P | c}`` (parameter coefficients, constant).  Exactly Clay's
    ``iss(loop, {0,…,0,1 | | P | c})``, with the satisfying halves moved to
    a new loop after ``loop``; halves without instances are kept.

        for i in 0..N-1: S0(i)        peel([0], {-1})          (i - 1 >= 0)
        ->  for i in 0..0:   S0(i)
            for i in 1..N-1: S0(i)

    With one parameter N, ``peel([0], {-1|1})`` (``i - N + 1 >= 0``) puts
    the last iteration in the second loop.

    Checks, in Clay's order: ``loop`` not empty; at most 2 parts; then
    those of ``iss`` (a statement β: "the inequality seems to be wrong").
    Legality: checked against all dependences after the step.
    """
    parts = [(x,) if isinstance(x, int) else tuple(x) for x in inequality] or [()]
    if not loop:
        raise fail("peel", EMPTY, 1)
    if len(parts) >= 3:
        raise fail("peel", f"{BAD_INEQUALITY}: {len(parts)} parts, expected {{c}} or "
                   "{P | c}", 2)
    alpha = (0,) * (len(loop) - 1) + (1,)
    par = parts[0] if len(parts) == 2 else ()
    rels, ineq = clay_inequality(scop, loop, [alpha, (), par, parts[-1]], directive="peel")
    return split_index_set(scop, loop, rels, ineq, new_loop=True)


def peeled(scop: Scop, loop, ineq: Inequality) -> Scop:
    """``peel`` with a parsed inequality: the relations under ``loop`` (a
    checked loop) with ``ineq`` stay, their complements go to a new loop
    right after it; empty halves are dropped."""
    d = len(loop)
    rels = scop.schedule.relations_under(loop)
    halves = {id(r): (h1, h2) for r, h1, h2 in _halves(scop, rels, ineq)}
    pairs = []
    for r in scop.schedule:
        if id(r) not in halves:
            new = r
            if (r.beta[:d - 1] == loop[:-1] and len(r.beta) >= d
                    and r.beta[d - 1] > loop[-1]):
                new = _moved(r, d - 1, r.beta[d - 1] + 1)
            pairs.append((r, new))
            continue
        h1, h2 = halves[id(r)]
        if h1 is not None:
            pairs.append((r, replace(r, map=h1)))
        if h2 is not None:
            pairs.append((r, _moved(replace(r, map=h2), d - 1, loop[-1] + 1)))
    return rebuild(scop, pairs)


def _complementary(a: isl.Map, b: isl.Map) -> isl.Map | None:
    """``a ∪ b`` when they are disjoint and their union is one convex
    relation (``T ∩ c`` and ``T ∩ ¬c``), else None.

    Halves of one ``T`` that gives each instance its own date keep doing so
    merged: two relations that each do, but whose union gives instances of
    both the same date (the copies of an ``unroll``: ``i -> i`` on even
    ``i`` and ``i -> i - 1`` on odd ones coalesce into ``i -> 2 floor(i/2)``),
    are not halves of one relation (Clay: their α rows differ, "wrong
    coefficient"), and merging them would drop the order of those
    instances."""
    if not a.intersect(b).is_empty():
        return None
    u = a.union(b).coalesce()
    if u.n_basic_map() != 1:
        hull = isl.Map.from_basic_map(u.convex_hull())
        if not hull.is_equal(u):
            return None
        u = hull
    if a.is_injective() and b.is_injective() and not u.is_injective():
        return None
    return u


@directive("collapse", Beta("loop", loop=True, lookup=False))
def collapse(scop: Scop, loop) -> Scop:
    """Merge back relations split by ``iss`` (Clay's COLLAPSE, reference
    §5.13).

    Arguments: ``loop`` a loop β-prefix.  Clay's pairing: the relations
    under ``loop`` (an even number, at least 2), sorted by β; with ``M``
    the largest, each relation ``b`` of the first half pairs with the
    relation of the same statement at ``b`` with ``b[len(loop)] +=
    (M[len(loop)] + 1) // 2`` -- the layout ``iss`` leaves -- and the two
    must be the statement scheduled by disjoint relations with a convex
    union (``T ∩ c`` and ``T ∩ ¬c``): they become one relation at ``b``::

        for i: { if (i <= 4) S0(i); if (i >= 5) S0(i) }     collapse([0])
        ->  for i: S0(i)

    Checks, in Clay's order: the number of relations under ``loop`` odd or
    0, or a partner missing: "the beta vector was not found"; ``loop`` no
    loop of them: "the beta need to be in a loop"; a pair that is not two
    complementary halves: "wrong coefficient" (so is a pair whose union
    gives instances of both one date while each gives its own instances
    their own, as an ``unroll``'s copies: Clay's α rows differ there).  Where Clay's pairing fails,
    clayx also merges two consecutive children of ``loop`` (statements, or
    loops holding the same statements at the same relative β-vectors) that
    are such halves, along the children, so chains of splits and ``peel``'s
    loops collapse too; Clay's message when none qualifies.
    Legality: checked against all dependences after the step.
    Inverse of iss.
    """
    try:
        merged = _clay_pairs(scop, loop)
    except DirectiveError as e:
        merged = _consecutive_pairs(scop, loop)
        if merged is None:
            raise e from None
    return rebuild(scop, [(r, merged.get(id(r), r)) for r in scop.schedule])


def _clay_pairs(scop: Scop, loop) -> dict[int, Relation]:
    """Clay's collapse pairing (reference §5.13): ``id(old)`` -> the merged
    relation for both relations of each pair, or Clay's error."""
    name = "collapse"
    d = len(loop)
    rels = clay_matching(scop, loop)
    if not rels or len(rels) % 2:
        raise fail(name, f"{NOT_FOUND}: {len(rels)} relations under {list(loop)}, collapse "
                   "pairs the halves iss made", 1)
    top = max(r.beta for r in rels)
    if len(top) <= d:
        raise fail(name, NEED_LOOP, 1)
    step = (top[d] + 1) // 2
    at = {r.beta: r for r in rels}
    out: dict[int, Relation] = {}
    for b in sorted(rels, key=lambda r: r.beta)[:len(rels) // 2]:
        if len(b.beta) == d:
            raise fail(name, NEED_LOOP, 1)
        pb = b.beta[:d] + (b.beta[d] + step,) + b.beta[d + 1:]
        p = at.get(pb)
        if p is None or p.stmt != b.stmt:
            raise fail(name, f"{NOT_FOUND}: {b.stmt} at {list(b.beta)} has no other half at "
                       f"{list(pb)}", 1)
        u = _complementary(b.map, p.with_beta(b.beta).map)
        if u is None:
            raise fail(name, f"{WRONG_COEFFICIENT}: the relations of {b.stmt} at "
                       f"{list(b.beta)} and {list(pb)} are not two halves of one", 1)
        out[id(b)] = out[id(p)] = replace(b, map=u)
    return out


def _consecutive_pairs(scop: Scop, loop) -> dict[int, Relation] | None:
    """clayx's collapse beyond Clay's pairing: consecutive children of
    ``loop`` that are complementary halves merged along the children
    (``id(old)`` -> merged relation), or None when no two merge."""
    sched = scop.schedule
    if loop and not sched.is_loop(loop):
        return None
    d = len(loop)
    # each child of the loop: list of [relation, the old relations it merges]
    kids = [[[r, [r]] for r in sched.relations_under(k)] for k in sched.children(loop)]
    merged: list[list[list]] = []
    any_merge = False
    for g in kids:
        m = _merge_child(merged[-1], g, d) if merged else None
        if m is not None:
            merged[-1] = m
            any_merge = True
        else:
            merged.append(g)
    if not any_merge:
        return None
    return {id(o): new for grp in merged for new, olds in grp for o in olds}


def _merge_child(a: list[list], b: list[list], d: int) -> list[list] | None:
    """Children ``a`` and ``b`` of a loop at depth ``d`` merged relation by
    relation, or None when they are not complementary halves."""
    if len(a) != len(b) or not all(
            p.stmt == r.stmt and p.beta[d + 1:] == r.beta[d + 1:]
            for (p, _), (r, _) in zip(a, b)):
        return None
    out = []
    for (p, olds), (r, rolds) in zip(a, b):
        u = _complementary(p.map, r.with_beta(p.beta).map)
        if u is None:
            return None
        out.append([replace(p, map=u), olds + rolds])
    return out


# --- embed / unembed ------------------------------------------------------------------------------------

@directive("embed", Beta("stmt", statement=True, empty=DEPTH_OVERFLOW))
def embed(scop: Scop, stmt) -> Scop:
    """Wrap a statement in a new loop of one iteration.

    Arguments: ``stmt`` a statement β-vector.  The relation gets a new α
    dimension fixed to 0 and a β dimension 0 at its end: the statement is
    the only child of a new loop that takes its place.

        for i: { S0; S1 }      embed([0, 1])
        ->  for i: { S0; for (c = 0; c <= 0; c++) S1 }

    Checks: ``stmt`` a statement (``[]`` is not one).
    Legality: changes no order (checked after the step anyway).
    Inverse: unembed.
    """
    pairs = []
    for r in scop.schedule:
        if r.beta == stmt:
            n = r.map.dim(_dt.out)
            m = r.map.add_dims(_dt.out, 2)
            m = m.fix_val(_dt.out, n, 0).fix_val(_dt.out, n + 1, 0)
            pairs.append((r, replace(r, beta=r.beta + (0,), map=m)))
        else:
            pairs.append((r, r))
    return rebuild(scop, pairs)


def _unembed_pre(stmt) -> None:
    if len(stmt) <= 1:
        raise fail("unembed", f"{DEPTH_OVERFLOW}: the statement is in no loop", 1)


@directive("unembed", Beta("stmt", statement=True, empty=DEPTH_OVERFLOW), pre=_unembed_pre)
def unembed(scop: Scop, stmt) -> Scop:
    """Remove the innermost loop around a statement when it is the loop's
    only child and runs one iteration for each iteration of the outer loops
    (on the statement's domain and the context).

    Arguments: ``stmt`` a statement β-vector of length ≥ 2.  Its last α and
    β dimensions are projected out: the statement takes the loop's place.

        for i: { S0; for (c = 0; c <= 0; c++) S1 }      unembed([0, 1, 0])
        ->  for i: { S0; S1 }

    Checks: ``stmt`` a statement in a loop, the loop's only child, one
    iteration of it per outer iteration.
    Legality: changes no order (checked after the step anyway).
    Inverse: embed.
    """
    name = "unembed"
    sched = scop.schedule
    if len(stmt) < 2:
        raise fail(name, f"{DEPTH_OVERFLOW}: the statement is in no loop", 1)
    if len(sched.children(stmt[:-1])) != 1:
        raise fail(name, "transformation is not applicable to the given beta: the loop "
                   "around the statement contains other statements", 1)
    r = sched.relation(stmt)
    n = r.depth
    m = r.map.intersect_domain(scop.statement(r.stmt).domain).intersect_params(scop.context)
    alphas = m.range().project_out(_dt.set, 2 * n, 1)   # drop β_n
    for k in range(n - 1, -1, -1):                      # drop β_{k} for k < n
        alphas = alphas.project_out(_dt.set, 2 * k, 1)
    # alphas: (α1..αn); αn must be a function of α1..α(n-1)
    as_map = isl.Map.from_domain(alphas).move_dims(_dt.out, 0, _dt.in_, n - 1, 1)
    if not as_map.is_single_valued():
        raise fail(name, "wrong coefficient: the loop around the statement runs more "
                   "than one iteration for it", 1)
    new_map = r.map.project_out(_dt.out, alpha_out(n), 2)
    pairs = [(x, replace(x, beta=x.beta[:-1], map=new_map) if x is r else x) for x in sched]
    return rebuild(scop, pairs, depth_map=lambda d, old: None if old is r and d == n else d)


# --- context ---------------------------------------------------------------------------------------------

@directive("context", Ints("vector"))
def context(scop: Scop, vector) -> Scop:
    """Add an assumption on the parameters to the SCoP's context.

    Arguments: ``vector`` Clay's ``[e/i, p1…pn, c]`` (reference 5.18):
    ``0`` for an equality ``Σ p_k·P_k + c = 0`` or ``1`` for ``≥ 0``, one
    coefficient per parameter (in the SCoP's order), a constant; or, as in
    earlier clayx, ``[p1…pn, c]`` for ``≥ 0``.

        [N] -> { : }      context([1, 1, -10])      (N - 10 >= 0)
        ->  [N] -> { : N >= 10 }

    Checks: n + 2 values with a flag 0 or 1, or n + 1 ("the vector seems
    to be wrong"); the context stays non-empty.
    Legality: the schedule is unchanged; fewer parameter values can only
    remove dependences (checked after the step anyway).
    """
    name = "context"
    n = len(scop.params)
    equality = False
    if len(vector) == n + 2 and n + 2 >= 2:
        if vector[0] not in (0, 1):
            raise fail(name, f"{VECTOR_WRONG}: the first value is 0 (equality) or 1 "
                       f"(inequality), got {vector[0]}", 1)
        equality, vector = vector[0] == 0, vector[1:]
    elif len(vector) != n + 1 or len(vector) < 2:
        raise fail(name, f"{VECTOR_WRONG}: expected [0 or 1, {n} parameter coefficients, "
                   f"constant] ({n + 2} values), got {len(vector)}", 1)
    ctx = scop.context
    alloc = isl.Constraint.equality_alloc if equality else isl.Constraint.inequality_alloc
    c = alloc(isl.LocalSpace.from_space(ctx.get_space()))
    for p, v in zip(scop.params, vector):
        if v:
            c = c.set_coefficient_val(_dt.param, ctx.find_dim_by_name(_dt.param, p), v)
    c = c.set_constant_val(vector[-1])
    new = ctx.add_constraint(c).coalesce()
    if new.is_empty():
        raise fail(name, "the context becomes empty (contradictory assumptions)", 1)
    return replace(scop, context=new)


# --- queries -----------------------------------------------------------------------------------------------

ITERATOR_NOT_FOUND = "the iterator name was not found"
STATEMENT_NOT_FOUND = "the statement was not found"


@directive("get_beta_loop", Int("n"), kind="query", result="beta",
           aliases=("getbetaloop",))
def get_beta_loop(scop: Scop, n):
    """The β-prefix of loop number ``n`` (Clay's numbering, reference 3.7):
    the loops of the β-tree in pre-order, children in β order, ``0`` the
    root ``[]``, ``1`` the first outermost loop.  Statements are not
    counted.

        for i: { for j: { P; Q }; R }  T      get_beta_loop(2)  ->  [0, 0]

    Checks: ``0 <= n <`` the number of loops plus one, a SCoP with
    statements ("the iterator name was not found", Clay's message).
    """
    loops = [()] + scop.schedule.loops() if len(scop.schedule) else []
    if not 0 <= n < len(loops):
        raise fail("get_beta_loop", f"{ITERATOR_NOT_FOUND}: there are {len(loops)} loops "
                   "numbered from 0 (the root [])", 1)
    return list(loops[n])


@directive("get_beta_stmt", Int("n"), kind="query", result="beta",
           aliases=("getbetastmt",))
def get_beta_stmt(scop: Scop, n):
    """The n-th β-vector of the SCoP, counted from 0 in ascending order
    (Clay's numbering, reference 3.7: a statement split in several
    relations counts once per relation).

        for i: { for j: { P; Q }; R }  T      get_beta_stmt(1)  ->  [0, 0, 1]

    Checks: ``0 <= n <`` the number of β-vectors ("the statement was not
    found").
    """
    betas = scop.schedule.betas
    if not 0 <= n < len(betas):
        raise fail("get_beta_stmt", f"{STATEMENT_NOT_FOUND}: there are {len(betas)} "
                   "β-vectors, numbered from 0", 1)
    return list(betas[n])


@directive("get_beta_loop_by_name", String("name"), kind="query", result="beta",
           aliases=("getbetaloopbyname",))
def get_beta_loop_by_name(scop: Scop, name):
    """The loop of the original iterator ``name`` (Clay's, reference 3.7):
    in ascending β order, the first relation whose statement has an
    original iterator ``name``, at 0-based position k, gives its β-vector
    cut to length k + 1.

        for i: { for j: { P; Q }; R }  T      get_beta_loop_by_name("j")  ->  [0, 0]

    Checks: some statement has that iterator ("the iterator name was not
    found").
    """
    for r in scop.schedule:
        its = scop.statement(r.stmt).iterators
        if name in its:
            return list(r.beta[:its.index(name) + 1])
    raise fail("get_beta_loop_by_name", f"{ITERATOR_NOT_FOUND}: no statement has an "
               f"iterator {name!r}", 1)
