"""Steps 2 and 3 of the recovery (:mod:`.recover`), on the *core* target
that :mod:`.tiling` leaves (one affine function of the iterators per α
dimension): index-set splitting, then β matching and unimodular recovery
level by level (:class:`Core`).

2. **Index-set splitting**: a target statement scheduled by several parts
   is split the same way first (``iss``, recursively along the constraints
   that separate the parts), in place, so that the order does not change:
   on the innermost loop of the statement when it is alone there, otherwise
   inside a one-iteration loop (``embed``, ``iss``, ``split``,
   ``unembed``).  Statements of a loop split by the same inequality first
   are split by one ``iss`` of the loop.  The order of the splits, the
   loop split and whether that loop is then distributed between the halves
   (:meth:`Core._part_halves`) have two readings
   (:data:`~.model.SECOND_READING`: the target's loops followed in the
   second).  Each part is then a relation of its own.  Parts with
   strides (Clay's ``unroll``: main part, copies, epilog) are found and
   unrolled right after the convex splits, then split further
   (:mod:`.unrolls`).
3. **β matching and unimodular recovery, level by level** (Algorithms 1
   and 2): for a loop where the current and the target schedules already
   agree (same relations, same outer α dimensions):

   a. *separate*: a child holding relations of several target children is
      sorted (``reorder`` inside it, bottom-up) and cut (``split``) so that
      each piece goes to one target child;
   b. *α*: in each child loop, the next α dimension of every relation is
      made the target's.  The target row is solved on the current rows
      (exact rational elimination); the pivot is the innermost current
      dimension it needs.  ``reverse`` if its coefficient is -1, ``skew`` by
      the other dimensions (all outer to the pivot), ``shift`` for the
      parametric constant, and adjacent ``interchange`` s to bring it out to
      its depth; a pivot coefficient other than ±1 is reached with
      ``reshape`` instead.  Relations that need the same steps get them
      once, on the largest loop that holds only them;
   c. *merge*: the children are put in target order (a stable ``reorder``)
      and the pieces of one target loop ``fuse`` d;
   d. recurse into each child loop.

   Given that the target is legal, the steps of a and c are legal (they
   only order pairs of instances the way the target does, within one
   iteration of the outer loops, which agree), and b is legal for a
   relation alone (the pivot choice keeps the remaining dimensions in an
   order compatible with the target's); the replay checks every step
   anyway.  Where the groups of b, changed one at a time, break a
   dependence in every order (and other pivots do not help), the last
   tries change the whole loop at once: one group's plan on the loop,
   the others aligned to it first (their inner dimensions permuted, or
   the plan's pivot reshaped; the shallower ones embedded first: a
   wavefront of a whole loop nest) and finished after; or the loop's
   children separated first (see :meth:`Core.set_alpha`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import islpy as isl

from ..analysis.legality import prefix_equal
from ..errors import ClayxError
from .algebra import (full_rank_path, independent_rows, iter_keys, reshape_plan, row_rank,
                      simulated, solve)
from .model import (ONE, SECOND_READING, Aff, Rel, Sched, WhiteboxError, densify_factor, it,
                    note_reading, on_alphas, to_map)
from .steps import Recorder, Step
from .unrolls import Unrolls

__all__ = ["Core", "MAX_ORDERS", "image_forms"]


#: How many orders of the α step groups of one loop are tried when the
#: first one breaks a dependence.
MAX_ORDERS = 24


def image_forms(r: Rel, inst, divs) -> list[tuple]:
    """The constraints of the dates ``r``'s α dimensions give the
    instances ``inst`` (an isl set of its statement), as forms ``(α
    coefficients, rest)`` of :func:`~.recover.alpha_form` (``rest`` of parameters
    and a constant).  An ``iss`` made after a tile is an inequality on the
    tile loops: on the iterators it reads as a floor, or as an inequality
    isl rewrote exactly without one (``floor(i / 4) + i ≤ m - 7`` as
    ``5i ≤ 4m - 25``), which is no form of the α dimensions; on the dates
    it is one of their constraints (syrk fuzz seed 76189)."""
    import islpy as isl

    from .model import isl_text, par
    if r.stdom is None or not r.alphas or inst.is_empty():
        return []
    its = [inst.get_dim_name(isl.dim_type.set, k) for k in range(inst.dim(isl.dim_type.set))]
    ps = [inst.get_dim_name(isl.dim_type.param, k) for k in range(inst.dim(isl.dim_type.param))]
    names = {it(k): n for k, n in enumerate(its)}
    names.update({par(q): q for q in ps})
    outs = ", ".join(isl_text(a, names, divs) for a in r.alphas)
    m = isl.Map(f"[{', '.join(ps)}] -> {{ {inst.get_tuple_name()}[{', '.join(its)}] -> "
                f"[{outs}] }}", context=inst.get_ctx()).align_params(inst.get_space())
    image = m.intersect_domain(inst).range().coalesce()
    out = []
    for bset in image.get_basic_sets():
        for c in bset.get_constraints():
            if any(not c.get_coefficient_val(isl.dim_type.div, k).is_zero()
                   for k in range(bset.dim(isl.dim_type.div))):
                continue
            coef = [int(c.get_coefficient_val(isl.dim_type.set, k).to_python())
                    for k in range(len(r.alphas))]
            rest = Aff.const(int(c.get_constant_val().to_python()))
            for k in range(bset.dim(isl.dim_type.param)):
                v = int(c.get_coefficient_val(isl.dim_type.param, k).to_python())
                rest = rest + Aff.var(par(bset.get_dim_name(isl.dim_type.param, k))).scale(v)
            signs = (1, -1) if c.is_equality() else (1,)
            for sg in signs:
                co = [sg * v for v in coef]
                while co and not co[-1]:
                    co.pop()
                if co:
                    out.append((tuple(co), rest.scale(sg)))
    return out


def _implied(cons, c: Aff) -> bool:
    """Does one of the constraints ``cons`` (``x ≥ 0``) imply ``c ≥ 0`` as
    written, whatever the domain: ``c`` is ``x`` (times a positive
    number) plus a constant ``≥ 0``?  (isl writes an empty part ``i ≤ 6
    and i ≤ -7`` as ``-i - 7 ≥ 0``: it lies in ``-i + 6 ≥ 0``.  One that
    isl reduced to ``-1 ≥ 0`` is on no side: :func:`_split_tree` splits it
    off by itself.)"""
    for x in cons:
        if x == c:
            return True
        k = next((x[key] for key in x.c if key != ONE), None)
        if k is None or set(x.c) - {ONE} != set(c.c) - {ONE}:
            continue
        f = Fraction(c[next(key for key in x.c if key != ONE)], k)
        if f > 0 and all(c[key] == f * x[key] for key in x.c if key != ONE) \
                and c[ONE] - f * x[ONE] >= 0:
            return True
    return False


def _shared_first(by_stmt: dict) -> "callable":
    """``rank(c)``: the sort key of a constraint ``c`` of the target's
    parts ``by_stmt`` (statement: its parts) that puts those that the
    parts of more statements have (as written, or negated) first.
    :func:`_split_tree` tries the candidate splits in that order, so
    statements split by the same inequality (an ``iss`` of a loop that
    holds them all, in the target) are split by it first, and
    :meth:`Core._shared_splits` does it once on the loop (jacobi-1d fuzz
    seed 63083: ``iss([0], {| | -1, 0 | 6})`` instead of an ``embed``,
    ``iss``, ``split`` and two ``unembed`` s per statement)."""
    count: dict = {}
    for parts in by_stmt.values():
        seen = {c for t in parts for c in t.cons}
        for c in seen | {-c - Aff.const(1) for c in seen}:
            count[c] = count.get(c, 0) + 1

    def rank(c: Aff) -> int:
        return -count.get(c, 0)
    return rank


def _shared_rows(parts) -> list:
    """The α rows that all the target parts ``parts`` of one statement
    have (those with instances, or all when none has), None where they
    differ: the rows an α step can give the statement before it is split
    (each part's own rows come after the split)."""
    full = [t for t in parts if not t.empty] or list(parts)
    n = min(len(t.alphas) for t in full)
    # (a part whose domain fixes iterators has them substituted in its rows:
    # the row of a part that fixes fewest, compared on each part's domain)
    rep = min(full, key=lambda t: len(t.elim))
    return [rep.alphas[d] if all(t.canon(rep.alphas[d]) == t.canon(t.alphas[d]) for t in full)
            else None for d in range(n)]


def _form_on(rows: list, c: Aff) -> tuple | None:
    """``c`` as an integral form ``(α coefficients, rest)`` on the rows
    ``rows`` (None rows unused), ``rest`` of parameters and a constant (as
    :func:`~.recover.alpha_form` writes it); None when there is none."""
    keys = sorted({k for a in rows if a is not None for k in a.keys("i")} | set(c.keys("i")),
                  key=str)
    if c.keys("d") or any(a is not None and a.keys("d") for a in rows):
        return None
    live = [a.part("i") if a is not None else Aff() for a in rows]
    basis = independent_rows(live, keys)
    x = solve([live[l - 1] for l in basis], c.part("i"), keys)
    if x is None or any(v.denominator != 1 for v in x):
        return None
    coef = [0] * len(rows)
    rest = c
    for l, v in zip(basis, x):
        coef[l - 1] = int(v)
        rest = rest - rows[l - 1].scale(int(v))
    if rest.keys("i"):
        return None
    while coef and not coef[-1]:
        coef.pop()
    return tuple(coef), rest


def _negated_form(form: tuple) -> tuple:
    """The form of ``-c - 1`` for the form ``(coefficients, rest)`` of ``c``."""
    coef, rest = form
    return tuple(-v for v in coef), -rest - Aff.const(1)


def _alpha_first(by_stmt: dict, form_of) -> "callable":
    """``rank(stmt, c)``: as :func:`_shared_first`, the constraints by how
    many statements have them, here read as forms on the statements'
    shared α rows (``form_of(stmt, c)``, :func:`_form_on`): a split the
    target made on a loop after an α step of one statement (a reverse, a
    skew) reads differently on the iterators of each, alike on their α
    rows (:meth:`Core._shared_splits`)."""
    count: dict = {}
    for stmt, parts in by_stmt.items():
        seen = set()
        for t in parts:
            for c in t.cons:
                f = form_of(stmt, c)
                if f is not None and f[0]:
                    seen |= {f, _negated_form(f)}
        for f in seen:
            count[f] = count.get(f, 0) + 1

    def rank(stmt: str, c: Aff) -> int:
        f = form_of(stmt, c)
        return -count.get(f, 0) if f is not None and f[0] else 0
    return rank


def _by_beta(pieces, betas: dict) -> "callable":
    """``follows(pos, neg)``: does a split of ``pieces`` into the tags
    ``pos`` and ``neg`` follow the target's loops (``betas``: tag → target
    β)?  It does when it keeps together the parts that stay together
    longest: every group of parts whose β-vectors agree one level below
    the shallowest level where two of them differ is on one side.  A part
    without a β (not in ``betas``) constrains nothing."""
    bs = {t: tuple(betas[t]) for t, _ in pieces if t in betas}

    def lcp(a, b):
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        return n
    tags = list(bs)
    if len(tags) < 2:
        return lambda pos, neg: True
    low = min(lcp(bs[a], bs[b]) for k, a in enumerate(tags) for b in tags[k + 1:])

    def follows(pos, neg) -> bool:
        groups = {bs[t][:low + 1] for t in pos if t in bs}
        return not groups & {bs[t][:low + 1] for t in neg if t in bs}
    return follows


def _leaves(tree) -> list[int]:
    """The tags at the leaves of a :func:`_split_tree` tree."""
    if isinstance(tree, int):
        return [tree]
    return _leaves(tree[1]) + _leaves(tree[2])


def _split_tree(pieces: list[tuple[int, list[Aff]]], subset=None, empty=None, rank=None,
                betas=None):
    """A binary tree ``(constraint, positive subtree, negative subtree)``
    whose leaves are the tags of the parts ``(tag, constraints)``: the
    index-set splits that separate them.  ``subset(cons, c)`` (when given)
    says whether the part with constraints ``cons`` lies in ``c ≥ 0``
    (exactly, with isl); otherwise the constraints are compared as written
    (``c`` and ``-c - 1``).  ``empty(cons)`` (when given) says whether a part
    has no instance: such a part that no constraint separates is split off
    by ``-1 >= 0``.  ``rank`` (when given): the sort key of the candidate
    splits (stable; otherwise they are tried in the order written).

    ``betas`` (tag → the part's target β, when given): in the
    :data:`~.model.SECOND_READING`, of the splits that separate the parts,
    the first that follows the target's loops (:func:`_by_beta`) is taken,
    else the first: the parts the target splits apart on an outer loop are
    split apart first, as the target's ``iss`` or ``peel`` of that loop
    did, and the parts of each half then by the splits of the inner loops
    (seidel-2d fuzz seed 26156: a ``peel`` of the i loop, then an ``iss``
    of the first half's j loop, recovered as those two steps, not as the j
    loop's split then the i loop's in one half: ``embed``, ``iss``,
    ``split``, two ``unembed`` s and two more ``split`` s).  The first
    reading takes the first split that separates the parts, and notes
    (:func:`~.model.note_reading`) where the second would not."""
    if len(pieces) == 1:
        return pieces[0][0]
    cands = []
    for _, cons in pieces:
        for c in cons:
            if c not in cands and not c.keys("d"):
                cands.append(c)
    if rank is not None:
        cands.sort(key=rank)
    follows = _by_beta(pieces, betas) if betas else None
    second = SECOND_READING.get()
    first = None
    for c in cands:
        neg = -c - Aff.const(1)
        if subset is None:
            pos_p = [(t, [x for x in cs if x != c]) for t, cs in pieces if c in cs]
            neg_p = [(t, [x for x in cs if x != neg]) for t, cs in pieces if neg in cs]
        else:
            pos_p = [(t, cs) for t, cs in pieces if subset(cs, c)]
            neg_p = [(t, cs) for t, cs in pieces if (t, cs) not in pos_p and subset(cs, neg)]
        if pos_p and neg_p and len(pos_p) + len(neg_p) == len(pieces):
            if follows is None or follows([t for t, _ in pos_p], [t for t, _ in neg_p]):
                if first is not None:
                    note_reading("split order")     # (the first reading takes ``first``)
                if first is None or second:
                    first = (c, pos_p, neg_p)
                break
            if first is None:
                first = (c, pos_p, neg_p)
    if first is not None:
        c, pos_p, neg_p = first
        return (c, _split_tree(pos_p, subset, empty, rank, betas),
                _split_tree(neg_p, subset, empty, rank, betas))
    hollow = next((x for x in pieces if empty is not None and empty(x[1])), None)
    if hollow is not None:
        # a part with no instance that no written constraint separates (isl
        # reduced its constraints to false): split it off by ``-1 >= 0``
        rest = [x for x in pieces if x is not hollow]
        return (Aff.const(-1), hollow[0], _split_tree(rest, subset, empty, rank, betas))
    raise WhiteboxError("the parts of a target statement are not separated by "
                        "index-set splits (complementary inequalities)")


class Core:
    """Steps 2 and 3 (the module docstring) on the recorder's schedule."""

    def __init__(self, rec: Recorder, T: Sched, oracle=None, careful: bool = False):
        self.rec = rec
        self.C = rec.sched
        #: the schedule the recorded steps start from (:meth:`written`)
        self.start = rec.sched.copy()
        #: the steps :meth:`written` replayed last, and the recorder they
        #: reached (the next call goes on from there)
        self._written: tuple[list[Step], Recorder | None] = ([], None)
        self.T = T
        self.oracle = oracle
        #: check the state after every α step group (not only when
        #: relations of one loop change separately)
        self.careful = careful
        self._next_tag = 10 ** 6
        self.unrolls = Unrolls(self)
        #: inside the second try of :meth:`process` (no nested retries)
        self._retrying = False
        #: inside :meth:`separate_first` (no nested separations)
        self._separating = False
        #: the last tries of :meth:`set_alpha` allowed (:meth:`_rescued`, the
        #: last choice of :meth:`perfect_nest`): once the plain and the
        #: other-pivot tries of :meth:`process` failed
        self._rescue = False

    # -- 2 ------------------------------------------------------------------------
    def split_parts(self) -> None:
        """Give every current relation the tag of its target part, splitting
        statements into parts where the target has several.  When the parts
        without instances that :class:`Unrolls` keeps as spare copies of a
        second unroll lead nowhere, they are split off like any part."""
        snap = self.snapshot()
        try:
            self._split_parts()
        except WhiteboxError:
            if not self.unrolls.spare_taken:
                raise
            self.restore(snap)
            self.unrolls = Unrolls(self, spares=False)
            self._split_parts()

    def _split_parts(self) -> None:
        by_stmt: dict[str, list[Rel]] = {}
        trees: dict[int, object] = {}       # tag of a relation to split: its tree
        for r in self.T.rels:
            by_stmt.setdefault(r.stmt, []).append(r)
        by_stmt = {stmt: self.unrolls.parts(stmt, tparts) for stmt, tparts in by_stmt.items()}
        written = _shared_first(by_stmt)
        forms = self._alpha_forms(by_stmt)
        on_alphas = _alpha_first(by_stmt, forms) if forms is not None else None
        for stmt, tparts in by_stmt.items():
            cur = [r for r in self.C.rels if r.stmt == stmt]
            if len(cur) == len(tparts) and all(
                    any(sorted(map(repr, c.cons)) == sorted(map(repr, t.cons)) for t in tparts)
                    for c in cur):
                for c in cur:
                    t = next(t for t in tparts
                             if sorted(map(repr, c.cons)) == sorted(map(repr, t.cons)))
                    c.tag = t.tag
                continue
            if len(cur) != 1 or cur[0].cons:
                raise WhiteboxError(
                    f"{stmt} is index-set split differently in the two schedules; "
                    "whitebox from a schedule where it is one relation")
            pieces = [(t.tag, list(t.cons)) for t in tparts]
            rank = written if on_alphas is None else \
                (lambda c, stmt=stmt: min(written(c), on_alphas(stmt, c)))
            betas = {t.tag: t.beta for t in tparts}
            if self.oracle is None:
                tree = _split_tree(pieces, rank=rank, betas=betas)
            else:
                tree = _split_tree(pieces, self._subset(stmt),
                                   lambda cons, stmt=stmt: self.oracle.part(stmt, cons).is_empty(),
                                   rank, betas)
            cur[0].tag = self._fresh()
            trees[cur[0].tag] = tree
        self._shared_splits(trees, forms)
        for tag, tree in trees.items():
            self._apply_split(tag, tree)
        if trees and self.careful and not self.oracle(self.C):
            # a split by an inner loop's iterator made on the original
            # reorders what a later step (a skew) orders legally in the
            # target (gemm fuzz seed 90040): split later (_late_splits)
            raise WhiteboxError("cannot split the statements of the target early: the "
                                "index-set splits break a dependence before the steps "
                                "that follow them")
        self.unrolls.apply()
        missing = [r.stmt for r in self.C.rels if r.tag < 0]
        if missing:
            raise WhiteboxError(f"the target does not schedule {', '.join(sorted(set(missing)))}")

    def _shared_splits(self, trees: dict, forms=None) -> None:
        """Split the relations of ``trees`` whose first split is the same
        inequality together, by one ``iss`` on the outermost loop that holds
        only such relations (at least two); ``trees`` then holds the
        remaining splits of each part.  A first split by the complement
        (``-c - 1 ≥ 0``) is the same split, its halves swapped (bicg fuzz
        seed 25114: the statement whose first part isl wrote without the
        inequality has only the complement to split by).

        ``forms`` (:meth:`_alpha_forms`, when given): where no inequality
        is shared as written, one shared as a form on the statements' α
        rows (the target split their loop after an α step of one of them:
        a reverse, a skew; the forms differ on the iterators) is made by
        the α steps that give the statements those rows first, then one
        ``iss`` on the α dimensions (:meth:`_alpha_shared`; atax fuzz
        seed 59171, syrk 40249)."""
        tried: set = set()
        while True:
            found = self._written_shared(trees)
            if found is None and forms is not None:
                found = self._alpha_shared(trees, forms, tried)
            if found is None:
                return
            loop, c, form, tag = found
            under = [x.tag for x in self.C.under(loop)]
            fresh = {t: self._fresh() for t in under}
            names = self._names(self.C.by_tag(tag))
            if form is None:
                self.rec.do("iss", loop, c, new_tag=lambda x: fresh[x.tag],
                            comment=f"split the loop at {c.text(names)} >= 0")
            else:
                self.rec.do("iss", loop, c, form, new_tag=lambda x: fresh[x.tag],
                            comment="split the loop on its dimensions")
                for t in under:
                    # each relation's inequality on its own α rows, as Clay's
                    x = self.C.by_tag(t)
                    x.cons[-1] = on_alphas(x, form)
                    self.C.by_tag(fresh[t]).cons[-1] = -x.cons[-1] - Aff.const(1)
            for t in under:
                first, pos, neg = trees.pop(t)
                if not self._same_side(t, first, c, form):
                    pos, neg = neg, pos         # (split by the complement: the halves swap)
                self._refresh(t, fresh[t])
                trees[t], trees[fresh[t]] = pos, neg
            self._part_halves(loop, under, [fresh[t] for t in under], trees)

    def _part_halves(self, loop: tuple, pos: list, neg: list, trees: dict) -> None:
        """After the ``iss`` of ``loop`` by :meth:`_shared_splits` (the
        relations ``pos`` and their halves ``neg``, in that order in the
        loop): where a relation of a half is split further but no loop
        holds only it and those split the same way (:meth:`_unshared`),
        and the target puts the two halves in loops of their own at that
        depth, the loop is distributed between them first (the ``iss``
        becomes a ``peel``), when that is legal: each half's next shared
        split is then one ``iss`` of its own loop, not an ``embed``,
        ``iss``, ``split`` and two ``unembed`` s per statement (bicg fuzz
        seed 48174: three peels, 22 -> 2 steps).  In the
        :data:`~.model.SECOND_READING` only (noted in the first): the
        simplification finds shorter ways from the undistributed loop
        elsewhere (trmm fuzz seed 19135: 3 steps, 17 distributed)."""
        if self.oracle is None or not self._unshared(pos + neg, trees):
            return
        betas = {r.tag: r.beta for r in self.T.rels}
        n = len(loop)
        P = {betas[x][:n] for t in pos for x in _leaves(trees[t]) if x in betas}
        N = {betas[x][:n] for t in neg for x in _leaves(trees[t]) if x in betas}
        if not P or not N or P & N:
            return
        kids = self.C.children(loop)
        side = [{x.tag in pos for x in self.C.under(k)} for k in kids]
        n = sum(1 for sd in side if sd == {True})
        if not 0 < n < len(kids) or any(sd != {True} for sd in side[:n]) \
                or any(sd != {False} for sd in side[n:]):
            return
        note_reading("part halves")
        if not SECOND_READING.get():
            return
        snap = self.snapshot()
        self.rec.do("split", kids[n - 1], len(loop), comment="separate the two halves")
        if not self.oracle(self.C):
            self.restore(snap)

    def _same_side(self, tag: int, first: Aff, c: Aff, form) -> bool:
        """Does the relation ``tag``'s first split ``first`` keep the half
        that the loop's split by ``c`` (on the α dimensions, ``form``)
        keeps?"""
        if form is None:
            return first == c
        x = self.C.by_tag(tag)
        return x.canon(x.cons[-1]) == x.canon(first)

    def _unshared(self, tags: list, trees: dict) -> bool:
        """Is one of the relations ``tags`` split further (its tree in
        ``trees``) with no loop around it that holds only relations split
        first the same way (its own ``iss`` then needs a one-iteration
        loop)?"""
        for t in tags:
            tree = trees[t]
            if isinstance(tree, int):
                continue
            c = tree[0]
            group = {u for u in tags if not isinstance(trees[u], int)
                     and trees[u][0] in (c, -c - Aff.const(1))}
            beta = self.C.by_tag(t).beta
            if not any({x.tag for x in self.C.under(beta[:m])} <= group
                       for m in range(1, len(beta))):
                return True
        return False

    def _written_shared(self, trees: dict):
        """``(loop, c, None, tag)``: the first split ``c`` of the relation
        ``tag``, the same as written (or its complement) for every relation
        of ``loop`` (at least two); None when there is none."""
        for tag, tree in trees.items():
            if isinstance(tree, int):
                continue
            c = tree[0]
            same = {t for t, x in trees.items()
                    if not isinstance(x, int) and x[0] in (c, -c - Aff.const(1))}
            loop = self._loop_of(tag, same, 1, self._split_depth(same, trees))
            if loop is not None and not c.keys("d"):
                return loop, self._oriented(loop, c, trees), None, tag
        # none: one whose loop holds other relations too, that the target
        # puts in other loops: those split off first (bicg fuzz seed 24044)
        for tag, tree in trees.items():
            if isinstance(tree, int) or tree[0].keys("d"):
                continue
            c = tree[0]
            same = {t for t, x in trees.items()
                    if not isinstance(x, int) and x[0] in (c, -c - Aff.const(1))}
            if self._separated(tag, same):
                loop = self._loop_of(tag, same, 1)
                return loop, self._oriented(loop, c, trees), None, tag
        return None

    def _oriented(self, loop: tuple, c: Aff, trees: dict, agrees=None) -> Aff:
        """``c`` or its complement, the split of ``loop`` that keeps the
        halves of most of its relations in the target's order (the ``iss``
        keeps the half where it holds first, moves the other after).
        ``agrees(x, first)``: is the relation ``x``'s first split ``first``
        the same as ``c`` (default: as written), not its complement?"""
        where = {r.tag: r.beta for r in self.T.rels}     # (an unroll's parts: not there)
        votes = 0
        for x in self.C.under(loop):
            first, pos, neg = trees[x.tag]
            at = [min((where[t] for t in _leaves(half) if t in where), default=()) for half in
                  (pos, neg)]
            same = first == c if agrees is None else agrees(x, first)
            votes += 1 if same == (at[0] <= at[1]) else -1
        return c if votes >= 0 else -c - Aff.const(1)

    def _separated(self, tag: int, same: set) -> bool:
        """Split (``split``) the outermost loop around the relation ``tag``
        that holds others of ``same`` so that they are alone in a loop,
        when the target has the statements of ``same`` and the others
        there in other loops, and the splits are legal (the oracle);
        whether it was done."""
        C = self.C
        if self.oracle is None:
            return False
        beta = C.by_tag(tag).beta
        for m in range(1, len(beta)):
            under = C.under(beta[:m])
            if sum(x.tag in same for x in under) < 2:
                return False
            if all(x.tag in same for x in under):
                return False
            ins = {x.stmt for x in under if x.tag in same}
            outs = {x.stmt for x in under if x.tag not in same}
            if ins & outs or {t.beta[:m] for t in self.T.rels if t.stmt in ins} & \
                    {t.beta[:m] for t in self.T.rels if t.stmt in outs}:
                continue                    # (together in the target: deeper)
            cuts = [x.beta for x, y in zip(under, under[1:]) if (x.tag in same) != (y.tag in same)]
            snap = self.snapshot()
            for b in reversed(cuts):        # (the last first: the others keep their β)
                self.rec.do("split", b, m, comment="distribute the loop")
            if self._loop_of(tag, same, 1) is not None and self.oracle(C):
                return True
            self.restore(snap)
            return False
        return False

    def _loop_of(self, tag: int, same: set, depth: int, at: int | None = None):
        """The outermost loop around the relation ``tag``, at least
        ``depth`` deep, that holds only relations of ``same`` (at least
        two); in the :data:`~.model.SECOND_READING`, the one ``at`` deep
        where it is such a loop; None when there is none."""
        beta = self.C.by_tag(tag).beta
        fits = [beta[:m] for m in range(max(depth, 1), len(beta))
                if len(self.C.under(beta[:m])) > 1
                and {x.tag for x in self.C.under(beta[:m])} <= same]
        if not fits:
            return None
        deep = next((b for b in fits if len(b) == at), fits[0])
        if deep != fits[0]:
            note_reading("split depth")
        return deep if SECOND_READING.get() else fits[0]

    def _split_depth(self, same, trees: dict) -> int | None:
        """The depth of the loop whose ``iss`` made the first split of the
        relations ``same`` in the target (their trees ``trees``): the
        length of the prefix all their parts' target β-vectors share (its
        halves side by side in that loop); None when that is not known
        (a part not in the target: an unroll's)."""
        where = {r.tag: r.beta for r in self.T.rels}
        bs = [where.get(x) for t in same for x in _leaves(trees[t])]
        if len(bs) < 2 or None in bs:
            return None
        n = 0
        while all(len(b) > n and b[n] == bs[0][n] for b in bs):
            n += 1
        return n

    def _alpha_shared(self, trees: dict, forms, tried: set):
        """``(loop, c, form, tag)``: a first split ``c`` of the relation
        ``tag`` whose form on its statement's shared α rows (``forms(stmt,
        c)``) is the form of every relation's first split in ``loop`` (or
        its complement), once the α steps that give the relations of
        ``loop`` those rows are made (recorded here; checked with the
        oracle); None when there is none (the tries in ``tried``)."""
        C = self.C
        for tag, tree in trees.items():
            if isinstance(tree, int) or tree[0].keys("d"):
                continue
            c = tree[0]
            form = forms(C.by_tag(tag).stmt, c)
            if form is None or not form[0] or (tag, form) in tried:
                continue
            tried.add((tag, form))
            both = (form, _negated_form(form))
            same = {t for t, x in trees.items() if not isinstance(x, int)
                    and forms(C.by_tag(t).stmt, x[0]) in both}
            loop = self._loop_of(tag, same, len(form[0]))
            if loop is None or any(x.dom is not None for x in C.under(loop)):
                continue
            snap = self.snapshot()
            if self._alpha_before(loop, form, forms.model) and all(
                    x.canon(on_alphas(x, form)) in
                    (x.canon(trees[x.tag][0]), x.canon(-trees[x.tag][0] - Aff.const(1)))
                    for x in C.under(loop)) and self.oracle(C):
                c = on_alphas(C.by_tag(tag), form)
                if self._oriented(loop, c, trees,
                                  lambda x, first: forms(x.stmt, first) == form) != c:
                    form = _negated_form(form)
                    c = on_alphas(C.by_tag(tag), form)
                return loop, c, form, tag
            self.restore(snap)
        return None

    def _alpha_before(self, loop: tuple, form: tuple, model: dict) -> bool:
        """Record the α steps that give every relation under ``loop`` the
        rows of its statement's target parts (those of ``model[stmt]``, a
        part with the shared rows) that ``form`` reads, outermost first:
        each row from its own dimension where it can (a skew by the
        others, a reverse, a shift: the dimensions inside keep theirs),
        otherwise as :meth:`plan` brings it; the relations with the same
        steps together, on the largest loops that hold only them.  False
        when a row cannot be made so."""
        C = self.C
        for d in [d for d, v in enumerate(form[0], 1) if v]:
            groups: dict = {}
            for x in C.under(loop):
                y = x.copy()
                y.tag = model[x.stmt]
                try:
                    sol = self._solution(y, d)
                    if sol is None:
                        continue
                    pivot = d if all(v.denominator == 1 for v in sol[2]) \
                        and abs(sol[2][d - 1]) == 1 else None
                    plan = self.plan(y, d, pivot)
                except WhiteboxError:
                    return False
                if plan:
                    groups.setdefault(plan, []).append(x.tag)
            for plan, tags in groups.items():
                for prefix in self.covers(loop, tags):
                    try:
                        self.apply_plan(prefix, plan, is_loop=C.is_loop(prefix))
                    except (ClayxError, ValueError, KeyError, IndexError):
                        return False
        return True

    #: whether :meth:`_shared_splits` reads splits on the α rows too (and
    #: makes the α steps they need first): tests of what comes after
    #: turn it off to get the splits as written
    shared_alpha = True

    def _alpha_forms(self, by_stmt: dict):
        """``forms(stmt, c)``: the form of ``c`` on the α rows that all the
        target parts of ``stmt`` share (:func:`_shared_rows`,
        :func:`_form_on`; memoized), with ``forms.model``: per statement,
        the tag of a part with those rows.  None (the splits as written
        only) in careful mode (its retry recovers without them) or without
        an oracle (the α steps before the split are checked)."""
        if self.oracle is None or self.careful or not self.shared_alpha:
            return None
        rows, model = {}, {}
        for stmt, parts in by_stmt.items():
            if any(getattr(t, "dom", None) is not None for t in parts):
                continue                    # (the parts of an unroll)
            rows[stmt] = _shared_rows(parts)
            full = [t for t in parts if not t.empty] or list(parts)
            model[stmt] = min(full, key=lambda t: len(t.elim)).tag
        memo: dict = {}

        def forms(stmt: str, c: Aff):
            if stmt not in rows:
                return None
            if (stmt, c) not in memo:
                memo[stmt, c] = _form_on(rows[stmt], c)
            return memo[stmt, c]
        forms.model = model
        return forms

    def _refresh(self, *tags: int) -> None:
        """After an ``iss``: the equalities and emptiness of the new parts."""
        if self.oracle is None:
            return
        for x in (self.C.by_tag(t) for t in tags):
            if x.dom is not None:          # a part of an unroll
                self.unrolls.refresh(x)
                continue
            x.empty = self.oracle.part(x.stmt, x.cons).is_empty()
            x.elim = self.oracle.elim(x.stmt, x.cons)
            x.alphas = [x.canon(a) for a in x.alphas]

    def _subset(self, stmt: str):
        """``subset(cons, c)`` for :func:`_split_tree`: does the part
        ``cons`` of ``stmt`` lie in ``c ≥ 0`` (exactly, with isl)?"""
        def subset(cons, c):
            part = self.oracle.part(stmt, cons)
            if part.is_empty():
                # an empty part (Clay keeps them): by its constraints as written
                return _implied(cons, c)
            return part.is_subset(self.oracle.part(stmt, list(cons) + [c]))
        return subset

    def split_into(self, tag: int, parts, subset, empty) -> None:
        """Split the current relation ``tag`` into ``parts`` (``(tag,
        constraints)``) by index-set splits (see :func:`_split_tree`)."""
        self._apply_split(tag, _split_tree(parts, subset, empty))

    def _fresh(self) -> int:
        self._next_tag += 1
        return self._next_tag

    def _apply_split(self, tag: int, tree) -> None:
        r = self.C.by_tag(tag)
        if isinstance(tree, int):
            r.tag = tree
            return
        c, pos, neg = tree
        if c.keys("d"):
            raise WhiteboxError(f"the index-set split {c.text()} >= 0 of {r.stmt} involves "
                                "a strip-mined dimension")
        new_tag = self._fresh()
        loop = r.beta[:-1]
        # (the innermost loop; in the second reading, the loop as deep as
        # the target's halves share, when it holds only this relation: the
        # target's iss of that loop)
        at = self._split_depth({tag: tree}, {tag: tree})
        if at is not None and 0 < at < len(loop) and len(self.C.under(r.beta[:at])) == 1:
            note_reading("split depth")
            if SECOND_READING.get():
                loop = r.beta[:at]
        desc = f"split {r.stmt} at {c.text(self._names(r))} >= 0"
        if loop and len(self.C.under(loop)) == 1:
            self.rec.do("iss", loop, c, new_tag=lambda x: new_tag, comment=desc)
        else:
            beta = r.beta
            self.rec.do("embed", beta, comment=f"a one-iteration loop around {r.stmt}")
            self.rec.do("iss", beta, c, new_tag=lambda x: new_tag, comment=desc)
            self.rec.do("split", beta + (0,), len(beta),
                        comment="separate the two parts")
            nxt = beta[:-1] + (beta[-1] + 1,)
            self.rec.do("unembed", beta + (0,), comment="remove the one-iteration loop")
            self.rec.do("unembed", nxt + (0,), comment="remove the one-iteration loop")
        self._refresh(tag, new_tag)
        self._apply_split(tag, pos)
        self._apply_split(new_tag, neg)

    def _names(self, r: Rel) -> dict:
        return self.rec.names.get(r.stmt, {}) if hasattr(self.rec, "names") else {}

    # -- 3 ------------------------------------------------------------------------
    def labels(self, rho: tuple) -> dict[int, int]:
        """Target child index (under ``rho``) of every relation tag under it."""
        out = {}
        n = len(rho)
        for idx, kid in enumerate(self.T.children(rho)):
            for r in self.T.under(kid):
                out[r.tag] = idx
        del n
        return out

    def process(self, rho: tuple = (), k: int = 0) -> None:
        """Make the subtree under ``rho`` (depth ``k``) the target's."""
        C = self.C
        label = self.labels(rho)
        # a. separate
        while True:
            mixed = [c for c in C.children(rho)
                     if len({label[r.tag] for r in C.under(c)}) > 1]
            if not mixed:
                break
            self.sortsplit(mixed[0], label)
        # a'. a relation that the target has as a statement here but that sits
        # in one-iteration loops of its own (embedded by a rescue) leaves them
        tgt_stmt = {self.T.under(kid)[0].tag for kid in self.T.children(rho)
                    if not self.T.is_loop(kid)}
        for c in list(C.children(rho)):
            under = C.under(c)
            if len(under) == 1 and under[0].tag in tgt_stmt:
                while len(C.by_tag(under[0].tag).beta) > k + 1:
                    self.rec.do("unembed", C.by_tag(under[0].tag).beta,
                                comment="remove a one-iteration loop")
        snap = self.snapshot()
        try:
            self._below(rho, k, label)
            return
        except WhiteboxError as e:
            if self._retrying or not str(e).startswith("cannot order the steps"):
                raise
            first = e
        # a choice of pivot legal at this depth that leaves no legal order
        # deeper (trmm's S1 at i + j brought out from j, then reversed
        # back): once, the other pivots first here; then, at the root once
        # every other try failed, all again with the last tries of
        # set_alpha allowed (:meth:`_rescued`: longer scripts)
        self.restore(snap)
        tries = ["alt"] if any(C.is_loop(c) and self.units(c, k + 1, 1)
                               for c in C.children(rho)) else []
        if not rho and not self._rescue:
            tries.append("rescue")
        for how in tries:
            self.restore(snap)
            try:
                if how == "alt":
                    self._retrying = True
                    try:
                        self._below(rho, k, label, alt=True)
                    finally:
                        self._retrying = False
                else:
                    self._rescue = True
                    try:
                        self._below(rho, k, label)
                    finally:
                        self._rescue = False
                return
            except WhiteboxError:
                continue
        raise first from None

    def _below(self, rho: tuple, k: int, label: dict, alt: bool = False) -> None:
        """Parts b-d of :meth:`process` (``alt``: see :meth:`set_alpha`)."""
        C = self.C
        # b. α
        for c in C.children(rho):
            if C.is_loop(c):
                self.set_alpha(c, k + 1, alt)
        # c. merge
        self.sort_children(rho, label, "put the loops and statements in the target order")
        while True:
            kids = C.children(rho)
            labs = [label[C.under(c)[0].tag] for c in kids]
            pair = next((i for i in range(len(kids) - 1) if labs[i] == labs[i + 1]), None)
            if pair is None:
                break
            self.rec.do("fuse", kids[pair], comment="fuse with the next loop")
        # d. recurse
        for c in C.children(rho):
            if C.is_loop(c):
                self.process(c, k + 1)

    def sort_children(self, node: tuple, label: dict[int, int], comment: str) -> list[int]:
        """Stable ``reorder`` of ``node``'s children by target label (each
        child single-label); returns the labels in the new order."""
        C = self.C
        kids = C.children(node)
        labs = [label[C.under(y)[0].tag] for y in kids]
        order = sorted(range(len(kids)), key=lambda i: (labs[i], i))
        if order != list(range(len(kids))):
            perm = [0] * len(kids)
            for new, old in enumerate(order):
                perm[old] = new
            self.rec.do("reorder", node, tuple(perm), comment=comment)
        return [labs[i] for i in order]

    def sortsplit(self, node: tuple, label: dict[int, int]) -> None:
        """Sort the subtree of ``node`` by target label and cut ``node`` into
        single-label loops (consecutive siblings)."""
        C = self.C
        while True:
            mixed = [y for y in C.children(node)
                     if len({label[r.tag] for r in C.under(y)}) > 1]
            if not mixed:
                break
            self.sortsplit(mixed[0], label)
        labs = self.sort_children(node, label, "order as the target")
        runs = []
        for lab in labs:
            if runs and runs[-1][0] == lab:
                runs[-1][1] += 1
            else:
                runs.append([lab, 1])
        cur = node
        for _, n in runs[:-1]:
            self.rec.do("split", cur + (n - 1,), len(node), comment="distribute the loop")
            cur = cur[:-1] + (cur[-1] + 1,)

    def _solution(self, r: Rel, d: int):
        """``(t, basis, x)``: the target's α ``d`` of ``r``, the current
        rows it is solved on and the coefficients (None when already equal
        or without instance)."""
        if r.empty or self.T.by_tag(r.tag).empty:
            return None             # no instance: any α gives the same dates
        t = self.T.by_tag(r.tag).alphas[d - 1]
        cur = r.alphas
        if cur[d - 1] == t:
            return None
        keys = iter_keys(r)
        basis = independent_rows([a.part("i") for a in cur], keys)
        xb = solve([cur[l - 1].part("i") for l in basis], t.part("i"), keys)
        if xb is None:
            raise WhiteboxError(
                f"the target's dimension {d} of {r.stmt} ({t.text()}) is not a combination "
                "of its iterators")
        x = [Fraction(0)] * len(cur)
        for l, v in zip(basis, xb):
            x[l - 1] = v
        return t, basis, x

    def pivots(self, r: Rel, d: int) -> list[int]:
        """The other dimensions (from the innermost) that can be the pivot of
        :meth:`plan`: those with a coefficient ±1 in an integral solution."""
        sol = self._solution(r, d)
        if sol is None:
            return []
        _, basis, x = sol
        if any(v.denominator != 1 for v in x):
            return []
        first = self._default_pivot(basis, x, d)
        if first is None:
            # fixed by the outer dimensions: the other spare dimensions
            return self._spare(r, d, basis)[1:]
        return [l for l in reversed(basis) if l >= d and abs(x[l - 1]) == 1 and l != first]

    @staticmethod
    def _spare(r: Rel, d: int, basis: list[int]) -> list[int]:
        """The dimensions from ``d`` that can take a target dimension fixed
        by the outer ones: those no basis row needs (embedded ones), then
        those whose row the others can do without (``j`` beside ``i``
        where the domain makes ``j = i - 1``: the rank stays full)."""
        keys = iter_keys(r)
        rows = [a.part("i") for a in r.alphas]
        full = row_rank(rows, keys)
        n = len(rows)
        out = [l for l in range(d, n + 1) if l not in basis]
        return out + [l for l in range(d, n + 1) if l in basis
                      and row_rank(rows[:l - 1] + rows[l:], keys) == full]

    @staticmethod
    def _default_pivot(basis, x, d):
        j = max((l for l in basis if l >= d and x[l - 1] != 0), default=None)
        if j is not None and all(v.denominator == 1 for v in x) and abs(x[j - 1]) != 1:
            # the innermost needed dimension cannot be the pivot (its
            # coefficient is not ±1): the innermost one that can, if any
            j = max((l for l in basis if l >= d and abs(x[l - 1]) == 1), default=j)
        return j

    def plan(self, r: Rel, d: int, pivot: int | None = None) -> tuple:
        """The α steps (positions only) that make α ``d`` of ``r`` the
        target's (part 3b); ``pivot``: the current dimension that becomes
        it (one of :meth:`pivots`; default the innermost needed)."""
        sol = self._solution(r, d)
        if sol is None:
            return ()
        t, basis, x = sol
        cur = r.alphas
        n = len(cur)
        j = pivot if pivot is not None else self._default_pivot(basis, x, d)
        steps = []
        if j is None:
            # t is fixed by the outer dimensions: a one-iteration loop at this
            # depth; take a spare dimension (an embedded one, first)
            free = self._spare(r, d, basis)
            if not free:
                raise WhiteboxError(
                    f"the target's dimension {d} of {r.stmt} ({t.text()}) is fixed by its "
                    "outer dimensions, and the statement has no spare dimension for it")
            j = free[0]
            steps += reshape_plan(r, cur[j - 1], t, j, self.written(r), detour=True)
        elif all(v.denominator == 1 for v in x) and abs(x[j - 1]) == 1:
            if x[j - 1] == -1:
                steps.append(("reverse", j))
            for l in range(1, n + 1):
                if l != j and x[l - 1] != 0:
                    steps.append(("skew", j, l, -int(x[l - 1])))
            total = Aff()
            for l in range(1, n + 1):
                total = total + cur[l - 1].scale(x[l - 1])
            rem = (t - total).part("p", "1")
            if not rem.is_zero:
                steps.append(("shift", j, -rem))
        else:
            steps += reshape_plan(r, cur[j - 1], t, j, self.written(r), detour=True)
        for m in range(j, d, -1):
            steps.append(("interchange", m - 1, m))
        return tuple(steps)

    def written(self, r: Rel) -> list[Aff] | None:
        """The α dimensions of ``r`` (a current relation) as Clay writes
        them, when its domain fixes iterators (``r.elim``: its forms have
        them substituted, not Clay's): the recorded steps replayed from
        the start without the substitution.  None for another relation,
        or when the replay does not give ``r`` (a relation of a schedule
        the steps do not reach)."""
        if not r.elim:
            return None
        steps = self.rec.steps
        done, rec = self._written
        if rec is None or len(done) > len(steps) or steps[:len(done)] != done:
            done, rec = [], Recorder(self.start.copy())     # (another path: from the start)
        try:
            for st in steps[len(done):]:
                rec.do(st.name, *st.args, new_tag=lambda *_: -1)
        except (ClayxError, ValueError, KeyError, IndexError):
            self._written = ([], None)
            return None
        self._written = (list(steps), rec)
        x = next((y for y in rec.sched.rels if y.beta == r.beta and y.stmt == r.stmt), None)
        if x is None or x.depth != r.depth or [r.canon(a) for a in x.alphas] != r.alphas:
            return None
        return x.alphas

    def set_alpha(self, c: tuple, d: int, alt: bool = False) -> None:
        """Part 3b for the child loop ``c`` at depth ``d``.

        Relations that need the same steps get them together, on the
        largest loops that hold only them.  When that leaves relations of
        one loop transformed separately, or a loop interchanged over the
        cuts of its nest (or always, in careful mode), and an oracle is
        given, the state after each group is checked; an illegal one is
        undone and the groups are tried in other orders (at most
        :data:`MAX_ORDERS`), then with other pivots (:meth:`pivots`), then
        with the distributed loops fused on the way (:meth:`hoist_fusing`)
        or in one perfect nest (:meth:`perfect_nest`), and in the last
        tries of :meth:`process` through one plan on the whole loop or
        with the loop's children separated first (:meth:`_rescued`), one
        loop nest wrapped (:meth:`wrap_nest`), rotated (:meth:`rotate`),
        or skewed with its loops fused on the way (:meth:`fused_tail`).
        ``alt``: the other pivots first, every choice checked (see
        :meth:`process`)."""
        from itertools import islice, permutations
        C = self.C
        units = self.units(c, d)
        if not units:
            return
        # a loop interchanged over the cuts of its loop nest may run its
        # pieces in another order than the target (which fuses them)
        shared = any(C.is_loop(prefix) and len(C.children(prefix)) > 1
                     and any(st[0] == "interchange" for st in plan) for prefix, plan in units)
        # one group of relations changed while others of the loop are not
        # (lu's point loops: the update's k loop brought out of a j loop
        # that the division shares)
        partial = len(units) == 1 and units[0][0] != c and any(
            not x.empty for x in C.under(c) if x.tag not in
            {y.tag for y in C.under(units[0][0])})
        if self.oracle is None or not (len(units) > 1 or shared or partial or self.careful
                                       or alt):
            for prefix, plan in units:
                self.apply_plan(prefix, plan, is_loop=C.is_loop(prefix))
            return
        snap = self.snapshot()
        last = units[0]
        # (units, how many of the last keep their place): the others are
        # tried in every order (at most MAX_ORDERS)
        variants = [(units, 0)] + ([([(p, _shift_first(q)) for p, q in units], 0)]
                                   if self.careful else [])
        for k in range(1, 4):
            more = self.units(c, d, k)
            if more is None:
                break
            variants.insert(k - 1 if alt else len(variants), (more, 0))
        for more in (self._by_iterators(units), self._grouped(units)):
            if more is not None:
                variants.append((more, 0))
        # a shift common to all groups: in the order given (its position
        # is the one before the others' interchanges, after their reverses)
        more = self._common_shift(c, units)
        if more is not None:
            variants.append((more, len(more)))
        # the interchanges that end every group's plan, once on the loop, last
        more = self._common_tail(c, units)
        if more is not None:
            variants.append((more, 1))
        more = self._one_plan(c, d, units)
        if more is not None:
            variants.append((more, 0))
        for variant, kept in variants:
            n = len(variant) - kept
            orders = (order + tuple(range(n, len(variant)))
                      for order in islice(permutations(range(n)), MAX_ORDERS))
            for order in orders:
                ok = True
                for i in order:
                    prefix, plan = variant[i]
                    if not self._apply_checked(prefix, plan):
                        ok = False
                        last = (prefix, plan)
                        break
                if ok:
                    return
                self.restore(snap)
        if shared and len(units) == 1:
            if self.hoist_fusing(*units[0]):
                return
            self.restore(snap)
            if self._rescue and self._rescued(c, d, alt):
                return
            raise WhiteboxError(
                f"cannot order the steps that give the relations under {list(c)} "
                f"their target dimension {d} legally: the loops they interchange "
                "are distributed, and fusing them back breaks a dependence")
        if (len(units) > 1 or partial) and self.perfect_nest(c, d):
            return
        if self._rescue and (self._rescued(c, d, alt) or self.wrap_nest(c, d)
                             or self.rotate(c, d, units) or self.fused_tail(c, units)):
            return
        prefix, plan = last
        raise WhiteboxError(
            f"cannot order the steps that give the relations under {list(c)} their target "
            f"dimension {d} legally (the steps {[p[0] for p in plan]} on {list(prefix)} "
            "break a dependence in every order tried)")

    def _rescued(self, c: tuple, d: int, alt: bool) -> bool:
        """The last tries of :meth:`set_alpha` (each checked, changing
        nothing when it fails): one plan on the whole loop ``c``
        (:meth:`through_model`), then, once, ``c``'s children separated as
        the target's first (:meth:`separate_first`)."""
        return self.through_model(c, d) or self.separate_first(c, d, alt)

    def through_model(self, c: tuple, d: int) -> bool:
        """Give the relations of the loop ``c`` their target dimension ``d``
        through one *model* plan applied once to ``c``: a plan of one of the
        groups (:meth:`units`, any pivot).  First, where they can, the other
        relations are *aligned* (:meth:`_align`: their dimensions from ``d``
        permuted, or the model's pivot reshaped) so that the model gives
        them their target dimension too; then the model on ``c``; then
        what is left to each relation (its own plan from there), in any
        order (at most :data:`MAX_ORDERS`).  The alignment is tried, then
        none.  The original sequence often changed the whole loop at once
        where the groups' plans change its statements one at a time,
        through an illegal state whatever the order (lu's update
        interchanged inside its loop, then every statement's ``i`` and
        ``j`` at once; a ``grain`` of the loop, then one statement
        skewed).  Every group is checked; True when every state reached
        is legal (False: nothing changed)."""
        from itertools import islice, permutations
        C = self.C
        if self.oracle is None or not C.is_loop(c):
            return False
        models: list[tuple] = []
        for k in range(4):
            more = self.units(c, d, k)
            if more is None:
                break
            models += [q for _, q in more if q not in models]
        snap = self.snapshot()
        # the shortest first: one step of the whole loop, as a user writes it;
        # the models deeper than some relations of c, last, those relations
        # embedded first (:meth:`_deepened`)
        models = sorted(models, key=len)
        deep = [m for m in models if any(x.depth < _deepest(m) for x in C.under(c))]
        for model in [m for m in models if m not in deep] + deep:
            self.restore(snap)
            if model in deep and not self._deepened(c, _deepest(model)):
                continue
            try:
                pre = self._aligning(c, d, model)
            except WhiteboxError:
                continue
            start = self.snapshot()
            for groups in ([pre, []] if pre else [[]]):
                for order in islice(permutations(range(len(groups))), 6):
                    try:
                        if self._model_path(c, d, model, [groups[i] for i in order]):
                            return True
                    except WhiteboxError:
                        pass            # what is left has no plan (a rank lost)
                    self.restore(start)
        self.restore(snap)
        return False

    def _deepened(self, c: tuple, depth: int) -> bool:
        """Give every relation of the loop ``c`` at least ``depth``
        dimensions (one-iteration loops, ``embed``), so that a model plan of
        the deeper ones (:meth:`through_model`) applies to the whole loop:
        a wavefront of a loop nest (isl's Feautrier schedule of a Cholesky
        factorization, ``i + j + k`` for the update, ``i + 2j`` for the
        division, ``3i`` for the square root) skews the statements that
        are not as deep as the others by their own dimensions, which the
        alignment (:meth:`_align`) then gives the values that make the
        model's skew their target's (the division's new ``k`` made its
        ``j``).  Is the schedule legal after it (an ``embed`` keeps the
        order)?"""
        C = self.C
        for tag in [x.tag for x in C.under(c)]:
            while C.by_tag(tag).depth < depth:
                self.rec.do("embed", C.by_tag(tag).beta,
                            comment="a one-iteration loop, to change with the loop nest")
        return self.oracle(C)

    def _model_path(self, c: tuple, d: int, model: tuple, pre: list[tuple]) -> bool:
        """:meth:`through_model` for one model and alignment ``pre``."""
        from itertools import islice, permutations
        for prefix, plan in pre:
            if not self._apply_checked(prefix, plan):
                return False
        if not self._apply_checked(c, model):
            return False
        rest = self.units(c, d)
        if not rest:
            return True
        snap = self.snapshot()
        swapped = [(p, _one_swap(q)) for p, q in rest]
        for variant in [rest] + ([swapped] if swapped != rest else []):
            for order in islice(permutations(range(len(variant))), MAX_ORDERS):
                if all(self._apply_checked(*variant[i]) for i in order):
                    return True
                self.restore(snap)
        return False

    def _gives(self, x: Rel, d: int, plan: tuple, exact: bool = False) -> bool:
        """Does ``plan`` give ``x`` its target dimension ``d`` (on its
        instances; ``exact``: as written, without asking isl)?"""
        want = self.T.by_tag(x.tag).alphas[d - 1]
        got = x.canon(simulated(x, plan)[d - 1])
        return got == want or (not exact and self.oracle is not None
                               and self.oracle.equal(x, got, want, self.C.divs))

    def _aligning(self, c: tuple, d: int, model: tuple) -> list[tuple]:
        """``(prefix, plan)``: the alignments (:meth:`_align`) of the
        relations of ``c`` that ``model`` does not give their target
        dimension ``d``, those with the same one together on the largest
        loops that hold only them (relations with no alignment left out)."""
        groups: dict[tuple, list[int]] = {}
        for x in self.C.under(c):
            if x.empty or self._gives(x, d, model):
                continue
            plan = self._align(x, d, model)
            if plan:
                groups.setdefault(plan, []).append(x.tag)
        return [(prefix, plan) for plan, tags in groups.items()
                for prefix in self.covers(c, tags)]

    def _align(self, x: Rel, d: int, model: tuple) -> tuple | None:
        """Steps after which ``model`` gives ``x`` its target dimension
        ``d``: adjacent ``interchange`` s that permute its dimensions from
        ``d`` (the fewest), or else the model's pivot (the dimension it
        brings to ``d``) reshaped into what the model turns into the
        target's (its rank kept); None when neither does."""
        from itertools import permutations
        dims = list(range(d, x.depth + 1))
        if len(dims) <= 5:
            for perm in sorted(permutations(dims), key=_inversions)[1:]:
                steps = _permuting(perm)
                if self._gives(x, d, steps + model, exact=True):
                    return steps
        j = d
        for st in reversed(model):
            if st[0] == "interchange" and j in st[1:]:
                j = st[1] + st[2] - j
        base = x.copy()
        base.alphas = list(x.alphas)
        base.alphas[j - 1] = Aff()
        rest = simulated(base, model)[d - 1]
        sign = x.canon(simulated(x, model)[d - 1] - rest)
        cur = x.canon(x.alphas[j - 1])
        if sign != cur and sign != -cur:
            return None
        want = self.T.by_tag(x.tag).alphas[d - 1] - rest
        need = x.canon(want if sign == cur else -want)
        steps = tuple(reshape_plan(x, cur, need, j))
        if steps and full_rank_path(x, steps) and self._gives(x, d, steps + model):
            return steps
        return None

    def separate_first(self, c: tuple, d: int, alt: bool) -> bool:
        """:meth:`set_alpha` again after the children of ``c`` are
        separated as the target's (:meth:`sortsplit` by the target's
        children of ``c``, what :meth:`process` does next): parts of a
        statement split by an inner iterator (a peel of ``j``) that need
        other dimensions ``d`` are changed in loops of their own, as the
        original sequence did after its peel.  Once (not inside itself);
        True when it succeeds (False: nothing changed)."""
        C = self.C
        if self._separating or self.oracle is None or not C.is_loop(c):
            return False
        tgt = self.T.by_tag(C.under(c)[0].tag).beta[:len(c)]
        label = self.labels(tgt)

        def mixed():
            return [y for y in C.children(c) if len({label[r.tag] for r in C.under(y)}) > 1]

        if not mixed():
            return False
        snap = self.snapshot()
        self._separating = True
        try:
            while mixed():
                self.sortsplit(mixed()[0], label)
            if self.oracle(C):
                self.set_alpha(c, d, alt)
                return True
        except WhiteboxError:
            pass
        finally:
            self._separating = False
        self.restore(snap)
        return False

    def _by_iterators(self, units: list[tuple]) -> list[tuple] | None:
        """``units`` with each skew of a dimension by others (and its shift)
        written as ``reshape`` s by the iterators the dimensions hold (and
        a shift of what is left), on the statements (None when no unit
        skews).  The other dimensions carry parameters and constants that a
        skew adds and its shift takes back: the dates on the way differ
        (the original sequence reshaped by an iterator, ``j - i`` from
        ``j`` beside an ``i + N - M - 1``, where the skew and shift pass
        through ``j - i - N + M + 1``, illegal for some sizes)."""
        C = self.C
        if not any(st[0] == "skew" for _, plan in units for st in plan):
            return None
        out = []
        for prefix, plan in units:
            if not any(st[0] == "skew" for st in plan):
                out.append((prefix, plan))
                continue
            head = tuple(st for st in plan if st[0] == "reverse")
            body = tuple(st for st in plan if st[0] in ("skew", "shift"))
            tail = tuple(st for st in plan if st[0] not in ("reverse", "skew", "shift"))
            j = body[0][1]
            forms = []
            for r in C.under(prefix):
                x = r.copy()
                x.alphas = simulated(r, head)
                new = simulated(x, body)[j - 1]
                forms.append((r, head + tuple(reshape_plan(x, x.alphas[j - 1], new, j)) + tail))
            if len({f for _, f in forms}) == 1:
                out.append((prefix, forms[0][1]))
            else:
                out.extend((r.beta, f) for r, f in forms)
        return out

    def _common_shift(self, c: tuple, units: list[tuple]) -> list[tuple] | None:
        """``units`` with the ``shift`` that all of them make (the same
        dimension by the same amount on the instances of their relations,
        every relation of the loop ``c`` with an instance in one of them)
        made once, on ``c`` (None when there is
        none), to be applied in the order returned: the groups that reverse
        the dimension first (without their shift), then the shift, then the
        others (without it).  Shifting the relations one group at a time
        moves one before or after the others for some sizes, where the
        original sequence shifted the loop they share."""
        C = self.C
        shifts = []
        for _, plan in units:
            sh = [st for st in plan if st[0] == "shift"]
            if len(sh) != 1 or (any(st[0] == "reverse" for st in plan)
                                and any(st[0] == "interchange" for st in plan)):
                return None
            shifts.append(sh[0])
        if len({st[1] for st in shifts}) != 1 or not C.is_loop(c):
            return None
        covered = {x.tag for prefix, _ in units for x in C.under(prefix)}
        if any(not x.empty and x.tag not in covered for x in C.under(c)):
            return None
        # amounts that differ may still be equal where the relations have
        # instances (index-set split parts of parameter values: N = 3)
        shift = next((cand for cand in dict.fromkeys(shifts) if all(
            st == cand or all(x.empty or self.oracle.equal(x, st[2], cand[2], C.divs)
                              for x in C.under(prefix))
            for (prefix, _), st in zip(units, shifts))), None)
        if shift is None:
            return None
        rev = [(p, tuple(st for st in q if st != sh)) for (p, q), sh in zip(units, shifts)
               if any(st[0] == "reverse" for st in q)]
        rest = [(p, tuple(st for st in q if st != sh)) for (p, q), sh in zip(units, shifts)
                if not any(st[0] == "reverse" for st in q)]
        return rev + [(c, (shift,))] + [(p, q) for p, q in rest if q]

    def _one_plan(self, c: tuple, d: int, units: list[tuple]) -> list[tuple] | None:
        """The plan of one of ``units`` applied once to the whole loop ``c``,
        when it gives every relation of ``c`` its target dimension ``d`` on
        its instances (None when none does): a part whose outer dimension
        is a constant (``N - 1``) gets a shift where the others get the
        skew by that dimension, which gives it the same dates."""
        C = self.C
        if not C.is_loop(c) or len(units) < 2:
            return None
        rels = [x for x in C.under(c) if not x.empty]

        def gives(x: Rel, plan: tuple) -> bool:
            deepest = max(max(st[1], st[2] if st[0] in ("interchange", "skew") else 0)
                          for st in plan)
            if deepest > x.depth:
                return False
            want = self.T.by_tag(x.tag).alphas[d - 1]
            got = x.canon(simulated(x, plan)[d - 1])
            return got == want or self.oracle.equal(x, got, want, C.divs)

        for plan in dict.fromkeys(q for _, q in units):
            if all(gives(x, plan) for x in rels):
                return [(c, plan)]
        return None

    def _common_tail(self, c: tuple, units: list[tuple]) -> list[tuple] | None:
        """``units`` without the ``interchange`` s that end all of their
        plans (the same ones, every relation of the loop ``c`` with an
        instance in one of them), and those interchanges once on ``c``,
        last (None when there are none or ``c`` is the only unit).  A
        relation interchanged before the others of its loop runs its
        instances in another order than theirs; its other steps (a shift of
        the inner dimension) need not."""
        C = self.C
        tails = set()
        for _, plan in units:
            k = len(plan)
            while k and plan[k - 1][0] == "interchange":
                k -= 1
            tails.add(plan[k:])
        tail = tails.pop() if len(tails) == 1 else ()
        if not tail or not C.is_loop(c) or all(p == c for p, _ in units):
            return None
        covered = {x.tag for prefix, _ in units for x in C.under(prefix)}
        if any(not x.empty and x.tag not in covered for x in C.under(c)):
            return None
        rest = [(p, q[:len(q) - len(tail)]) for p, q in units]
        return [(p, q) for p, q in rest if q] + [(c, tail)]

    def _grouped(self, units: list[tuple]) -> list[tuple] | None:
        """``units`` with the statements that get the same plan and follow
        each other in one loop (the parts of an index-set split) as one
        unit, its prefix the list of their β-vectors (None when there are
        none): :meth:`_apply_group` changes them together, where changing
        one before the other runs the parts in an order neither the
        original nor the target has."""
        C = self.C
        by_plan: dict[tuple, list[tuple]] = {}
        for prefix, plan in units:
            by_plan.setdefault(plan, []).append(prefix)
        out: list[tuple] = []
        merged = False
        for plan, prefixes in by_plan.items():
            runs: list[list[tuple]] = []
            for p in sorted(prefixes):
                if (runs and not C.is_loop(p) and not C.is_loop(runs[-1][-1])
                        and p[:-1] == runs[-1][-1][:-1] and p[-1] == runs[-1][-1][-1] + 1):
                    runs[-1].append(p)
                else:
                    runs.append([p])
            for run in runs:
                merged = merged or len(run) > 1
                out.append((run if len(run) > 1 else run[0], plan))
        return out if merged else None

    def _apply_group(self, stmts: list[tuple], plan: tuple) -> bool:
        """Apply ``plan`` to the consecutive sibling statements ``stmts`` at
        once: each in a one-iteration loop (``embed``), the loops fused, the
        plan on the fused loop, then split apart and ``unembed`` ded (the
        β-vectors as before).  Is the schedule legal after it (in careful
        mode: after each step)?"""
        C = self.C
        n = len(stmts)
        first = stmts[0]
        for b in stmts:
            self.rec.do("embed", b, comment="a one-iteration loop to change with its neighbours")
        for _ in range(n - 1):
            self.rec.do("fuse", first, comment="one loop for the parts changed together")
        if self.careful and not self.oracle(C):
            return False
        if not self._apply_checked(first, plan):
            return False
        depth = len(first)
        for k in range(n - 1):
            self.rec.do("split", first[:-1] + (first[-1] + k, 0), depth,
                        comment="separate the parts again")
        for b in stmts:
            self.rec.do("unembed", b + (0,), comment="remove the one-iteration loop")
        return self.oracle(C)

    def _apply_checked(self, prefix: tuple, plan: tuple) -> bool:
        """Apply ``plan`` on ``prefix``; is the schedule legal after it (in
        careful mode: after each of its steps)?  A list ``prefix``: the
        statements of :meth:`_apply_group`."""
        if isinstance(prefix, list):
            return self._apply_group(prefix, plan)
        is_loop = self.C.is_loop(prefix)
        if not self.careful:
            self.apply_plan(prefix, plan, is_loop=is_loop)
            return self._unique(prefix) and self.oracle(self.C)
        return all(self._step_checked(prefix, st, is_loop) for st in plan)

    def _step_checked(self, beta: tuple, st: tuple, is_loop: bool) -> bool:
        """Apply the plan step ``st`` on ``beta`` (careful mode); is every
        state it records legal, its dates unique?  A skew of a statement
        records several ``reshape`` s (:func:`~.algebra.reshape_plan`): one
        that breaks a dependence on its way is as illegal on replay as the
        whole skew, so each state is checked, and the reshapes (which
        commute) are tried in ``reshape_plan``'s order, then the others (at
        most :data:`MAX_ORDERS`; trmm fuzz seed 150115: ``i0 - i1`` to
        ``2·i0 - 3·i1`` through ``2·i0 - i1`` breaks a dependence, through
        ``i0 - 3·i1`` does not).  False (nothing changed) when no order
        is."""
        def ok() -> bool:
            return self._unique(beta) and self.oracle(self.C)

        if st[0] != "skew" or is_loop:
            self.apply_plan(beta, (st,), is_loop=is_loop)
            return ok()
        return self.in_legal_order(self._skew_subs(beta, st),
                                   lambda sub: self._record_sub(beta, st[1], sub), ok)

    def in_legal_order(self, subs: list[tuple], record, legal) -> bool:
        """Record the steps ``subs`` of a :func:`~.algebra.reshape_plan`
        (each through ``record``), its ``reshape`` s (which commute) in the
        order given, else in another (at most :data:`MAX_ORDERS`), its
        ``shift`` s last, so that ``legal()`` holds after each; False
        (nothing recorded) when no order does."""
        from itertools import islice, permutations
        moves = [sub for sub in subs if sub[0] == "reshape"]
        rest = [sub for sub in subs if sub[0] != "reshape"]

        def done(sub: tuple) -> bool:
            record(sub)
            return legal()

        snap = self.snapshot()
        for order in islice(permutations(moves), MAX_ORDERS):
            if all(done(sub) for sub in list(order) + rest):
                return True
            self.restore(snap)
        return False

    def _skew_subs(self, beta: tuple, st: tuple) -> list[tuple]:
        """The ``reshape`` and ``shift`` steps of :func:`~.algebra.reshape_plan`
        that make the plan step ``st`` (a ``skew``) on the statement at
        ``beta``."""
        _, j, l, coef = st
        r = self.C.under(beta)[0]
        cur = r.alphas[j - 1]
        return reshape_plan(r, cur, r.canon(cur - r.alphas[l - 1].scale(coef)), j)

    def _record_sub(self, beta: tuple, j: int, sub: tuple) -> None:
        """Record one step of :meth:`_skew_subs` on α ``j`` of ``beta``."""
        if sub[0] == "reshape":
            self.rec.do("reshape", beta, sub[1], sub[2], sub[3],
                        comment="skew by an outer loop")
        else:
            self.rec.do("shift", beta, j, sub[2].integral(), comment="shift")

    def _unique(self, prefix: tuple) -> bool:
        """Do the relations under ``prefix`` (with an instance) still give
        their instances distinct dates (a ``reshape`` of a loop by an
        iterator can make two of a statement's dimensions dependent, which
        ``reshape`` refuses)?  With an oracle, ``reshape``'s own check
        (:meth:`clayx.whitebox.Oracle.unique`: strip-mined dimensions
        count as what they are, which the rank of the dimensions over the
        iterators, used without one, does not see)."""
        for x in self.C.under(prefix):
            if x.empty:
                continue
            if self.oracle is not None and not x.elim:
                if not self.oracle.unique(x, self.C.divs):
                    return False
            # a part whose domain fixes an iterator has it substituted here,
            # unlike the relation reshape checks: its rank over the others
            elif row_rank([a.part("i") for a in x.alphas], iter_keys(x)) != len(x.free):
                return False
        return True

    def units(self, c: tuple, d: int, k: int = 0) -> list[tuple] | None:
        """``(prefix, plan)`` for the relations under ``c`` at depth ``d``:
        the relations with the same plan together, on the largest loops
        that hold only them.  ``k > 0``: the ``k``-th other pivot of each
        relation that has one (the last it has otherwise); None when no
        relation has a ``k``-th."""
        C = self.C
        groups: dict[tuple, list[int]] = {}
        more = False
        for r in C.under(c):
            p = self.plan(r, d)
            if k and p:
                alts = self.pivots(r, d)
                if alts:
                    more = more or len(alts) >= k
                    p = self.plan(r, d, alts[min(k, len(alts)) - 1])
            if p:
                groups.setdefault(p, []).append(r.tag)
        if not self.careful:
            # (careful, each relation its own plan: a shared one can lead a
            # later level to a reshape the part cannot take, syrk 76009)
            self._share_plans(d, groups)
        if k and not more:
            return None
        return [(prefix, plan) for plan, tags in groups.items()
                for prefix in self.covers(c, tags)]

    def _share_plans(self, d: int, groups: dict[tuple, list[int]]) -> None:
        """Move each relation whose domain fixes iterators (``elim``) out of
        its own group of :meth:`units` (``groups``: plan -> tags) into the
        largest other group whose plan gives it its target dimension ``d``
        too, and keeps its dimensions independent, as the recovery reads
        them and as Clay writes them (:meth:`written`).  Its plan is one of
        many: its forms have the fixed iterators substituted, so other
        dimensions give it the same dates; taking its neighbours' lets the
        loop change at once (syrk fuzz seed 48069: ``(i - j, -j)`` on
        ``j = i`` reads ``(0, -i)``; its own plans took 8 more steps)."""
        if len(groups) < 2:
            return
        for own, tags in list(groups.items()):
            for tag in list(tags):
                r = self.C.by_tag(tag)
                if not r.elim:
                    continue
                best = None
                for plan, others in groups.items():
                    if plan == own or not others or best is not None \
                            and len(others) <= len(groups[best]):
                        continue
                    if self._fits_plan(r, d, plan):
                        best = plan
                if best is not None:
                    tags.remove(tag)
                    groups[best].append(tag)
            if not tags:
                del groups[own]

    def _fits_plan(self, r: Rel, d: int, plan: tuple) -> bool:
        """Does ``plan`` give ``r`` (a part whose domain fixes iterators) its
        target dimension ``d`` exactly, its dimensions independent over its
        free iterators and, as Clay writes them, over all?  Not a plan of
        deeper relations (a dimension, or a ``reshape`` by an iterator,
        ``r`` does not have: trmm fuzz seed 120255, a part of S1 beside
        S0's plan of its third dimension)."""
        if _deepest(plan) > r.depth or any(st[0] == "reshape" and st[2] > r.dim
                                           for st in plan):
            return False
        if not self._gives(r, d, plan, exact=True):
            return False
        keys = iter_keys(r)
        if row_rank([a.part("i") for a in simulated(r, plan)], keys) != len(r.free):
            return False
        if not any(st[0] == "reshape" for st in plan):
            return True             # (the other steps keep the rank as written)
        written = self.written(r)
        if written is None:
            return False
        w = r.copy()
        w.elim, w.alphas = {}, list(written)
        full = [it(k) for k in range(r.dim)]
        return row_rank([a.part("i") for a in simulated(w, plan)], full) \
            == row_rank([a.part("i") for a in written], full)

    def hoist_fusing(self, prefix: tuple, plan: tuple) -> bool:
        """Apply ``plan`` on the loop ``prefix`` one step at a time; when an
        ``interchange(m - 1, m)`` would leave the schedule illegal, fuse the
        consecutive sibling loops at depth ``m`` under ``prefix`` first (the
        dimension to bring out has the same value in all of them, a
        one-iteration loop typically, so the fusion keeps the order and the
        interchange no longer runs the pieces one after the other).  True
        when every state reached is legal."""
        C = self.C
        for st in plan:
            snap = self.snapshot()
            self.apply_plan(prefix, (st,), is_loop=C.is_loop(prefix))
            if st[0] != "interchange" or self.oracle(C):
                continue
            self.restore(snap)
            m = st[2]
            if m - 1 < len(prefix):
                return False
            for node in sorted({x.beta[:m - 1] for x in C.under(prefix) if len(x.beta) > m}):
                i = 0
                while i < len(C.children(node)) - 1:
                    kids = C.children(node)
                    if C.is_loop(kids[i]) and C.is_loop(kids[i + 1]):
                        self.rec.do("fuse", kids[i], comment="fuse the loops to bring out")
                    else:
                        i += 1
            if not self.oracle(C):
                return False
            self.apply_plan(prefix, (st,), is_loop=C.is_loop(prefix))
            if not self.oracle(C):
                return False
        return True

    def fused_tail(self, c: tuple, units: list[tuple]) -> bool:
        """The rescue for a wavefront of a loop nest whose statements sit
        in distributed loops (isl's or Pluto's ``[t, i] -> [2t + i, t]`` on
        jacobi-1d, the second statement one later): the groups' plans
        without the ``interchange`` s that end all of them (the skews and
        shifts of the inner dimension: legal one group at a time), in any
        order (at most :data:`MAX_ORDERS`), then those interchanges once on
        the loop ``c``, the loops they bring out of fused first where an
        interchange of the distributed ones breaks a dependence
        (:meth:`hoist_fusing`: the skewed loops fuse legally, the loops as
        they were do not).  Every step is checked; returns False (and
        changes nothing) when one breaks a dependence."""
        from itertools import islice, permutations
        if self.oracle is None:
            return False
        more = self._common_tail(c, units)
        if more is None:
            return False
        rest, tail = more[:-1], more[-1][1]
        snap = self.snapshot()
        for order in islice(permutations(range(len(rest))), MAX_ORDERS):
            if all(self._apply_checked(*rest[i]) for i in order) \
                    and self.hoist_fusing(c, tail):
                return True
            self.restore(snap)
        return False

    def wrap_nest(self, c: tuple, d: int) -> bool:
        """The rescue for a loop nest that the target runs inside a
        one-iteration loop at depth ``d`` (isl's ``whole_component``: a
        later nest at ``[1, n, 0, i]``): every relation under ``c`` with an
        instance has the same target α ``d``, fixed by the outer dimensions
        (the same form of the parameters and of the iterators outer to
        ``d``).  Changed one relation at a time, the one-iteration loop runs
        each relation before or after the others; here every relation's
        one-iteration loop (one of its constant dimensions, or a new one,
        ``embed``) is brought out to depth ``d + 1`` on its own (the order
        stays), those loops are fused into one (the order stays), and one
        ``interchange`` and ``shift`` on ``c`` bring it out to ``d`` for all
        at once.  Every step is checked; returns False (and changes
        nothing) when one breaks a dependence or the target is not of that
        shape."""
        C = self.C
        if self.oracle is None:
            return False
        under = C.under(c)
        live = [r for r in under if not r.empty and not self.T.by_tag(r.tag).empty]
        goals = {self.T.by_tag(r.tag).alphas[d - 1] for r in live}
        if len(goals) != 1:
            return False
        goal = next(iter(goals))
        if goal.keys("i") or goal.keys("d"):
            return False
        # the target's outer dimensions must be the current ones (a value
        # fixed by them is then the same in the target and here)
        for r in live:
            if r.alphas[:d - 1] != self.T.by_tag(r.tag).alphas[:d - 1]:
                return False
        snap = self.snapshot()
        try:
            if self._wrap_nest(c, d, goal, [r.tag for r in under]):
                return True
        except (WhiteboxError, IndexError, KeyError):
            pass
        self.restore(snap)
        return False

    def _wrap_nest(self, c: tuple, d: int, goal: Aff, tags: list[int]) -> bool:
        C = self.C
        for tag in tags:
            r = C.by_tag(tag)
            # a constant dimension inside c (the innermost), else a new one
            spare = [j for j in range(d + 1, len(r.alphas) + 1)
                     if not r.alphas[j - 1].keys("i") and not r.alphas[j - 1].keys("d")]
            if not spare:
                self.rec.do("embed", r.beta, comment=f"a one-iteration loop around {r.stmt}")
                r = C.by_tag(tag)
                j = len(r.alphas)
            else:
                j = spare[-1]
            plan = tuple(("interchange", m - 1, m) for m in range(j, d + 1, -1))
            if not r.alphas[j - 1].is_zero:
                plan = (("shift", j, r.alphas[j - 1]),) + plan
            if plan and not self._apply_checked(r.beta, plan):
                return False
        while len(C.children(c)) > 1:
            kids = C.children(c)
            if not (C.is_loop(kids[0]) and C.is_loop(kids[1])):
                return False
            self.rec.do("fuse", kids[0], comment="fuse the one-iteration loops")
            if not self.oracle(C):
                return False
        plan = (("interchange", d, d + 1),)
        if not goal.is_zero:
            plan += (("shift", d, -goal),)
        return self._apply_checked(c, plan)

    def rotate(self, c: tuple, d: int, units: list[tuple]) -> bool:
        """The rescue for relations that the target moves to another
        iteration of the loop ``c`` *and* to another place in its body
        (isl's Feautrier schedule of gramschmidt: the update of iteration
        ``k`` first in iteration ``k + 1``, before the next column's
        norm): neither the ``shift`` alone nor the ``reorder`` alone is
        legal, and Clay has no step that does both.  Through free dates
        instead: ``grain(c, d, 2)`` (every date of ``c`` even), each
        relation shifted by an integer to the odd date next to its
        target's (alone at that date: any place in the body is legal
        there), ``c``'s children separated and sorted as the target's
        (:meth:`sortsplit`, :meth:`_sort_by_dates`), the relations shifted
        to their target dates, ``densify(c, d)``, then the other groups'
        plans.  Applies when some groups' plans are whole shifts by
        integers; when every relation of ``c`` is shifted by the same
        parameters (and integers that differ: deriche's column pass, at
        ``i + w`` and ``i + w + 1``), the loop ``c`` is shifted by the
        parameters first.  Every step is checked; returns False (and
        changes nothing) when one breaks a dependence."""
        if self.oracle is None:
            return False
        snap = self.snapshot()
        common = self._common_parameters(c, d, units)
        if common is not None:
            if not self._apply_checked(c, (("shift", d, common),)):
                self.restore(snap)
                return False
            units = self.units(c, d)
            if not units:
                return True
        rot = [(prefix, -int(plan[0][2][ONE])) for prefix, plan in units
               if len(plan) == 1 and plan[0][0] == "shift" and plan[0][1] == d
               and not plan[0][2].keys("i") and not plan[0][2].keys("p")
               and not plan[0][2].keys("d")
               and Fraction(plan[0][2][ONE]).denominator == 1]
        for side in (1, -1) if rot else ():
            start = self.snapshot()
            try:
                if self._rotate(c, d, rot, side):
                    return True
            except (WhiteboxError, IndexError, KeyError):
                pass
            self.restore(start)
        self.restore(snap)
        return False

    def _common_parameters(self, c: tuple, d: int, units: list[tuple]) -> Aff | None:
        """The parametric part of the ``shift`` s that make up the plans of
        ``units`` when it is the same for all (not zero), and they give
        every relation of the loop ``c`` with an instance its target
        dimension ``d`` (None otherwise)."""
        amounts = [plan[0][2] for _, plan in units
                   if len(plan) == 1 and plan[0][0] == "shift" and plan[0][1] == d
                   and not plan[0][2].keys("i") and not plan[0][2].keys("d")]
        if len(amounts) != len(units) or not self.C.is_loop(c):
            return None
        parts = {a.part("p") for a in amounts}
        if len(parts) != 1:
            return None
        common = parts.pop()
        covered = {x.tag for prefix, _ in units for x in self.C.under(prefix)}
        if common.is_zero or any(not x.empty and x.tag not in covered
                                 for x in self.C.under(c)):
            return None
        return common

    def _rotate(self, c: tuple, d: int, rot: list[tuple], side: int) -> bool:
        C = self.C
        groups = [([x.tag for x in C.under(prefix)], s, side if s > 0 else -side)
                  for prefix, s in rot]
        self.rec.do("grain", c, d, 2, comment="spread the dates: free ones between")
        for tags, s, step in groups:
            # to the free date next to the target's
            for prefix in self.covers(c, tags):
                if not self._apply_checked(prefix, (("shift", d, Aff.const(step - 2 * s)),)):
                    return False
        # the target's loop of c's relations (c's place among its siblings
        # is the target's only once the level above is merged)
        tp = self.T.by_tag(C.under(c)[0].tag).beta[:len(c)]
        label = {r.tag: idx for idx, kid in enumerate(self.T.children(tp))
                 for r in self.T.under(kid)}
        while True:
            mixed = [y for y in C.children(c) if len({label[r.tag] for r in C.under(y)}) > 1]
            if not mixed:
                break
            self.sortsplit(mixed[0], label)
        self._sort_by_dates(c, d, label)
        if not self.oracle(C):
            return False
        for tags, s, step in groups:
            for prefix in self.covers(c, tags):
                self.rec.do("shift", prefix, d, Aff.const(-step), comment="to the target's date")
        if densify_factor(C.under(c), d, C.divs) != 2:
            return False
        self.rec.do("densify", c, d, comment="close the free dates", factor=2)
        if not self.oracle(C):
            return False
        for prefix, plan in self.units(c, d):
            if not self._apply_checked(prefix, plan):
                return False
        return True

    def _sort_by_dates(self, c: tuple, d: int, label: dict[int, int]) -> None:
        """Put the children of the loop ``c`` (each of one target label)
        in the target's order within one iteration of its dimension ``d``
        (one ``reorder``, when that changes anything): by label (as
        :meth:`sort_children`), and the children of one label (one target
        child, which the target fuses deeper) in the order of their dates
        there (deriche's isl Feautrier schedule: a row's initializations
        rotated to the end of the previous row's iteration, at the inner
        date ``h``, after that row's ``j`` loop).  Of two children of one
        label, one goes first when, at every date of ``d`` both have, all
        of its instances come first; when the target interleaves them, the
        one with instances before all of the other's (the order that the
        fusion deeper keeps: a row's initialization joins the previous
        row's last iteration); else the current order stays."""
        C = self.C
        kids = C.children(c)
        labs = [label[C.under(y)[0].tag] for y in kids]
        order = []
        for lab in sorted(set(labs)):
            order += self._date_order(c, d, [k for k in range(len(kids)) if labs[k] == lab])
        if order != list(range(len(kids))):
            perm = [0] * len(kids)
            for new, old in enumerate(order):
                perm[old] = new
            self.rec.do("reorder", c, tuple(perm),
                        comment="put the loops and statements in the target order")

    def _date_order(self, c: tuple, d: int, idx: list[int]) -> list[int]:
        """:meth:`_sort_by_dates` for the children ``idx`` of ``c`` (of
        one label)."""
        if len(idx) < 2:
            return idx
        C = self.C
        kids = C.children(c)
        n_out = 2 * max(self.T.by_tag(x.tag).depth for x in C.under(c)) + 1
        sets = {k: self._target_dates([x for x in C.under(kids[k]) if not x.empty], n_out)
                for k in idx}
        strict: set[tuple] = set()      # (a, b): all of a's dates before b's
        first: set[tuple] = set()       # (a, b): a has dates before all of b's
        for a in idx:
            for b in idx:
                if a == b or sets[a] is None or sets[b] is None:
                    continue
                same = prefix_equal(sets[a].get_space(), 2 * d)
                both = isl.Map.from_domain_and_range(sets[a], sets[b]).intersect(same)
                if both.is_empty():
                    continue            # never at the same date of d
                # (b's date -> a's date): b's at or before a's
                late = sets[b].lex_le_set(sets[a]).intersect(same)
                if late.is_empty():
                    strict.add((a, b))
                if not both.domain().subtract(late.range()).is_empty():
                    first.add((a, b))
        todo = list(idx)
        order = []
        while todo:
            free = [a for a in todo if not any((b, a) in strict for b in todo)] or todo
            k = next((a for a in free if not any((b, a) in first and (a, b) not in first
                                                 for b in free)), free[0])
            todo.remove(k)
            order.append(k)
        return order

    def _target_dates(self, rels: list[Rel], n_out: int):
        """The target's dates of the instances of ``rels`` (an isl set,
        padded to ``n_out`` dimensions; None without instance)."""
        out = None
        ctx = self.oracle.scop.context.get_ctx()
        for x in rels:
            t = self.T.by_tag(x.tag)
            st = self.oracle.scop.statement(t.stmt)
            m = to_map(t, st.iterators, self.oracle.scop.params, self.C.divs, ctx)
            m = m.intersect_domain(self.oracle.part(t.stmt, t.cons))
            k = m.dim(isl.dim_type.out)
            m = m.add_dims(isl.dim_type.out, n_out - k)
            for pos in range(k, n_out):
                m = m.fix_val(isl.dim_type.out, pos, 0)
            r = m.range()
            out = r if out is None else out.union(r)
        return out

    def perfect_nest(self, c: tuple, d: int) -> bool:
        """The rescue for relations of one loop that need different
        interchanges (a right-looking factorization, a column-oriented
        solve): fuse the loops inside ``c`` into one perfect nest down to
        ``depth`` (the deepest pivot), and bring dimension ``depth`` out to
        ``d`` with one set of loop-level steps for every relation.  A
        relation that does not reach ``depth`` gets one-iteration loops
        (``embed``); its free dimensions get values that keep its place: at
        ``depth`` the value its target has at ``d``, in between one of a few
        candidates (its target's, its outer dimensions'), tried in turn.
        The fifth candidate fuses nothing and leaves the one-iteration loops
        as they are: one plan on ``c`` for relations of the same depth
        (a one-iteration loop of an outer iterator brought out of the loop
        that a statement and a loop share, both at once).  The last (only
        in the last tries, see :meth:`process`) fuses and keeps every
        value: a statement whose dimension there is already the one the
        others have (a ``k`` the domain fixes to 0 beside a statement's
        one-iteration loop), so that one plan brings both out.
        Every step is checked; returns False (and changes nothing) when no
        candidate gives a legal sequence."""
        C = self.C
        try:
            depth = max(self._pivot(r, d) for r in C.under(c))
        except WhiteboxError:
            return False
        for choice in range(6 if self._rescue else 5):
            snap = self.snapshot()
            try:
                if self._perfect_nest(c, d, depth, choice):
                    return True
            except (WhiteboxError, IndexError, KeyError, StopIteration):
                pass
            self.restore(snap)
        return False

    def _perfect_nest(self, c: tuple, d: int, depth: int, choice: int) -> bool:
        C = self.C
        for r in list(C.under(c)):
            if self._pivot(r, d) == depth:
                continue
            while r.depth < depth:
                self.rec.do("embed", r.beta, comment=f"a one-iteration loop around {r.stmt}")
            if choice >= 4:
                # one plan for all, no fusion (4); fused, the free
                # dimensions kept as they are (5: a dimension a statement
                # fixes at the value a loop it shares has)
                continue
            keys = iter_keys(r)
            rows = [a.part("i") for a in r.alphas]
            needed = independent_rows(rows[:d - 1] + rows[depth:], keys)
            target = self.T.by_tag(r.tag).alphas
            for e in range(depth, d, -1):
                if row_rank(rows[:e - 1] + rows[e:], keys) != len(keys):
                    continue                  # a dimension the relation needs
                if e == depth:
                    value = target[d - 1]
                else:
                    cands = [target[e] if e < len(target) else None, target[d - 1],
                             r.alphas[e - 2], Aff()]
                    value = cands[choice]
                    if value is None:
                        value = target[d - 1]
                plan = tuple(reshape_plan(r, r.alphas[e - 1], value, e))
                if plan:
                    self.apply_plan(r.beta, plan, is_loop=False)
                rows = [a.part("i") for a in r.alphas]
            del needed
        node = c
        for _ in range(d + 1, depth + 1 if choice != 4 else d + 1):
            while True:
                kids = C.children(node)
                if len(kids) == 1:
                    break
                self.rec.do("fuse", kids[0], comment="fuse into one loop nest")
                if self.oracle is not None and not self.oracle(C):
                    return False
            if not C.is_loop(kids[0]):
                return False
            node = kids[0]
        plans = {r.tag: self.plan(r, d) for r in C.under(c)}
        common = next((p for r in C.under(c) for p in [plans[r.tag]]
                       if self._pivot(r, d) == depth), ())
        if all(simulated(r, common)[d - 1] == self.T.by_tag(r.tag).alphas[d - 1]
               for r in C.under(c)):
            if not common:
                return self.oracle is None or self.oracle(C)
            return self._apply_checked(c, common) if self.oracle is not None else \
                self.apply_plan(c, common, is_loop=True) or True
        groups: dict[tuple, list[int]] = {}
        for tag, p in plans.items():
            if p:
                groups.setdefault(p, []).append(tag)
        for plan, tags in groups.items():
            for prefix in self.covers(c, tags):
                if self.oracle is None:
                    self.apply_plan(prefix, plan, is_loop=C.is_loop(prefix))
                elif not self._apply_checked(prefix, plan):
                    return False
        return True

    def _pivot(self, r: Rel, d: int) -> int:
        """The depth the current dimension α ``d`` of ``r`` will come from."""
        steps = self.plan(r, d)
        inter = [s for s in steps if s[0] == "interchange"]
        return inter[0][2] if inter else d

    def covers(self, c: tuple, tags: list[int]) -> list[tuple]:
        """The largest prefixes under ``c`` that hold only relations of
        ``tags`` and together hold all of them."""
        C = self.C
        tagset = set(tags)
        done: set[int] = set()
        out = []
        for tag in tags:
            if tag in done:
                continue
            r = C.by_tag(tag)
            for m in range(len(c), len(r.beta) + 1):
                p = r.beta[:m]
                # an empty part (no instance) follows whatever its loop gets
                if {x.tag for x in C.under(p) if not x.empty} <= tagset:
                    out.append(p)
                    done |= {x.tag for x in C.under(p)}
                    break
        return out

    def snapshot(self):
        """The state to come back to (:meth:`restore`)."""
        return (self.C.copy(), len(self.rec.steps))

    def restore(self, snap) -> None:
        """Undo everything since ``snap``."""
        sched, n = snap
        self.C.rels = [r.copy() for r in sched.rels]
        self.C.marks = list(sched.marks)
        del self.rec.steps[n:]

    def apply_plan(self, beta: tuple, plan: tuple, is_loop: bool) -> None:
        """Record the steps of ``plan`` on ``beta`` (skews on a statement
        become reshapes and shifts)."""
        for st in plan:
            kind = st[0]
            if kind == "skew":
                _, j, l, coef = st
                if is_loop:
                    self.rec.do("skew", beta, j, l, coef, comment="skew")
                else:
                    # the reshapes in an order that keeps the dates unique
                    for sub in self._skew_subs(beta, st):
                        self._record_sub(beta, j, sub)
            elif kind == "reverse":
                self.rec.do("reverse", beta, st[1], comment="reverse")
            elif kind == "shift":
                self.rec.do("shift", beta, st[1], st[2].integral(), comment="shift")
            elif kind == "reshape":
                self.rec.do("reshape", beta, st[1], st[2], st[3], comment="reshape")
            elif kind == "interchange":
                self.rec.do("interchange", beta, st[1], st[2], comment="interchange")
            else:  # pragma: no cover
                raise AssertionError(kind)


def _deepest(plan: tuple) -> int:
    """The deepest dimension the steps of ``plan`` read or change."""
    return max((max(st[1], st[2] if st[0] in ("interchange", "skew") else 0) for st in plan),
               default=0)


def _inversions(perm: Sequence[int]) -> int:
    """How many adjacent interchanges make ``perm``."""
    return sum(a > b for i, a in enumerate(perm) for b in perm[i + 1:])


def _permuting(perm: Sequence[int]) -> tuple:
    """Adjacent ``interchange`` s after which the dimensions ``sorted(perm)``
    hold, in order, the ones ``perm`` names (the fewest)."""
    cur = sorted(perm)
    lo = cur[0]
    steps = []
    for pos, want in enumerate(perm):
        q = cur.index(want)
        while q > pos:
            cur[q - 1], cur[q] = cur[q], cur[q - 1]
            steps.append(("interchange", lo + q - 1, lo + q))
            q -= 1
    return tuple(steps)


def _one_swap(plan: tuple) -> tuple:
    """``plan`` with the adjacent ``interchange`` s that end it and bring
    one dimension ``j`` out to ``d`` (``(j - 1, j)`` … ``(d, d + 1)``, at
    least two) as one ``interchange(d, j)``: the dimensions between keep
    their places (the target's order, where the chain moves them in)."""
    k = len(plan)
    while (k and plan[k - 1][0] == "interchange" and plan[k - 1][2] == plan[k - 1][1] + 1
           and (k == len(plan) or plan[k - 1][1] == plan[k][1] + 1)):
        k -= 1
    if len(plan) - k < 2:
        return plan
    return plan[:k] + (("interchange", plan[-1][1], plan[k][2]),)


def _shift_first(plan: tuple) -> tuple:
    """``plan`` with its ``shift`` s right after its ``reverse`` s (a shift
    of α_j commutes with the skews and reshapes of α_j by other dimensions;
    the dates on the way differ: a statement moved before its neighbours
    first, then scaled)."""
    rev = [st for st in plan if st[0] == "reverse"]
    shifts = [st for st in plan if st[0] == "shift"]
    rest = [st for st in plan if st[0] not in ("reverse", "shift")]
    return tuple(rev + shifts + rest)
