"""Clay's ``unroll(β, f)`` and ``unroll_noepilog(β, f)`` (reference 5.17):
a loop really unrolled in the schedule, not a mark for the compiler (that
is ``unroll_mark``, :mod:`.marks`).

Clay copies each statement under the loop f − 1 times with the loop's
iterator ``it`` replaced by ``(it+m)`` in the body, lowers the upper bounds
of ``it`` by f in the domains, makes the loop's α dimension a multiple of
f (``α_k = f·λ``) and adds an epilog loop right after the loop.  clayx
keeps one statement (its domain, accesses and dependences unchanged) and
expresses the same thing as scattering relations of it, so that every
step stays checked against the original dependences:

- the **main** relation: the instances of Clay's lowered domain whose α_k
  is a multiple of f, at their dates (the loop steps by f);
- **copy m** (1 ≤ m < f): the instance ``it + m`` at the date of the main
  instance ``it``, as a new child of the loop placed as Clay places the
  copied statement (children S1, S2, then S1 + 1, S2 + 1, …) -- in C the
  copy prints as the statement with ``it`` replaced by ``c + m``;
- the **epilog** (``unroll`` only): every instance the main relation and
  the copies leave, in a new loop right after the loop.  Clay's epilog
  has no lower bound and repeats iterations; clayx's is the exact
  remainder.
- ``unroll_noepilog`` lowers the upper bounds by f − 1, not f: Clay's
  f leaves the last iterations to an epilog that is not there (they are
  silently dropped); it is refused when iterations are still left over
  (a trip count that is not a multiple of f for some parameter value).

Each instance is scheduled exactly once by construction (checked: the
parts are disjoint); the session checks the new dates against every
dependence as for any step.
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from ..model import Relation, Scop
from .common import (EMPTY, NOT_A_LOOP, NOT_FOUND, WRONG_FACTOR, alpha_out, clay_matching,
                     fail, rebuild)
from .params import Beta, Int
from .registry import directive

_dt = isl.dim_type

#: The largest factor: each statement gets ``factor`` relations, and the
#: legality check and code generation grow with them (16: seconds).
MAX_FACTOR = 16


def lowered_domain(domain: isl.Set, k: int, f: int) -> isl.Set:
    """Clay's domain edit: every inequality with a negative coefficient on
    set dimension ``k`` gets its constant lowered by ``f``.  A domain with
    existential variables gets the same meaning by its definition
    (``x`` such that ``x + f·e_k`` is in the domain)."""
    out = isl.Set.empty(domain.get_space())
    for bs in domain.get_basic_sets():
        if bs.dim(_dt.div):
            return domain.intersect(translated(domain, k, -f))
        new = isl.BasicSet.universe(bs.get_space())
        for c in bs.get_constraints():
            if not c.is_equality() and c.get_coefficient_val(_dt.set, k).is_neg():
                c = c.set_constant_val(c.get_constant_val() - f)
            new = new.add_constraint(c)
        out = out.union(isl.Set.from_basic_set(new))
    return out.coalesce()


def _shift_rel(space: isl.Space, k: int, m: int) -> isl.Map:
    """``S[x] -> S[x + m·e_k]`` on the statement space ``space``."""
    n = space.dim(_dt.set)
    ls = isl.LocalSpace.from_space(space.map_from_set())
    rel = isl.Map.universe(space.map_from_set())
    for j in range(n):
        c = isl.Constraint.equality_alloc(ls)
        c = c.set_coefficient_val(_dt.out, j, 1).set_coefficient_val(_dt.in_, j, -1)
        if j == k:
            c = c.set_constant_val(-m)
        rel = rel.add_constraint(c)
    return rel


def translated(s: isl.Set, k: int, m: int) -> isl.Set:
    """The points ``x - m·e_k`` for ``x`` in ``s`` (``s`` moved by -m)."""
    return s.apply(_shift_rel(s.get_space(), k, -m))


def _multiple(m: isl.Map, pos: int, f: int) -> isl.Map:
    """``m`` restricted to outputs whose dimension ``pos`` is a multiple of
    ``f`` (``out[pos] = f·λ``, λ a local variable)."""
    n = m.dim(_dt.out)
    rng = isl.Set.universe(m.get_space().range())
    rng = rng.add_dims(_dt.set, 1)
    c = isl.Constraint.equality_alloc(isl.LocalSpace.from_space(rng.get_space()))
    c = c.set_coefficient_val(_dt.set, pos, 1).set_coefficient_val(_dt.set, n, -f)
    rng = rng.add_constraint(c).project_out(_dt.set, n, 1)
    return m.intersect_range(rng)


def _unroll(scop: Scop, loop, factor: int, name: str, epilog: bool) -> Scop:
    if not loop:
        raise fail(name, EMPTY, 1)
    if factor <= 0:
        raise fail(name, f"{WRONG_FACTOR}: the factor must be positive, got {factor}", 2)
    if factor == 1:
        return scop
    if factor > MAX_FACTOR:
        raise fail(name, f"{WRONG_FACTOR}: clayx unrolls by at most {MAX_FACTOR} in the "
                   f"schedule, got {factor} (unroll_mark({list(loop)}, {factor}) asks the "
                   "compiler)", 2)
    rels = clay_matching(scop, loop)
    if not rels:
        raise fail(name, NOT_FOUND, 1)
    k = len(loop)
    for r in rels:
        if len(r.beta) <= k:
            raise fail(name, NOT_A_LOOP, 1)
        st = scop.statement(r.stmt)
        if st.dim < k:
            raise fail(name, f"{NOT_A_LOOP}: {r.stmt} has {st.dim} original iterators; "
                       f"the loop at depth {k} is not one of them (Clay unrolls the "
                       f"statement's k-th original iterator)", 1)
    nb = len(scop.schedule.children(loop))
    ctx = scop.context
    parts: dict[int, list[Relation]] = {}
    for r in rels:
        st = scop.statement(r.stmt)
        dom = st.domain.intersect(r.map.domain())
        # Clay lowers the upper bounds by f (its epilog takes the rest);
        # without an epilog by f - 1, so that no iteration is left over
        lowered = lowered_domain(st.domain, k - 1, factor if epilog else factor - 1)
        main = _multiple(r.map.intersect_domain(lowered), alpha_out(k), factor)
        main_dom = main.domain()
        new = [replace(r, map=main)]
        covered = [main_dom]
        for m in range(1, factor):
            t = _shift_rel(st.domain.get_space(), k - 1, m)
            # the copy runs instances of this relation only (another
            # relation of the statement, after an iss, schedules the rest)
            cm = t.reverse().apply_range(main).intersect_domain(dom)
            beta = loop + (r.beta[k] + nb * m,) + r.beta[k + 1:]
            new.append(replace(r, map=cm).with_beta(beta))
            covered.append(cm.domain())
        union = covered[0]
        for c in covered[1:]:
            if not c.intersect(union).intersect_params(ctx).is_empty():
                raise fail(name, f"the loop's dimension is not {st.iterators[k - 1]} for "
                           f"{r.stmt}: its unrolled copies would overlap", 1)
            union = union.union(c)
        rest = dom.subtract(union).coalesce()
        if epilog:
            e = replace(r, map=r.map.intersect_domain(rest))
            new.append(e.with_beta(loop[:-1] + (loop[-1] + 1,) + r.beta[k:]))
        elif not rest.intersect_params(ctx).is_empty():
            raise fail(name, f"iterations of {r.stmt} are left over ({rest}): the trip "
                       "count is not a multiple of the factor for every parameter value; "
                       "use unroll (with an epilog) or add a context", 2)
        parts[id(r)] = new
    pairs = []
    for r in scop.schedule:
        if id(r) in parts:
            pairs += [(r, n) for n in parts[id(r)]]
            continue
        new = r
        if (epilog and r.beta[:k - 1] == loop[:-1] and len(r.beta) >= k
                and r.beta[k - 1] > loop[-1]):
            b = list(r.beta)
            b[k - 1] += 1
            new = r.with_beta(tuple(b))
        pairs.append((r, new))
    out = rebuild(scop, pairs)
    for st in {r.stmt for r in rels}:
        if not _scheduled_once(out, st, _instances(scop, st)):
            raise fail(name, f"the unrolled relations of {st} would not run each of its "
                       "instances exactly once", 1)
    return out


def _instances(scop: Scop, stmt: str) -> isl.Set:
    """The instances of ``stmt`` that ``scop``'s relations schedule."""
    dom = scop.statement(stmt).domain.intersect_params(scop.context)
    out = isl.Set.empty(dom.get_space())
    for r in scop.schedule.of(stmt):
        out = out.union(r.map.domain().intersect(dom))
    return out


def _scheduled_once(scop: Scop, stmt: str, want: isl.Set) -> bool:
    """Whether ``scop``'s relations of ``stmt`` schedule exactly the
    instances ``want``, each once."""
    dom = scop.statement(stmt).domain.intersect_params(scop.context)
    seen = isl.Set.empty(dom.get_space())
    for r in scop.schedule.of(stmt):
        d = r.map.domain().intersect(dom)
        if not d.intersect(seen).is_empty():
            return False
        seen = seen.union(d)
    return seen.is_equal(want)


@directive("unroll", Beta("loop", loop=True, lookup=False), Int("factor"))
def unroll(scop: Scop, loop, factor: int) -> Scop:
    """Unroll a loop by ``factor`` (Clay's ``unroll``, reference 5.17): the
    loop steps by ``factor`` and holds ``factor`` copies of its body, the
    iterator advanced by 0, 1, …; an epilog loop right after it runs the
    iterations left over.

    Arguments: ``loop`` a loop β-prefix at depth k (the statements' k-th
    original iterator ``it``); ``factor`` > 0 (1: nothing changes).

        for (j = 0; j < N; j++) { P(j); Q(j); }        unroll([0], 2)
        ->  for (j = 0; j < N - 2; j += 2) { P(j); Q(j); P(j + 1); Q(j + 1); }
            for (j = max(0, N - 2); j < N; j++)              (the epilog: the
              if (…) { P(j); Q(j); }                          iterations left)

    Exactly: the main relation is the statement's domain with every upper
    bound of ``it`` lowered by ``factor`` and ``α_k`` a multiple of it;
    copy m runs ``it + m`` at the main instance's date, as child
    ``β_k + m·(number of children)``; the epilog, at ``β_{k-1} + 1``
    (later siblings move one further), runs what is left.  See
    :mod:`clayx.directives.unroll` for how this maps onto Clay's copied
    statements.

    Checks, in Clay's order: ``loop`` not empty; ``factor`` not 0 ("wrong
    factor"; negative too, and above 16); found; every matching β a loop
    over its statements' original iterators.
    Legality: checked against all dependences after the step.
    """
    return _unroll(scop, loop, factor, "unroll", epilog=True)


@directive("unroll_noepilog", Beta("loop", loop=True, lookup=False), Int("factor"))
def unroll_noepilog(scop: Scop, loop, factor: int) -> Scop:
    """Unroll a loop by ``factor`` without an epilog (Clay's
    ``unroll_noepilog``, reference 5.17): as :func:`unroll`, for a loop
    whose trip count is a multiple of ``factor``; the upper bounds of the
    main part are lowered by ``factor - 1`` (Clay's ``factor`` drops the
    last iterations).

        for (j = 0; j < 8; j++) P(j);        unroll_noepilog([0], 2)
        ->  for (j = 0; j <= 6; j += 2) { P(j); P(j + 1); }

    Checks: as ``unroll``; and no iteration may be left over for any
    parameter value of the context (Clay drops them silently: wrong code).
    Legality: checked against all dependences after the step.
    """
    return _unroll(scop, loop, factor, "unroll_noepilog", epilog=False)
