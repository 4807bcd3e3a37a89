"""A transformation session: the original SCoP, the applied steps, undo/redo.

::

    s = clayx.load("examples/gemm.c")
    s.apply("interchange([0, 1], 2, 3);")   # all-or-nothing; checked
    s.undo(); s.redo()
    print(s.script)                         # the applied steps, as a Clay script
    print(s.code("c"))

Every step is checked against the exact dependences of the original program
right away; an illegal step raises :class:`~clayx.errors.LegalityError` and
the session is unchanged.  A step prefixed with ``unchecked`` skips the
check (recorded in the script as such, and in the SCoP as its OpenScop
extension ``<clayx_unchecked>``); code generation and OpenScop output of a
session that holds such a step, or whose SCoP was read with that record,
are then refused unless ``unchecked=True`` is passed (``--unchecked``).
``parallelize``/``vectorize`` marks are re-checked after every later step,
so a step that makes a marked loop carry a dependence is refused, and so
is one that puts a loop inside a loop marked ``vectorize`` (it must stay
innermost).  Marks read with an OpenScop SCoP are checked the same way when
the session opens (unless the SCoP carries the unchecked record).

Data-layout steps (:mod:`clayx.directives.layout`: ``dimreorder``,
``dimprivatize``, ``datacopy``, …) change the program rather than its
schedule.  They are checked with the exact equivalence check
(:func:`clayx.analysis.equivalence.check`: the new program, in the current
order, computes the same values as the one before), and consecutive layout
steps of one :meth:`Session.apply` are checked *together*, as one change
(privatizing an array takes one step per access, and the program is only
whole again after the last one).  The steps inside such a group are no
resting points: :meth:`Session.undo`/:meth:`Session.redo` refuse to stop
there.  After a layout group the dependences of the *new* program (in the
order of that point) are in force for the later steps (:attr:`Session.deps`
follows undo/redo).  ``a = add_array("B");`` binds ``a`` to the new id.

Where the dependences come from: :func:`clayx.analysis.dependences` of a
SCoP, the ones of the program it schedules (its
:class:`~clayx.model.Origin`: the front end's statements in their original
order, or after a layout step the new statements in the order of that
point).  The session takes them from the original SCoP and from the SCoP a
layout group leaves, and passes them to every check explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .errors import ClayxError, DirectiveError, LegalityError
from .model import Scop

__all__ = ["CheckGroup", "Entry", "Session", "load"]


@dataclass(frozen=True)
class CheckGroup:
    """Consecutive steps of a script that are applied and checked as one
    change (:meth:`Session.plan`).

    ``steps`` in script order; ``start`` the index of the first one in the
    script; ``check`` how the group is checked:

    - ``dates``: a transformation, alone: its new schedule against every
      dependence, and every parallel/vectorize mark;
    - ``marks``: a mark (parallelize, vectorize, unroll), alone: the marks'
      conditions only (it changes no date);
    - ``equivalence``: consecutive layout steps, with the queries and
      ``print`` steps among and right after them: the program after the
      last step against the one before the first (no resting point inside);
    - ``none``: a query, ``print`` or ``break``, a step written
      ``unchecked``, or an unknown name (applying it reports that), alone.
    """

    steps: tuple
    start: int
    check: str

    @property
    def stop(self) -> int:
        """The index just after the last step of the group in the script."""
        return self.start + len(self.steps)


def _record(step):
    """The registry record of ``step``'s directive, None for an unknown name."""
    from .directives import lookup
    try:
        return lookup(step.call.name)
    except DirectiveError:
        return None


def _located(e: LegalityError, refused: Scop) -> LegalityError:
    """``e`` with the loop where its first violation breaks in the
    ``refused`` schedule (β-prefix and α label) and, when first asked, the
    code that schedule would make around that loop
    (:func:`clayx.view.refusal_loop`, :func:`clayx.view.code_excerpt`)."""
    from .view import code_excerpt, loop_label, refusal_loop
    if not e.violations or e.loop is not None:
        return e
    loop = refusal_loop(refused, e.violations[0])
    if loop is None:
        return e
    return e.located(loop, loop_label(refused, loop), lambda: code_excerpt(refused, loop, target="omp"))


@dataclass(frozen=True)
class Entry:
    """One applied step: the script step, the SCoP after it, the variables
    defined so far, and any text the step printed (``print(x)``)."""

    step: Any
    scop: Scop
    env: dict = field(default_factory=dict, compare=False)
    output: str = ""
    #: the dependences in force from this step on (set after a layout step:
    #: those of the new program), None when unchanged
    deps: Any = field(default=None, compare=False)
    #: inside a group of layout steps checked together (no resting point)
    pending: bool = False


class Session:
    """The original :class:`Scop`, the applied steps with their results, and
    a position for undo/redo."""

    def __init__(self, original: Scop, *, others: tuple[Scop, ...] = ()):
        self.original = original
        self.others = others            # further SCoPs of the same file, untouched
        self._entries: list[Entry] = []
        self._pos = 0
        from .analysis import dependences
        self._deps0 = dependences(original)
        if original.schedule.marks and not self._inherited_unchecked:
            self._check_marks(original, self._deps0,
                              "the marks read with the SCoP (<clayx_marks>) are wrong:",
                              lambda m: f"the mark {m.kind} {list(m.loop)} read with the "
                                        "SCoP (<clayx_marks>)")

    # -- state ----------------------------------------------------------------
    @property
    def current(self) -> Scop:
        """The SCoP after the applied steps."""
        return self._entries[self._pos - 1].scop if self._pos else self.original

    @property
    def deps(self):
        """The dependences in force at the current position: the original
        program's, or after a layout step those of the program it made (in
        the schedule's order at that point)."""
        for e in reversed(self._entries[:self._pos]):
            if e.deps is not None:
                return e.deps
        return self._deps0

    @property
    def entries(self) -> tuple[Entry, ...]:
        """The applied steps (not the undone ones)."""
        return tuple(self._entries[:self._pos])

    @property
    def undone(self) -> tuple[Entry, ...]:
        """The undone steps :meth:`redo` would bring back, the next one
        first (dropped when a new step is applied)."""
        return tuple(self._entries[self._pos:])

    @property
    def env(self) -> dict:
        """The script variables defined by the applied steps."""
        return dict(self._entries[self._pos - 1].env) if self._pos else {}

    @property
    def script(self):
        """The applied steps as a :class:`~clayx.script.Script`."""
        from .script import Script
        return Script(tuple(e.step for e in self.entries))

    @property
    def has_unchecked(self) -> bool:
        """True when an applied step skipped the legality check, or the SCoP
        was read with a record of such steps (``<clayx_unchecked>``)."""
        return (self._inherited_unchecked
                or any(getattr(e.step, "unchecked", False) for e in self.entries))

    @property
    def unchecked_steps(self) -> tuple[str, ...]:
        """The steps that skipped the legality check, as script text: those
        recorded with the SCoP when it was read, then the applied ones."""
        from .frontend.openscop import unchecked_steps
        return unchecked_steps(self.current) or ()

    @property
    def _inherited_unchecked(self) -> bool:
        from .frontend.openscop import unchecked_steps
        return unchecked_steps(self.original) is not None

    @property
    def legal(self) -> bool:
        """True when the current schedule respects every dependence."""
        from .analysis.legality import is_legal
        return is_legal(self.current, self.deps)

    # -- steps ----------------------------------------------------------------
    @staticmethod
    def plan(script, *, path: str | None = None) -> list[CheckGroup]:
        """The steps of ``script`` (a :class:`~clayx.script.Script` or its
        text) in the groups :meth:`apply` checks them in (:class:`CheckGroup`),
        from the registry's kinds: a layout step opens a group that the
        checked layout steps, queries and ``print`` steps right after it
        join; every other step is a group of its own.  The plan ends at
        ``break()``.  Nothing is applied, so a plan does not depend on the
        session's state (an unknown name is a group of its own: applying it
        reports it)."""
        from .script import Script
        if isinstance(script, str):
            script = Script.parse(script, path=path)
        groups: list[CheckGroup] = []
        open_layout = False
        for k, step in enumerate(script.steps):
            d = _record(step)
            if open_layout and d is not None and not d.stops and (
                    d.kind in ("query", "control")
                    or d.check == "equivalence" and not step.unchecked):
                g = groups[-1]
                groups[-1] = CheckGroup(g.steps + (step,), g.start, g.check)
                continue
            check = "none" if d is None or step.unchecked else d.check
            groups.append(CheckGroup((step,), k, check))
            open_layout = check == "equivalence"
            if d is not None and d.stops:
                break
        return groups

    def apply(self, text, *, path: str | None = None) -> list[Entry]:
        """Parse ``text`` (one or more directives; or a
        :class:`~clayx.script.Script`) and apply every step, in the groups
        of :meth:`plan`.

        All-or-nothing: if any step fails (syntax, arguments, legality), the
        session is unchanged and the error is raised.  Returns the new
        entries.  Redo history past the current position is dropped.
        """
        scop, env, deps = self.current, self.env, self.deps
        new: list[Entry] = []
        for group in self.plan(text, path=path):
            first = len(new)
            for step in group.steps:
                entry = self._step(step, scop, env, deps)
                if entry is None:           # break(): the plan ends here
                    break
                if group.check == "equivalence":
                    entry = replace(entry, pending=True)
                elif step.unchecked and _record(step).kind == "layout":
                    from .analysis import dependences
                    entry = replace(entry, deps=dependences(entry.scop))
                if step.unchecked:          # the SCoP keeps the record (OpenScop too)
                    from .frontend.openscop import with_unchecked_step
                    entry = replace(entry, scop=with_unchecked_step(entry.scop, str(step)))
                new.append(entry)
                scop, env = entry.scop, entry.env
                deps = entry.deps if entry.deps is not None else deps
            if group.check == "equivalence":
                new[-1] = self._close_layout(new, first)
                deps = new[-1].deps
        del self._entries[self._pos:]
        self._entries.extend(new)
        self._pos = len(self._entries)
        return new

    def check(self, text: str) -> Scop:
        """Dry run: the SCoP ``text`` would produce; the session is unchanged."""
        saved = (list(self._entries), self._pos)
        try:
            self.apply(text)
            return self.current
        finally:
            self._entries, self._pos = saved

    # -- automatic schedules, whiteboxed -------------------------------------
    def auto(self, preset: str = "cpu", tile: int = 32, *, progress=None, **isl_options):
        """The Clay script that takes the current schedule to isl's automatic
        one (:func:`clayx.auto.schedule`: ``preset`` ``cpu``, ``gpu``,
        ``feautrier``, ``nofuse`` or ``maxfuse``; band chains tiled by
        ``tile``, 0 for none; ``isl_options`` override the preset's isl
        scheduler options), recovered and replayed (legality included) by
        :func:`clayx.whitebox`.  Computes, does not apply: ``s.apply(s.auto())``
        does.

        ::

            for (i…) for (j…) for (k…) S        stripmine([0], 1, 32);
                                      ⇒         tile([0, 0, 0], 3, 2, 32); …
                                                parallelize([0]);

        ``progress(phase, done, total)`` is told of each phase as it starts
        (``"scheduling"``, then :func:`clayx.whitebox.whitebox`'s) and of
        its counts (legality checks, replayed steps).

        Raises :class:`ClayxError` for an unknown preset or option,
        :class:`~clayx.whitebox.WhiteboxError` if a part of the schedule has
        no Clay expression."""
        return self.auto_result(preset, tile, progress=progress, **isl_options).script

    def auto_result(self, preset: str = "cpu", tile: int = 32, *, progress=None,
                    **isl_options):
        """:meth:`auto` with everything it found: a
        :class:`~clayx.whitebox.WhiteboxResult` (the script, its steps with
        comments, timings, the SCoP it reaches, ``auto``: the
        :class:`~clayx.auto.AutoSchedule`)."""
        from .auto import whiteboxed
        if not isinstance(tile, int) or isinstance(tile, bool) or tile < 0:
            raise ClayxError(f"the tile size must be a whole number ≥ 0 (0: no tiling), "
                             f"not {tile!r}")
        target, result = whiteboxed(self, preset, tile, deps=self.deps, progress=progress,
                                    **isl_options)
        result.auto = target
        return result

    def whitebox(self, target, *, progress=None):
        """The :class:`~clayx.whitebox.WhiteboxResult` from the current
        schedule to ``target`` (any form :func:`clayx.whitebox` takes);
        nothing is applied.  ``progress``: see :func:`clayx.whitebox.whitebox`."""
        from .whitebox import whitebox
        return whitebox(self, target, progress=progress)

    def _close_layout(self, new: list[Entry], group: int) -> Entry:
        """Check the layout steps ``new[group:]`` as one change (the program
        before them against the last one's); the last entry, no longer
        pending, with the new program's dependences.  Parallel and vectorize
        marks must hold under them."""
        from .analysis import dependences
        from .analysis.equivalence import check as check_equivalent
        before = new[group - 1].scop if group else self.current
        last = new[-1]
        after = last.scop
        names = [e.step.call.name for e in new[group:] if _record(e.step).kind == "layout"]
        counts = {n: names.count(n) for n in names}
        label = names[0] if len(names) == 1 else "the layout steps " + ", ".join(
            n if c == 1 else f"{n} ×{c}" for n, c in counts.items()) + " (checked together)"
        check_equivalent(before, after, directive=label)
        deps = dependences(after)
        self._check_marks(after, deps, f"{label} is illegal: afterwards",
                          lambda m: f"{label} (it makes the loop marked {m.kind} "
                                    f"at {list(m.loop)} carry a dependence)")
        return replace(last, deps=deps, pending=False)

    def _step(self, step, scop: Scop, env: dict, deps=None) -> Entry | None:
        """One step applied to ``scop`` with the variables ``env`` and
        checked by its directive's strategy (unless ``unchecked``; a layout
        step is checked with its group); None for ``break``."""
        from .directives import lookup
        from .directives.control import show
        call = step.call
        where = dict(line=getattr(call, "line", None), column=getattr(call, "column", None))
        try:
            # Clay reads the arguments (an undefined variable) before it
            # looks the function up (reference 3.3); break() takes none
            args = [self._value(a, scop, env) for a in call.args]
            d = lookup(call.name)
            if d.stops:
                return None
            out = d.run(scop, args)
        except DirectiveError as e:
            if e.line is None and where["line"] is not None:
                e = DirectiveError(e.message, directive=e.directive or call.name,
                                   argument=e.argument, **where)
            raise e from None
        if not step.unchecked and d.check in ("dates", "marks"):
            try:
                self._check(d, out.scop, args, self.deps if deps is None else deps)
            except LegalityError as e:
                raise _located(e, out.scop) from None
        env = dict(env)
        if step.target:
            env[step.target] = out.value
        text = out.output or ("" if out.value is None else show(out.value))
        return Entry(step, out.scop, env, text)

    def _check(self, d, new: Scop, args, deps) -> None:
        from .analysis.legality import check
        if d.check == "dates":
            check(new, deps, directive=d.name)
        # every parallel/vectorize mark must still hold (and the new one)
        self._check_marks(new, deps, f"{d.name} is illegal: afterwards",
                          lambda m: d.name if d.check == "marks" else
                          f"{d.name} (it makes the loop marked {m.kind} "
                          f"at {list(m.loop)} carry a dependence)")

    @staticmethod
    def _check_marks(scop: Scop, deps, blame: str, carried) -> None:
        """Every ``vectorize`` mark of ``scop`` is on an innermost loop
        (``blame`` starts that message) and no loop marked ``parallel`` or
        ``vectorize`` carries a dependence (``carried(mark)`` names the culprit
        in that message); else :class:`LegalityError`."""
        from .analysis.legality import check_parallel
        from .directives.marks import check_innermost
        check_innermost(scop, blame)
        for m in scop.schedule.marks:
            if m.kind in ("parallel", "vectorize"):
                check_parallel(scop, m.loop, len(m.loop), deps, directive=carried(m))

    def _value(self, arg, scop: Scop, env: dict):
        """A script argument as a value: a nested call is evaluated (it must
        be a query), the rest converted by :func:`~clayx.script.to_python`."""
        from .directives import lookup
        from .script import Call, to_python
        if isinstance(arg, Call):
            d = lookup(arg.name)
            if d.kind != "query":
                from .script import NESTED_CALL
                raise DirectiveError(f"{NESTED_CALL} ({arg.name}(...) is not a query: only "
                                     "a query can be called inside an argument)",
                                     line=arg.line, column=arg.column)
            return d(scop, *[self._value(a, scop, env) for a in arg.args])
        return to_python(arg, env)

    def undo(self, n: int = 1) -> None:
        """Undo the last ``n`` steps (``ClayxError`` if fewer exist, or if
        that stops inside a group of layout steps checked together)."""
        if n < 0 or n > self._pos:
            raise ClayxError(f"cannot undo {n} step(s): {self._pos} applied")
        self._rest_at(self._pos - n, "undo", n)
        self._pos -= n

    def redo(self, n: int = 1) -> None:
        """Redo ``n`` undone steps (``ClayxError`` if fewer exist, or if that
        stops inside a group of layout steps checked together)."""
        if n < 0 or self._pos + n > len(self._entries):
            raise ClayxError(f"cannot redo {n} step(s): "
                             f"{len(self._entries) - self._pos} undone")
        self._rest_at(self._pos + n, "redo", n)
        self._pos += n

    def _rest_at(self, pos: int, what: str, n: int) -> None:
        """Refuse a position inside a layout group (its program was never
        checked), naming the nearest step counts that are allowed."""
        if pos == 0 or not self._entries[pos - 1].pending:
            return
        lo = pos
        while lo > 0 and self._entries[lo - 1].pending:
            lo -= 1
        hi = pos
        while hi < len(self._entries) and self._entries[hi - 1].pending:
            hi += 1
        options = sorted({abs(self._pos - lo), abs(self._pos - hi)} - {0})
        raise ClayxError(f"cannot {what} {n} step(s): that stops inside a group of layout "
                         f"steps checked together ({what} "
                         f"{' or '.join(map(str, options))} instead)")

    def reset(self) -> None:
        """Back to the original schedule (redo still possible)."""
        self._pos = 0

    # -- output ---------------------------------------------------------------
    def code(self, target: str = "c", *, unchecked: bool = False) -> str:
        """The whole file with the SCoP regenerated for ``target``: ``c``
        (plain C; ``unroll`` marks as ``#pragma GCC unroll``) or ``omp``
        (plus ``#pragma omp parallel for`` with its ``private`` clause on the
        loops marked parallel, ``#pragma omp simd`` on those marked
        vectorize).  Other SCoPs of the file are regenerated unchanged.

        Refused while an applied step skipped the legality check (or the
        SCoP was read with a record of such steps), unless ``unchecked`` is
        given."""
        self._refuse_unchecked("generate code", unchecked)
        from .codegen import generate_file, generate_region, printer_class
        printer_class(target)           # an unknown target fails before any work
        scops = sorted((self.current, *self.others), key=lambda s: (s.region or (0, 0))[0])
        if self.current.source is None:
            return generate_region(self.current, target=target)
        return generate_file(scops, target=target)

    def openscop(self, *, unchecked: bool = False, clay_script: bool = True) -> str:
        """The current SCoP as OpenScop text, marks in ``<clayx_marks>``.

        Refused like :meth:`code` while the session holds an unchecked step
        (or was opened on a SCoP recorded as unchecked), unless
        ``unchecked`` is given; the text then carries the
        ``<clayx_unchecked>`` record of those steps, so reading it back
        refuses code generation in turn.  ``clay_script=False`` leaves the
        ``<clay>`` extension out (once its script has been applied)."""
        from .frontend.openscop import with_clay_script, write
        self._refuse_unchecked("write OpenScop", unchecked)
        scop = self.current if clay_script else with_clay_script(self.current, None)
        return write(scop)

    def _refuse_unchecked(self, what: str, unchecked: bool) -> None:
        """LegalityError naming the unchecked steps, unless ``unchecked``."""
        if not self.has_unchecked or unchecked:
            return
        steps = " ".join(self.unchecked_steps)
        where = ("the session holds steps" if any(e.step.unchecked for e in self.entries)
                 else "the SCoP was read with a record (<clayx_unchecked>) of steps")
        raise LegalityError(
            f"cannot {what}: {where} applied without the legality check"
            + (f" ({steps})" if steps else "")
            + f"; pass unchecked=True (--unchecked) to {what} anyway")


def load(path: str | Path, *, scop: int = 0) -> Session:
    """Open a C or OpenScop file as a :class:`Session` on its ``scop``-th
    SCoP (0-based)."""
    from .frontend import load as load_scops
    scops = load_scops(path)
    if not 0 <= scop < len(scops):
        raise ClayxError(f"{path} has {len(scops)} SCoP(s); no SCoP {scop}")
    others = tuple(s for k, s in enumerate(scops) if k != scop)
    return Session(scops[scop], others=others)
