"""Post-processing of an automatic schedule, as Pluto does it.

On the relations :func:`.tree.from_tree` read from isl's schedule tree:

1. :func:`hoist`: a statement whose band member takes one value per
   iteration of the outer loops (a constant or a function of the outer
   members: a lower dimensional statement fused into a deeper band,
   ``S0[i, j] -> (i, j, 0)`` next to ``S1[i, j, k] -> (i, j, k)``, a scalar
   statement inside a time loop, ``S2[i] -> (i, i)`` next to
   ``S1[i, j] -> (j, i)``) leaves that loop when it runs before (or after)
   every other instance of the loop anyway: the execution order is unchanged (checked
   exactly with isl), the loop nest reads as written and needs no
   ``embed``.
2. :func:`tile`: every chain of loops that come from consecutive members of
   one permutable band, each the only child of the one before, is tiled
   (chains of at least two loops, in which every statement runs more than
   one iteration of each loop per outer iteration; one tile size for all): the tile loops
   ``floor(x / size)`` go outside the chain, in the same order (Clay's
   ``tile``).  With ``scale`` the tile loops step by ``size``
   (``size * floor(x / size)``, isl's ``tile_scale_tile_loops``).
3. A tiled chain none of whose members is coincident (a stencil after
   skewing) gets a wavefront: the first tile loop becomes the sum of the
   first two, so that the second one carries no dependence.
4. :func:`parallel_marks`: the outermost coincident loop on every path from
   the root is marked ``parallel`` (never a loop inside a parallel one);
   every mark is checked against the dependences
   (:func:`clayx.analysis.check_parallel`) and dropped if it does not hold.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Sequence

import islpy as isl

from ..model import Mark, Scop
from .tree import Member, TreeRelation, relations_schedule

__all__ = ["Loop", "hoist", "parallel_marks", "tile"]

_dt = isl.dim_type


def _renumber(rels: Sequence[TreeRelation]) -> None:
    """β values dense and 0-based again, same order (like Clay's
    normalization; values may be fractions while hoisting)."""
    def walk(group: list[TreeRelation], level: int) -> None:
        values = sorted({r.betas[level] for r in group})
        index = {v: k for k, v in enumerate(values)}
        by: dict = {}
        for r in group:
            r.betas = r.betas[:level] + (index[r.betas[level]],) + r.betas[level + 1:]
            by.setdefault(r.betas[level], []).append(r)
        for sub in by.values():
            deeper = [r for r in sub if len(r.betas) > level + 1]
            if deeper:
                walk(deeper, level + 1)
    walk(list(rels), 0)


def _space(scop: Scop, r: TreeRelation) -> isl.Space:
    return scop.statement(r.stmt).domain.get_space()


def _instances(scop: Scop, r: TreeRelation) -> isl.Set:
    d = scop.statement(r.stmt).domain.intersect_params(scop.context)
    return d if r.cons is None else d.intersect(r.cons)


def _dates(scop: Scop, r: TreeRelation, n_out: int) -> isl.Map:
    """The dates of ``r``'s instances, padded with zeros to ``n_out``."""
    m = r.map(_space(scop, r)).intersect_domain(_instances(scop, r))
    k = m.dim(_dt.out)
    m = m.add_dims(_dt.out, n_out - k)
    for pos in range(k, n_out):
        m = m.fix_val(_dt.out, pos, 0)
    return m


def _is_degenerate(scop: Scop, r: TreeRelation, k: int) -> bool:
    """True when α ``k`` of ``r`` takes one value per iteration of the
    loops outside it (a constant, or a function of the outer α): the loop
    at depth ``k`` runs one iteration for ``r``."""
    pa = r.alphas[k - 1]
    if not pa.involves_dims(_dt.in_, 0, pa.dim(_dt.in_)):
        return True
    m = None
    for a in r.alphas[:k]:
        x = isl.Map.from_pw_aff(a)
        m = x if m is None else m.flat_range_product(x)
    rng = m.intersect_domain(_instances(scop, r)).range()
    as_map = isl.Map.from_domain(rng).move_dims(_dt.out, 0, _dt.in_, k - 1, 1)
    return as_map.is_single_valued()


def _union(maps) -> isl.UnionMap | None:
    out = None
    for m in maps:
        u = m if isinstance(m, isl.UnionMap) else isl.UnionMap.from_map(m)
        out = u if out is None else out.union(u)
    return out


def _hoistable(scop: Scop, rels: list[TreeRelation], r: TreeRelation, k: int) -> str | None:
    """``"before"`` / ``"after"`` when ``r`` (whose α ``k`` is constant) can
    leave the loop of depth ``k`` around it, before or after it, without
    changing the order of any pair of instances; else None."""
    loop = r.betas[:k]
    others = [x for x in rels if x is not r and x.betas[:k] == loop and len(x.betas) > k]
    if not others:
        return "before"
    n_out = 2 * max(len(x.alphas) for x in [r, *others]) + 1
    dr = _dates(scop, r, n_out)
    dx = _union(_dates(scop, x, n_out) for x in others)
    pre = 2 * k - 1                     # β0, α1, …, β(k-1): the dates the pairs share

    def prefix(u: isl.UnionMap) -> isl.UnionMap:
        return _project(u, n_out, pre)

    same = prefix(dx).apply_range(prefix(isl.UnionMap.from_map(dr)).reverse())
    before = dx.lex_lt_union_map(isl.UnionMap.from_map(dr)).intersect(same)
    if before.is_empty():               # nothing of the loop runs before r
        return "before"
    after = dx.lex_gt_union_map(isl.UnionMap.from_map(dr)).intersect(same)
    if after.is_empty():
        return "after"
    return None


def _project(u: isl.UnionMap, n_out: int, keep: int) -> isl.UnionMap:
    out = None
    ml = u.get_map_list()
    for i in range(u.n_map()):
        m = ml.get_at(i).project_out(_dt.out, keep, n_out - keep)
        v = isl.UnionMap.from_map(m)
        out = v if out is None else out.union(v)
    return out


def _copy(rels: Sequence[TreeRelation]) -> list[TreeRelation]:
    return [replace(r, keys=list(r.keys), alphas=list(r.alphas), members=list(r.members))
            for r in rels]


def _hoist_once(scop: Scop, rels: list[TreeRelation]) -> bool:
    for r in rels:
        for k in range(len(r.alphas), 0, -1):
            if not _is_degenerate(scop, r, k):
                continue
            where = _hoistable(scop, rels, r, k)
            if where is None:
                continue
            siblings = [x.betas[k] for x in rels if x.betas[:k] == r.betas[:k]
                        and len(x.betas) > k]
            m = max(siblings) + 2
            b = Fraction(r.betas[k - 1])
            frac = Fraction(r.betas[k] + 1, 2 * m)
            b = b - Fraction(1, 2) + frac if where == "before" else b + frac
            r.betas = r.betas[:k - 1] + (b,) + r.betas[k + 1:]
            del r.alphas[k - 1]
            del r.members[k - 1]
            _renumber(rels)
            return True
    return False


def _fission_once(scop: Scop, rels: list[TreeRelation]) -> bool:
    """Cut one loop in two, the children of one part first, when at every
    iteration of the outer loops every instance of that part runs before
    every instance of the other (the loop only chained ranges that follow
    each other)."""
    loops = sorted({tuple(r.betas[:k]) for r in rels for k in range(1, len(r.betas))})
    for loop in loops:
        k = len(loop)
        kids = _children(None, rels, loop)
        if len(kids) < 2:
            continue
        n_out = 2 * k + 1               # up to β_k: ties on α_k go by position
        dates = {kid: _union(_truncated(scop, r, n_out) for r in rels
                             if tuple(r.betas[:k + 1]) == kid) for kid in kids}
        outer = {kid: _project(dates[kid], n_out, 2 * k - 1) for kid in kids}
        memo: dict[tuple, bool] = {}

        def runs_before(y, x) -> bool:
            """Does some instance of child ``y`` run before one of ``x`` in
            the same iteration of the outer loops?"""
            if (y, x) not in memo:
                same = outer[y].apply_range(outer[x].reverse())
                memo[(y, x)] = not dates[y].lex_lt_union_map(dates[x]).intersect(same).is_empty()
            return memo[(y, x)]

        for seed in kids:
            part = {seed}
            grown = True
            while grown:
                grown = False
                for y in kids:
                    if y not in part and any(runs_before(y, x) for x in part):
                        part.add(y)
                        grown = True
            if len(part) == len(kids):
                continue
            for r in rels:
                if tuple(r.betas[:k + 1]) in part:
                    r.betas = (r.betas[:k - 1] + (Fraction(r.betas[k - 1]) - Fraction(1, 2),)
                               + r.betas[k:])
            _renumber(rels)
            return True
    return False


def _truncated(scop: Scop, r: TreeRelation, n_out: int) -> isl.Map:
    """The first ``n_out`` dimensions of ``r``'s dates."""
    m = r.map(_space(scop, r)).intersect_domain(_instances(scop, r))
    return m.project_out(_dt.out, n_out, m.dim(_dt.out) - n_out)


def hoist(scop: Scop, rels: list[TreeRelation]) -> list[TreeRelation]:
    """Move relations out of the loops where their α takes one value per
    outer iteration, and cut loops that only chain ranges, as long as that
    leaves every instance pair in the same order (step 1 of the module
    docstring).  Returns new relations; β values dense."""
    rels = _copy(rels)
    while _hoist_once(scop, rels) or _fission_once(scop, rels):
        pass
    return rels


class Loop:
    """A loop of the Clay tree of ``rels`` (β prefix ``prefix``): its
    relations and the band member its α came from."""

    def __init__(self, prefix: tuple, rels: list[TreeRelation]):
        self.prefix = prefix
        self.rels = rels
        members = {r.members[len(prefix) - 1] for r in rels}
        self.member: Member | None = members.pop() if len(members) == 1 else None


def _loops(rels: Sequence[TreeRelation]) -> dict[tuple, Loop]:
    by: dict[tuple, list[TreeRelation]] = {}
    for r in rels:
        for k in range(1, len(r.betas)):
            by.setdefault(tuple(r.betas[:k]), []).append(r)
    return {p: Loop(p, rs) for p, rs in sorted(by.items())}


def _children(loops, rels, prefix: tuple) -> list[tuple]:
    kids = {tuple(r.betas[:len(prefix) + 1]) for r in rels
            if tuple(r.betas[:len(prefix)]) == prefix and len(r.betas) > len(prefix)}
    return sorted(kids)


def _floor(pa: isl.PwAff, size: int, scale: bool) -> isl.PwAff:
    ctx = pa.get_ctx()
    t = pa.scale_down_val(isl.Val.int_from_si(ctx, size)).floor()
    return t.scale_val(isl.Val.int_from_si(ctx, size)) if scale else t


def tile(scop: Scop, rels: list[TreeRelation], size: int, *, scale: bool = False,
         wavefront: bool = True) -> tuple[list[TreeRelation], list[tuple[tuple, int]]]:
    """Tile the permutable band chains of ``rels`` (step 2 and 3 of the
    module docstring) with tiles of ``size``.  Returns the new relations and,
    for each tiled chain, ``(prefix of its first tile loop, number of tile
    loops)``."""
    rels = [replace(r, keys=list(r.keys), alphas=list(r.alphas), members=list(r.members))
            for r in rels]
    if size <= 0:
        return rels, []
    loops = _loops(rels)
    chains: list[list[Loop]] = []
    in_chain: set[tuple] = set()
    for p, lp in loops.items():
        if p in in_chain or lp.member is None or not lp.member.permutable:
            continue
        chain = [lp]
        while True:
            kids = _children(loops, rels, chain[-1].prefix)
            if len(kids) != 1 or kids[0] not in loops:
                break
            nxt = loops[kids[0]]
            m, n = chain[-1].member, nxt.member
            if n is None or n.band != m.band or n.index != m.index + 1:
                break
            chain.append(nxt)
        for c in chain:
            in_chain.add(c.prefix)
        # a statement that runs one iteration of a chain loop per outer
        # iteration would get a tile of one point there: leave such chains
        k0 = len(chain[0].prefix) - 1
        if any(_is_degenerate(scop, r, k0 + j + 1) for r in chain[0].rels
               for j in range(len(chain))):
            continue
        if len(chain) >= 2:
            chains.append(chain)
    tiled = []
    # innermost chains first: the β prefixes of outer chains stay valid
    for chain in sorted(chains, key=lambda c: -len(c[0].prefix)):
        k = len(chain[0].prefix) - 1          # α depths k+1 … k+n
        n = len(chain)
        coincident = [c.member.coincident for c in chain]
        wave = wavefront and not any(coincident)
        for r in chain[0].rels:
            points = r.alphas[k:k + n]
            tiles = [_floor(pa, size, scale) for pa in points]
            if wave:
                tiles[0] = tiles[0].add(tiles[1])
            mem = [replace(c.member, coincident=(j == 1) if wave else c.member.coincident)
                   for j, c in enumerate(chain)]
            r.alphas[k:k] = tiles
            r.members[k:k] = mem
            r.betas = r.betas[:k + 1] + (0,) * n + r.betas[k + 1:]
            r.keys = list(r.keys)
        tiled.append((chain[0].prefix, n))
    return rels, tiled


def parallel_marks(scop: Scop, rels: Sequence[TreeRelation], deps) -> tuple[Mark, ...]:
    """``parallel`` marks on the outermost loop of every path that carries no
    dependence of ``deps`` (step 4 of the module docstring)."""
    from ..analysis import parallel_violations
    loops = _loops(rels)
    sched = relations_schedule(rels, scop)
    new_scop = replace(scop, schedule=sched)
    marks: list[Mark] = []

    def walk(prefix: tuple) -> None:
        for kid in _children(loops, rels, prefix):
            if kid not in loops:
                continue
            if not parallel_violations(new_scop, kid, len(kid), deps, limit=1):
                marks.append(Mark("parallel", kid))
                continue
            walk(kid)

    walk(())
    return tuple(marks)
