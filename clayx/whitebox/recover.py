"""Recovering a Clay directive sequence between two schedules (the Chlore
algorithm of seed 004 §6, made legality-aware).

Input: the symbolic original ``O`` and target ``T`` (:mod:`.model`), with
the same statements.  Output: steps that turn ``O`` into ``T`` exactly.

1. **Complementary transformations on the target** (§6.1, Table 1), found
   as early as possible: while the target has strip-mined dimensions,
   scaled dimensions or skews involving strip-mined dimensions, the inverse
   step is applied to the target (``linearize``, ``densify``, an opposite
   ``skew``) and the direct step (``tile``/``stripmine``, ``grain``,
   ``skew``) is recorded; those steps end the sequence, in reverse order.
   A chunk loop that relations without the chunk share (a tile of part of
   a loop, fused after) is split apart first, its direct steps ``fuse`` s;
   a pass that leaves a strip-mined dimension is tried again in other
   orders (:data:`REDUCE_PASSES`).  Chunks are first read in the form that
   names their point loop (isl's divs are not: ``-floor(i / 2)`` comes as
   ``floor((i + 1) / 2) - i``, a tile of a tile loop as one flat div;
   :func:`_reread_chunks`), and a chunk loop changed after its strip-mine
   (reversed, skewed or reshaped, moved inside its point loop, its point
   loop changed) has those steps undone first.
   What is left is the *core* target: one affine function of the iterators
   per α dimension, as many dimensions as iterators.
2. **Index-set splitting**: a target statement scheduled by several parts
   is split the same way first (``iss``, recursively along the constraints
   that separate the parts), in place, so that the order does not change:
   on the innermost loop of the statement when it is alone there, otherwise
   inside a one-iteration loop (``embed``, ``iss``, ``split``,
   ``unembed``).  Each part is then a relation of its own.  Parts with
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
   the plan's pivot reshaped) and finished after; or the loop's children
   separated first (see :meth:`_Core.set_alpha`).
4. The target's marks (``parallelize``, ``vectorize``, ``unroll_mark``).
"""

from __future__ import annotations

import itertools
from contextvars import ContextVar
from fractions import Fraction
from math import gcd
from typing import Sequence

from ..errors import ClayxError
from ..model import beta_tree_error
from .model import ONE, Aff, Rel, Sched, WhiteboxError, densify_factor, form_map, it, on_alphas
from .steps import Recorder, Step
from .unrolls import Unrolls, undensify_once

__all__ = ["MAX_ORDERS", "recover", "reduce"]

#: How many orders of the α step groups of one loop are tried when the
#: first one breaks a dependence.
MAX_ORDERS = 24

#: How many times one kind of reduction of :func:`reduce` may record the
#: same steps again (a reduction that diverges, reshaping a dimension
#: further each time, ends as going round in circles: fuzz trmm 25045 did
#: 250 such reshapes, another kind between each two).
MAX_REPEATS = 16

#: Whether the recovery running makes no reduction step for loops of
#: empty parts only (:func:`recover`'s ``free_empties``; read by
#: :func:`_groups`, part of :func:`_kind_done`'s memo key).
_FREE_EMPTIES: ContextVar[bool] = ContextVar("free_empties", default=False)

#: How many levels of index-set splits made after the tiling
#: :func:`recover` reads (each merges pairs of parts, :func:`_late_splits`).
MAX_LATE_LEVELS = 4


# --- linear algebra ---------------------------------------------------------------

def solve(rows: Sequence[Aff], target: Aff, keys: Sequence) -> list[Fraction] | None:
    """``x`` with ``Σ x_l · rows[l] = target`` on the coefficients of
    ``keys`` (exact, rational), or None when there is no unique solution."""
    n = len(rows)
    m = len(keys)
    a = [[Fraction(rows[l][keys[i]]) for l in range(n)] + [Fraction(target[keys[i]])]
         for i in range(m)]
    piv_cols = []
    r = 0
    for col in range(n):
        p = next((i for i in range(r, m) if a[i][col] != 0), None)
        if p is None:
            continue
        a[r], a[p] = a[p], a[r]
        pv = a[r][col]
        a[r] = [v / pv for v in a[r]]
        for i in range(m):
            if i != r and a[i][col] != 0:
                f = a[i][col]
                a[i] = [v - f * w for v, w in zip(a[i], a[r])]
        piv_cols.append(col)
        r += 1
    if len(piv_cols) != n:
        return None
    if any(a[i][n] != 0 for i in range(r, m)):
        return None
    x = [Fraction(0)] * n
    for i, col in enumerate(piv_cols):
        x[col] = a[i][n]
    return x


def _basis(rows: Sequence[Aff], keys: Sequence) -> list[int]:
    """1-based indices of rows that are independent of the rows after them
    (innermost first: of two equal rows, the inner one is the pivot)."""
    chosen: list[Aff] = []
    out = []
    for l, row in reversed(list(enumerate(rows, 1))):
        if row.is_zero:
            continue
        if chosen and solve(chosen, row, keys) is not None:
            continue
        if _rank(chosen + [row], keys) == len(chosen) + 1:
            chosen.append(row)
            out.append(l)
    return sorted(out)


def _rank(rows: Sequence[Aff], keys: Sequence) -> int:
    a = [[Fraction(r[k]) for k in keys] for r in rows]
    rank = 0
    cols = len(keys)
    for col in range(cols):
        p = next((i for i in range(rank, len(a)) if a[i][col] != 0), None)
        if p is None:
            continue
        a[rank], a[p] = a[p], a[rank]
        for i in range(len(a)):
            if i != rank and a[i][col] != 0:
                f = a[i][col] / a[rank][col]
                a[i] = [v - f * w for v, w in zip(a[i], a[rank])]
        rank += 1
    return rank


def _reshaped(r: Rel, old: Aff, new: Aff, j: int,
              written: list[Aff] | None = None) -> list[tuple]:
    """``reshape`` and ``shift`` steps that turn α ``j`` of ``r`` from ``old``
    into ``new``, in an order that keeps the dates unique after each one
    when there is one (``reshape`` refuses a step that does not).
    ``written``: ``r``'s α dimensions as Clay writes them, when its domain
    fixes iterators (see :func:`_written_iterators`)."""
    diff = old - new
    todo = [("reshape", j, m + 1, int(diff[it(m)])) for m in r.free if diff[it(m)]]
    keys = _iter_keys(r)
    rows = [a.part("i") for a in r.alphas]
    full = _rank(rows, keys)
    out: list[tuple] = []
    cur = rows[j - 1]
    while todo:
        for st in todo:
            nxt = cur - Aff.var(it(st[2] - 1)).scale(st[3])
            if _rank(rows[:j - 1] + [nxt] + rows[j:], keys) >= full:
                break
        else:
            st = todo[0]
            nxt = cur - Aff.var(it(st[2] - 1)).scale(st[3])
        todo.remove(st)
        out.append(st)
        cur = nxt
    if written is not None and r.elim and out:
        out = _written_iterators(r, out, written, j)
        diff = r.canon(old - sum((Aff.var(it(st[2] - 1)).scale(st[3]) for st in out), Aff())) \
            - new
    rest = diff.part("p", "1")
    if not rest.is_zero:
        out.append(("shift", j, rest))
    return out


def _written_iterators(r: Rel, plan: list[tuple], written: list[Aff], j: int) -> list[tuple]:
    """The ``reshape`` s of ``plan`` (of α ``j`` of ``r``, a part whose domain
    fixes iterators: ``r.elim``), each by an iterator equal on the part's
    instances to the one planned (up to parameters) that keeps ``r``'s α
    dimensions as Clay writes them (``written``) independent.  Its forms
    have the fixed iterators substituted, so a reshape that makes them
    dependent as written looks harmless: ``(i - j, j)`` on ``j = i`` reads
    ``(0, i)``; reshaping ``(i, j)`` by ``i`` gives ``(0, j)``, which
    ``reshape`` refuses, by ``j`` gives ``(i - j, j)`` (syrk fuzz seed
    48069).  A step with no such iterator stays as planned."""
    keys = [it(k) for k in range(r.dim)]
    rows = [a.part("i") for a in written]
    full = _rank(rows, keys)
    out = []
    for st in plan:
        if st[0] != "reshape":
            out.append(st)
            continue
        m = st[2] - 1
        alts = [m] + [k for k in range(r.dim) if it(k) in r.elim
                      and not (r.canon(Aff.var(it(k))) - Aff.var(it(m))).keys("i")]
        for k in alts:
            nxt = rows[j - 1] - Aff.var(it(k)).scale(st[3])
            if _rank(rows[:j - 1] + [nxt] + rows[j:], keys) >= full:
                break
        else:
            k = m
            nxt = rows[j - 1] - Aff.var(it(k)).scale(st[3])
        rows[j - 1] = nxt
        out.append((st[0], st[1], k + 1, st[3]))
    return out


def _full_rank_path(r: Rel, plan) -> bool:
    """Do ``r``'s α dimensions stay linearly independent (as many as
    before) after each ``reshape`` of ``plan``?"""
    keys = _iter_keys(r)
    a = list(r.alphas)
    full = _rank([x.part("i") for x in a], keys)
    for st in plan:
        if st[0] != "reshape":
            continue
        a[st[1] - 1] = r.canon(a[st[1] - 1] - Aff.var(it(st[2] - 1)).scale(st[3]))
        if _rank([x.part("i") for x in a], keys) < full:
            return False
    return True


def _simulated(r: Rel, plan: tuple) -> list[Aff]:
    """``r``'s α dimensions after the steps of ``plan`` (positions only)."""
    a = list(r.alphas)
    for st in plan:
        if st[0] == "interchange":
            a[st[1] - 1], a[st[2] - 1] = a[st[2] - 1], a[st[1] - 1]
        elif st[0] == "reverse":
            a[st[1] - 1] = -a[st[1] - 1]
        elif st[0] == "skew":
            a[st[1] - 1] = a[st[1] - 1] - a[st[2] - 1].scale(st[3])
        elif st[0] == "shift":
            a[st[1] - 1] = a[st[1] - 1] - st[2]
        elif st[0] == "reshape":
            a[st[1] - 1] = r.canon(a[st[1] - 1] - Aff.var(it(st[2] - 1)).scale(st[3]))
    return a


def _iter_keys(r: Rel) -> list:
    """The keys of ``r``'s free iterators (see :attr:`~.model.Rel.free`)."""
    return [it(k) for k in r.free]


def _is_div(a: Aff) -> tuple | None:
    """The div key when ``a`` is exactly one div."""
    if len(a.c) == 1:
        (k, v), = a.c.items()
        if k[0] == "d" and v == 1:
            return k
    return None


def _shifted_div(a: Aff) -> tuple | None:
    """The div key when ``a`` is one div (coefficient 1) plus a parametric
    constant: a chunk loop, perhaps shifted (isl writes the chunk of ``i -
    3`` by 2 as ``floor((i + 1) / 2) - 2``)."""
    return None if a.keys("i") else _is_div(a.part("d"))


# --- 1. the target's complementary transformations ---------------------------------------

def reduce(T: Sched, oracle=None, careful: bool = False, repair: bool = True) -> list[Step]:
    """Apply inverse steps to ``T`` until it is a core schedule (see the
    module docstring, part 1); return the direct steps in the order they
    must be applied (from the core to the original ``T``).

    ``careful`` (with an oracle): every reduced target must be legal (a
    reduction that gives an illegal one is skipped, the next kind is
    tried), so every direct step goes from a legal schedule to a legal one;
    one legality check per reduction.  Before a reduction is skipped, its
    shifts are tried on the whole loop (:func:`_widen_shifts`) and an
    offset it left is undone (:func:`_unshift_result`); last, a point loop
    is made its chunk's from another dimension (``_fix_point_once`` with
    ``careful``) and a tile loop written ``-d + c`` is read as the plain
    chunk it is (:func:`_unreversed_chunks`); not with ``repair`` false.

    A scaled point loop of a tile is first read as scaled after the tile
    (``grain`` undone first); when that leaves a strip-mined dimension, as
    the point loop of a larger tile of the scaled loop (``floor(2i / 8)``
    is ``floor(i / 4)``); then with the tiles undone before the scalings
    (a tile of a scaled loop whose other statements are scaled too: one
    ``grain`` of the loop before the tile, not one per part)."""
    start = T.copy()
    try:
        return _reduce(T, oracle, careful, True, repair=repair)
    except WhiteboxError as e:
        if "strip-mined dimension" not in str(e) and "round in circles" not in str(e):
            raise
        _noted(oracle, e)
        for scaled, chunks_first, split, sink_first in REDUCE_PASSES:
            T.rels = [r.copy() for r in start.rels]
            try:
                return _reduce(T, oracle, careful, scaled, chunks_first, split, sink_first,
                               repair=repair)
            except WhiteboxError:
                pass
        # last: a flat chunk not read as a chunk of a chunk dimension (a
        # reshape of the chunk loop made it look like one: fuzz seed 24205)
        T.rels = [r.copy() for r in start.rels]
        try:
            return _reduce(T, oracle, careful, True, nested_chunks=False, repair=repair)
        except WhiteboxError:
            pass
        # last: a flat chunk read as a chunk of a chunk dimension even beside
        # its point loop (a tile loop strip-mined again inside its point
        # loop: bicg fuzz seed 65094)
        T.rels = [r.copy() for r in start.rels]
        try:
            return _reduce(T, oracle, careful, True, nested_chunks=BESIDE_POINTS, repair=repair)
        except WhiteboxError:
            pass
        # then the tile loops changed after the tiling (:data:`SKEWED_PASSES`)
        for X, last in _skewed_tiles(start, oracle):
            T.rels = X.rels
            try:
                return _reduce(T, oracle, careful, True, repair=repair) + last
            except WhiteboxError:
                pass
        for scaled, options in SKEWED_PASSES:
            if careful and options.get("split_loops"):
                # the plain recovery needs it (trmm fuzz seed 94205); in the
                # careful retry it takes trmm 58195 a long way round
                continue
            T.rels = [r.copy() for r in start.rels]
            try:
                return _reduce(T, oracle, careful, scaled, repair=repair, **options)
            except WhiteboxError:
                pass
        T.rels = start.rels
        raise e from None


#: ``nested_chunks`` of :func:`_reduce`'s last pass: a chunk of a chunk
#: dimension is read as one even where a dimension is its point loop
#: (:func:`_chunk_of_chunk`).
BESIDE_POINTS = "beside points"

#: ``flat_chunks`` of :func:`_reduce`: the chunks are read flat
#: (:func:`_flat_chunks`) before any other reduction, not after all.
EARLY = "early"

#: The last passes of :func:`reduce`, for tile loops changed after the
#: tiling (combined with other dimensions, which the first passes' greedy
#: reductions read as something else): ``(scaled points, options of
#: _reduce)``.  Before them, each skew of a tile loop by other dimensions
#: that leaves a chunk in one relation of the loop (a div plus iterators in
#: the others) is undone first (:func:`_skewed_tiles`).  Then: a skew by a
#: chunk loop that a ``linearize`` removed, of an outer dimension (a late
#: reading of :func:`_unlinearize_once`: syrk fuzz seed 48199); the skews of
#: a dimension by another one that has the same divs undone first
#: (:func:`_unskew_divs_once`: a point loop skewed by a skewed tile loop,
#: trmm 70205); the point loops made their chunks' before the scalings are
#: undone (:func:`_fix_point_once` first: a part where the point loop's
#: reshape reads as a ``grain``, trmm 81015); last, the chunks read flat
#: (:func:`_flat_chunks`: a div plus iterators as the one div it is, isl's
#: nested divs as the chunk they equal), after every other reduction, with
#: or without the scaled points, then before them, with chunks of chunks
#: beside points (seidel-2d 64196, 65076, gemm 34100, trmm 32015); after
#: all, without the scaled points, the skews by chunk loops that isl writes
#: as a div plus iterators undone before the general ``linearize`` removes
#: those loops (``_unskew_once`` with ``general``: seidel-2d 83226); last,
#: the chunk loops sunk first, a tile loop shifted or reshaped with the
#: plain loops of other statements (``loop_shifts``: a shift undone on the
#: whole loop, a shifted chunk sunk, a shifted tile of a tile loop read as
#: one, no tile loop removed while another chunk is made of it or while
#: the loop's other relations have a changed chunk of its size: trmm 15055);
#: then a tile loop isl writes reversed read as the plain div everywhere
#: (``unreversed``, :func:`_unreversed_divs`: mvt 93072); the chunks read
#: flat before all, beside points, with the chunk loops split apart (a
#: strip-mine of a reversed tile loop of one statement: trmm 94205); last,
#: an interchange of one part alone that moved its tile loop undone
#: (``part_swaps``, :func:`_unswap_part_once`: gemm 69150).
SKEWED_PASSES = ((True, {"outer_linearized": True}), (True, {"skewed_divs": True}),
                 (True, {"points_first": True}), (True, {"fused_sinks": True}),
                 (True, {"flat_chunks": True}),
                 (False, {"flat_chunks": True}),
                 (True, {"flat_chunks": EARLY, "nested_chunks": BESIDE_POINTS}),
                 (False, {"general_skews": True}),
                 (False, {"loop_shifts": True, "sink_first": True}),
                 (True, {"unreversed": True}),
                 (True, {"flat_chunks": EARLY, "nested_chunks": BESIDE_POINTS,
                         "split_loops": True}),
                 (True, {"part_swaps": True}))

#: The passes of :func:`reduce` after the first (which reads scaled point
#: loops as scaled after the tile, the tiles undone after the scalings, no
#: loop split), while one leaves a strip-mined dimension: ``(scaled points,
#: tiles first, split loops, chunk loops sunk first)`` (see
#: :func:`_split_chunk_loop_once`; the last: a chunk loop moved inside its
#: point loop goes back out before any tile is undone, so that a tile of
#: that chunk loop is read as one, fuzz seed 22292).
REDUCE_PASSES = ((False, False, False, False), (False, True, False, False),
                 (True, False, True, False), (False, True, True, False),
                 (False, False, False, True))


def _reduce(T: Sched, oracle, careful: bool, scaled_points: bool,
            chunks_first: bool = False, split_loops: bool = False,
            sink_first: bool = False, nested_chunks: bool = True,
            repair: bool = True, outer_linearized: bool = False,
            skewed_divs: bool = False, flat_chunks: bool = False,
            points_first: bool = False, fused_sinks: bool = False,
            general_skews: bool = False, loop_shifts: bool = False,
            unreversed: bool = False, part_swaps: bool = False) -> list[Step]:
    found: list[Step] = []
    doubts: list[str] = []      # reductions whose result was found illegal once
    seen: set[str] = set()      # the reduced targets met: a repeat is a cycle
    banned: set[tuple] = set()  # careful: (state, kind) whose result was illegal
    def fix_points() -> bool:
        return _fix_point_once(T, found, oracle, on_instances=points_first)

    def unskew_divs() -> bool:
        return _unskew_divs_once(T, found, oracle)

    def flat() -> bool:
        return bool(flat_chunks) and _flat_chunks(T)

    kinds = [
        lambda: (_shared_chunks(T) or unreversed and _unreversed_divs(T)
                 or _reread_chunks(T, nested_chunks, loop_shifts)
                 or _chunks_of_divs(T)
                 or undensify_once(T, found)),
        lambda: _densify_once(T, found, oracle, scaled_points),
        lambda: _plain_div_once(T, found, loop_shifts),
        lambda: _unskew_once(T, found),
        lambda: _linearize_once(T, found, oracle, doubts, flat=loop_shifts),
        fix_points,
        lambda: _unskew_chunk_once(T, found, oracle),
        lambda: _sink_chunk_once(T, found, oracle, shifted=loop_shifts),
        lambda: _unskew_to_chunk_once(T, found, oracle),
        lambda: general_skews and _unskew_once(T, found, general=True)
        or _linearize_once(T, found, oracle, doubts, general=True, flat=loop_shifts),
        lambda: _unreshape_chunk_once(T, found, oracle),
        lambda: _fix_point_once(T, found, oracle, outer=True),
        lambda: split_loops and _split_chunk_loop_once(T, found, oracle),
        lambda: _unshift_point_part_once(T, found, oracle),
        lambda: _sink_chunk_once(T, found, oracle, reversed_point=True),
        lambda: _unskew_once(T, found, oracle, alone=True),
        lambda: _unlinearize_once(T, found, oracle),
        lambda: _part_chunks(T),
        lambda: _unreshape_skewed_chunk_once(T, found, oracle)
        or _unswap_then_sink_once(T, found, oracle),
        lambda: _rereversed_chunks(T),
        # careful: the point loop made its chunk's by another choice when
        # the first one's result breaks a dependence (and was banned)
        lambda: repair and _fix_point_once(T, found, oracle, careful=True),
        lambda: repair and _fix_point_once(T, found, oracle, outer=True, careful=True),
        lambda: repair and _unreversed_chunks(T),
        lambda: _empty_divs(T),
        unskew_divs,
        flat,
        lambda: fused_sinks and _sink_chunk_once(T, found, oracle, fuse=True),
        lambda: outer_linearized and oracle is not None
        and _unlinearize_once(T, found, oracle, outer=True),
        lambda: part_swaps and _unswap_part_once(T, found, oracle),
    ]
    # the last passes of reduce (SKEWED_PASSES): one kind first
    for first, kind in ((points_first, fix_points), (flat_chunks == EARLY, flat),
                        (skewed_divs, unskew_divs)):
        if first:
            kinds.remove(kind)
            kinds.insert(1, kind)
    if chunks_first:
        kinds.insert(1, kinds.pop(4))
    if sink_first:
        kinds.insert(1, kinds.pop(7))
    careful = careful and oracle is not None
    repair = repair and careful
    last: dict[int, tuple] = {}  # per kind: the steps it recorded last, how often so
    while True:
        state = str(T)
        if state in seen or len(seen) > 500 or any(k >= MAX_REPEATS for _, k in last.values()):
            raise WhiteboxError(
                "cannot express the target's tiling: undoing its strip-mined and scaled "
                "dimensions goes round in circles (a tile or scaled loop skewed by a loop "
                "it depends on)")
        seen.add(state)
        for n, kind in enumerate(kinds):
            if (state, n) in banned:
                continue
            before = ([r.copy() for r in T.rels], len(found)) if careful else None
            start = len(found)
            _tried(oracle)
            if not _kind_done(kind, T, state, oracle, doubts):
                continue
            if careful and not oracle(T) and not (
                    repair and (_widen_shifts(T, found, before[1], oracle)
                                or _unshift_result(T, found, before, oracle))):
                T.rels, n_found = before
                del found[n_found:]
                banned.add((state, n))
                seen.discard(state)
                break
            steps = [(st.name, st.args) for st in found[start:]]
            seen_steps, times = last.get(n, (None, 0))
            last[n] = (steps, times + 1 if steps == seen_steps else 0)
            break
        else:
            break
    if _FREE_EMPTIES.get():
        _drop_empty_divs(T)
    for r in T.rels:
        for k, a in enumerate(r.alphas):
            if a.keys("d") and banned:
                raise WhiteboxError(
                    f"cannot order the target's tiling legally: every way the recovery "
                    f"knows to undo the strip-mined dimension {k + 1} of {r.stmt} "
                    f"({a.text()}) gives a schedule that breaks a dependence")
            if a.keys("d"):
                raise WhiteboxError(
                    f"cannot express the strip-mined dimension {k + 1} of {r.stmt} "
                    f"({a.text()}): it is not a tile or chunk of another dimension of "
                    "the same loop nest")
    if doubts and oracle is not None and not oracle(T):
        # every schedule between the core and the target is one of the
        # reduced targets; the core itself breaks a dependence
        raise WhiteboxError(
            "cannot order the target's tiling legally: without its tile loops, the "
            "target breaks a dependence (its loops are distributed or reordered inside "
            "a tile loop in a way the recovery does not undo)")
    return list(reversed(found))



def _unreversed_chunks(T: Sched) -> bool:
    """Write a dimension ``-d + c`` (one div ``d = floor(n / s)`` with
    coefficient -1, ``c`` parametric) as the plain chunk ``floor(N / s)``
    it equals (``N = s - 1 - n + s·c``, :func:`_signed_chunks`) when ``N``
    has iterators.  The same function, so no step: careful reductions try
    it last, when reading the dimension as a reversed chunk (a reversed
    point loop, strip-mined, reversed back) passes through a schedule that
    breaks a dependence: isl writes syrk's tile loop ``floor(j / 3)``,
    fused with a reversed loop, as ``-d - 1`` with ``d = floor((-j - 1) /
    3)``, whose reversed reading runs the tile loop backwards next to the
    statement it shares the loop with."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if a.keys("i") or len(ds) != 1 or a[ds[0]] != -1:
                continue
            for sign, num, size in _signed_chunks(T, a):
                new = T.divs.get(num, size)
                if sign == 1 and num.keys("i") and new != a:
                    r.alphas[t - 1] = new
                    return True
    return False


def _unreversed_divs(T: Sched) -> bool:
    """Write a div ``d = floor(n / s)`` that a dimension of the target
    uses as ``-d + c`` (``c`` parametric, no iterator) as the plain chunk
    it is reversed, ``-floor(N / s) - q`` (``N = s - 1 - n - q·s``), in
    every form of the target, when ``N`` has iterators: ``-d - 1`` with
    ``d = floor((-j - 1) / 3)`` is ``floor(j / 3)``, and the dimensions
    skewed by that tile loop then show it too (``-3d + j - 3`` is ``j +
    3·floor(j / 3)``).  isl writes a tile loop that way once it is moved
    out of its point loop (mvt fuzz seed 93072: a tile loop skewed into
    its point loop twice, then interchanged outward), which the reductions
    read as a reversed chunk whose reverse leaves the point loop shifted.
    An identity, so no step; a late pass of :func:`reduce`."""
    for r in T.rels:
        for a in r.alphas:
            ds = a.keys("d")
            if a.keys("i") or len(ds) != 1 or a[ds[0]] != -1:
                continue
            k = ds[0]
            n, size = T.divs.of(k)
            if not n.is_integral or not n.keys("i"):
                continue
            form = _reversed_div(T, n, size)
            if form.keys("i"):
                continue
            _subst_everywhere(T, k, form)
            return True
    return False


def _reversed_div(T: Sched, n: Aff, size: int) -> Aff:
    """``floor(n / size)`` written as ``-floor(N / size) - q`` with ``N =
    size - 1 - n - q·size`` (``q`` making ``N``'s constant lie in ``[0,
    size)``): ``floor((-i - 1) / 32)`` is ``-floor(i / 32) - 1``."""
    rev = Aff.const(size - 1) - n
    c = int(rev[ONE])
    q = c // size
    return -(T.divs.get(rev - Aff.const(q * size), size) + Aff.const(q))


def _rereversed_chunks(T: Sched) -> bool:
    """Write a dimension ``floor(n / s) + c`` (one div, coefficient 1,
    ``c`` parametric) whose numerator runs against another dimension of
    its relation as the reversed chunk it equals: ``-floor(N / s) + c'``
    with ``N = s - 1 - n`` split into that dimension (a multiple of it)
    and a constant (``floor((-j - 1) / 16)`` is ``-floor(j / 16) - 1``).
    The same function, so no step; :func:`_plain_div_once` then undoes
    the reverse and shift.  Tried when no other reduction applies: isl
    writes a reversed tile loop that way once a skew of it is undone
    (mvt fuzz seed 40082: ``reverse`` of the outer of two tile loops of
    one point loop)."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if a.keys("i") or len(ds) != 1 or a[ds[0]] != 1:
                continue
            for sign, num, size in _signed_chunks(T, a):
                var = num.part("i", "d")
                if sign != -1 or not num.keys("i") or not any(
                        _multiple(x, var) for q, x in enumerate(r.alphas, 1) if q != t):
                    continue
                c = Fraction(num[ONE])
                if c.denominator != 1 or num.part("p").c:
                    continue
                q = int(c) // size
                new = (T.divs.get(var + Aff.const(int(c) - q * size), size)
                       + Aff.const(q)).scale(-1)
                if new != a:
                    r.alphas[t - 1] = new
                    return True
    return False


def _chunks_of_divs(T: Sched) -> bool:
    """Write a dimension of several divs and no iterator, ``floor(n / s)
    + rest`` (``rest`` integral, of other divs), as the chunk ``floor((n +
    s·rest) / s)`` it equals when that numerator is (a multiple of)
    another dimension of its relation: a strip-mine of a scaled tile loop,
    which isl writes as :func:`_chunk_in` says but with a div for the
    iterator (``floor(3·d / 4)`` as ``d + floor(-d / 4)``, gemm fuzz seed
    75260).  The same function, so no step; read first, with
    :func:`_reread_chunks` (a ``densify`` of the point loop before would
    leave a chunk of ``3·d`` over ``d``)."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if a.keys("i") or len(ds) < 2 or not a.is_integral:
                continue
            for k in ds:
                if a[k] != 1:
                    continue
                n, size = T.divs.of(k)
                num = n + (a - Aff.var(k)).scale(size)
                if not any(_multiple(x, num.part("i", "d")) for q, x in enumerate(r.alphas, 1)
                           if q != t):
                    continue
                new = T.divs.get(num, size)
                if new != a:
                    r.alphas[t - 1] = new
                    return True
    return False


def _shared_chunks(T: Sched) -> bool:
    """Write a div ``floor(n / s)`` that another div of the target reversed
    is, ``-floor(n' / s) - q`` (``n' = s - 1 - n - q·s``, ``floor((-i - 1) /
    32)`` is ``-floor(i / 32) - 1``), as that, in every form of the target
    (its α dimensions, constraints and the numerators of other divs): isl
    writes one tile loop of several statements with either div where
    their dimensions differ (``floor(j / 4)`` in S1, ``-floor((-j - 1) /
    4) - 1`` in S0 skewed by it: gemm fuzz seed 73250, read as a reversed
    tile loop before; in the two halves of a split: syrk 45229; a
    strip-mine of it as a div of the other div: bicg 19154); read as one
    div, the loop's relations reduce together.  An identity, so no step."""
    used = _used_divs(T)
    for k in used:
        n, size = T.divs.of(k)
        if not n.is_integral or not n.keys("i") and not n.keys("d"):
            continue
        form = _reversed_div(T, n, size)
        ds = form.keys("d")
        if form.keys("i") or len(ds) != 1 or ds[0] == k or ds[0] not in used:
            continue
        _subst_everywhere(T, k, form)
        return True
    return False


def _used_divs(T: Sched) -> list:
    """The divs the forms of ``T`` use, nested ones too, in order."""
    out: dict = {}

    def visit(a: Aff) -> None:
        for d in a.keys("d"):
            if d not in out:
                out[d] = None
                visit(T.divs.of(d)[0])
    for r in T.rels:
        for x in list(r.alphas) + list(r.cons):
            visit(x)
    return list(out)


def _subst_everywhere(T: Sched, k, form: Aff) -> None:
    """Replace the div ``k`` by ``form`` in every form of ``T`` (α
    dimensions, constraints, the numerators of other divs)."""
    memo: dict = {}
    for r in T.rels:
        r.alphas = [_subst_div(T, x, k, form, memo) for x in r.alphas]
        r.cons = [_subst_div(T, x, k, form, memo) for x in r.cons]


def _subst_div(T: Sched, a: Aff, k, form: Aff, memo: dict) -> Aff:
    """``a`` with the div ``k`` replaced by ``form``, in the numerators of
    its divs too."""
    for d in a.keys("d"):
        if d == k:
            a = a.substitute(k, form)
            continue
        if d not in memo:
            n, size = T.divs.of(d)
            n2 = _subst_div(T, n, k, form, memo)
            memo[d] = Aff.var(d) if n2 == n else T.divs.get(n2, size)
        a = a.substitute(d, memo[d])
    return a


def _unshift_result(T: Sched, found: list[Step], before: tuple, oracle) -> bool:
    """When the reduction that recorded ``found[before[1]:]`` gives a
    result that breaks a dependence: that result with a constant offset of
    a dimension it changed undone too, when that is legal and a legal path
    of direct steps leads back (the ``shift`` last, else first).  The form
    isl gives a div can leave an offset behind: ``floor(j / 4)`` read as
    ``-d - 1`` (a reversed, shifted tile loop), a loop skewed by it reads
    ``i + 1 + d`` and is unskewed to ``i + 1``, where the target's order
    needs ``i`` (gemm ``tile([0], 2, 2, 4); skew([0, 0], 1, 2, 1)``).  The
    shift is of the loop of the reduction's last step, for all its
    relations, when they all have that offset; ``T`` and ``found`` are
    changed only on success."""
    rels, start = before
    new = found[start:]
    if not new or not isinstance(new[-1].args[0], tuple) or not new[-1].args[0]:
        return False
    p = new[-1].args[0]
    members = [x for x in T.under(p) if not x.empty]
    if not members:
        return False
    old = T.copy()
    old.rels = [r.copy() for r in rels]
    was = {r.tag: r.alphas for r in rels}

    def changed(x: Rel, k: int) -> bool:
        a = was.get(x.tag)
        return a is None or len(a) < k or a[k - 1] != x.alphas[k - 1]

    direct = list(reversed(new))
    for k in range(1, min(len(p), min(x.depth for x in members)) + 1):
        offsets = {x.alphas[k - 1].part("p", "1") for x in members}
        if len(offsets) != 1:
            continue
        c = offsets.pop()
        if c.is_zero or not c.is_integral or not any(changed(x, k) for x in members):
            continue
        X = T.copy()
        X.shift(p, k, c)
        if not oracle(X):
            continue
        shift = Step("shift", (p, k, -c.integral()))
        for path in (direct + [shift], [shift] + direct):
            if _replays(X, path, old, oracle) and _legal_path(X, path, oracle):
                T.rels = X.rels
                found[start:] = list(reversed(path))
                return True
    return False


def _widen_shifts(T: Sched, found: list[Step], start: int, oracle) -> bool:
    """When the reduction that recorded ``found[start:]`` undid only
    ``shift`` s and its result breaks a dependence: the same shift undone on
    a larger loop, the relations that share the shifted dimension with the
    ones undone shifted back too (a target loop shifted as a whole after a
    tile of part of it: ``tile([0, 0, 0], 1, 1, 3); shift([0, 0], 2, {}, 1)``
    on trmm, the point loop of ``S0`` and the loop of ``S1`` both ``i - 1``;
    undoing the shift of ``S0`` alone leaves ``S1`` behind it).  The loops
    are tried from the innermost out, each step alone, then all of them; the
    first legal result is kept (``T`` and ``found`` changed) and True
    returned; otherwise ``T`` is unchanged."""
    new = found[start:]
    if not new or any(st.name != "shift" for st in new):
        return False
    saved = [r.copy() for r in T.rels]
    tried: set[tuple] = set()

    def attempt(picks: list[tuple[int, tuple]]) -> bool:
        moved = []
        for i, q in picks:
            p, j, amount = new[i].args
            extra = [x for x in T.under(q) if x.beta[:len(p)] != tuple(p)]
            if not extra:
                return False
            moved.append((i, q, frozenset(x.tag for x in extra)))
        key = tuple(moved)
        if key in tried:
            return False
        tried.add(key)
        for i, q in picks:
            p, j, amount = new[i].args
            for x in T.under(q):
                if x.beta[:len(p)] != tuple(p):
                    x.alphas[j - 1] = x.alphas[j - 1] + amount
        if oracle(T):
            for i, q in picks:
                p, j, amount = new[i].args
                found[start + i] = Step("shift", (tuple(q), j, amount), new[i].comment)
            return True
        T.rels = [r.copy() for r in saved]
        return False

    depth = max(len(st.args[0]) for st in new)
    for m in range(depth - 1, 0, -1):
        for i, st in enumerate(new):
            p, j = tuple(st.args[0]), st.args[1]
            if j <= m < len(p) and attempt([(i, p[:m])]):
                return True
        if len(new) > 1:
            picks = [(i, tuple(st.args[0])[:m]) for i, st in enumerate(new)
                     if st.args[1] <= m < len(st.args[0])]
            if len(picks) == len(new) and attempt(picks):
                return True
    return False

def _loop_prefixes(r: Rel, min_len: int = 1):
    for m in range(max(1, min_len), len(r.beta)):
        yield r.beta[:m]


def _densify_once(T: Sched, found: list[Step], oracle=None, scaled_points: bool = True) -> bool:
    """Undo a ``grain``: under the outermost prefix where every α_d is a
    multiple of ``g`` (an empty part takes any scaling), divide it; or,
    with an oracle, undo a ``grain`` followed by shifts there
    (:func:`_grain_shift`).  Not the point loop of a tile unless
    ``scaled_points``."""
    from math import gcd
    for r in T.rels:
        for d, a in enumerate(r.alphas, 1):
            if not (a.keys("i") or a.keys("d")):
                continue
            g = gi = 0
            for k, v in a.c.items():
                v = int(v) if Fraction(v).denominator == 1 else 1
                g = gcd(g, v)
                if k[0] in "id":
                    gi = gcd(gi, v)
            if gi <= 1 or not scaled_points and any(
                    _chunk(T, c) is not None and _multiple(b, _chunk(T, c)[0])
                    or _same_floor(T, c, b) or _self_skew(T, c, b) is not None
                    or any(_is_chunk_of(T, c, b, f) for f in range(2, gi + 1) if gi % f == 0)
                    for c0 in r.alphas[:d - 1] for c in dict.fromkeys((c0, c0.part("i", "d")))
                    for b in dict.fromkeys((a, a.part("i", "d")))):
                continue        # the point loop of a tile (of the scaled loop; either shifted)
            for p in [*_loop_prefixes(r, d), r.beta]:
                group = T.under(p)
                # an empty part (no instance) takes any scaling
                if g > 1 and all(x.depth >= d and (x.empty or _divisible(x.alphas[d - 1], g))
                                 for x in group) and not all(x.empty for x in group):
                    for x in group:
                        if _divisible(x.alphas[d - 1], g):
                            x.alphas[d - 1] = x.alphas[d - 1].scale(Fraction(1, g)).integral()
                    found.append(Step("grain", (p, d, g)))
                    return True
                if oracle is not None and p != r.beta and _grain_shift(T, p, d, gi, found, oracle):
                    return True
    return False


def _grain_shift(T: Sched, p: tuple, d: int, g: int, found: list[Step], oracle) -> bool:
    """Undo a ``grain`` by ``g`` of the loop ``p`` whose statements were
    shifted after it (or before it, by amounts ``g`` does not divide):
    every α_d under ``p`` is ``g·a + rest`` with ``rest`` a parametric
    constant; α_d becomes ``a`` (``rest`` taken to the nearest multiple of
    ``g``) and the direct steps are ``grain(p, d, g)`` then a ``shift`` per
    run of relations with the same non-zero ``rest``.  At least two
    relations with instances, one ``rest`` not 0; checked by replaying the
    direct steps and the schedules before them legal."""
    under = T.under(p)
    if len([x for x in under if not x.empty]) < 2 or any(
            x.depth < d or not x.alphas[d - 1].keys("i") and not x.alphas[d - 1].keys("d")
            or not _divisible(x.alphas[d - 1].part("i", "d"), g) for x in under):
        return False
    X = T.copy()
    rests: dict[int, Aff] = {}
    for x in X.under(p):
        v = x.alphas[d - 1]
        keep = v.part("i", "d").scale(Fraction(1, g))
        for k, c in v.part("p", "1").c.items():
            keep = keep + Aff({k: (2 * int(c) + g) // (2 * g)})    # nearest multiple
        x.alphas[d - 1] = keep.integral()
        rests[x.tag] = v - x.alphas[d - 1].scale(g)
    if all(v.is_zero for v in rests.values()):
        return False
    direct = [Step("grain", (p, d, g))]
    for rest in dict.fromkeys(v for v in rests.values() if not v.is_zero):
        tags = {t for t, v in rests.items() if v == rest}
        direct += [Step("shift", (b, d, -rest.integral())) for b in _covers(X, p, tags)]
    return _taken(T, X, direct, found, oracle)


def _covers(S: Sched, p: tuple, tags: set) -> list[tuple]:
    """The largest prefixes under ``p`` that hold only relations of
    ``tags`` (and together all of them)."""
    out: list[tuple] = []
    done: set = set()
    for x in S.under(p):
        if x.tag not in tags or x.tag in done:
            continue
        for m in range(len(p) + 1, len(x.beta) + 1):
            b = x.beta[:m]
            if {y.tag for y in S.under(b)} <= tags:
                out.append(b)
                done |= {y.tag for y in S.under(b)}
                break
    return out


def _plain_div_once(T: Sched, found: list[Step], shifts: bool = False) -> bool:
    """Undo a shift (by parameters and a constant) and a reverse of a tile
    loop: a dimension ``±d + rest`` of one div ``d`` becomes ``d`` for the
    whole group under a prefix whose members all have the same form.  A
    scaled tile loop ``c·d + rest`` (``|c| > 1``, ``rest`` not a multiple
    of ``c``: a ``grain`` then a ``shift``, atax fuzz seed 19181) loses
    ``rest`` only (``c·d`` is then :func:`_densify_once`'s).  ``shifts``
    (the ``loop_shifts`` pass of :data:`SKEWED_PASSES`): the group may hold
    relations whose dimension there is no div but has the same parametric
    constant (the shift of a loop that holds a tile loop of one statement
    and a plain loop of another: trmm fuzz seed 15055)."""
    for r in T.rels:
        for d, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if a.keys("i") or len(ds) != 1 or _is_div(a) or not a.is_integral:
                continue
            if abs(a[ds[0]]) != 1:
                rest = a.part("p", "1")
                if rest.is_zero:
                    continue
                for p in [*_loop_prefixes(r, d), r.beta]:
                    group = T.under(p)
                    if not all(x.depth >= d and x.alphas[d - 1].part("p", "1") == rest
                               and x.alphas[d - 1].keys("d") and not x.alphas[d - 1].keys("i")
                               for x in group):
                        continue
                    for x in group:
                        x.alphas[d - 1] = x.alphas[d - 1] - rest
                    found.append(Step("shift", (p, d, -rest)))
                    return True
                continue
            if _offset_chunk(T, r, a) or _is_point_of_chunk(T, r, d):
                continue    # (the point loop of a later strip-mine, shifted before it)
            sign = int(a[ds[0]])
            rest = a.part("p", "1")
            for p in [*_loop_prefixes(r, d), r.beta]:
                group = T.under(p)
                if not all(x.depth >= d and (_plain_div(x.alphas[d - 1], sign, rest)
                                             or shifts and sign > 0 and x is not r
                                             and x.alphas[d - 1].part("p", "1") == rest)
                           for x in group):
                    continue
                for x in group:
                    x.alphas[d - 1] = (x.alphas[d - 1] - rest).scale(sign)
                if not rest.is_zero:
                    found.append(Step("shift", (p, d, -rest)))
                if sign < 0:
                    found.append(Step("reverse", (p, d)))
                return True
    return False


def _plain_div(a: Aff, sign: int, rest: Aff) -> bool:
    ds = a.keys("d")
    return (not a.keys("i") and len(ds) == 1 and a[ds[0]] == sign
            and a.part("p", "1") == rest)


def _divisible(a: Aff, g: int) -> bool:
    return all(Fraction(v).denominator == 1 and int(v) % g == 0 for v in a.c.values()) \
        and bool(a.keys("i") or a.keys("d"))


def _unskew_once(T: Sched, found: list[Step], oracle=None, alone: bool = False,
                 general: bool = False) -> bool:
    """Undo a ``skew`` by a chunk (tile) loop: a dimension with the div
    another dimension of the relation is (perhaps shifted: mvt fuzz seed
    33082, a tile of a shifted loop), for the largest group under one
    loop where every relation has it with the same coefficient.  ``alone``
    (tried last): for one statement that shares its loop with others
    (:func:`_unskew_alone`).  ``general`` (:data:`SKEWED_PASSES`): also a
    chunk loop isl wrote as its div plus iterators (:func:`_chunk_in`:
    ``floor((2t + i) / 3)`` as ``floor((i - t) / 3) + t``, seidel-2d fuzz
    seed 83226), which the general ``linearize`` would otherwise remove
    before the skew by it is undone."""
    for r in T.rels:
        owners = {}
        for t, a in enumerate(r.alphas, 1):
            k = _chunk_key(T, r, t, general)
            if k is not None and k not in owners:
                owners[k] = t
        for q, a in enumerate(r.alphas, 1):
            for k in a.keys("d"):
                t = owners.get(k)
                if t is None or t == q:
                    continue
                if _shifted_div(a) == k and any(x == T.divs.of(k)[0] for x in r.alphas[q:]):
                    # the same chunk twice, its point loop inside: a second
                    # strip-mine of the point loop (``_linearize_once``), not a
                    # skew (whose undoing leaves a constant loop to hoist)
                    continue
                c = a[k]
                if alone:
                    if oracle is not None and _unskew_alone(T, r, q, t, c, found, oracle):
                        return True
                    continue
                for p in _loop_prefixes(r):
                    group = T.under(p)
                    if all(x.depth >= max(q, t) and (
                            (d := _chunk_key(T, x, t, general)) is not None
                            and x.alphas[q - 1][d] == c
                            or _skew_free(x, t)) for x in group):
                        for x in group:
                            x.alphas[q - 1] = x.alphas[q - 1] - x.alphas[t - 1].scale(c)
                        found.append(Step("skew", (p, q, t, -c)))
                        return True
    return False


def _chunk_key(T: Sched, x: Rel, t: int, general: bool):
    """The div of ``x``'s chunk dimension ``t`` (one div, perhaps shifted;
    ``general``: also a div plus iterators that reads as a chunk,
    :func:`_chunk_in`), else None."""
    a = x.alphas[t - 1]
    k = _shifted_div(a)
    if k is None and general and _chunk_in(T, x, a) is not None:
        k = _is_div(a.part("d"))
    return k


def _unskew_alone(T: Sched, r: Rel, q: int, t: int, c, found: list[Step], oracle) -> bool:
    """Undo a ``skew`` by the chunk loop ``t`` of ``r`` alone when ``r``
    shares its innermost loop with other statements (skewed in a loop of
    its own, fused after: jacobi-1d fuzz seed 29243): that loop is split
    around ``r`` (the direct steps: the ``skew`` of ``r``'s loop, then the
    ``fuse`` s), checked by replaying them and, on the way, legality."""
    loop = r.beta[:-1]
    kids = T.children(loop)
    if len(loop) < 1 or len(kids) < 2 or r.depth < max(q, t):
        return False
    Y = T.copy()
    idx = kids.index(r.beta)
    cuts = 0
    if idx > 0:
        Y.split(Y.under(kids[idx - 1])[-1].beta, len(loop))
        cuts += 1
    yr = Y.by_tag(r.tag)
    if idx < len(kids) - 1:
        Y.split(yr.beta, len(loop))
        cuts += 1
    yr = Y.by_tag(r.tag)
    own = yr.beta[:len(loop)]
    if [x.tag for x in Y.under(own)] != [r.tag]:
        return False
    yr.alphas[q - 1] = yr.alphas[q - 1] - yr.alphas[t - 1].scale(c)
    direct = [Step("skew", (own, q, t, -c))] + [Step("fuse", (loop,))] * cuts
    if not _replays(Y, direct, T, oracle) or not oracle(Y) \
            or not _legal_path(Y, direct, oracle):
        return False
    T.rels = Y.rels
    found.extend(reversed(direct))
    return True


def _skew_free(x: Rel, t: int) -> bool:
    """May a relation whose α ``t`` is no div share the undoing of a
    skew by the chunk loop ``t`` (:func:`_unskew_once`)?  When it has no
    instance (an empty index-set split part, which Clay keeps and skews
    with the others), or when its α ``t`` is a constant (a chunk isl wrote
    as the constant it is on the part: ``floor(i / 3)`` where ``i ≤ 2``):
    the inverse skew is exact on it too (jacobi-1d, mvt fuzz seeds 25093,
    25192)."""
    a = x.alphas[t - 1]
    return _is_div(a) is None and (x.empty or not (a.keys("i") or a.keys("d")))


def _unskew_chunk_once(T: Sched, found: list[Step], oracle=None) -> bool:
    """Undo a ``skew`` or ``shift`` of a chunk (tile) loop by other loops
    (point loops among them): a dimension ``±d + Σ c_q·α_q + rest`` of one
    div ``d`` becomes ``±d``, for the largest group of relations under one
    prefix where the direct ``skew`` and ``shift`` steps reach ``T`` (and,
    with an oracle, the schedule before them is legal).  A chunk skewed by
    its own point loop ``α_q`` whose iterators the div shares is read by
    :func:`_self_skew` (isl writes ``floor(3i / 4) + 2·3i`` as ``floor(-i /
    4) + 7i``): it becomes that chunk."""
    for r, t, cand in _skewed_chunks(T):
        if _unskew_chunk_by(T, r, t, *cand, found, oracle):
            return True
    return False


def _skewed_chunks(T: Sched):
    """``(r, t, candidate)`` for each dimension ``t`` of a relation ``r``
    that is a chunk skewed or shifted by other dimensions, and each
    candidate ``(coef, const, others, loose)`` of :func:`_chunk_skews`."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if len(ds) != 1 or abs(a[ds[0]]) != 1 or _is_div(a) is not None \
                    or _offset_chunk(T, r, a):
                continue
            for cand in _chunk_skews(T, r, t, a):
                yield r, t, cand


def _skewed_tiles(T: Sched, oracle=None):
    """``(X, direct)`` for each skew (or shift) of a tile loop that
    :func:`_unskew_chunk_once` would undo if it could leave the other
    relations of the loop with a chunk skewed by other dimensions (one div
    plus iterators) rather than a plain one: ``X``, a copy of ``T`` with
    the skew undone, and the direct steps from ``X`` to ``T``.  The tile
    loop ``floor(j / 2)`` of two statements, skewed by a loop ``i`` after the
    tiling, where the first statement's point loop was skewed by ``-2i``
    before it: ``(d + i, …)`` beside ``(d, …)`` (syrk fuzz seed 64219); the
    greedy reductions undo the second statement's tile first and are
    stuck with the first one's.  :func:`reduce` tries each as a start,
    last."""
    for r, t, cand in _skewed_chunks(T):
        X = T.copy()
        found: list[Step] = []
        if _unskew_chunk_by(X, X.by_tag(r.tag), t, *cand, found, oracle, weak=True):
            yield X, list(reversed(found))


def _unskew_divs_once(T: Sched, found: list[Step], oracle=None) -> bool:
    """Undo a ``skew`` of a dimension ``α_q`` by another one ``α_t`` that
    has the same divs (a tile loop skewed by other loops, or a chunk loop
    when ``t`` is inner): ``α_q - c·α_t`` has fewer divs than ``α_q``, for
    the largest group of relations under one loop where none gets more
    divs (checked by replaying the direct ``skew``).  A point loop skewed
    by its tile loop after that tile loop was skewed by a chunk loop: ``(d0
    + 2·d1 + i, …, d0 + 2·d1 + 2i, d1, …)``, ``α_3 - α_1`` is ``i`` (trmm fuzz
    seed 70205)."""
    for r in T.rels:
        if r.empty:
            continue
        for q, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if not ds:
                continue
            for t, b in enumerate(r.alphas, 1):
                if t == q or not any(k in b.c for k in ds) \
                        or t > q and _shifted_div(b) is None:
                    continue    # (by an inner loop: only by a chunk loop)
                k = next(k for k in ds if k in b.c)
                c = Fraction(a[k]) / Fraction(b[k])
                if c.denominator != 1:
                    continue
                c = int(c)
                if len((a - b.scale(c)).keys("d")) >= len(ds):
                    continue
                for prefix, X, ids, members in _group_copies(
                        T, r, lambda x: x.depth >= max(q, t)):
                    if not T.is_loop(prefix):
                        continue
                    ok = True
                    for x in members:
                        old = x.alphas[q - 1]
                        x.alphas[q - 1] = x.canon(old - x.alphas[t - 1].scale(c))
                        if not x.empty and len(x.alphas[q - 1].keys("d")) > len(old.keys("d")):
                            ok = False
                    if ok and _taken(T, X, [Step("skew", (prefix, q, t, -c))], found, oracle):
                        return True
    return False


def _nested_sizes(T: Sched, a: Aff) -> list[int]:
    """The sizes of the divs of ``a`` and of the divs in their numerators,
    and their products (the sizes a chunk that isl wrote with nested divs
    can have)."""
    sizes, todo = [], list(a.keys("d"))
    while todo:
        num, size = T.divs.of(todo.pop())
        sizes.append(size)
        todo += num.keys("d")
    out = {1}
    for size in sizes:
        out |= {x * size for x in out}
    return sorted(out - {1})


def _nested_chunks(T: Sched) -> bool:
    """Write a dimension whose divs have divs and iterators in their
    numerators (isl's form of a chunk of a scaled loop) as ``g·floor(e /
    s) + c`` where that is equal on the relation's instances (which needs
    its ``stdom``): ``e`` another dimension without div, ``s`` a size of
    the divs or a product of them, ``g`` the content of the dimension's
    coefficients, ``c`` its constant or 0.  ``3·floor(i / 16)`` as ``-3·d1
    + 3i`` with ``d1 = floor((d0 + 2i + 2) / 3)``, ``d0 = floor((13i + 13) /
    16)`` (a tile loop grained: gemm, seidel-2d fuzz seeds 34100, 65076).
    The other dimensions with that div (one div) are written with the
    chunk too.  The same function, so no step."""
    for r in T.rels:
        if r.empty or r.stdom is None:
            continue
        for t, a in enumerate(r.alphas, 1):
            if not any(T.divs.of(k)[0].keys("d") and T.divs.of(k)[0].keys("i")
                       for k in a.keys("d")):
                continue    # (a chunk of a chunk loop stays)
            g = 0
            for k, v in a.c.items():
                if k[0] in "id":
                    g = gcd(g, int(v)) if Fraction(v).denominator == 1 else 1
            for e in dict.fromkeys(x for x in r.alphas
                                   if x.keys("i") and not x.keys("d") and x.is_integral):
                for size in _nested_sizes(T, a):
                    for scale, shift in itertools.product(dict.fromkeys((g, 1)),
                                                          dict.fromkeys((Aff(), a.part("p", "1")))):
                        new = T.divs.get(e, size).scale(scale)
                        if not new.keys("d") or not _equal_on(r, a - shift, new, T.divs):
                            continue
                        r.alphas[t - 1] = new + shift
                        k = a.keys("d")[0]
                        expr = (new + shift - (a - Aff.var(k).scale(a[k]))).scale(
                            Fraction(1, int(a[k])))
                        if len(a.keys("d")) == 1 and expr.is_integral:
                            # the other dimensions with the same div, in
                            # terms of the chunk
                            r.alphas = [x.substitute(k, expr.integral()) if k in x.c else x
                                        for x in r.alphas]
                        return True
    return False


def _flat_chunks(T: Sched) -> bool:
    """Read isl's nested divs as chunks (:func:`_nested_chunks`), else write
    one dimension that is a div (coefficient ±1) plus iterators as the one
    div ``floor(N / s)`` it is (:func:`_signed_chunks`), unless a div of it
    is a chunk dimension of the relation (a skew by that chunk loop): the
    chunk ``floor(3j / 4)`` whose point loop ``3j`` was reshaped after the
    tiling, written ``floor(-j / 4) + j`` (seidel-2d fuzz seed 64196), is a
    chunk the point loop's fixing reads.  The same function, so no step;
    :func:`reduce`'s last passes only (:data:`SKEWED_PASSES`)."""
    if _nested_chunks(T):
        return True
    for r in T.rels:
        owners = {_shifted_div(a) for a in r.alphas}
        for t, a in enumerate(r.alphas, 1):
            if not a.keys("i") or any(k in owners for k in a.keys("d")):
                continue    # (a skew by a chunk loop: _unskew_once's)
            for sign, num, size in _signed_chunks(T, a):
                if sign != 1 or not num.keys("i"):
                    continue
                new = T.divs.get(num, size)
                if new != a and not new.keys("i"):
                    r.alphas[t - 1] = new
                    return True
    return False


def _unreshape_skewed_chunk_once(T: Sched, found: list[Step], oracle=None) -> bool:
    """Undo a ``reshape`` of a dimension a chunk loop was skewed by: a
    chunk dimension ``±d + rest`` of ``r`` whose iterator part ``rest`` no
    combination of ``r``'s other dimensions gives (:func:`_chunk_skews`
    finds no skew), where making one other dimension ``α_q`` (without a
    div) equal to ``rest`` (``reshape`` s of ``r`` by iterators) lets
    :func:`_unskew_chunk_once` make the chunk plain: the point loop ``i``
    of ``floor(i / 3) + i`` reshaped to 0 after the skew, while the other
    statements of the loop keep it (gemm fuzz seed 61040).  The direct
    steps: the skew, then the ``reshape`` s (in an order that keeps the
    dates unique); checked by replaying them."""
    for r in T.rels:
        if r.empty:
            continue
        for t, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if len(ds) != 1 or abs(a[ds[0]]) != 1 or not a.is_integral \
                    or a.part("i").is_zero or _offset_chunk(T, r, a) \
                    or any(not loose for *_, loose in _chunk_skews(T, r, t, a)):
                continue
            want = a.part("i")
            for q in range(1, r.depth + 1):
                old = r.alphas[q - 1]
                if q == t or old.keys("d") or old.part("i") == want \
                        or (want - old.part("i")).keys("p"):
                    continue
                Y = T.copy()
                y = Y.by_tag(r.tag)
                y.alphas[q - 1] = y.canon(old + want - old.part("i"))
                plan = _reshaped(y, y.alphas[q - 1], old, q)
                if not _full_rank_path(y, plan) or not _keeps_rank(Y, T, {r.tag}) \
                        or any(st[0] != "reshape" for st in plan):
                    continue
                direct = [Step("reshape", (tuple(r.beta),) + st[1:]) for st in plan]
                if not _replays(Y, direct, T, oracle) or not _legal_path(Y, direct, oracle):
                    continue
                more: list[Step] = []
                if not _unskew_chunk_once(Y, more, oracle) \
                        or _chunk(Y, Y.by_tag(r.tag).alphas[t - 1]) is None:
                    continue
                T.rels = Y.rels
                found.extend(reversed(direct))
                found.extend(more)
                return True
    return False


def _unskew_to_chunk_once(T: Sched, found: list[Step], oracle=None) -> bool:
    """Undo the skews that hid a chunk loop in a combination of dimensions:
    a div ``d`` (a chunk ``floor(e / s)``, ``e`` with iterators) of ``r``
    such that ``±d`` is ``α_t + Σ μ_q·α_q`` (plus a parametric constant; solved
    exactly over ``r``'s iterators and divs, the μ integers) while no
    dimension is ``d``: ``α_t`` becomes that combination, the chunk (a
    ``skew`` of ``α_t`` by each ``α_q``, for the largest group of relations
    under one loop where every one gets a chunk there).  A tile loop skewed
    by its point loop ``i - d`` (``α_t = i``, ``α_q = i - d``; bicg fuzz
    seed 46164), or isl's ``3d - j`` beside the point loop ``j - 2d``
    (trmm fuzz seed 74075).  Checked by replaying the direct ``skew`` s
    (and, with an oracle, the schedule before them legal)."""
    for r in T.rels:
        if r.empty:
            continue
        divs = list(dict.fromkeys(k for a in r.alphas for k in a.keys("d")))
        if any(_is_div(a) is not None for a in r.alphas if a.keys("d")):
            continue        # a plain chunk dimension: the other reductions'
        keys = sorted(set(_iter_keys(r)) | set(divs))
        rows = [a.part("i", "d") for a in r.alphas]
        for d in divs:
            if not T.divs.of(d)[0].keys("i"):
                continue
            mu = solve(rows, Aff.var(d), keys)
            if mu is None or any(v.denominator != 1 for v in mu):
                continue
            first = min(q for q, a in enumerate(r.alphas, 1) if d in a.c)
            for t in range(1, r.depth + 1):
                sign = int(mu[t - 1])
                others = [(q, int(v) * sign) for q, v in enumerate(mu, 1) if q != t and v]
                if abs(sign) != 1 or not others or t > first and d not in r.alphas[t - 1].c:
                    continue    # (a loop inside the div's becomes no chunk loop)
                if d in r.alphas[t - 1].c and any(
                        abs(a[d]) == 1 for q, a in enumerate(r.alphas, 1)):
                    continue    # (a chunk dimension as _unskew_chunk_once reads it, or
                    #            the div's own dimension a chunk as the others read it)
                need = max([t] + [q for q, _ in others])
                for prefix, X, ids, members in _group_copies(T, r, lambda x: x.depth >= need):
                    if not T.is_loop(prefix):
                        continue
                    for x in members:
                        v = x.alphas[t - 1]
                        for q, c in others:
                            v = v + x.alphas[q - 1].scale(c)
                        x.alphas[t - 1] = x.canon(v)
                    for x in members:
                        if _shifted_div(x.alphas[t - 1]) is None:
                            x.alphas[t - 1] = _plain_chunk(X, x.alphas[t - 1])
                    if any(_shifted_div(x.alphas[t - 1]) is None
                           for x in members if not x.empty):
                        continue
                    direct = [Step("skew", (prefix, t, q, c)) for q, c in others]
                    if _taken(T, X, direct, found, oracle):
                        return True
    return False


def _taken(T: Sched, X: Sched, direct: list[Step], found: list[Step], oracle) -> bool:
    """Take ``X``, a reduction of ``T`` that the steps ``direct`` undo:
    when they lead from ``X`` back to ``T`` and every schedule on the way
    is legal, ``T`` becomes ``X`` and the steps are recorded (last first,
    as the reduction undoes them); else nothing changes."""
    if not _replays(X, direct, T, oracle) or not _legal_path(X, direct, oracle):
        return False
    T.rels = X.rels
    found.extend(reversed(direct))
    return True


def _plain_chunk(T: Sched, a: Aff) -> Aff:
    """``a``, a reversed div plus a parametric constant (``-d - 1`` with ``d
    = floor((-i - 1) / 4)``), as the plain chunk it is, shifted (``floor(i
    / 4)``: :func:`_signed_chunks`, the constant taken out of the
    numerator); else ``a`` itself."""
    shift = a.part("p")
    if a.keys("i") or _shifted_div(-a) is None:
        return a
    for sign, num, size in _signed_chunks(T, a - shift):
        if sign == 1 and num.keys("i") and num.is_integral:
            c = int(num[ONE]) // size
            return T.divs.get(num - Aff.const(c * size), size) + Aff.const(c) + shift
    return a


def _chunk_skews(T: Sched, r: Rel, t: int, a: Aff):
    """The candidates ``(coef, const, others, loose)`` of
    :func:`_unskew_chunk_once` for the dimension ``t`` (``a``) of ``r``:
    ``a = ±d + Σ coef·α_others + const`` (``loose``: a chunk plus
    iterators, :func:`_self_skew`)."""
    ds = a.keys("d")
    chunk = Aff.var(ds[0]).scale(a[ds[0]])
    rest = a - chunk
    others = [q for q in range(1, r.depth + 1)
              if q != t and not r.alphas[q - 1].part("i", "d").is_zero]
    keys = sorted({k for k in rest.c if k[0] in "id"}
                  | {k for q in others for k in r.alphas[q - 1].c if k[0] in "id"})
    coef = [Fraction(0)] * len(others)
    ok = True
    if keys:
        sol = solve([r.alphas[q - 1].part("i", "d") for q in others],
                    rest.part("i", "d"), keys) if others else None
        ok = sol is not None and all(v.denominator == 1 for v in sol)
        coef = sol if ok else coef
    const = rest - sum((r.alphas[q - 1].scale(c) for q, c in zip(others, coef)), Aff())
    if ok and not const.part("i", "d").c:
        yield coef, const, others, False
    for q in others:
        sk = _self_skew(T, a, r.alphas[q - 1])
        if sk is not None:
            yield [Fraction(sk)], Aff(), [q], True


def _self_skew(T: Sched, a: Aff, point: Aff) -> int | None:
    """``c ≠ 0`` when ``a`` (one div plus an integral form) is ``floor(g·point
    / s) + c·point`` for a ``g`` in ``1 … s`` (the chunk of ``point``, or of
    a multiple of it, skewed by ``point``); else None."""
    if not point.keys("i") or point.keys("d") or not point.is_integral:
        return None
    for sign, num, size in _signed_chunks(T, a):
        if sign != 1:
            continue
        keys = point.keys("i")
        m = Fraction(num[keys[0]]) / Fraction(point[keys[0]])
        if m.denominator != 1 or num != point.scale(int(m)):
            continue
        m = int(m)
        g = (m - 1) % size + 1
        c = (m - g) // size
        if c:
            return c
    return None


def _unskew_chunk_by(T: Sched, r: Rel, t: int, coef, const: Aff, others, loose: bool,
                     found: list[Step], oracle, weak: bool = False) -> bool:
    """One candidate of :func:`_unskew_chunk_once`; ``weak``: the other
    relations of the group may be left with a chunk plus iterators
    (:func:`_skewed_tiles`)."""
    need = max([t] + [q for q, c in zip(others, coef) if c])
    for prefix, X, ids, members in _group_copies(T, r, lambda x: x.depth >= need):
        for x in members:
            v = x.alphas[t - 1] - const
            for q, c in zip(others, coef):
                if c:
                    v = v - x.alphas[q - 1].scale(c)
            x.alphas[t - 1] = x.canon(v)
        if any(_is_div(x.alphas[t - 1]) is None
               and (not loose or _chunk_in(X, x, x.alphas[t - 1]) is None)
               and not (weak and x.tag != r.tag and _signed_chunks(X, x.alphas[t - 1]))
               for x in X.rels if x.tag in ids):
            continue            # no progress for some of the group
        direct = [Step("skew", (prefix, t, q, -int(c)))
                  for q, c in zip(others, coef) if c]
        if not const.is_zero:
            direct.append(Step("shift", (prefix, t, -const.integral())))
        if not direct or not (T.is_loop(prefix) or len(direct) == 1 and
                              direct[0].name == "shift"):
            continue
        if not _replays(X, direct, T, oracle):
            continue
        if not _legal_path(X, direct, oracle):
            X, direct = _reversed_point_first(X, ids, prefix, t, others, coef, direct,
                                              oracle)
            if X is None or not _replays(X, direct, T, oracle) \
                    or not _legal_path(X, direct, oracle):
                continue
        T.rels = X.rels
        found.extend(reversed(direct))
        return True
    return False


def _reversed_point_first(X: Sched, ids: set, prefix: tuple, t: int, others, coef,
                          direct: list[Step], oracle=None):
    """``(X', direct')`` where a dimension ``q`` the chunk loop ``t`` was
    skewed by is its reversed point loop (``α_q = -num`` of the chunk
    ``floor(num / s)``, for every relation of ``ids``): ``X`` with that
    reverse undone too, the direct steps the skew then the ``reverse``
    (the order it was applied in: a reversed point loop under a chunk loop
    not skewed yet can break a dependence, gemm fuzz seed 29280); then
    the same with any other dimension ``q`` the chunk loop was skewed by (a
    loop reversed after the skew: mvt fuzz seed 62012) when ``oracle``
    finds ``X'`` and the schedules on the way legal; else ``(None,
    None)``."""
    for q, c in zip(others, coef):
        if c and all(_chunk(X, x.alphas[t - 1]) is not None
                     and _chunk(X, x.alphas[t - 1])[0] == -x.alphas[q - 1]
                     for x in X.rels if x.tag in ids):
            return _reversed_after(X, ids, prefix, t, q, others, coef, direct)
    if oracle is None:
        return None, None
    for q, c in zip(others, coef):
        if c:
            Y, out = _reversed_after(X, ids, prefix, t, q, others, coef, direct)
            if oracle(Y) and _legal_path(Y, out, oracle):
                return Y, out
    return None, None


def _reversed_after(X: Sched, ids: set, prefix: tuple, t: int, q: int, others, coef,
                    direct: list[Step]):
    """``X`` with the dimension ``q`` of the relations ``ids`` reversed, and
    the direct steps from there: the skews of the chunk loop ``t`` (by
    ``-α_q`` for ``q``), the shift of ``direct``, then ``reverse`` of
    ``q``."""
    Y = X.copy()
    for x in Y.rels:
        if x.tag in ids:
            x.alphas[q - 1] = -x.alphas[q - 1]
    out = [Step("skew", (prefix, t, q2, int(c2) if q2 == q else -int(c2)))
           for q2, c2 in zip(others, coef) if c2]
    out += [st for st in direct if st.name == "shift"] + [Step("reverse", (prefix, q))]
    return Y, out


def _legal_path(X: Sched, direct: Sequence[Step], oracle) -> bool:
    """Are ``X`` and the schedules after each of ``direct`` but the last
    legal (the last one is the reduced target, legal already)?  True
    without an oracle."""
    if oracle is None:
        return True
    rec = Recorder(X.copy())
    for st in [None, *direct[:-1]]:
        if st is not None:
            rec.do(st.name, *st.args)
        if not oracle(rec.sched):
            return False
    return True


def _loose_chunks(T: Sched, r: Rel):
    """``(t, num, size)`` for each chunk dimension ``α_t = floor(num / size)``
    of ``r`` whose point dimension is not where stripmine leaves it: no
    later α of ``r`` equals ``num`` (an interchange or a change of the point
    loop moved it)."""
    for t, a in enumerate(r.alphas, 1):
        ch = _chunk(T, a)
        if ch is None:
            continue
        num, size = ch
        if not any(r.alphas[q - 1] == num for q in range(t + 1, r.depth + 1)):
            yield t, num, size


def _split_chunk_loop_once(T: Sched, found: list[Step], oracle=None) -> bool:
    """Undo a ``fuse`` that brought other relations into the loops of a
    chunk: a chunk ``α_t = floor(α_p / s)`` whose chunk loop also holds
    relations without it (a tile of one loop, fused after with another, or
    of one part of a peeled loop).  The deepest loop from the chunk loop
    down that holds both kinds, its children each of one kind, is ``split``
    between them (the direct steps: the ``fuse`` s that join the pieces
    again), so that a later ``_linearize_once`` finds the chunk in a loop
    of its own.  Checked by replaying the fuses (and, with an oracle, the
    split schedule legal)."""
    for r in T.rels:
        for t, p, size in _tiles(T, r):
            node = r.beta[:t]
            chunked = {x.tag for x in T.under(node) if _chunk_of(T, x, t, p, size, oracle)}
            if len(chunked) == len(T.under(node)):
                continue
            if _split_apart(T, node, chunked, found, oracle):
                return True
    return False


def _unshift_point_part_once(T: Sched, found: list[Step], oracle=None) -> bool:
    """Undo a ``shift`` of the chunk dimension of one relation of a chunk
    loop whose point dimension is a constant there (an index-set split
    part where the point loop has one value: isl writes its chunk as the
    constant it is): ``α_t = c`` where ``floor(α_p / size) = v``, with
    ``c ≠ v``, becomes ``v`` (the direct step: a ``shift`` of that
    relation; checked by replaying it).  Then the chunk loop is one chunk
    again (mvt fuzz seed 11192)."""
    for r in T.rels:
        for t, p, size in _tiles(T, r):
            for x in T.under(r.beta[:t]):
                if x is r or x.depth < p or x.empty:
                    continue
                a, point = x.alphas[t - 1], x.alphas[p - 1]
                if a.part("i", "d", "p").c or point.part("i", "d", "p").c \
                        or not a.is_integral or not point.is_integral:
                    continue
                value = Aff.const(int(point[ONE]) // size)
                if a == value:
                    continue
                X = T.copy()
                X.by_tag(x.tag).alphas[t - 1] = value
                direct = [Step("shift", (x.beta, t, (value - a).integral()))]
                if not _replays(X, direct, T, oracle) or oracle is not None and not oracle(X):
                    continue
                T.rels = X.rels
                found.extend(direct)
                return True
    return False


def _split_apart(T: Sched, node: tuple, tags: set, found: list[Step], oracle) -> bool:
    """Split the deepest loop under ``node`` (``node`` included) holding
    relations of ``tags`` and others (see :func:`_split_chunk_loop_once`)."""
    loops = sorted({x.beta[:m] for x in T.under(node) for m in range(len(node), len(x.beta))},
                   key=len, reverse=True)
    for loop in loops:
        under = {x.tag for x in T.under(loop)}
        if not (under & tags) or under <= tags:
            continue
        kids = T.children(loop)
        kinds = []
        for k in kids:
            ks = {x.tag for x in T.under(k)}
            if ks & tags and not ks <= tags:
                return False            # a deeper mixed loop comes first
            kinds.append(bool(ks & tags))
        cuts = [i for i in range(1, len(kids)) if kinds[i] != kinds[i - 1]]
        Y = T.copy()
        for i in reversed(cuts):
            Y.split(Y.under(kids[i - 1])[-1].beta, len(loop))
        direct = [Step("fuse", (loop,))] * len(cuts)
        if not _replays(Y, direct, T, oracle) or oracle is not None and not oracle(Y):
            return False
        T.rels = Y.rels
        found.extend(reversed(direct))
        return True
    return False


def _sink_chunk_once(T: Sched, found: list[Step], oracle=None,
                     reversed_point: bool = False, fuse: bool = False,
                     shifted: bool = False) -> bool:
    """Undo the ``interchange`` s that moved a chunk loop inside its point
    loop: a chunk ``α_t = floor(α_p / s)`` with ``p < t`` goes back right
    before its point loop, for the largest group of relations under one
    prefix (a statement alone included) where the direct interchanges reach
    ``T``, no chunk of the group moves inside its point loop (and, with an
    oracle, the schedule before them is legal).  ``reversed_point``: a
    point loop outside that is reversed (tried last: syrk fuzz seed 28259,
    where reversing it there first breaks a dependence).

    Where that fails for every group, one ``interchange`` of two loops
    that are not adjacent is undone (:func:`_chunk_swaps`): Clay's
    ``interchange`` swaps any two, and the tile ``(⌊i/4⌋, i, j)``
    interchanged 1 ↔ 3 is ``(j, i, ⌊i/4⌋)``, which the adjacent moves read
    as ``(j, ⌊i/4⌋, i)``, another loop order (lu fuzz seed 64257).

    ``fuse`` (:data:`SKEWED_PASSES`): the relations of a group in several
    loops inside the point loop (its chunk loop split after the
    interchange) are in one loop first (:func:`_fused_inside`; the direct
    steps: the interchanges, then the ``split`` s; lu fuzz seed 30257).
    ``shifted`` (the ``loop_shifts`` pass): also a shifted chunk loop,
    ``floor(i / 2) + 3`` inside ``i`` (:func:`_shifted_by_chunks`)."""
    for r in T.rels:
        for t, num, size in _loose_chunks(T, r):
            point = -num if reversed_point else num
            p = next((q for q in range(1, t) if r.alphas[q - 1] == point), None)
            if p is None and shifted and not reversed_point:
                # a shifted chunk loop: floor(i / s) + c is floor((i + c·s) / s)
                p = next((q for q in range(1, t) if _shifted_by_chunks(num - r.alphas[q - 1],
                                                                       size)), None)
            if p is None:
                continue
            moves = [None] + ([] if reversed_point else _chunk_swaps(r, p, t))
            for move in moves:
                for prefix, group in _groups(T, r, 1, len(r.beta)):
                    deep = t if move is None else move[1]
                    if not all(x.depth >= deep for x in group) or move is not None \
                            and move[0] < p and len(group) < len(T.under(r.beta[:move[0]])):
                        continue    # (a loop outside the point loop moves in: all of it)
                    X = T.copy()
                    ids = {x.tag for x in group}
                    for x in X.rels:
                        if x.tag not in ids:
                            continue
                        if move is None:
                            x.alphas.insert(p - 1, x.alphas.pop(t - 1))
                        else:
                            u, v = move
                            x.alphas[u - 1], x.alphas[v - 1] = x.alphas[v - 1], x.alphas[u - 1]
                    if any(len(list(_loose_chunks(X, x)))
                           > len(list(_loose_chunks(T, T.by_tag(x.tag))))
                           for x in X.rels if x.tag in ids):
                        continue    # a relation of the group whose chunk this moves inside
                    direct = ([Step("interchange", (prefix, m, m + 1)) for m in range(p, t)]
                              if move is None else [Step("interchange", (prefix, *move))])
                    if fuse:
                        if move is not None or len(prefix) > p:
                            continue
                        direct += _fused_inside(X, r.beta[:p], ids)
                        if len(direct) == t - p:
                            continue        # (one loop already: tried without fuse)
                    if _taken(T, X, direct, found, oracle):
                        return True
    return False


def _shifted_by_chunks(diff: Aff, size: int, zero: bool = False) -> bool:
    """Is ``diff`` (a chunk's numerator less a dimension) a nonzero
    (``zero``: or zero) constant multiple of ``size``: the chunk of that
    dimension, shifted?"""
    c = diff.c
    if not c:
        return zero
    return set(c) == {ONE} and Fraction(c[ONE]) % size == 0


def _fused_inside(X: Sched, loop: tuple, ids: set) -> list[Step]:
    """Fuse the child loops of ``loop`` in ``X`` that hold relations of
    ``ids`` (adjacent ones, from the first) into one; return the ``split``
    steps that cut it again as it was (last cut first)."""
    kids = [k for k in X.children(loop) if len(k) > len(loop)
            and any(x.tag in ids for x in X.under(k))]
    if len(kids) < 2 or any(len(x.beta) <= len(loop) + 1 for k in kids for x in X.under(k)):
        return []
    first = list(X.children(loop))
    if first.index(kids[-1]) - first.index(kids[0]) != len(kids) - 1:
        return []       # (not adjacent)
    lasts = [X.under(k)[-1].tag for k in kids[:-1]]
    for _ in kids[1:]:
        X.fuse(kids[0])
    return [Step("split", (X.by_tag(tag).beta, len(loop) + 1)) for tag in reversed(lasts)]


def _unswap_then_sink_once(T: Sched, found: list[Step], oracle=None) -> bool:
    """Undo an ``interchange`` of a whole loop that took a chunk's point
    loop outside it, when the chunk loop cannot be moved back out alone (the
    schedule in between breaks a dependence): for a chunk ``α_t`` whose
    point loop ``α_p`` is outside it (``p < t``), the loop at depth ``u ≤
    p`` holding ``r`` has its dimensions ``u`` and ``v`` (``u < v < t``)
    swapped back, for all its relations, where that is legal and then lets
    :func:`_sink_chunk_once` move the chunk out (lu fuzz seed 81157: ``(j,
    i, floor(j / 2), k)`` from the tile ``(i, k, floor(j / 2), j)``
    interchanged 2 ↔ 4, then the outer loops 1 ↔ 2).  Tried when no other
    reduction applies; the direct steps: the sink's, then the
    ``interchange``."""
    if oracle is None:
        return False
    for r in T.rels:
        for t, num, _ in _loose_chunks(T, r):
            p = next((q for q in range(1, t) if r.alphas[q - 1] == num), None)
            if p is None:
                continue
            for u in range(1, p + 1):
                prefix = r.beta[:u]
                if not T.is_loop(prefix):
                    continue
                for v in range(u + 1, t):
                    if any(x.depth < v for x in T.under(prefix)):
                        continue
                    X = T.copy()
                    for x in X.under(prefix):
                        x.alphas[u - 1], x.alphas[v - 1] = x.alphas[v - 1], x.alphas[u - 1]
                    direct = [Step("interchange", (prefix, u, v))]
                    if not oracle(X) or not _replays(X, direct, T, oracle):
                        continue
                    more: list[Step] = []
                    if not _sink_chunk_once(X, more, oracle):
                        continue
                    T.rels = X.rels
                    found.extend(direct)
                    found.extend(more)
                    return True
    return False


def _unswap_part_once(T: Sched, found: list[Step], oracle=None) -> bool:
    """Undo an ``interchange`` of one part of a statement alone (an index-set
    split part) that moved a chunk loop: a relation with a strip-mined
    dimension whose dimensions, two of them swapped, are those of another
    part of its statement with as many dimensions, on its instances (gemm
    fuzz seed 69150: ``(floor(k / 16), 0, 0, 0, k)``, a part where ``i = j =
    0``, beside the part ``(i, floor(j / 2), floor(k / 16), j, k)``: its
    tile loop interchanged outward, 1 ↔ 3).  The direct step: the
    ``interchange`` of the part (its full β), which must keep the target
    legal (with an oracle).  Tried when no other reduction applies, in the
    last pass of :func:`reduce` only: the part then reduces with the other
    one.  Not for empty parts (any dimensions are theirs on no instance)."""
    for r in T.rels:
        if r.empty or not any(a.keys("d") for a in r.alphas):
            continue
        for x in T.rels:
            if x is r or x.empty or x.stmt != r.stmt or x.depth != r.depth \
                    or x.alphas == r.alphas:
                continue
            for u, v in itertools.combinations(range(r.depth), 2):
                a = list(r.alphas)
                a[u], a[v] = a[v], a[u]
                if a == r.alphas or not all(
                        y == r.canon(z) or r.stdom is not None and _equal_on(r, y, z, T.divs)
                        for y, z in zip(a, x.alphas)):
                    continue
                X = T.copy()
                X.by_tag(r.tag).alphas = a
                if oracle is not None and not oracle(X):
                    continue
                T.rels = X.rels
                found.append(Step("interchange", (r.beta, u + 1, v + 1)))
                return True
    return False


def _chunk_swaps(r: Rel, p: int, t: int) -> list[tuple[int, int]]:
    """The pairs ``(u, v)`` of dimensions of ``r``, not adjacent, whose swap
    puts the chunk ``α_t`` outside its point loop ``α_p`` (``p < t``):
    the chunk with a loop outside the point loop (``u < p``, ``v = t``) or
    the point loop with a loop inside the chunk (``u = p``, ``v > t``).
    A loop outside the point loop moves in only with all its relations
    (:func:`_sink_chunk_once`: else the swap splits the loop ``u``, a
    reading that needs more steps than the undoing of a later sink)."""
    return ([(u, t) for u in range(1, p)] + [(p, t)] * (t > p + 1)
            + [(p, v) for v in range(t + 1, r.depth + 1)])


def _unlinearize_once(T: Sched, found: list[Step], oracle=None, outer: bool = False) -> bool:
    """Undo a ``linearize`` that left a skew by the chunk loop it removed:
    a div ``floor(α_p / s)`` of an inner dimension ``α_q`` of ``r`` (not an
    outer one: that reading, a skew by an inner chunk loop, gave sequences
    whose ``linearize`` Clay refuses on replay, where isl writes the chunk
    with another div: mvt, atax fuzz seeds 62012, 78231), no dimension
    of ``r`` being that chunk, gets its chunk loop back (the inverse:
    ``stripmine(prefix, p, s)`` on ``T``, the direct step: ``linearize(prefix,
    p)``), for the largest group under one prefix where the direct step
    reaches ``T``, no part of the group has a chunk of one value, and (with
    an oracle) the schedule with the chunk loop is legal and Clay's
    ``linearize`` accepts it; the skew by that chunk loop is undone next.
    ``stripmine``, a ``skew`` by the chunk loop, ``linearize``: the point
    loop skewed by the chunk of an outer loop (trmm fuzz seed 30005).
    ``outer`` (:data:`SKEWED_PASSES`, with an oracle): that reading too
    where no outer dimension is the chunk's numerator, an inner one is
    (an outer loop skewed by the chunk of an inner one: syrk fuzz seed
    48199, ``(floor(k / 4) + i, k, j)``).  A div that is the chunk of
    ``α_p`` written otherwise (``floor((-i - 1) / 4)`` is ``-floor(i / 4) -
    1``: a skew by ``-1`` times the chunk loop, syrk fuzz seed 86289) is
    read as that chunk first (:func:`_div_as_chunk`)."""
    for r in T.rels:
        chunks = {k for a in r.alphas if (k := _shifted_div(a)) is not None}
        for q, a in enumerate(r.alphas, 1):
            for k in a.keys("d"):
                num, size = T.divs.of(k)
                if k in chunks or _shifted_div(a) == k:
                    continue
                inner = range(1, q)
                outers = range(q + 1, r.depth + 1) if outer else range(0)
                p = next((m for m in (*inner, *outers) if r.alphas[m - 1] == num), None)
                form = None
                if p is None:
                    p, form = next(((m, f) for m in (*inner, *outers)
                                    if (f := _div_as_chunk(T, k, r.alphas[m - 1])) is not None),
                                   (None, None))
                if p is None:
                    continue
                for prefix, group in _groups(T, r, p, len(r.beta) - 1):
                    if not all(x.depth >= p for x in group) or any(
                            not x.empty and _constant_on(x, T.divs.get(x.alphas[p - 1], size),
                                                         T.divs) for x in group):
                        continue    # (Clay linearizes no chunk that is one value on a part)
                    if form is not None:   # the same function, with α_p's chunk
                        r.alphas[q - 1] = a + (form - Aff.var(k)).scale(a[k])
                    X = T.copy()
                    r.alphas[q - 1] = a
                    X.stripmine(prefix, p, size)
                    direct = [Step("linearize", (prefix, p))]
                    if not _replays(X, direct, T, oracle) or oracle is not None and (
                            not oracle(X) or not _clay_linearizes(X, prefix, p, oracle)):
                        continue
                    T.rels = X.rels
                    found.extend(direct)
                    return True
    return False


def _div_as_chunk(T: Sched, k, e: Aff) -> Aff | None:
    """The div ``k`` (``floor(n / s)``) written as ``±floor(e / s) + j``
    (``j`` an integer: ``n = ±e + c`` with the constant ``c`` that makes it
    exact, ``floor((-e - 1) / s) = -floor(e / s) - 1``), the chunk of ``e``
    (with an iterator) by the same size; None when it is not one."""
    n, size = T.divs.of(k)
    if not e.keys("i"):
        return None
    chunk = T.divs.get(e, size)
    for sign, num in ((1, n), (-1, Aff.const(size - 1) - n)):
        # floor(n / s) = sign·floor(num / s); num - e = j·s gives floor(e / s) + j
        j = (num - e).c
        if set(j) <= {ONE} and Fraction(j.get(ONE, 0)) % size == 0:
            return (chunk + Aff.const(int(Fraction(j.get(ONE, 0)) / size))).scale(sign)
    return None


def _clay_linearizes(X: Sched, prefix: tuple, p: int, oracle) -> bool:
    """Does Clay's ``linearize(prefix, p)`` accept ``X`` (each relation
    exactly strip-mined there: stricter than the symbolic step, e.g. where a
    ``grain`` comes between; atax fuzz seed 78231)?"""
    from dataclasses import replace
    from ..directives.tiling import linearize
    try:
        linearize(replace(oracle.scop, schedule=oracle.schedule(X)), list(prefix), p)
    except ClayxError:
        return False
    return True


def _same(a: Sched, b: Sched, oracle=None) -> bool:
    """Do two symbolic schedules have the same relations (by tag)?  Forms
    that differ as written are compared on the relation's instances by
    ``oracle.equal`` when an oracle is given (a chunk ``floor(i / 16)`` is
    0 on a part where ``i < 16``)."""
    if len(a.rels) != len(b.rels):
        return False
    other = {r.tag: r for r in b.rels}
    for r in a.rels:
        x = other.get(r.tag)
        if x is None or x.beta != r.beta or len(x.alphas) != len(r.alphas):
            return False
        for u, v in zip(r.alphas, x.alphas):
            u, v = r.canon(u), x.canon(v)
            if u != v and (oracle is None or not oracle.equal(r, u, v, a.divs)):
                return False
    return True


def _is_tree(S: Sched) -> bool:
    """Is ``S``'s β-vectors a tree: no two alike, none a prefix of another
    (a statement where a loop is)?"""
    return beta_tree_error(r.beta for r in S.rels) is None


def _replays(X: Sched, steps: Sequence[Step], T: Sched, oracle=None) -> bool:
    """Do ``steps`` (direct steps) turn ``X`` (a β-tree) into ``T``?"""
    if not _is_tree(X):
        return False
    rec = Recorder(X.copy())
    try:
        for st in steps:
            rec.do(st.name, *st.args)
    except (IndexError, KeyError, ValueError, WhiteboxError):
        return False
    return _same(rec.sched, T, oracle)


def _groups(T: Sched, r: Rel, lo: int, hi: int):
    """Candidate sets of relations for one step: those under each prefix of
    ``r``'s β of length ``lo`` … ``hi`` (largest set first, no repeats).
    With free empty parts (:func:`recover`'s ``free_empties``), not a set
    of empty parts only: a step for them gives no instance a date, and
    their dimensions are free (the strip-mined ones left are dropped last,
    :func:`_drop_empty_divs`), while the steps that reduce them may leave
    them, in the core, dimensions that a later ``reshape`` of a loop they
    share makes dependent (jacobi-2d fuzz seed 40258: a peeled empty half
    tiled, skewed and reshaped)."""
    seen = set()
    for m in range(lo, hi + 1):
        g = T.under(r.beta[:m])
        key = frozenset(id(x) for x in g)
        if _FREE_EMPTIES.get() and all(x.empty for x in g):
            continue        # (steps for empty parts only give no instance a date)
        if key not in seen:
            seen.add(key)
            yield r.beta[:m], g


def _group_copies(T: Sched, r: Rel, fits):
    """The candidate groups of one step on ``r`` (:func:`_groups`, every
    prefix of its β) whose relations all pass ``fits``, each as ``(prefix,
    X, ids, members)``: a copy ``X`` of ``T`` to change, the group's tags,
    and its relations in ``X``."""
    for prefix, group in _groups(T, r, 1, len(r.beta)):
        if not all(fits(x) for x in group):
            continue
        X = T.copy()
        ids = {x.tag for x in group}
        yield prefix, X, ids, [x for x in X.rels if x.tag in ids]


def _tiles(T: Sched, r: Rel, general: bool = True):
    """``(t, p, size)`` for each chunk dimension ``α_t = floor(α_p / size)``
    of ``r`` with its point loop ``p > t`` (the first inner dimension that
    is a multiple of the chunk's numerator: the div keeps ``floor(2i / 8)``
    as ``floor(i / 4)``, the point loop's size is 8); ``general``: chunks
    as :func:`_chunk_in` reads them, else as :func:`_chunk` does."""
    for t, a in enumerate(r.alphas, 1):
        ch = _chunk_in(T, r, a) if general else _chunk(T, a)
        if ch is None:
            continue
        num, size = ch
        p = next((q for q in range(t + 1, r.depth + 1)
                  if _multiple(r.alphas[q - 1], num)), None)
        if p is not None:
            yield t, p, size * _multiple(r.alphas[p - 1], num)


def _linearize_once(T: Sched, found: list[Step], oracle=None, doubts=None,
                    general: bool = False, flat: bool = False) -> bool:
    """Remove one chunk dimension ``α_t = floor(α_p / s)`` (a ``tile`` or
    ``stripmine`` step, possibly on part of a loop), checked by replaying
    the direct step.  A chunk loop that only relations with that chunk
    share is removed first (a tile of part of a loop, which leaves a loop
    whose relations are not all strip-mined, comes after).  ``general``:
    also chunks written as a div plus iterators (:func:`_chunk_in`; tried
    after the skews of chunk loops are undone: ``floor(i / 2) - i`` is
    the chunk of ``-i``, or the chunk of ``i`` skewed by its reversed
    point loop).  ``flat`` (the ``loop_shifts`` pass): no tile loop that a
    flat chunk of another dimension is made of (:func:`_flat_chunk_of`),
    no chunk of part of a loop whose other relations have a changed chunk
    of the same size (:func:`_changed_chunk_beside`)."""
    spared = False      # a group left for an empty part's rank: tried last
    for keep, whole in ((True, True), (True, False), (False, True), (False, False)):
        if not keep and not spared:
            break
        for r in T.rels:
            # the innermost chunk dimension first: its tile is the last one
            # applied, so the sequence tiles outer loops first
            for t, p, size in reversed(list(_tiles(T, r, general))):
                if _is_point_of_chunk(T, r, t) or flat and _flat_chunk_of(T, r, t):
                    continue        # a tile of this tile loop is undone first
                loop = len(T.under(r.beta[:t]))
                for _, group in _groups(T, r, t, len(r.beta) - 1):
                    if whole and len(group) != loop:
                        continue
                    if not all(_chunk_of(T, x, t, p, size, oracle, general) for x in group) \
                            or any(_skews_by(x, t) for x in group):
                        continue    # (a skew by the chunk loop is undone first)
                    if keep and not all(_chunk_of(T, x, t, p, size, oracle, general, True)
                                        for x in group if x.empty):
                        spared = True
                        continue
                    if flat and _changed_chunk_beside(T, r, group, t, size):
                        continue    # (the loop's other chunks are read first)
                    if _unchunk(T, r, group, t, p, size, found, oracle, doubts):
                        return True
    return False


def _skews_by(r: Rel, t: int) -> bool:
    """Does another dimension of ``r`` use the div that the chunk dimension
    ``t`` is (a skew by that chunk loop, to undo before the chunk loop goes:
    jacobi-1d fuzz seed 29243)?"""
    k = _shifted_div(r.alphas[t - 1])
    # (the same chunk twice is two strip-mines: not a skew)
    return k is not None and any(k in a.c and _shifted_div(a) != k
                                 for q, a in enumerate(r.alphas, 1) if q != t)


def _is_point_of_chunk(T: Sched, r: Rel, t: int) -> bool:
    """Is the chunk dimension ``t`` of ``r`` (one div, perhaps shifted) the
    numerator of a div of another dimension of ``r`` (a tile of that tile
    loop, applied after: lu fuzz seed 17087; the shift before it: trmm
    15055)?"""
    a = r.alphas[t - 1]
    k = _is_div(a.part("d"))
    return k is not None and not a.keys("i") and any(
        T.divs.of(d)[0][k] for q, x in enumerate(r.alphas, 1) if q != t for d in x.keys("d"))


def _changed_chunk_beside(T: Sched, r: Rel, group: list[Rel], t: int, size: int) -> bool:
    """Does a relation of ``r``'s loop at depth ``t`` outside ``group`` have
    a chunk of the same size there, combined with other dimensions (one
    strip-mine of the whole loop, changed after: its change is undone
    first, so that the loop's chunks go in one step; trmm fuzz seed
    15055)?"""
    ids = {x.tag for x in group}
    for x in T.under(r.beta[:t]):
        if x.tag in ids or x.depth < t or x.empty:
            continue
        a = x.alphas[t - 1]
        if _shifted_div(a) is None and any(T.divs.of(d)[1] == size for d in a.keys("d")):
            return True
    return False


def _flat_chunk_of(T: Sched, r: Rel, t: int) -> bool:
    """Does another dimension of ``r`` have a chunk of the chunk dimension
    ``t`` (``floor(e / s)``, perhaps shifted) written flat, a div
    ``floor((e + c) / (s·m))`` with ``c`` a multiple of ``s`` (the tile loop
    of a tile loop: ``floor(floor(e / s) / m)``), that another step (a
    reshape by an iterator) hides from :func:`_chunk_of_chunk` until it is
    undone?  That tile is undone first (trmm fuzz seed 15055)."""
    a = r.alphas[t - 1]
    k = _shifted_div(a)
    if k is None:
        return False
    e, s = T.divs.of(k)
    for q, x in enumerate(r.alphas, 1):
        if q == t:
            continue
        for d in x.keys("d"):
            n2, s2 = T.divs.of(d)
            if s2 > s and s2 % s == 0 and _shifted_by_chunks(n2 - e, s, zero=True):
                return True
    return False


def _unchunk(T: Sched, r: Rel, group: list[Rel], t: int, p: int, size: int,
             found: list[Step], oracle, doubts=None) -> bool:
    """Remove the chunk dimension ``t`` (of ``α_p``) from the relations of
    ``group`` (``r`` among them), as :func:`_linearize_once` says.

    When the chunk loop holds several loops of the group (down to the point
    loop), the schedule without the chunk dimension keeps them apart; when
    that schedule is
    illegal (the tile was applied to one loop, split after: a fission that
    only the tiling makes legal), the loops are fused first and the direct
    steps are the tile followed by the ``split`` s that undo the fusion;
    else, when the point loops are the chunk loop's children, the loops
    are read as strip-mined apart, their chunk loops fused after
    (:func:`_unchunk_apart`).
    An illegal schedule met is noted in ``doubts`` (the core is then checked
    at the end of :func:`reduce`)."""
    node = r.beta[:t]
    several = len({x.beta[:p] for x in group}) > 1
    X = _without_chunk(T, group, t, p)
    steps = _retile(X, T, r, group, t, p, size, [], oracle)
    if steps and (not several or oracle is None or oracle(X)):
        T.rels = X.rels
        found.extend(reversed(steps))
        return True
    if steps and doubts is not None:
        doubts.append(r.stmt)
    if not steps and not several:
        for X in _without_partial_chunk(T, group, t, p):
            steps = _retile(X, T, r, group, t, p, size, [], oracle)
            if steps and (oracle is None or _legal_path(X, steps, oracle)):
                T.rels = X.rels
                found.extend(reversed(steps))
                return True
    if not several or {x.tag for x in group} != {x.tag for x in T.under(node)}:
        return False
    if _unchunk_fused(T, r, node, t, p, size, found, oracle):
        return True
    return p == t + 1 and _unchunk_apart(T, r, group, t, size, found, oracle)


def _unchunk_fused(T: Sched, r: Rel, node: tuple, t: int, p: int, size: int,
                   found: list[Step], oracle) -> bool:
    """:func:`_unchunk` of the chunk loop ``node`` holding several loops:
    read as one loop tiled, then split."""
    # fuse the loops of every level from the chunk loop to the point loop
    # (the stripmine's β); the splits at the chunk loop's level undo it, or
    # all the splits
    fused = T.copy()
    outer: list[Step] = []
    inner: list[Step] = []
    for length in range(t, p):
        for sub in sorted({x.beta[:length] for x in fused.under(node)}):
            while len(fused.children(sub)) > 1:
                first = fused.children(sub)[0]
                last = fused.under(first)[-1].beta
                fused.fuse(first)
                (outer if length == t else inner).append(Step("split", (last, length + 1)))
    group2 = fused.under(node)
    X = _without_chunk(fused, group2, t, p)
    try:
        if oracle is not None and not oracle(X):
            return False
    except ClayxError:            # the fused β-tree is not a schedule
        return False
    for after in (outer[::-1], (outer + inner)[::-1]):
        steps = _retile(X, T, r, group2, t, p, size, after, oracle)
        if steps:
            T.rels = X.rels
            found.extend(reversed(steps))
            return True
    return False


def _unchunk_apart(T: Sched, r: Rel, group: list[Rel], t: int, size: int,
                   found: list[Step], oracle) -> bool:
    """Remove the chunk dimension ``t`` of ``group`` when the chunk loop
    holds several point loops (``p = t + 1``): read as loops strip-mined
    apart and their chunk loops fused after (a ``stripmine`` per loop, then
    the ``fuse`` s), the point loops becoming siblings in the chunk loop's
    place.  Checked by replaying the direct steps (and, with an oracle, the
    schedules on the way legal)."""
    node = r.beta[:t]
    if {x.tag for x in group} != {x.tag for x in T.under(node)} or t < 1:
        return False
    X = T.copy()
    ids = {x.tag for x in group}
    wide = 1 + max(len(T.children(node)), 1)
    parent = node[:-1]
    for x in X.rels:
        if x.beta[:t - 1] != parent or len(x.beta) < t:
            continue
        b = list(x.beta)
        if x.tag in ids:
            b[t - 1] = b[t - 1] * wide + b[t]
            del b[t]
            del x.alphas[t - 1]
        else:
            b[t - 1] = b[t - 1] * wide
        x.beta = tuple(b)
    X.normalize()
    loops = sorted({X.by_tag(tag).beta[:t] for tag in ids})
    # strip-mine each point loop (the last first: the β of the others stay)
    direct = [Step("stripmine", (lp, t, size)) for lp in reversed(loops)]
    direct += [Step("fuse", (loops[0],))] * (len(loops) - 1)
    return _taken(T, X, direct, found, oracle)


def _without_chunk(T: Sched, group: list[Rel], t: int, p: int) -> Sched:
    """``T`` without the chunk dimension ``t`` (and the β after it) in the
    relations of ``group``."""
    X = T.copy()
    ids = {x.tag for x in group}
    for x in X.rels:
        if x.tag in ids:
            del x.alphas[t - 1]
            x.beta = x.beta[:p - 1] + x.beta[p:]
    X.normalize()
    return X


def _without_partial_chunk(T: Sched, group: list[Rel], t: int, p: int):
    """The schedules ``X`` that a strip-mine of ``group`` alone (a β below
    the loop it strip-mines) may have turned into ``T``: Clay's β rule (a 0
    inserted after the loop's position) moved the group into the *first*
    child of the loop ``L`` (the point loop's parent), whose other relations
    keep no chunk, and the β normalization lost the group's position at
    one level ``m`` (where it had been a child of its own, or a part of a
    child).  Each candidate puts the group back at position ``k`` of level
    ``m`` (the other relations from ``k`` on one further, or none moved);
    the caller checks which one replays (jacobi-1d and lu fuzz seeds 17093,
    17087: a peeled or split part tiled alone, inside loops the other
    statements share)."""
    L = group[0].beta[:p - 1]
    ids = {x.tag for x in group}
    if len(L) != p - 1 or any(x.beta[:p] != L + (0,) or len(x.beta) <= p for x in group) \
            or ids == {x.tag for x in T.under(L + (0,))}:
        return
    base = {x.tag: x.beta[:p - 1] + x.beta[p:] for x in group}
    betas = list(base.values())
    common = next((m for m in range(min(map(len, betas))) if len({b[m] for b in betas}) > 1),
                  min(map(len, betas)) - 1)
    others = [x for x in T.rels if x.tag not in ids]
    seen = set()
    for m in range(p - 1, common):
        head = betas[0][:m]
        n = 1 + max([x.beta[m] for x in others if x.beta[:m] == head and len(x.beta) > m],
                    default=-1)
        for k in range(n + 1):
            for move in (True, False):
                X = T.copy()
                for x in X.rels:
                    if x.tag in ids:
                        del x.alphas[t - 1]
                        b = base[x.tag]
                        x.beta = b[:m] + (k,) + b[m + 1:]
                    elif move and x.beta[:m] == head and len(x.beta) > m and x.beta[m] >= k:
                        x.beta = x.beta[:m] + (x.beta[m] + 1,) + x.beta[m + 1:]
                if not _is_tree(X):
                    continue
                X.normalize()
                key = tuple((x.tag, x.beta) for x in X.rels)
                if key not in seen:
                    seen.add(key)
                    yield X


def _retile(X: Sched, T: Sched, r: Rel, group: list[Rel], t: int, p: int, size: int,
            after: list[Step], oracle) -> list[Step] | None:
    """The ``tile``/``stripmine`` step that, followed by ``after``, turns
    ``X`` into ``T``, and ``after`` (None when there is none)."""
    ids = {x.tag for x in group}
    xr = X.by_tag(r.tag)
    for m in range(1, len(xr.beta)):
        prefix = xr.beta[:m]
        if {x.tag for x in X.under(prefix)} != ids:
            continue
        steps = _chunk_steps(prefix, t, p - 1, size) + list(after)
        if _replays(X, steps, T, oracle):
            return steps
    return None


def _chunk_steps(prefix, t: int, d: int, size: int) -> list[Step]:
    """The steps that strip-mine the loop at depth ``d`` by ``size`` and put
    its chunk loop at depth ``t``, the loops in between keeping their order
    (one step to move: Clay's ``tile`` swaps; a longer move is ``tile`` and
    adjacent interchanges that carry the loop it swapped back up)."""
    if d == t:
        return [Step("stripmine", (prefix, t, size))]
    steps = [Step("tile", (prefix, d, t, size))]
    # the β of the point loop's statements after the stripmine (a β naming
    # an outer loop still names them all)
    inner = tuple(prefix[:d]) + (0,) + tuple(prefix[d:]) if len(prefix) >= d else tuple(prefix)
    # after the swap the loops are (chunk, L_t+1 … L_d-1, L_t): carry L_t up to t + 1
    steps += [Step("interchange", (inner, k - 1, k)) for k in range(d, t + 1, -1)]
    return steps


def _chunk(T: Sched, a: Aff) -> tuple[Aff, int] | None:
    """``(num, size)`` when ``a`` is the chunk ``floor(num / size)``: one div
    ``floor(e / size)``, plus a constant ``c`` (isl writes the chunk of
    ``e + c·size`` that way), else None."""
    ds = a.keys("d")
    if len(ds) != 1 or a[ds[0]] != 1 or a.keys("i") or a.keys("p"):
        return None
    num, size = T.divs.of(ds[0])
    return num + Aff.const(a[ONE] * size), size


def _multiple(a: Aff, num: Aff) -> int | None:
    """``g`` when ``a = g·num`` for an integer ``g ≥ 1`` (``num`` with an
    iterator or div term; ``g = 1`` when equal), else None."""
    if a == num:
        return 1
    keys = [k for k in num.c if k[0] in "id"]
    if not keys or set(a.c) != set(num.c):
        return None
    g = Fraction(a[keys[0]]) / Fraction(num[keys[0]])
    if g.denominator != 1 or g < 1 or a != num.scale(int(g)):
        return None
    return int(g)


def _chunk_in(T: Sched, r: Rel, a: Aff) -> tuple[Aff, int] | None:
    """:func:`_chunk`, or ``(num + size·rest, size)`` when ``a`` is one div
    ``floor(num / size)`` plus an integral form ``rest`` of iterators and
    parameters (isl writes the chunk ``floor(3i / 5)`` as ``i + floor(-2i /
    5)``), provided that a dimension of ``r`` is a multiple of that
    numerator (its point loop): ``a`` is then exactly that chunk."""
    ch = _chunk(T, a)
    if ch is not None:
        return ch
    ds = a.keys("d")
    if len(ds) != 1 or a[ds[0]] != 1 or not a.is_integral:
        return None
    num, size = T.divs.of(ds[0])
    num = num + (a - Aff.var(ds[0])).scale(size)
    if any(_multiple(x, num) for x in r.alphas):
        return num, size
    return None


def _signed_chunks(T: Sched, a: Aff) -> list[tuple[int, Aff, int]]:
    """The readings ``(sign, num, size)`` of ``a`` as ``sign·floor(num /
    size)`` when ``a`` is one div ``floor(n / s)`` with coefficient ±1 plus
    an integral form ``rest`` (of iterators, parameters, a constant): ``a =
    floor(N / s)`` with ``N = ±n + s·rest`` (``-floor(n / s)`` is ``floor((s
    - 1 - n) / s)``), and ``a = -floor((s - 1 - N) / s)`` (isl writes the
    reversed chunk ``-floor(i / 2)`` as ``floor((i + 1) / 2) - i``); none
    otherwise."""
    ds = a.keys("d")
    if len(ds) != 1 or abs(a[ds[0]]) != 1 or not a.is_integral:
        return []
    n, size = T.divs.of(ds[0])
    rest = (a - Aff.var(ds[0]).scale(a[ds[0]])).integral()
    if a[ds[0]] == 1:
        num = n + rest.scale(size)
    else:
        num = -n + Aff.const(size - 1) + rest.scale(size)
    return [(1, num, size), (-1, Aff.const(size - 1) - num, size)]


def _reread_chunks(T: Sched, nested: bool = True, shifted: bool = False) -> bool:
    """Write a dimension that is a chunk or a reversed chunk of another
    dimension of its relation as that: ``±floor(e / s)`` with ``e`` (a
    multiple of) the other dimension, where isl wrote a div ``floor(n / s)``
    with coefficient -1, or a div of another numerator plus iterators
    (:func:`_signed_chunks`: ``floor((i + 1) / 2) - i`` is ``-floor(i /
    2)``).  The same function, so no step; the other reductions then read
    it as a reversed (``_plain_div_once``) or plain chunk.  Before that,
    divs with large coefficients are written with small ones
    (:func:`_small_div`), and a chunk ``floor(e / (s·s'))`` of a relation
    where another dimension is the chunk ``floor(e / s')`` as the chunk of
    that dimension by ``s`` (:func:`_chunk_of_chunk`: a tile of a tile
    loop; not when ``nested`` is false), and a div in terms of a chunk loop
    of the relation or of another part of its statement
    (:func:`_owned_divs`, :func:`_part_owned_divs`), or with no iterator
    where it equals a chunk on the instances (:func:`_parametric_chunks`).
    ``shifted`` (the ``loop_shifts`` pass): a shifted tile of a shifted tile
    loop too (:func:`_shifted_chunk_of_chunk`)."""
    if _small_divs(T) or nested and _chunk_of_chunk(T, nested == BESIDE_POINTS, shifted) \
            or _owned_divs(T) or _part_owned_divs(T) \
            or _parametric_chunks(T):
        return True
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            if not a.keys("i") or not a.keys("d") or _chunk_in(T, r, a) is not None:
                continue            # no iterator to fold, or read as a chunk already
            # as written, or a shifted chunk (its parametric constant apart:
            # floor(3i / 5) - 1 as floor(-2i / 5) + i - 1, trmm fuzz seed 17025)
            for shift in dict.fromkeys((Aff(), a.part("p", "1"))):
                for sign, num, size in _signed_chunks(T, a - shift):
                    if not num.keys("i") or not any(
                            _multiple(x, num) for q, x in enumerate(r.alphas, 1) if q != t):
                        continue
                    new = T.divs.get(num, size).scale(sign) + shift
                    if new != a and not new.keys("i"):
                        r.alphas[t - 1] = new
                        return True
    return False


def _parametric_chunks(T: Sched) -> bool:
    """Write a dimension whose divs have no iterator (a parametric
    constant on the relation's instances) as the chunk ``floor(α_p / s)``
    of another dimension ``α_p`` of the relation, ``s`` the size of one of
    its divs, where the two are equal on the relation's instances (which
    needs its ``stdom``): a strip-mine or tile of a loop with fewer
    iterations than the tile size, such as an ``unroll``'s epilog, whose
    chunk isl writes as the constant it is there (``floor(i / 4)`` on ``4
    ⌊M / 4⌋ ≤ i < M`` as ``M - 1 - floor(3M / 4)``; atax, bicg fuzz seeds
    73071, 43014).  The same dates, so no step; the dimension then reads as
    a plain chunk."""
    for r in T.rels:
        if r.empty or r.stdom is None:
            continue
        for t, a in enumerate(r.alphas):
            ds = a.keys("d")
            if not ds or a.keys("i") or any(
                    T.divs.of(k)[0].keys("i") or T.divs.of(k)[0].keys("d") for k in ds):
                continue
            for p, e in enumerate(r.alphas):
                if p == t or not e.keys("i") or e.keys("d") or not e.is_integral:
                    continue
                for size in dict.fromkeys(T.divs.of(k)[1] for k in ds):
                    new = T.divs.get(e, size)
                    if new != a and _equal_on(r, a, new, T.divs):
                        r.alphas[t] = new
                        return True
    return False


def _part_chunks(T: Sched) -> bool:
    """Write the parts of a statement (index-set split parts) as another
    part of it that has a div (a chunk loop), tried when no reduction
    applies any more (so no reduction of one part alone is undone): an
    empty part (no instance: any form gives the same dates) takes the
    forms of the first such part with as many dimensions, and the
    dimensions that isl wrote without a div in a part take the other
    part's forms where the two are equal on the part's instances (the
    chunk ``floor(i / 5)`` is 0 on a part where ``0 ≤ i < 5``, ``floor((j
    - N + 2) / 5)`` is ``j - N + 2`` where ``N - 3 ≤ j ≤ N - 2``; lu, trmm
    fuzz seeds 73297, 58195), every other dimension alike: in the same
    loop, or a chunk dimension (else a reduction of the part's loop alone
    would be undone here, round in circles).  The same dates, so no step;
    the part then reads as a part of the same tile."""
    for x in T.rels:
        if not x.empty:
            continue
        r = next((r for r in T.rels if r.stmt == x.stmt and r.depth == x.depth and not r.empty
                  and any(a.keys("d") for a in r.alphas)), None)
        if r is not None and r.alphas != x.alphas:
            x.alphas = list(r.alphas)
            return True
    return _part_forms(T) or _loop_chunks(T)


def _part_forms(T: Sched) -> bool:
    """The second reading of :func:`_part_chunks`."""
    for r in T.rels:
        if not any(a.keys("d") for a in r.alphas):
            continue
        for x in T.rels:
            if x is r or x.stmt != r.stmt or x.depth != r.depth or x.stdom is None:
                continue
            diff = [k for k, (a, b) in enumerate(zip(r.alphas, x.alphas)) if x.canon(a) != b]
            if not diff or any(not r.alphas[k].keys("d") or x.alphas[k].keys("d")
                               or x.beta[:k + 1] != r.beta[:k + 1]
                               and _chunk(T, r.alphas[k]) is None for k in diff):
                continue    # (another loop: only a chunk, which only a linearize removes)
            if all(_equal_on(x, x.alphas[k], x.canon(r.alphas[k]), T.divs) for k in diff):
                for k in diff:
                    x.alphas[k] = x.canon(r.alphas[k])
                return True
    return False


def _loop_chunks(T: Sched) -> bool:
    """The third reading of :func:`_part_chunks`: where a relation has the
    chunk ``floor(α_p / s)`` at depth ``t`` (its point loop at ``p``), a
    relation in the same loop at depth ``t`` whose α_t has no div but
    equals ``floor(α_p / s)`` of its own α_p on its instances takes that
    form (isl writes the chunk as the affine form it is on a part: ``floor((j
    - N + 2) / 5)`` as ``j - N + 2`` where ``N - 6 ≤ j ≤ N - 2``, beside
    another statement of the same tile; lu fuzz seed 73297).  The same
    dates, so no step."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            ch = _chunk(T, a)
            if ch is None or r.empty:
                continue
            num, size = ch
            for p in range(t + 1, r.depth + 1):
                if r.alphas[p - 1] != num:
                    continue
                for x in T.under(r.beta[:t]):
                    if x is r or x.empty or x.stdom is None or x.depth < p:
                        continue
                    e, old = x.alphas[p - 1], x.alphas[t - 1]
                    if old.keys("d") or e.keys("d") or not e.keys("i") or not e.is_integral:
                        continue
                    new = T.divs.get(e, size)
                    if new != old and _equal_on(x, old, new, T.divs):
                        x.alphas[t - 1] = new
                        return True
    return False


def _constant_on(r: Rel, a: Aff, divs) -> bool:
    """Does the form ``a`` take one value (for each value of the
    parameters) on the instances of ``r``?  True without instances, or
    without ``stdom`` (unknown)."""
    if r.stdom is None:
        return True
    rng = form_map(r, a, divs).range()
    return rng.lexmin().is_equal(rng.lexmax())


def _equal_on(r: Rel, a: Aff, b: Aff, divs) -> bool:
    """Are the forms ``a`` and ``b`` equal on the instances of ``r`` (which
    needs its ``stdom``)?"""
    return form_map(r, a, divs).is_equal(form_map(r, b, divs))


def _div_as(T: Sched, key, owner) -> Aff | None:
    """The div ``key`` as ``±owner + L`` (``L`` an integral form), when
    both have the same size ``s`` and numerators ``n'`` and ``n`` with
    ``n' - n`` or ``n' + n - (s - 1)`` a multiple of ``s`` (``floor((s - 1
    - n) / s) = -floor(n / s)``: ``floor((i + 1) / 2)`` is ``i - floor(i /
    2)``); else None."""
    n2, s2 = T.divs.of(key)
    n, s = T.divs.of(owner)
    if s != s2 or n2.keys("d") or n.keys("d") or not n.is_integral or not n2.is_integral:
        return None
    for sign, rest in ((1, n2 - n), (-1, n2 + n - Aff.const(s - 1))):
        if all(int(v) % s == 0 for v in rest.c.values()):
            return Aff.var(owner).scale(sign) + rest.scale(Fraction(1, s)).integral()
    return None


def _owned_divs(T: Sched) -> bool:
    """Write a div of a dimension in terms of the div another dimension of
    the same relation is (its chunk loop: :func:`_div_as`), where that
    leaves no more iterators (the same function, no step): ``floor((i + 1)
    / 2) + j - i`` beside the chunk ``floor(i / 2)`` is ``j - floor(i /
    2)``, a skew by the chunk loop (trmm fuzz seed 21165)."""
    changed = False
    for r in T.rels:
        owners = [k for k in (_is_div(a) or _is_div(-a) for a in r.alphas) if k is not None]
        for t, a in enumerate(r.alphas):
            for k in a.keys("d"):
                if k in owners:
                    continue
                for o in owners:
                    expr = _div_as(T, k, o)
                    if expr is None:
                        continue
                    new = a.substitute(k, expr)
                    if len(new.keys("i")) <= len(a.keys("i")) and new.is_integral:
                        r.alphas[t] = a = new
                        changed = True
                        break
    return changed


def _part_owned_divs(T: Sched) -> bool:
    """:func:`_owned_divs` with the chunk loops of the other parts of the
    statement (index-set split parts, each read by isl on its own: a
    ``peel`` of a tile loop, then a ``grain`` of one part, gives ``2·floor(i
    / 2)`` on one part as ``-2·floor((i + 1) / 2) + 2i``; jacobi-2d fuzz seed
    63068), for a div with a coefficient other than ±1, where that leaves
    fewer iterators (the same function, no step)."""
    for r in T.rels:
        owners = {k for x in T.rels if x.stmt == r.stmt and x is not r
                  for a in x.alphas for k in (_shifted_div(a), _shifted_div(-a))
                  if k is not None}
        for t, a in enumerate(r.alphas):
            # a scaled div (a unit one is read by _signed_chunks)
            for k in (k for k in a.keys("d") if abs(a[k]) > 1):
                for o in sorted(owners - {k}):
                    expr = _div_as(T, k, o)
                    if expr is None:
                        continue
                    new = a.substitute(k, expr)
                    if len(new.keys("i")) < len(a.keys("i")) and new.is_integral:
                        r.alphas[t] = new
                        return True
    return False


def _small_div(T: Sched, key) -> Aff | None:
    """``floor(n / s)`` (the div ``key``, ``n`` of iterators, parameters
    and a constant) as ``Q ± floor(m / s)`` where ``m`` has coefficients of
    at most ``s / 2``, its first one positive, its constant in ``0 … s-1``
    (isl writes ``floor(i / 160)`` reversed as ``i - floor((159i + 159) /
    160)``: that div is ``i - floor(i / 160)``); None when ``n``'s
    coefficients are small already."""
    n, size = T.divs.of(key)
    if n.keys("d") or not n.is_integral or all(
            2 * abs(int(v)) <= size for k, v in n.c.items() if k != ONE):
        return None
    small, q = {}, {}
    for k, v in n.c.items():
        v = int(v)
        r = v % size if k == ONE else (v + size // 2) % size - size // 2
        small[k], q[k] = r, (v - r) // size
    m, quot = Aff(small), Aff(q)
    first = next((m[k] for k in sorted(m.c, key=str) if k != ONE), 0)
    if not first:
        return quot                         # 0 <= m < s: floor(m / s) = 0
    if first > 0:
        return quot + T.divs.get(m, size)
    return quot - T.divs.get(Aff.const(size - 1) - m, size)


def _small_divs(T: Sched) -> bool:
    """Write the divs of large coefficients with small ones
    (:func:`_small_div`; the same functions, no step) in each α dimension
    that has several divs or a div and iterators, where that leaves no
    more iterators: not in a chunk as it is (one div, perhaps plus a
    constant), nor in a dimension with a div that is the chunk of another
    dimension (a multiple of its numerator: ``floor(3i / 2)`` of the point
    loop ``3i`` stays)."""
    changed = False
    for r in T.rels:
        for t, a in enumerate(r.alphas):
            ds = a.keys("d")
            if not ds or len(ds) == 1 and not a.keys("i") or any(
                    _multiple(x, T.divs.of(k)[0]) for k in ds for x in r.alphas):
                continue
            for k in ds:
                new = _small_div(T, k)
                if new is not None:
                    a = a.substitute(k, new)
            if len(a.keys("i")) > len(r.alphas[t].keys("i")):
                continue
            if a != r.alphas[t]:
                r.alphas[t] = a
                changed = True
    return changed


def _chunk_of_chunk(T: Sched, beside_point: bool = False, shifted: bool = False) -> bool:
    """Write a dimension that is one div ``floor(e / (s·s'))`` of a relation
    whose other dimension is the div ``floor(e / s')``, with no dimension a
    multiple of ``e`` (unless ``beside_point``) and no other dimension using
    that div, as ``floor(floor(e / s') / s)`` (isl writes the tile of a tile
    loop flat), in every relation where it is so; the same function, no
    step."""
    changed = False
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            k = _is_div(a)
            if k is None or any(k in x.c for q, x in enumerate(r.alphas, 1) if q != t):
                continue
            num, size = T.divs.of(k)
            if num.keys("d") or not beside_point and any(_multiple(x, num) for x in r.alphas):
                continue
            for q, x in enumerate(r.alphas, 1):
                # the inner chunk, or the inner chunk shifted by a constant
                # (floor((i + 6) / 6) beside floor(i / 2) + 3: trmm fuzz
                # seed 15055)
                inner = _is_div(x - Aff.const(x[ONE]))
                if q == t or x.keys("p"):
                    continue
                if inner is not None:
                    n2, s2 = T.divs.of(inner)
                    n2 = n2 + Aff.const(int(x[ONE]) * s2)
                else:
                    # a skewed inner chunk, one flat div too: floor(i / 8)
                    # + 2i is floor(17i / 8), floor(17i / 32) its chunk by
                    # 4 (a tile of a tile loop skewed by its point loop:
                    # mvt fuzz seed 39132)
                    n2, s2 = next(((n, s) for sign, n, s in _signed_chunks(T, x)
                                   if sign == 1), (None, 0))
                    if n2 is not None and not (n2 + T.divs.of(x.keys("d")[0])[0]).keys("i"):
                        # a reversed chunk, floor(j / 2) - j: read as the
                        # plain div it is by _unreversed_divs (trmm fuzz
                        # seed 94205), not here
                        continue
                if n2 == num and 1 < s2 < size and size % s2 == 0:
                    r.alphas[t - 1] = T.divs.get(x, size // s2)
                    changed = True
                    break
    return changed or shifted and _shifted_chunk_of_chunk(T)


def _shifted_chunk_of_chunk(T: Sched) -> bool:
    """:func:`_chunk_of_chunk` for a shifted outer chunk ``floor((e + c) /
    (s·s')) + c0`` beside the chunk ``floor(e / s') + c2`` (``c`` a multiple
    of ``s'``): ``floor((floor(e / s') + c2 + m) / s) + c0``, ``m = c / s' -
    c2`` (a tile of a tile loop shifted after, reshaped too: trmm fuzz seed
    15055, ``floor((i + 10) / 10) - 1`` beside ``floor(i / 2)``)."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            k = _shifted_div(a)
            if k is None or a.keys("p") or any(k in x.c for q, x in enumerate(r.alphas, 1)
                                               if q != t):
                continue
            num, size = T.divs.of(k)
            if num.keys("d"):
                continue
            for q, x in enumerate(r.alphas, 1):
                inner = _shifted_div(x)
                if q == t or inner is None or x.keys("p"):
                    continue
                n2, s2 = T.divs.of(inner)
                diff = num - n2 - Aff.const(int(x[ONE]) * s2)
                if not (1 < s2 < size and size % s2 == 0 and _shifted_by_chunks(diff, s2)):
                    continue
                m = int(Fraction(diff[ONE]) / s2)
                new = T.divs.get(x + Aff.const(m), size // s2) + Aff.const(int(a[ONE]))
                if new != a:
                    r.alphas[t - 1] = new
                    return True
    return False


def _keeps_rank(X: Sched, T: Sched, ids: set) -> bool:
    """Do the relations of ``ids`` have α dimensions of the same rank over
    their iterators in ``X`` (a reduced target) as in ``T`` (undoing
    reshapes by iterators must not make dates merge once the tiles are
    gone)?  Empty parts too: ``reshape`` checks the dates of a relation
    as written, not on the statement's domain (fuzz seed 20036)."""
    return all(_rank([v.part("i") for v in x.alphas], _iter_keys(x))
               >= _rank([v.part("i") for v in T.by_tag(x.tag).alphas], _iter_keys(x))
               for x in X.rels if x.tag in ids)


def _unreshape_chunk_once(T: Sched, found: list[Step], oracle=None) -> bool:
    """Undo the ``reshape`` s of a chunk (tile) loop by iterators: a
    dimension ``±d + Σ c_k·i_k + rest`` of one div ``d`` (``rest``
    parametric) becomes ``±d + rest`` for the largest group of relations
    under one prefix where the direct ``reshape`` s reach ``T``, every
    relation of the group whose dimension has a div loses its iterators,
    and the dates stay unique (and, with an oracle, the schedules before
    the direct steps are legal).  The iterators need not be dimensions of
    the nest (those are :func:`_unskew_chunk_once`'s)."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if len(ds) != 1 or abs(a[ds[0]]) != 1 or not a.keys("i") or not a.is_integral \
                    or _offset_chunk(T, r, a):
                continue
            its = a.part("i")
            top = max(k[1] for k in its.c)
            for prefix, X, ids, members in _group_copies(
                    T, r, lambda x: x.depth >= t and x.dim > top):
                ok = True
                for x in members:
                    had = bool(x.alphas[t - 1].keys("d"))
                    x.alphas[t - 1] = x.canon(x.alphas[t - 1] - its)
                    if had and x.alphas[t - 1].keys("i") and not x.empty:
                        ok = False
                if not ok:
                    continue
                if not _keeps_rank(X, T, ids):
                    continue            # a relation whose dates this would merge
                xr = X.by_tag(r.tag)
                plan = _reshaped(xr, xr.alphas[t - 1], xr.alphas[t - 1] + its, t)
                if not all(_full_rank_path(x, plan) for x in X.rels if x.tag in ids):
                    continue
                direct = [Step("reshape", (prefix,) + st[1:]) for st in plan
                          if st[0] == "reshape"]
                if direct and _taken(T, X, direct, found, oracle):
                    return True
    return False


def _is_chunk_of(T: Sched, chunk: Aff, point: Aff, size: int, general: bool = True) -> bool:
    """Is ``chunk`` exactly ``floor(point / size)`` as written (a div,
    a div plus an integral form, or an affine form when the division is
    exact: ``floor(2i / 2)`` is ``i``)?"""
    if not point.is_integral or not (point.keys("i") or point.keys("d")):
        return False
    return T.divs.get(point, size) == chunk or general and _same_floor(T, chunk, point, size)


def _same_floor(T: Sched, chunk: Aff, point: Aff, size: int | None = None) -> bool:
    """Is ``chunk`` (one div ``floor(n / s)`` plus an integral form
    ``rest``) ``floor(point / s)``: ``n + s·rest == point`` (and ``s`` is
    ``size`` when given)?"""
    ds = chunk.keys("d")
    if len(ds) != 1 or chunk[ds[0]] != 1 or not chunk.is_integral:
        return False
    num, s = T.divs.of(ds[0])
    return size in (None, s) and num + (chunk - Aff.var(ds[0])).scale(s) == point


def _offset_chunk(T: Sched, r: Rel, a: Aff) -> bool:
    """Is ``a`` (a div plus a constant or parameters) the chunk of a point
    dimension of ``r`` (of a shifted loop: :func:`_chunk`), rather than a
    shifted chunk?"""
    # a chunk plus parameters is one (of the point loop shifted by them);
    # plus iterators, a skewed chunk first (_unskew_chunk_once)
    ch = _chunk(T, a) if a.keys("i") else _chunk_in(T, r, a)
    return ch is not None and _is_div(a) is None and ch[0] in r.alphas


def _chunk_of(T: Sched, x: Rel, t: int, p: int, size: int, oracle,
              general: bool = True, keep_rank: bool = False) -> bool:
    """Is α_t of ``x`` the chunk ``floor(α_p / size)`` (as written, or on
    ``x``'s instances)?  An empty part's is (any value gives it the same
    dates); ``keep_rank``: only when its α dimensions without α_t keep
    their rank (:func:`_spare_row`)."""
    if x.depth < p:
        return False
    if _is_chunk_of(T, x.alphas[t - 1], x.alphas[p - 1], size, general):
        return True
    if x.empty:
        return not keep_rank or _spare_row(x, t)
    ch = _chunk(T, x.alphas[t - 1])
    if ch is not None:
        num, s = ch
        g = _multiple(x.alphas[p - 1], num)
        if g is None and x.elim and x.canon(num) == x.alphas[p - 1]:
            g = 1       # the point loop fixed by the part's equalities (trmm fuzz seed 58195)
        return g is not None and s * g == size
    if oracle is None or x.alphas[t - 1].keys("i") or x.alphas[t - 1].keys("d"):
        return False
    chunk = T.divs.get(x.alphas[p - 1], size)
    return oracle.equal(x, x.alphas[t - 1], chunk, T.divs)


def _spare_row(x: Rel, t: int) -> bool:
    """Do the α dimensions of ``x`` other than α_t have the rank (over its
    iterators) that all of them have?  An empty part (no instance) takes
    any dimensions, but Clay's ``reshape`` checks them as written: a
    reduction that removes a dimension it needs (reads its ``i`` as the
    chunk of a loop it shares) leaves it too few dimensions in the core,
    and every later ``reshape`` of its loops is refused (trmm fuzz seed
    80165)."""
    keys = _iter_keys(x)
    rows = [a.part("i") for a in x.alphas]
    return _rank(rows[:t - 1] + rows[t:], keys) == _rank(rows, keys)


def _fix_point_once(T: Sched, found: list[Step], oracle=None, outer: bool = False,
                    careful: bool = False, on_instances: bool = False) -> bool:
    """Make the dimension a chunk ``floor(e / s)`` was taken from equal to
    ``e`` again, when a ``reverse``, ``skew`` or ``shift`` changed it after
    the ``stripmine`` (checked by replaying the direct steps); then a
    ``reshape`` by iterators that no dimension of the nest is.  ``outer``:
    a point loop outside its chunk loop (an interchange moved the chunk
    in; :func:`_sink_chunk_once` then moves it back), tried after every
    other reduction (a chunk of a skewed loop reads as one of many forms).
    ``careful`` (:func:`reduce`'s): a choice whose reduced target breaks a
    dependence is skipped, the next one tried."""
    for reshapes in (False, True):
        if _fix_point_pass(T, found, reshapes, oracle, outer, careful, on_instances):
            return True
    return False


def _fix_point_pass(T: Sched, found: list[Step], reshapes: bool, oracle,
                    outer: bool = False, careful: bool = False,
                    on_instances: bool = False) -> bool:
    later = []      # reshapes: the candidates, fewest iterators first
    for r in T.rels:
        for t, num, size in _loose_chunks(T, r):
            if any(r.alphas[q - 1] == num for q in range(1, t)):
                continue        # the point loop moved out: _sink_chunk_once's
            # outer: the nearest dimension first
            for p in range(t - 1, 0, -1) if outer else range(t + 1, r.depth + 1):
                # a scaled point loop (a tile of a grained loop, shifted
                # after: bicg fuzz seed 19094) is made that multiple first
                # (not when it is that multiple already)
                for sign, g in [(sign, g) for sign in (1, -1) for g in dict.fromkeys((
                        _multiple(r.alphas[p - 1].part("i", "d").scale(sign),
                                  num.part("i", "d")) if num.part("i", "d").c else None, 1))
                        if g]:
                    rest = num.scale(g) - r.alphas[p - 1].scale(sign)
                    if g > 1 and rest.is_zero:
                        continue
                    others = [q for q in range(1, r.depth + 1) if q not in (t, p)]
                    keys = sorted({kk for q in others for kk in r.alphas[q - 1].c
                                   if kk[0] in "id"} | {kk for kk in rest.c if kk[0] in "id"})
                    coef = [Fraction(0)] * len(others)
                    if keys:
                        sol = solve([r.alphas[q - 1].part("i", "d") for q in others],
                                    rest.part("i", "d"), keys) if others else None
                        if sol is None or any(v.denominator != 1 for v in sol):
                            if rest.part("i", "d").is_zero:
                                sol = [Fraction(0)] * len(others)
                            elif reshapes and not rest.keys("d") and rest.is_integral:
                                # reshapes by iterators that are no dimension
                                later.append((len(rest.keys("i")), len(later), r, t, p, sign,
                                              rest))
                                continue
                            else:
                                continue
                        elif reshapes:
                            continue
                        coef = sol
                    const = rest - sum((r.alphas[q - 1].scale(c) for q, c in zip(others, coef)),
                                       Aff())
                    if const.part("i", "d").c:
                        continue
                    if _fix_point(T, r, t, p, sign, others, coef, const, found, oracle,
                                  careful, on_instances):
                        return True
    for *_, r, t, p, sign, rest in sorted(later, key=lambda c: c[:2]):
        if _fix_point(T, r, t, p, sign, [], [], rest, found, oracle, careful, on_instances):
            return True
    return False


def _fix_point(T, r, t, p, sign, others, coef, const, found, oracle=None,
               careful: bool = False, on_instances: bool = False) -> bool:
    """Try the inverse steps that make α_p of ``r`` (and of a set of
    relations around it) ``sign·α_p + Σ coef·α_q + const`` (``const`` with
    iterator terms: undone by ``reshape`` s).  With an oracle, the
    schedules before the direct steps are legal when there are several
    (a skew of a loop by an inner one, or a shift, then a reverse may pass
    through an illegal schedule: fuzz seeds 22167, 21229).  Every relation
    of the set must have α_t the chunk of its new α_p as written, or
    (``on_instances``: :data:`SKEWED_PASSES`) on its instances
    (:func:`_chunk_of`: a part where the point loop ``i`` is 0, reshaped by
    ``2j``, has ``(0, 2j, …)``, trmm fuzz seed 81015)."""
    need = max([p, t] + [q for q, c in zip(others, coef) if c])
    for prefix, X, ids, members in _group_copies(T, r, lambda x: x.depth >= need):
        direct: list[Step] = []
        for x in members:
            v = x.alphas[p - 1].scale(sign)
            for q, c in zip(others, coef):
                if c:
                    v = v + x.alphas[q - 1].scale(c)
            x.alphas[p - 1] = x.canon(v + const)
        size = _point_size(X, X.by_tag(r.tag), t, p)
        if any(not _point_of(X, x, t, p) and (
                not on_instances or size is None or not _chunk_of(X, x, t, p, size, oracle))
               for x in X.rels if x.tag in ids and not x.empty):
            continue    # a relation of the group whose point loop this breaks
        # direct steps, from X back to T: undo the skews and the shift, then reverse
        for q, c in zip(others, coef):
            if c:
                direct.append(Step("skew", (prefix, p, q, int(c))))
        if const.keys("i"):
            # the reshapes in an order that keeps the dates unique (reshape
            # refuses one that does not), for every relation of the group
            xr = X.by_tag(r.tag)
            plan = _reshaped(xr, xr.alphas[p - 1], xr.alphas[p - 1] - const, p)
            if not all(_full_rank_path(x, plan) for x in X.rels if x.tag in ids) \
                    or not _keeps_rank(X, T, ids):
                continue
            direct += [Step("reshape", (prefix,) + st[1:]) if st[0] == "reshape"
                       else Step("shift", (prefix, p, st[2].integral())) for st in plan]
        elif not const.is_zero:
            direct.append(Step("shift", (prefix, p, const.integral())))
        if sign == -1:
            direct.append(Step("reverse", (prefix, p)))
        if T.is_loop(prefix) or not any(s.name == "skew" for s in direct):
            if _replays(X, direct, T) and (not const.keys("i") and len(direct) < 2
                                           and not careful
                                           or _legal_path(X, direct, oracle)):
                T.rels = X.rels
                found.extend(reversed(direct))
                return True
    return False


def _point_size(X: Sched, x: Rel, t: int, p: int) -> int | None:
    """The size ``s`` of the chunk ``α_t = floor(α_p / s)`` of ``x`` (α_p a
    multiple of the div's numerator), else None."""
    ch = _chunk(X, x.alphas[t - 1])
    g = None if ch is None else _multiple(x.alphas[p - 1], ch[0])
    return None if g is None else ch[1] * g


def _point_of(X: Sched, x: Rel, t: int, p: int) -> bool:
    """Is α_t of ``x`` a chunk ``floor(e / s)`` and α_p a multiple of ``e``,
    or ``e`` itself once the part's equalities are substituted (a part
    where the point loop is fixed: trmm fuzz seed 74225)?"""
    ch = _chunk(X, x.alphas[t - 1])
    return ch is not None and (_multiple(x.alphas[p - 1], ch[0]) is not None
                               or bool(x.elim) and x.canon(ch[0]) == x.alphas[p - 1])

def _empty_divs(T: Sched) -> bool:
    """Drop the strip-mined dimensions left in an empty part (an index-set
    split half with no instance, which Clay keeps): each div of its α
    dimensions is replaced by 0, its depth and β kept.  Any form gives such
    a part the same dates (none), and the core gives it whatever its loops
    get; tried last, when no reduction removes the divs (a tile of the
    empty half alone, or of a loop before an ``iss`` that cut the tile
    loop: lu fuzz seed 70087).  The same dates, so no step.  Not a part
    that :func:`_part_chunks` gives the forms of another part of its
    statement (with divs: it would give them back, round in circles)."""
    changed = False
    for x in T.rels:
        if x.empty and not any(r.stmt == x.stmt and r.depth == x.depth and not r.empty
                               and any(a.keys("d") for a in r.alphas) for r in T.rels):
            changed = _without_divs(x) or changed
    return changed


def _without_divs(x: Rel) -> bool:
    """Replace each div of ``x``'s α dimensions by 0 (``x`` an empty part);
    did any change?"""
    new = [a.part("i", "p", "1") if a.keys("d") else a for a in x.alphas]
    changed = new != x.alphas
    x.alphas = new
    return changed


def _drop_empty_divs(T: Sched) -> None:
    """:func:`_empty_divs` for every empty part, once no reduction applies:
    the strip-mined dimensions left in empty parts are those that only
    steps on loops of empty parts would remove (:func:`_groups` offers no
    such loop: its steps would give no instance a date).  The same dates,
    so no step; the core gives the part whatever its loops get."""
    for x in T.rels:
        if x.empty:
            _without_divs(x)


def _image_forms(r: Rel, inst, divs) -> list[tuple]:
    """The constraints of the dates ``r``'s α dimensions give the
    instances ``inst`` (an isl set of its statement), as forms ``(α
    coefficients, rest)`` of :func:`alpha_form` (``rest`` of parameters
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


# --- 2. index-set splitting --------------------------------------------------------------

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
    :meth:`_Core._shared_splits` does it once on the loop (jacobi-1d fuzz
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


def _split_tree(pieces: list[tuple[int, list[Aff]]], subset=None, empty=None, rank=None):
    """A binary tree ``(constraint, positive subtree, negative subtree)``
    whose leaves are the tags of the parts ``(tag, constraints)``: the
    index-set splits that separate them.  ``subset(cons, c)`` (when given)
    says whether the part with constraints ``cons`` lies in ``c ≥ 0``
    (exactly, with isl); otherwise the constraints are compared as written
    (``c`` and ``-c - 1``).  ``empty(cons)`` (when given) says whether a part
    has no instance: such a part that no constraint separates is split off
    by ``-1 >= 0``.  ``rank`` (when given): the sort key of the candidate
    splits (stable; otherwise they are tried in the order written)."""
    if len(pieces) == 1:
        return pieces[0][0]
    cands = []
    for _, cons in pieces:
        for c in cons:
            if c not in cands and not c.keys("d"):
                cands.append(c)
    if rank is not None:
        cands.sort(key=rank)
    for c in cands:
        neg = -c - Aff.const(1)
        if subset is None:
            pos_p = [(t, [x for x in cs if x != c]) for t, cs in pieces if c in cs]
            neg_p = [(t, [x for x in cs if x != neg]) for t, cs in pieces if neg in cs]
        else:
            pos_p = [(t, cs) for t, cs in pieces if subset(cs, c)]
            neg_p = [(t, cs) for t, cs in pieces if (t, cs) not in pos_p and subset(cs, neg)]
        if pos_p and neg_p and len(pos_p) + len(neg_p) == len(pieces):
            return (c, _split_tree(pos_p, subset, empty, rank),
                    _split_tree(neg_p, subset, empty, rank))
    hollow = next((x for x in pieces if empty is not None and empty(x[1])), None)
    if hollow is not None:
        # a part with no instance that no written constraint separates (isl
        # reduced its constraints to false): split it off by ``-1 >= 0``
        rest = [x for x in pieces if x is not hollow]
        return (Aff.const(-1), hollow[0], _split_tree(rest, subset, empty, rank))
    raise WhiteboxError("the parts of a target statement are not separated by "
                        "index-set splits (complementary inequalities)")


class _Core:
    """Parts 2 and 3 of the module docstring on the recorder's schedule."""

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
        rank = _shared_first(by_stmt)
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
            if self.oracle is None:
                tree = _split_tree(pieces, rank=rank)
            else:
                tree = _split_tree(pieces, self._subset(stmt),
                                   lambda cons, stmt=stmt: self.oracle.part(stmt, cons).is_empty(),
                                   rank)
            cur[0].tag = self._fresh()
            trees[cur[0].tag] = tree
        self._shared_splits(trees)
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

    def _shared_splits(self, trees: dict) -> None:
        """Split the relations of ``trees`` whose first split is the same
        inequality together, by one ``iss`` on the outermost loop that holds
        only such relations (at least two); ``trees`` then holds the
        remaining splits of each part."""
        while True:
            for tag, tree in trees.items():
                if isinstance(tree, int):
                    continue
                c = tree[0]
                same = {t for t, x in trees.items() if not isinstance(x, int) and x[0] == c}
                beta = self.C.by_tag(tag).beta
                loop = next((beta[:m] for m in range(1, len(beta))
                             if len(self.C.under(beta[:m])) > 1
                             and {x.tag for x in self.C.under(beta[:m])} <= same), None)
                if loop is not None and not c.keys("d"):
                    break
            else:
                return
            under = [x.tag for x in self.C.under(loop)]
            fresh = {t: self._fresh() for t in under}
            names = self._names(self.C.by_tag(tag))
            self.rec.do("iss", loop, c, new_tag=lambda x: fresh[x.tag],
                        comment=f"split the loop at {c.text(names)} >= 0")
            for t in under:
                _, pos, neg = trees.pop(t)
                self._refresh(t, fresh[t])
                trees[t], trees[fresh[t]] = pos, neg

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
        keys = _iter_keys(r)
        basis = _basis([a.part("i") for a in cur], keys)
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
        keys = _iter_keys(r)
        rows = [a.part("i") for a in r.alphas]
        full = _rank(rows, keys)
        n = len(rows)
        out = [l for l in range(d, n + 1) if l not in basis]
        return out + [l for l in range(d, n + 1) if l in basis
                      and _rank(rows[:l - 1] + rows[l:], keys) == full]

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
            steps += _reshaped(r, cur[j - 1], t, j, self.written(r))
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
            steps += _reshaped(r, cur[j - 1], t, j, self.written(r))
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
        with the loop's children separated first (:meth:`_rescued`).
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
                             or self.rotate(c, d, units)):
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
        # the shortest first: one step of the whole loop, as a user writes it
        for model in sorted(models, key=len):
            if any(x.depth < _deepest(model) for x in C.under(c)):
                continue
            try:
                pre = self._aligning(c, d, model)
            except WhiteboxError:
                continue
            for groups in ([pre, []] if pre else [[]]):
                for order in islice(permutations(range(len(groups))), 6):
                    try:
                        if self._model_path(c, d, model, [groups[i] for i in order]):
                            return True
                    except WhiteboxError:
                        pass            # what is left has no plan (a rank lost)
                    self.restore(snap)
        return False

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
        got = x.canon(_simulated(x, plan)[d - 1])
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
        rest = _simulated(base, model)[d - 1]
        sign = x.canon(_simulated(x, model)[d - 1] - rest)
        cur = x.canon(x.alphas[j - 1])
        if sign != cur and sign != -cur:
            return None
        want = self.T.by_tag(x.tag).alphas[d - 1] - rest
        need = x.canon(want if sign == cur else -want)
        steps = tuple(_reshaped(x, cur, need, j))
        if steps and _full_rank_path(x, steps) and self._gives(x, d, steps + model):
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
                x.alphas = _simulated(r, head)
                new = _simulated(x, body)[j - 1]
                forms.append((r, head + tuple(_reshaped(x, x.alphas[j - 1], new, j)) + tail))
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
            got = x.canon(_simulated(x, plan)[d - 1])
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
        for st in plan:
            self.apply_plan(prefix, (st,), is_loop=is_loop)
            if not (self._unique(prefix) and self.oracle(self.C)):
                return False
        return True

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
            elif _rank([a.part("i") for a in x.alphas], _iter_keys(x)) != len(x.free):
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
        free iterators and, as Clay writes them, over all?"""
        if not self._gives(r, d, plan, exact=True):
            return False
        keys = _iter_keys(r)
        if _rank([a.part("i") for a in _simulated(r, plan)], keys) != len(r.free):
            return False
        if not any(st[0] == "reshape" for st in plan):
            return True             # (the other steps keep the rank as written)
        written = self.written(r)
        if written is None:
            return False
        w = r.copy()
        w.elim, w.alphas = {}, list(written)
        full = [it(k) for k in range(r.dim)]
        return _rank([a.part("i") for a in _simulated(w, plan)], full) \
            == _rank([a.part("i") for a in written], full)

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
        (:meth:`sortsplit`, :meth:`sort_children`), the relations shifted
        to their target dates, ``densify(c, d)``, then the other groups'
        plans.  Applies when some groups' plans are whole shifts by
        integers.  Every step is checked; returns False (and changes
        nothing) when one breaks a dependence."""
        if self.oracle is None:
            return False
        rot = [(prefix, -int(plan[0][2][ONE])) for prefix, plan in units
               if len(plan) == 1 and plan[0][0] == "shift" and plan[0][1] == d
               and not plan[0][2].keys("i") and not plan[0][2].keys("p")
               and not plan[0][2].keys("d")
               and Fraction(plan[0][2][ONE]).denominator == 1]
        if not rot:
            return False
        for side in (1, -1):
            snap = self.snapshot()
            try:
                if self._rotate(c, d, rot, side):
                    return True
            except (WhiteboxError, IndexError, KeyError):
                pass
            self.restore(snap)
        return False

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
        self.sort_children(c, label, "put the loops and statements in the target order")
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
            keys = _iter_keys(r)
            rows = [a.part("i") for a in r.alphas]
            needed = _basis(rows[:d - 1] + rows[depth:], keys)
            target = self.T.by_tag(r.tag).alphas
            for e in range(depth, d, -1):
                if _rank(rows[:e - 1] + rows[e:], keys) != len(keys):
                    continue                  # a dimension the relation needs
                if e == depth:
                    value = target[d - 1]
                else:
                    cands = [target[e] if e < len(target) else None, target[d - 1],
                             r.alphas[e - 2], Aff()]
                    value = cands[choice]
                    if value is None:
                        value = target[d - 1]
                plan = tuple(_reshaped(r, r.alphas[e - 1], value, e))
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
        if all(_simulated(r, common)[d - 1] == self.T.by_tag(r.tag).alphas[d - 1]
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
                    r = self.C.under(beta)[0]
                    cur = r.alphas[j - 1]
                    new = r.canon(cur - r.alphas[l - 1].scale(coef))
                    # the reshapes in an order that keeps the dates unique
                    for sub in _reshaped(r, cur, new, j):
                        if sub[0] == "reshape":
                            self.rec.do("reshape", beta, sub[1], sub[2], sub[3],
                                        comment="skew by an outer loop")
                        else:
                            self.rec.do("shift", beta, j, sub[2].integral(), comment="shift")
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
    undone first and made after the split (:func:`_parted_strip_mines`).

    Careful, the repairs of :func:`reduce` and :func:`_legal_post` are
    made first; when that fails, the recovery is tried again without them
    (a repaired reduction can lead to a dead end that the plain careful
    one avoids: bicg fuzz seed 63234).

    ``free_empties``: the target's empty parts (no instance) get no
    reduction step of their own (:func:`_groups`), their strip-mined
    dimensions are dropped instead: they go along with the loops they
    share, whatever dimensions that gives them (whitebox's last try, when
    the steps that reduce them leave dimensions a ``reshape`` makes
    dependent; the shorter scripts are usually those that reduce them)."""
    token = _FREE_EMPTIES.set(free_empties)
    try:
        return _recover_all(O, T, names, oracle, careful)
    finally:
        _FREE_EMPTIES.reset(token)


def _recover_all(O: Sched, T: Sched, names: dict | None, oracle,
                 careful: bool) -> tuple[list[Step], Sched]:
    """:func:`recover`."""
    try:
        return _recover(O, T, names, oracle, careful)
    except WhiteboxError as e:
        _noted(oracle, e)
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
            X, splits = T, []
            for _ in range(MAX_LATE_LEVELS):
                late = _late_splits(X, oracle, outer, constant)
                if late is None:
                    break
                X, splits = late[0], late[1] + splits
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
        raise e from None


def _parted_strip_mines(T: Sched, oracle):
    """``(late, tail)``: :func:`_late_splits` of ``T`` with one chunk
    dimension removed (a ``linearize`` of one strip-mine, a chunk of a tile
    loop read as one even beside its point loop, :func:`_chunk_of_chunk`),
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
        _chunk_of_chunk(X, True)
        found: list[Step] = []
        if _linearize_once(X, found, oracle) and oracle(X):
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
        if not r.empty and _rank([a.part("i") for a in r.alphas], _iter_keys(r)) != len(r.free):
            raise WhiteboxError(
                f"the target gives several instances of {r.stmt} the same date (once its "
                "tiles are removed, its dimensions do not determine its iterators)")
    rec = Recorder(O)
    rec.names = names or {}
    core = _Core(rec, core_T, oracle, careful)
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
            _late_alphas(rec, fixes)
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


#: The closure variables of :func:`_reduce`'s reductions that are its
#: working state, not options (the others key :func:`_kind_done`'s memo).
_WORKING = frozenset(("T", "found", "oracle", "doubts"))


def _kind_done(kind, T: Sched, state: str, oracle, doubts: list) -> bool:
    """``kind()``, one reduction of :func:`_reduce`, remembered (in the
    oracle's ``reductions``) when it does nothing: it then does nothing to
    the same target every time (the oracle's answers are memoized; its
    options are the values its closure holds besides the working state),
    so the passes of :func:`reduce` and the recoveries of one whitebox
    call try it once per target.  The ``doubts`` it noted are noted again."""
    memo = getattr(oracle, "reductions", None)
    if memo is None:
        return kind()
    try:
        opts = tuple((name, cell.cell_contents)
                     for name, cell in zip(kind.__code__.co_freevars, kind.__closure__ or ())
                     if name not in _WORKING)
        key = (kind.__code__, opts, state, oracle.state_key(T), _FREE_EMPTIES.get())
        hash(key)
    except (TypeError, ValueError, AttributeError):
        return kind()
    noted = memo.get(key)
    if noted is not None:
        doubts.extend(noted)
        return False
    n = len(doubts)
    if kind():
        return True
    memo[key] = tuple(doubts[n:])
    return False


def _tried(oracle) -> None:
    """Count one reduction tried against the effort bound of ``oracle``
    (if any)."""
    effort = getattr(oracle, "effort", None)
    if effort is not None:
        effort.spend("reduction")


def _noted(oracle, e: WhiteboxError) -> None:
    """Tell the effort bound of ``oracle`` (if any) why the recovery falls
    back to another way: what a search that gives up reports."""
    effort = getattr(oracle, "effort", None)
    if effort is not None:
        effort.note(e)


def _first_diff(a: Rel, b: Rel) -> int:
    """The first level where the β of ``a`` and ``b`` differ."""
    return next((k for k, (x, y) in enumerate(zip(a.beta, b.beta)) if x != y),
                min(len(a.beta), len(b.beta)))


def _late_splits(T: Sched, oracle, outer: bool = False,
                 constant: bool = False) -> tuple[Sched, list[tuple]] | None:
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
    instance, by a constant inequality (else left to the core).  The divs
    of ``T`` (a copy) are first read as one per tile loop
    (:func:`_shared_chunks`: isl writes a tile loop ``floor(j / 4)`` in one
    half, ``-floor((-j - 1) / 4) - 1`` in the other; syrk fuzz seed 45229)."""
    if oracle is None:
        return None
    import islpy as isl

    from .model import constraints, instances
    T = T.copy()
    while _shared_chunks(T):
        pass                # one div per tile loop: halves written alike compare equal
    by: dict[str, list[Rel]] = {}
    for r in T.rels:
        by.setdefault(r.stmt, []).append(r)
    loops: dict[tuple, list[tuple[Rel, Rel]]] = {}
    for rs in by.values():
        rs = sorted(rs, key=lambda r: r.beta)
        used: set[int] = set()
        for strict in (True, False):        # the same α dimensions first
            for a in rs:
                for b in sorted(rs, key=lambda b: _first_diff(a, b)) if outer else rs:
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
        forms += [f for first, A0, _ in sets for f in _image_forms(first, A0, T.divs)]
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
        if any(c is None for c in merged):
            continue
        fixes = {}
        for (a, b), cons, base in zip(pairs, merged, bases):
            m = T2.by_tag(a.tag)
            m.alphas = list(base.alphas)
            for x in (a, b):
                if not _same_alphas(x, base.alphas, T.divs):
                    fixes[x.tag] = list(x.alphas)
            if cons is not a:
                m.cons = cons
                m.dom = None
                m.empty = False
                m.elim = oracle.elim(a.stmt, m.cons)
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
    read as the chunk it is (:func:`_chunk_in`: ``floor(j / 2) - j`` is
    ``floor(-j / 2)``, a tile of a reversed loop: trmm fuzz seed 94205)."""
    out = []
    for a in r.alphas:
        k = _shifted_div(a)
        if k is not None:
            chunk, (e, size) = Aff.var(k), T.divs.of(k)
        elif a.keys("i") and (ch := _chunk_in(T, r, a)) is not None:
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


def _late_alphas(rec: Recorder, fixes: dict) -> None:
    """After a late split: the steps (``reshape`` s and a ``shift`` per
    dimension, on the part alone; ``skew`` s of its loop by its tile loops,
    :func:`_late_skews`) that give the parts of ``fixes`` their own α
    dimensions."""
    for tag, alphas in fixes.items():
        r = rec.sched.by_tag(tag)
        for j, new in enumerate(alphas, 1):
            cur = r.alphas[j - 1]
            new = r.canon(new)
            if cur == new or _late_skews(rec, r, j, new):
                continue
            plan = _reshaped(r, cur, new, j)
            if not _full_rank_path(r, plan):
                raise WhiteboxError(f"cannot give a part of {r.stmt} split after its tiling "
                                    "its own dimensions: a reshape makes them dependent")
            for st in plan:
                if st[0] == "reshape":
                    rec.do("reshape", r.beta, st[1], st[2], st[3], comment="reshape one half")
                else:
                    rec.do("shift", r.beta, j, st[2].integral(), comment="shift one half")
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
    basis = _basis(rows, keys)
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


def _merged_cons(a: Rel, b: Rel, A, B, T: Sched) -> list[Aff] | None:
    """The constraints of the relation ``a`` and ``b`` (instances ``A`` and
    ``B``) are halves of: the ones they share, or, for parts read with
    strides (their instances as isl sets), those of ``A ∪ B`` when it is
    convex without strides; None when it is not."""
    U = A.union(B).coalesce()
    if a.dom is None and b.dom is None or U.is_empty():
        return [x for x in a.cons if x in b.cons]
    import islpy as isl

    from .model import constraints
    if len(U.get_basic_sets()) != 1 or any(x.dim(isl.dim_type.div) for x in U.get_basic_sets()):
        U = _convex_union(U)
        if U is None:
            return None
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
    basis = _basis(rows, keys)
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
    tile([0, 0], 3, 1, 32)``), then one step moved elsewhere."""
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
    for seq in variants:
        if _replays(sched, seq, goal.sched) and legal(seq):
            return seq
    return None

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
