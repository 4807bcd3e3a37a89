"""Recovering a Clay directive sequence between two schedules (the Chlore
algorithm of seed 004 §6, made legality-aware).

Input: the symbolic original ``O`` and target ``T`` (:mod:`.model`), with
the same statements.  Output: steps that turn ``O`` into ``T`` exactly.
The work is in four modules:

1. :mod:`.tiling`: the target's complementary transformations
   (``tile``/``stripmine``, ``grain``, skews of strip-mined dimensions),
   reduced away as early as possible, their direct steps ending the
   sequence in reverse order (:func:`~.tiling.reduce`);
2. and 3. :mod:`.core`: on the core target left, index-set splitting
   (``iss``, unrolls by :mod:`.unrolls`), then β matching and the
   unimodular recovery of the α part, level by level (:class:`~.core.Core`);
4. here: the target's marks (``parallelize``, ``vectorize``,
   ``unroll_mark``), and the drivers that retry when a way fails: the
   careful recovery, index-set splits made after the tiling read late
   (:func:`_late_splits`), strip-mines of one half undone first, the steps
   reordered or paired steps left out until each is legal
   (:func:`_legal_order`, :func:`_legal_post`);

:mod:`.algebra` holds the linear algebra of α rows they share.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from .algebra import (full_rank_path, independent_rows, iter_keys, reshape_plan, row_rank,
                      shifted_div, solve)
from .core import Core, image_forms
from .model import Aff, Rel, Sched, WhiteboxError, equalities, on_alphas
from .steps import Recorder, Step
from .tiling import (FREE_EMPTIES, chunk_in, chunk_of_chunk, linearize_once, note_fallback,
                     reduce, replays_to, shared_chunks)

__all__ = ["MAX_LATE_LEVELS", "alpha_form", "recover"]


#: How many levels of index-set splits made after the tiling
#: :func:`recover` reads (each merges pairs of parts, :func:`_late_splits`).
MAX_LATE_LEVELS = 4


def recover(O: Sched, T: Sched, names: dict | None = None,
            oracle=None, careful: bool = False,
            free_empties: bool = False) -> tuple[list[Step], Sched]:
    """Steps from ``O`` to ``T`` (both symbolic, ``T``'s relations tagged
    0…n-1, ``O`` untagged; neither is modified), and the schedule they
    reach (equal to ``T``).  ``oracle(sched) -> bool`` says whether a
    symbolic schedule is legal; with one, the α steps that change relations
    of a shared loop separately are checked and reordered when an order
    breaks a dependence.  ``careful`` (with an oracle): every reduced
    target and the state after every α step group are checked, and other
    choices tried where one is illegal (slower; :func:`clayx.whitebox.whitebox`
    asks for it when a sequence recovered without it fails its replay).

    When that fails and a statement of the target is split in two parts
    with the same dimensions, side by side in a loop that holds only them,
    by an inequality that needs its strip-mined dimensions (an ``iss``
    after a tile: the parts look strided) or whose split before the tile
    breaks a dependence, the target is recovered with the two parts as one
    relation, and split last (:func:`_late_splits`; the parts paired inside
    out, then outside in, then with splits of empty halves too); each
    pairing also with the pairs of such merged relations merged again
    (several splits after the tile, the earlier ones made first; at most
    :data:`MAX_LATE_LEVELS`).  Last, where one half was strip-mined alone
    after the split (and split out of the loop after that), those steps are
    undone first and made after the split (:func:`_parted_strip_mines`);
    then, where a split made after the tiling put its halves in two
    sibling loops (a ``peel``: an ``iss`` then a ``split``), that ``split``
    is undone, and the parts paired deepest first (:func:`_unsplit`,
    ``deepest`` of :func:`_late_splits`).

    Careful, the repairs of :func:`~.tiling.reduce` and :func:`_legal_post` are
    made first; when that fails, the recovery is tried again without them
    (a repaired reduction can lead to a dead end that the plain careful
    one avoids: bicg fuzz seed 63234).

    ``free_empties``: the target's empty parts (no instance) get no
    reduction step of their own (:func:`~.tiling._groups`), their strip-mined
    dimensions are dropped instead: they go along with the loops they
    share, whatever dimensions that gives them (whitebox's last try, when
    the steps that reduce them leave dimensions a ``reshape`` makes
    dependent; the shorter scripts are usually those that reduce them)."""
    token = FREE_EMPTIES.set(free_empties)
    try:
        return _recover_all(O, T, names, oracle, careful)
    finally:
        FREE_EMPTIES.reset(token)


def _recover_all(O: Sched, T: Sched, names: dict | None, oracle,
                 careful: bool) -> tuple[list[Step], Sched]:
    """:func:`recover`."""
    try:
        return _recover(O, T, names, oracle, careful)
    except WhiteboxError as e:
        note_fallback(oracle, e)
        if careful and oracle is not None:
            try:
                return _recover(O, T, names, oracle, careful, repair=False)
            except WhiteboxError:
                pass
        # the parts paired inside out, then (an iss of an outer loop made
        # after the tile, one of an inner loop before it) outside in, then
        # with splits by a constant (of empty halves); each pairing level
        # by level (the merged pairs merged again)
        tried = []
        for outer, constant in ((False, False), (True, False), (False, True)):
            for X, splits in _leveled(T, oracle, outer=outer, constant=constant):
                if splits in tried:
                    continue        # (the same pairs another way: tried once)
                tried.append(splits)
                try:
                    return _recover(O, X, names, oracle, careful, splits)
                except WhiteboxError:
                    pass
        # last: a part strip-mined alone after the split, its strip-mine
        # (and a split of its loop after it) undone first so that it pairs
        # with the other half
        for late, tail in _parted_strip_mines(T, oracle):
            if late[1] in tried:
                continue
            tried.append(late[1])
            try:
                return _recover(O, late[0], names, oracle, careful, late[1], tail=tail)
            except WhiteboxError:
                pass
        # last: a split made after the tiling that was a ``peel`` (its
        # halves in two sibling loops: the ``split`` of the loop after the
        # ``iss`` undone, :func:`_unsplit`), beneath a split of an outer
        # loop made before it; the parts paired deepest first
        for Y, tail in _unsplit(T, oracle):
            for X, splits in _leveled(Y, oracle, deepest=True):
                if (splits, tail) in tried:
                    continue
                tried.append((splits, tail))
                try:
                    return _recover(O, X, names, oracle, careful, splits, tail=tail)
                except WhiteboxError:
                    pass
        raise e from None


def _leveled(T: Sched, oracle, **how):
    """``(X, splits)``: :func:`_late_splits` of ``T`` (paired as ``how``
    says) level by level, the merged pairs merged again (at most
    :data:`MAX_LATE_LEVELS`): the target with every level's pairs merged
    and its splits, the earlier ones first."""
    X, splits = T, []
    for _ in range(MAX_LATE_LEVELS):
        late = _late_splits(X, oracle, **how)
        if late is None:
            return
        X, splits = late[0], late[1] + splits
        yield X, splits


def _parted_strip_mines(T: Sched, oracle):
    """``(late, tail)``: :func:`_late_splits` of ``T`` with one chunk
    dimension removed (a ``linearize`` of one strip-mine, a chunk of a tile
    loop read as one even beside its point loop, :func:`~.tiling.chunk_of_chunk`),
    after a ``split`` undone (:func:`_unsplit`) or not, where that leaves
    parts that pair again, and ``tail``, the direct steps to make after the
    late ``iss``: a strip-mine of one half of an ``iss`` made after it, of
    a tile loop the iss's other half shares with it, that half then split
    out of the loop perhaps (trmm fuzz seed 59225: ``tile`` of S0 alone,
    ``iss`` of the loop, ``stripmine`` of S0's first half, ``split`` of it
    from the rest).  Nothing without an oracle."""
    if oracle is None:
        return
    for Y, after in _unsplit(T, oracle):
        X = Y.copy()
        chunk_of_chunk(X, True)
        found: list[Step] = []
        if linearize_once(X, found, oracle) and oracle(X):
            late = _late_splits(X, oracle)
            if late is not None:
                yield late, list(reversed(found)) + after


def _unsplit(T: Sched, oracle):
    """``(T, [])``, then ``(X, [split])`` for each ``split`` of a loop after
    one relation that ``T`` shows and that leaves it legal undone (the loop
    fused back with its next sibling, and each loop inside it around that
    relation: ``X``): a half of an ``iss`` moved out of the loop alone
    after it (trmm fuzz seed 59225: S0's first half split from the rest)."""
    yield T, []
    for r in T.rels:
        for d in range(1, len(r.beta)):
            loop = r.beta[:d]
            sibs = T.children(loop[:-1])
            k = sibs.index(loop)
            if k + 1 == len(sibs) or not T.is_loop(sibs[k + 1]) or max(
                    x.beta for x in T.under(loop)) != r.beta:
                continue        # (the split cuts right after r's subtree)
            X = T.copy()
            X.fuse(loop)
            for m in range(d + 1, len(r.beta)):
                inner = X.by_tag(r.tag).beta[:m]
                sibs = X.children(inner[:-1])
                k = sibs.index(inner)
                if k + 1 < len(sibs) and X.is_loop(inner) and X.is_loop(sibs[k + 1]):
                    X.fuse(inner)
            step = Step("split", (X.by_tag(r.tag).beta, d))
            Y = X.copy()
            Y.split(*step.args)
            if [x.beta for x in Y.rels] == [x.beta for x in T.rels] and oracle(X):
                yield X, [step]


def _recover(O: Sched, T: Sched, names: dict | None, oracle, careful: bool,
             splits: Sequence[tuple] = (), repair: bool = True,
             tail: Sequence[Step] = ()) -> tuple[list[Step], Sched]:
    """:func:`recover`, with the index-set ``splits`` of
    :func:`_late_splits` made after the target's tiling, and the steps
    ``tail`` after them (each checked with the oracle)."""
    O = O.copy()
    target = T.copy()
    core_T = T.copy()
    post = reduce(core_T, oracle, careful, repair)
    for r in O.rels:
        for a in r.alphas:
            if a.keys("d"):
                raise WhiteboxError(
                    f"the schedule to start from strip-mines {r.stmt}: whitebox from a "
                    "schedule without tiles (the original)")
    for r in core_T.rels:
        if not r.empty and row_rank([a.part("i") for a in r.alphas], iter_keys(r)) != len(r.free):
            raise WhiteboxError(
                f"the target gives several instances of {r.stmt} the same date (once its "
                "tiles are removed, its dimensions do not determine its iterators)")
    rec = Recorder(O)
    rec.names = names or {}
    core = Core(rec, core_T, oracle, careful)
    core.split_parts()
    for r in list(rec.sched.rels):
        extra = core_T.by_tag(r.tag).depth - r.depth
        for _ in range(extra):
            cur = rec.sched.by_tag(r.tag)
            rec.do("embed", cur.beta, comment=f"a one-iteration loop around {r.stmt}")
    core.process()
    post = _legal_order(rec.sched, post, oracle)
    if careful and repair and oracle is not None:
        post = _legal_post(rec.sched, post, oracle) or post
    for st in post:
        rec.do(st.name, *st.args, comment=_post_comment(st))
        if careful and oracle is not None and not oracle(rec.sched):
            # a reduction that undid several steps at once checked the
            # schedules before and after them, not the ones in between
            raise WhiteboxError(
                f"cannot order the target's tiling legally: its step "
                f"{st.text(rec.sched.params)}"
                " breaks a dependence on the way, and "
                "the recovery knows no other order of the steps that tile the target")
    for loop, form, parts, fixes in splits:
        ineq = next(iter(parts.values()))[0]
        rec.do("iss", loop, ineq, form, new_tag=lambda x, parts=parts: parts[x.tag][1],
               comment="split the loop by its tile loops")
        for tag, (c, copy) in parts.items():
            # each relation's inequality on its own α dimensions
            rec.sched.by_tag(tag).cons[-1] = c
            rec.sched.by_tag(copy).cons[-1] = -c - Aff.const(1)
        if oracle is not None:
            core._refresh(*parts, *(copy for _, copy in parts.values()))
            _late_alphas(rec, fixes, core if careful else None)
            if not oracle(rec.sched):
                raise WhiteboxError("an index-set split made after the tiling breaks a "
                                    "dependence")
    for st in tail:
        rec.do(st.name, *st.args, comment=_post_comment(st))
        if oracle is not None and not oracle(rec.sched):
            raise WhiteboxError(f"the step {st.text(rec.sched.params)} made after an index-set "
                                "split breaks a dependence")
    for kind, loop, arg in target.marks:
        if kind == "parallel":
            rec.do("parallelize", loop, comment="run this loop in parallel")
        elif kind == "vectorize":
            rec.do("vectorize", loop, comment="vectorize this loop")
        elif kind == "unroll":
            rec.do("unroll_mark", loop, arg, comment="ask the compiler to unroll this loop")
    return rec.steps, rec.sched


def _first_diff(a: Rel, b: Rel) -> int:
    """The first level where the β of ``a`` and ``b`` differ."""
    return next((k for k, (x, y) in enumerate(zip(a.beta, b.beta)) if x != y),
                min(len(a.beta), len(b.beta)))


def _late_splits(T: Sched, oracle, outer: bool = False, constant: bool = False,
                 deepest: bool = False) -> tuple[Sched, list[tuple]] | None:
    """``T`` with the statements split in two parts that one ``iss`` of
    their loop can make last as one relation each, and the splits
    ``(loop, (α coefficients, rest), {tag: (inequality, tag of its copy)},
    {tag: α dimensions})`` (None when there is none, or no oracle).  Such a
    loop holds only pairs of parts of its statements, the first parts then
    the second ones in the same order, the two of a pair with the same α
    dimensions up to steps of one part after the split (a ``reshape`` or
    ``shift`` of one half: the last dict, the α dimensions those parts get
    then, :func:`_late_alphas`) or to the iterators one part fixes; the
    merged relation has the α dimensions of the other part (the one with
    fewer fixed iterators, and whose dimensions in both halves keep the
    target legal).  The inequality is one of the first part's instances
    (over its iterators, strip-mined dimensions and parameters) that the
    second part's instances all break, of one integral form on the α
    dimensions for all pairs (Clay's ``iss`` on the α dimensions: its form
    on the iterators differs where the pairs' dimensions do), read from
    the constraints of a pair's first part or of its dates.  ``outer``: a
    part is paired with the one it differs from at the outermost level (by
    default, at the innermost: the split made last is of an inner loop).
    ``constant``: also a split whose first or second parts have no
    instance, by a constant inequality (else left to the core).
    ``deepest``: the pairs of parts that differ at the deepest level are
    taken first, whatever their β order (a part of a split made last,
    paired with its other half, not with a half of an earlier split of an
    outer loop: trmm fuzz seed 119075, an ``iss`` of tile loops, then a
    ``peel`` of one half's inner loop).  The divs
    of ``T`` (a copy) are first read as one per tile loop
    (:func:`~.tiling.shared_chunks`: isl writes a tile loop ``floor(j / 4)`` in one
    half, ``-floor((-j - 1) / 4) - 1`` in the other; syrk fuzz seed 45229)."""
    if oracle is None:
        return None
    import islpy as isl

    from .model import constraints, instances
    T = T.copy()
    while shared_chunks(T):
        pass                # one div per tile loop: halves written alike compare equal
    by: dict[str, list[Rel]] = {}
    for r in T.rels:
        by.setdefault(r.stmt, []).append(r)
    loops: dict[tuple, list[tuple[Rel, Rel]]] = {}
    for rs in by.values():
        rs = sorted(rs, key=lambda r: r.beta)
        used: set[int] = set()
        # the same α dimensions first (deepest: the deepest pairs first)
        cands = [(strict, a, b) for strict in (True, False) for a in rs
                 for b in (sorted(rs, key=lambda b: _first_diff(a, b)) if outer else rs)]
        if deepest:
            cands.sort(key=lambda c: (-_first_diff(c[1], c[2]), not c[0]))
        for strict, a, b in cands:
            diff = [k for k in range(min(len(a.beta), len(b.beta)))
                    if a.beta[k] != b.beta[k]]
            if (a.tag not in used and b.tag not in used and len(a.beta) == len(b.beta)
                    and a.stdom is not None and len(diff) == 1 and diff[0] > 0
                    and b.beta[diff[0]] > a.beta[diff[0]]
                    and (a.alphas == b.alphas if strict else _akin(a, b, T.divs))):
                used |= {a.tag, b.tag}
                loops.setdefault(a.beta[:diff[0]], []).append((a, b))
    T2 = T.copy()
    splits = []
    done: set[tuple] = set()
    merged_tags: set = set()
    for loop, pairs in list(loops.items()) + _halves(T):
        # the first parts' children of the loop, then the second ones alike
        # (a child may hold several pairs: an iss of a loop around a loop)
        d = len(loop)
        n = len({a.beta[d] for a, _ in pairs})
        if loop in done or any(r.tag in merged_tags for pair in pairs for r in pair):
            continue                # (a loop's pairs hold those of a loop inside)
        if ({x.tag for x in T.under(loop)} != {r.tag for pair in pairs for r in pair}
                or any(b.beta[d] != a.beta[d] + n for a, b in pairs)):
            continue
        bases = [_base(T, a, b, oracle) for a, b in pairs]
        if any(x is None for x in bases):
            continue
        sets = [(base, instances(a, T.divs), instances(b, T.divs))
                for base, (a, b) in zip(bases, pairs)]
        found = None
        if not constant and all(A.is_empty() for _, A, _ in sets):
            continue                # first parts without instances: no inequality to read
        # the inequality on the iterators of a first part, or on its dates
        # (of each pair: isl writes it on the dates of one statement with
        # the others' dimensions its tile loop is made of); last, a constant
        # (a split whose first or second parts have no instance: a peel of
        # the empty end of a loop, trmm fuzz seed 37135)
        forms = [alpha_form(first, f) for first, A0, _ in sets if not A0.is_empty()
                 for bset in A0.get_basic_sets()
                 for c in constraints(isl.Set.from_basic_set(bset), T.divs, T.params,
                                      with_divs=True)
                 for f in (c, *_refloored(T, first, c))]
        forms += [f for first, A0, _ in sets for f in image_forms(first, A0, T.divs)]
        forms += [((), Aff.const(-1)), ((), Aff())] if constant else []
        for form in dict.fromkeys(forms):
            if form is None:
                continue
            if any(len(form[0]) > a.depth for a, _, _ in sets):
                continue            # a form on dimensions a pair lacks
            # on each pair's merged dimensions, by the tag of its first part
            ineqs = {a.tag: on_alphas(x, form) for (a, _), (x, _, _) in zip(pairs, sets)}
            if all(A.is_subset(_half(x, ineqs[a.tag], T.divs))
                   and B.is_subset(_half(x, -ineqs[a.tag] - Aff.const(1), T.divs))
                   for (a, _), (x, A, B) in zip(pairs, sets)):
                found = (form, ineqs)
                break
        if found is None:
            continue
        # (a second half without instances: the pair is its first half)
        merged = [a if B.is_empty() else _merged_cons(a, b, A, B, T)
                  for (a, b), (_, A, B) in zip(pairs, sets)]
        fixes = {}
        for (a, b), cons, base in zip(pairs, merged, bases):
            m = T2.by_tag(a.tag)
            m.alphas = list(base.alphas)
            for x in (a, b):
                if not _same_alphas(x, base.alphas, T.divs):
                    fixes[x.tag] = list(x.alphas)
            if isinstance(cons, list):
                m.cons = cons
                m.dom = None
                m.empty = False
                m.elim = oracle.elim(a.stmt, m.cons)
            elif cons is not a:         # a union with strides: a part of an earlier split
                m.cons, m.dom, m.empty = [], cons, False
                m.elim = equalities(cons, T.params)
            T2.rels = [x for x in T2.rels if x.tag != b.tag]
        splits.append((loop, found[0], {a.tag: (found[1][a.tag], b.tag) for a, b in pairs},
                       fixes))
        done.add(loop)
        merged_tags.update(r.tag for pair in pairs for r in pair)
    return (T2, splits) if splits else None


def _refloored(T: Sched, r: Rel, c: Aff) -> list[Aff]:
    """The inequality ``c ≥ 0`` of ``r``'s instances written with a chunk
    dimension ``α_t = floor(e / s)`` of ``r`` where isl removed that floor
    exactly (``floor(e / s) + R ≥ 0`` is ``e + s·R ≥ 0``, ``-floor(e / s) +
    R ≥ 0`` is ``-e + s·R + s - 1 ≥ 0``): an ``iss`` on the tile loops
    made after a tile (gemm fuzz seed 70090: ``floor(i / 96) - floor(i / 32)
    + i - nk + 1 ≥ 0`` comes as ``32·floor(i / 96) + 31i - 32nk + 63 ≥
    0``).  One form per chunk dimension that fits, the same inequality on
    the instances.  A chunk dimension isl wrote as a div plus iterators is
    read as the chunk it is (:func:`~.tiling.chunk_in`: ``floor(j / 2) - j`` is
    ``floor(-j / 2)``, a tile of a reversed loop: trmm fuzz seed 94205)."""
    out = []
    for a in r.alphas:
        k = shifted_div(a)
        if k is not None:
            chunk, (e, size) = Aff.var(k), T.divs.of(k)
        elif a.keys("i") and (ch := chunk_in(T, r, a)) is not None:
            chunk, (e, size) = a, ch
        else:
            continue
        for sign, rest in ((1, c - e), (-1, c + e - Aff.const(size - 1))):
            R = rest.scale(Fraction(1, size))
            if R.is_integral:
                out.append(chunk.scale(sign) + R.integral())
    return out


def _halves(T: Sched) -> list[tuple[tuple, list[tuple[Rel, Rel]]]]:
    """The loops of ``T`` whose 2n children are pairs of parts, child k and
    child k + n, each pair of one statement with the same β below the
    loop and akin α dimensions (:func:`_akin`), as ``(loop, pairs)``: an
    ``iss`` of a loop whose statements an earlier ``iss`` split too (the
    first pairing of :func:`_late_splits` pairs the parts of one
    statement that come first, here the halves of the earlier split;
    bicg fuzz seed 56024)."""
    out = []
    loops = {r.beta[:m] for r in T.rels for m in range(1, len(r.beta))}
    for loop in sorted(loops):
        d = len(loop)
        under = T.under(loop)
        m = 1 + max(r.beta[d] for r in under)
        if m % 2 or m < 4:
            continue
        by = {r.beta: r for r in under}
        pairs = []
        for a in under:
            if a.beta[d] >= m // 2:
                continue
            b = by.get(a.beta[:d] + (a.beta[d] + m // 2,) + a.beta[d + 1:])
            if b is None or b.stmt != a.stmt or a.stdom is None or not _akin(a, b, T.divs):
                break
            pairs.append((a, b))
        else:
            if 2 * len(pairs) == len(under):
                out.append((loop, pairs))
    return out


def _akin(a: Rel, b: Rel, divs) -> bool:
    """Can ``a`` and ``b`` be halves of one relation split last: the same
    α dimensions on the instances of one of them, or up to a reshape or
    shift of one (a difference without strip-mined dimensions)?"""
    if len(a.alphas) != len(b.alphas) or a.stdom is None or b.stdom is None:
        return False
    if a.alphas == b.alphas:
        return True
    if all(not (x - y).keys("d") for x, y in zip(a.alphas, b.alphas)):
        return True
    return _same_alphas(a, b.alphas, divs) or _same_alphas(b, a.alphas, divs) \
        or _skews_of(a, b.alphas, divs) is not None or _skews_of(b, a.alphas, divs) is not None


def _same_alphas(r: Rel, alphas: list[Aff], divs) -> bool:
    """Do ``alphas`` give ``r``'s instances the dates ``r``'s α dimensions
    give them?"""
    from .model import instances, same_on
    if [r.canon(v) for v in alphas] == r.alphas:
        return True
    inst = instances(r, divs)
    return all(same_on(inst, x, y, divs) for x, y in zip(r.alphas, alphas))


def _base(T: Sched, a: Rel, b: Rel, oracle) -> Rel | None:
    """The relation whose α dimensions the halves ``a`` and ``b`` have
    before the split (see :func:`_late_splits`): ``a`` or ``b`` (fewer
    fixed iterators first), the first that gives both halves α dimensions
    that are the other's up to its fixed iterators, or that keep the
    target legal when both halves have them; None if neither does."""
    for x, y in sorted(((a, b), (b, a)), key=lambda p: len(p[0].elim)):
        if _same_alphas(y, x.alphas, T.divs):
            return x
    for x, y in sorted(((a, b), (b, a)), key=lambda p: (_skewed_half(*p, T.divs),
                                                         len(p[0].elim))):
        X = T.copy()
        X.by_tag(y.tag).alphas = [y.canon(v) for v in x.alphas]
        if oracle(X):
            return x
    return None


def _late_alphas(rec: Recorder, fixes: dict, core: Core | None = None) -> None:
    """After a late split: the steps (``reshape`` s and a ``shift`` per
    dimension, on the part alone; ``skew`` s of its loop by its tile loops,
    :func:`_late_skews`) that give the parts of ``fixes`` their own α
    dimensions.  ``core`` (careful mode): each ``reshape`` checked with its
    oracle, the reshapes of a dimension in an order legal after each
    (:meth:`Core.in_legal_order`; trmm fuzz seed 150115's variant
    ``skew(…, 2, 1, 1)``: ``α1 + i0`` first breaks a dependence)."""
    for tag, alphas in fixes.items():
        for j, new in enumerate(alphas, 1):
            r = rec.sched.by_tag(tag)       # (a restore copies the relations)
            cur = r.alphas[j - 1]
            new = r.canon(new)
            if cur == new or _late_skews(rec, r, j, new):
                continue
            plan = reshape_plan(r, cur, new, j)
            if not full_rank_path(r, plan):
                raise WhiteboxError(f"cannot give a part of {r.stmt} split after its tiling "
                                    "its own dimensions: a reshape makes them dependent")

            def record(st: tuple, beta: tuple = r.beta, j: int = j) -> None:
                if st[0] == "reshape":
                    rec.do("reshape", beta, st[1], st[2], st[3], comment="reshape one half")
                else:
                    rec.do("shift", beta, j, st[2].integral(), comment="shift one half")

            def legal(tag: int = tag,
                      full: int = row_rank([a.part("i") for a in r.alphas], iter_keys(r))) -> bool:
                x = rec.sched.by_tag(tag)
                return row_rank([a.part("i") for a in x.alphas], iter_keys(x)) >= full \
                    and core.oracle(rec.sched)

            if core is None:
                for st in plan:
                    record(st)
            elif not core.in_legal_order(plan, record, legal):
                raise WhiteboxError(f"cannot give a part of {r.stmt} split after its tiling "
                                    "its own dimensions: every order of its reshapes breaks "
                                    "a dependence on the way")
            r = rec.sched.by_tag(tag)
            if r.canon(r.alphas[j - 1]) != new:
                raise WhiteboxError(f"cannot give a part of {r.stmt} split after its tiling "
                                    "its own dimensions")


def _skews_of(a: Rel, alphas: list[Aff], divs=None) -> list[list[int]] | None:
    """How ``a``'s α dimensions are ``alphas`` skewed by the outer ones
    (by strip-mined dimensions: a ``skew`` of one half of a split made
    after the tiling, jacobi-2d fuzz seed 90138): for each dimension
    ``k``, the integral ``c`` with ``a.alphas[k] = alphas[k] +
    Σ c_l·a.alphas[l]`` (``l < k``); None when some difference is not
    such a sum, or when no difference has a strip-mined dimension (a
    ``reshape`` or ``shift`` does it, :func:`_akin`).  With ``divs``, a
    sum equal on ``a``'s instances will do (:func:`_skew_on`)."""
    if len(a.alphas) != len(alphas):
        return None
    out = []
    tiled = False
    for k, (x, y) in enumerate(zip(a.alphas, alphas)):
        c = _skew_by(a.alphas[:k], a.canon(x) - a.canon(y))
        if c is None and divs is not None:
            c = _skew_on(a, a.alphas[:k], a.canon(x) - a.canon(y), divs)
        if c is None:
            return None
        tiled = tiled or any(c)
        out.append(c)
    return out if tiled else None


def _skew_by(rows: list[Aff], diff: Aff) -> list[int] | None:
    """The integral ``c`` with ``diff = Σ c_l·rows[l]`` (zeros when ``diff``
    is zero), the sum needing a strip-mined dimension; None when there is
    none."""
    if diff.is_zero:
        return [0] * len(rows)
    if not diff.keys("d"):
        return None
    keys = sorted({k for a in list(rows) + [diff] for k in a.c}, key=str)
    basis = independent_rows(rows, keys)
    x = solve([rows[l - 1] for l in basis], diff, keys) if basis else None
    if x is None or any(v.denominator != 1 for v in x):
        return None
    c = [0] * len(rows)
    for l, v in zip(basis, x):
        c[l - 1] = int(v)
    return c


def _skewed_half(x: Rel, y: Rel, divs) -> bool:
    """Is ``x`` the half ``y`` skewed by its tile loops (:func:`_skews_of`),
    with more strip-mined terms than ``y``?  ``y`` is then the relation
    before the split (:func:`_base`): its tile loops read as such (a
    skewed one may not be)."""
    def terms(r):
        return sum(len(a.keys("d")) for a in r.alphas)
    return terms(x) > terms(y) and _skews_of(x, y.alphas, divs) is not None


def _skew_on(r: Rel, rows: list[Aff], diff: Aff, divs) -> list[int] | None:
    """Like :func:`_skew_by`, one row times a small factor equal to
    ``diff`` on ``r``'s instances (isl writes a tile of a tile loop with a
    div of its own: ``floor((-d0 - 1) / 32) + 1`` is ``-floor(j / 160)``
    on the instances, jacobi-2d ``tile(…, 5); tile(…, 32)``); None when
    none is."""
    from .model import instances, same_on
    if not diff.keys("d") or r.stdom is None:
        return None
    inst = None
    for l, row in enumerate(rows):
        if not row.keys("d"):
            continue                # a skew by a tile loop only
        for c in (1, -1, 2, -2):
            inst = instances(r, divs) if inst is None else inst
            if same_on(inst, diff, row.scale(c), divs):
                return [c if m == l else 0 for m in range(len(rows))]
    return None


def _late_skews(rec: Recorder, r: Rel, j: int, new: Aff) -> bool:
    """Make α ``j`` of ``r`` (a part split after the tiling) ``new`` by
    ``skew`` s of the largest loop that holds only ``r`` by its outer
    dimensions, when ``new`` is the current α ``j`` plus such a sum with
    strip-mined dimensions (:func:`_skew_by`); False when it is not."""
    from .model import instances, same_on
    C = rec.sched
    c = _skew_by(r.alphas[:j - 1], new - r.alphas[j - 1])
    if c is None:
        c = _skew_on(r, r.alphas[:j - 1], new - r.alphas[j - 1], C.divs)
    if c is None or not any(c):
        return False
    loop = next((r.beta[:m] for m in range(1, len(r.beta))
                 if [x.tag for x in C.under(r.beta[:m])] == [r.tag]), None)
    if loop is None:
        raise WhiteboxError(f"cannot skew a part of {r.stmt} split after its tiling alone: "
                            "no loop holds only it")
    for l, v in enumerate(c, 1):
        if v:
            rec.do("skew", loop, j, l, -v, comment="skew one half by its tile loops")
    if not same_on(instances(r, C.divs), r.canon(r.alphas[j - 1]), new, C.divs):
        raise WhiteboxError(f"cannot give a part of {r.stmt} split after its tiling "
                            "its own dimensions")
    return True


def _merged_cons(a: Rel, b: Rel, A, B, T: Sched):
    """The constraints of the relation ``a`` and ``b`` (instances ``A`` and
    ``B``) are halves of: the ones they share, or, for parts read with
    strides (their instances as isl sets), those of ``A ∪ B`` when it is
    convex without strides; else ``A ∪ B`` itself (an isl set: the part
    keeps strides, a half of a split made before this one, on the
    strip-mined dimensions too, that a later level of :func:`_late_splits`
    merges with its other half: seidel-2d fuzz seed 104006, an ``iss`` by
    the tile loops then a ``peel`` of a tile loop)."""
    U = A.union(B).coalesce()
    if a.dom is None and b.dom is None or U.is_empty():
        return [x for x in a.cons if x in b.cons]
    import islpy as isl

    from .model import constraints
    if len(U.get_basic_sets()) != 1 or any(x.dim(isl.dim_type.div) for x in U.get_basic_sets()):
        hull = _convex_union(U)
        if hull is None:
            return U
        U = hull
    U = U.gist(a.stdom).coalesce()
    return [] if U.plain_is_universe() else constraints(U, T.divs, T.params)


def _convex_union(U):
    """``U`` (an isl set: the union of two halves of a split) as one
    basic set without divs, when it is one: its simple hull (isl's
    cheap one: the polyhedral hull of such sets takes seconds), when that
    holds no other point.  isl does not coalesce a half it writes
    with strides and a half of one point (bicg fuzz seed 101294: an
    ``iss`` of tile loops whose second half has one instance, ``m = n =
    1``) into the convex set they make; None when the union is not
    convex."""
    import islpy as isl
    hull = isl.Set.from_basic_set(U.simple_hull())
    if any(x.dim(isl.dim_type.div) for x in hull.get_basic_sets()) or not hull.is_subset(U):
        return None
    return hull


def _half(r: Rel, c: Aff, divs):
    """The instances of ``r``'s statement where ``c ≥ 0`` (an isl set)."""
    from .model import instances
    x = r.copy()
    x.cons, x.dom = [c], None
    return instances(x, divs)


def alpha_form(r: Rel, c: Aff) -> tuple | None:
    """``c`` as integral coefficients of ``r``'s α dimensions and a rest of
    parameters and a constant (None when it is no such combination)."""
    keys = sorted({k for a in list(r.alphas) + [c] for k in a.keys("i") + a.keys("d")},
                  key=str)
    rows = [a.part("i", "d") for a in r.alphas]
    basis = independent_rows(rows, keys)
    x = solve([rows[l - 1] for l in basis], c.part("i", "d"), keys)
    if x is None or any(v.denominator != 1 for v in x):
        return None
    coef = [0] * len(rows)
    for l, v in zip(basis, x):
        coef[l - 1] = int(v)
    rest = c
    for l, v in enumerate(coef):
        rest = rest - r.alphas[l].scale(v)
    if rest.keys("i") or rest.keys("d"):
        return None
    while coef and not coef[-1]:
        coef.pop()                  # the same form for relations of other depths
    return tuple(coef), rest


def _legal_order(sched: Sched, steps: list[Step], oracle) -> list[Step]:
    """``steps`` with each run of consecutive ``grain`` s (they scale
    separate loops, so they commute) put in an order where every
    intermediate schedule from ``sched`` is legal, when one is found
    greedily (with an oracle; otherwise unchanged)."""
    if oracle is None or sum(st.name == "grain" for st in steps) < 2:
        return steps
    cur = sched.copy()
    out: list[Step] = []
    i = 0
    while i < len(steps):
        j = i
        while steps[i].name == "grain" and j + 1 < len(steps) and steps[j + 1].name == "grain":
            j += 1
        run = list(steps[i:j + 1])
        while run:
            pick = run[0]
            if len(run) > 1:
                for st in run:
                    trial = Recorder(cur.copy())
                    trial.do(st.name, *st.args)
                    if oracle(trial.sched):
                        pick = st
                        break
            run.remove(pick)
            out.append(pick)
            Recorder(cur).do(pick.name, *pick.args)
        i = j + 1
    return out


#: The steps whose pairs :func:`_legal_post` tries to leave out (each
#: undoes the other with the steps between them adjusted).
_PAIRED = frozenset({"interchange", "reverse"})


def _legal_post(sched: Sched, steps: list[Step], oracle) -> list[Step] | None:
    """``steps`` (direct steps from ``sched``) when every schedule after
    each of them is legal, else a variant that reaches the same schedule
    that way, else None.  The variants: a pair of ``interchange`` s or
    ``reverse`` s left out (the reduction can read a tile's loops in an
    order the direct steps then put back: ``stripmine; interchange(1, 2);
    tile(3, 1); interchange(2, 3)`` is ``stripmine; tile(3, 1)``, whose
    schedules on the way are the user's: lu ``stripmine([0], 1, 2);
    tile([0, 0], 3, 1, 32)``), then one step moved elsewhere, last each
    ``tile`` over several loops carried out one loop at a time
    (:func:`_carried_tiles`)."""
    def legal(seq: Sequence[Step]) -> bool:
        rec = Recorder(sched.copy())
        for st in seq:
            rec.do(st.name, *st.args)
            if not oracle(rec.sched):
                return False
        return True

    if legal(steps):
        return steps
    goal = Recorder(sched.copy())
    for st in steps:
        goal.do(st.name, *st.args)
    n = len(steps)
    variants = [steps[:i] + steps[i + 1:j] + steps[j + 1:]
                for i in range(n) for j in range(i + 1, n)
                if steps[i].name == steps[j].name and steps[i].name in _PAIRED]
    for i in range(n):
        rest = steps[:i] + steps[i + 1:]
        variants += [rest[:k] + [steps[i]] + rest[k:] for k in range(n) if k != i]
    carried = _carried_tiles(steps)
    if carried != steps:
        variants.append(carried)
    for seq in variants:
        if replays_to(sched, seq, goal.sched) and legal(seq):
            return seq
    return None


def _carried_tiles(steps: list[Step]) -> list[Step]:
    """``steps`` with each ``tile`` that moves its tile loop out over
    several loops made a ``stripmine`` and adjacent ``interchange`` s:
    the tile loop carried out one loop at a time, then the loops it passed
    put back in Clay's order (``tile`` swaps the tile loop with the loop at
    its depth), two equal interchanges in a row left out (an interchange
    after the tile may undo the last one).  The loops between keep their
    order on the way, where the swap reorders them (which can break a
    dependence that the tile loop outside carries: syrk fuzz seed 112039,
    ``tile([1], 3, 1, 3); interchange([1], 2, 3)`` of ``(k - 2j, i - 2k,
    j)``, whose swap reaches ``(⌊j/3⌋, i - 2k, k - 2j, j)``)."""
    expanded: list[Step] = []
    for st in steps:
        if st.name != "tile" or st.args[1] - st.args[2] < 2:
            expanded.append(st)
            continue
        prefix, d, t, size = st.args
        inner = tuple(prefix[:d]) + (0,) + tuple(prefix[d:]) if len(prefix) >= d \
            else tuple(prefix)
        expanded.append(Step("stripmine", (prefix, d, size)))
        expanded += [Step("interchange", (inner, k - 1, k)) for k in range(d, t, -1)]
        expanded += [Step("interchange", (inner, k, k + 1)) for k in range(t + 1, d)]
    out: list[Step] = []
    for st in expanded:
        if out and st.name == "interchange" and out[-1].name == st.name \
                and out[-1].args == st.args:
            out.pop()
        else:
            out.append(st)
    return out


def _post_comment(st: Step) -> str:
    if st.name == "tile":
        return f"tile the loop at depth {st.args[1]} by {st.args[3]}, tile loop at depth {st.args[2]}"
    if st.name == "stripmine":
        return f"strip-mine the loop at depth {st.args[1]} by {st.args[2]}"
    if st.name == "grain":
        return "scale the loop"
    if st.name == "interchange":
        return f"interchange the loops at depths {st.args[1]} and {st.args[2]}"
    if st.name == "skew":
        return "wavefront of the tile loops"
    if st.name == "shift":
        return "shift"
    return ""
