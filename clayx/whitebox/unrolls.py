"""Recovering Clay's ``unroll`` / ``unroll_noepilog`` (reference 5.17) in a
target: the parts of a statement that are an unroll's main part, copies
and epilog.

clayx's unroll gives a statement several relations (see
:mod:`clayx.directives.unroll`): the main part (the lowered domain, α_k a
multiple of the factor f), copy m (the instance ``it + m`` at the main
instance's date) and the epilog (the rest).  A target read by
:func:`.model.from_relation` keeps such parts, whose instances are not a
conjunction of inequalities (strides ``f·floor(it/f)``, unions), as isl
sets (:attr:`.model.Rel.dom`).  The recovery treats them like the parts of
an index-set split, as early as possible (:meth:`Unrolls.parts`, then
:meth:`Unrolls.apply` once the convex splits are made):

1. the strided parts of a statement together are one convex part ``D``
   (their union, or its hull with the convex parts inside it): the
   statement is split by ``iss`` so that ``D`` is a relation of its own;
2. the loop depth k, the factor f, the residue class of α_k modulo f that
   the main part keeps, and whether there is an epilog are found by
   computing the parts of the unroll of ``D`` (:func:`.model.unroll_domains`)
   for the candidates the target's strides give, until every target part
   lies in one computed part and the computed parts are exactly covered;
3. α_k is brought into that residue class (``shift``, ``reshape`` of
   ``D``'s statement, or of the loop when all its statements need the same
   step), the loop is made to hold only the relations unrolled together
   (``reorder``, ``split``), and ``unroll(loop, f)`` or
   ``unroll_noepilog(loop, f)`` is recorded;
4. each part made is then split further like any part (later ``iss`` or
   ``peel`` of the unrolled loop, its copies or its epilog), or unrolled
   again (an unroll of a loop of the copies).

Two unrolls of one loop (``unroll(L, 3); unroll(L, 2)``): the second copies
every child of ``L``, the first one's main part and copies, and the copy of
each is empty (its instances are in the first one's other parts; Clay keeps
the relation).  Such target parts (a relation without any instance beside
the strided parts in their loop) are not split off but kept as
:attr:`Unrolls.spare`: the first unroll's parts then need not take them,
the second one's empty copies take them in β order (:meth:`Unrolls._take_spares`),
its factor may divide the strides (6 on a part with stride 3: 2), it may
unroll parts without strides of their own, and it takes along the loop's
relations it leaves whole (:meth:`Unrolls._riders`).  When the spares
lead nowhere, the split starts again without them (``spares=False``).

What cannot be expressed this way (strides that no unroll of a loop of
the statement makes, a class of α_k that needs a step that breaks a
dependence) is refused with a :class:`~.model.WhiteboxError` that says so.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm
from typing import Sequence

import islpy as isl

from .algebra import solve
from .model import (Aff, Divs, Rel, Sched, WhiteboxError, constraints, densify_factor,
                    equalities, instances, it, multiples, read_form, unroll_domains, unroll_main)
from .steps import Step

__all__ = ["Unrolls", "factors", "undensify_once"]

_dt = isl.dim_type

#: The largest factor whitebox looks for (clayx's unroll takes at most 16).
MAX_FACTOR = 16


def factors(sets: Sequence[isl.Set]) -> list[int]:
    """The denominators of the divs (strides) of ``sets``, smallest first:
    the candidate unroll factors."""
    out: set[int] = set()
    for s in sets:
        for b in s.compute_divs().get_basic_sets():
            for k in range(b.dim(_dt.div)):
                d = b.get_div(k).get_denominator_val().to_python()
                if 2 <= d <= MAX_FACTOR:
                    out.add(int(d))
    return sorted(out)


def _stride_forms(sets: Sequence[isl.Set], params: Sequence[str]) -> list[Aff]:
    """The affine parts (divs dropped) of the equalities with a div of
    ``sets``: ``j - 2·floor(j/2) = 0`` gives ``j``."""
    out: list[Aff] = []
    for s in sets:
        for b in s.compute_divs().get_basic_sets():
            if not b.dim(_dt.div):
                continue
            for c in b.get_constraints():
                if not c.is_equality():
                    continue
                if all(c.get_coefficient_val(_dt.div, k).is_zero()
                       for k in range(b.dim(_dt.div))):
                    continue
                aff = c.get_aff()
                for k in range(b.dim(_dt.div)):
                    aff = aff.set_coefficient_val(_dt.div, k, 0)
                form = read_form(aff, params)
                if form not in out:
                    out.append(form)
    return out


def _convex(s: isl.Set) -> bool:
    bs = s.get_basic_sets()
    return len(bs) <= 1 and not any(b.dim(_dt.div) for b in bs)


def _union(sets: Sequence[isl.Set], space_of: isl.Set) -> isl.Set:
    out = isl.Set.empty(space_of.get_space())
    for s in sets:
        out = out.union(s)
    return out.coalesce()


class Unrolls:
    """The unroll recovery of one :class:`~.core.Core` (see the module
    docstring)."""

    def __init__(self, core, spares: bool = True):
        self.core = core
        #: keep relations without instances beside strided parts as spare
        #: parts (see :attr:`spare`); else they are split off like any part
        self.spares = spares
        #: tag of a current relation → the target relations it must become
        self.pending: dict[int, list[Rel]] = {}
        self._found: dict = {}
        #: tag of a current relation → the target parts its unroll event
        #: makes (:meth:`_one`, for :meth:`_aligned`)
        self._members: dict[int, list[Rel]] = {}
        #: statement → its target parts without instances that an unroll
        #: left over for a later unroll of one of its parts (two unrolls
        #: of one loop: the copies of the second are empty, see :meth:`_search`)
        self.spare: dict[str, list[Rel]] = {}
        #: whether :meth:`parts` kept target parts as spare
        self.spare_taken = False

    @property
    def divs(self) -> Divs:
        return self.core.C.divs

    def inst(self, r: Rel) -> isl.Set:
        """The instances of ``r`` (an isl set)."""
        return instances(r, self.divs)

    def refresh(self, r: Rel) -> None:
        """The emptiness and equalities of a part ``r`` with a ``dom``."""
        s = self.inst(r)
        r.empty = s.is_empty()
        r.elim = equalities(s, self.core.C.params)
        r.alphas = [r.canon(a) for a in r.alphas]

    # -- 1 ------------------------------------------------------------------------------
    def parts(self, stmt: str, tparts: list[Rel]) -> list[Rel]:
        """The parts of ``stmt`` that the convex splits must make: the
        target's convex parts, and one part for its strided parts (their
        convex union ``D`` with the parts an unroll of it makes, remembered
        as pending)."""
        strided = [t for t in tparts if t.dom is not None]
        if not strided:
            return tparts
        if self.core.oracle is None:
            raise WhiteboxError(f"the parts of {stmt} have strides (an unroll): whitebox "
                                "recovers unrolls only with the dependences at hand")
        stdom = strided[0].stdom
        rest = [t for t in tparts if t.dom is None]
        cur = [r for r in self.C.rels if r.stmt == stmt]
        r = cur[0] if len(cur) == 1 and not cur[0].cons else None
        try:
            groups = [self._group(r, stdom, strided, rest)]
        except WhiteboxError:
            groups = self._two_groups(r, stdom, strided, rest) if r is not None else None
            if groups is None:
                raise
        out = []
        inside = set()
        for members, D in groups:
            tag = self.core._fresh()
            self.pending[tag] = members
            out.append(Rel(stmt, strided[0].dim, (), [], self._cons(D.gist(stdom).coalesce()),
                           tag))
            inside |= {t.tag for t in members}
        # parts that schedule nothing at all (an empty relation: no
        # constraint makes them) beside parts with strides, in their loop,
        # are the empty copies of a later unroll of an unrolled part's loop
        # (two unrolls of one loop), not split off
        loops = {t.beta[:-1] for t in strided}
        spare = [t for t in rest if t.tag not in inside and _no_relation(t)
                 and t.beta[:-1] in loops and self.spares]
        empty = sorted((t for t in rest if t.tag not in inside and _no_relation(t)),
                       key=lambda t: t.beta)
        if not spare and self.spares and len({t.beta[:-1] for t in empty}) == len(empty):
            # else, several such parts each in a loop of its own: the first
            # is an empty half of an index-set split made before the unroll,
            # the others its copies and epilog (the unroll takes it along,
            # :meth:`_riders`; jacobi-2d fuzz seed 29218: an empty half,
            # then an unroll of the time loop).  (Empty halves of a split
            # made after the unroll share one loop: split off, lu.)
            spare = empty[1:]
        self.spare.setdefault(stmt, []).extend(spare)
        self.spare_taken = self.spare_taken or bool(spare)
        inside |= {t.tag for t in spare}
        return [t for t in rest if t.tag not in inside] + out

    def _two_groups(self, r: Rel, within: isl.Set, strided: list[Rel], convex: list[Rel]):
        """Two unrolled parts of ``r`` that an index-set split made before
        the unroll (both halves unrolled by one loop's unroll): a constraint
        of the strided parts' hulls (strides dropped) that separates them
        into two groups :meth:`_group` finds an unroll for; None if none."""
        tried = []
        for t in strided:
            hull = isl.Set.from_basic_set(self.inst(t).remove_divs().polyhedral_hull())
            hull = hull.gist(within).coalesce()
            if hull.is_empty() or not _convex(hull) or hull.plain_is_universe():
                continue                # an empty part has no constraint to split by
            for c in self._cons(hull):
                if c in tried:
                    continue
                tried.append(c)
                halves = []
                for cc in (c, -c - Aff.const(1)):
                    x = r.copy()
                    x.cons = r.cons + [cc]
                    half = self.inst(x)
                    ins = [u for u in strided if self.inst(u).is_subset(half)]
                    conv = [u for u in convex if u.empty or self.inst(u).is_subset(half)]
                    halves.append((x, half, ins, conv))
                if not halves[0][2] or not halves[1][2] \
                        or len(halves[0][2]) + len(halves[1][2]) != len(strided):
                    continue
                try:
                    return [self._group(x, half, ins, conv) for x, half, ins, conv in halves]
                except WhiteboxError:
                    continue
        return None

    def _group(self, r: Rel | None, within: isl.Set, strided: list[Rel], convex: list[Rel]):
        """The target parts (among ``strided`` and ``convex``, inside
        ``within``) that one unroll of a convex part of ``r`` makes, and that
        part; the first candidate of :meth:`_candidates` whose unroll is
        found (only the first without ``r``)."""
        stmt = strided[0].stmt
        first = None
        for spare in (False, True):
            for members, D in self._candidates(within, strided, convex):
                if r is None:
                    return members, D
                g = D.gist(self.inst(r)).coalesce()
                if g.is_empty():
                    continue            # a candidate outside r: no unroll of r makes it
                first = first or (members, D)
                x = r.copy()
                x.cons = r.cons + self._cons(g)
                if self._find(x, members, spare) is not None:
                    return members, D
            if first is None:
                break
        if first is None:
            U = _union([self.inst(t) for t in strided], within)
            raise WhiteboxError(
                f"the parts of {stmt} with strides ({U}) are not one convex part of it: they "
                "are not the main part, copies and epilog of one unroll of a loop")
        raise WhiteboxError(
            f"the parts of {stmt} with strides are not the main part, copies and epilog of "
            f"an unroll of one of its loops (by a factor its strides show, "
            f"{factors([self.inst(t) for t in strided]) or 'none'}): whitebox cannot "
            "express them")

    def _candidates(self, within: isl.Set, strided: list[Rel], convex: list[Rel]):
        """Convex parts ``D`` of ``within`` that may have been unrolled, with
        the target parts inside them: the union of the strided parts when
        it is convex, what the other parts leave of ``within``, the hull of
        the strided parts (strides dropped) with the parts inside it
        (``within`` itself with every part first: no split needed)."""
        sets = [self.inst(t) for t in strided]
        U = _union(sets, within)
        live = [t for t in convex if not t.empty]
        empties = [t for t in convex if t.empty]
        seen: list = []

        def fresh(members, D):
            if any(len(m) == len(members) and D.is_equal(x) for m, x in seen):
                return False
            seen.append((members, D))
            return True
        out = [(list(strided) + live, within)]      # no split needed
        if _convex(U):
            out.append((list(strided), U))
        left = within
        for t in live:
            left = left.subtract(self.inst(t))
        left = left.coalesce()
        if _convex(left) and left.is_equal(U):
            out.append((list(strided), left))
        for members, D in out:
            if fresh(members, D):
                yield members, D
        H = isl.Set.from_basic_set(U.remove_divs().polyhedral_hull()).intersect(within)
        H = H.coalesce()
        inside = [t for t in live if self.inst(t).is_subset(H)]
        cover = _union(sets + [self.inst(t) for t in inside], within)
        if _convex(H) and cover.is_equal(H) and fresh(list(strided) + inside, H):
            yield list(strided) + inside, H
        if empties:                 # parts without instances may be copies
            for members, D in list(seen):
                yield members + empties, D

    # -- 2-4 ----------------------------------------------------------------------------
    def apply(self) -> None:
        """Unroll the pending parts, then split or unroll their parts in
        turn, until every current relation has its target tag."""
        work = list(self.pending.items())
        self.pending = {}
        rounds = 0
        while work:
            rounds += 1
            if rounds > 8:
                raise WhiteboxError("cannot recover the target's unrolls: too deeply nested")
            events = []
            for tag, members in work:
                ev = self._one(tag, members)
                if ev is not None:
                    events.append(ev)
            work = self._round(events)
        left = [t for ts in self.spare.values() for t in ts]
        if left:
            raise WhiteboxError(f"the target has more parts of {left[0].stmt} without "
                                "instances than its unrolls make")

    def _round(self, events: list) -> list[tuple[int, list[Rel]]]:
        """Record the unrolls of ``events`` (batched, :meth:`_batches`);
        the parts made, with their target members.  When a batch cannot be
        unrolled early (separating its loop breaks a dependence), the
        round is tried again with the events :meth:`_aligned` gives: the
        other relations of the loop unrolled with it (jacobi-2d fuzz seed
        29218: ``unroll`` of an inner loop of S1, then of the time loop
        that S0 shares; S1's inner unroll found first left S0 alone)."""
        snap = self.core.snapshot()
        spare = {k: list(v) for k, v in self.spare.items()}
        taken = self.spare_taken
        try:
            return self._batched(events)
        except _EarlyError as e:
            self.core.restore(snap)
            self.spare, self.spare_taken = spare, taken
            aligned = self._aligned(events)
            if aligned is None:
                raise
            try:
                return self._batched(aligned)
            except WhiteboxError:
                raise e from None

    def _batched(self, events: list) -> list[tuple[int, list[Rel]]]:
        work = []
        for batch in self._batches(events):
            work += self._unroll(batch + self._riders(batch))
        return work

    def _aligned(self, events: list) -> list | None:
        """``events`` with those of relations that share the loop another
        event unrolls (the same current loop at its depth ``k``) changed to
        an unroll of that loop by the same factor, where their target
        parts are that unroll's parts too (outer loops first); None when
        none changes."""
        C = self.C
        out = list(events)
        changed = False
        for ev in sorted(events, key=lambda e: e[1]):
            tag, k, f = ev[:3]
            loop = C.by_tag(tag).beta[:k]
            for j, ev2 in enumerate(out):
                r2 = C.by_tag(ev2[0])
                if ev2[0] == tag or ev2[1:3] == (k, f) or r2.beta[:k] != loop \
                        or ev2[0] not in self._members:
                    continue
                found = self._find(r2, self._members[ev2[0]], only=(k, f))
                if found is None or found[5]:
                    continue
                _, _, epilog, alpha, pieces, _ = found
                out[j] = (ev2[0], k, f, epilog, alpha, pieces)
                changed = True
        return out if changed else None

    def _one(self, tag: int, members: list[Rel]):
        """Split the current relation ``tag`` into ``members`` when convex
        splits do; otherwise split off their strided union and return the
        unroll event that makes it: ``(tag, k, f, epilog, alpha, pieces)``."""
        core = self.core
        r = core.C.by_tag(tag)
        P = self.inst(r)
        if len(members) == 1 and self.inst(members[0]).is_equal(P):
            r.tag = members[0].tag
            return None
        gists = {}
        strided = []
        for t in members:
            g = _relative(self.inst(t), P, r.stdom)
            gists[t.tag] = g
            if not t.empty and not _convex(g):
                strided.append(t)
        if not strided and self.spare.get(r.stmt):
            # parts a second unroll of the loop makes without strides of
            # their own (its main part and epilog; its copies empty: unroll
            # by 2 twice)
            found = self._find(r, members, True)
            if found is not None and any(not p for p in found[4]):
                k, f, epilog, alpha, pieces, left = found
                self.spare[r.stmt].extend(left)
                return tag, k, f, epilog, alpha, pieces
        if not strided:
            self._split(tag, [(t.tag, self._cons(gists[t.tag])) for t in members], r)
            return None
        ids = {x.tag for x in strided}
        rest = [t for t in members if t.tag not in ids]
        inner, D = self._group(r, P, strided, rest)
        if not D.is_equal(P):
            new = core._fresh()
            ins = {t.tag for t in inner}
            parts = [(t.tag, self._cons(gists[t.tag])) for t in rest if t.tag not in ins]
            self._split(tag, parts + [(new, self._cons(D.gist(P).coalesce()))], r)
            tag = new
            r = core.C.by_tag(tag)
        found = self._find(r, inner) or self._find(r, inner, True)
        self._members[tag] = inner
        if found is None:
            raise WhiteboxError(f"internal: the unroll of {r.stmt}'s part is lost")
        k, f, epilog, alpha, pieces, left = found
        self.spare.setdefault(r.stmt, []).extend(left)
        return tag, k, f, epilog, alpha, pieces

    def _cons(self, g: isl.Set) -> list[Aff]:
        return [] if g.plain_is_universe() else constraints(g, self.divs, self.core.C.params)

    def _split(self, tag: int, parts: list[tuple[int, list[Aff]]], r: Rel) -> None:
        """Split the current relation ``tag`` into ``parts`` (tags and
        constraints relative to it) by index-set splits."""
        base = r.copy()

        def sub(cons):
            x = base.copy()
            x.cons = base.cons + list(cons)
            return self.inst(x)

        def subset(cons, c):
            s = sub(cons)
            if s.is_empty():
                return c in cons
            return s.is_subset(sub(list(cons) + [c]))
        self.core.split_into(tag, parts, subset, lambda cons: sub(cons).is_empty())

    def _find(self, r: Rel, members: list[Rel], spare: bool = False,
              only: tuple[int, int] | None = None):
        """The unroll of a loop of ``r`` whose parts are ``members`` (see the
        module docstring, 2): ``(k, f, epilog, alpha, pieces, left)``,
        ``pieces`` the members of each part (main, copies, epilog; members
        without instances go to the parts without, in order), or None.

        ``spare``: the parts the unroll makes need not take every member
        without instances; those left (``left``) are the empty copies of a
        later unroll of the same loop (two unrolls of one loop: Clay's
        second unroll copies the first one's main part and copies, and the
        copy of each is empty, its instances in the first one's other
        parts); a part made without instances takes one of the statement's
        :attr:`spare` parts instead (:meth:`_unroll`).  ``only``: the loop
        depth and factor to look at (:meth:`_aligned`)."""
        key = (tuple(t.tag for t in members), str(self.inst(r)), tuple(r.alphas), len(r.beta),
               spare, only)
        if key not in self._found:
            self._found[key] = self._search(r, members, spare, only)
        return self._found[key]

    def _search(self, r: Rel, members: list[Rel], spare: bool = False,
                only: tuple[int, int] | None = None):
        sets = [self.inst(t) for t in members]
        live = [(t, s) for t, s in zip(members, sets) if not t.empty and not s.is_empty()]
        seen = {x.tag for x, _ in live}
        empties = [t for t in members if t.tag not in seen]
        params = self.core.C.params
        forms = _stride_forms([s for _, s in live], params)
        fs = factors([s for _, s in live])
        # the factor of a second unroll of one loop divides the strides
        # (6 on a part with stride 3: by 2)
        fs += sorted({d for f in fs for d in range(2, f) if f % d == 0} - set(fs))
        for f in fs:
            for k in range(1, min(r.dim, r.depth) + 1):
                if len(r.beta) <= k or only is not None and (k, f) != only:
                    continue
                key = it(k - 1)
                cands: list[Aff] = []
                for e in forms + [r.alphas[k - 1]]:
                    if not e.is_integral or e.keys("d") or gcd(int(e[key]) % f, f) != 1:
                        continue
                    for c in range(f):
                        a = e + Aff.const(c)
                        if not any(_same_class(a, b, f) for b in cands):
                            cands.append(a)
                for a in cands:
                    for epilog in (True, False):
                        pieces = self._match(r, k, f, epilog, a, live, len(empties), spare)
                        if pieces is None:
                            continue
                        if spare:
                            n = sum(1 for ps in pieces if not ps)
                            if n > len(empties) + len(self.spare.get(r.stmt, [])) \
                                    or len(pieces) - n < 2:
                                continue        # too few empty parts, or no unroll at all
                            return k, f, epilog, a, _with_empties(pieces, empties[:n]), \
                                empties[n:]
                        return k, f, epilog, a, _with_empties(pieces, empties), []
        return None

    def _match(self, r: Rel, k: int, f: int, epilog: bool, a: Aff, live, n_empty: int,
               spare: bool = False):
        main = unroll_main(r, k, f, epilog, self.divs, alpha=a)
        if main.is_empty():
            return None
        # a quick test first: every part in the main part or outside it,
        # one inside
        inside = False
        for _, s in live:
            if s.is_subset(main):
                inside = True
            elif not s.intersect(main).is_empty():
                return None
        if not inside:
            return None
        doms = unroll_domains(r, k, f, epilog, self.divs, alpha=a, main=main)
        pieces: list[list] = [[] for _ in doms]
        for t, s in live:
            j = next((j for j, d in enumerate(doms) if s.is_subset(d)), None)
            if j is None:
                return None
            pieces[j].append((t, s))
        for d, ps in zip(doms, pieces):
            if not _union([s for _, s in ps], d).is_equal(d):
                return None
        if not spare and sum(1 for ps in pieces if not ps) != n_empty:
            return None                 # a part without instances the target lacks
        return [[t for t, _ in ps] for ps in pieces]

    def _riders(self, batch) -> list:
        """Events for the relations of the loop ``batch`` unrolls that are
        their target part already and that the unroll leaves whole (main
        part; copies and epilog empty, spare target parts of their
        statement): a second unroll of one loop copies every child, those
        without their own strides too (unroll by 2 twice: the first one's
        main part)."""
        C = self.C
        tag0, k, f, epilog = batch[0][:4]
        loop = C.by_tag(tag0).beta[:k]
        mine = {ev[0] for ev in batch}
        targets = {t.tag: t for t in self.core.T.rels}
        out = []
        need = {}
        for x in C.under(loop):
            if x.tag in mine or x.tag not in targets or (x.dom is None or x.empty) \
                    and not _no_relation(x) or not self.spare.get(x.stmt) or len(x.beta) <= k:
                continue
            a = x.alphas[k - 1]
            if _no_relation(x):         # an empty half: its copies and epilog empty
                n = f if epilog else f - 1
                out.append((x.tag, k, f, epilog, a, [[targets[x.tag]]] + [[] for _ in range(n)]))
                need[x.stmt] = need.get(x.stmt, 0) + n
                continue
            P = self.inst(x)
            doms = unroll_domains(x, k, f, epilog, self.divs, alpha=a)
            if not doms[0].is_equal(P) or not all(d.is_empty() for d in doms[1:]):
                return []               # the unroll would cut it: not a second unroll
            need[x.stmt] = need.get(x.stmt, 0) + len(doms) - 1
            out.append((x.tag, k, f, epilog, a, [[targets[x.tag]]] + [[] for _ in doms[1:]]))
        for ev in batch:
            need[C.by_tag(ev[0]).stmt] = need.get(C.by_tag(ev[0]).stmt, 0) \
                + sum(1 for p in ev[5] if not p)
        if any(n > len(self.spare.get(st, [])) for st, n in need.items()):
            return []
        return out

    def _batches(self, events):
        """Events that unroll the same current loop the same way, together
        (their relations are then the loop's only ones when possible)."""
        out: dict[tuple, list] = {}
        for ev in events:
            tag, k, f, epilog = ev[:4]
            loop = self.core.C.by_tag(tag).beta[:k]
            out.setdefault((loop, k, f, epilog), []).append(ev)
        return list(out.values())

    def _unroll(self, batch) -> list[tuple[int, list[Rel]]]:
        """Record the steps of one batch of events (see the module docstring,
        3); return the parts made, with their target members."""
        core = self.core
        rec = core.rec
        C = core.C
        _, k, f, epilog = batch[0][:4]
        tags = [ev[0] for ev in batch]
        # α_k into the class the main part keeps
        shifts = {}
        for tag, _, _, _, a, _ in batch:
            r = C.by_tag(tag)
            shifts[tag] = _class_steps(r.alphas[k - 1], a, k - 1, f)
            if shifts[tag] is None:
                raise WhiteboxError(
                    f"cannot unroll the loop at depth {k} of {r.stmt} by {f}: its dimension "
                    f"{r.alphas[k - 1].text()} is not in the class the target's main part "
                    f"keeps ({a.text()} a multiple of {f})")
        name = C.by_tag(tags[0]).stmt
        snap = core.snapshot()
        # the relations to unroll in a loop of their own: first in their
        # loop, or last (after the statements they depend on)
        for last in (False, True):
            self._isolate(C.by_tag(tags[0]).beta[:k], set(tags), last)
            self._into_class(k, tags, shifts, name)
            if core.oracle is None or core.oracle(C):
                break
            core.restore(snap)
        else:
            raise _EarlyError(
                f"cannot unroll the loop at depth {k} of {name} early: separating it or "
                "shifting it into the target's residue class breaks a dependence")
        fresh: dict[tuple, int] = {}

        def new_tag(r, m):
            fresh[(r.tag, m)] = core._fresh()
            return fresh[(r.tag, m)]
        directive = "unroll" if epilog else "unroll_noepilog"
        rec.do(directive, C.by_tag(tags[0]).beta[:k], f, new_tag=new_tag,
               comment=f"unroll the loop by {f}" + ("" if epilog else " (no epilog)"))
        work = []
        for tag, _, _, _, _, pieces in batch:
            ptags = [tag] + [fresh[(tag, m)] for m in range(1, len(pieces))]
            for pt, members in zip(ptags, pieces):
                self.refresh(C.by_tag(pt))
                work.append((pt, members))
        self._take_spares(work)
        for pt, members in work:
            if not members:
                raise WhiteboxError(f"internal: an unrolled part of {C.by_tag(pt).stmt} has "
                                    "no target part")
        return work

    def _take_spares(self, work: list[tuple[int, list[Rel]]]) -> None:
        """Give the parts just made without a target part (the empty copies
        of a second unroll of one loop) spare target parts of their
        statement: those nearest (longest common β prefix) to the target
        parts of the unrolled loop, in β order on both sides (Clay puts
        copy m of the loop's children in the children's order)."""
        C = self.C
        for stmt in {C.by_tag(pt).stmt for pt, members in work if not members}:
            free = [(pt, members) for pt, members in work
                    if not members and C.by_tag(pt).stmt == stmt]
            pool = self.spare.get(stmt, [])
            if len(pool) < len(free):
                return
            near = [t.beta for _, members in work for t in members]

            def prefix(t):
                return max((_common(t.beta, b) for b in near), default=0)
            chosen = sorted(pool, key=lambda t: (-prefix(t), t.beta))[:len(free)]
            chosen.sort(key=lambda t: t.beta)
            free.sort(key=lambda w: C.by_tag(w[0]).beta)
            for (_, members), t in zip(free, chosen):
                members.append(t)
                pool.remove(t)

    def _into_class(self, k: int, tags: list[int], shifts: dict, name: str) -> None:
        """Record the steps ``shifts`` that put α_k of the relations ``tags``
        in the unrolled class: once on their loop when it holds only them
        and they need the same steps, else on each."""
        C = self.C
        loop = C.by_tag(tags[0]).beta[:k]
        under = {x.tag for x in C.under(loop)}
        if len({tuple(map(repr, s)) for s in shifts.values()}) == 1 and under == set(tags):
            todo = [(loop, shifts[tags[0]])]
        else:
            todo = [(C.by_tag(t).beta, shifts[t]) for t in tags]
        for beta, steps in todo:
            for st in steps:
                comment = f"put {name}'s loop at depth {k} in the unrolled class"
                if st[0] == "reshape":
                    self.core.rec.do("reshape", beta, k, st[1] + 1, st[2], comment=comment)
                else:
                    self.core.rec.do("shift", beta, k, st[1], comment=comment)

    def _isolate(self, loop: tuple, tags: set, last: bool = False) -> None:
        """Make ``loop`` hold only relations of ``tags`` (the others go to a
        loop right after it, or, ``last``, right before it), by ``reorder``
        and ``split`` from the inside out."""
        C = self.C
        if {x.tag for x in C.under(loop)} <= tags:
            return
        while True:
            kids = C.children(loop)
            mixed = next((c for c in kids if C.is_loop(c) and not self._pure(c, tags)), None)
            if mixed is None:
                break
            self._isolate(mixed, tags, last)
        kids = C.children(loop)
        mine = [i for i, c in enumerate(kids) if {x.tag for x in C.under(c)} <= tags]
        if not mine:
            return
        others = [i for i in range(len(kids)) if i not in mine]
        seq = others + mine if last else mine + others
        order = [0] * len(kids)
        for pos, i in enumerate(seq):
            order[i] = pos
        if order != list(range(len(kids))):
            self.core.rec.do("reorder", loop, order,
                             comment=f"the statements to unroll {'last' if last else 'first'}")
        cut = C.children(loop)[(len(others) if last else len(mine)) - 1]
        self.core.rec.do("split", C.under(cut)[-1].beta, len(loop),
                         comment="the statements to unroll in a loop of their own")

    @property
    def C(self):
        return self.core.C

    def _pure(self, c: tuple, tags: set) -> bool:
        ts = {x.tag for x in self.C.under(c)}
        return ts <= tags or not (ts & tags)


class _EarlyError(WhiteboxError):
    """A batch of unrolls whose loop cannot be separated (or put in the
    unrolled class) legally (:meth:`Unrolls._round` tries others)."""


def _common(a: tuple, b: tuple) -> int:
    """The length of the common prefix of ``a`` and ``b``."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _no_relation(t: Rel) -> bool:
    """Is the target part ``t`` a relation without any instance whatever
    the domain (:func:`.model._empty_relation`'s ``-1 >= 0``)?"""
    return t.empty and t.dom is None and t.cons == [Aff.const(-1)]


def _relative(t: isl.Set, P: isl.Set, stdom: isl.Set) -> isl.Set:
    """Conditions that cut ``t`` out of ``P`` (``P ∩ result = t``): convex
    ones when there are (isl's gist, or the hull of ``t`` without its
    strides, for a part of a strided ``P``), else the gist."""
    g = t.gist(P).coalesce()
    if _convex(g) or t.is_empty():
        return g
    c = isl.Set.from_basic_set(t.remove_divs().polyhedral_hull())
    if P.intersect(c).is_equal(t):
        c = c.gist(stdom).coalesce()
        if _convex(c):
            return c
    return g


def _same_class(a: Aff, b: Aff, f: int) -> bool:
    """Do ``a ≡ 0`` and ``b ≡ 0`` (mod ``f``) hold at the same points (``a``
    a unit multiple of ``b`` modulo ``f``, coefficient by coefficient)?"""
    for u in range(1, f):
        if gcd(u, f) != 1:
            continue
        keys = set(a.c) | set(b.c)
        if all((int(a[x]) - u * int(b[x])) % f == 0 for x in keys):
            return True
    return False


def _class_steps(g: Aff, a: Aff, k: int, f: int):
    """Steps that turn α ``g`` into a form with the points ``g' ≡ 0 (mod
    f)`` those of ``a ≡ 0``: ``("reshape", iterator, amount)`` and
    ``("shift", amount)`` (an :class:`Aff` of parameters and constant), or
    None when ``g`` cannot be brought there (divs, a coefficient of the
    loop's iterator not prime to ``f``)."""
    key = it(k)
    if g.keys("d") or a.keys("d") or not g.is_integral or not a.is_integral:
        return None
    gamma, eps = int(g[key]) % f, int(a[key]) % f
    if gcd(gamma, f) != 1 or gcd(eps, f) != 1:
        return None
    u = gamma * pow(eps, -1, f) % f
    delta = {}
    for x in set(g.c) | set(a.c):
        v = (int(g[x]) - u * int(a[x])) % f
        if v > f // 2:
            v -= f
        if v:
            delta[x] = v
    steps = []
    for x in sorted((x for x in delta if x[0] == "i"), key=str):
        if x == key:
            return None
        steps.append(("reshape", x[1], delta[x]))
    rest = Aff({x: v for x, v in delta.items() if x[0] != "i"})
    if not rest.is_zero:
        steps.append(("shift", rest))
    return steps


def _with_empties(pieces: list[list[Rel]], empties: list[Rel]) -> list[list[Rel]]:
    """Target parts with no instance go to the computed parts that have
    none, in order."""
    if not empties:
        return pieces
    out = [list(p) for p in pieces]
    free = [j for j, p in enumerate(out) if not p]
    if len(free) < len(empties):
        raise WhiteboxError(f"the target has more parts of {empties[0].stmt} without instances "
                            "than its unroll makes")
    for t, j in zip(empties, free):
        out[j].append(t)
    return out


# --- a densify of an unroll's part -------------------------------------------------------

def undensify_once(T: Sched, found: list[Step]) -> bool:
    """Undo a ``densify`` of the loop at depth ``d`` of unroll parts (their
    α_d takes only multiples of ``g`` there: clayx's densify divides it, and
    the part reads ``floor(e / g)``, exact on its instances): under the
    outermost prefix where every relation's α_d is such a quotient by the
    same ``g`` (an empty part: any), α_d becomes ``g`` times it (``e``, or
    ``e - c`` where ``e`` is ``c`` modulo ``g`` on the part: a copy), and
    ``densify(prefix, d)`` is the direct step, when it divides by ``g``
    exactly (:func:`.model.densify_factor`).  Only a quotient the other
    dimensions need (its ``e`` not spanned by them: not the chunk of a
    point loop) is read so."""
    for r in T.rels:
        if r.dom is None or r.empty:
            continue
        for d, a in enumerate(r.alphas, 1):
            first = _undensified(r, d, T.divs)
            if first is None:
                continue
            g = first[1]
            for m in [*range(max(1, d), len(r.beta)), len(r.beta)]:
                p = r.beta[:m]
                X = T.copy()
                group = X.under(p)
                ok = any(not x.empty for x in group)
                for x in group:
                    u = _undensified(x, d, T.divs) if x.depth >= d else None
                    if u is not None and u[1] == g:
                        x.alphas[d - 1] = x.canon(u[0])
                    elif x.empty and x.depth >= d and x.alphas[d - 1].is_integral:
                        x.alphas[d - 1] = x.alphas[d - 1].scale(g)
                    else:
                        ok = False
                        break
                if not ok or densify_factor(X.under(p), d, X.divs) != g:
                    continue
                T.rels = X.rels
                found.append(Step("densify", (p, d)))
                return True
    return False


def _residue(inst: isl.Set, num: Aff, den: int, divs: Divs) -> int | None:
    """The ``c`` in ``[0, den)`` with ``num ≡ c (mod den)`` at every point of
    the non-empty set ``inst``, or None: the only candidate is the residue
    at one point of ``inst`` (one isl check, not one per residue)."""
    pt = inst.sample_point()
    c = int(_value(num, pt, inst, divs)) % den
    return c if inst.is_subset(multiples(inst, num - Aff.const(c), den, divs)) else None


def _value(a: Aff, pt: isl.Point, s: isl.Set, divs: Divs) -> Fraction:
    """The value of the form ``a`` at the point ``pt`` of ``s`` (a set of a
    statement's instances: iterator ``k`` is its dimension ``k``)."""
    out = Fraction(0)
    for k, v in a.c.items():
        if k[0] == "i":
            x = Fraction(pt.get_coordinate_val(_dt.set, k[1]).to_python())
        elif k[0] == "p":
            x = Fraction(pt.get_coordinate_val(
                _dt.param, s.find_dim_by_name(_dt.param, k[1])).to_python())
        elif k[0] == "d":
            num, den = divs.of(k)
            x = Fraction(_value(num, pt, s, divs) // den)
        else:
            x = Fraction(1)
        out += Fraction(v) * x
    return out


def _undensified(r: Rel, d: int, divs: Divs) -> tuple[Aff, int] | None:
    """``(g · α_d, g)`` for α ``d`` of ``r`` whose divs are affine on the
    part's instances (``floor(e / s)`` with ``e`` one residue ``c`` modulo
    ``s`` there: ``(e - c) / s``) and whose form with them so replaced has
    denominators (``g`` their lcm), when the other dimensions do not span
    it; else None."""
    a = r.alphas[d - 1]
    ks = a.keys("d")
    if not ks or r.dom is None:
        return None
    inst = instances(r, divs)
    if inst.is_empty():
        return None
    sub = a
    for k in ks:
        num, den = divs.of(k)
        # floor(num / den) = (num - rem) / den when num ≡ rem on the part
        rem = _residue(inst, num, den, divs)
        if rem is None:
            return None
        sub = sub.substitute(k, (num - Aff.const(rem)).scale(Fraction(1, den)))
    g = 1
    for v in sub.c.values():
        g = lcm(g, Fraction(v).denominator)
    if g == 1:
        return None
    old = sub.scale(g).integral()
    keys = [it(k) for k in r.free]
    basis: list[Aff] = []             # independent rows of the other dimensions
    for j, x in enumerate(r.alphas):
        row = x.part("i")
        if j != d - 1 and not row.is_zero and (not basis or solve(basis, row, keys) is None):
            basis.append(row)
    mine = old.part("i")
    if mine.is_zero or basis and solve(basis, mine, keys) is not None:
        return None                   # spanned by the others: a chunk, not a quotient
    return old, g
