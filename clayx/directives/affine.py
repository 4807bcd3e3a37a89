"""Clay's affine directives: shift, skew, reverse, interchange, reshape,
grain, densify (seed 004 §5.1, Fig. 8), and the relation-rewriting helpers
the tiling and mark directives share.

Every directive targets a β-prefix ``beta`` and rewrites each relation whose
β-vector starts with it ("for all statements with β-prefix ρ").  The α
dimensions are changed by composing the relation with an affine map on its
range, ``S[x] -> [β0, α1, β1, …]  ∘  [x -> o] -> [o']`` (see
:func:`transform`), so explicitly defined dimensions stay explicit and
implicitly defined ones (from ``stripmine``) keep their bounds.

Sign convention (Clay's, DESIGN.md): shift, skew and reshape are
*substitutions* in the relation's constraints, ``α_d ↦ α_d + amount``, so
the new date is the old one minus the amount.  ``shift([0], 1, {}, 2)`` on
``for (i = 0; i < n; i++)`` makes the loop run from ``-2`` to ``n - 3``.

Depths are 1-based.  A ``depth`` is accepted when every relation under
``beta`` has at least that many loops (Clay checks the statements, so
``interchange([0], 1, 2)`` works on a perfect 2-deep nest); otherwise the
directive fails with "depth overflow".  The β and the depths arrive
checked by their parameter types (:func:`~.params.Beta`,
:func:`~.params.Depth`: "the beta vector is empty", "the beta vector was
not found", "the beta is not a loop", "depth overflow"); the functions
check what relates their arguments before anything changes.  Legality
against dependences is the caller's job.
"""

from __future__ import annotations

from dataclasses import replace
from math import gcd
from typing import Callable, Iterable, Sequence

import islpy as isl

from ..errors import DirectiveError, ModelError
from ..model import ClaySchedule, Mark, Relation, Scop
from .params import (DEPTH_OVERFLOW, NEED_LOOP, VECTOR_WRONG, WRONG_COEFFICIENT, WRONG_FACTOR,
                     Beta, Bool, Depth, Int, List)
from .registry import directive

# Names of the old output / input dimensions in the transform maps' text;
# chosen so that they cannot collide with C identifiers clayx produces.
_OUT = "_clo"
_IN = "_cli"


# ---------------------------------------------------------------------------
# Shared helpers (also used by tiling.py and marks.py)
# ---------------------------------------------------------------------------

def out(pos: int) -> str:
    """The name of old output dimension ``pos`` in a :func:`transform`
    expression."""
    return f"{_OUT}{pos}"


def alpha(depth: int) -> str:
    """The name of old α dimension ``depth`` (1-based; output ``2·depth-1``)
    in a :func:`transform` expression."""
    return out(2 * depth - 1)


def iterator(k: int) -> str:
    """The name of the statement's original iterator ``k`` (1-based) in a
    :func:`transform` expression."""
    return f"{_IN}{k - 1}"


def transform(rel: Relation, outputs: Sequence[str],
              beta: Sequence[int] | None = None) -> Relation:
    """``rel`` with its range mapped by ``[x -> o] -> [outputs]``.

    ``outputs`` are isl affine expressions (``floor(e/k)`` allowed) of the
    old output dimensions (:func:`out`, :func:`alpha`), the statement's
    iterators (:func:`iterator`) and the parameters; their number may differ
    from the old one (β dimensions are given as constants).  ``beta`` is the
    new β-vector (default: unchanged).  Input dimension names are kept.
    """
    m = rel.map
    n_in = m.dim(isl.dim_type.in_)
    n_out = m.dim(isl.dim_type.out)
    params = [m.get_dim_name(isl.dim_type.param, k) for k in range(m.dim(isl.dim_type.param))]
    ins = ", ".join(f"{_IN}{k}" for k in range(n_in))
    olds = ", ".join(out(k) for k in range(n_out))
    text = (f"[{', '.join(params)}] -> {{ [{rel.stmt}[{ins}] -> [{olds}]] -> "
            f"[{', '.join(outputs)}] }}")
    try:
        t = isl.Map(text, context=m.get_ctx())
        new = t.intersect_domain(m.wrap()).domain_factor_domain()
        for k in range(n_in):
            if m.has_dim_name(isl.dim_type.in_, k):
                new = new.set_dim_name(isl.dim_type.in_, k,
                                       m.get_dim_name(isl.dim_type.in_, k))
        new = new.detect_equalities().coalesce()
    except isl.Error as e:  # pragma: no cover - our own text; a bug if it fails
        raise ModelError(f"rewriting a relation of {rel.stmt} failed in isl: {e}") from None
    nb = tuple(rel.beta if beta is None else beta)
    return replace(rel, beta=nb, map=new)


def substituted(rel: Relation, depth: int, expr: str) -> Relation:
    """``rel`` with α ``depth`` replaced by ``expr`` (an expression of the old
    dimensions, see :func:`transform`), the others unchanged."""
    n_out = rel.map.dim(isl.dim_type.out)
    outs = [out(k) for k in range(n_out)]
    outs[2 * depth - 1] = expr
    return transform(rel, outs)


def rewrite(scop: Scop, rels: Iterable[Relation], fn: Callable[[Relation], Relation], *,
            marks: Callable[[Mark], Mark | None] | None = None,
            normalize: bool = False, name: str = "") -> Scop:
    """A new :class:`Scop` whose relations in ``rels`` are replaced by
    ``fn(rel)``; ``marks`` maps each mark (None drops it); ``normalize``
    β-normalizes afterwards.  A schedule that is no longer well formed
    (β-vectors clash) becomes a :class:`DirectiveError`."""
    chosen = {id(r) for r in rels}
    sched = scop.schedule
    new_rels = tuple(fn(r) if id(r) in chosen else r for r in sched.relations)
    new_marks = sched.marks
    if marks is not None:
        kept: list[Mark] = []
        for m in sched.marks:
            nm = marks(m)
            if nm is not None and nm not in kept:
                kept.append(nm)
        new_marks = tuple(kept)
    try:
        new = ClaySchedule(new_rels, new_marks)
        if normalize:
            new = new.normalized()
    except ModelError as e:
        raise DirectiveError(f"the result is not a valid schedule: {e}",
                             directive=name or None) from None
    return replace(scop, schedule=new)


def _affine_text(coeffs: Sequence[int], names: Sequence[str], const: int) -> str:
    """``2*n - m + 3`` as isl text (``0`` when everything is zero)."""
    text = ""
    for c, p in [*((c, p) for c, p in zip(coeffs, names) if c), (const, "")]:
        if not c and (p or text):
            continue
        mag = abs(c)
        term = p if mag == 1 and p else f"{mag}*{p}" if p else str(mag)
        text += (" - " if c < 0 else " + ") + term if text else ("-" if c < 0 else "") + term
    return text


def _term(coeff: int, name: str) -> str:
    """``coeff*name`` as isl text with a leading sign (``+ 2*x``, ``- x``)."""
    return f"{'-' if coeff < 0 else '+'} {abs(coeff)}*{name}"


# ---------------------------------------------------------------------------
# Directives
# ---------------------------------------------------------------------------

@directive("shift", Beta("beta"), Depth("depth"), List("params"), Int("const"))
def shift(scop: Scop, beta, depth: int, params, const: int) -> Scop:
    """Shift the loop at ``depth`` by a (parametric) constant, for every
    statement under ``beta``.

    Arguments: ``beta`` the β-prefix (a loop or a statement); ``depth`` the
    1-based loop depth; ``params`` one coefficient per SCoP parameter, in
    ``scop.params`` order, as a Clay list ``{1 | 0}`` (``{}`` for none);
    ``const`` the constant.  Clay's substitution ``α_d ↦ α_d + amount``:
    the new iterator is the old one minus ``amount = params·p + const``::

        for (i = 0; i < n; i++)          shift([0], 1, {}, 2)
          S(i);                    =>    for (c = -2; c < n - 2; c++)
                                           S(c + 2);

    Checks: ``beta`` exists and is not ``[]``, ``1 <= depth <=`` the
    loops of every statement under it; one coefficient per parameter.
    Legality: the session checks the dependences afterwards (a shift is
    legal when no dependence is reversed).  Exo's ``shift_loop(loop,
    new_lo)`` is :func:`shift_loop`.
    """
    rels = scop.schedule.relations_under(beta)
    if len(params) > len(scop.params) or any(not isinstance(c, int) for c in params):
        raise DirectiveError(
            f"{VECTOR_WRONG} (the parameter vector has at most {len(scop.params)} integer "
            f"coefficients, one per parameter {list(scop.params)}; missing ones are 0)",
            directive="shift", argument=3)
    coeffs = list(params) + [0] * (len(scop.params) - len(params))
    amount = _affine_text(coeffs, scop.params, const)
    return rewrite(scop, rels, lambda r: substituted(r, depth, f"{alpha(depth)} - ({amount})"),
                   name="shift")


def _skew_pre(beta, depth, depth_other, coeff) -> None:
    if depth == depth_other:
        raise DirectiveError("depth overflow (a loop cannot be skewed by itself; "
                             "use reverse or grain)", directive="skew", argument=3)


@directive("skew", Beta("beta", loop=True), Depth("depth"), Depth("depth_other"),
           Int("coeff", nonzero=True, clay=WRONG_COEFFICIENT),
           order=("beta", "coeff", "depth", "depth_other"), pre=_skew_pre)
def skew(scop: Scop, beta, depth: int, depth_other: int, coeff: int) -> Scop:
    """Skew the loop at ``depth`` by the loop at ``depth_other``.

    Arguments: ``beta`` a loop; ``depth`` the loop whose iterator changes;
    ``depth_other`` the loop it is skewed by (any other depth every
    statement under ``beta`` has); ``coeff`` the non-zero skew factor.
    Clay's substitution ``α_depth ↦ α_depth + coeff·α_other`` (Fig. 8), so
    the new iterator is ``α_depth - coeff·α_other``; the usual wavefront
    skew ``j' = j + i`` is ``coeff = -1``::

        for (i = 0; i < n; i++)          skew([0], 2, 1, -1)
          for (j = 0; j < m; j++)  =>    for (i = 0; i < n; i++)
            S(i, j);                       for (c = i; c < m + i; c++)
                                             S(i, c - i);

    Checks: ``beta`` a loop; both depths within the loops of every
    statement under it, and different; ``coeff != 0``; every statement
    under it has an original iterator ("the beta need to be in a loop":
    Clay's check, reached after ``embed`` put a statement with none in
    loops).  Legality: checked by the session on the new dates.  No alias.
    """
    rels = scop.schedule.relations_under(beta)
    if any(scop.statement(r.stmt).dim == 0 for r in rels):
        raise DirectiveError(NEED_LOOP, directive="skew", argument=1)
    expr = f"{alpha(depth)} {_term(-coeff, alpha(depth_other))}"
    return rewrite(scop, rels, lambda r: substituted(r, depth, expr), name="skew")


@directive("reverse", Beta("beta"), Depth("depth"))
def reverse(scop: Scop, beta, depth: int) -> Scop:
    """Reverse the iteration order of the loop at ``depth`` for every
    statement under ``beta`` (``α_d ↦ -α_d``).

    Arguments: ``beta`` a loop or statement; ``depth`` the 1-based depth::

        for (i = 0; i < n; i++)          reverse([0], 1)
          S(i);                    =>    for (i = n - 1; i >= 0; i--)
                                           S(i);

    Checks: ``beta`` exists (not ``[]``), ``depth`` within the loops of
    every statement under it.  Legality: the loop must carry no dependence
    (checked by the session).
    """
    rels = scop.schedule.relations_under(beta)
    return rewrite(scop, rels, lambda r: substituted(r, depth, f"-{alpha(depth)}"),
                   name="reverse")


def interchanged(rel: Relation, d1: int, d2: int) -> Relation:
    """``rel`` with its α dimensions ``d1`` and ``d2`` (1-based) swapped."""
    n_out = rel.map.dim(isl.dim_type.out)
    outs = [out(k) for k in range(n_out)]
    outs[2 * d1 - 1], outs[2 * d2 - 1] = outs[2 * d2 - 1], outs[2 * d1 - 1]
    return transform(rel, outs)


@directive("interchange", Beta("beta"), Depth("depth1"), Depth("depth2"),
           Bool("pretty", optional=True, default=True))
def interchange(scop: Scop, beta, depth1: int, depth2: int, pretty: bool = True) -> Scop:
    """Interchange the loops at ``depth1`` and ``depth2`` for every statement
    under ``beta`` (the two α dimensions are swapped).

    Arguments: ``beta`` a loop or statement; ``depth1``, ``depth2`` 1-based
    depths every statement under ``beta`` has; ``pretty`` is Clay's flag,
    accepted for script compatibility: it changes no date (β dimensions stay
    in place, so marks stay on their loop levels)::

        for (i = 0; i < n; i++)          interchange([0], 1, 2)
          for (j = 0; j < m; j++)  =>    for (j = 0; j < m; j++)
            S(i, j);                       for (i = 0; i < n; i++)
                                             S(i, j);

    Checks: ``beta`` exists (not ``[]``), both depths within the loops of
    every statement under it.  Legality: checked by the session.  See also
    ``reorder_loops``.
    """
    rels = scop.schedule.relations_under(beta)
    if depth1 == depth2:
        return scop
    return rewrite(scop, rels, lambda r: interchanged(r, depth1, depth2), name="interchange")


@directive("reorder_loops", Beta("beta"), Depth("depth", inner=1))
def reorder_loops(scop: Scop, beta, depth: int) -> Scop:
    """Swap the loop at ``depth`` with the one directly inside it:
    ``interchange(beta, depth, depth + 1)`` (Exo's ``reorder_loops``).

    Arguments: ``beta`` a loop or statement; ``depth`` the outer of the two
    loops (every statement under ``beta`` needs ``depth + 1`` loops)::

        for i: for j: S(i, j)      =>    for j: for i: S(i, j)

    Checks: ``beta`` exists (not ``[]``), every statement under it has
    ``depth + 1`` loops.  Legality: checked by the session.
    """
    rels = scop.schedule.relations_under(beta)
    return rewrite(scop, rels, lambda r: interchanged(r, depth, depth + 1),
                   name="reorder_loops")


@directive("reshape", Beta("beta"), Depth("depth", zero=False), Int("iterator"), Int("amount"))
def reshape(scop: Scop, beta, depth: int, iterator_: int, amount: int) -> Scop:
    """Make the loop at ``depth`` depend on the *original* iterator
    ``iterator`` with factor ``amount`` (Clay's RESHAPE).

    Arguments: ``beta`` a loop or statement; ``depth`` the loop; ``iterator``
    the 1-based index of an original loop iterator of every statement under
    ``beta``; ``amount`` the factor.  Substitution ``α_d ↦ α_d + amount·x``:
    the new date is ``α_d - amount·x``.  Refused when the dates would stop
    being unique (explicit dimensions becoming linearly dependent)::

        for (i …) for (j …) S(i, j)      reshape([0], 2, 1, -1)
                                   =>    for (i …) for (c = i; …) S(i, c - i)

    Checks: ``beta`` exists (not ``[]``), ``depth`` within the loops of
    every statement under it, ``iterator`` an original iterator of each,
    the dates stay unique.  Legality: checked by the session.
    """
    rels = scop.schedule.relations_under(beta)
    if amount == 0:                     # Clay: after the look-up
        raise DirectiveError(f"{WRONG_FACTOR} (the amount must not be 0)",
                             directive="reshape", argument=4)
    n_it = min(scop.statement(r.stmt).dim for r in rels)
    if not 1 <= iterator_ <= n_it:
        raise DirectiveError(f"{DEPTH_OVERFLOW} (iterator {iterator_}: the statements have "
                             f"{n_it} iterators)", directive="reshape", argument=3)
    new = {id(r): substituted(r, depth, f"{alpha(depth)} {_term(-amount, iterator(iterator_))}")
           for r in rels}
    for r in rels:
        if not injective_as_written(new[id(r)]):
            raise DirectiveError(
                "wrong coefficient (the reshape would give several instances of "
                f"{r.stmt} the same date: its dimensions become linearly dependent)",
                directive="reshape", argument=4)
    return rewrite(scop, rels, lambda r: new[id(r)], name="reshape")


@directive("grain", Beta("beta"), Depth("depth", positive=True),
           Int("factor", positive=True, clay=WRONG_FACTOR), order=("factor", "depth", "beta"))
def grain(scop: Scop, beta, depth: int, factor: int) -> Scop:
    """Multiply the gap between consecutive executions along the loop at
    ``depth`` by ``factor`` (Clay's GRAIN: ``α_d ↦ α_d / factor``, the new
    date is ``factor·α_d``).

    Arguments: ``beta`` a loop or statement; ``depth``; ``factor`` ≥ 1.
    The dates stay integer for implicit dimensions too (the stride is kept
    exactly, not only the rewritten constraints)::

        for (i = 0; i < n; i++)          grain([0], 1, 2)
          S(i);                    =>    for (c = 0; c < 2*n - 1; c += 2)
                                           S(c / 2);

    Checks: ``factor > 0``; ``beta`` exists (not ``[]``), ``depth`` within
    the loops of every statement under it.  Legality: order-preserving,
    never breaks a dependence.  Inverse: densify.
    """
    rels = scop.schedule.relations_under(beta)
    if factor == 1:
        return scop
    return rewrite(scop, rels, lambda r: substituted(r, depth, f"{factor}*{alpha(depth)}"),
                   name="grain")


def injective_as_written(rel: Relation) -> bool:
    """Does ``rel``, as written (its index-set split constraints, not the
    statement's domain), map no two points to one date?  What ``reshape``
    checks (Clay refuses a reshape that makes the α equalities on the
    iterators dependent, reference 5.8): an empty part counts too.
    Whitebox asks the same (:meth:`clayx.whitebox.Oracle.unique`)."""
    return rel.map.is_injective()


def _dates(scop: Scop, rel: Relation) -> isl.Set:
    """The dates ``rel`` gives the statement's instances (domain-restricted:
    a strided loop of the source has strided dates)."""
    return rel.map.intersect_domain(scop.statement(rel.stmt).domain).range()


def _divisible(scop: Scop, rel: Relation, depth: int, g: int) -> bool:
    rng = _dates(scop, rel)
    n_out = rng.dim(isl.dim_type.set)
    params = [rng.get_dim_name(isl.dim_type.param, k) for k in range(rng.dim(isl.dim_type.param))]
    names = [f"o{k}" for k in range(n_out)]
    mult = isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(names)}] : "
                   f"exists e: {names[2 * depth - 1]} = {g}e }}", context=rng.get_ctx())
    return rng.is_subset(mult)


def _divisors_desc(n: int) -> list[int]:
    return [d for d in range(n, 1, -1) if n % d == 0]


@directive("densify", Beta("beta"), Depth("depth", zero=False))
def densify(scop: Scop, beta, depth: int) -> Scop:
    """Remove the gap between consecutive executions along the loop at
    ``depth`` (Clay's DENSIFY, the inverse of ``grain``): every date on that
    dimension is divided by the largest ``g > 1`` dividing all of them, for
    all statements under ``beta``.

    Arguments: ``beta`` a loop or statement; ``depth``.  Only the dates of
    the statements' instances count, so a strided loop of the source is
    densified too.  Fails with "cannot densify" when no such ``g`` exists::

        for (c = 0; c < 2*n - 1; c += 2)       densify([0], 1)
          S(c / 2);                       =>   for (i = 0; i < n; i++) S(i);

        for (i = 0; i < n; i += 3)             densify([0], 1)
          A[i] = …;                       =>   for (c1 = 0; c1 <= floord(n - 1, 3); c1++)
                                                 A[(3 * c1)] = …;

    Checks: ``beta`` exists (not ``[]``), ``depth`` within the loops of
    every statement under it, a common factor exists.  Legality:
    order-preserving, never breaks a dependence.
    """
    rels = scop.schedule.relations_under(beta)
    g = 0
    for r in rels:
        try:
            s = int(_dates(scop, r).get_stride(2 * depth - 1).to_python())
        except (isl.Error, ValueError):
            s = 1
        g = gcd(g, s)
    for cand in _divisors_desc(g):
        if all(_divisible(scop, r, depth, cand) for r in rels):
            return rewrite(scop, rels,
                           lambda r: substituted(r, depth, f"floor({alpha(depth)}/{cand})"),
                           name="densify")
    raise DirectiveError("cannot densify (the dates at this depth have no common "
                         "factor greater than 1)", directive="densify", argument=2)
