"""The prompt's tuner: ``:tune [BUDGET] [threads=N] [-D NAME=V …]``.

Runs :func:`clayx.tune.tune` from the current state (the candidates'
scripts continue it; the program to beat is the current code) with a rich
progress bar, prints the table of the candidates it measured, and keeps the
winner *pending* exactly as ``:auto`` keeps its script (:mod:`.auto`):
``:tune accept`` (or ``:auto accept``) applies it, ``:tune accept K`` its
first ``K`` steps, ``:edit`` edits it, ``:tune show``/``:tune drop`` show or
forget it.  When nothing beats the current state beyond the noise, nothing
is pending: the current state is the fastest.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.text import Text

from . import auto
from .commands import CommandError, command, lookup

__all__ = ["TunedScript"]

USAGE = ":tune [BUDGET] [threads=N] [-D NAME=V …] | :tune accept [K] | :tune show | :tune drop"


@dataclass
class TunedScript:
    """The tuner's winner shaped as the prompt's pending scripts are (the
    :class:`~clayx.WhiteboxResult` interface :mod:`.auto` reads): the
    script ``lines`` (directives, no comments), the ``scop`` they give,
    ``note`` what was measured."""

    lines: list
    scop: object
    note: str
    exact: bool = False
    timings: dict = field(default_factory=dict)

    @property
    def steps(self) -> list[str]:
        """The directives, one a line."""
        return self.lines

    def text(self, comments: bool = True) -> str:
        """The script, one directive a line."""
        return "".join(ln + "\n" for ln in self.lines)


def _options(args: list[str]) -> tuple[float, int | None, dict]:
    """``BUDGET``, ``threads=N`` and ``-D NAME=V`` from ``:tune``'s words."""
    from clayx.tune import DEFAULT_BUDGET
    budget, threads, defines = None, None, {}
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a.startswith("-D"):
            d = a[2:] or (rest.pop(0) if rest else "")
            name, eq, value = d.partition("=")
            if not name.isidentifier():
                raise CommandError(f"-D {d}: expected NAME=VALUE; usage: {USAGE}")
            defines[name] = value if eq else None
        elif a.startswith("threads="):
            v = a[len("threads="):]
            if not v.isdigit() or int(v) < 1:
                raise CommandError(f"{a!r}: threads is a positive whole number")
            threads = int(v)
        elif budget is None:
            try:
                budget = float(a)
            except ValueError:
                raise CommandError(f"unexpected {a!r}; usage: {USAGE}") from None
            if not budget > 0:
                raise CommandError(f"the budget is a positive number of seconds, not {a}")
        else:
            raise CommandError(f"unexpected {a!r}; usage: {USAGE}")
    return (DEFAULT_BUDGET if budget is None else budget), threads, defines


@command("tune", USAGE, "measure candidate schedules from here, offer the fastest")
def _tune(repl, args: list[str]) -> bool:
    """Tune from the current state (:mod:`clayx.tune`): candidate
    schedules (the original loops in parallel, privatized, distributed and
    permuted; isl's presets, tile sizes, loop orders, marks) continue the
    applied steps; each is compiled (``$CC``/``$CFLAGS``, default ``gcc -O3
    -fopenmp``), checked to print what the current code prints and timed
    (SCoP regions) for ``BUDGET`` seconds (default 60); the winner must beat
    the current code in a final interleaved measurement by more than the
    noise.  ``threads=N`` sets ``OMP_NUM_THREADS``; ``-D NAME=V`` a size.
    The winner is kept pending as ``:auto``'s script: ``:tune accept
    [K]`` applies it (or its first K steps), ``:edit`` edits it."""
    if args and args[0] in ("accept", "show", "drop"):
        return lookup("auto").func(repl, args)
    import clayx.tune as tuner
    from clayx.session import Session
    budget, threads, defines = _options(args)
    s = repl.session
    if s.original.source is None or not repl.path:
        raise CommandError(":tune needs a C file (this session has no C source)")
    start = s.current
    repl.note(f"tuning from the {'current state' if s.entries else 'original'} for "
              f"{budget:g} s: compiling, checking and timing candidates …")
    bar, progress = tuner.progress_bar(repl.console, budget)
    t0 = time.perf_counter()
    with bar:
        result = tuner.tune(s, budget=budget, threads=threads, defines=defines or None,
                            progress=progress, current=True)
    repl.print(Text(result.table() + "\n"))
    best = result.best
    if best is result.original:
        repl.note("nothing to accept: the current code is the fastest (no candidate beat it "
                  "beyond the noise)")
        return True
    lines = [ln.partition("#")[0].strip() for ln in best.script.splitlines()]
    lines = [ln for ln in lines if ln]
    after = Session(start, others=s.others)
    after.apply("".join(ln + "\n" for ln in lines))
    note = f"legality checked, measured {result.confirmed:.2f}x the current code"
    pending = auto.Pending(TunedScript(lines, after.current, note),
                           f":tune {budget:g}s: {best.candidate.label}", start)
    auto.keep(repl, pending, time.perf_counter() - t0)
    return True
