"""Proof of a recovered sequence: replay it with clayx's own engine.

:func:`replay` applies the steps one at a time to a fresh
:class:`~clayx.Session` (so every step passes the legality check, as a
typed one would) and compares the schedule reached with the target: every
instance must get the target's date (``exact``), or at least run in the
same order (``exact`` false, with a note).  Anything else is a bug of the
recovery and raises :class:`~.model.WhiteboxError` naming the step.
"""

from __future__ import annotations


import islpy as isl

from ..errors import DirectiveError, LegalityError
from ..model import ClaySchedule, Scop
from .model import WhiteboxError

__all__ = ["dates", "replay", "same_dates", "same_order"]

_dt = isl.dim_type


def dates(scop: Scop, schedule: ClaySchedule, n_out: int | None = None) -> isl.UnionMap:
    """Every instance's date under ``schedule`` (padded with zeros to
    ``n_out`` dimensions, default the schedule's own)."""
    if n_out is None:
        n_out = 2 * schedule.max_depth + 1
    out = isl.UnionMap.empty(scop.context.get_space())
    for r in schedule.relations:
        dom = scop.statement(r.stmt).domain.intersect_params(scop.context)
        out = out.union(isl.UnionMap.from_map(r.padded(n_out).intersect_domain(dom)))
    return out


def same_dates(scop: Scop, a: ClaySchedule, b: ClaySchedule) -> bool:
    """True when ``a`` and ``b`` give every instance the same date."""
    n = 2 * max(a.max_depth, b.max_depth) + 1
    return dates(scop, a, n).is_equal(dates(scop, b, n))


def same_order(scop: Scop, a: ClaySchedule, b: ClaySchedule) -> bool:
    """True when ``a`` and ``b`` run every pair of instances in the same
    order."""
    da, db = dates(scop, a), dates(scop, b)
    return da.lex_lt_union_map(da).is_equal(db.lex_lt_union_map(db))


def replay(result, scop: Scop, session, target: ClaySchedule, deps, progress=None) -> None:
    """Replay ``result``'s steps (see the module docstring); sets
    ``result.script``, ``result.scop``, ``result.exact`` and ``result.note``.
    ``progress(k, n)``, when given, is called after each step (``k`` of
    ``n`` replayed)."""
    from ..script import Script
    from ..session import Session
    text = result.text(comments=False)
    script = Script.parse(text)
    if session is not None:
        s = Session(session.original, others=session.others)
        if len(session.script):
            s.apply(session.script)
    else:
        s = Session(scop)
    for k, (step, st) in enumerate(zip(script.steps, result.steps), 1):
        try:
            s.apply(Script((step,)))
        except (LegalityError, DirectiveError) as e:
            what = "is illegal" if isinstance(e, LegalityError) else "is refused"
            raise WhiteboxError(
                f"bug: step {k} of the recovered sequence, {step}, {what} on replay "
                f"({st.comment or st.name}): {e}") from None
        if progress is not None:
            progress(k, len(script.steps))
    got = s.current.schedule
    result.script = script
    result.scop = s.current
    if same_dates(scop, got, target):
        result.exact = True
    elif same_order(scop, got, target):
        result.exact = False
        result.note = "same execution order, different dates"
    else:
        raise WhiteboxError("bug: the recovered sequence replays to a schedule that "
                            "differs from the target:\n" + str(got) + "\ntarget:\n"
                            + str(target))
    want = {(m.kind, tuple(m.loop), m.arg) for m in target.marks}
    have = {(m.kind, tuple(m.loop), m.arg) for m in got.marks}
    if want != have:
        raise WhiteboxError(f"bug: the replayed marks {sorted(have)} differ from the "
                            f"target's {sorted(want)}")
