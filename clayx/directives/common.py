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
  :func:`parse_inequality` reads Clay's ``{…}`` list form of such a
  constraint (see its docstring for the accepted forms).
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
from .params import DEPTH_OVERFLOW, NOT_A_LOOP, NOT_A_STATEMENT, NOT_FOUND  # noqa: F401

_dt = isl.dim_type

# Clay's messages (clay/errors.h wording) of the checks the directives make.
WRONG_COEFFICIENT = "wrong coefficient"
BAD_INEQUALITY = "the inequality is incorrect"


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


def parse_inequality(scop: Scop, relations: Sequence[Relation], items: Sequence[Any], *,
                     directive: str, argument: int) -> Inequality:
    """Read Clay's list form of an inequality for ``relations``.

    Accepted forms (``P`` = number of SCoP parameters, ``A`` = the smallest
    number of α dimensions among ``relations``, ``I`` = the smallest number
    of original iterators among their statements):

    - flat: ``{u1 | … | uk | w1 | … | wP | C}`` -- every item an integer:
      ``k = len - P - 1`` α coefficients (``0 <= k <= A``), then the
      parameter coefficients, then the constant;
    - ``{[u…] | [w…] | C}``: α coefficients, parameter coefficients, constant;
    - ``{[u…] | [v…] | [w…] | C}``: α coefficients, original-iterator
      coefficients, parameter coefficients, constant.

    α arrays may be shorter than ``A`` (zeros follow), iterator arrays
    shorter than ``I``; the parameter array has exactly ``P`` entries.
    Lengths out of range raise "wrong coefficient"; any other shape "the
    inequality is incorrect".  The meaning is ``u·α + v·i + w·p + C ≥ 0``.
    """
    n_par = len(scop.params)
    max_alpha = min((r.depth for r in relations), default=0)
    max_iter = min((scop.statement(r.stmt).dim for r in relations), default=0)
    items = list(items)

    def bad(msg: str = BAD_INEQUALITY) -> DirectiveError:
        return fail(directive, msg, argument)

    def ints(x: Any) -> tuple[int, ...]:
        if isinstance(x, (list, tuple)):
            return tuple(x)
        raise bad()

    if not items:
        raise bad()
    if all(isinstance(x, int) for x in items):
        k = len(items) - n_par - 1
        if not 0 <= k <= max_alpha:
            raise bad(f"{WRONG_COEFFICIENT}: expected up to {max_alpha} α coefficients, "
                      f"{n_par} parameter coefficients and a constant, got {len(items)} values")
        alpha, iters, par, const = tuple(items[:k]), (), tuple(items[k:-1]), items[-1]
    elif len(items) in (3, 4) and isinstance(items[-1], int):
        parts = [ints(x) for x in items[:-1]]
        const = items[-1]
        if len(items) == 3:
            alpha, par = parts
            iters = ()
        else:
            alpha, iters, par = parts
    else:
        raise bad(f"{BAD_INEQUALITY}: expected {{α… | params… | const}} or "
                  "{[α…] | [iterators…] | [params…] | const}")
    if len(alpha) > max_alpha:
        raise bad(f"{WRONG_COEFFICIENT}: {len(alpha)} α coefficients, the loop has "
                  f"at most {max_alpha} α dimensions for every statement")
    if len(iters) > max_iter:
        raise bad(f"{WRONG_COEFFICIENT}: {len(iters)} iterator coefficients, the "
                  f"statements have at most {max_iter} iterators")
    if len(par) != n_par:
        raise bad(f"{WRONG_COEFFICIENT}: {len(par)} parameter coefficients, the SCoP "
                  f"has {n_par} parameters")
    return Inequality(tuple(alpha), tuple(iters), tuple(par), const)


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
