"""Clay's strip-mining directives: stripmine, linearize (its inverse) and
tile (stripmine + one interchange), seed 004 §5.1, Fig. 8, Clay reference §5.15.

``stripmine(beta, depth, size)`` inserts, before ``α_depth``, a new α
dimension implicitly defined by ``size·α_new ≤ α_depth ≤ size·α_new +
size - 1`` (that is ``α_new = floor(α_depth / size)``) and a new β dimension
0, for every relation under ``beta``.  The β-vectors of those relations get a
0 inserted at index ``depth`` and the schedule is β-normalized.  When
``beta`` is deeper than ``depth`` and the loop ``beta[:depth]`` holds other
statements too, Clay's semantics apply as written: only the statements under
``beta`` get the chunk dimension, which then shares its schedule dimension
with the other statements' iterator (rarely legal; the session checks).  Marks move
with their loops: a mark on the strip-mined loop stays on it (now the tile
loop), marks on loops inside it follow the new β-prefixes.
"""

from __future__ import annotations

import islpy as isl

from ..errors import DirectiveError
from ..model import Mark, Relation, Scop
from .affine import alpha, interchanged, out, rewrite, transform
from .params import BLOCK_VALUE, DEPTH_OVERFLOW, Beta, Depth, Int
from .registry import directive


def _stripmined(rel: Relation, depth: int, size: int, beta_new: int = 0) -> Relation:
    n_out = rel.map.dim(isl.dim_type.out)
    outs = [out(k) for k in range(n_out)]
    p = 2 * depth - 1
    outs[p:p] = [f"floor({alpha(depth)}/{size})", str(beta_new)]
    beta = rel.beta[:depth] + (beta_new,) + rel.beta[depth:]
    return transform(rel, outs, beta)


def _linearized(rel: Relation, depth: int) -> Relation:
    n_out = rel.map.dim(isl.dim_type.out)
    p = 2 * depth - 1
    outs = [out(k) for k in range(n_out) if k not in (p, p + 1)]
    beta = rel.beta[:depth] + rel.beta[depth + 1:]
    return transform(rel, outs, beta)


def _stripmine(scop: Scop, name: str, beta, depth: int, size: int,
               then=lambda r: r) -> Scop:
    """Stripmine with checked arguments (``name`` for the messages);
    ``then`` further rewrites each strip-mined relation (tile's
    interchanges)."""
    rels = scop.schedule.relations_under(beta)
    inner = beta[:depth]

    def mark(m: Mark) -> Mark:
        # marks on loops inside the strip-mined one follow their statements
        q = m.loop
        if len(q) > depth and q[:depth] == inner:
            under = scop.schedule.relations_under(q)
            if under and all(r.beta[:len(beta)] == beta for r in under):
                return Mark(m.kind, q[:depth] + (0,) + q[depth:], m.arg)
        return m

    return rewrite(scop, rels, lambda r: then(_stripmined(r, depth, size)), marks=mark,
                   normalize=True, name=name)


@directive("stripmine", Beta("beta", loop=True, in_loop=True), Depth("depth"),
           Int("size", positive=True, clay=BLOCK_VALUE), order=("beta", "size", "depth"))
def stripmine(scop: Scop, beta, depth: int, size: int) -> Scop:
    """Split the loop at ``depth`` into a loop over chunks of ``size``
    iterations and a loop inside each chunk, for every statement under
    ``beta`` (Clay's STRIPMINE; TVM/Halide ``split``, Exo ``divide_loop``
    with ``tail='guard'``).

    Arguments: ``beta`` a loop; ``depth`` the loop to strip-mine (1-based);
    ``size`` > 0.  The new outer dimension is ``floor(α_depth / size)``::

        for (i = 0; i < n; i++)          stripmine([0], 1, 4)
          S(i);                    =>    for (c = 0; c <= floord(n - 1, 4); c++)
                                           for (i = 4*c; i <= min(n - 1, 4*c + 3); i++)
                                             S(i);

    Legality: the order is unchanged when every statement of the loop
    ``beta[:depth]`` is under ``beta``; strip-mining it for part of its
    statements only makes their chunk loop share the dimension with the
    others' iterator, which the session's check usually refuses.  Checks:
    ``size > 0``, ``beta`` a loop, ``depth`` within the loops of every
    statement under it.  Inverse: linearize.  No alias: Exo's
    ``divide_loop`` also names the new iterators, which clayx cannot.
    """
    return _stripmine(scop, "stripmine", beta, depth, size)


def _strip_size(rel: Relation, depth: int) -> int | None:
    """The size ``s`` when ``α_depth`` looks strip-mined w.r.t.
    ``α_depth+1`` (its points span ``s`` consecutive values), else None."""
    rng = rel.map.range()
    a, b = 2 * depth - 1, 2 * depth + 1
    sl = rng.fix_val(isl.dim_type.set, a, 0)
    if sl.is_empty():
        pt = rng.sample_point()
        sl = rng.fix_val(isl.dim_type.set, a, pt.get_coordinate_val(isl.dim_type.set, a))
    n = sl.dim(isl.dim_type.set)
    sl = sl.project_out(isl.dim_type.set, b + 1, n - b - 1).project_out(isl.dim_type.set, 0, b)
    sl = sl.project_out(isl.dim_type.param, 0, sl.dim(isl.dim_type.param))
    lo, hi = sl.dim_min_val(0), sl.dim_max_val(0)
    if not (lo.is_int() and hi.is_int()):
        return None
    s = int(hi.to_python()) - int(lo.to_python()) + 1
    return s if s >= 1 else None


@directive("linearize", Beta("beta", loop=True), Depth("depth"))
def linearize(scop: Scop, beta, depth: int) -> Scop:
    """Merge the strip-mined loop at ``depth`` with the loop directly inside
    it, for every statement under ``beta`` (Clay's LINEARIZE, the inverse of
    ``stripmine``: the α and β dimensions at ``depth`` are removed).

    Arguments: ``beta`` a loop; ``depth`` the chunk loop.  Precondition:
    ``α_depth`` is implicitly defined by ``s·α_depth ≤ α_depth+1 ≤
    s·α_depth + s - 1`` and nothing else, and the chunk loop has a single
    child; otherwise "the dimension is not strip-mined"::

        for (c = 0; c <= floord(n - 1, 4); c++)     linearize([0], 1)
          for (i = 4*c; i <= min(n - 1, 4*c + 3); i++)   =>   for (i = 0; i < n; i++)
            S(i);                                                  S(i);

    Checks: ``beta`` a loop, ``depth`` within the loops of every statement
    under it, the dimension strip-mined.  Legality: order-preserving when
    it undoes a ``stripmine`` of the whole loop; checked by the session in
    any case.
    """
    name = "linearize"
    rels = scop.schedule.relations_under(beta)
    not_sm = DirectiveError("wrong coefficient (the dimension is not strip-mined)",
                            directive=name, argument=2)
    if any(r.depth < depth + 1 for r in rels):
        raise DirectiveError(f"{DEPTH_OVERFLOW} (depth {depth} needs a loop inside it)",
                             directive=name, argument=2)
    if len({r.beta[depth] for r in rels}) != 1:
        raise not_sm
    inner = beta[:depth]
    new = {}
    for r in rels:
        lin = _linearized(r, depth)
        if r.map.is_empty():
            # an empty part (an index-set split's empty half, which Clay
            # keeps) runs nothing: any strip-mining fits it
            new[id(r)] = lin
            continue
        s = _strip_size(r, depth)
        if s is None:
            raise not_sm
        if not _stripmined(lin, depth, s, r.beta[depth]).map.is_equal(r.map):
            raise not_sm
        new[id(r)] = lin

    def mark(m: Mark) -> Mark:
        q = m.loop
        if len(q) > depth and q[:depth] == inner:
            return Mark(m.kind, q[:depth] + q[depth + 1:], m.arg)
        return m

    return rewrite(scop, rels, lambda r: new[id(r)], marks=mark, normalize=True, name=name)


def _tile_pre(beta, depth, depth_outer, size) -> None:
    if depth_outer > depth:
        raise DirectiveError(f"the depth is not 'outer' (depth_outer {depth_outer} must not "
                             f"exceed depth {depth})", directive="tile", argument=3)


@directive("tile", Beta("beta", loop=True, in_loop=True), Depth("depth"),
           Depth("depth_outer", of="depth", bound="outer"),
           Int("size", positive=True, clay=BLOCK_VALUE),
           order=("beta", "size", "depth", "depth_outer"), pre=_tile_pre)
def tile(scop: Scop, beta, depth: int, depth_outer: int, size: int) -> Scop:
    """Tile the loop at ``depth`` with tiles of ``size`` and swap its tile
    loop with the loop at ``depth_outer`` (Clay's ``tile``, reference §5.15:
    ``stripmine(beta, depth, size)`` then ``interchange`` of the depths
    ``depth`` and ``depth_outer``), for every statement under ``beta``.

    Arguments: ``beta`` a loop; ``depth`` the loop to tile; ``depth_outer``
    (1 ≤ ``depth_outer`` ≤ ``depth``) where its tile loop goes; ``size`` > 0.
    The interchange is a *swap*, not a rotation: the loop that was at
    ``depth_outer`` goes to ``depth`` and the loops between stay, so
    ``(a, b, c)`` tiled at ``depth`` 3, ``depth_outer`` 1 is
    ``(T_c, b, a, c)``; ``depth_outer == depth`` is a stripmine.  Tiling a
    2-deep nest takes two calls::

        for (i …) for (j …) S            tile([0,0], 1, 1, 32); tile([0,0,0], 3, 2, 32)
                                   =>    for (ti …) for (tj …) for (i …) for (j …) S

    (after the first call the nest is ``[0, 0, 0, 0]``-deep: tile loop ``i``
    at depth 1, ``i`` at 2, ``j`` at 3).  To move the tile loop out and keep
    the loops it passes in their order (a rotation), use
    ``stripmine(beta, depth, size)`` and adjacent interchanges
    ``(depth - 1, depth)``, …, ``(depth_outer, depth_outer + 1)``.  Checks:
    ``size > 0``, ``beta`` a loop, ``depth`` within the loops of every
    statement under it, ``1 <= depth_outer <= depth``.  Legality: checked
    by the session (the swap needs the loops it reorders to permute).
    """
    return _stripmine(scop, "tile", beta, depth, size,
                      then=lambda r: interchanged(r, depth_outer, depth))
