"""The prompt's automatic scheduling: ``:auto``, ``:whitebox``, ``:edit``.

``:auto [PRESET] [tile=N] [NAME=V …]`` computes isl's automatic schedule
from the current state (:meth:`clayx.Session.auto_result`) and
``:whitebox FILE`` the way to an external target
(:meth:`clayx.Session.whitebox`); both show the recovered, replay-checked
Clay script beside the code it produces, with its parallel loops, and keep
it *pending*: nothing is applied until

- ``:auto accept`` applies it all, ``:auto accept K`` its first ``K`` steps
  (each checked again, as ``:load`` applies a script);
- ``:edit`` opens it in ``$EDITOR`` (``$VISUAL``, else ``vi``) and replays
  what was saved;
- ``:auto show`` shows it again, ``:auto drop`` forgets it.

A pending script starts from the state it was computed on: once the state
changes (a step, undo…), accepting it is refused until it is recomputed.

Work that runs longer than :data:`PROGRESS_AFTER` seconds shows its phase
(scheduling, recovering, careful retries, simplifying, replaying) with its
counts on one transient line (:class:`Progress`); never when the console
is not a terminal, so batch output stays as it is.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table
from rich.text import Text

from clayx.codegen import generate_region
from clayx.view import loop_label

from . import render
from .commands import CommandError, command, load_script

__all__ = ["PROGRESS_AFTER", "Pending", "Progress", "isl_options", "keep", "pending"]

USAGE = ":auto [PRESET] [tile=N] [NAME=V …] | :auto accept [K] | :auto show | :auto drop"


#: Seconds of work after which ``:auto`` and ``:whitebox`` show their
#: progress (shorter work shows nothing).
PROGRESS_AFTER = 0.3


class Progress:
    """The ``progress(phase, done, total)`` callback of
    :func:`clayx.whitebox.whitebox` (and :meth:`clayx.Session.auto`) for the
    prompt: once the work has run ``after`` seconds (by ``clock``; default
    :data:`PROGRESS_AFTER`), a
    transient rich line on ``console`` shows the phase, its counts
    (legality checks of the search, steps replayed) and the time; nothing
    when ``console`` is not a terminal.  A context manager: the line goes
    away on exit."""

    def __init__(self, console, *, after: float | None = None, clock=time.perf_counter):
        self.console = console
        self.after = PROGRESS_AFTER if after is None else after
        self.clock = clock
        self.start = clock()
        self.live = None
        self.task = None
        self.shown: list[str] = []          # the phases shown, in order

    def __call__(self, phase: str, done: int = 0, total: int | None = None) -> None:
        if not self.console.is_terminal:
            return
        if self.live is None:
            if self.clock() - self.start < self.after:
                return
            from rich.progress import Progress as Bar
            from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn
            self.live = Bar(SpinnerColumn(), TextColumn("{task.description}"),
                            TimeElapsedColumn(), console=self.console, transient=True)
            self.task = self.live.add_task("")
            self.live.start()
        if not self.shown or self.shown[-1] != phase:
            self.shown.append(phase)
        self.live.update(self.task, description=self.describe(phase, done, total))

    @staticmethod
    def describe(phase: str, done: int = 0, total: int | None = None) -> str:
        """The line shown for a phase and its counts."""
        if phase == "replaying" and total:
            return f"{phase}: step {done} of {total}"
        if phase.startswith(("recovering", "careful retry")) and done:
            return f"{phase}: {done} legality checks" + (f" (at most {total})" if total else "")
        return f"{phase}…"

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


@dataclass
class Pending:
    """A recovered script waiting for the user: the
    :class:`~clayx.WhiteboxResult`, what produced it (``what``), and the
    SCoP it starts from (``start``)."""

    result: object
    what: str
    start: object

    @property
    def steps(self) -> list[str]:
        """The steps as script lines (no comments)."""
        return [ln for ln in self.result.text(comments=False).splitlines() if ln.strip()]


def pending(repl) -> Pending | None:
    """The pending script of the prompt ``repl`` (None when there is none)."""
    return getattr(repl, "auto_pending", None)


def isl_options(pairs) -> dict:
    """Scheduler options written ``NAME=V`` (``--isl`` on the command line,
    ``:auto``'s words) as keyword arguments of :meth:`clayx.Session.auto`:
    an integer, or dependence kinds separated by commas
    (``proximity=RAW,WAR``)."""
    out: dict = {}
    for pair in pairs:
        name, eq, value = (t.strip() for t in pair.partition("="))
        if not eq or not name or not value:
            raise CommandError(f"{pair!r}: expected NAME=VALUE")
        try:
            out[name] = int(value)
        except ValueError:
            out[name] = tuple(v.strip() for v in value.split(",") if v.strip())
    return out


def _options(words: list[str]) -> tuple[str, int, dict]:
    """``PRESET``, ``tile=N`` and isl options ``NAME=V`` from ``:auto``'s
    words."""
    preset, tile = "cpu", 32
    if words and "=" not in words[0]:
        preset, words = words[0], words[1:]
    for w in words:
        if "=" not in w:
            raise CommandError(f"{w!r}: expected NAME=VALUE after the preset; usage: {USAGE}")
    opts = isl_options(words)
    if "tile" in opts:
        tile = opts.pop("tile")
        if not isinstance(tile, int):
            raise CommandError(f"tile={','.join(tile)}: the tile size is a whole number "
                               "(0: no tiling)")
    return preset, tile, opts


@command("auto", USAGE, "isl's automatic schedule as a Clay script to accept or edit")
def _auto(repl, args: list[str]) -> bool:
    """Compute the automatic schedule of the current state (``PRESET``:
    ``cpu`` (default), ``gpu``, ``feautrier``, ``nofuse``, ``maxfuse``;
    ``tile=N`` the tile size, 0 for none; other ``NAME=V`` override isl's
    scheduler options, as ``outer_coincidence=1``), whitebox it into Clay
    directives replayed and checked before they are shown, and show them
    beside the code they produce.  Nothing is applied: ``:auto accept``
    applies the script, ``:auto accept K`` its first K steps, ``:edit``
    edits it in ``$EDITOR`` and replays it."""
    if args and args[0] == "accept":
        return _accept(repl, args[1:])
    if args and args[0] in ("show", "drop"):
        if len(args) > 1:
            raise CommandError(f"usage: :auto {args[0]}")
        p = _need(repl)
        if args[0] == "drop":
            repl.auto_pending = None
            repl.note(f"dropped the pending script ({p.what})")
        else:
            _show(repl, p)
        return True
    preset, tile, opts = _options(args)
    what = f"{preset}, tile {tile}" + "".join(f", {k}={v}" for k, v in opts.items())
    s = repl.session
    repl.note(f"computing the {preset} schedule (isl) and the Clay directives that reach "
              "it…")
    t0 = time.perf_counter()
    with Progress(repl.console) as told:
        result = s.auto_result(preset, tile, progress=told, **opts)
    keep(repl, Pending(result, f":auto {what}", s.current), time.perf_counter() - t0)
    return True


@command("whitebox", ":whitebox FILE", "the Clay script to an external target schedule",
         complete="path")
def _whitebox(repl, args: list[str]) -> bool:
    """The Clay directives from the current state to the schedule of
    ``FILE`` (a ``.c`` or ``.scop`` file, Clay's or Pluto's scattering, an
    isl schedule tree in YAML as ``ppcg --save-schedule`` writes it, or an
    isl union map), replayed and checked, shown as ``:auto`` shows its
    script; accept it with ``:auto accept [K]`` or edit it with ``:edit``.
    A target that breaks a dependence is refused with the witness."""
    if len(args) != 1:
        raise CommandError("usage: :whitebox FILE")
    path = Path(args[0]).expanduser()
    if not path.exists():
        raise CommandError(f"cannot read {args[0]}: no such file")
    s = repl.session
    repl.note(f"whiteboxing {args[0]}…")
    t0 = time.perf_counter()
    with Progress(repl.console) as told:
        result = s.whitebox(path, progress=told)
    keep(repl, Pending(result, f":whitebox {args[0]}", s.current), time.perf_counter() - t0)
    return True


@command("edit", ":edit", "edit the pending :auto/:whitebox script in $EDITOR, replay it")
def _edit(repl, args: list[str]) -> bool:
    """Open the pending script (of ``:auto`` or ``:whitebox``) in
    ``$EDITOR`` (else ``$VISUAL``, else ``vi``); what is saved is applied
    step by step, as ``:load`` does, stopping at the first refused step."""
    if args:
        raise CommandError("usage: :edit")
    p = _need(repl, fresh=True)
    editor = os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi"
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "auto.clay"
        f.write_text(f"# {p.what}: edit, save and quit to replay\n" + p.result.text())
        try:
            done = subprocess.run(shlex.split(editor) + [str(f)], check=False)
        except OSError as e:
            raise CommandError(f"cannot run the editor {editor!r}: {e}") from None
        if done.returncode != 0:
            raise CommandError(f"the editor {editor!r} exited with status "
                               f"{done.returncode}; nothing applied")
        text = f.read_text()
    repl.auto_pending = None
    load_script(repl, text, "the edited script")
    return True


def _need(repl, *, fresh: bool = False) -> Pending:
    p = pending(repl)
    if p is None:
        raise CommandError("no pending script: :auto or :whitebox FILE computes one")
    if fresh and p.start is not repl.session.current:
        raise CommandError(f"the state changed since {p.what}; run it again (the script "
                           "starts from the state it was computed on)")
    return p


def _accept(repl, args: list[str]) -> bool:
    p = _need(repl, fresh=True)
    n = len(p.steps)
    if len(args) > 1:
        raise CommandError("usage: :auto accept [K]")
    k = n
    if args:
        try:
            k = int(args[0])
        except ValueError:
            raise CommandError(f"{args[0]!r}: K is a number of steps (1 to {n})") from None
        if not 1 <= k <= n:
            raise CommandError(f"cannot accept {k} steps: the script has {n}")
    repl.auto_pending = None
    load_script(repl, "\n".join(p.steps[:k]) + "\n", f"{p.what} ({k} of {n} steps)")
    return True


def keep(repl, p: Pending, seconds: float) -> None:
    """Make ``p`` the pending script of the prompt and show it (``:auto``,
    ``:whitebox`` and ``:tune`` end so; ``seconds`` it took)."""
    repl.auto_pending = p
    t = p.result.timings
    parts = [f"{k} {1000 * t[k]:.0f} ms" for k in ("read", "recover", "simplify", "replay")
             if k in t]
    auto = getattr(p.result, "auto", None)
    if auto is not None:
        parts.insert(0, f"isl {1000 * auto.timings.get('isl', 0):.0f} ms")
    repl.note(f"done in {1000 * seconds:.0f} ms ({', '.join(parts)})")
    _show(repl, p)


def _show(repl, p: Pending) -> None:
    """The script beside the code it produces, the parallel loops, what to
    do next."""
    r = p.result
    script = Text()
    for k, line in enumerate(r.text().splitlines(), 1):
        script.append(f"{k:3d}  ", style="dim")
        step, _, comment = line.partition("#")
        script.append(step.rstrip())
        if comment:
            script.append("  # " + comment.strip(), style="dim")
        script.append("\n")
    if not r.steps:
        script.append("(no step: the target is the current schedule)\n", style="dim")
    script.rstrip()
    code = "".join(ln for ln in generate_region(r.scop, target="omp").splitlines(True)
                   if not ln.startswith(("#define", "#undef")))
    grid = Table(show_header=True, show_edge=False, box=None, padding=(0, 2),
                 header_style="bold")
    check = ("replayed ✓ same dates" if r.exact else f"replayed ✓ {r.note}")
    repl.print(Text(f"{p.what}: {len(r.steps)} steps, {check}", style="bold"))
    grid.add_column("recovered script")
    grid.add_column("code it produces (omp)")
    grid.add_row(script, render.highlight_c(code.rstrip("\n")))
    repl.print(grid)
    marks = [m for m in r.scop.schedule.marks if m.kind == "parallel"]
    if marks:
        loops = "; ".join(f"{list(m.loop)} {loop_label(r.scop, m.loop)}" for m in marks)
        repl.print(Text(f"parallel loops: {loops}", style="magenta"))
    else:
        repl.note("no parallel loop")
    repl.note(":auto accept applies it, :auto accept K its first K steps, :edit edits it "
              "in $EDITOR, :auto drop forgets it")
