"""Exo's loop primitives under Exo's names and with Exo's arguments (seed
003, A.1), each mapped onto the Clay directive that does the work:

- ``shift_loop(loop, new_lo)``: the loop starts at ``new_lo`` -- Clay's
  ``shift`` by (its lower bound - ``new_lo``);
- ``cut_loop(loop, cut_point)``: the loop in two, ``l..cut_point-1`` then
  ``cut_point..h-1`` -- Clay's ``peel`` at ``α ≤ cut_point - 1``;
- ``unroll_loop(loop)``: the whole loop unrolled -- Clay's ``unroll``
  mark with the loop's trip count as factor.

Exo's first argument (the procedure) is the session's SCoP here, and a
loop is named by its β-prefix (Exo's cursor).  Exo's safety conditions are
checked over every iteration of the outer loops and every parameter value
of the context (``shift_loop``: ``new_lo >= 0`` and one lower bound for
the loop; ``cut_loop``: ``l <= cut_point <= h``; ``unroll_loop``:
constant bounds), before the legality check every step gets.  A condition
Exo states that clayx cannot check exactly is refused, never assumed.

Exo's ``divide_loop`` is not taken: it names the new iterators
(``[io, ii]``), which clayx's code generation cannot; Clay's ``stripmine``
is its ``tail='guard'`` form (:data:`~.registry.FOREIGN` says so to a user
who types it).
"""

from __future__ import annotations

import islpy as isl

from ..model import Scop
from .affine import shift
from .common import Inequality, fail
from .marks import unroll_marked
from .params import Beta, Int
from .registry import directive
from .structure import peeled

_dt = isl.dim_type


def _iterations(scop: Scop, loop) -> isl.Map:
    """The values of the loop ``loop`` (α at depth ``len(loop)``) for each
    iteration of the loops around it: ``{[α1..α(k-1)] -> [αk]}`` over every
    statement under it, its domain and the context."""
    k = len(loop)
    dates = None
    for r in scop.schedule.relations_under(loop):
        rng = r.map.intersect_domain(scop.statement(r.stmt).domain) \
            .intersect_params(scop.context).range()
        n = rng.dim(_dt.set)
        rng = rng.project_out(_dt.set, 2 * k, n - 2 * k)        # after α_k
        for j in range(k - 1, -1, -1):                           # β_0 … β_(k-1)
            rng = rng.project_out(_dt.set, 2 * j, 1)
        dates = rng if dates is None else dates.union(rng.align_params(dates.get_space()))
    return isl.Map.from_range(dates.coalesce()).move_dims(_dt.in_, 0, _dt.out, 0, k - 1)


def _uniform(bound: isl.Map) -> isl.Aff | None:
    """The affine function of the parameters that ``bound`` (``{outer ->
    [x]}``, single-valued) gives for every outer iteration, or None when it
    depends on the outer iterations or is not one integer affine piece."""
    values = bound.range()
    if not bound.is_equal(isl.Map.from_domain_and_range(bound.domain(), values)):
        return None
    pa = values.dim_min(0)
    parts = pa.get_pieces()
    if len(parts) != 1 or parts[0][1].dim(_dt.div):
        return None
    aff = parts[0][1]
    vals = [aff.get_constant_val()] + [aff.get_coefficient_val(_dt.param, j)
                                       for j in range(aff.dim(_dt.param))]
    return aff if all(v.is_int() for v in vals) else None


@directive("shift_loop", Beta("loop", loop=True), Int("new_lo", nonnegative=True))
def shift_loop(scop: Scop, loop, new_lo: int) -> Scop:
    """Shift a loop so that it starts at ``new_lo`` (Exo's ``shift_loop``):
    each iteration ``i`` becomes ``i - l + new_lo``, ``l`` the loop's
    lower bound, for every statement under it.

    Arguments: ``loop`` a loop β-prefix; ``new_lo`` ≥ 0 (Exo's condition).
    The lower bound must be the same affine function of the parameters for
    every iteration of the outer loops and every statement in the loop
    (a triangular ``for (j = i; …)`` is refused: Clay's shift adds no
    iterator).  Done as ``shift(loop, len(loop), {l's parameter
    coefficients}, l - new_lo)``::

        for (i = 1; i <= n; i++)          shift_loop([0], 0)
          S(i);                     =>    for (c = 0; c < n; c++)
                                            S(c + 1);

    Checks: ``new_lo >= 0``; ``loop`` a loop (not ``[]``); one lower
    bound.  Legality: the session checks the new dates (a shift of a whole
    loop keeps its order).
    """
    lo = _uniform(_iterations(scop, loop).lexmin())
    if lo is None:
        raise fail("shift_loop", "the loop has no single lower bound (it differs between "
                   "iterations of the outer loops or between its statements, or is not "
                   "affine in the parameters): use shift on each part", 1)
    coeffs = {lo.get_dim_name(_dt.param, j): int(lo.get_coefficient_val(_dt.param, j)
                                                 .to_python())
              for j in range(lo.dim(_dt.param))}
    params = tuple(coeffs.get(p, 0) for p in scop.params)
    const = int(lo.get_constant_val().to_python()) - new_lo
    return shift(scop, loop, len(loop), params if any(params) else (), const)


@directive("cut_loop", Beta("loop", loop=True), Int("cut_point"))
def cut_loop(scop: Scop, loop, cut_point: int) -> Scop:
    """Cut a loop in two at ``cut_point`` (Exo's ``cut_loop``): the
    iterations before it, then a second loop from it on, for every
    statement under the loop.

    Arguments: ``loop`` a loop β-prefix; ``cut_point`` the first iteration
    of the second loop, which must lie between the loop's bounds
    (``l <= cut_point <= h``, ``h`` one past the last iteration: Exo's
    condition) for every iteration of the outer loops and every parameter
    value of the context.  Done as ``peel`` with the inequality
    ``α ≤ cut_point - 1``; a part without iterations is dropped::

        for (i = 0; i < 10; i++)           cut_loop([0], 4)
          S(i);                      =>    for (i = 0; i <= 3; i++) S(i);
                                           for (i = 4; i <= 9; i++) S(i);

    Checks: ``loop`` a loop (not ``[]``); the cut point within the
    bounds.  Legality: the order is unchanged (checked by the session
    anyway).  Clay's ``iss`` splits by any inequality, keeping one loop.
    """
    it = _iterations(scop, loop)
    early = it.lexmin().intersect_range(isl.Set(f"{{ [x] : x > {cut_point} }}"))
    late = it.lexmax().intersect_range(isl.Set(f"{{ [x] : x < {cut_point} - 1 }}"))
    if not early.is_empty() or not late.is_empty():
        bad = (early if not early.is_empty() else late).params()
        example = ""
        if bad.dim(_dt.param) and not bad.is_equal(scop.context):
            pt = bad.sample_point()
            example = ": e.g. " + ", ".join(
                f"{bad.get_dim_name(_dt.param, j)} = "
                f"{pt.get_coordinate_val(_dt.param, j).to_python()}"
                for j in range(bad.dim(_dt.param)))
        raise fail("cut_loop", f"the cut point {cut_point} is not between the loop's bounds "
                   "(l <= cut_point <= h, h one past the last iteration) for every "
                   f"iteration of the outer loops and parameter value{example}", 2)
    k = len(loop)
    ineq = Inequality((0,) * (k - 1) + (-1,), (), (0,) * len(scop.params), cut_point - 1)
    return peeled(scop, loop, ineq)


@directive("unroll_loop", Beta("loop", loop=True), kind="mark")
def unroll_loop(scop: Scop, loop) -> Scop:
    """Unroll a loop completely (Exo's ``unroll_loop``): the ``unroll``
    mark with the loop's trip count as factor, so code generation asks the
    compiler to unroll all of it (``#pragma GCC unroll n``; clayx's unroll
    is always such a mark).

    Arguments: ``loop`` a loop β-prefix whose bounds are constants, the
    same for every iteration of the outer loops (Exo's condition: ``lo``
    and ``hi`` constant, ``hi - lo > 0``)::

        for (i = 0; i < 4; i++)            unroll_loop([0])
          S(i);                      =>    the same loop, marked unroll 4

    Checks: ``loop`` a loop (not ``[]``); constant bounds.  Legality:
    always legal (dates are unchanged).
    """
    it = _iterations(scop, loop)
    lo, hi = _uniform(it.lexmin()), _uniform(it.lexmax())
    if lo is None or hi is None or not (lo.is_cst() and hi.is_cst()):
        raise fail("unroll_loop", "the loop's bounds are not constants (Exo's condition): "
                   "unroll(loop, factor) unrolls by a factor", 1)
    trip = int(hi.get_constant_val().to_python()) - int(lo.get_constant_val().to_python()) + 1
    return unroll_marked(scop, loop, trip, "unroll_loop", 1)
