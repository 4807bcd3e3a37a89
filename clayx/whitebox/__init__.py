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
from .model import (READINGS, SECOND_READING, Divs, Sched, WhiteboxError, equalities,
                    from_relation, to_map)
from .recover import recover
from .steps import Step

__all__ = ["MAX_EFFORT", "MAX_REDUCTIONS", "Effort", "GaveUp", "SearchGaveUp", "WhiteboxError",
           "WhiteboxResult", "script", "whitebox"]


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
    relations checked by :func:`clayx.analysis.is_legal`), the instances of
    a part of a statement, the equalities they satisfy.

    Every answer is memoized by what it depends on (a schedule by its
    relations' statements, β-vectors, α dimensions, constraints and
    domains, in terms of one div registry): the recovery asks the same
    question many times (each retry of :func:`whitebox` redoes the same
    reductions), and isl's answer cannot change.  ``calls`` counts the
    legality questions asked, ``checks`` those isl answered (the others
    came from the memo); ``effort`` is the :class:`Effort` they count
    against (None: no bound)."""

    def __init__(self, scop: Scop, deps, divs: Divs | None = None, effort=None):
        self.scop = scop
        self.deps = deps
        self.divs = divs if divs is not None else Divs()
        self.calls = 0
        self.checks = 0
        self.effort = effort
        self._legal: dict = {}
        self._maps: dict = {}
        self._parts: dict = {}
        self._equal: dict = {}
        self._elim: dict = {}
        self._unique: dict = {}
        #: objects whose ``id`` is part of a memo key, kept alive so that
        #: no other object gets their ``id``
        self._held: dict = {}
        #: the reductions of :func:`.tiling.reduce` that did nothing to a
        #: target (its memo, see ``_kind_done`` there)
        self.reductions: dict = {}

    def _id(self, obj) -> int:
        """``id(obj)``, ``obj`` kept alive (None: 0)."""
        if obj is None:
            return 0
        self._held.setdefault(id(obj), obj)
        return id(obj)

    def _rel_key(self, r, divs) -> tuple:
        """What the isl relation of the symbolic relation ``r`` depends on."""
        return (r.stmt, tuple(r.beta), tuple(r.alphas), tuple(r.cons), self._id(r.dom),
                self._id(divs))

    def state_key(self, sched: Sched) -> tuple:
        """What a symbolic schedule's text leaves out and the recovery
        reads: each relation's emptiness, domain (an unroll's part),
        eliminated iterators, and the div registry."""
        return (self._id(sched.divs),) + tuple(
            (r.empty, self._id(r.dom), self._id(r.stdom), frozenset(r.elim.items()))
            for r in sched.rels)

    def part(self, stmt: str, cons) -> "isl.Set":
        """The instances of ``stmt`` where every form of ``cons`` is ≥ 0."""
        key = (stmt, tuple(cons))
        got = self._parts.get(key)
        if got is None:
            got = self._parts[key] = self._part(stmt, cons)
        return got

    def _part(self, stmt: str, cons) -> "isl.Set":
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
        if a == b:
            return True
        key = (r.stmt, tuple(r.cons), a, b, self._id(divs))
        got = self._equal.get(key)
        if got is None:
            got = self._equal[key] = self._equal_on(r, a, b, divs)
        return got

    def _equal_on(self, r, a, b, divs) -> bool:
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
        :func:`.model.equalities`; the dict is shared: do not change it)."""
        key = (stmt, tuple(cons))
        got = self._elim.get(key)
        if got is None:
            got = self._elim[key] = equalities(self.part(stmt, cons), self.scop.params)
        return got

    def _map(self, r, divs, ctx) -> "isl.Map":
        key = self._rel_key(r, divs)
        got = self._maps.get(key)
        if got is None:
            st = self.scop.statement(r.stmt)
            got = self._maps[key] = to_map(r, st.iterators, self.scop.params, divs, ctx)
        return got

    def schedule(self, sched: Sched) -> ClaySchedule:
        """The :class:`ClaySchedule` of ``sched``."""
        from ..model import Relation
        ctx = self.scop.context.get_ctx()
        return ClaySchedule(tuple(Relation(r.stmt, tuple(r.beta), self._map(r, sched.divs, ctx))
                                  for r in sched.rels))

    def unique(self, r, divs) -> bool:
        """Would ``reshape`` accept the symbolic relation ``r`` as it is:
        does it, as written, give no two points the same date
        (:func:`clayx.directives.affine.injective_as_written`, the same
        code, on ``r``'s isl relation: a strip-mined dimension counts as
        what it is, ``i - 2·floor(i / 2)`` does not determine ``i``; an
        empty part counts too)?"""
        from ..directives.affine import injective_as_written
        from ..model import Relation
        key = self._rel_key(r, divs)
        got = self._unique.get(key)
        if got is None:
            m = self._map(r, divs, self.scop.context.get_ctx())
            got = self._unique[key] = injective_as_written(Relation(r.stmt, tuple(r.beta), m))
        return got

    def __call__(self, sched: Sched) -> bool:
        from dataclasses import replace
        from ..analysis import is_legal
        self.calls += 1
        key = tuple(self._rel_key(r, sched.divs) for r in sched.rels)
        got = self._legal.get(key)
        if got is None:
            if self.effort is not None:
                self.effort.spend()
            self.checks += 1
            got = self._legal[key] = is_legal(replace(self.scop, schedule=self.schedule(sched)),
                                              self.deps)
        return got


#: The most legality checks isl answers for one :func:`whitebox` call (each
#: a schedule the search had not asked about: memoized answers are free)
#: and the most reductions of the target's tiling it tries
#: (:func:`.tiling.reduce`'s steps, memoized or not): a deterministic bound
#: on the search, whatever the machine's load; a search that needs more
#: gives up with a :class:`SearchGaveUp`.  Measured on fuzz cases
#: (``scripts/fuzz_whitebox.py --slow-ms``, and the slowest cases one by
#: one): a recovered case needs at most 84 checks (bicg 19154) and about
#: 7000 reductions (trmm 58195, over its careful retries, 1 s of CPU):
#: margins of 12 and 2.3; the refusals left over 98 seeds need at most
#: 4879 (seidel-2d 104006; gemm 69150, 9278 when it was refused, is
#: recovered in ~1400), so no case reaches either bound.
MAX_EFFORT = 1000
MAX_REDUCTIONS = 16000


class GaveUp(Exception):
    """Raised inside a whitebox search when its :class:`Effort` is spent
    (not a :class:`WhiteboxError`, so that no fallback of the search catches
    it: :func:`whitebox` turns it into :class:`SearchGaveUp`); ``what`` was
    counted past its bound."""

    def __init__(self, effort: "Effort", what: str):
        super().__init__(f"the effort bound ({effort.limits[what]} {what}s) is spent")
        self.effort = effort
        self.what = what


class SearchGaveUp(WhiteboxError):
    """A whitebox search that spent its effort bound (:data:`MAX_EFFORT`
    legality checks or :data:`MAX_REDUCTIONS` reductions): ``phase`` it gave
    up in, ``effort`` the :class:`Effort`."""

    def __init__(self, message: str, phase: str, effort: "Effort"):
        super().__init__(message)
        self.phase = phase
        self.effort = effort


class Effort:
    """The effort of one whitebox search, counted, never timed (a result
    must not depend on the machine): the legality checks isl answers
    (:meth:`Oracle.__call__`; ``spent``) and the reductions tried
    (``counts["reduction"]``), each bounded by ``limits`` (None: no bound):
    :meth:`spend` raises :class:`GaveUp` past a bound.
    ``progress(phase, spent, limit)`` is told of every check.  ``reason``:
    the first reason the search of the current phase met for falling back
    to another way (:meth:`note`), which a give-up reports."""

    def __init__(self, checks: int | None = None, reductions: int | None = None,
                 progress=None):
        self.limits = {"check": checks, "reduction": reductions}
        self.spent = 0
        self.phase = "recovering"
        self.progress = progress
        self.reason: str | None = None
        self.counts: dict[str, int] = {}

    @property
    def limit(self) -> int | None:
        """The bound of the legality checks."""
        return self.limits["check"]

    def note(self, error: Exception) -> None:
        """Keep ``error``'s first line as the reason, unless one is kept."""
        if self.reason is None:
            self.reason = str(error).splitlines()[0]

    def spend(self, what: str = "check") -> None:
        """Count one ``what`` (a legality ``check``, a ``reduction``
        tried); :class:`GaveUp` when its bound is reached."""
        n = self.counts.get(what, 0)
        bound = self.limits.get(what)
        if bound is not None and n >= bound:
            raise GaveUp(self, what)
        self.counts[what] = n + 1
        if what == "check":
            self.spent += 1
            if self.progress is not None:
                self.progress(self.phase, self.spent, self.limit)


class _Phases:
    """The phases of a :func:`whitebox` call, timed in order, each announced
    to ``progress(phase, done, total)`` as it starts."""

    def __init__(self, progress=None):
        self.progress = progress
        self.times: list[tuple[str, float]] = []
        self.name: str | None = None
        self.t = time.perf_counter()

    def start(self, name: str, total: int | None = None) -> None:
        """End the current phase, start ``name``."""
        self.end()
        self.name = name
        self.t = time.perf_counter()
        if self.progress is not None:
            self.progress(name, 0, total)

    def end(self) -> None:
        """End the current phase (its time recorded)."""
        if self.name is not None:
            self.times.append((self.name, time.perf_counter() - self.t))
            self.name = None

    def total(self, *prefixes: str) -> float:
        """The seconds spent in the phases whose names start with one of
        ``prefixes``."""
        return sum(t for n, t in self.times if n.startswith(prefixes))


def whitebox(original, target, *, simplify: bool = True, verify: bool = True,
             deps=None, progress=None, effort: int | None = None,
             reductions: int | None = None) -> WhiteboxResult:
    """The Clay directives from ``original`` to ``target``, replayed.

    ``original``: a :class:`~clayx.Session` (the sequence starts from its
    current schedule and replays after its steps) or a :class:`Scop` (from
    its schedule).  ``target``: see :func:`.targets.read_target`.

    ``progress(phase, done, total)``, when given, is called as each phase
    starts (``"reading"``, ``"recovering"``, ``"careful retry 1"``, …,
    ``"simplifying"``, ``"second reading"`` (where the first noted that the
    second would differ, :data:`~.model.SECOND_READING`: the shorter
    sequence is kept), ``"replaying"``; ``done`` 0) and as it goes on: in
    the recovery phases after each legality check (``done`` checks of the
    ``total`` the search may spend), in ``"replaying"`` after each step
    (``done`` of ``total`` steps).

    ``effort``, ``reductions``: the most legality checks and reductions
    the search may spend (default :data:`MAX_EFFORT`,
    :data:`MAX_REDUCTIONS`); a search that needs more gives up
    (:class:`SearchGaveUp`).

    Raises :class:`~clayx.errors.LegalityError` when the target breaks a
    dependence of the original (with the witness), :class:`WhiteboxError`
    when a part of the target has no Clay expression, the search gave up
    or the replay fails (the error's ``timings`` say where the time went)."""
    phases = _Phases(progress)
    bound = Effort(MAX_EFFORT if effort is None else effort,
                   MAX_REDUCTIONS if reductions is None else reductions, progress)
    try:
        return _whitebox(original, target, simplify, verify, deps, phases, bound)
    except WhiteboxError as e:
        phases.end()
        e.timings = {"phases": list(phases.times), "effort": bound.spent,
                     "reduction": bound.counts.get("reduction", 0)}
        raise


def _whitebox(original, target, simplify: bool, verify: bool, deps, phases: _Phases,
              bound: Effort) -> WhiteboxResult:
    """:func:`whitebox`, its phases timed in ``phases``, its search bounded
    by ``bound``."""
    from .simplify import simplify as shorten
    from .targets import read_target, start_of
    phases.start("reading")
    scop, session, deps = start_of(original, deps)
    target_sched = read_target(target, scop)
    _check_legal(scop, target_sched, deps)
    divs = Divs()
    O = symbolic(scop, scop.schedule, divs, tags=False)
    T = symbolic(scop, target_sched, divs, tags=True)
    oracle = Oracle(scop, deps, divs, bound)
    careful = False
    retries = 0
    first: WhiteboxError | None = None

    def searched(phase: str, goal: Sched, careful: bool, free_empties: bool = False) -> list:
        """The steps recovered for ``goal`` (in ``phase``), the reshapes
        checked; a spent effort bound ends the whole search."""
        phases.start(phase)
        bound.phase = phase
        bound.reason = None
        try:
            raw, _ = recover(O, goal, oracle=oracle, careful=careful,
                             free_empties=free_empties)
        except GaveUp as g:
            raise SearchGaveUp(_gave_up(g, phase, first), phase, bound) from None
        bad = _refused_reshape(O, raw, oracle)
        if bad is not None:
            raise WhiteboxError(bad)
        return raw

    def retry(goal: Sched, free_empties: bool = False) -> list:
        nonlocal retries
        retries += 1
        return searched(f"careful retry {retries}", goal, True, free_empties)

    def shortened(raw: list) -> list:
        phases.start("simplifying")
        oracle.effort = None            # simplification is bounded by its own rules
        try:
            return shorten(raw, O, T, oracle) if simplify else list(raw)
        finally:
            oracle.effort = bound

    def second_reading(goal: Sched, careful: bool, free: bool) -> tuple[list, list] | None:
        """The steps recovered (and shortened) with the second reading
        (:data:`~.model.SECOND_READING`), or None when that fails; its
        effort is not counted against the search's bound (at most one more
        search's worth)."""
        saved = (bound.spent, dict(bound.counts), bound.reason)
        token = SECOND_READING.set(True)
        try:
            raw2 = searched("second reading", goal, careful, free)
            return raw2, shortened(raw2)
        except WhiteboxError:
            return None
        finally:
            SECOND_READING.reset(token)
            bound.spent, bound.counts, bound.reason = saved

    # the empty parts with the dimensions of their statement's other parts
    # (they give no instance a date; the replay compares with the real
    # target), so that they go along with those parts
    as_read, T = T, _plain_empty_parts(T) or T
    # (noting where the second reading would take another way)
    readings: list = []
    free_used = False
    token = READINGS.set(readings)
    try:
        try:
            raw = searched("recovering", T, False)
        except SearchGaveUp:
            raise
        except WhiteboxError as e:
            # no legal order found for a choice made without checking the ones
            # before it: recover again with every choice checked
            first = e
            try:
                raw = retry(T)
            except SearchGaveUp:
                raise
            except WhiteboxError as e2:
                # then: the empty parts as read; last: the empty parts free
                # (no reduction step of their own: steps that give no instance
                # a date may leave them dimensions a later reshape makes
                # dependent, _groups)
                tries = ([(as_read, False)] if as_read is not T else []) \
                    + ([(T, True)] if _has_empty_part(T) else [])
                for goal, free in tries:
                    try:
                        raw = retry(goal, free)
                    except SearchGaveUp:
                        raise
                    except WhiteboxError:
                        continue
                    T, free_used = goal, free
                    break
                else:
                    raise e2 from first
            careful = True
    finally:
        READINGS.reset(token)
    steps = shortened(raw)
    result = WhiteboxResult(None, steps, raw, params=tuple(scop.params))
    if careful:
        result.timings["careful"] = True
    # where the first reading took another way than the second would (the
    # order of a statement's index-set splits and their loops, the rests of a
    # grain), the
    # second's sequence too: kept when it is shorter (and, verified, replays
    # exactly as it is)
    other = second_reading(T, careful, free_used) if readings and simplify else None
    replayed = False
    if other is not None and len(other[1]) < len(steps):
        trial = WhiteboxResult(None, other[1], other[0], params=tuple(scop.params))
        if careful:
            trial.timings["careful"] = True
        try:
            if verify:
                _replay_or_raw(trial, scop, session, target_sched, deps, False, phases)
            if trial.exact or not verify:
                result, replayed = trial, verify
        except WhiteboxError:
            pass
    if verify and not replayed:
        try:
            _replay_or_raw(result, scop, session, target_sched, deps, simplify, phases)
        except WhiteboxError as e:
            # a step of the sequence breaks a dependence on its way (a choice
            # made without checking it): recover again, checking every
            # choice against the dependences, and replay that
            if careful:
                raise
            first = e
            try:
                raw = retry(T)
            except WhiteboxError as e2:
                raise e2 from e
            result.raw = raw
            result.steps = shortened(raw)
            result.timings["careful"] = True
            # what the first sequence's replay found does not hold for this one
            result.timings.pop("simplification_undone", None)
            _replay_or_raw(result, scop, session, target_sched, deps, simplify, phases)
    else:
        from ..script import Script
        result.script = Script.parse(result.text(comments=False))
    phases.end()
    result.timings.update({
        "read": phases.total("reading"),
        "recover": phases.total("recovering", "careful retry", "second reading"),
        "simplify": phases.total("simplifying"),
        "replay": phases.total("replaying"),
        "phases": list(phases.times),
        "legality_checks": oracle.calls,
        "isl_checks": oracle.checks,
        "effort": bound.spent,
        "reduction": bound.counts.get("reduction", 0)})
    return result


def _gave_up(g: GaveUp, phase: str, first: WhiteboxError | None) -> str:
    """The message of a search that spent its effort bound in ``phase``:
    the reason noted in that phase, else the error of the phase before."""
    reason = g.effort.reason or (str(first).splitlines()[0] if first is not None else None)
    bound = (f"{g.effort.limits['check']} legality checks (clayx.whitebox.MAX_EFFORT)"
             if g.what == "check" else
             f"{g.effort.limits['reduction']} reductions of the target's tiling tried "
             "(clayx.whitebox.MAX_REDUCTIONS)")
    kind = phase.rstrip("0123456789 ")
    return (f"whitebox gave up: the search spent its bound of {bound} in its phase "
            f"{phase!r}" + (f" ({_PHASES[kind]})" if kind in _PHASES else "")
            + (f"; the first reason it could not recover the target: {reason}"
               if reason else "; no reason to refuse the target was found before"))


#: What each recovery phase of :func:`whitebox` is (for :func:`_gave_up`).
_PHASES = {"recovering": "the recovery of the target's directives",
           "careful retry": "the recovery again with every choice checked against the "
                            "dependences"}


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


def _has_empty_part(T: Sched) -> bool:
    """Does ``T`` have an empty part (no instance), so that the last try,
    ``recover(…, free_empties=True)``, can differ?  Not only a loop of
    empty parts: a step on an empty part alone (an ``interchange`` or
    ``reshape`` of its statement, which a reduction may make to give it the
    dimensions it has as read) gives no instance a date either, and can
    leave it dimensions a later ``reshape`` of a loop it shares makes
    dependent (jacobi-1d fuzz seed 101203: a peeled empty half unembedded,
    its chunk loop shared)."""
    return any(x.empty for x in T.rels)


def _common(a, b) -> int:
    """The length of the common prefix of two β-vectors."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _replay_or_raw(result: WhiteboxResult, scop: Scop, session, target: ClaySchedule, deps,
                   simplify: bool, phases: _Phases | None = None) -> None:
    """Replay ``result``'s steps; when the simplified sequence fails, the
    recovered one as it was (a simplification changed an intermediate
    schedule into an illegal one).  When the simplified sequence replays
    only to the same order (not the target's dates), the recovered one is
    replayed too and kept if it gives the dates: exact wins over short.
    ``phases``: the ``"replaying"`` phase starts, its progress told after
    each step."""
    from .replay import replay

    def again() -> None:
        told = None
        if phases is not None:
            phases.start("replaying", len(result.steps))
            if phases.progress is not None:
                told = lambda k, n: phases.progress("replaying", k, n)  # noqa: E731
        replay(result, scop, session, target, deps, progress=told)

    try:
        again()
    except WhiteboxError:
        if not simplify or result.steps == list(result.raw):
            raise
        result.steps = list(result.raw)
        result.timings["simplification_undone"] = True
        again()
        return
    if result.exact or not simplify or result.steps == list(result.raw):
        return
    short = (result.steps, result.script, result.scop, result.note)
    result.steps, result.note = list(result.raw), ""
    try:
        again()
    except WhiteboxError:
        result.exact = False
    if result.exact:
        result.timings["simplification_undone"] = True
    else:
        result.steps, result.script, result.scop, result.note = short


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
