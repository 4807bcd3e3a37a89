"""Code the compiler likes, by isl AST options per band: full tiles apart
from partial ones (``isolate`` on the point bands of tiled loops, as PPCG
does), short loops marked ``unroll`` unrolled in the text.

A tiled loop nest has tile loops ``t = floor(x / T)`` outside its point
loops ``x`` (Clay's ``tile``/``stripmine``).  In the code isl writes by
default every point loop carries ``min``/``max`` bounds for the partial
tiles at the edges, which keeps gcc from seeing a constant trip count and
costs a versioned, shorter vector loop in every tile.  :func:`band_options`
finds the tiles in the schedule itself (no record of the tiling steps is
needed) and isolates, on the first point loop of each tiled nest, the
outer iterations whose tile is full in every tiled dimension; isl then
writes the full tiles with the plain tile bounds and the partial ones
apart::

    for (c1 …)                                  for (c1 …)
      for (i = 32*c1; i <= min(n-1, 32*c1+31); i++)   if (32*c1 + 31 <= n - 1)
        S(i);                               =>        for (i = 32*c1; i <= 32*c1+31; i++)
                                                        S(i);
                                                      else
                                                        for (i = 32*c1; i < n; i++)
                                                          S(i);

A tile pair is found from the dates: dimension ``α_t`` is a tile loop of
``α_p`` with size ``T`` when every scheduled instance under the loop has
``T·α_t <= α_p <= T·α_t + T - 1`` (which is ``α_t = floor(α_p / T)``);
``T`` is read from the divisions of ``α_t``.  The options only shape the
code: the AST is proven exact as always (:mod:`.ast_check`).
"""

from __future__ import annotations

import islpy as isl

from ..model import Beta, Scop

_dt = isl.dim_type

#: Results of :func:`_alpha_dates`, :func:`_sizes` and :func:`tile_pairs`
#: during one :func:`band_options` call (keyed by the relations' ids, which
#: the SCoP keeps alive); None outside such a call (nothing kept).
_memo: dict | None = None


def _memoized(fn):
    def wrapper(scop, x, n):
        if _memo is None:
            return fn(scop, x, n)
        key = (fn.__name__, id(scop), id(x) if not isinstance(x, tuple) else x, n)
        if key not in _memo:
            _memo[key] = fn(scop, x, n)
        return _memo[key]
    wrapper.__doc__, wrapper.__name__ = fn.__doc__, fn.__name__
    return wrapper


@_memoized
def _alpha_dates(scop: Scop, rel, n: int) -> isl.Set:
    """The first ``n`` α dates of the instances of ``rel``, in an unnamed
    set space ``[a1, …, an]``."""
    st = scop.statement(rel.stmt)
    m = rel.map.intersect_domain(st.domain.intersect_params(scop.context))
    rng = m.range()
    total = rng.dim(_dt.set)
    keep = [2 * k - 1 for k in range(1, n + 1)]
    for pos in reversed(range(total)):
        if pos not in keep:
            rng = rng.project_out(_dt.set, pos, 1)
    return rng.reset_tuple_id()


@_memoized
def _dates_function(scop: Scop, rel, _unused) -> isl.PwMultiAff | None:
    """The dates of ``rel`` on its statement's instances as a function (None
    when isl cannot write one)."""
    st = scop.statement(rel.stmt)
    try:
        return isl.PwMultiAff.from_map(rel.map.intersect_domain(st.domain))
    except isl.Error:
        return None


@_memoized
def _sizes(scop: Scop, rel, t: int) -> set[int]:
    """Denominators of the divisions in ``α_t`` of ``rel`` (candidate tile
    sizes)."""
    pma = _dates_function(scop, rel, 0)
    if pma is None:
        return set()
    out: set[int] = set()
    for _set, aff in pma.get_pw_aff(2 * t - 1).get_pieces():
        for k in range(aff.dim(_dt.div)):
            d = aff.get_div(k).get_denominator_val().to_python()
            if d > 1:
                out.add(int(d))
    return out


def _box(space: isl.Space, pairs) -> isl.Set:
    """``T·a_t <= a_p <= T·a_t + T - 1`` for every pair, in ``space``."""
    s = isl.Set.universe(space)
    ls = isl.LocalSpace.from_space(space)
    for t, p, size in pairs:
        lo = isl.Constraint.alloc_inequality(ls)                   # a_p - T a_t >= 0
        lo = lo.set_coefficient_val(_dt.set, p - 1, 1).set_coefficient_val(_dt.set, t - 1, -size)
        hi = isl.Constraint.alloc_inequality(ls)                   # T a_t + T - 1 - a_p >= 0
        hi = hi.set_coefficient_val(_dt.set, p - 1, -1).set_coefficient_val(_dt.set, t - 1, size)
        hi = hi.set_constant_val(size - 1)
        s = s.add_constraint(lo).add_constraint(hi)
    return s


def tile_pairs(scop: Scop, loop: Beta) -> list[tuple[int, int, int]]:
    """The tile pairs ``(t, p, T)`` that hold for every relation under
    ``loop``: ``α_t = floor(α_p / T)`` with ``t < p`` and ``p`` at least
    the loop's depth (its own dimension or deeper, within every relation)."""
    return _tile_pairs(scop, tuple(loop), None)


@_memoized
def _tile_pairs(scop: Scop, loop: Beta, _unused) -> list[tuple[int, int, int]]:
    """:func:`tile_pairs` (memoized in a :func:`band_options` call)."""
    rels = scop.schedule.relations_under(loop)
    if not rels:
        return []
    depth = len(loop)
    deepest = min(r.depth for r in rels)
    out = []
    for p in range(depth, deepest + 1):
        for t in range(1, p):
            sizes = set.intersection(*(_sizes(scop, r, t) for r in rels))
            for size in sorted(sizes):
                if all(_pair_holds(scop, r, (t, p, size)) for r in rels):
                    out.append((t, p, size))
                    break
    return out


@_memoized
def _pair_holds(scop: Scop, rel, pair: tuple[int, int, int]) -> bool:
    """Whether ``α_t = floor(α_p / T)`` on every scheduled instance of
    ``rel`` (``pair`` is ``(t, p, T)``); memoized per relation, so the
    nested loops of one tiled nest, which all ask it of the same relations,
    cost isl one check (3mm: 35 checks per nest down to 12)."""
    dates = _alpha_dates(scop, rel, pair[1])
    return dates.is_subset(_box(dates.get_space(), [pair]))


def full_tiles(scop: Scop, loop: Beta) -> isl.Set | None:
    """The ``isolate`` option of the band of ``loop`` when it is the first
    point loop of a tiled nest (None otherwise): the iterations of the
    outer loops whose tile is full in every tiled dimension below, as
    ``{ isolate[[o1, …] -> [x]] : … }``."""
    depth = len(loop)
    pairs = tile_pairs(scop, loop)
    if not any(p == depth for _t, p, _s in pairs):
        return None
    # an ancestor that is already a point loop: the isolation is there
    for k in range(1, depth):
        if any(p == k for _t, p, _s in tile_pairs(scop, loop[:k])):
            return None
    points = sorted({p for _t, p, _s in pairs})
    tiles = sorted({t for t, _p, _s in pairs})
    n = points[-1]
    # a plain rectangular tiling only: the tile loops right outside the point
    # loops, one each (a wavefront or a loop between them: isl's code for
    # the partial tiles would cost more than the full tiles save)
    if (points != list(range(depth, n + 1)) or len(tiles) != len(points)
            or tiles != list(range(depth - len(points), depth))):
        return None
    rels = scop.schedule.relations_under(loop)
    dates = None
    for r in rels:
        d = _alpha_dates(scop, r, n)
        dates = d if dates is None else dates.union(d)
    box = _box(dates.get_space(), [pr for pr in pairs])

    def free(s: isl.Set) -> isl.Set:
        for p in points:
            s = s.eliminate(_dt.set, p - 1, 1)
        return s

    full = free(box.intersect(dates)).subtract(free(box.subtract(dates)))
    iso = box.intersect(full).project_out(_dt.set, depth, n - depth).coalesce()
    if iso.is_empty():
        return None
    m = isl.Map.from_range(iso).move_dims(_dt.in_, 0, _dt.out, 0, depth - 1)
    return m.wrap().set_tuple_name("isolate")


def short_loop(scop: Scop, loop: Beta, factor: int) -> bool:
    """True when the loop at ``loop`` is innermost and never runs more than
    ``factor`` iterations for one iteration of the loops around it (a point
    loop of a strip-mine by ``factor``): isl can then unroll it whole,
    copying statements, not loops."""
    rels = scop.schedule.relations_under(loop)
    depth = len(loop)
    if any(r.depth > depth for r in rels):
        return False                    # not innermost: unrolling would copy loops
    dates = None
    for r in rels:
        d = _alpha_dates(scop, r, depth)
        dates = d if dates is None else dates.union(d)
    if dates is None:
        return False
    m = isl.Map.from_range(dates).move_dims(_dt.in_, 0, _dt.out, 0, depth - 1)
    widths = m.reverse().apply_range(m).deltas()          # x' - x, same outer values
    bound = isl.Set(f"{{ [d] : d < {factor} }}", context=dates.get_ctx())
    return widths.is_subset(bound.align_params(widths.get_space()))


def band_options(scop: Scop):
    """A :data:`~clayx.codegen.tree.BandOptions` hook shaping the code for
    the compiler, or None when there is nothing to shape:

    - the full tiles of every tiled nest isolated (:func:`full_tiles`),
      partial tiles in one loop nest each (``atomic``);
    - an innermost loop marked ``unroll`` by a factor at least its number
      of iterations (after a strip-mine by that factor) unrolled in the
      text (isl's ``unroll`` option) instead of only asking gcc to.
    """
    global _memo
    _memo = {}
    try:
        return _band_options(scop)
    finally:
        _memo = None


def _band_options(scop: Scop):
    """:func:`band_options`, with :data:`_memo` in force."""
    opts: dict[tuple, isl.UnionSet] = {}
    ctx = scop.context.get_ctx()

    def add(loop, text_or_set) -> None:
        u = (isl.UnionSet(text_or_set, context=ctx) if isinstance(text_or_set, str)
             else isl.UnionSet.from_set(text_or_set))
        key = tuple(loop)
        opts[key] = u if key not in opts else opts[key].union(u)

    loops = scop.schedule.loops()
    atomic: set[tuple] = set()
    for loop in loops:
        iso = full_tiles(scop, loop)
        if iso is None:
            continue
        # partial tiles in one loop nest each, not split again at every
        # bound: atomic outside the isolated part and on the inner loops
        add(loop, iso)
        atomic.add(tuple(loop))
        n = max(p for _t, p, _s in tile_pairs(scop, loop))
        for inner in loops:
            if len(loop) < len(inner) <= n and tuple(inner[:len(loop)]) == tuple(loop):
                atomic.add(tuple(inner))
    unrolled = {tuple(m.loop) for m in scop.schedule.marks
                if m.kind == "unroll" and m.arg and short_loop(scop, m.loop, int(m.arg))}
    for loop in unrolled:
        add(loop, "{ unroll[x]; [isolate[] -> unroll[x]] }")
    for loop in atomic - unrolled:
        add(loop, "{ atomic[x] }")
    if not opts:
        return None
    text = {k: str(v) for k, v in opts.items()}
    return lambda beta: text.get(tuple(beta))
