"""The prompt's commands: ``:help``, ``:code``, ``:diff``, ``:schedule``,
``:tree``, ``:deps``, ``:undo``, ``:redo``, ``:history``, ``:save``,
``:load``, ``:emit``, ``:verify``, ``:reset``, ``:quit``; ``:auto``,
``:whitebox`` and ``:edit`` are in :mod:`.auto`, ``:tune`` in :mod:`.tune`.

Each is a function ``(repl, args) -> bool`` (False ends the prompt)
registered with :func:`command`, which also records its usage line, its
one-line summary (``:help`` and completion show them), what its argument
completes to, and its docstring (``:help :name``).  Commands only read the
session or call its API (``undo``, ``redo``, ``reset``, ``apply``,
``code``): no transformation logic lives here.
"""

from __future__ import annotations

import math
import re
import shlex
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rich.text import Text

from clayx.errors import ClayxError

from . import render

__all__ = ["COMMANDS", "Command", "CommandError", "command", "load_script", "lookup",
           "verify_sizes"]


class CommandError(ClayxError):
    """A prompt command was misused (unknown command, bad or missing
    argument, unreadable file)."""


@dataclass(frozen=True)
class Command:
    """A registered prompt command."""

    name: str
    usage: str
    summary: str
    func: Callable
    complete: str | None = None
    doc: str = ""


COMMANDS: dict[str, Command] = {}
ALIASES = {"exit": "quit", "q": "quit", "h": "help", "?": "help"}


def command(name: str, usage: str, summary: str, complete: str | None = None):
    """Register a command function under ``name``."""
    def deco(func):
        COMMANDS[name] = Command(name, usage, summary, func, complete,
                                 (func.__doc__ or "").strip())
        return func
    return deco


def lookup(name: str) -> Command:
    """The command called ``name`` (with or without ``:``, or an alias)."""
    name = name.lstrip(":")
    name = ALIASES.get(name, name)
    if name not in COMMANDS:
        near = [c for c in COMMANDS if c.startswith(name[:2])] if name else []
        hint = f" (did you mean {', '.join(':' + c for c in near)}?)" if near else ""
        raise CommandError(f"unknown command ':{name}'{hint}; :help lists them")
    return COMMANDS[name]


def _args(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as e:
        raise CommandError(f"cannot read the arguments: {e}") from None


def _at_most(args: list[str], n: int, usage: str) -> None:
    if len(args) > n:
        raise CommandError(f"too many arguments; usage: {usage}")


def _count(args: list[str], usage: str) -> int:
    _at_most(args, 1, usage)
    if not args:
        return 1
    if not re.fullmatch(r"\d+", args[0]):
        raise CommandError(f"expected a number of steps, got {args[0]!r}; usage: {usage}")
    return int(args[0])


# --- help -----------------------------------------------------------------------------

@command("help", ":help [directive|:command]", "this help, or a directive's documentation",
         complete="directive")
def _help(repl, args: list[str]) -> bool:
    """Without argument: the commands, the keys and the directives.  With a
    directive name or alias: its signature, aliases and documentation
    (arguments, a before/after sketch, the legality check).  With a command
    name: what it does."""
    _at_most(args, 1, ":help [directive|:command]")
    if args:
        name = args[0]
        from clayx.directives import lookup as dlookup
        from clayx.errors import DirectiveError
        if not name.startswith(":"):
            try:
                repl.print(render.directive_help(dlookup(name)))
                return True
            except DirectiveError:
                pass
        try:
            c = lookup(name)
        except CommandError:
            raise CommandError(f"no directive or command named {name!r}; "
                               ":help lists them") from None
        out = Text()
        out.append(c.usage + "\n", style="bold")
        out.append(c.summary + "\n\n")
        import inspect
        out.append(inspect.cleandoc(c.doc) + "\n")
        repl.print(out)
        return True
    from clayx.directives import REGISTRY
    out = Text()
    out.append("Type Clay directives, e.g. ", style="")
    out.append("interchange([0, 0], 1, 2);", style="bold")
    out.append(" several per line if you like.\nEnter runs them when the brackets are "
               "balanced; Alt-Enter or Esc Enter adds a line.\nEach step is checked "
               "against the exact dependences: an illegal one is refused, nothing changes.\n\n")
    out.append("Commands\n", style="bold")
    width = max(len(c.usage) for c in COMMANDS.values())
    for c in COMMANDS.values():
        out.append(f"  {c.usage:<{width}}  ", style="cyan")
        out.append(c.summary + "\n")
    out.append("  help, quit and exit work without ':'\n\n", style="dim")
    out.append("Keys\n", style="bold")
    out.append("  Tab completes directive names and β-vectors (with what they are), "
               "Ctrl-R searches the history,\n  Ctrl-C clears the line, Ctrl-D quits.\n\n")
    out.append("Directives", style="bold")
    out.append("  (:help NAME for one)\n", style="dim")
    for n in sorted(REGISTRY):
        d = REGISTRY[n]
        if d.kind in ("query", "control"):
            continue
        out.append(f"  {d.signature}")
        if d.aliases:
            out.append(f"   aliases: {', '.join(d.aliases)}", style="dim")
        out.append("\n")
    out.append("Queries", style="bold")
    out.append("  (values for arguments: i = get_beta_loop(1); fuse(i);)\n", style="dim")
    out.append("  " + ", ".join(sorted(n for n, d in REGISTRY.items() if d.kind == "query"))
               + "\n")
    out.append("Control", style="bold")
    out.append("  " + ", ".join(REGISTRY[n].signature for n in sorted(REGISTRY)
                                if REGISTRY[n].kind == "control") + "\n")
    repl.print(out)
    return True


# --- looking at the state --------------------------------------------------------------

def _target(args: list[str], repl, usage: str, allowed=("c", "omp")) -> str:
    t = args[0] if args else repl.target
    if t not in allowed:
        raise CommandError(f"unknown target {t!r} (available: {', '.join(allowed)}); "
                           f"usage: {usage}")
    return t


@command("code", ":code [c|omp] [all]", "the current code, highlighted", complete="target")
def _code(repl, args: list[str]) -> bool:
    """The code regenerated from the current schedule for the target (``c``,
    or ``omp``: OpenMP pragmas on the loops marked parallel or vectorize);
    the SCoP regions only, or the whole file with ``all``.  The target
    becomes the current one (shown in the bottom bar; ``:verify`` and
    ``:emit`` use it)."""
    usage = ":code [c|omp] [all]"
    whole = "all" in args
    args = [a for a in args if a != "all"]
    _at_most(args, 1, usage)
    target = _target(args, repl, usage)
    text = repl.code(target)
    repl.target = target
    shown = text if whole else render.scop_regions(text)
    repl.print(render.highlight_c(shown))
    return True


@command("diff", ":diff", "original vs current code")
def _diff(repl, args: list[str]) -> bool:
    """A unified diff of the original file and the current code (current
    target)."""
    _at_most(args, 0, ":diff")
    s = repl.session
    original = s.original.source
    current = repl.code(repl.target)
    if original is None:
        from clayx.codegen import generate_region
        original = generate_region(s.original)
    if original == current:
        repl.print(Text("no difference: the code is the original's", style="dim"))
        return True
    repl.print(render.diff(original, current, f"{repl.name} (original)",
                           f"{repl.name} (current, {repl.target})"))
    return True


@command("schedule", ":schedule", "the scheduling relations, β and α apart")
def _schedule(repl, args: list[str]) -> bool:
    """Per statement: each scheduling relation with its β-vector and its α
    expressions apart, then the isl relation ``S[i…] -> [β0, α1, β1, …]``;
    and the marks."""
    _at_most(args, 0, ":schedule")
    repl.print(render.schedule(repl.session.current))
    return True


@command("tree", ":tree", "the β-tree: loops, statements, marks")
def _tree(repl, args: list[str]) -> bool:
    """The β-tree of the current schedule: each loop with its β-prefix, the
    α expression it runs (original iterator names) and its marks; each
    statement with its β-vector and body."""
    _at_most(args, 0, ":tree")
    repl.print(render.tree(repl.session.current))
    return True


@command("deps", ":deps [stmt]", "the dependences and whether they hold now",
         complete="statement")
def _deps(repl, args: list[str]) -> bool:
    """The dependences of the original program (RAW, WAR, WAW, and RAR for
    locality), optionally only those of one statement: kind, source and sink
    statements, array, distance vector over the common loops (or direction
    when not constant), the loop depth that carries it under the current
    schedule, and whether the current schedule satisfies it."""
    _at_most(args, 1, ":deps [stmt]")
    scop = repl.session.current
    stmt = args[0] if args else None
    if stmt is not None and stmt not in {s.name for s in scop.statements}:
        raise CommandError(f"no statement {stmt!r} (statements: "
                           f"{', '.join(s.name for s in scop.statements)})")
    table = render.deps_table(scop, repl.session.deps, stmt)
    if not table.row_count:
        repl.print(Text("no dependences" + (f" of {stmt}" if stmt else ""), style="dim"))
    else:
        repl.print(table)
    return True


# --- history ------------------------------------------------------------------------------

@command("undo", ":undo [n]", "undo the last n steps (1)")
def _undo(repl, args: list[str]) -> bool:
    """Undo the last ``n`` steps (default 1); ``:redo`` brings them back."""
    n = _count(args, ":undo [n]")
    s = repl.session
    before = s.current
    gone = [str(e.step) for e in s.entries[len(s.entries) - n:]] if n else []
    s.undo(n)
    repl.note(f"undid {n} step{'s' * (n != 1)}: " + " ".join(gone) if n else "nothing undone")
    repl.show_change(before, s.current)
    return True


@command("redo", ":redo [n]", "redo n undone steps (1)")
def _redo(repl, args: list[str]) -> bool:
    """Redo ``n`` undone steps (default 1)."""
    n = _count(args, ":redo [n]")
    s = repl.session
    before = s.current
    back = [str(e.step) for e in s.undone[:n]]
    s.redo(n)
    repl.note(f"redid {n} step{'s' * (n != 1)}: " + " ".join(back) if n else "nothing redone")
    repl.show_change(before, s.current)
    return True


@command("reset", ":reset", "back to the original schedule (redo still works)")
def _reset(repl, args: list[str]) -> bool:
    """Back to the original schedule; the steps can be redone."""
    _at_most(args, 0, ":reset")
    s = repl.session
    before = s.current
    s.reset()
    repl.note("back to the original schedule")
    repl.show_change(before, s.current)
    return True


@command("history", ":history", "the applied steps (and the undone ones)")
def _history(repl, args: list[str]) -> bool:
    """The applied steps, numbered, then the undone ones that ``:redo``
    would bring back."""
    _at_most(args, 0, ":history")
    s = repl.session
    out = Text()
    if not s.entries and not s.undone:
        out.append("no steps yet\n", style="dim")
    for k, e in enumerate(s.entries, 1):
        out.append(f"{k:3d}  ", style="dim")
        out.append(str(e.step) + "\n")
    for e in s.undone:
        out.append("     " + str(e.step) + "   (undone)\n", style="dim")
    repl.print(out)
    return True


@command("save", ":save FILE", "write the applied steps as a Clay script", complete="path")
def _save(repl, args: list[str]) -> bool:
    """Write the applied steps to ``FILE`` as a Clay script, which
    ``:load FILE`` or ``clayx FILE.c --script FILE`` replays."""
    if len(args) != 1:
        raise CommandError("usage: :save FILE")
    text = f"# clayx script for {repl.name}\n{repl.session.script}"
    try:
        Path(args[0]).expanduser().write_text(text)
    except OSError as e:
        raise CommandError(f"cannot write {args[0]}: {e}") from None
    n = len(repl.session.entries)
    repl.note(f"saved {n} step{'s' * (n != 1)} to {args[0]}")
    return True


@command("load", ":load FILE", "apply a saved script step by step", complete="path")
def _load(repl, args: list[str]) -> bool:
    """Apply the Clay script in ``FILE`` one step at a time (each checked;
    consecutive data-layout steps together, as the session checks them:
    the groups of ``Session.plan``); stop at the first refused or wrong
    step with its explanation, keeping the steps before it, or at
    ``break()``."""
    if len(args) != 1:
        raise CommandError("usage: :load FILE")
    try:
        text = Path(args[0]).expanduser().read_text()
    except OSError as e:
        raise CommandError(f"cannot read {args[0]}: {e}") from None
    load_script(repl, text, args[0])
    return True


def applied(session, text) -> tuple[list, list[str]]:
    """``session.apply(text)``: the new entries, and the warnings its steps
    gave (Clay's, :class:`~clayx.errors.DirectiveWarning`), which the REPL
    shows under the step rather than on standard error."""
    import warnings
    from clayx.errors import DirectiveWarning
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", DirectiveWarning)
        new = session.apply(text)
    for w in seen:
        if not issubclass(w.category, DirectiveWarning):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return new, [str(w.message) for w in seen if issubclass(w.category, DirectiveWarning)]


def load_script(repl, text: str, name: str) -> bool:
    """Apply the Clay script ``text`` (from ``name``) step by step as
    ``:load`` does -- in the check groups of
    :meth:`clayx.session.Session.plan` --, printing each group and what it
    changed; True when every step was applied."""
    from clayx.script import Script
    script = Script.parse(text, path=name)
    s = repl.session
    start = s.current
    n = len(script.steps)
    for group in s.plan(script):
        before = s.current
        first, k = group.start + 1, group.stop
        label = Text(f"[{first}/{n}] " if first == k else f"[{first}-{k}/{n}] ", style="dim")
        label.append(" ".join(str(st) for st in group.steps))
        try:
            _, said = applied(s, Script(group.steps))
        except ClayxError as e:
            repl.print(label)
            line_text = text if getattr(e, "line", None) is not None else None
            repl.print(render.error(e, line_text, steps=len(s.entries)))
            repl.note(f"stopped at step {first} of {n}; {first - 1} applied")
            if first > 1:
                repl.show_change(start, s.current, words=False)
            return False
        label.append("  ✓", style="green")
        repl.print(label)
        for w in said:
            repl.note(f"  warning: {w}")
        ch = render.changes(before, s.current)
        for ln in ch.lines:
            repl.print(ln)
    repl.note(f"applied {n} step{'s' * (n != 1)} from {name}")
    repl.show_change(start, s.current, words=False)
    return True


# --- output -----------------------------------------------------------------------------------

@command("emit", ":emit TARGET [-o FILE]", "write the code (c, omp) or OpenScop (scop)",
         complete="target")
def _emit(repl, args: list[str]) -> bool:
    """The whole file for ``TARGET`` (``c``, ``omp``, or ``scop`` for the
    OpenScop form of the current SCoP), printed as is or written to
    ``FILE`` with ``-o``."""
    usage = ":emit TARGET [-o FILE]"
    out_file = None
    if "-o" in args:
        k = args.index("-o")
        if k + 1 >= len(args):
            raise CommandError(f"-o needs a file name; usage: {usage}")
        out_file = args[k + 1]
        args = args[:k] + args[k + 2:]
    _at_most(args, 1, usage)
    target = _target(args, repl, usage, allowed=("c", "omp", "scop"))
    if target == "scop":
        # refused like code while an unchecked step is applied (unless the
        # prompt was opened with --unchecked); the text then records them
        text = repl.session.openscop(unchecked=repl.unchecked)
    else:
        text = repl.code(target)
        repl.target = target
    if out_file is None:
        repl.print(Text(text))
        return True
    try:
        Path(out_file).expanduser().write_text(text)
    except OSError as e:
        raise CommandError(f"cannot write {out_file}: {e}") from None
    repl.note(f"wrote {target} to {out_file}")
    return True


def verify_sizes(scop, path: str | Path) -> tuple[dict[str, int], str]:
    """The ``-D`` sizes ``:verify`` compiles with, and where they come from.

    A bundled example (or a copy of one: it defines every macro of its
    entry) gets :data:`clayx.verify.SMALL_SIZES`; otherwise the integer
    macros that are SCoP parameters and can be set from the command line
    (guarded by ``#ifndef N``) are scaled down together so the largest is at
    most 20 (each at least 2); a file with no such macro runs with its own
    sizes."""
    from clayx.verify import SMALL_SIZES
    stem = Path(path).stem
    src = scop.source or ""
    small = SMALL_SIZES.get(stem)
    if small and all(re.search(rf"#\s*define\s+{re.escape(k)}\b", src) for k in small):
        return dict(small), f"the small sizes of the bundled example {stem}"
    vals = {k: v for k, v in scop.param_values.items()
            if isinstance(v, int) and v > 0 and re.search(
                rf"#\s*if(ndef\s+{re.escape(k)}\b|\s*!\s*defined\s*\(?\s*{re.escape(k)}\b)",
                src)}
    if not vals:
        return {}, "the file's own sizes"
    factor = max(1, math.ceil(max(vals.values()) / 20))
    sizes = {k: max(2, math.ceil(v / factor)) for k, v in vals.items()}
    how = "the file's size macros" + (f" divided by {factor}" if factor > 1 else "")
    return sizes, how


@command("verify", ":verify", "compile and run original and current code, compare outputs")
def _verify(repl, args: list[str]) -> bool:
    """Compile the original file and the current code (current target;
    ``omp`` is built with ``-fopenmp``) with gcc, run both, and compare
    every array they print, bit for bit (``clayx.verify``).

    Sizes (``-D`` macros): a bundled example uses its small test sizes
    (``clayx.verify.SMALL_SIZES``); another file's integer size macros
    that are SCoP parameters and are guarded by ``#ifndef`` (so ``-D`` can
    set them) are scaled down together so the largest is at most 20; a
    file without such macros runs with its own sizes.  The file
    must be a whole program (a ``main`` that prints its output arrays in the
    ``begin dump: A`` … ``end   dump: A`` format of the examples)."""
    _at_most(args, 0, ":verify")
    from clayx.verify import verify
    s = repl.session
    if s.original.source is None or not repl.path:
        raise CommandError(":verify needs a C file (this session has no C source)")
    target = repl.target if repl.target in ("c", "omp") else "c"
    sizes, how = verify_sizes(s.original, repl.path)
    shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
    repl.note(f"compiling and running the original and the current code ({target}; "
              + (f"{shown}: {how}" if shown else how) + ") …")
    code = repl.code(target)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="clayx-verify-") as tmp:
        gen = Path(tmp) / f"{Path(repl.path).stem}.clayx.c"
        gen.write_text(code)
        result = verify(repl.path, gen, sizes, openmp=(target == "omp"),
                        workdir=Path(tmp) / "work")
    dt = time.perf_counter() - t0
    out = Text()
    if result.ok:
        out.append("✓ same output: ", style="bold green")
        out.append(f"{len(result.arrays)} array{'s' * (len(result.arrays) != 1)} "
                   f"({', '.join(result.arrays)}), {result.values} values compared bit for bit; "
                   f"run times {result.original_seconds:.3f} s (original), "
                   f"{result.generated_seconds:.3f} s (current); {dt:.1f} s in all\n")
        if result.note:
            out.append("  " + result.note + "\n", style="yellow")
    repl.print(out)
    return True


@command("run", ":run [THREADS] [-D NAME=V …]", "time the SCoP regions: original vs current",
         complete=None)
def _run(repl, args: list[str]) -> bool:
    """Compile the original file and the current code (OpenMP target:
    ``$CC``/``$CFLAGS``, default ``gcc -O3 -fopenmp``), check that they
    print the same output, and time the SCoP regions themselves, 5 runs
    each (``clayx.run``).  ``THREADS`` sets ``OMP_NUM_THREADS``; ``-D
    NAME=V`` sets a size (the file's own sizes otherwise, so the region runs
    long enough to time)."""
    from clayx.run import measure_session
    usage = ":run [THREADS] [-D NAME=V …]"
    s = repl.session
    if s.original.source is None or not repl.path:
        raise CommandError(":run needs a C file (this session has no C source)")
    threads, defines, rest = None, {}, list(args)
    while rest:
        a = rest.pop(0)
        if a == "-D" or a.startswith("-D"):
            d = a[2:] or (rest.pop(0) if rest else "")
            name, eq, value = d.partition("=")
            if not name.isidentifier():
                raise CommandError(f"-D {d}: expected NAME=VALUE; usage: {usage}")
            defines[name] = value if eq else None
        elif a.isdigit() and threads is None and int(a) > 0:
            threads = int(a)
        else:
            raise CommandError(f"unexpected {a!r}; usage: {usage}")
    repl.note("compiling, checking and timing the original and the current code …")
    result = measure_session(s, unchecked=repl.unchecked, defines=defines, threads=threads)
    repl.print(Text(result.table() + "\n"))
    return True


@command("quit", ":quit", "leave (also Ctrl-D)")
def _quit(repl, args: list[str]) -> bool:
    """Leave the prompt (``exit``, ``quit`` and Ctrl-D too)."""
    return False


def run(repl, text: str) -> bool:
    """Run one command line (``:name args``); False ends the prompt."""
    m = re.match(r"\s*:?(\S*)\s*(.*)\Z", text, re.S)
    c = lookup(m.group(1))
    return c.func(repl, _args(m.group(2)))


def is_command(text: str) -> bool:
    """True for a command line: ``:…``, or ``help``/``quit``/``exit``
    (optionally with an argument, for ``help``)."""
    t = text.strip()
    return t.startswith(":") or re.fullmatch(r"(help(\s+\S+)?|quit|exit)", t) is not None



# the automatic-scheduling commands (:auto, :whitebox, :edit) live in .auto,
# registered when it is imported
__import__(f"{__package__}.auto")
__import__(f"{__package__}.tune")       # :tune
