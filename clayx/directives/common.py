"""Helpers shared by the directive modules.

Stable API (other directive modules import these):

- :func:`fail` builds a :class:`~clayx.errors.DirectiveError`; the Clay
  messages are the constants ``NOT_FOUND``, ``NOT_A_LOOP``,
  ``NOT_A_STATEMENT``, ``DEPTH_OVERFLOW`` (those of the argument types,
  :mod:`.params`, which check β and depth arguments), ``WRONG_COEFFICIENT``,
  ``BAD_INEQUALITY``.
- :func:`alpha_out` / :func:`beta_out`: output positions of α_k / β_k in a
  relation map ``[β0, α1, β1, …, αn, βn]``.
- :func:`add_inequality` adds ``u·α + v·i + w·p + C ≥ 0`` to a relation map;
  :func:`clay_inequality` reads Clay's ``{…}`` list form of such a
  constraint with Clay's checks (see its docstring for the forms);
  :func:`clay_matching` the relations a β matches as Clay's do.
- :func:`nonempty`: does a relation schedule any instance of its statement
  (inside the statement's domain and the SCoP's context)?
- :func:`rebuild` makes the new :class:`~clayx.model.Scop` from (old, new)
  relation pairs: marks follow the relations they applied to, and β-vectors
  are normalized.

Queries (``get_beta_loop``) are registered in the one registry like the
directives, with ``kind="query"`` (:mod:`.registry`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Sequence

import islpy as isl

from ..errors import DirectiveError
from ..model import ClaySchedule, Mark, Relation, Scop
from .params import (BAD_INEQUALITY, DEPTH_OVERFLOW, EMPTY, NEED_LOOP, NOT_A_LOOP,  # noqa: F401
                     NOT_A_STATEMENT, NOT_FOUND, WRONG_COEFFICIENT, WRONG_FACTOR)

_dt = isl.dim_type



def fail(directive: str, message: str, argument: int | None = None) -> DirectiveError:
    """A :class:`DirectiveError` for ``directive`` (1-based ``argument``)."""
    return DirectiveError(message, directive=directive, argument=argument)


def alpha_out(k: int) -> int:
    """Output position of α_k (1-based k) in ``[β0, α1, β1, …]``."""
    return 2 * k - 1


def beta_out(k: int) -> int:
    """Output position of β_k (0-based k) in ``[β0, α1, β1, …]``."""
    return 2 * k


# --- affine constraints -------------------------------------------------------

@dataclass(frozen=True)
class Inequality:
    """``Σ alpha[k]·α_{k+1} + Σ iters[k]·i_k + Σ params[k]·p_k + const ≥ 0``;
    ``params`` in the SCoP's parameter order, ``iters`` the statement's
    original iterators (outermost first).  Shorter ``alpha``/``iters`` mean
    zero coefficients for the rest."""

    alpha: tuple[int, ...]
    iters: tuple[int, ...]
    params: tuple[int, ...]
    const: int

    def negated(self) -> "Inequality":
        """The integer complement ``-(…) - 1 ≥ 0``."""
        return Inequality(tuple(-x for x in self.alpha), tuple(-x for x in self.iters),
                          tuple(-x for x in self.params), -self.const - 1)

    def __str__(self) -> str:
        terms = [(c, f"a{k + 1}") for k, c in enumerate(self.alpha)]
        terms += [(c, f"i{k + 1}") for k, c in enumerate(self.iters)]
        terms += [(c, f"p{k + 1}") for k, c in enumerate(self.params)]
        text = " + ".join(f"{c}*{n}" for c, n in terms if c)
        return f"{text or '0'} + {self.const} >= 0"


def add_inequality(m: isl.Map, ineq: Inequality, params: Sequence[str]) -> isl.Map:
    """``m`` (a relation map) intersected with ``ineq``; parameters are
    matched by name (``params`` the SCoP's order; missing ones are added)."""
    space = isl.Space.params_alloc(m.get_ctx(), len(params))
    for k, name in enumerate(params):
        space = space.set_dim_name(_dt.param, k, name)
    m = m.align_params(space)
    c = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(m.get_space()))
    for k, v in enumerate(ineq.alpha):
        if v:
            c = c.set_coefficient_val(_dt.out, alpha_out(k + 1), v)
    for k, v in enumerate(ineq.iters):
        if v:
            c = c.set_coefficient_val(_dt.in_, k, v)
    for name, v in zip(params, ineq.params):
        if v:
            c = c.set_coefficient_val(_dt.param, m.find_dim_by_name(_dt.param, name), v)
    c = c.set_constant_val(ineq.const)
    return m.add_constraint(c)


def clay_matching(scop: Scop, beta: Sequence[int]) -> list[Relation]:
    """The relations Clay's ``beta_check`` matches (reference 4.1): those
    agreeing with ``beta`` on their common prefix (``[]`` matches all, an
    over-long β its statement), in the SCoP's statement order, each
    statement's relations in β order."""
    beta = tuple(beta)
    out = []
    for st in scop.statements:
        for r in scop.schedule.of(st.name):
            m = min(len(beta), len(r.beta))
            if r.beta[:m] == beta[:m]:
                out.append(r)
    return out


def clay_inequality(scop: Scop, beta: Sequence[int], parts: Sequence[Any], *,
                    directive: str, argument: int = 2) -> tuple[list[Relation], Inequality]:
    """Clay's ``iss`` checks and list forms (reference 5.10), in Clay's
    order: the matching relations and the inequality.

    ``parts`` are the list's parts (an integer is a one-value part; ``{}``
    is one empty part): 1 part ``{c}``, 2 ``{P | c}``, 3 ``{I | P | c}``,
    4 ``{A | I | P | c}`` (A: α coefficients, I: the original iterators',
    P: the parameters', c: the constant; missing trailing coefficients are
    0).  Checks: empty β; more than 4 parts; not found; the first relation
    of the first matching statement in no loop; sizes against it (``|A|``
    beyond its α dimensions, ``|I|`` beyond its iterators, ``|P|`` beyond
    the parameters, ``|c| > 1``); every matching relation a loop.  An empty
    constant part (fatal in Clay) and coefficients that another matching
    statement has no dimension for (Clay writes them into other columns)
    are refused with "the inequality seems to be wrong" and why."""
    beta = tuple(beta)
    parts = [(x,) if isinstance(x, int) else tuple(x) for x in parts] or [()]

    def err(msg: str, arg: int = argument) -> DirectiveError:
        return fail(directive, msg, arg)

    if not beta:
        raise err(EMPTY, 1)
    if len(parts) > 4:
        raise err(f"{BAD_INEQUALITY}: {len(parts)} parts, at most 4 "
                  "({c}, {P | c}, {I | P | c} or {A | I | P | c})")
    rels = clay_matching(scop, beta)
    if not rels:
        raise err(NOT_FOUND, 1)
    first = rels[0]
    n_in = scop.statement(first.stmt).dim
    if n_in == 0:
        raise err(NEED_LOOP, 1)
    alpha, iters, par = ((), (), ())
    *coeffs, const = parts
    if len(coeffs) == 3:
        alpha, iters, par = coeffs
    elif len(coeffs) == 2:
        iters, par = coeffs
    elif len(coeffs) == 1:
        (par,) = coeffs
    if len(alpha) > first.depth:
        raise err(f"{BAD_INEQUALITY}: {len(alpha)} α coefficients, {list(first.beta)} is "
                  f"in {first.depth} loops")
    if len(iters) > n_in:
        raise err(f"{BAD_INEQUALITY}: {len(iters)} iterator coefficients, "
                  f"{first.stmt} has {n_in} iterators")
    if len(par) > len(scop.params):
        raise err(f"{BAD_INEQUALITY}: {len(par)} parameter coefficients, the SCoP has "
                  f"{len(scop.params)} parameters")
    if len(const) > 1:
        raise err(f"{BAD_INEQUALITY}: the constant part has {len(const)} values")
    for r in rels:
        if len(r.beta) <= len(beta):
            raise err(NOT_A_LOOP, 1)
    if not const:
        raise err(f"{BAD_INEQUALITY}: the constant part is empty (write 0)")
    for r in rels[1:]:
        st = scop.statement(r.stmt)
        if any(alpha[r.depth:]) or any(iters[st.dim:]):
            raise err(f"{BAD_INEQUALITY}: {r.stmt} at {list(r.beta)} has {r.depth} loops "
                      f"and {st.dim} iterators, fewer than the coefficients given")
    n = len(scop.params)
    return rels, Inequality(tuple(alpha), tuple(iters), tuple(par) + (0,) * (n - len(par)),
                            const[0])


def nonempty(scop: Scop, m: isl.Map, stmt: str) -> bool:
    """True when ``m`` schedules some instance of ``stmt`` (its domain, the
    SCoP's context)."""
    dom = scop.statement(stmt).domain
    return not m.intersect_domain(dom).intersect_params(scop.context).is_empty()


# --- rebuilding a schedule -------------------------------------------------------

def marks_of(schedule: ClaySchedule, rel: Relation) -> list[tuple[str, int, Any]]:
    """The marks that apply to ``rel``: ``(kind, depth, arg)`` for each mark
    on a loop that is a strict prefix of its β-vector."""
    out = []
    for m in schedule.marks:
        d = len(m.loop)
        if 0 < d < len(rel.beta) and rel.beta[:d] == m.loop:
            out.append((m.kind, d, m.arg))
    return out


def rebuild(scop: Scop, pairs: Iterable[tuple[Relation | None, Relation]], *,
            depth_map: Callable[[int, Relation], int | None] | None = None,
            normalize: bool = True) -> Scop:
    """The SCoP with the schedule made of the new relations of ``pairs``.

    Each pair is ``(old, new)`` (several olds may share one new relation
    object, as when collapse merges two): ``new`` gets the marks that applied to
    ``old`` (Clay keeps loop marks per statement), at the same depth or at
    ``depth_map(depth, old)`` (None drops the mark).  Marks on no relation
    are dropped.  β-vectors are normalized unless ``normalize`` is false.
    """
    old_sched = scop.schedule
    rels: list[Relation] = []
    seen: set[int] = set()
    marks: list[Mark] = []
    for old, new in pairs:
        if id(new) not in seen:
            seen.add(id(new))
            rels.append(new)
        if old is None:
            continue
        for kind, d, arg in marks_of(old_sched, old):
            if depth_map is not None:
                d = depth_map(d, old)
                if d is None:
                    continue
            if 0 < d < len(new.beta):
                mk = Mark(kind, new.beta[:d], arg)
                if mk not in marks:
                    marks.append(mk)
    sched = ClaySchedule(tuple(rels), tuple(marks))
    if normalize:
        sched = sched.normalized()
    return replace(scop, schedule=sched)
