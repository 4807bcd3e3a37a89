"""Step 1 of the recovery (:mod:`.recover`): the target's complementary
transformations (seed 004 §6.1, Table 1), reduced away, found as early as
possible.

While the target has strip-mined dimensions, scaled dimensions or skews
involving strip-mined dimensions, the inverse step is applied to the
target (``linearize``, ``densify``, an opposite ``skew``) and the direct
step (``tile``/``stripmine``, ``grain``, ``skew``) is recorded; those
steps end the sequence, in reverse order. A chunk loop that relations
without the chunk share (a tile of part of a loop, fused after) is split
apart first, its direct steps ``fuse`` s; a pass that leaves a
strip-mined dimension is tried again in other orders
(:data:`REDUCE_PASSES`). Chunks are first read in the form that names
their point loop (isl's divs are not: ``-floor(i / 2)`` comes as
``floor((i + 1) / 2) - i``, a tile of a tile loop as one flat div;
:func:`_reread_chunks`), and a chunk loop changed after its strip-mine
(reversed, skewed or reshaped, moved inside its point loop, its point
loop changed) has those steps undone first.
What is left is the *core* target: one affine function of the iterators
per α dimension, as many dimensions as iterators.
"""

from __future__ import annotations

import itertools
from contextvars import ContextVar
from fractions import Fraction
from math import gcd
from typing import Sequence

import islpy as isl

from ..errors import ClayxError
from ..model import beta_tree_error
from .algebra import (full_rank_path, is_div, iter_keys, reshape_plan, row_rank, scaled_div,
                      shifted_div, solve)
from .model import ONE, SECOND_READING, Aff, Rel, Sched, WhiteboxError, form_map, note_reading
from .steps import Recorder, Step
from .unrolls import undensify_once

__all__ = ["FREE_EMPTIES", "MAX_REPEATS", "chunk_in", "chunk_of_chunk", "linearize_once",
           "note_fallback", "reduce", "replays_to", "shared_chunks"]


#: How many times one kind of reduction of :func:`reduce` may record the
#: same steps again (a reduction that diverges, reshaping a dimension
#: further each time, ends as going round in circles: fuzz trmm 25045 did
#: 250 such reshapes, another kind between each two).
MAX_REPEATS = 16


#: Whether the recovery running makes no reduction step for loops of
#: empty parts only (:func:`~.recover.recover`'s ``free_empties``; read by
#: :func:`_groups`, part of :func:`_kind_done`'s memo key).
FREE_EMPTIES: ContextVar[bool] = ContextVar("free_empties", default=False)


def reduce(T: Sched, oracle=None, careful: bool = False, repair: bool = True) -> list[Step]:
    """Apply inverse steps to ``T`` until it is a core schedule (see the
    module docstring); return the direct steps in the order they
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
    ``grain`` of the loop before the tile, not one per part).  Last, with
    chunks of chunks read beside their point loops, a point loop of one
    statement alone skewed by dimensions of iterators only is made its
    chunk's by ``reshape`` s (trmm fuzz seed 122255)."""
    start = T.copy()
    try:
        return _reduce(T, oracle, careful, True, repair=repair)
    except WhiteboxError as e:
        if "strip-mined dimension" not in str(e) and "round in circles" not in str(e):
            raise
        note_fallback(oracle, e)
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
        # (last, :data:`LAST_PASSES`: readings only targets every other
        # pass fails on need)
        for scaled, options in SKEWED_PASSES + LAST_PASSES:
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
#: (:func:`chunk_of_chunk`).
BESIDE_POINTS = "beside points"


#: The last passes of :func:`reduce`, after every other has failed (each
#: reads some targets better and others worse, so it is not tried
#: earlier): ``(scaled points, options of _reduce)``.
#:
#: - a div isl wrote for one relation of a loop unlike the loop's others
#:   written with theirs (:func:`_loop_owned_divs`; not earlier: it takes
#:   bicg fuzz seed 95184's strip-mined dimension away from its chunk);
#: - a tile loop scaled, then skewed by a loop outside it, its point loop
#:   scaled too (:func:`_unskew_chunk_once` with ``grained``; the tile of
#:   the scaled point loop undone before its grain: mvt fuzz seed 119052);
#: - chunks of chunks beside points, a point loop skewed alone undone as
#:   reshapes (a tile loop strip-mined, then swapped inside its point loop
#:   by a tile, over S1's point loop reshaped: trmm fuzz seed 122255; on in
#:   an earlier pass it takes lu 47057 from 4 steps to 12).
LAST_PASSES = ((True, {"owned_divs": True}),
               (False, {"grained_tiles": True}),
               (True, {"nested_chunks": BESIDE_POINTS, "alone_skews": True}))


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
            unreversed: bool = False, part_swaps: bool = False,
            owned_divs: bool = False, grained_tiles: bool = False,
            alone_skews: bool = False) -> list[Step]:
    found: list[Step] = []
    doubts: list[str] = []      # reductions whose result was found illegal once
    seen: set[str] = set()      # the reduced targets met: a repeat is a cycle
    banned: set[tuple] = set()  # careful: (state, kind) whose result was illegal
    def fix_points() -> bool:
        return _fix_point_once(T, found, oracle, on_instances=points_first,
                               alone_skews=alone_skews)

    def unskew_divs() -> bool:
        return _unskew_divs_once(T, found, oracle)

    def flat() -> bool:
        return bool(flat_chunks) and _flat_chunks(T)

    kinds = [
        lambda: (shared_chunks(T) or owned_divs and _loop_owned_divs(T)
                 or unreversed and _unreversed_divs(T)
                 or _reread_chunks(T, nested_chunks, loop_shifts)
                 or _chunks_of_divs(T)
                 or undensify_once(T, found)),
        lambda: _densify_once(T, found, oracle, scaled_points),
        lambda: _plain_div_once(T, found, loop_shifts),
        lambda: _unskew_once(T, found),
        lambda: linearize_once(T, found, oracle, doubts, flat=loop_shifts),
        fix_points,
        lambda: _unskew_chunk_once(T, found, oracle),
        lambda: _sink_chunk_once(T, found, oracle, shifted=loop_shifts),
        lambda: _unskew_to_chunk_once(T, found, oracle),
        lambda: general_skews and _unskew_once(T, found, general=True)
        or linearize_once(T, found, oracle, doubts, general=True, flat=loop_shifts),
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
        lambda: grained_tiles and (_reread_grained_chunks(T)
                                   or _unskew_chunk_once(T, found, oracle, grained=True)),
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
    if FREE_EMPTIES.get():
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
    which isl writes as :func:`chunk_in` says but with a div for the
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


def shared_chunks(T: Sched) -> bool:
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
            if replays_to(X, path, old, oracle) and _legal_path(X, path, oracle):
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
    constant; α_d becomes ``a`` and the direct steps are ``grain(p, d,
    g)`` then a ``shift`` per run of relations with the same non-zero
    ``rest``.  At least two relations with instances, one ``rest`` not 0;
    checked by replaying the direct steps and the schedules before them
    legal.

    ``rest`` is taken to the nearest multiple of ``g``; in the
    :data:`~.model.SECOND_READING`, first down to a constant ``0 ≤ rest <
    g`` with ``p``'s children put in the order of their rests (``d`` the
    loop's own dimension; the shifts the largest rest first, a ``reorder``
    of them last, once the dates tell the children apart): the reduced
    loop and every schedule on the way then run the instances in the
    target's order, so the rest of the recovery needs no other (ludcmp's
    ``feautrier``: ``2i + 1`` after ``2i``, the second nest of the loop
    first: 24 steps with the first reading, where ``i + 1`` ran ahead of
    ``i``, 22 with the second; lu fuzz seed 38157 the other way: 2 steps
    with the first, 9 with the second, its rests not in the original's
    order).  The first reading notes when the second would apply
    (:func:`~.model.note_reading`)."""
    under = T.under(p)
    if len([x for x in under if not x.empty]) < 2 or any(
            x.depth < d or not x.alphas[d - 1].keys("i") and not x.alphas[d - 1].keys("d")
            or not _divisible(x.alphas[d - 1].part("i", "d"), g) for x in under):
        return False
    second = SECOND_READING.get()
    if not second:
        X, rests = _grain_rests(T, p, d, g, True)
        if _rest_order(X, p, d, g, rests) is not None:
            note_reading("grain rests")
    for down in ((True, False) if second else (False,)):
        X, rests = _grain_rests(T, p, d, g, down)
        if all(v.is_zero for v in rests.values()):
            return False
        back = None
        if down:
            back = _rest_order(X, p, d, g, rests)
            if back is None:
                continue
        direct = [Step("grain", (p, d, g))]
        if back is None:
            for rest in dict.fromkeys(v for v in rests.values() if not v.is_zero):
                tags = {t for t, v in rests.items() if v == rest}
                direct += [Step("shift", (b, d, -rest.integral())) for b in _covers(X, p, tags)]
        else:
            # the parametric part on the whole loop, then the largest rest
            # first: every schedule on the way runs the target's order
            common = next(iter(rests.values())).part("p")
            if not common.is_zero:
                direct.append(Step("shift", (p, d, -common.integral())))
            for rest in sorted({v - common for v in rests.values()} - {Aff()},
                               key=lambda v: -v[ONE]):
                tags = {t for t, v in rests.items() if v - common == rest}
                direct += [Step("shift", (b, d, -rest.integral())) for b in _covers(X, p, tags)]
            if back != tuple(range(len(back))):
                direct.append(Step("reorder", (p, back)))
        if _taken(T, X, direct, found, oracle):
            return True
    return False


def _grain_rests(T: Sched, p: tuple, d: int, g: int, down: bool) -> tuple[Sched, dict]:
    """A copy of ``T`` with α_d under ``p`` divided by ``g`` (the
    parametric constant taken down, or to the nearest multiple of ``g``)
    and what is left of each relation's (tag: rest) (:func:`_grain_shift`)."""
    X = T.copy()
    rests: dict[int, Aff] = {}
    for x in X.under(p):
        v = x.alphas[d - 1]
        keep = v.part("i", "d").scale(Fraction(1, g))
        for k, c in v.part("p", "1").c.items():
            keep = keep + Aff({k: int(c) // g if down else (2 * int(c) + g) // (2 * g)})
        x.alphas[d - 1] = keep.integral()
        rests[x.tag] = v - x.alphas[d - 1].scale(g)
    return X, rests


def _rest_order(X: Sched, p: tuple, d: int, g: int, rests: dict) -> tuple | None:
    """Put the children of ``p`` in ``X`` in the order of their ``rests``
    (tag: what a ``grain`` by ``g`` of ``p``'s own dimension ``d`` left,
    one parametric part for all and a constant ``0 ≤ c < g``; one per
    child, not all 0), stably, and return the ``reorder`` order that takes
    them back; None when the rests are not such (:func:`_grain_shift`)."""
    if d != len(p) or all(v.is_zero for v in rests.values()):
        return None
    kids = X.children(p)
    of: list[int] = []
    common = {v.part("p") for v in rests.values()}
    if len(common) != 1:
        return None
    for k in kids:
        vs = {rests[x.tag] for x in X.under(k)}
        if len(vs) != 1:
            return None
        v = vs.pop()
        if v.keys("i") or v.keys("d") or not 0 <= v[ONE] < g:
            return None
        of.append(int(v[ONE]))
    if len(set(of)) != len(of):
        return None                     # (children with one rest: their order is the target's)
    order = sorted(range(len(kids)), key=lambda n: (of[n], n))
    to = [0] * len(kids)
    for new, old in enumerate(order):
        to[old] = new
    X.reorder(p, to)
    return tuple(order)


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
            if a.keys("i") or len(ds) != 1 or is_div(a) or not a.is_integral:
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
    chunk loop isl wrote as its div plus iterators (:func:`chunk_in`:
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
                if shifted_div(a) == k and any(x == T.divs.of(k)[0] for x in r.alphas[q:]):
                    # the same chunk twice, its point loop inside: a second
                    # strip-mine of the point loop (``linearize_once``), not a
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
    :func:`chunk_in`), else None."""
    a = x.alphas[t - 1]
    k = shifted_div(a)
    if k is None and general and chunk_in(T, x, a) is not None:
        k = is_div(a.part("d"))
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
    if not replays_to(Y, direct, T, oracle) or not oracle(Y) \
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
    return is_div(a) is None and (x.empty or not (a.keys("i") or a.keys("d")))


def _unskew_chunk_once(T: Sched, found: list[Step], oracle=None,
                       grained: bool = False) -> bool:
    """Undo a ``skew`` or ``shift`` of a chunk (tile) loop by other loops
    (point loops among them): a dimension ``±d + Σ c_q·α_q + rest`` of one
    div ``d`` becomes ``±d``, for the largest group of relations under one
    prefix where the direct ``skew`` and ``shift`` steps reach ``T`` (and,
    with an oracle, the schedule before them is legal).  A chunk skewed by
    its own point loop ``α_q`` whose iterators the div shares is read by
    :func:`_self_skew` (isl writes ``floor(3i / 4) + 2·3i`` as ``floor(-i /
    4) + 7i``): it becomes that chunk.  ``grained`` (a last pass of
    :func:`reduce`): only a chunk loop scaled by ``g > 1`` before the skew,
    ``g·d + Σ c_q·α_q`` with ``g`` not dividing the ``c_q`` (a ``grain`` of
    a tile loop, then a skew of it by a loop outside: mvt fuzz seed
    119052's ``2·floor(i / 2) + j``), which becomes ``g·d`` (the ``grain``
    then undone by :func:`_densify_once`)."""
    for r, t, cand in _skewed_chunks(T, grained):
        if _unskew_chunk_by(T, r, t, *cand, found, oracle, grained=grained):
            return True
    return False


def _skewed_chunks(T: Sched, grained: bool = False):
    """``(r, t, candidate)`` for each dimension ``t`` of a relation ``r``
    that is a chunk skewed or shifted by other dimensions, and each
    candidate ``(coef, const, others, loose)`` of :func:`_chunk_skews`;
    ``grained``: only the chunks scaled by an integer ``g > 1`` instead
    (:func:`_grained_div`)."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if len(ds) != 1 or is_div(a) is not None or _offset_chunk(T, r, a):
                continue
            if (_grained_div(a.part("d")) is None) if grained else abs(a[ds[0]]) != 1:
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
                        or t > q and shifted_div(b) is None:
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
        owners = {shifted_div(a) for a in r.alphas}
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
                plan = reshape_plan(y, y.alphas[q - 1], old, q)
                if not full_rank_path(y, plan) or not _keeps_rank(Y, T, {r.tag}) \
                        or any(st[0] != "reshape" for st in plan):
                    continue
                direct = [Step("reshape", (tuple(r.beta),) + st[1:]) for st in plan]
                if not replays_to(Y, direct, T, oracle) or not _legal_path(Y, direct, oracle):
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
        if any(is_div(a) is not None for a in r.alphas if a.keys("d")):
            continue        # a plain chunk dimension: the other reductions'
        keys = sorted(set(iter_keys(r)) | set(divs))
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
                        if shifted_div(x.alphas[t - 1]) is None:
                            x.alphas[t - 1] = _plain_chunk(X, x.alphas[t - 1])
                    if any(shifted_div(x.alphas[t - 1]) is None
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
    if not replays_to(X, direct, T, oracle) or not _legal_path(X, direct, oracle):
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
    if a.keys("i") or shifted_div(-a) is None:
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


def _reread_grained_chunks(T: Sched) -> bool:
    """Write a dimension ``g·(±d + rest) + other`` (one div ``d`` with
    coefficient ``±g``, ``g > 1``; ``rest`` the terms whose coefficients
    ``g`` divides, over ``g``) as ``g·floor(e / s) + other`` where ``±d +
    rest`` is that chunk (:func:`_signed_chunks`) of a multiple ``e`` of
    another dimension of the relation: isl writes the grained tile loop
    ``2·floor(j / 2)``, skewed by ``i``, as ``-2·floor((j + 1) / 2) + 2j +
    i``.  The same function, so no step; :func:`_unskew_chunk_once` with
    ``grained`` then reads it as a skewed scaled chunk."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if len(ds) != 1 or not a.keys("i") or not a.is_integral:
                continue
            g = abs(int(a[ds[0]]))
            if g < 2:
                continue
            base = Aff({k: Fraction(v) / g for k, v in a.c.items()
                        if k[0] in "id" and Fraction(v) % g == 0})
            for sign, num, size in _signed_chunks(T, base):
                if sign != 1 or not num.keys("i") or not any(
                        _multiple(x, num) for q, x in enumerate(r.alphas, 1) if q != t):
                    continue
                new = T.divs.get(num, size).scale(g) + (a - base.scale(g))
                if new.keys("d") != ds:     # (not read so already)
                    r.alphas[t - 1] = new
                    return True
    return False


def _grained_div(a: Aff) -> tuple | None:
    """The div key when ``a`` is one div scaled by an integer ``g > 1`` (a
    tile loop after a ``grain``), else None."""
    kv = scaled_div(a)
    if kv is not None and Fraction(kv[1]).denominator == 1 and kv[1] > 1:
        return kv[0]
    return None


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
                     found: list[Step], oracle, weak: bool = False,
                     grained: bool = False) -> bool:
    """One candidate of :func:`_unskew_chunk_once`; ``weak``: the other
    relations of the group may be left with a chunk plus iterators
    (:func:`_skewed_tiles`); ``grained``: every relation of the group left
    with a scaled chunk ``g·d`` (:func:`_grained_div`)."""
    need = max([t] + [q for q, c in zip(others, coef) if c])
    for prefix, X, ids, members in _group_copies(T, r, lambda x: x.depth >= need):
        for x in members:
            v = x.alphas[t - 1] - const
            for q, c in zip(others, coef):
                if c:
                    v = v - x.alphas[q - 1].scale(c)
            x.alphas[t - 1] = x.canon(v)
        if any(is_div(x.alphas[t - 1]) is None
               and not (grained and _grained_div(x.alphas[t - 1]) is not None)
               and (not loose or chunk_in(X, x, x.alphas[t - 1]) is None)
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
        if not replays_to(X, direct, T, oracle):
            continue
        if not _legal_path(X, direct, oracle):
            X, direct = _reversed_point_first(X, ids, prefix, t, others, coef, direct,
                                              oracle)
            if X is None or not replays_to(X, direct, T, oracle) \
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
    again), so that a later ``linearize_once`` finds the chunk in a loop
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
                if not replays_to(X, direct, T, oracle) or oracle is not None and not oracle(X):
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
        if not replays_to(Y, direct, T, oracle) or oracle is not None and not oracle(Y):
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
                    if not oracle(X) or not replays_to(X, direct, T, oracle):
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
        chunks = {k for a in r.alphas if (k := shifted_div(a)) is not None}
        for q, a in enumerate(r.alphas, 1):
            for k in a.keys("d"):
                num, size = T.divs.of(k)
                if k in chunks or shifted_div(a) == k:
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
                    if not replays_to(X, direct, T, oracle) or oracle is not None and (
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


def replays_to(X: Sched, steps: Sequence[Step], T: Sched, oracle=None) -> bool:
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
    With free empty parts (:func:`~.recover.recover`'s ``free_empties``), not a set
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
        if FREE_EMPTIES.get() and all(x.empty for x in g):
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
    as :func:`chunk_in` reads them, else as :func:`_chunk` does."""
    for t, a in enumerate(r.alphas, 1):
        ch = chunk_in(T, r, a) if general else _chunk(T, a)
        if ch is None:
            continue
        num, size = ch
        p = next((q for q in range(t + 1, r.depth + 1)
                  if _multiple(r.alphas[q - 1], num)), None)
        if p is not None:
            yield t, p, size * _multiple(r.alphas[p - 1], num)


def linearize_once(T: Sched, found: list[Step], oracle=None, doubts=None,
                    general: bool = False, flat: bool = False) -> bool:
    """Remove one chunk dimension ``α_t = floor(α_p / s)`` (a ``tile`` or
    ``stripmine`` step, possibly on part of a loop), checked by replaying
    the direct step.  A chunk loop that only relations with that chunk
    share is removed first (a tile of part of a loop, which leaves a loop
    whose relations are not all strip-mined, comes after).  ``general``:
    also chunks written as a div plus iterators (:func:`chunk_in`; tried
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
    k = shifted_div(r.alphas[t - 1])
    # (the same chunk twice is two strip-mines: not a skew)
    return k is not None and any(k in a.c and shifted_div(a) != k
                                 for q, a in enumerate(r.alphas, 1) if q != t)


def _is_point_of_chunk(T: Sched, r: Rel, t: int) -> bool:
    """Is the chunk dimension ``t`` of ``r`` (one div, perhaps shifted) the
    numerator of a div of another dimension of ``r`` (a tile of that tile
    loop, applied after: lu fuzz seed 17087; the shift before it: trmm
    15055)?"""
    a = r.alphas[t - 1]
    k = is_div(a.part("d"))
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
        if shifted_div(a) is None and any(T.divs.of(d)[1] == size for d in a.keys("d")):
            return True
    return False


def _flat_chunk_of(T: Sched, r: Rel, t: int) -> bool:
    """Does another dimension of ``r`` have a chunk of the chunk dimension
    ``t`` (``floor(e / s)``, perhaps shifted) written flat, a div
    ``floor((e + c) / (s·m))`` with ``c`` a multiple of ``s`` (the tile loop
    of a tile loop: ``floor(floor(e / s) / m)``), that another step (a
    reshape by an iterator) hides from :func:`chunk_of_chunk` until it is
    undone?  That tile is undone first (trmm fuzz seed 15055)."""
    a = r.alphas[t - 1]
    k = shifted_div(a)
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
    ``group`` (``r`` among them), as :func:`linearize_once` says.

    When the chunk loop holds several loops of the group (down to the point
    loop), the schedule without the chunk dimension keeps them apart; when
    that schedule is
    illegal (the tile was applied to one loop, split after: a fission that
    only the tiling makes legal), the loops are fused first and the direct
    steps are the tile followed by the ``split`` s that undo the fusion;
    else the chunk loop's children are read as strip-mined (or, with the
    point loop deeper, tiled) apart, their chunk loops fused after
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
    return _unchunk_apart(T, r, group, t, p, size, found, oracle)


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


def _unchunk_apart(T: Sched, r: Rel, group: list[Rel], t: int, p: int, size: int,
                   found: list[Step], oracle) -> bool:
    """Remove the chunk dimension ``t`` of ``group`` when the chunk loop
    holds several loops: read as loops strip-mined apart and their chunk
    loops fused after (a ``stripmine`` per loop, or with the point loop
    ``p`` deeper than ``t + 1`` a ``tile`` of the loop at that depth,
    :func:`_chunk_steps`; then the ``fuse`` s), the chunk loop's children
    becoming siblings in its place.  The deeper reading: a loop tiled, then
    split inside its tile loop (a fission that the tile's reading as one
    loop, fused back, makes illegal once a split part is shifted: trmm
    fuzz seed 153235).  Checked by replaying the direct steps (and, with an
    oracle, the schedules on the way legal)."""
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
    direct = [st for lp in reversed(loops) for st in _chunk_steps(lp, t, p - 1, size)]
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
        if replays_to(X, steps, T, oracle):
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


def chunk_in(T: Sched, r: Rel, a: Aff) -> tuple[Aff, int] | None:
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
    that dimension by ``s`` (:func:`chunk_of_chunk`: a tile of a tile
    loop; not when ``nested`` is false), and a div in terms of a chunk loop
    of the relation or of another part of its statement
    (:func:`_owned_divs`, :func:`_part_owned_divs`), or with no iterator
    where it equals a chunk on the instances (:func:`_parametric_chunks`).
    ``shifted`` (the ``loop_shifts`` pass): a shifted tile of a shifted tile
    loop too (:func:`_shifted_chunk_of_chunk`)."""
    if _small_divs(T) or nested and chunk_of_chunk(T, nested == BESIDE_POINTS, shifted) \
            or _owned_divs(T) or _part_owned_divs(T) \
            or _parametric_chunks(T):
        return True
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            if not a.keys("i") or not a.keys("d") or chunk_in(T, r, a) is not None:
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
    return _part_forms(T) or _loop_chunks(T) or _part_constants(T)


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


def _part_constants(T: Sched) -> bool:
    """The fourth reading of :func:`_part_chunks`: a part whose chunk
    dimensions isl wrote as the constants they are on its instances (a
    small half of a split: ``floor(i / 5)`` and its tile ``floor(i / 20)``
    are 0 where ``1 ≤ i ≤ 2``), changed after the tiling so that it is no
    longer beside the other parts dimension for dimension (a tile of its
    tile loop alone: seidel-2d fuzz seed 106066, where the part is ``(0, t,
    0, i, j)`` beside ``(t, floor(i / 5), i, j)``).  Each chunk of another
    part of its statement (one div ``floor(n / s)``, perhaps plus a
    constant) whose point loop ``n`` is a dimension of the part is read at
    the last constant dimension before that point loop where the two are
    equal on the part's instances or differ by one integer there (the
    part's chunk loop shifted: the chunk plus that integer);
    then each constant dimension left in a loop the part shares with
    another relation as the chunk of the nearest chunk so read after it (a
    tile of that tile loop), by the first size (that chunk's, then those of
    the target's divs) equal on the part's instances, else plus the integer
    they differ by.  All the part's constants at once (a chunk read alone
    would be reduced before its tile is).  The same dates, so no step."""
    sizes = sorted({s for _, s in T.divs.defs})
    for x in T.rels:
        if x.empty or x.stdom is None:
            continue
        consts = [k for k, a in enumerate(x.alphas) if not a.keys("i") and not any(
            T.divs.of(d)[0].keys("i") or T.divs.of(d)[0].keys("d") for d in a.keys("d"))]
        if not consts:
            continue
        new = list(x.alphas)
        for r in T.rels:
            if r is x or r.stmt != x.stmt or r.empty:
                continue
            for a in r.alphas:
                if _chunk(T, a) is None or a in new:
                    continue
                num = T.divs.of(a.keys("d")[0])[0]
                if num.keys("d") or any(k in x.elim for k in num.keys("i")) or num not in new:
                    continue
                free = [k for k in reversed(consts) if k < new.index(num) and new[k] == x.alphas[k]]
                found = _read_on(x, free, [a], T.divs)
                if found is not None:
                    new[found[0]] = found[1]
        read = [k for k in consts if new[k] != x.alphas[k]]
        if not read:
            continue
        for k in consts:
            c = next((c for c in read if c > k), None)
            if c is None or new[k] != x.alphas[k] or not any(
                    y is not x and not y.empty for y in T.under(x.beta[:k + 1])):
                continue
            point = Aff.var(new[c].keys("d")[0])
            own = T.divs.of(point.keys("d")[0])[1]
            found = _read_on(x, [k], [T.divs.get(point, size)
                                      for size in dict.fromkeys((own, *sizes))], T.divs)
            if found is not None:
                new[k] = found[1]
        x.alphas = new
        return True
    return False


def _read_on(x: Rel, dims: list[int], forms: list[Aff], divs) -> tuple[int, Aff] | None:
    """``(k, form)``: the first of the dimensions ``dims`` of ``x`` equal on
    its instances to one of ``forms`` (the first such), with that form, or
    that differs from one by one integer there, with the form plus that
    integer; else None."""
    for k in dims:
        for f in forms:
            if _equal_on(x, x.alphas[k], f, divs):
                return k, f
        for f in forms:
            off = _offset_on(x, f, x.alphas[k], divs)
            if off is not None:
                return k, f + off
    return None


def _offset_on(r: Rel, a: Aff, b: Aff, divs) -> Aff | None:
    """The nonzero integer ``b - a`` is on every instance of ``r`` (which
    needs its ``stdom``), as a constant form; None where it is 0, not one
    integer, or ``r`` has no instance."""
    point = form_map(r, b - a, divs).range().sample_point()
    if point.is_void():
        return None
    v = point.get_coordinate_val(isl.dim_type.set, 0).to_python()
    if v == 0 or not _equal_on(r, b - a, Aff.const(v), divs):
        return None
    return Aff.const(v)


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
        owners = [k for k in (is_div(a) or is_div(-a) for a in r.alphas) if k is not None]
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


def _loop_owned_divs(T: Sched) -> bool:
    """Write a div of a dimension in terms of the div the other relations
    of its loop have at that depth (:func:`_div_as`), where that gives the
    two the same divs (they then differ by iterators and parameters: a
    skew of one of them by its point loops, which the other reductions
    undo; the same function, no step).  isl writes ``floor(j / 4) - j`` as
    ``-floor((3j + 3) / 4)``, a div of its own, beside ``floor(j / 4) + i``
    (trmm ``tile([0], 2, 1, 4); skew([0, 0], 2, 1, -1); skew([0, 0], 1, 2,
    -2); skew([0, 0, 0, 0], 2, 3, 1)``: a point loop skewed by the tile
    loop, the tile loop by it, then one statement's by its own point loop
    ``j``: its reductions went round in circles).  Not where that gives
    the other relation's form itself (the rereads of the loop's chunks read
    both alike: :func:`_reread_chunks` writes ``floor((i + 1) / 2) - i``
    as ``-floor(i / 2)``, which this would write back: syrk fuzz seed
    106109).  Only in :func:`reduce`'s last pass (``owned_divs``): in the
    first it takes a strip-mined dimension away from the div of its chunk
    (bicg fuzz seed 95184)."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            ds = a.keys("d")
            if not ds:
                continue
            for x in T.under(r.beta[:t]):
                if x is r or x.depth < t or x.empty:
                    continue
                b = x.alphas[t - 1]
                owners = [o for o in b.keys("d") if o not in ds]
                if not owners or any(k in b.c for k in ds):
                    continue
                new = a
                for k in ds:
                    for o in owners:
                        expr = _div_as(T, k, o)
                        if expr is not None:
                            new = new.substitute(k, expr)
                            break
                if new not in (a, b) and new.is_integral \
                        and sorted(new.keys("d")) == sorted(b.keys("d")) \
                        and all(new[k] == b[k] for k in b.keys("d")):
                    r.alphas[t - 1] = new
                    return True
    return False


def _part_owned_divs(T: Sched) -> bool:
    """:func:`_owned_divs` with the chunk loops of the other parts of the
    statement (index-set split parts, each read by isl on its own: a
    ``peel`` of a tile loop, then a ``grain`` of one part, gives ``2·floor(i
    / 2)`` on one part as ``-2·floor((i + 1) / 2) + 2i``; jacobi-2d fuzz seed
    63068), for a div with a coefficient other than ±1, where that leaves
    fewer iterators (the same function, no step)."""
    for r in T.rels:
        owners = {k for x in T.rels if x.stmt == r.stmt and x is not r
                  for a in x.alphas for k in (shifted_div(a), shifted_div(-a))
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


def chunk_of_chunk(T: Sched, beside_point: bool = False, shifted: bool = False) -> bool:
    """Write a dimension that is one div ``floor(e / (s·s'))`` of a relation
    whose other dimension is the div ``floor(e / s')``, with no dimension a
    multiple of ``e`` (unless ``beside_point``) and no other dimension using
    that div, as ``floor(floor(e / s') / s)`` (isl writes the tile of a tile
    loop flat), in every relation where it is so; the same function, no
    step."""
    changed = False
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            k = is_div(a)
            if k is None or any(k in x.c for q, x in enumerate(r.alphas, 1) if q != t):
                continue
            num, size = T.divs.of(k)
            if num.keys("d") or not beside_point and any(_multiple(x, num) for x in r.alphas):
                continue
            for q, x in enumerate(r.alphas, 1):
                # the inner chunk, or the inner chunk shifted by a constant
                # (floor((i + 6) / 6) beside floor(i / 2) + 3: trmm fuzz
                # seed 15055)
                inner = is_div(x - Aff.const(x[ONE]))
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
    """:func:`chunk_of_chunk` for a shifted outer chunk ``floor((e + c) /
    (s·s')) + c0`` beside the chunk ``floor(e / s') + c2`` (``c`` a multiple
    of ``s'``): ``floor((floor(e / s') + c2 + m) / s) + c0``, ``m = c / s' -
    c2`` (a tile of a tile loop shifted after, reshaped too: trmm fuzz seed
    15055, ``floor((i + 10) / 10) - 1`` beside ``floor(i / 2)``)."""
    for r in T.rels:
        for t, a in enumerate(r.alphas, 1):
            k = shifted_div(a)
            if k is None or a.keys("p") or any(k in x.c for q, x in enumerate(r.alphas, 1)
                                               if q != t):
                continue
            num, size = T.divs.of(k)
            if num.keys("d"):
                continue
            for q, x in enumerate(r.alphas, 1):
                inner = shifted_div(x)
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
    return all(row_rank([v.part("i") for v in x.alphas], iter_keys(x))
               >= row_rank([v.part("i") for v in T.by_tag(x.tag).alphas], iter_keys(x))
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
                plan = reshape_plan(xr, xr.alphas[t - 1], xr.alphas[t - 1] + its, t)
                if not all(full_rank_path(x, plan) for x in X.rels if x.tag in ids):
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
    ch = _chunk(T, a) if a.keys("i") else chunk_in(T, r, a)
    return ch is not None and is_div(a) is None and ch[0] in r.alphas


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
    keys = iter_keys(x)
    rows = [a.part("i") for a in x.alphas]
    return row_rank(rows[:t - 1] + rows[t:], keys) == row_rank(rows, keys)


def _fix_point_once(T: Sched, found: list[Step], oracle=None, outer: bool = False,
                    careful: bool = False, on_instances: bool = False,
                    alone_skews: bool = False) -> bool:
    """Make the dimension a chunk ``floor(e / s)`` was taken from equal to
    ``e`` again, when a ``reverse``, ``skew`` or ``shift`` changed it after
    the ``stripmine`` (checked by replaying the direct steps); then a
    ``reshape`` by iterators that no dimension of the nest is.  ``outer``:
    a point loop outside its chunk loop (an interchange moved the chunk
    in; :func:`_sink_chunk_once` then moves it back), tried after every
    other reduction (a chunk of a skewed loop reads as one of many forms).
    ``careful`` (:func:`reduce`'s): a choice whose reduced target breaks a
    dependence is skipped, the next one tried.  ``alone_skews`` (the last
    pass of :func:`reduce`, with :data:`BESIDE_POINTS`): the point
    loop of one statement alone skewed by dimensions of iterators only
    (which ``skew`` cannot undo: it needs a loop) is made its chunk's by
    ``reshape`` s by those iterators (:func:`_fix_point`)."""
    for reshapes in (False, True):
        if _fix_point_pass(T, found, reshapes, oracle, outer, careful, on_instances,
                           alone_skews):
            return True
    return False


def _fix_point_pass(T: Sched, found: list[Step], reshapes: bool, oracle,
                    outer: bool = False, careful: bool = False,
                    on_instances: bool = False, alone_skews: bool = False) -> bool:
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
                                  careful, on_instances, alone_skews):
                        return True
    for *_, r, t, p, sign, rest in sorted(later, key=lambda c: c[:2]):
        if _fix_point(T, r, t, p, sign, [], [], rest, found, oracle, careful, on_instances,
                      alone_skews):
            return True
    return False


def _fix_point(T, r, t, p, sign, others, coef, const, found, oracle=None,
               careful: bool = False, on_instances: bool = False,
               alone_skews: bool = False) -> bool:
    """Try the inverse steps that make α_p of ``r`` (and of a set of
    relations around it) ``sign·α_p + Σ coef·α_q + const`` (``const`` with
    iterator terms: undone by ``reshape`` s).  With an oracle, the
    schedules before the direct steps are legal when there are several
    (a skew of a loop by an inner one, or a shift, then a reverse may pass
    through an illegal schedule: fuzz seeds 22167, 21229).  Every relation
    of the set must have α_t the chunk of its new α_p as written, or
    (``on_instances``: :data:`SKEWED_PASSES`) on its instances
    (:func:`_chunk_of`: a part where the point loop ``i`` is 0, reshaped by
    ``2j``, has ``(0, 2j, …)``, trmm fuzz seed 81015).  ``alone_skews``:
    where the group is one statement (no loop to skew), skews by dimensions
    with no div are undone as the ``reshape`` s by their iterators they
    equal there (a point loop ``i + j`` of S1 alone beside its dimension
    ``j``, under a tile loop read as a chunk of a chunk beside its point
    loop: trmm fuzz seed 122255)."""
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
        xr = X.by_tag(r.tag)
        form = const
        if alone_skews and not T.is_loop(prefix) and all(
                not xr.alphas[q - 1].keys("d") for q, c in zip(others, coef) if c):
            # one statement (no loop to skew): the skews by dimensions of
            # iterators only are reshapes by those iterators
            form = const + sum((xr.alphas[q - 1].scale(c) for q, c in zip(others, coef)),
                               Aff())
        else:
            for q, c in zip(others, coef):
                if c:
                    direct.append(Step("skew", (prefix, p, q, int(c))))
        if form.keys("i"):
            # the reshapes in an order that keeps the dates unique (reshape
            # refuses one that does not), for every relation of the group
            plan = reshape_plan(xr, xr.alphas[p - 1], xr.alphas[p - 1] - form, p)
            if not all(full_rank_path(x, plan) for x in X.rels if x.tag in ids) \
                    or not _keeps_rank(X, T, ids):
                continue
            direct += [Step("reshape", (prefix,) + st[1:]) if st[0] == "reshape"
                       else Step("shift", (prefix, p, st[2].integral())) for st in plan]
        elif not form.is_zero:
            direct.append(Step("shift", (prefix, p, form.integral())))
        if sign == -1:
            direct.append(Step("reverse", (prefix, p)))
        if T.is_loop(prefix) or not any(s.name == "skew" for s in direct):
            if replays_to(X, direct, T) and (not form.keys("i") and len(direct) < 2
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
        key = (kind.__code__, opts, state, oracle.state_key(T), FREE_EMPTIES.get(),
               SECOND_READING.get())
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


def note_fallback(oracle, e: WhiteboxError) -> None:
    """Tell the effort bound of ``oracle`` (if any) why the recovery falls
    back to another way: what a search that gives up reports."""
    effort = getattr(oracle, "effort", None)
    if effort is not None:
        effort.note(e)
