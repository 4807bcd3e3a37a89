"""The tuner: compile, verify and time candidate schedules, keep the fastest.

:func:`tune` searches schedules of a session's SCoP by *measuring* them.
Every candidate is a Clay script (the empty script is the original
schedule), applied to a fresh session with every step legality-checked,
regenerated as C with OpenMP pragmas, compiled (``$CC``/``$CFLAGS``, as
:mod:`clayx.run`), run, verified against the original program's output
and timed (the SCoP regions only, median of ``repeat`` runs).  The fastest
verified candidate wins; the original program is always measured first and
wins unless a candidate beats it by more than :data:`NOISE`, confirmed by
a second, interleaved measurement at the end, so a tuned program is never
slower than the original beyond noise.

The search is staged, each stage around the best candidate so far, and
stops when the ``budget`` (seconds, wall clock) is spent:

1. the original loops with their outermost parallel loops marked; the
   ``cpu`` preset of :mod:`clayx.auto` with tiles of 32, untiled, and
   with tiles of 64, the point loops of every tiled band (the loops of
   every permutable band, untiled) ordered so the innermost one walks the
   arrays with stride 1 (:func:`point_order`, seed 002's spatial
   locality);
2. the other presets (tiles of 32 and untiled, the same ordering);
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence


from .auto.post import stride_class as _stride_class
from .errors import ClayxError, VerifyError
from .run import region_seconds, default_compiler, default_flags, instrument, program_text
from .verify import run_timed, compare_outputs, compile_c

__all__ = ["Candidate", "Trial", "TuneResult", "DEFAULT_BUDGET", "NOISE", "candidate_script",
           "point_order", "tune"]

#: Default budget (seconds): an interactive wait.
DEFAULT_BUDGET = 60.0

#: Relative margin a candidate must beat the original by to replace it.
NOISE = 0.03

#: Tile sizes tried after the default (32), in this order; 0: no tiling.
TILE_SIZES = (16, 64, 128, 8, 0)

#: The "preset" of the original schedule with parallel marks (no isl
#: scheduling): its outermost loops that carry no dependence run in parallel.
ORIGINAL = "original"

#: Presets tried, in this order.
PRESETS = ("cpu", "nofuse", "maxfuse", "gpu", "feautrier")

#: A candidate whose first run takes this many times the best median so far
#: is not run again (it cannot win; the budget goes to other candidates).
SLOW = 1.5

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
    heuristic, -1: isl's order), ``marks`` on the innermost loops."""

    preset: str | None = None
    tile: int = 32
    wavefront: bool = True
    order: tuple | None = None
    marks: str = ""

    @property
    def label(self) -> str:
        """A short name: ``original`` or ``cpu t32 inner(1,2) vectorize``."""
        if self.preset is None:
            return "original"
        parts = [self.preset, f"t{self.tile}" if self.tile else "untiled"]
        if self.preset == ORIGINAL:
            parts = ["original", "parallel"]
        if self.order is not None:
            parts.append("isl-order" if all(o == -1 for o in self.order) else
                         "inner(" + ",".join(str(o) for o in self.order) + ")")
        if not self.wavefront:
            parts.append("no-wavefront")
        if self.marks:
            parts.append(self.marks)
        return " ".join(parts)


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


@dataclass
class TuneResult:
    """What :func:`tune` found: every ``trials`` entry (the original first),
    the ``best`` (the original when nothing beat it), the ``confirmed``
    speedup of the best from the final interleaved measurement, the
    ``elapsed`` seconds and the ``threads`` used for timing."""

    trials: list
    best: Trial
    confirmed: float
    elapsed: float
    threads: int | None = None

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
        rows = [f"{'':1s} {'candidate':40s} {'steps':>5s} {'median ms':>10s} "
                f"{'speedup':>8s}  verified"]
        for t in self.trials:
            steps = sum(1 for ln in t.script.splitlines()
                        if ln.strip() and not ln.lstrip().startswith("#"))
            star = "*" if t is self.best else " "
            ms = f"{t.median * 1e3:10.3f}" if t.times else f"{'-':>10s}"
            sp = f"{self.speedup(t):7.2f}x" if t.times else f"{'-':>8s}"
            ver = "yes" if t.verified else ("no: " + t.error.splitlines()[0][:70]
                                           if t.error else "no")
            rows.append(f"{star} {t.candidate.label:40s} {steps:5d} {ms} {sp}  {ver}")
        threads = f", {self.threads} thread(s)" if self.threads else ""
        rows.append(f"winner: {self.best.candidate.label} ({self.confirmed:.2f}x confirmed; "
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
    sched = scop.schedule
    best, key = n - 1, None
    for i in range(n):
        depth = first + i
        jumps = ones = 0
        for rel in sched.relations_under(prefix):
            if rel.depth < first + n - 1:
                continue
            for a in scop.statement(rel.stmt).accesses:
                c = _stride_class(scop, rel, a, 2 * depth - 1)
                jumps += c == 2
                ones += c == 1
        k = (jumps, -ones, 0 if i == n - 1 else 1)
        if key is None or k < key:
            best, key = i, k
    return best


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
        key = (c.preset, c.tile, c.wavefront)
        if key not in self._auto:
            # isl's order and Pluto's tiling: the stages search the orders
            self._auto[key] = schedule(self.scop, c.preset, c.tile, wavefront=c.wavefront,
                                       locality=False)
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
            text = self._parallel("")
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

    def _parallel(self, text: str) -> str:
        """``parallelize`` steps on the outermost loops (after ``text``) that
        carry no dependence: each loop in program order, outer loops first,
        unless a loop around it is parallel already; the session checks
        each mark."""
        from .session import Session
        s = Session(self.scop, others=self.session.others)
        s.apply(text)
        marked: list = []
        out = ""
        for loop in sorted(s.current.schedule.loops(), key=lambda b: (len(b), b)):
            if any(tuple(loop[:len(m)]) == m for m in marked):
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
    from dataclasses import replace
    return replace(scop, schedule=sched)


def candidate_script(session, candidate: Candidate) -> str:
    """The Clay script of ``candidate`` on ``session``'s original SCoP."""
    return _Space(session).script(candidate)


def _stages(space: _Space) -> Iterable[list[Candidate]]:
    """The candidates of each stage, around the fastest automatic candidate
    when the stage starts (a generator: it reads ``space.best_auto``
    between stages)."""
    yield [Candidate(ORIGINAL, 0), Candidate("cpu"), Candidate("cpu", 0), Candidate("cpu", 64)]
    yield [Candidate(p, t) for p in PRESETS[1:] for t in (32, 0)]
    base = space.best_auto or Candidate("cpu")
    yield [Candidate(base.preset, base.tile, order=(-1,) * 8),
           *(Candidate(p, order=(-1,) * 8) for p in PRESETS)]
    base = space.best_auto
    if base is None:
        return
    if base.preset != ORIGINAL:
        yield [Candidate(base.preset, t, base.wavefront, base.order, base.marks)
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
    yield [Candidate(base.preset, base.tile, base.wavefront, base.order, m) for m in MARKS]


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------

def _default_timer(env: Mapping[str, str], timeout: Callable[[], float]) -> Timer:
    def timer(exe: Path, candidate: Candidate) -> tuple[str, float]:
        out, _ = run_timed(exe, timeout(), env)
        return region_seconds(out, exe.name)
    return timer


def tune(session, *, budget: float = DEFAULT_BUDGET, threads: int | None = None,
         repeat: int = 3, defines: Mapping[str, int | str | None] | None = None,
         compiler: str | None = None, flags: Sequence[str] | None = None, jobs: int = 2,
         timer: Timer | None = None, clock: Callable[[], float] = time.monotonic,
         progress: Callable[[str, Trial | None, float], None] | None = None,
         workdir: str | os.PathLike | None = None,
         candidates: Sequence[Candidate] | None = None) -> TuneResult:
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
    removed at the end, so the trials' ``exe`` paths are gone then).

    :class:`~clayx.errors.VerifyError` when the original itself cannot be
    compiled or run (no ``main``, an OpenScop input)."""
    from .session import Session
    if workdir is None:                 # a temporary folder, removed at the end
        with tempfile.TemporaryDirectory(prefix="clayx-tune-") as d:
            return tune(session, budget=budget, threads=threads, repeat=repeat,
                        defines=defines, compiler=compiler, flags=flags, jobs=jobs,
                        timer=timer, clock=clock, progress=progress, workdir=d,
                        candidates=candidates)
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
    base_time: list[float] = []

    def run_timeout() -> float:
        # a candidate far slower than the original is not worth waiting for
        return 600.0 if not base_time else max(10.0, 20 * base_time[0])

    time_one = timer or _default_timer(env, run_timeout)
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
        trial.times = tuple(times)
        trial.verified = True
        return first

    # the original program, as written
    orig = Trial(Candidate(), script="", code=scop.source)
    best = orig
    exe0 = build(0, orig, scop.source, regions)
    if exe0 is None:
        raise VerifyError(f"the original program does not compile: {orig.error}")
    expected = measure(orig, exe0, None)
    if expected is None:
        raise VerifyError(f"the original program does not run: {orig.error}")
    base_time.append(orig.median)
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

    # confirm the winner against the original, interleaved
    confirmed = 1.0
    if best is not orig:
        a, b = [], []
        for _ in range(repeat):
            a.append(time_one(exe0, orig.candidate)[1])
            b.append(time_one(best.exe, best.candidate)[1])
        confirmed = statistics.median(a) / max(statistics.median(b), 1e-12)
        if confirmed < 1 + NOISE:
            best = orig
            confirmed = 1.0
    return TuneResult(trials, best, confirmed, clock() - start, threads)



# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------

def _bar(stream, budget: float):
    """A rich progress bar on ``stream`` over the budget's seconds, and the
    ``progress`` callback that moves it (None, None when ``stream`` is not a
    terminal)."""
    if not (hasattr(stream, "isatty") and stream.isatty()):
        return None, None
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
    bar = Progress(TextColumn("tuning {task.description:<36}"), BarColumn(),
                   TextColumn("{task.fields[best]}"), TimeElapsedColumn(),
                   console=Console(file=stream), transient=True)
    task = bar.add_task("", total=max(budget, 1e-9), best="")
    state = {"best": None}

    def progress(label: str, trial: Trial | None, elapsed: float) -> None:
        if trial is not None and trial.verified and (
                state["best"] is None or trial.median < state["best"]):
            state["best"] = trial.median
        best = "" if state["best"] is None else f"best {state['best'] * 1e3:.1f} ms"
        bar.update(task, completed=min(elapsed, budget), description=label[:36], best=best)
    return bar, progress


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
