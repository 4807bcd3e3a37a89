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

With ``locality`` (the default of :func:`clayx.auto.schedule` for CPU
presets), code for a CPU, deterministically (nothing is timed; the tuner
is the measuring path):

- :func:`distribute`: a statement beside a deeper loop of the same band
  (2mm's ``tmp[i][j] = 0``) gets its own copy of the band's loops, so the
  deeper loop nest is one chain (checked exactly against the dependences);
- :func:`tile` orders each chain's loops (the point loops when tiled) for
  spatial locality: the innermost walks the arrays with stride 1 or not at
  all (:func:`stride_class`, seed 002's idea, as Pluto's and PPCG's
  post-pass); a chain of two loops is tiled only when an access still
  jumps in its innermost loop;
- :func:`parallel_marks` with ``min_work=2``: a parallel loop inside
  sequential loops is marked only over at least two-dimensional work per
  outer iteration, and more work dimensions than sequential loops around
  it (cholesky's, trisolv's, durbin's, doitgen's inner loops stay
  sequential: an ``omp parallel for`` there costs 10-100x);
- :func:`clayx.auto.schedule` keeps the loops as they are (parallel marks
  only) when the result walks the arrays worse (:func:`jumps`), or as well
  while adding only wavefront tiles or skews and no parallel work
  (:func:`parallel_work`).

Speed (issue 9): every order question of :func:`hoist` is asked pair by
pair and α by α on maps between the instances of two relations
(:class:`_Memo`), memoized across steps; β values compare in Python;
a step asks again only about the relations of the loop the last hoist
left (:func:`_hoist_once`).
:func:`stride_class` composes the dates once per relation and dimension
and applies an affine access's linear part to the steps' deltas.  Parallel
marks ask :func:`clayx.analysis.legality.is_parallel` (no witness).  The
results are those of the direct checks, pinned for the 31 examples
(``tests/test_auto_scheduler.py``, ``tests/test_auto_hoist.py``).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Sequence

import islpy as isl

from ..analysis.isl_util import pieces
from ..model import Mark, Relation, Scop
from .tree import (Member, TreeRelation, copy_relations, relation_map, relations_schedule,
                   stmt_info)

__all__ = ["Loop", "distribute", "hoist", "jumps", "parallel_marks", "parallel_work", "stride_class", "tile"]

_dt = isl.dim_type


def _renumber(rels: Sequence[TreeRelation]) -> None:
    """β values dense and 0-based again, same order (like Clay's
    normalization; values may be fractions while hoisting)."""
    def walk(group: list[TreeRelation], level: int) -> None:
        values = sorted({r.betas[level] for r in group})
        index = {v: k for k, v in enumerate(values)}
        by: dict = {}
        for r in group:
            old, new = r.betas[level], index[r.betas[level]]
            if type(old) is not int or old != new:
                r.betas = r.betas[:level] + (new,) + r.betas[level + 1:]
            by.setdefault(new, []).append(r)
        for sub in by.values():
            deeper = [r for r in sub if len(r.betas) > level + 1]
            if deeper:
                walk(deeper, level + 1)
    walk(list(rels), 0)


def _space(scop: Scop, r: TreeRelation) -> isl.Space:
    return stmt_info(scop, r.stmt).space


def _instances(scop: Scop, r: TreeRelation) -> isl.Set:
    d = stmt_info(scop, r.stmt).instances
    return d if r.cons is None else d.intersect(r.cons)


def _dates(scop: Scop, r: TreeRelation, n_out: int) -> isl.Map:
    """The dates of ``r``'s instances, padded with zeros to ``n_out``."""
    m = r.map(_space(scop, r)).intersect_domain(_instances(scop, r))
    k = m.dim(_dt.out)
    m = m.add_dims(_dt.out, n_out - k)
    for pos in range(k, n_out):
        m = m.fix_val(_dt.out, pos, 0)
    return m


def _is_degenerate(scop: Scop, r: TreeRelation, k: int, memo: "_Memo | None" = None) -> bool:
    """True when α ``k`` of ``r`` takes one value per iteration of the
    loops outside it (a constant, or a function of the outer α): the loop
    at depth ``k`` runs one iteration for ``r``.  No two instances of ``r``
    with the same α 1 … k-1 have different α ``k`` (:meth:`_Memo.less`)."""
    pa = r.alphas[k - 1]
    if not pa.involves_dims(_dt.in_, 0, pa.dim(_dt.in_)):
        return True
    return not (memo or _Memo(scop)).less(r, r, k)


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


class _Memo:
    """Answers of the isl checks of one :func:`hoist` call, keyed by what
    they depend on: the statements, their constraints and α functions (by
    identity, the objects kept alive here) and the order of their β values
    (β values renumbered in order give the same answer: a hoist or a
    fission renumbers the β of many relations but changes the dates of only
    a few).

    Every order question between two relations ``x`` and ``r`` is asked
    α by α on the pairs of their instances (:meth:`pairs`, :meth:`less`):
    the β values are known numbers and compare in Python, so isl never
    sees the dates themselves (a map to ``2n+1`` dimensions and its
    ``lex_lt_map``, a union of ``2n+1`` pieces, cost 3-5x more)."""

    def __init__(self, scop: Scop) -> None:
        self.scop = scop
        self.answers: dict = {}
        self._alive: dict[tuple, tuple] = {}
        self._states: dict[tuple[int, int | None], tuple] = {}
        #: ``(id(relation), depth)`` known not hoistable, to the relation
        #: (kept alive: an identity is never reused) (:func:`_hoist_once`)
        self.stays: dict[tuple[int, int], TreeRelation] = {}

    def state(self, r: TreeRelation, n_alphas: int | None = None) -> tuple:
        """What ``r``'s dates are made of besides its β values (its first
        ``n_alphas`` α; default: all), by identity: the objects are kept
        alive as long as the memo, so an identity is never reused.  Kept
        per relation until :meth:`changed`."""
        hit = self._states.get((id(r), n_alphas))
        if hit is not None and hit[0] is r:
            return hit[1]
        alphas = tuple(r.alphas if n_alphas is None else r.alphas[:n_alphas])
        key = (r.stmt, id(r.cons), tuple(map(id, alphas)))
        if key not in self._alive:
            self._alive[key] = (r.cons, alphas)
        self._states[(id(r), n_alphas)] = (r, key)
        return key

    def forget(self, rels: Sequence[TreeRelation], loop: tuple) -> None:
        """The relations of ``rels`` in ``loop`` (a β prefix) are about to
        leave it or to be cut into two loops: forget which of them stay at
        its depth and deeper (:attr:`stays`)."""
        k = len(loop)
        for x in rels:
            if tuple(x.betas[:k]) == loop:
                for d in range(k, len(x.alphas) + 1):
                    self.stays.pop((id(x), d), None)

    def changed(self) -> None:
        """The α of some relation changed: forget the states of
        :meth:`state`."""
        self._states.clear()

    def get(self, key: tuple, compute):
        """The memoized ``compute()`` for ``key``."""
        if key not in self.answers:
            self.answers[key] = compute()
        return self.answers[key]

    def _alpha(self, r: TreeRelation, d: int) -> tuple[isl.Map, isl.Map]:
        """α ``d`` of ``r`` as a map ``S[i] -> [α]`` and its reverse, 0
        past its last α (the dates are padded with 0): on ``r``'s instances
        (in the context, ``cons`` included) for ``d`` = 1, on all of
        ``S`` for deeper ``d``, where the pairs it meets
        (:meth:`pairs` at ``d - 1``) are instances already (intersecting
        the instances' constraints twice cost 2x).  (``eq_map`` and
        ``lt_map`` of the ``PwAff`` s cost 7-9x more than ``apply_range``
        and ``lex_lt_map`` of these.)"""
        pa = r.alphas[d - 1] if d <= len(r.alphas) else None
        key = ("alpha", self.state(r, 0) if d == 1 else r.stmt, id(pa))
        if pa is not None:
            self._alive[("alpha", id(pa))] = pa

        def compute():
            m = isl.Map.from_pw_aff(pa if pa is not None else isl.PwAff.zero_on_domain(
                isl.LocalSpace.from_space(_space(self.scop, r))))
            if d == 1:
                m = m.intersect_domain(_instances(self.scop, r))
            return m, m.reverse()
        return self.get(key, compute)

    def pairs(self, x: TreeRelation, r: TreeRelation, d: int) -> isl.Map:
        """The pairs ``x-instance -> r-instance`` whose α 1 … ``d`` are
        equal (``d`` ≥ 1; instances in the context, ``cons`` included)."""
        def compute() -> isl.Map:
            eq = self._alpha(x, d)[0].apply_range(self._alpha(r, d)[1])
            return eq if d == 1 else self.pairs(x, r, d - 1).intersect(eq)
        return self.get(("pairs", d, self.state(x, d), self.state(r, d)), compute)

    def meet(self, x: TreeRelation, r: TreeRelation, d: int) -> bool:
        """Some instance of ``x`` and one of ``r`` have equal α 1 … ``d``."""
        return self.get(("meet", d, self.state(x, d), self.state(r, d)),
                        lambda: not self.pairs(x, r, d).is_empty())

    def less(self, x: TreeRelation, r: TreeRelation, d: int) -> bool:
        """Some instance of ``x`` and one of ``r`` have equal α 1 … ``d-1``
        and α ``d`` of ``x``'s smaller."""
        def compute() -> bool:
            cx, cr = self._constant(x, d), self._constant(r, d)
            if cx is not None and cr is not None:      # two numbers
                return cx < cr and (d == 1 or self.meet(x, r, d - 1))
            lt = self._alpha(x, d)[0].lex_lt_map(self._alpha(r, d)[0])
            return not (lt if d == 1 else self.pairs(x, r, d - 1).intersect(lt)).is_empty()
        return self.get(("less", d, self.state(x, d), self.state(r, d)), compute)

    def _constant(self, r: TreeRelation, d: int) -> int | None:
        """α ``d`` of ``r`` when it is one integer on every instance (no
        parameter either; 0 past its last α), else None."""
        if d > len(r.alphas):
            return 0
        pa = r.alphas[d - 1]

        def compute() -> int | None:
            if pa.n_piece() != 1 or pa.involves_dims(_dt.in_, 0, pa.dim(_dt.in_)) or \
                    pa.involves_dims(_dt.param, 0, pa.dim(_dt.param)):
                return None
            dom, aff = pa.get_pieces()[0]
            if not dom.plain_is_universe() or aff.dim(_dt.div):
                return None
            return aff.get_constant_val().to_python()
        self._alive[("alpha", id(pa))] = pa
        return self.get(("constant", id(pa)), compute)

    def before(self, x: TreeRelation, xb: tuple, r: TreeRelation, rb: tuple, k: int) -> bool:
        """Some instance of ``x`` runs before one of ``r`` in the same
        iteration of the loops outside depth ``k`` (the two in that loop,
        with the β tails ``xb`` and ``rb`` from β ``k`` on): the dates
        compared position by position from α ``k``, as ``lex_lt_map``
        does."""
        for d in range(k, max(len(x.alphas), len(r.alphas)) + 1):
            if self.less(x, r, d):
                return True
            bx = xb[d - k] if d - k < len(xb) else 0
            br = rb[d - k] if d - k < len(rb) else 0
            if bx > br:             # a tie on α d runs r first: no need to look for one
                return False
            if not self.meet(x, r, d):
                return False
            if bx < br:
                return True
        return False


def _ranks(a: tuple, b: tuple) -> tuple[tuple, tuple] | None:
    """The β tails ``a`` and ``b`` renumbered dense and 0-based between
    themselves, level by level (the same order); None when one is a strict
    prefix of the other (then the padding zeros of the dates meet β values
    and the actual values matter)."""
    n = min(len(a), len(b))
    i = next((j for j in range(n) if a[j] != b[j]), n)
    if i == n:
        return None if len(a) != len(b) else ((0,) * n, (0,) * n)
    lo = int(b[i] < a[i])
    return ((0,) * i + (lo,) + (0,) * (len(a) - i - 1),
            (0,) * i + (1 - lo,) + (0,) * (len(b) - i - 1))


def _hoistable_memo(memo: _Memo, scop: Scop, rels: list[TreeRelation], r: TreeRelation,
                    k: int) -> str | None:
    """:func:`_hoistable`, memoized in ``memo`` pair by pair: whether some
    instance of a relation ``x`` of the loop runs before (after) one of
    ``r`` in the same iteration of the outer loops depends on ``r`` and
    ``x`` alone."""
    loop = r.betas[:k]
    others = [x for x in rels if x is not r and x.betas[:k] == loop and len(x.betas) > k]
    if not others:
        return "before"
    pairs = []
    for x in others:
        ranks = _ranks(r.betas[k:], x.betas[k:])
        if ranks is None:
            return _hoistable(scop, rels, r, k)
        pairs.append((x, ranks))

    def order(x: TreeRelation, ranks: tuple[tuple, tuple], later: bool) -> bool:
        key = ("order", later, k, memo.state(r), memo.state(x), *ranks)
        return memo.get(key, lambda: _runs_around(memo, scop, r, x, k, ranks, later))
    if not any(order(x, ranks, False) for x, ranks in pairs):
        return "before"
    if not any(order(x, ranks, True) for x, ranks in pairs):
        return "after"
    return None


def _runs_around(memo: _Memo, scop: Scop, r: TreeRelation, x: TreeRelation, k: int,
                 ranks: tuple[tuple, tuple], later: bool) -> bool:
    """Does some instance of ``x`` run before (``later``: after) one of
    ``r`` in the same iteration of the loops outside depth ``k`` (both in
    the loop ``r.betas[:k]``, β tails renumbered to ``ranks``)?"""
    rk, xk = ranks
    return memo.before(r, rk, x, xk, k) if later else memo.before(x, xk, r, rk, k)


def _hoist_once(scop: Scop, rels: list[TreeRelation], memo: _Memo | None = None) -> bool:
    """Hoist the first relation (in the order of ``rels``, deepest loop
    first) that can leave a loop (:func:`hoist`); False when none can.

    The ``(relation, depth)`` found not hoistable are kept in
    ``memo.stays`` and not asked again: a hoist out of the loop ``L`` at
    depth ``k`` (or a fission of ``L``, :func:`_fission_once`) keeps the
    order of every instance pair and the α 1 … k-1 of every relation, so
    it can change the answer only for the relations of ``L`` at depths
    ``k`` and deeper (``L`` lost some of them; a hoisted one lost its α
    ``k``): :meth:`_Memo.forget`."""
    memo = memo if memo is not None else _Memo(scop)
    stays = memo.stays
    for r in rels:
        for k in range(len(r.alphas), 0, -1):
            if stays.get((id(r), k)) is r:
                continue
            if not memo.get(("degenerate", k, memo.state(r, k)),
                            lambda: _is_degenerate(scop, r, k, memo)):
                stays[(id(r), k)] = r
                continue
            where = _hoistable_memo(memo, scop, rels, r, k)
            if where is None:
                stays[(id(r), k)] = r
                continue
            memo.forget(rels, tuple(r.betas[:k]))
            siblings = [x.betas[k] for x in rels if x.betas[:k] == r.betas[:k]
                        and len(x.betas) > k]
            m = max(siblings) + 2
            b = Fraction(r.betas[k - 1])
            frac = Fraction(r.betas[k] + 1, 2 * m)
            b = b - Fraction(1, 2) + frac if where == "before" else b + frac
            r.betas = r.betas[:k - 1] + (b,) + r.betas[k + 1:]
            del r.alphas[k - 1]
            del r.members[k - 1]
            memo.changed()
            _renumber(rels)
            return True
    return False


def _fission_once(scop: Scop, rels: list[TreeRelation], memo: _Memo | None = None) -> bool:
    """Cut one loop in two, the children of one part first, when at every
    iteration of the outer loops every instance of that part runs before
    every instance of the other (the loop only chained ranges that follow
    each other)."""
    memo = memo if memo is not None else _Memo(scop)
    loops = sorted({tuple(r.betas[:k]) for r in rels for k in range(1, len(r.betas))})
    for loop in loops:
        k = len(loop)
        kids = _children(None, rels, loop)
        if len(kids) < 2:
            continue
        under = {kid: [r for r in rels if tuple(r.betas[:k + 1]) == kid] for kid in kids}

        def runs_before(y, x) -> bool:
            return _runs_before(memo, scop, under[y], under[x], k, y < x)

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
            memo.forget(rels, loop)
            for r in rels:
                if tuple(r.betas[:k + 1]) in part:
                    r.betas = (r.betas[:k - 1] + (Fraction(r.betas[k - 1]) - Fraction(1, 2),)
                               + r.betas[k:])
            _renumber(rels)
            return True
    return False


def _runs_before(memo: _Memo, scop: Scop, ys: list[TreeRelation], xs: list[TreeRelation],
                 k: int, y_first: bool) -> bool:
    """Does some instance of ``ys`` (the relations of a child of a loop at
    depth ``k``) run before one of ``xs`` (those of another child; the one
    of ``ys`` first when ``y_first``) in the same iteration of the outer
    loops?  Pair by pair: the dates up to β_k are made of α_1 … α_k, and of
    β_k only its order."""
    return any(memo.get(("runs before", k, memo.state(ry, k), memo.state(rx, k), y_first),
                        lambda ry=ry, rx=rx: _chained_before(memo, scop, ry, rx, k, y_first))
               for ry in ys for rx in xs)


def _chained_before(memo: _Memo, scop: Scop, ry: TreeRelation, rx: TreeRelation, k: int,
                    y_first: bool) -> bool:
    """Does some instance of ``ry`` run before one of ``rx`` in the same
    iteration of the loops outside depth ``k``, the two in different
    children of the loop at depth ``k`` (that of ``ry`` first when
    ``y_first``)?  Dates up to β_k: ties on α_k go by position."""
    return memo.less(ry, rx, k) or (y_first and memo.meet(ry, rx, k))


def hoist(scop: Scop, rels: list[TreeRelation]) -> list[TreeRelation]:
    """Move relations out of the loops where their α takes one value per
    outer iteration, and cut loops that only chain ranges, as long as that
    leaves every instance pair in the same order (step 1 of the module
    docstring).  Returns new relations; β values dense."""
    rels = copy_relations(rels)
    global _last_memo
    memo = _last_memo = _Memo(scop)
    while _hoist_once(scop, rels, memo) or _fission_once(scop, rels, memo):
        pass
    return rels


#: The :class:`_Memo` of the last :func:`hoist`: the passes after it
#: (:func:`_chains`) ask the same questions of the same α (answers are keyed
#: by content within one SCoP: sharing them is always right; the next hoist
#: starts a new memo).
_last_memo: _Memo | None = None


def _memo(scop: Scop) -> _Memo:
    """The last :func:`hoist`'s memo when it was for ``scop``, else a new one."""
    memo = _last_memo
    return memo if memo is not None and memo.scop is scop else _Memo(scop)


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


def _chains(scop: Scop, rels: list[TreeRelation]) -> list[list[Loop]]:
    """The permutable band chains of ``rels`` worth tiling or reordering:
    loops from consecutive members of one permutable band, each the only
    child of the one before, at least two, in which every statement runs
    more than one iteration of each loop per outer iteration."""
    loops = _loops(rels)
    memo = _memo(scop)
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
        if any(_is_degenerate(scop, r, k0 + j + 1, memo) for r in chain[0].rels
               for j in range(len(chain))):
            continue
        if len(chain) >= 2:
            chains.append(chain)
    return chains


def distribute(scop: Scop, rels: list[TreeRelation], deps) -> list[TreeRelation]:
    """Distribute a band chain whose last loop holds, beside statements, a
    loop of the next member of the same band (2mm's ``tmp[i][j] = 0`` next
    to the ``k`` loop of the product): each child of the last loop gets
    its own copy of the chain, when that breaks no dependence (checked
    exactly), so that the deeper loop nest becomes one longer chain to
    tile and order::

        for i, for j: { S0; for k: S1 }  ⇒  for i, for j: S0;
                                            for i, for j, for k: S1
    """
    from ..analysis import check
    from ..errors import LegalityError
    rels = copy_relations(rels)
    done: set = set()
    while True:
        loops = _loops(rels)
        for chain in _chains(scop, rels):
            last = chain[-1]
            kids = _children(loops, rels, last.prefix)
            m = last.member
            if len(kids) < 2 or last.prefix in done or not any(
                    kid in loops and loops[kid].member is not None
                    and loops[kid].member.band == m.band
                    and loops[kid].member.index == m.index + 1 for kid in kids):
                continue
            done.add(last.prefix)
            k = len(chain[0].prefix) - 1          # β level of the chain's first loop
            lvl = len(last.prefix)                # β level of the last loop's children
            trial = copy_relations(rels)
            for r in trial:
                if tuple(r.betas[:lvl]) == last.prefix:
                    c = r.betas[lvl]
                    r.betas = (r.betas[:k] + (Fraction(r.betas[k]) + Fraction(c, len(kids) + 1),)
                               + r.betas[k + 1:])
            _renumber(trial)
            try:
                check(replace(scop, schedule=relations_schedule(trial, scop)), deps)
            except LegalityError:
                continue
            rels = trial
            break
        else:
            return rels


def stride_class(scop: Scop, rel, access, dim: int) -> int | None:
    """How the array element of ``access`` moves when schedule dimension
    ``dim`` of relation ``rel`` (a :class:`~clayx.model.Relation`: ``stmt``
    and ``map``) advances by one, the other dimensions fixed: 0 not at all,
    1 by at most one element of the last subscript (stride 1), 2 otherwise
    (a jump); None when the loop never advances with the access defined."""
    return _stride_classes(scop, rel, [access], dim)[0]


def _steps(scop: Scop, rel, dim: int) -> isl.Map:
    """The instance pairs of ``rel`` one step apart at schedule dimension
    ``dim`` (dates equal elsewhere): ``S[i] -> S[i']``."""
    sched = rel.map.intersect_domain(stmt_info(scop, rel.stmt).instances)
    return sched.apply_range(_shift(sched.get_space().range(), dim)).apply_range(
        sched.reverse())


_SHIFTS: dict[tuple[str, int], isl.Map] = {}


def _shift(space: isl.Space, dim: int) -> isl.Map:
    """Dates -> the same dates with ``dim`` one further (built, not parsed:
    parsing was half of :func:`stride_class`'s time; kept per space)."""
    key = (str(space), dim)
    hit = _SHIFTS.get(key)
    if hit is None or not hit.get_ctx() == space.get_ctx():
        same = isl.MultiAff.identity_on_domain_space(space)
        step = same.get_at(dim).set_constant_val(isl.Val.one(same.get_ctx()))
        if len(_SHIFTS) > 1024:
            _SHIFTS.clear()
        hit = _SHIFTS[key] = isl.Map.from_multi_aff(same.set_at(dim, step))
    return hit


#: The linear part of affine accesses (:func:`_linear`), by access relation,
#: with the statement domain and context it was computed on (kept alive
#: here, so an identity is never reused); a few SCoPs' worth.
_LINEAR: dict[int, tuple] = {}


def _linear(scop: Scop, st, access) -> isl.Map | None:
    """``{ S[d] -> A[A·d] }``: the linear part of ``access`` (element
    ``A·i + b(params)``), when it is an affine function of the instances
    of ``st``, defined on all of them (in the context) and with no integer
    division; else None."""
    rel = access.relation
    hit = _LINEAR.get(id(rel))
    if hit is not None and hit[0] is rel and hit[1] is st.domain and hit[2] is scop.context:
        return hit[3]
    out = None
    inst = st.domain.intersect_params(scop.context)
    acc = rel.intersect_domain(inst)
    if acc.is_single_valued() and inst.is_subset(acc.domain()):
        parts = pieces(isl.PwMultiAff.from_map(acc))
        if len(parts) == 1:
            ma = parts[0][1]
            zero = isl.Val.zero(ma.get_ctx())
            for k in range(ma.dim(_dt.out)):
                aff = ma.get_at(k)
                if aff.dim(_dt.div):
                    break
                aff = aff.set_constant_val(zero)
                for p in range(aff.dim(_dt.param)):
                    aff = aff.set_coefficient_val(_dt.param, p, zero)
                ma = ma.set_at(k, aff)
            else:
                out = isl.Map.from_multi_aff(ma)
    if len(_LINEAR) > 4096:
        _LINEAR.clear()
    _LINEAR[id(rel)] = (rel, st.domain, scop.context, out)
    return out


def _stride_classes(scop: Scop, rel, accesses, dim: int) -> list[int | None]:
    """:func:`stride_class` of each of ``accesses`` (of ``rel``'s
    statement).  The instance steps are computed once; for an affine
    access the element steps are its linear part applied to the instance
    steps' deltas (``A·i' - A·i = A·(i' - i)``), else the access is
    composed with the steps."""
    st = stmt_info(scop, rel.stmt).statement
    steps = _steps(scop, rel, dim)
    out: list[int | None] = []
    inst_deltas = None
    for access in accesses:
        lin = _linear(scop, st, access)
        if lin is not None:
            if steps.is_empty():
                out.append(None)
                continue
            if inst_deltas is None:
                inst_deltas = steps.deltas()
            out.append(_delta_class(inst_deltas.apply(lin)))
            continue
        acc = access.relation.intersect_domain(st.domain)
        pairs = acc.reverse().apply_range(steps).apply_range(acc)  # element -> next element
        out.append(None if pairs.is_empty() else _delta_class(pairs.deltas()))
    return out


def _delta_class(deltas: isl.Set) -> int:
    """0 when every element step in ``deltas`` (not empty) is zero, 1 when
    it is at most one element of the last subscript, else 2."""
    m = deltas.dim(_dt.set)
    if m == 0:
        return 0
    fixed = [deltas.plain_get_val_if_fixed(_dt.set, k) for k in range(m)]
    if not any(v.is_nan() for v in fixed):          # one step (affine accesses)
        vals = [v.to_python() for v in fixed]
        if not any(vals):
            return 0
        return 1 if not any(vals[:-1]) and abs(vals[-1]) <= 1 else 2
    zero = isl.Set.universe(deltas.get_space())
    for k in range(m):
        zero = zero.fix_val(_dt.set, k, 0)
    if deltas.is_subset(zero):
        return 0
    near = isl.Set.universe(deltas.get_space())
    for k in range(m - 1):
        near = near.fix_val(_dt.set, k, 0)
    near = near.lower_bound_val(_dt.set, m - 1, -1).upper_bound_val(_dt.set, m - 1, 1)
    return 1 if deltas.is_subset(near) else 2


def stride_counts(scop: Scop, rels, depths) -> list[tuple[int, int]]:
    """For each α depth of ``depths`` taken as the innermost loop: how many
    accesses of the statements of ``rels`` (:class:`~clayx.model.Relation`)
    jump under it (stride other than 0 or 1) and how many are stride-1
    (:func:`stride_class`)."""
    out = []
    for depth in depths:
        jumps = ones = 0
        for rel in rels:
            for c in _stride_classes(scop, rel, stmt_info(scop, rel.stmt).statement.accesses,
                                     2 * depth - 1):
                jumps += c == 2
                ones += c == 1
        out.append((jumps, ones))
    return out


def _innermost(scop: Scop, rels: Sequence[TreeRelation], k: int, n: int) -> tuple[int, int]:
    """The member (0-based among the ``n`` loops at α depths ``k+1 … k+n``
    of the relations ``rels``) to put innermost for spatial locality, and
    the number of accesses that still jump (stride other than 0 or 1) under
    it: the fewest jumps, then the most stride-1 accesses, each access
    counted once; isl's innermost member stays unless another has fewer
    jumps.  Only the relations
    whose innermost loop is the last of the chain count (all of them when
    none is)."""
    inner = [r for r in rels if len(r.alphas) == k + n] or list(rels)
    counts = stride_counts(scop, [Relation(r.stmt, tuple(r.betas), relation_map(scop, r))
                                  for r in inner], range(k + 1, k + n + 1))
    best, key = n - 1, None
    for j, (jumps, ones) in enumerate(counts):
        score = (jumps, -ones, 0 if j == n - 1 else 1)
        if j == n - 1:
            isl_jumps = jumps
        if key is None or score < key:
            best, key = j, score
    if key[0] == isl_jumps:             # no fewer jumps: isl's order stays
        return n - 1, isl_jumps
    return best, key[0]


def tile(scop: Scop, rels: list[TreeRelation], size: int, *, scale: bool = False,
         wavefront: bool = True, locality: bool = False, waves: list | None = None
         ) -> tuple[list[TreeRelation], list[tuple[tuple, int]]]:
    """Tile the permutable band chains of ``rels`` (step 2 and 3 of the
    module docstring) with tiles of ``size``.  Returns the new relations and,
    for each tiled chain, ``(prefix of its first tile loop, number of tile
    loops)``; the prefixes of the chains that got a wavefront are appended
    to ``waves`` when given.

    With ``locality`` (step 2b): the loops of each chain (the point loops
    when tiled, the tile loops keep isl's order) are ordered so that the
    innermost one walks the arrays with stride 1 or not at all
    (:func:`_innermost`), and a chain of two loops is tiled only when some
    access still jumps in the innermost loop (two loops with stride-1
    access have no reuse that tiling would bring closer)::

        for i, for j, for k: C[i][j] += A[i][k] * B[k][j]
          ⇒  for ti, tj, tk: for i, for k, for j: …   (j innermost)
        for j, for i: y[j] += A[i][j] * t[i]
          ⇒  for i, for j: …                           (untiled)
    """
    rels = copy_relations(rels)
    if size <= 0 and not locality:
        return rels, []
    chains = _chains(scop, rels)
    tiled = []
    # innermost chains first: the β prefixes of outer chains stay valid
    for chain in sorted(chains, key=lambda c: -len(c[0].prefix)):
        k = len(chain[0].prefix) - 1          # α depths k+1 … k+n
        n = len(chain)
        perm = list(range(n))
        jumps = 1
        if locality:
            j, jumps = _innermost(scop, chain[0].rels, k, n)
            perm = [x for x in perm if x != j] + [j]
        if size <= 0 or (locality and n == 2 and not jumps):
            for r in chain[0].rels:
                r.alphas[k:k + n] = [r.alphas[k + x] for x in perm]
                r.members[k:k + n] = [r.members[k + x] for x in perm]
            continue
        coincident = [c.member.coincident for c in chain]
        wave = wavefront and not any(coincident)
        for r in chain[0].rels:
            points = r.alphas[k:k + n]
            tiles = [_floor(pa, size, scale) for pa in points]
            if wave:
                tiles[0] = tiles[0].add(tiles[1])
            mem = [replace(c.member, coincident=(j == 1) if wave else c.member.coincident)
                   for j, c in enumerate(chain)]
            r.alphas[k:k + n] = [points[x] for x in perm]
            r.members[k:k + n] = [r.members[k + x] for x in perm]
            r.alphas[k:k] = tiles
            r.members[k:k] = mem
            r.betas = r.betas[:k + 1] + (0,) * n + r.betas[k + 1:]
            r.keys = list(r.keys)
        tiled.append((chain[0].prefix, n))
        if wave and waves is not None:
            waves.append(chain[0].prefix)
    return rels, tiled


def jumps(scop: Scop, sched) -> tuple[int, ...]:
    """How badly the innermost loops of ``sched`` (a
    :class:`~clayx.model.ClaySchedule` of ``scop``'s statements) walk the
    arrays: per statement dimension, deepest first, the number of accesses
    whose element jumps (:func:`stride_class` 2) when the innermost loop
    around their statement advances.  Tuples compare as the cost they
    stand for: a deeper statement runs more instances, its jumps count
    first.  Accesses under a tiled loop count too: the tile keeps the
    lines in cache, but the code the compiler sees does not vectorize."""
    by: dict[int, int] = {}
    for rel in sched.relations:
        st = stmt_info(scop, rel.stmt).statement
        dim = st.domain.dim(_dt.set)
        by.setdefault(dim, 0)
        if not rel.depth:
            continue
        by[dim] += sum(c == 2 for c in _stride_classes(
            scop, rel, st.accesses, 2 * rel.depth - 1))
    return tuple(by[d] for d in sorted(by, reverse=True))


def parallel_work(scop: Scop, rels: Sequence[TreeRelation], marks) -> tuple[int, ...]:
    """Per statement dimension, deepest first, the number of statements of
    ``rels`` that run under a loop with one of the ``marks`` (tuples
    compare as :func:`jumps`, more is better)."""
    loops = {tuple(m.loop) for m in marks if m.kind == "parallel"}
    by: dict[int, int] = {}
    for r in rels:
        dim = _space(scop, r).dim(_dt.set)
        by[dim] = by.get(dim, 0) + any(tuple(r.betas[:k]) in loops
                                       for k in range(1, len(r.betas)))
    return tuple(by[d] for d in sorted(by, reverse=True))


def _fiber_dim(scop: Scop, r: TreeRelation, d: int) -> int:
    """The dimension of the instances of ``r`` that one iteration of its
    first ``d`` loops runs (the work of a loop at depth ``d + 1`` per
    iteration of the loops around it)."""
    space = _space(scop, r)
    n = space.dim(_dt.set)
    if d == 0:
        return n
    m = relation_map(scop, r).intersect_domain(_instances(scop, r))
    m = m.project_out(_dt.out, 2 * d, m.dim(_dt.out) - 2 * d)
    same = m.apply_range(m.reverse())
    hull = same.deltas().affine_hull()
    eqs = sum(1 for c in hull.get_constraints() if c.is_equality())
    return n - eqs


def parallel_marks(scop: Scop, rels: Sequence[TreeRelation], deps, *,
                   min_work: int = 0) -> tuple[Mark, ...]:
    """``parallel`` marks on the outermost loop of every path that carries no
    dependence of ``deps`` (step 4 of the module docstring).

    ``min_work``: a parallel loop inside ``s`` sequential loops is marked
    only when one iteration of those loops runs a set of instances under it
    of dimension ``min_work`` and more than ``s`` (a parallel region per
    outer iteration must have the work to pay for starting it, and there
    are more work dimensions than dimensions of regions started:
    cholesky's inner ``j`` loop under ``k`` and ``i`` and doitgen's ``p``
    loop under ``r`` and ``q`` are left sequential; a time loop around a
    2-D stencil sweep keeps its parallel sweep); the loops inside it stay
    sequential too."""
    from ..analysis.legality import is_parallel
    loops = _loops(rels)
    sched = relations_schedule(rels, scop)
    new_scop = replace(scop, schedule=sched)
    marks: list[Mark] = []

    def walk(prefix: tuple) -> None:
        for kid in _children(loops, rels, prefix):
            if kid not in loops:
                continue
            if is_parallel(new_scop, kid, len(kid), deps):
                if len(kid) > 1 and min_work and max(
                        _fiber_dim(scop, r, len(kid) - 1)
                        for r in loops[kid].rels) < max(min_work, len(kid)):
                    continue
                marks.append(Mark("parallel", kid))
                continue
            walk(kid)

    walk(())
    return tuple(marks)
