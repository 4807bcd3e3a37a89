"""The tuner: compile, verify and time candidate schedules, keep the fastest.

:func:`tune` searches schedules of a session's SCoP by *measuring* them.
Every candidate is a Clay script (the empty script is the original
schedule), applied to a fresh session with every step legality-checked,
regenerated as C with OpenMP pragmas, compiled (``$CC``/``$CFLAGS``, as
:mod:`clayx.run`), run, verified against the original program's output
and timed (the SCoP regions only, median of ``repeat`` runs).  The original
program is always measured first.

**Never lose.**  After the search, the fastest verified candidate is timed
again against the original, interleaved (original, candidate, original, …;
:data:`CONFIRM_PAIRS` pairs at least), and replaces the original only when
the median of the pairwise ratios is at least ``1 +`` :data:`NOISE` (5 %)
*and* it is faster than the original in every pair but one at most
(:func:`confirm`); otherwise the next fastest is tried the same way
(:data:`CONFIRM_TRIES` in all), and when none is kept the winner is the
original program itself, at 1.00x: a gain that a second measurement does
not reproduce is noise, and a tuned program is never slower than the
original beyond it.

The search is staged, each stage around the best candidate so far, and
stops when the ``budget`` (seconds, wall clock) is spent:

1. the likely winners: the original loops distributed then permuted so
   the innermost loop of every nest walks the arrays with stride 1
   (:meth:`_Space.distribute`, :func:`best_orders`), sequential, then
   with the SCoP's outermost loops parallel; the original loops with their
   outermost parallel loops marked (``schedule(static)``); what
   ``--auto`` gives (:data:`AUTO`); distributed with a temporary
   privatized so an outer loop runs in parallel (:meth:`_Space.privatize`,
   doitgen's ``sum``); permuted only; privatized only;
   isl's ``nofuse`` preset untiled and the ``cpu`` preset with tiles of
   32, the point loops of every tiled band (the loops of every permutable
   band, untiled) ordered for stride 1 (:func:`point_order`, seed 002's
   spatial locality);
2. the other presets (tiles of 32, 64 and untiled, the same ordering),
   and the original loops with only the SCoP's outermost loops parallel;
3. the presets with isl's own loop order;
4. the other tile sizes (8–128) and no tiling, around the best so far;
5. the other intra-tile loop orders (each point loop innermost in turn);
6. outer parallel loop instead of the tile wavefront (when there is one);
7. ``vectorize`` and ``unroll`` marks on the innermost loops.

Candidates are prepared (script, replay, code) in this process; they are
compiled ``jobs`` at a time, then timed one after the other (timing in
parallel on a small machine measures the machine, not the code).
``timer`` and ``clock`` are injectable for tests.

The programs run in the caller's environment.  On a machine busy with
other work, set ``OMP_WAIT_POLICY=passive``: spinning OpenMP threads then
wait for cores taken by others, and every parallel candidate looks slow
(measured on 2 cores under a load of 4: atax's parallel original 0.3–0.6 s
spinning, 0.095 s sleeping; ``scripts/bench_codegen.py`` sets it).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence
import islpy as isl

from .auto.post import stride_counts
from .errors import ClayxError, VerifyError
from .model import dead_arrays, identifiers
from .run import (STOPS_ENV, default_compiler, default_flags, has_main, instrument,
                  program_text, region_seconds, region_stops)
from .verify import run_timed, compare_outputs, compile_c

_dt = isl.dim_type

__all__ = ["AUTO", "Candidate", "Confirmation", "Trial", "TuneResult", "DEFAULT_BUDGET", "NOISE",
           "best_orders", "candidate_script", "confirm", "point_order", "progress_bar",
           "region_timer", "tune"]

#: Default budget (seconds): an interactive wait.
DEFAULT_BUDGET = 60.0

#: Relative margin a candidate must beat the original by to replace it
#: (the median of its interleaved time ratios; see :func:`confirm`).
NOISE = 0.05

#: Interleaved pairs (original, candidate) of the final confirmation.
CONFIRM_PAIRS = 5

#: Candidates confirmed at most, fastest first, until one is kept.
CONFIRM_TRIES = 2

#: Tile sizes tried after the default (32), in this order; 0: no tiling.
TILE_SIZES = (16, 64, 128, 8, 0)

#: The "preset" of the original schedule with parallel marks (no isl
#: scheduling): its outermost loops that carry no dependence run in parallel.
ORIGINAL = "original"

#: ``Candidate.order`` of the interchange-only candidate (original schedule).
PERMUTE = (-2,)

#: ``Candidate.order`` of the candidate that distributes the loops, then
#: permutes them (:meth:`_Space.distribute`).
DISTRIBUTE = (-3,)

#: Presets tried, in this order.
PRESETS = ("cpu", "nofuse", "maxfuse", "gpu", "feautrier")

#: A candidate whose run takes this many times the best median so far is
#: not run again (it cannot win; the budget goes to other candidates); nor
#: is one whose first two runs are both slower than the best median.
SLOW = 1.2

#: A run of a candidate is stopped after this many times the original
#: program's whole run (at least 2 s): it cannot win, and the budget is
#: better spent on other candidates.
KILL = 3.0

#: Privatizations tried at most (each one's check recomputes the
#: dependences of the new program: about 0.2 s on deriche).
MAX_PRIVATE = 4

#: Marks tried on the innermost loops of the best candidate.
MARKS = ("vectorize", "unroll4", "vectorize+unroll4")

#: A timer: runs one executable once, returns (output, region seconds).
Timer = Callable[[Path, "Candidate"], "tuple[str, float]"]


@dataclass(frozen=True)
class Candidate:
    """One point of the search: ``preset`` of :mod:`clayx.auto` (None for
    the original schedule), ``tile`` size, tile ``wavefront`` on or off,
    ``order``: per tiled band (in the order of ``AutoSchedule.tiled``) the
    0-based index of the point loop put innermost (None: the stride-1
    heuristic, -1: isl's order), ``marks`` on the innermost loops.

    With the preset :data:`ORIGINAL` (the original loops, parallel marks):
    ``tile`` 0; ``order`` ``(-2,)`` for the interchange-only candidate
    (:func:`best_orders`), ``(-3,)`` for the distributed and permuted one
    (:meth:`_Space.distribute`); ``wavefront`` False to mark only the
    SCoP's outermost loops, ``parallel`` False for no parallel mark at all
    (sequential code: a permutation's gain in locality does not depend on
    the cores free); ``private`` ``(array, depth)`` privatizes a temporary
    (:meth:`_Space.privatize`) so that the loop at that depth runs in
    parallel."""

    preset: str | None = None
    tile: int = 32
    wavefront: bool = True
    order: tuple | None = None
    marks: str = ""
    private: tuple = ()
    parallel: bool = True

    @property
    def label(self) -> str:
        """A short name: ``original`` or ``cpu t32 inner(1,2) vectorize``."""
        if self.preset is None:
            return "original"
        parts = [self.preset, f"t{self.tile}" if self.tile else "untiled"]
        if self.preset == ORIGINAL:
            parts = ["original", "parallel"] if self.parallel else ["original"]
            if self.private:
                parts.append(f"private({self.private[0]}, {self.private[1]})")
            if self.order == PERMUTE:
                parts.insert(1, "permuted")
            if self.order == DISTRIBUTE:
                parts.insert(1, "distributed permuted")
            if not self.wavefront:
                parts.append("top")
            if self.marks:
                parts.append(self.marks)
            return " ".join(parts)
        if self.order is not None:
            parts.append("isl-order" if all(o == -1 for o in self.order) else
                         "inner(" + ",".join(str(o) for o in self.order) + ")")
        if not self.wavefront:
            parts.append("no-wavefront")
        if self.marks:
            parts.append(self.marks)
        return " ".join(parts)


#: What ``clayx FILE.c --auto`` gives (the ``cpu`` preset, tiles of 32,
#: isl's loop order, parallel marks): always among the first candidates.
AUTO = Candidate("cpu", 32, order=(-1,) * 8)


@dataclass
class Trial:
    """A measured (or refused) candidate: its ``script`` (Clay text), the
    region ``times`` of its runs, ``verified`` when every run printed the
    original's output, ``error`` why it was excluded (script refused, code
    not generated, compile or run failure, other output)."""

    candidate: Candidate
    script: str = ""
    times: tuple = ()
    verified: bool = False
    error: str = ""
    code: str = field(default="", repr=False)
    exe: Path | None = field(default=None, repr=False)

    @property
    def median(self) -> float:
        """Median region time (inf when not measured)."""
        return statistics.median(self.times) if self.times else float("inf")


@dataclass(frozen=True)
class Confirmation:
    """The final measurement of one candidate against the original:
    ``original`` and ``candidate`` region times of interleaved runs (A B A
    B …), the median of the pairwise ratios (``ratio``, original over
    candidate) and whether the candidate was ``kept`` (:func:`confirm`)."""

    label: str
    original: tuple
    candidate: tuple
    ratio: float
    kept: bool

    def line(self) -> str:
        """One line for the table: the verdict and its numbers."""
        ms = 1e3
        verdict = "kept" if self.kept else "not kept (within noise)"
        wins = sum(y < x for x, y in zip(self.original, self.candidate))
        return (f"confirmation of {self.label}: {len(self.candidate)} interleaved pair(s), "
                f"median ratio {self.ratio:.2f}x, faster in {wins} of them "
                f"(median {statistics.median(self.candidate) * ms:.1f} ms against "
                f"{statistics.median(self.original) * ms:.1f} ms): {verdict}")


def confirm(time_one: "Timer", orig: "Trial", exe0: Path, trial: "Trial", *,
            pairs: int = CONFIRM_PAIRS, margin: float = NOISE) -> Confirmation:
    """Time ``trial`` against the original, interleaved (A B A B …,
    ``pairs`` pairs), and decide whether it replaces the original.

    The rule (never lose beyond noise): the candidate is kept only when
    both hold --

    - the median of the pairwise ratios original/candidate is at least
      ``1 + margin`` (5 %: the spread of the same program run twice on a
      busy machine is of that order, and a smaller gain is not worth a
      change nobody can measure);
    - it is faster than the original in every pair but one at most: a gain
      that two pairs of five do not show is noise, not speed.  One pair is
      forgiven: on a shared machine one run in five often takes half as
      long again as the others (measured here: the same program against
      itself from 0.45x to 1.5x under a load of 4 on 2 cores), and a
      single spike must not veto a gain every other pair shows (a 2.9x
      gain of a privatized doitgen was once lost so).

    The pairs stop as soon as the rule cannot hold any more (more than
    half of them below ``1 + margin``, or two lost).  A run that fails
    (timeout, crash) keeps the original."""
    a, b = [], []
    try:
        for _ in range(pairs):
            a.append(time_one(exe0, orig.candidate)[1])
            b.append(time_one(trial.exe, trial.candidate)[1])
            if sum(x < (1 + margin) * y for x, y in zip(a, b)) > pairs // 2 or \
                    sum(y >= x for x, y in zip(a, b)) > 1:
                break                   # the rule cannot hold any more
    except VerifyError:
        inf = (float("inf"),)
        return Confirmation(trial.candidate.label, tuple(a) or inf, tuple(b) or inf, 0.0, False)
    ratio = statistics.median(x / max(y, 1e-12) for x, y in zip(a, b))
    lost = sum(y >= x for x, y in zip(a, b))
    kept = len(b) == pairs and ratio >= 1 + margin and lost <= 1
    return Confirmation(trial.candidate.label, tuple(a), tuple(b), ratio, kept)


@dataclass
class TuneResult:
    """What :func:`tune` found: every ``trials`` entry (the original first),
    the ``best`` (the original when nothing beat it), the ``confirmed``
    speedup of the best from the final interleaved measurement (1.0 when
    the original won: it is the same program), the ``elapsed`` seconds, the
    ``threads`` used for timing, the ``confirmations`` made
    (:func:`confirm`) and where the search started (``start``:
    ``original``, or ``current`` for a session's current state, whose code
    is then the program to beat, labelled ``current`` in the table)."""

    trials: list
    best: Trial
    confirmed: float
    elapsed: float
    threads: int | None = None
    confirmations: list = field(default_factory=list)
    start: str = "original"

    @property
    def original(self) -> Trial:
        """The original program's trial."""
        return self.trials[0]

    def speedup(self, trial: Trial) -> float:
        """Original median over ``trial``'s median."""
        t = trial.median
        return 0.0 if t == float("inf") else (float("inf") if t <= 0 else
                                              self.original.median / t)

    def table(self) -> str:
        """The candidates tried: label, directives, median time, speedup,
        verified (or why excluded); the winner marked ``*``."""
        rows = [f"{'':1s} {'candidate':44s} {'steps':>5s} {'median ms':>10s} "
                f"{'speedup':>8s}  verified"]
        for t in self.trials:
            steps = sum(1 for ln in t.script.splitlines()
                        if ln.strip() and not ln.lstrip().startswith("#"))
            star = "*" if t is self.best else " "
            ms = f"{t.median * 1e3:10.3f}" if t.times else f"{'-':>10s}"
            sp = f"{self.speedup(t):7.2f}x" if t.times else f"{'-':>8s}"
            ver = "yes" if t.verified else ("no: " + t.error.splitlines()[0][:70]
                                           if t.error else "no")
            label = self.start if t is self.original else t.candidate.label
            rows.append(f"{star} {label:44s} {steps:5d} {ms} {sp}  {ver}")
        threads = f", {self.threads} thread(s)" if self.threads else ""
        rows += [c.line() for c in self.confirmations]
        if self.best is self.original:
            what = "original" if self.start == "original" else "current state"
            rows.append(f"the {what} wins: no candidate beat it by more than the noise "
                        f"({NOISE:.0%}, in all pairs but one), so the tuned program is the {what} "
                        "itself (1.00x)")
        winner = self.start if self.best is self.original else self.best.candidate.label
        rows.append(f"winner: {winner} ({self.confirmed:.2f}x confirmed; "
                    f"{len(self.trials)} candidates in {self.elapsed:.0f} s{threads})")
        return "\n".join(rows)


# ---------------------------------------------------------------------------
# Candidates
# ---------------------------------------------------------------------------

def point_order(scop, prefix, n: int, first: int) -> int:
    """The index (0-based, among the ``n`` point loops of the permutable
    band at β-prefix ``prefix``, the first at α depth ``first``) of the
    point loop to put innermost: the one under which the fewest accesses
    jump (stride other than 0 or 1), then the one with the most stride-1
    accesses; ties keep isl's innermost loop."""
    rels = [rel for rel in scop.schedule.relations_under(prefix) if rel.depth >= first + n - 1]
    best, key = n - 1, None
    for i, (jumps, ones) in enumerate(stride_counts(scop, rels, range(first, first + n))):
        k = (jumps, -ones, 0 if i == n - 1 else 1)
        if key is None or k < key:
            best, key = i, k
    return best


def _iterator_at(rel, depth: int) -> bool:
    """True when the loop at ``depth`` (1-based) of relation ``rel`` runs the
    statement's original iterator number ``depth``: the date's α dimension
    is that iterator, exactly."""
    m = rel.map
    if rel.depth < depth or m.dim(_dt.in_) < depth:
        return False
    return m.is_subset(m.equate(_dt.in_, depth - 1, _dt.out, 2 * depth - 1))


def best_orders(scop) -> list[tuple[tuple, int, int]]:
    """The best stride-1 order of every perfect loop nest of ``scop``'s
    schedule: ``(prefix, n, inner)`` for each chain of ``n >= 2`` loops
    each the only child of the one above (``prefix`` the β of the outermost,
    at α depth ``len(prefix)``), ``inner`` the 0-based index of the loop to
    put innermost (:func:`point_order`), when it is not the innermost
    already.  Shared by the tuner's interchange-only candidate and usable
    by any caller that wants the loop order that walks memory with stride 1
    (legality is the caller's to check: apply the interchanges in a
    session)."""
    sched = scop.schedule
    out = []

    def walk(prefix: tuple) -> None:
        for kid in sched.children(prefix):
            if not sched.is_loop(kid):
                continue
            cur, n = kid, 1
            while True:
                ch = sched.children(cur)
                if len(ch) == 1 and sched.is_loop(ch[0]):
                    cur, n = ch[0], n + 1
                else:
                    break
            if n >= 2:
                inner = point_order(scop, kid, n, len(kid))
                if inner != n - 1:
                    out.append((tuple(kid), n, inner))
            walk(cur)
    walk(())
    return out


def _interchanges(prefix, n: int, inner: int, first: int) -> list[str]:
    """The interchange steps that move point loop ``inner`` (of the ``n``
    point loops of the band at ``prefix``, the first at α depth ``first``)
    innermost, the others keeping their order."""
    beta = "[" + ", ".join(str(b) for b in prefix) + "]"
    return [f"interchange({beta}, {d}, {d + 1});"
            for d in range(first + inner, first + n - 1)]


class _Space:
    """Builds the script of a :class:`Candidate` for one SCoP (isl schedules
    and whitebox scripts cached)."""

    def __init__(self, session):
        self.session = session
        self.scop = session.original
        self._auto: dict = {}
        self._wb: dict = {}

    def auto(self, c: Candidate):
        """The AutoSchedule of ``c`` (cached)."""
        from .auto import schedule
        # AUTO is what --auto gives (its locality pass included); the other
        # candidates take isl's order and Pluto's tiling: the stages search
        # the orders
        locality = c == AUTO
        key = (c.preset, c.tile, c.wavefront, locality)
        if key not in self._auto:
            self._auto[key] = schedule(self.scop, c.preset, c.tile, wavefront=c.wavefront,
                                       locality=locality)
        return self._auto[key]

    def chains(self, c: Candidate) -> list[tuple]:
        """The permutable loop chains of ``c`` whose order the tuner picks:
        ``(prefix, n, depth of the first point loop)``, the tiled bands
        (untiled: the bands tiling would tile, the loops themselves; the
        original schedule: none)."""
        if c.preset == ORIGINAL:
            return []
        if c.tile:
            return [(p, n, len(p) + n) for p, n in self.auto(c).tiled]
        tiled = self.auto(Candidate(c.preset, 32, c.wavefront)).tiled
        return [(p, n, len(p)) for p, n in tiled]

    def orders(self, c: Candidate) -> tuple:
        """``c.order`` with the heuristic's choices filled in."""
        if c.preset == ORIGINAL:
            return ()
        sched = _with(self.scop, self.auto(c).schedule)
        chains = self.chains(c)
        given = c.order or (None,) * len(chains)
        return tuple(point_order(sched, p, n, f) if o is None else o
                     for (p, n, f), o in zip(chains, given))

    def script(self, c: Candidate) -> str:
        """The Clay script of ``c`` (whitebox of its automatic schedule,
        then the point-loop interchanges and the marks)."""
        if c.preset is None:
            return ""
        if c.preset == ORIGINAL:        # the original loops, the outermost parallel ones marked
            text = self.privatize(*c.private) if c.private else ""
            if c.order == DISTRIBUTE:
                text += self.distribute(text)
            if c.order in (PERMUTE, DISTRIBUTE):
                text += self.permute(text)
            if c.parallel:
                text += self._parallel(text, top=not c.wavefront, copies=not c.private)
            return text + (self._marks(text, c.marks) if c.marks else "")
        from .whitebox import whitebox
        key = (c.preset, c.tile, c.wavefront)
        if key not in self._wb:
            self._wb[key] = whitebox(self.scop, self.auto(c).schedule).text()
        steps = []
        for (p, n, f), o in zip(self.chains(c), self.orders(c)):
            if o >= 0:
                steps += [s + "\n" for s in _interchanges(p, n, o, f)]
        text = self._wb[key]
        if steps:
            # the parallel marks of the automatic schedule may not hold on the
            # reordered loops: the loops are reordered first, then marked again
            text = "".join(ln + "\n" for ln in text.splitlines()
                           if not ln.startswith("parallelize(")) + "".join(steps)
            text += self._parallel(text)
        if c.marks:
            text += self._marks(text, c.marks)
        return text

    def _session(self, text: str = ""):
        """A fresh session on the SCoP with ``text`` applied."""
        from .session import Session
        s = Session(self.scop, others=self.session.others)
        if text:
            s.apply(text)
        return s

    def permute(self, text: str = "") -> str:
        """Interchange steps (after ``text``) that put the best stride-1
        loop innermost in every perfect loop nest (:func:`best_orders`),
        each nest's steps kept when the session accepts them."""
        s = self._session(text)
        out = ""
        for prefix, n, inner in best_orders(s.current):
            steps = "".join(st + "\n" for st in _interchanges(prefix, n, inner, len(prefix)))
            try:
                s.apply(steps)
            except ClayxError:
                continue
            out += steps
        return out

    def distribute(self, text: str = "") -> str:
        """``split`` steps (after ``text``) that distribute every loop over
        its children where the session accepts it, deepest loops first, so
        that imperfect nests become perfect ones :meth:`permute` can
        reorder (Pluto's wins on correlation, covariance, gramschmidt come
        from this distribution and the permutation)::

            for i: { S0; for j: { S1; for k: S2; S3 } }
            ->  for i: S0;  for i: for j: S1;  for i: for j: for k: S2;  …"""
        s = self._session(text)
        out = ""
        refused: set = set()        # (statements of the loop, those before the cut)
        while True:
            sched = s.current.schedule
            for loop in sorted(sched.loops(), key=lambda b: (-len(b), b)):
                kids = sched.children(loop)
                inside = sched.statements_under(loop)
                done = False
                for k in reversed(kids[:-1]):
                    key = (inside, tuple(st for kid in kids[:kids.index(k) + 1]
                                         for st in sched.statements_under(kid)))
                    if key in refused:
                        continue
                    step = f"split({list(k)}, {len(loop)});\n"
                    try:
                        s.apply(step)
                    except ClayxError:
                        refused.add(key)
                        continue
                    out += step
                    done = True
                    break
                if done:
                    break
            else:
                return out

    def privatizations(self) -> list[tuple[str, int]]:
        """The ``(array, depth)`` privatizations worth a candidate: those
        :meth:`privatize` can write and the session accepts, after which the
        loop at ``depth`` runs in parallel while it did not before (with
        the original loops' parallel marks)."""
        if not hasattr(self, "_privs"):
            self._privs = []
            before = self._parallel("")
            for array, depth, loop in self._private_options()[:MAX_PRIVATE]:
                if any(f"parallelize({list(loop[:k])});" in before
                       for k in range(1, len(loop) + 1)):
                    continue                    # that loop (or one around it) is parallel
                try:
                    self._session(self.privatize(array, depth) + f"parallelize({list(loop)});")
                except ClayxError:
                    continue
                self._privs.append((array, depth))
        return self._privs

    def _private_options(self) -> list[tuple[str, int, tuple]]:
        """``(array, depth, loop β)``: an array written by statements that
        all lie in the loop at ``depth`` and in the loops below it down to
        the deepest loop they share, whose subscripts use none of those
        loops' iterators (each loop an original iterator), deepest first."""
        scop = self.scop
        out = []
        for arr in scop.arrays:
            rels = [r for r in scop.schedule.relations
                    if any(a.array == arr.name for a in scop.statement(r.stmt).accesses)]
            if not rels or len({r.stmt for r in rels}) != len(rels) or not any(
                    a.array == arr.name and a.is_write for r in rels
                    for a in scop.statement(r.stmt).accesses):
                continue                        # not written, or a statement split (iss)
            common = 0
            while all(len(r.beta) > common + 1 and r.beta[common] == rels[0].beta[common]
                      for r in rels):
                common += 1

            def free(d: int) -> bool:
                return all(_iterator_at(r, d) and not any(
                    a.array == arr.name and a.relation.gist_domain(
                        scop.statement(r.stmt).domain).involves_dims(_dt.in_, d - 1, 1)
                    for a in scop.statement(r.stmt).accesses) for r in rels)
            d = common
            while d >= 1 and free(d):
                out.append((arr.name, d, rels[0].beta[:d]))
                d -= 1
        return out

    def privatize(self, array: str, depth: int) -> str:
        """The layout steps that give ``array`` a private copy per iteration
        of the loops from ``depth`` down to the deepest loop its statements
        share (``add_array``, ``replace_array``, one ``dimprivatize`` per
        loop and ``dimreorder`` to put the new subscripts first, Clay's
        forms on that deepest loop: every access to the new array in it);
        when ``array`` is live after the SCoP, a copy back
        (``datacopy_at`` after its last statement, then ``split`` out of the
        loop at ``depth``) leaves its final values::

            for r: for q: { for p: { sum[p] = 0; for s: sum[p] += … }
                            for p: A[r][q][p] = sum[p]; }
            ->  (depth 1)
            for r: for q: { for p: { sum_priv[r][q][p] = 0; … }
                            for p: A[r][q][p] = sum_priv[r][q][p]; }
            for r: for q: for p: sum[p] = sum_priv[r][q][p];

        :class:`~clayx.errors.ClayxError` when ``(array, depth)`` is not one
        of the options; the steps are checked where they are applied (the
        layout steps' equivalence check, then the schedule's legality)."""
        from .errors import DirectiveError
        scop = self.scop
        rels = sorted((r for r in scop.schedule.relations
                       if any(a.array == array for a in scop.statement(r.stmt).accesses)),
                      key=lambda r: r.beta)
        opts = [o for o in self._private_options() if o[0] == array]
        if not rels or all(o[1] != depth for o in opts):
            raise DirectiveError(f"{array} cannot be privatized at depth {depth}")
        common = max(o[1] for o in opts)
        depths = list(range(depth, common + 1))
        taken = identifiers(scop.source or "") | {a.name for a in scop.arrays}
        name = f"{array}_priv"
        while name in taken:
            name += "_"
        last = rels[-1].beta
        lines = [f'priv = add_array("{name}");',
                 f'replace_array(get_array_id("{array}"), priv);']
        live = array not in dead_arrays(scop)
        if live:
            lines.append(f'datacopy_at(get_array_id("{array}"), priv, {list(last)}, false, '
                         f'{list(last)});')
        # Clay's forms on the loop all its statements share (the copy back
        # too): every access to the new array in it
        loop = list(last[:common])
        lines += [f"dimprivatize({loop}, priv, {d});" for d in depths]
        n = next(a.relation.dim(_dt.out) for a in scop.statement(rels[0].stmt).accesses
                 if a.array == array)
        if n:
            m = len(depths)
            lines.append(f"dimreorder({loop}, priv, {[m + j for j in range(n)] + list(range(m))});")
        if live:
            lines.append(f"split({list(last)}, {depth});")
        return "".join(ln + "\n" for ln in lines)

    def _parallel(self, text: str, top: bool = False, copies: bool = True) -> str:
        """``parallelize`` steps on the outermost loops (after ``text``) that
        carry no dependence: each loop in program order, outer loops first,
        unless a loop around it is parallel already (``top``: the SCoP's
        outermost loops only; ``copies`` False: not the loops that run only
        ``datacopy_at`` statements, as the copy back of a privatized array,
        whose little work a parallel region would not pay for); the session
        checks each mark."""
        from .model import layout_info
        s = self._session(text)
        sched = s.current.schedule
        copy = layout_info(s.current).copies
        marked: list = []
        out = ""
        for loop in sorted(sched.loops(), key=lambda b: (len(b), b)):
            if any(tuple(loop[:len(m)]) == m for m in marked) or (top and len(loop) > 1):
                continue
            if not copies and set(sched.statements_under(loop)) <= copy:
                continue
            step = "parallelize([" + ", ".join(str(b) for b in loop) + "]);\n"
            try:
                s.apply(step)
            except ClayxError:
                continue
            marked.append(tuple(loop))
            out += step
        return out

    def _marks(self, text: str, marks: str) -> str:
        """Mark steps on the innermost loops that the session accepts."""
        from .session import Session
        s = Session(self.scop, others=self.session.others)
        s.apply(text)
        loops = sorted({r.beta[:r.depth] for r in s.current.schedule.relations if r.depth})
        out = ""
        for loop in loops:
            beta = "[" + ", ".join(str(b) for b in loop) + "]"
            for m in marks.split("+"):
                step = f"vectorize({beta});\n" if m == "vectorize" else \
                    f"unroll_mark({beta}, {int(m[len('unroll'):])});\n"
                try:
                    s.apply(step)
                except ClayxError:
                    continue
                out += step
        return out


def _with(scop, sched):
    return replace(scop, schedule=sched)


def candidate_script(session, candidate: Candidate) -> str:
    """The Clay script of ``candidate`` on ``session``'s original SCoP."""
    return _Space(session).script(candidate)


def _stages(space: _Space) -> Iterable[list[Candidate]]:
    """The candidates of each stage, around the fastest automatic candidate
    when the stage starts (a generator: it reads ``space.best_auto``
    between stages)."""
    # the likely winners first, in small stages (each is compiled, then
    # timed; the budget may end after them): the original loops distributed
    # and permuted for stride 1, sequential (the winner of correlation,
    # covariance, gramschmidt, doitgen, 2mm, mvt here), then with the SCoP's
    # outermost loops parallel (a parallel region in a sequential loop of a
    # distributed nest measured 0.03x on correlation), the original loops
    # in parallel; what --auto gives (the tuner must not lose to it), with a
    # temporary privatized, permuted only, privatized only; then isl's
    # distribution untiled, the cpu preset tiled (a candidate that is the
    # same program as one tried, as the distribution of a nest that cannot
    # be distributed, is not compiled again)
    try:
        privs = space.privatizations()
    except ClayxError:
        privs = []
    yield [Candidate(ORIGINAL, 0, order=DISTRIBUTE, parallel=False),
           Candidate(ORIGINAL, 0, False, order=DISTRIBUTE), Candidate(ORIGINAL, 0)]
    yield [AUTO, *(Candidate(ORIGINAL, 0, order=DISTRIBUTE, private=pr) for pr in privs),
           Candidate(ORIGINAL, 0, order=PERMUTE), Candidate(ORIGINAL, 0, order=PERMUTE,
                                                            parallel=False),
           *(Candidate(ORIGINAL, 0, private=pr) for pr in privs)]
    yield [Candidate("nofuse", 0), Candidate("cpu")]
    # the other presets, a few at a time (each stage is compiled, then timed)
    yield [Candidate("cpu", 0), Candidate("gpu"), Candidate("nofuse")]
    yield [Candidate("maxfuse", 0), Candidate("cpu", 64), Candidate("maxfuse")]
    yield [Candidate("gpu", 0), Candidate("feautrier"), Candidate("feautrier", 0),
           Candidate(ORIGINAL, 0, False)]
    base = space.best_auto or Candidate("cpu")
    yield [Candidate(base.preset, base.tile, order=(-1,) * 8),
           *(Candidate(p, order=(-1,) * 8) for p in PRESETS)]
    base = space.best_auto
    if base is None:
        return
    if base.preset != ORIGINAL:
        yield [Candidate(base.preset, t, base.wavefront, base.order, base.marks, base.private)
               for t in (32, *TILE_SIZES) if t != base.tile]
    base = space.best_auto
    try:
        chains = space.chains(base)
        chosen = space.orders(base)
    except ClayxError:
        chains, chosen = [], ()
    stage = []
    for k, (p, n, _f) in enumerate(chains):
        for i in range(n):
            if i != chosen[k]:
                order = list(chosen)
                order[k] = i
                stage.append(Candidate(base.preset, base.tile, base.wavefront, tuple(order)))
    yield stage
    base = space.best_auto
    if base.wavefront and base.tile and base.preset != ORIGINAL:
        yield [Candidate(base.preset, base.tile, False, base.order)]
    base = space.best_auto
    yield [replace(base, marks=m) for m in MARKS]


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------

def region_timer(env: Mapping[str, str], walls: list | None = None,
                 timeout: float = 600.0) -> Timer:
    """A :data:`Timer` that runs programs in ``env``.  A program's first
    run is whole (its output is returned, to be checked); later runs stop
    right after the last SCoP region (:func:`clayx.run.region_stops`) and
    return the first run's output: timing runs do not pay for computing
    and printing what was checked already (doitgen: 2 s a run for a 0.2 s
    region, most of it printing).  With a ``walls`` list, the original's
    whole runs (candidate ``preset`` None) are recorded there and bound
    every later run (:data:`KILL`); otherwise runs stop at ``timeout``."""
    first: dict = {}

    def timer(exe: Path, candidate: Candidate) -> tuple[str, float]:
        limit = timeout if not walls else max(2.0, KILL * statistics.median(walls))
        if first.get(exe, (None, None))[1]:
            text, stops = first[exe]
            out, _ = run_timed(exe, limit, dict(env, **{STOPS_ENV: str(stops)}))
            return text, region_seconds(out, exe.name)[1]
        out, wall = run_timed(exe, limit, env)
        if walls is not None and candidate.preset is None:
            walls.append(wall)
        text, seconds = region_seconds(out, exe.name)
        first[exe] = (text, region_stops(out))
        return text, seconds
    return timer


def tune(session, *, budget: float = DEFAULT_BUDGET, threads: int | None = None,
         repeat: int = 3, defines: Mapping[str, int | str | None] | None = None,
         compiler: str | None = None, flags: Sequence[str] | None = None, jobs: int = 2,
         timer: Timer | None = None, clock: Callable[[], float] = time.monotonic,
         progress: Callable[[str, Trial | None, float], None] | None = None,
         workdir: str | os.PathLike | None = None,
         candidates: Sequence[Candidate] | None = None, current: bool = False) -> TuneResult:
    """Tune ``session``'s SCoP (see the module docstring); returns a
    :class:`TuneResult`.

    ``budget``: seconds for the search (the original's measurement and the
    final confirmation come on top); ``threads``: ``OMP_NUM_THREADS`` of
    every run; ``repeat``: runs per candidate (median); ``defines``,
    ``compiler``, ``flags``: as :func:`clayx.run.measure`; ``jobs``:
    parallel compilations; ``timer(exe, candidate) -> (output, seconds)``
    replaces running the program (tests); ``clock`` the budget's clock;
    ``progress(label, trial, elapsed)`` is called before each candidate
    (``trial`` None) and after it; ``candidates`` replaces the staged
    search by a fixed list (the original is always measured first);
    ``workdir``: where the programs are built (default: a temporary folder
    removed at the end, so the trials' ``exe`` paths are gone then);
    ``current``: tune from the session's current state (the candidates'
    scripts continue its steps, the program to beat is its code; the
    prompt's ``:tune``) instead of the original program.

    :class:`~clayx.errors.VerifyError` when the original itself cannot be
    compiled or run (no ``main``, an OpenScop input), or when tuning from a
    current state that holds an unchecked step."""
    from .session import Session
    if workdir is None:                 # a temporary folder, removed at the end
        with tempfile.TemporaryDirectory(prefix="clayx-tune-") as d:
            return tune(session, budget=budget, threads=threads, repeat=repeat,
                        defines=defines, compiler=compiler, flags=flags, jobs=jobs,
                        timer=timer, clock=clock, progress=progress, workdir=d,
                        candidates=candidates, current=current)
    if current and session.entries:
        # from the current state: the candidates' scripts continue it, and the
        # program to beat is its code (a legal state prints the original's output)
        if session.has_unchecked:
            raise VerifyError("the session holds a step applied without the legality "
                              "check: tuning from it would time a program nobody checked")
        session = Session(session.current, others=session.others)
        base_text, _, base_regions = program_text(session, target="omp")
    else:
        base_text, base_regions = None, None
    scop = session.original
    if scop.source is None or scop.path is None:
        raise VerifyError("--tune needs a C program; this SCoP was read from OpenScop")
    if repeat < 1:
        raise VerifyError(f"repeat must be at least 1, not {repeat}")
    if budget < 0:
        raise VerifyError(f"the budget must not be negative, not {budget}")
    src = Path(scop.path).resolve()
    cc = compiler or default_compiler()
    cflags = list(flags) if flags is not None else default_flags()
    tmp = Path(workdir)
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    start = clock()
    trials: list[Trial] = []

    # a candidate far slower than the original is not worth waiting for
    time_one = timer or region_timer(env, [])
    regions = [sc.region for sc in sorted((scop, *session.others), key=lambda s: s.region[0])]

    def build(k: int, trial: Trial, text: str, regs) -> Path | None:
        c = tmp / f"cand{k}.c"
        c.write_text(instrument(text, regs))
        exe = tmp / f"cand{k}"
        try:
            compile_c(c, exe, defines=defines, opt="", include_dirs=[src.parent],
                      extra_flags=cflags, cc=cc, std=None)
        except VerifyError as e:
            trial.error = f"compile: {e}"
            return None
        trial.exe = exe
        return exe

    def measure(trial: Trial, exe: Path, expected: str | None) -> str | None:
        times = []
        first = None
        for _ in range(repeat):
            try:
                out, seconds = time_one(exe, trial.candidate)
            except VerifyError as e:
                trial.error = f"run: {e}"
                return None
            if expected is not None:
                try:
                    compare_outputs(expected, out)
                except VerifyError as e:
                    trial.error = f"other output: {e}"
                    return None
            first = out if first is None else first
            times.append(seconds)
            if seconds > SLOW * best.median:
                break                   # far slower than the best: one run tells
            if len(times) >= 2 and min(times) > best.median:
                break                   # two runs, neither beats the best: it will not
        trial.times = tuple(times)
        trial.verified = True
        return first

    # the original program, as written
    if base_text is None:
        base_text, base_regions = scop.source, regions
    if not has_main(base_text):
        raise VerifyError(f"{src.name} has no main function: tuning runs the program, so it "
                          "needs a main that runs its SCoP (and prints its arrays, for the "
                          "check that every candidate computes the same)")
    orig = Trial(Candidate(), script="", code=base_text)
    best = orig
    exe0 = build(0, orig, base_text, base_regions)
    if exe0 is None:
        raise VerifyError(f"the original program does not compile: {orig.error}")
    expected = measure(orig, exe0, None)
    if expected is None:
        raise VerifyError(f"the original program does not run: {orig.error}")
    trials.append(orig)

    space = _Space(session)
    space.best_auto = None
    best_auto = [float("inf")]
    seen: set = set()
    scripts: set = {""}
    counter = [0]

    def over() -> bool:
        return clock() - start >= budget

    def prepare(c: Candidate) -> tuple[Trial, str | None, list]:
        trial = Trial(c)
        try:
            trial.script = space.script(c)
            s = Session(scop, others=session.others)
            if trial.script:
                s.apply(trial.script)
            text, _, regs = program_text(s, target="omp")
        except ClayxError as e:
            trial.error = f"{type(e).__name__}: {e}"
            return trial, None, []
        trial.code = text
        return trial, text, regs

    def run_stage(stage: list[Candidate]) -> None:
        nonlocal best
        todo = []
        for c in stage:
            if over():
                break
            if c in seen:
                continue
            seen.add(c)
            if progress:
                progress(c.label, None, clock() - start)
            trial, text, regs = prepare(c)
            if text is not None:
                if trial.script in scripts:
                    continue                        # the same program as one tried
                scripts.add(trial.script)
            trials.append(trial)
            todo.append((trial, text, regs))
        ready = []
        with ThreadPoolExecutor(max(1, jobs)) as pool:
            futures = []
            for trial, text, regs in todo:
                if text is None:
                    continue
                counter[0] += 1
                futures.append((trial, pool.submit(build, counter[0], trial, text, regs)))
            for trial, fut in futures:
                exe = fut.result()
                if exe is not None:
                    ready.append((trial, exe))
        for trial, exe in ready:
            if over():
                trial.error = trial.error or "not timed: budget spent"
                continue
            measure(trial, exe, expected)
            if trial.verified and trial.median < best.median:
                best = trial
            if trial.verified and trial.median < best_auto[0]:
                best_auto[0] = trial.median
                space.best_auto = trial.candidate
            if progress:
                progress(trial.candidate.label, trial, clock() - start)
        for trial, _text, _regs in todo:
            if trial.error and progress:
                progress(trial.candidate.label, trial, clock() - start)

    if candidates is not None:
        run_stage([c for c in candidates if c.preset is not None])
    else:
        stages = _stages(space)
        for stage in stages:
            if over():
                break
            run_stage(stage)

    # never lose: confirm the winner against the original, interleaved
    confirmations: list[Confirmation] = []
    contenders = sorted((t for t in trials[1:] if t.verified and t.exe is not None
                         and t.median * (1 + NOISE) < orig.median),
                        key=lambda t: t.median)[:CONFIRM_TRIES]
    best = orig
    for trial in contenders:
        conf = confirm(time_one, orig, exe0, trial, pairs=max(CONFIRM_PAIRS, repeat))
        confirmations.append(conf)
        if conf.kept:
            best = trial
            break
    confirmed = confirmations[-1].ratio if best is not orig else 1.0
    return TuneResult(trials, best, confirmed, clock() - start, threads, confirmations,
                      "current" if current and base_regions is not regions else "original")



# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------

def progress_bar(console, budget: float):
    """A transient rich progress bar over the budget's seconds on the rich
    ``console``, and the ``progress`` callback of :func:`tune` that moves
    it (the candidate being measured, the best time so far)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
    bar = Progress(TextColumn("tuning {task.description:<36}"), BarColumn(),
                   TextColumn("{task.fields[best]}"), TimeElapsedColumn(),
                   console=console, transient=True)
    task = bar.add_task("", total=max(budget, 1e-9), best="")
    state = {"best": None}

    def progress(label: str, trial: Trial | None, elapsed: float) -> None:
        if trial is not None and trial.verified and (
                state["best"] is None or trial.median < state["best"]):
            state["best"] = trial.median
        best = "" if state["best"] is None else f"best {state['best'] * 1e3:.1f} ms"
        bar.update(task, completed=min(elapsed, budget), description=label[:36], best=best)
    return bar, progress


def _bar(stream, budget: float):
    """:func:`progress_bar` on ``stream`` (None, None when it is not a
    terminal)."""
    if not (hasattr(stream, "isatty") and stream.isatty()):
        return None, None
    from rich.console import Console
    return progress_bar(Console(file=stream), budget)


def tune_command(session, *, emit: str | None = None, stderr=None, **kwargs) -> str:
    """``clayx FILE.c --tune``: :func:`tune` with a progress bar and the
    table on ``stderr``; returns the winner as a Clay script (with a
    comment saying what it won), or as the whole C file when ``emit`` is
    ``c`` or ``omp`` (the original file unchanged when the original won:
    that is the program measured).  Keyword arguments go to :func:`tune`."""
    from contextlib import nullcontext
    from .session import Session
    bar, progress = _bar(stderr, kwargs.get("budget", DEFAULT_BUDGET))
    with bar if bar is not None else nullcontext():
        result = tune(session, progress=progress, **kwargs)
    if stderr is not None:
        print(result.table(), file=stderr)
    best = result.best
    if emit in ("c", "omp"):
        if not best.script:             # the original program, as it was measured
            return session.original.source
        s = Session(session.original, others=session.others)
        s.apply(best.script)
        return s.code(emit)
    head = (f"# clayx --tune: {best.candidate.label}, {result.confirmed:.2f}x the original "
            f"region time ({result.threads or 'default'} threads)\n")
    return head + (best.script or "# the original schedule is the fastest\n")
