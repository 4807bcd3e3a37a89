"""Measure a transformation: compile, verify and time the SCoP regions.

:func:`measure` builds the original program and a transformed one (the text
clayx generated for the whole file), runs them alternately ``repeat``
times, checks that every run prints what the original prints, and times the
SCoP regions themselves — not the whole process, whose start-up,
initialisation and printing would drown the kernel.  For that, both
programs are compiled from an *instrumented* copy (:func:`instrument`): a
call that reads a monotonic clock right after each ``#pragma scop`` line
and one right before each ``#pragma endscop`` line, the times summed over
every execution of the region and reported on standard error at exit
(``clayx-region K SECONDS``, then ``clayx-region-stops N``, the number of
region executions; with ``CLAYX_REGION_STOPS=N`` in its environment the
program exits right after the N-th, for runs that only time a program
whose output was checked once: :func:`region_stops`).  The copies are compiled to temporary files;
the user's files are not touched.

The compiler is ``$CC`` (else ``gcc``; ``CLAYX_CC`` also works, as for
:mod:`clayx.verify`), the flags ``$CFLAGS`` (else ``-O3 -fopenmp``), both
overridable per call.  The clock is ``omp_get_wtime`` when the flags enable
OpenMP, ``timespec_get`` under C11, else ``clock()`` (processor time).

A program without ``main`` cannot run: :class:`~clayx.errors.VerifyError`
says so before anything is compiled.  Outputs that differ raise
:class:`~clayx.errors.MismatchError` with the first differing value, never
a speedup.
"""

from __future__ import annotations

import os
import re
import shlex
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from .errors import MismatchError, VerifyError
from .verify import compare_outputs, compile_c, run

__all__ = ["RunResult", "STOPS_ENV", "instrument", "has_main", "measure", "measure_session",
           "program_text", "default_compiler", "default_flags", "region_seconds", "region_stops"]

_TIMER_LINE = re.compile(r"^clayx-region (\d+) ([0-9.eE+-]+)$", re.M)
_STOPS_LINE = re.compile(r"^clayx-region-stops (\d+)$", re.M)

#: The environment variable that makes an instrumented program exit right
#: after its N-th region stop (:func:`instrument`, :func:`region_stops`).
STOPS_ENV = "CLAYX_REGION_STOPS"
_MAIN = re.compile(r"\bmain\s*\(")

#: Prepended to an instrumented file: a clock, per-region totals, a report
#: at exit.  Names are prefixed so they collide with nothing a program uses.
_PRELUDE = """\
/* clayx --run: region timers (this copy is compiled, not kept) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
static double clayx_region_t0_[{n}], clayx_region_sum_[{n}];
static int clayx_region_hooked_, clayx_region_stops_, clayx_region_exit_after_;
static double clayx_region_now_(void)
{{
#if defined(_OPENMP)
  return omp_get_wtime();
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
  struct timespec t;
  timespec_get(&t, TIME_UTC);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
#else
  return (double)clock() / CLOCKS_PER_SEC;
#endif
}}
static void clayx_region_report_(void)
{{
  int k;
  for (k = 0; k < {n}; k++)
    fprintf(stderr, "clayx-region %d %.9f\\n", k, clayx_region_sum_[k]);
  fprintf(stderr, "clayx-region-stops %d\\n", clayx_region_stops_);
}}
static void clayx_region_start_(int k)
{{
  if (!clayx_region_hooked_) {{
    const char *stops = getenv("CLAYX_REGION_STOPS");
    clayx_region_hooked_ = 1;
    clayx_region_exit_after_ = stops ? atoi(stops) : 0;
    atexit(clayx_region_report_);
  }}
  clayx_region_t0_[k] = clayx_region_now_();
}}
static void clayx_region_stop_(int k)
{{
  clayx_region_sum_[k] += clayx_region_now_() - clayx_region_t0_[k];
  if (++clayx_region_stops_ == clayx_region_exit_after_)
    exit(0);                    /* timing only: the rest was checked once */
}}
"""


def default_compiler() -> str:
    """``$CC``, else ``$CLAYX_CC``, else ``gcc``."""
    return os.environ.get("CC") or os.environ.get("CLAYX_CC") or "gcc"


def default_flags() -> list[str]:
    """``$CFLAGS`` split like a shell would, else ``-O3 -fopenmp``."""
    flags = os.environ.get("CFLAGS")
    return shlex.split(flags) if flags else ["-O3", "-fopenmp"]


def instrument(text: str, regions: Sequence[tuple[int, int]]) -> str:
    """``text`` with a timer around each region: ``regions`` are the
    (start, end) character offsets of the text between each ``#pragma
    scop`` line and its ``#pragma endscop`` line (as in ``Scop.region``);
    the timer calls are whole lines at the region's first and last line, so
    the region's own text, and everything outside, is unchanged."""
    order = sorted(range(len(regions)), key=lambda k: regions[k][0])
    for a, b in zip(order, order[1:]):
        if regions[a][1] > regions[b][0]:
            raise VerifyError(f"regions {regions[a]} and {regions[b]} overlap")
    out = text
    for k in reversed(order):
        start, end = regions[k]
        nl = "\r\n" if "\r\n" in text[start:end] else "\n"
        out = (out[:start] + f"clayx_region_start_({k});{nl}" + out[start:end]
               + f"clayx_region_stop_({k});{nl}" + out[end:])
    return _PRELUDE.format(n=max(1, len(regions))) + out


@dataclass(frozen=True)
class RunResult:
    """What :func:`measure` found: the region time of each run (seconds,
    all regions summed) of the original and the transformed program, their
    medians, the speedup (original over transformed), the command used."""

    original: tuple[float, ...]
    transformed: tuple[float, ...]
    command: tuple[str, ...]
    threads: int | None
    defines: dict = field(default_factory=dict)

    @property
    def original_median(self) -> float:
        """Median region time of the original (seconds)."""
        return statistics.median(self.original)

    @property
    def transformed_median(self) -> float:
        """Median region time of the transformed program (seconds)."""
        return statistics.median(self.transformed)

    @property
    def speedup(self) -> float:
        """Original median over transformed median (``inf`` when the
        transformed region takes no measurable time)."""
        t = self.transformed_median
        return float("inf") if t <= 0 else self.original_median / t

    def table(self) -> str:
        """A short report: both medians, the spread, the speedup."""
        def row(name, xs):
            return (f"  {name:12s} median {statistics.median(xs) * 1e3:10.3f} ms"
                    f"   (min {min(xs) * 1e3:.3f}, max {max(xs) * 1e3:.3f}, {len(xs)} runs)")
        threads = f", {self.threads} thread(s)" if self.threads else ""
        return "\n".join([f"region time ({' '.join(self.command)}{threads}):",
                          row("original", self.original),
                          row("transformed", self.transformed),
                          f"  speedup      {self.speedup:.2f}x   (outputs identical)"])


def region_seconds(output: str, exe: str) -> tuple[str, float]:
    """(output without the timer lines, total region seconds)."""
    times = [float(m.group(2)) for m in _TIMER_LINE.finditer(output)]
    if not times:
        raise VerifyError(f"{exe} printed no region time: its SCoP region never ran, or "
                          "the program exits without returning from main (exit handlers "
                          "did not run)")
    kept = [ln for ln in output.splitlines(True)
            if not (_TIMER_LINE.match(ln.rstrip("\r\n")) or _STOPS_LINE.match(ln.rstrip("\r\n")))]
    return "".join(kept), sum(times)


def region_stops(output: str) -> int | None:
    """How many times the program's SCoP regions ended (the instrumented
    program reports it at exit), None when it did not say.  Run again with
    :data:`STOPS_ENV` set to that number, the program exits right after
    its last region, its time measured, without computing or printing the
    rest (for runs that only time a program whose output was checked
    once)."""
    m = _STOPS_LINE.search(output)
    return int(m.group(1)) if m else None


def measure(original: str | os.PathLike, transformed_text: str,
            regions: Sequence[tuple[int, int]], transformed_regions: Sequence[tuple[int, int]],
            *, defines: Mapping[str, int | str] | None = None, threads: int | None = None,
            repeat: int = 5, compiler: str | None = None, flags: Sequence[str] | None = None,
            include_dirs: Sequence[str | os.PathLike] = (), timeout: float = 600,
            workdir: str | os.PathLike | None = None) -> RunResult:
    """Compile, verify and time the original file and ``transformed_text``.

    ``regions`` are the SCoP regions of the original text and
    ``transformed_regions`` those of the transformed text (character
    offsets, see :func:`instrument`).  Both programs are compiled with the
    same compiler, flags and ``-D`` ``defines`` (and the original's
    directory on the include path), then run alternately ``repeat`` times
    with ``OMP_NUM_THREADS=threads`` when given.  Every run's output must
    equal the original's first output (:class:`MismatchError` otherwise,
    naming the first difference).  Compilation or run failures raise
    :class:`~clayx.errors.VerifyError`.
    """
    src = Path(original).resolve()
    try:
        text = src.read_text()
    except OSError as e:
        raise VerifyError(f"cannot read {src}: {e}") from None
    for name, body in (("the original", text), ("the transformed program", transformed_text)):
        if not has_main(body):
            raise VerifyError(f"{name} ({src.name}) has no main function: --run needs a "
                              "program that runs its SCoP (wrap the kernel in a main that "
                              "initialises and prints its arrays)")
    if repeat < 1:
        raise VerifyError(f"repeat must be at least 1, not {repeat}")
    cc = compiler or default_compiler()
    cflags = list(flags) if flags is not None else default_flags()
    tmp = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="clayx-run-"))
    tmp.mkdir(parents=True, exist_ok=True)
    files = {"original": (instrument(text, regions), tmp / "original"),
             "transformed": (instrument(transformed_text, transformed_regions),
                             tmp / "transformed")}
    incs = [*include_dirs, src.parent]
    for name, (body, exe) in files.items():
        c = tmp / f"{name}.c"
        c.write_text(body)
        compile_c(c, exe, defines=defines, opt="", include_dirs=incs, extra_flags=cflags,
                  cc=cc, std=None)
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    times: dict[str, list[float]] = {"original": [], "transformed": []}
    expected: str | None = None
    for _ in range(repeat):
        for name, (_, exe) in files.items():
            out, seconds = region_seconds(run(exe, timeout=timeout, env=env), exe.name)
            if expected is None:
                expected = out
            else:
                try:
                    compare_outputs(expected, out)
                except MismatchError as e:
                    which = "the original run again" if name == "original" else \
                        "the transformed program"
                    raise type(e)(f"verification failed: {which} prints another output: "
                                  f"{e}") from None
            times[name].append(seconds)
    return RunResult(tuple(times["original"]), tuple(times["transformed"]),
                     tuple([cc, *cflags]), threads, dict(defines or {}))


def _strip_comments(text: str) -> str:
    """C text without comments (for the ``main`` test)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def has_main(text: str) -> bool:
    """True when the C ``text`` defines (or at least names, outside
    comments) a ``main`` function: a program that can run."""
    return bool(_MAIN.search(_strip_comments(text)))


def measure_session(session, *, target: str = "omp", unchecked: bool = False,
                    **kwargs) -> RunResult:
    """:func:`measure` on a session's file: the original source against the
    file with every SCoP regenerated for ``target`` (``omp`` by default: the
    plain C of a schedule without marks, OpenMP pragmas on the marked loops).
    Keyword arguments go to :func:`measure`.  The session's SCoPs must come
    from a C file (``--run`` needs a program)."""
    from .errors import LegalityError
    if session.has_unchecked and not unchecked:
        raise LegalityError("the session holds a step applied without the legality check; "
                            "pass unchecked=True (--unchecked) to run it anyway")
    text, regions, new_regions = program_text(session, target=target)
    return measure(session.current.path, text, regions, new_regions, **kwargs)


def program_text(session, *, target: str = "omp") -> tuple[str, list, list]:
    """The whole C file of a session with every SCoP regenerated for
    ``target``: ``(text, regions of the original, regions of the text)``,
    the regions as character offsets (see :func:`instrument`).
    :class:`~clayx.errors.VerifyError` for a SCoP read from OpenScop."""
    from .codegen import generate_region
    cur = session.current
    if cur.source is None or cur.path is None:
        raise VerifyError("--run needs a C program; this SCoP was read from OpenScop")
    scops = sorted((cur, *session.others), key=lambda sc: sc.region[0])
    pieces: list[str] = []
    regions, new_regions = [], []
    last, length = 0, 0
    for sc in scops:
        start, end = sc.region
        gen = generate_region(sc, target=target)
        before = cur.source[last:start]
        pieces += [before, gen]
        length += len(before)
        regions.append(sc.region)
        new_regions.append((length, length + len(gen)))
        length += len(gen)
        last = end
    return "".join(pieces) + cur.source[last:], regions, new_regions
