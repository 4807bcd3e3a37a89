"""Whiteboxing: the Clay directives that turn one schedule into another
(the Chlore algorithm, seed 004 §6), every sequence proven by replay.

::

    from clayx.whitebox import whitebox
    r = whitebox(session, target)     # target: ClaySchedule, Scop, Session,
                                      # a .c/.scop path, isl schedule text
    print(r.text())                   # the script, a comment per step
    r.script                          # a clayx.script.Script

:func:`whitebox` reads both schedules into the symbolic form of
:mod:`.model`, recovers a sequence (:mod:`.recover`), shortens it
(:mod:`.simplify`) and replays it with clayx's own engine, legality
included (:mod:`.replay`): the replayed schedule must give every instance
the target's date.  A sequence that fails replay is never returned: the
error says which step and what went wrong.  A target that breaks a
dependence of the original is refused first, with the legality witness.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import islpy as isl

from ..model import ClaySchedule, Scop
from .model import Divs, Sched, WhiteboxError, equalities, from_relation, to_map
from .recover import recover
from .steps import Step

__all__ = ["WhiteboxError", "WhiteboxResult", "script", "whitebox"]


@dataclass
class WhiteboxResult:
    """A replayed, verified directive sequence.

    - ``script``: the :class:`~clayx.script.Script` (simplified);
    - ``steps``: the same as :class:`~.steps.Step` s (with comments);
    - ``raw``: the sequence before simplification;
    - ``exact``: True when the replayed schedule gives every instance the
      target's date; False when only the execution order is the same
      (``note`` says why);
    - ``timings``: seconds spent (``read``, ``recover``, ``simplify``,
      ``replay``), ``legality_checks``, ``simplification_undone`` when
      the simplified sequence failed its replay and the recovered one was
      replayed instead, and ``careful`` when the first recovery was refused
      or its sequence failed its replay, and it was recovered again with
      every choice checked;
    - ``scop``: the SCoP after the replay.
    """

    script: Any
    steps: list[Step]
    raw: list[Step]
    exact: bool = True
    note: str = ""
    timings: dict = field(default_factory=dict)
    scop: Scop | None = None
    params: tuple = ()
    #: the :class:`clayx.auto.AutoSchedule` whitebox aimed at, when the
    #: target is an automatic schedule (:meth:`clayx.Session.auto_result`)
    auto: Any = None

    def text(self, comments: bool = True) -> str:
        """The script, one directive a line, each with a comment saying what
        it does (unless ``comments`` is false)."""
        lines = []
        for st in self.steps:
            line = st.text(self.params)
            if comments and st.comment:
                line = f"{line:<40s} # {st.comment}"
            lines.append(line)
        return "".join(l + "\n" for l in lines)

    def __len__(self) -> int:
        return len(self.steps)


def symbolic(scop: Scop, schedule: ClaySchedule, divs: Divs, *, tags: bool) -> Sched:
    """The :class:`~.model.Sched` of ``schedule`` over ``scop``'s statements
    (relations tagged 0, 1, … in β order when ``tags``); a relation with no
    instance (an empty index-set split half, which Clay keeps) is read as
    written (:attr:`~.model.Rel.empty`)."""
    rels = []
    for k, r in enumerate(schedule.relations):
        st = scop.statement(r.stmt)
        dom = st.domain.intersect_params(scop.context)
        part = r.map.domain().intersect(dom)
        rels.append(from_relation(r.map, r.beta, st.dim, dom, divs, scop.params,
                                  k if tags else -1, equalities(part, scop.params)))
    marks = [(m.kind, tuple(m.loop), m.arg) for m in schedule.marks]
    return Sched(rels, scop.params, divs, marks)


class Oracle:
    """What the recovery asks isl: is a symbolic schedule legal (its isl
    relations checked by :func:`clayx.analysis.is_legal`; ``calls`` counts
    these), the instances of a part of a statement, the equalities they
    satisfy."""

    def __init__(self, scop: Scop, deps, divs: Divs | None = None):
        self.scop = scop
        self.deps = deps
        self.divs = divs if divs is not None else Divs()
        self.calls = 0

    def part(self, stmt: str, cons) -> "isl.Set":
        """The instances of ``stmt`` where every form of ``cons`` is ≥ 0."""
        import islpy as isl
        from .model import it, par, isl_text
        st = self.scop.statement(stmt)
        dom = st.domain.intersect_params(self.scop.context)
        if not cons:
            return dom
        names = {it(k): n for k, n in enumerate(st.iterators)}
        names.update({par(p): p for p in self.scop.params})
        text = " and ".join(f"{isl_text(c, names, self.divs)} >= 0" for c in cons)
        s = isl.Set(f"[{', '.join(self.scop.params)}] -> {{ {stmt}[{', '.join(st.iterators)}]"
                    f" : {text} }}", context=dom.get_ctx())
        return dom.intersect(s)

    def equal(self, r, a, b, divs) -> bool:
        """Are the forms ``a`` and ``b`` equal on the instances of the
        relation ``r`` (its part)?"""
        import islpy as isl
        from .model import it, par, isl_text
        st = self.scop.statement(r.stmt)
        names = {it(k): n for k, n in enumerate(st.iterators)}
        names.update({par(p): p for p in self.scop.params})
        ctx = self.scop.context.get_ctx()
        head = f"[{', '.join(self.scop.params)}] -> {{ {r.stmt}[{', '.join(st.iterators)}] -> "
        ma = isl.Map(head + f"[{isl_text(a, names, divs)}] }}", context=ctx)
        mb = isl.Map(head + f"[{isl_text(b, names, divs)}] }}", context=ctx)
        part = self.part(r.stmt, r.cons)
        return ma.intersect_domain(part).is_equal(mb.intersect_domain(part))

    def elim(self, stmt: str, cons) -> dict:
        """The equalities of the part ``cons`` of ``stmt`` (see
        :func:`.model.equalities`)."""
        return equalities(self.part(stmt, cons), self.scop.params)

    def schedule(self, sched: Sched) -> ClaySchedule:
        """The :class:`ClaySchedule` of ``sched``."""
        from ..model import Relation
        ctx = self.scop.context.get_ctx()
        rels = []
        for r in sched.rels:
            st = self.scop.statement(r.stmt)
            rels.append(Relation(r.stmt, tuple(r.beta),
                                 to_map(r, st.iterators, self.scop.params, sched.divs, ctx)))
        return ClaySchedule(tuple(rels))

    def unique(self, r, divs) -> bool:
        """Would ``reshape`` accept the symbolic relation ``r`` as it is:
        does it, as written, give no two points the same date
        (:func:`clayx.directives.affine.injective_as_written`, the same
        code, on ``r``'s isl relation: a strip-mined dimension counts as
        what it is, ``i - 2·floor(i / 2)`` does not determine ``i``; an
        empty part counts too)?"""
        from ..directives.affine import injective_as_written
        from ..model import Relation
        st = self.scop.statement(r.stmt)
        m = to_map(r, st.iterators, self.scop.params, divs, self.scop.context.get_ctx())
        return injective_as_written(Relation(r.stmt, tuple(r.beta), m))

    def __call__(self, sched: Sched) -> bool:
        from dataclasses import replace
        from ..analysis import is_legal
        self.calls += 1
        return is_legal(replace(self.scop, schedule=self.schedule(sched)), self.deps)


def whitebox(original, target, *, simplify: bool = True, verify: bool = True,
             deps=None) -> WhiteboxResult:
    """The Clay directives from ``original`` to ``target``, replayed.

    ``original``: a :class:`~clayx.Session` (the sequence starts from its
    current schedule and replays after its steps) or a :class:`Scop` (from
    its schedule).  ``target``: see :func:`.targets.read_target`.

    Raises :class:`~clayx.errors.LegalityError` when the target breaks a
    dependence of the original (with the witness), :class:`WhiteboxError`
    when a part of the target has no Clay expression or the replay fails."""
    from .simplify import simplify as shorten
    from .targets import read_target, start_of
    t0 = time.perf_counter()
    scop, session, deps = start_of(original, deps)
    target_sched = read_target(target, scop)
    _check_legal(scop, target_sched, deps)
    divs = Divs()
    O = symbolic(scop, scop.schedule, divs, tags=False)
    T = symbolic(scop, target_sched, divs, tags=True)
    t1 = time.perf_counter()
    oracle = Oracle(scop, deps, divs)
    careful = False

    def checked(goal: Sched, careful: bool) -> list:
        raw, _ = recover(O, goal, oracle=oracle, careful=careful)
        bad = _refused_reshape(O, raw, oracle)
        if bad is not None:
            raise WhiteboxError(bad)
        return raw

    # the empty parts with the dimensions of their statement's other parts
    # (they give no instance a date; the replay compares with the real
    # target), so that they go along with those parts
    as_read, T = T, _plain_empty_parts(T) or T
    try:
        raw = checked(T, False)
    except WhiteboxError as first:
        # no legal order found for a choice made without checking the ones
        # before it: recover again with every choice checked
        try:
            raw = checked(T, True)
        except WhiteboxError as e:
            # last: the empty parts as read
            if as_read is T:
                raise e from first
            try:
                raw = checked(as_read, True)
            except WhiteboxError:
                raise e from first
            T = as_read
        careful = True
    t2 = time.perf_counter()
    steps = shorten(raw, O, T, oracle) if simplify else list(raw)
    t3 = time.perf_counter()
    result = WhiteboxResult(None, steps, raw, params=tuple(scop.params))
    result.timings = {"read": t1 - t0, "recover": t2 - t1, "simplify": t3 - t2,
                      "legality_checks": oracle.calls}
    if careful:
        result.timings["careful"] = True
    if verify:
        try:
            _replay_or_raw(result, scop, session, target_sched, deps, simplify)
        except WhiteboxError as first:
            # a step of the sequence breaks a dependence on its way (a choice
            # made without checking it): recover again, checking every
            # choice against the dependences, and replay that
            if careful:
                raise
            try:
                raw, _ = recover(O, T, oracle=oracle, careful=True)
            except WhiteboxError as e:
                raise e from first
            result.raw = raw
            result.steps = shorten(raw, O, T, oracle) if simplify else list(raw)
            result.timings["careful"] = True
            result.timings["legality_checks"] = oracle.calls
            # what the first sequence's replay found does not hold for this one
            result.timings.pop("simplification_undone", None)
            _replay_or_raw(result, scop, session, target_sched, deps, simplify)
    else:
        from ..script import Script
        result.script = Script.parse(result.text(comments=False))
    result.timings["replay"] = time.perf_counter() - t3 if verify else 0.0
    return result


def _refused_reshape(O: Sched, steps, oracle) -> str | None:
    """Why ``reshape`` would refuse a ``reshape`` of ``steps`` (applied from
    ``O``), or None: a relation under its β that, as written, no longer
    maps its points to distinct dates (:meth:`Oracle.unique`; a part whose
    domain fixes an iterator is left to the replay: its symbolic form has
    that iterator substituted, unlike the relation Clay checks)."""
    from .steps import Recorder
    rec = Recorder(O.copy())
    for k, st in enumerate(steps, 1):
        rec.do(st.name, *st.args, new_tag=lambda *_: -1)
        if st.name != "reshape":
            continue
        for x in rec.sched.under(st.args[0]):
            if not x.elim and not oracle.unique(x, rec.sched.divs):
                return (f"cannot express the target with Clay's reshape: step {k}, "
                        f"{st.text(rec.sched.params)}, would make the dimensions of the part "
                        f"of {x.stmt} at {list(x.beta)} linearly dependent as written "
                        f"({', '.join(a.text() for a in x.alphas)})")
    return None


def _plain_empty_parts(T: Sched) -> Sched | None:
    """``T`` with every part that has no instance (an empty half of an
    index-set split, which Clay keeps; any dimensions give it the same
    dates) given the dimensions of a part of the same statement with
    instances and as many dimensions, the nearest in β order; None when
    that changes nothing.  ``reshape`` checks the parts as written, empty
    ones too (Clay's rule, :func:`~clayx.directives.affine.injective_as_written`),
    so an empty part whose dimensions the recovery left dependent blocks
    every later ``reshape`` of its loop; given a part's dimensions with
    instances, it goes along with that part (lu fuzz seed 60237), and the
    recovery makes no steps of its own for it (lu 60237: 3 steps, not 8).
    Applied before the recovery (the target as read is tried last)."""
    X = T.copy()
    changed = False
    for r in X.rels:
        peers = [x for x in X.rels if not x.empty and x.stmt == r.stmt and x.depth == r.depth]
        if not r.empty or not peers:
            continue
        near = min(peers, key=lambda x: (-_common(x.beta, r.beta), x.beta))
        if near.alphas != r.alphas:
            r.alphas = list(near.alphas)
            changed = True
    return X if changed else None


def _common(a, b) -> int:
    """The length of the common prefix of two β-vectors."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _replay_or_raw(result: WhiteboxResult, scop: Scop, session, target: ClaySchedule, deps,
                   simplify: bool) -> None:
    """Replay ``result``'s steps; when the simplified sequence fails, the
    recovered one as it was (a simplification changed an intermediate
    schedule into an illegal one)."""
    from .replay import replay
    try:
        replay(result, scop, session, target, deps)
    except WhiteboxError:
        if not simplify or result.steps == list(result.raw):
            raise
        result.steps = list(result.raw)
        result.timings["simplification_undone"] = True
        replay(result, scop, session, target, deps)


def _check_legal(scop: Scop, target: ClaySchedule, deps) -> None:
    from dataclasses import replace
    from ..analysis import check
    check(replace(scop, schedule=target), deps, directive="the target schedule")


def script(original, target, **options):
    """``whitebox(original, target, **options).script``: the recovered,
    replay-verified :class:`~clayx.script.Script` (what ``clayx.whitebox(…)``
    returns)."""
    return whitebox(original, target, **options).script


class _CallableModule(type(time)):
    """``clayx.whitebox`` is this package and, called, :func:`script`."""

    def __call__(self, original, target, **options):
        return script(original, target, **options)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _CallableModule
