"""What the prompt shows: β-trees, schedules, dependence tables, the changes a
step made, code windows, errors and directive help.

Everything here reads the model (:class:`~clayx.model.Scop`, its
:class:`~clayx.model.ClaySchedule`, the session's dependences) and returns
:class:`rich.text.Text` or other rich renderables; nothing transforms a
schedule.  Statement bodies and code are always put into ``Text`` objects,
never parsed as rich markup (C subscripts look like markup tags).

The labels of loops, the β-tree's rows, the schedule diff and the
dependence rows are computed by the library (:mod:`clayx.view`); this
module only colours and lays them out.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Iterable

from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from clayx.errors import (ClayxError, DirectiveError, LegalityError,
                          ScriptSyntaxError)
from clayx.model import ClaySchedule, Scop
from clayx.script import argument_position
from clayx.view import (CARRIED, TIED, alpha_labels, dependence_rows, fmt_beta,
                        short, tree_lines)

Beta = tuple[int, ...]

#: Regions up to this many lines are shown whole after a step; longer ones
#: as windows around the loops that changed.
FULL_CODE_LINES = 30
#: Lines of context around a changed loop in a window.
CONTEXT_LINES = 2
#: Longest window shown after a step (the rest: ``:code``).
MAX_WINDOW_LINES = 40

#: The rich/pygments theme for C code (ANSI colours: readable on light and
#: dark terminals).
THEME = "ansi_dark"


# --- the β-tree ---------------------------------------------------------------------

def tree(scop: Scop, *, marks: bool = True, indent: str = "  ") -> Text:
    """The β-tree (:func:`clayx.view.tree_lines`, the one the command line
    prints): one line per loop (β-prefix, ``loop`` label, marks) and per
    statement (β-vector, name, body), nested by indentation, coloured."""
    rows = tree_lines(scop)
    out = Text()
    width = max((len(fmt_beta(t.beta)) + 2 * len(t.beta) for t in rows), default=4)
    for t in rows:
        pad = indent * t.level
        b = fmt_beta(t.beta)
        out.append(pad)
        out.append(b, style="cyan")
        out.append(" " * max(1, width - len(b) - len(pad) + 2))
        if t.is_loop:
            out.append("loop ", style="bold")
            out.append(t.label, style="bold green")
            if marks:
                for m in t.marks:
                    out.append(f"  [{m}]", style="magenta")
        else:
            out.append(t.stmt, style="yellow")
            if t.parts > 1:
                out.append(f" (part {t.part}/{t.parts})", style="dim")
            out.append("  " + short(t.body, 60))
        out.append("\n")
    return out



def summary(scop: Scop, deps, path: str, *, others: int = 0) -> Text:
    """The start-up summary: file, statements, parameters, the β-tree and
    the RAW/WAR/WAW dependence counts (RAR is left to ``:deps``: it is the
    slowest family to compute)."""
    sched = scop.schedule
    out = Text()
    out.append(path, style="bold")
    nloops = len(sched.loops())
    out.append(f": {len(scop.statements)} statement{'s' * (len(scop.statements) != 1)}, "
               f"{nloops} loop{'s' * (nloops != 1)}")
    if others:
        out.append(f" (the file has {others + 1} SCoPs; this is the first)", style="dim")
    out.append("\n")
    params = []
    for p in scop.params:
        v = scop.param_values.get(p)
        params.append(f"{p} = {v}" if v is not None else p)
    out.append("parameters: " + (", ".join(params) or "(none)") + "\n")
    out.append("β-tree:\n")
    out.append_text(tree(scop))
    counts = {k: 0 for k in ("RAW", "WAR", "WAW")}
    for d in deps.of_kind("RAW", "WAR", "WAW"):
        counts[d.kind] += 1
    out.append("dependences: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    out.append("  (RAR and details: :deps)\n", style="dim")
    return out


# --- the schedule ---------------------------------------------------------------------

def schedule(scop: Scop) -> Text:
    """Per statement: its body, then each relation with its β-vector and its
    α part apart, and the isl relation itself."""
    out = Text()
    sched = scop.schedule
    for st in scop.statements:
        out.append(st.name, style="bold yellow")
        out.append(f"[{', '.join(st.iterators)}]  ")
        out.append(short(st.body, 70) + "\n")
        for r in sched.of(st.name):
            out.append("  β ")
            out.append(fmt_beta(r.beta), style="cyan")
            out.append("   α (")
            out.append(", ".join(alpha_labels(r)), style="green")
            out.append(")\n")
            out.append(f"      {r.map}\n", style="dim")
    if sched.marks:
        out.append("marks: " + ", ".join(
            f"{m.kind}{'' if m.arg is None else ' ' + str(m.arg)} on {fmt_beta(m.loop)}"
            for m in sched.marks) + "\n")
    return out


# --- dependences ----------------------------------------------------------------------

def deps_table(scop: Scop, deps, stmt: str | None = None) -> Table:
    """The dependences (all kinds, RAR included) as a table
    (:func:`clayx.view.dependence_rows`): kind, source, sink, array,
    distance (or direction), the depth that carries it under the current
    schedule, and whether the current schedule satisfies it."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    for col in ("#", "kind", "source", "sink", "array", "distance", "carried (now)",
                "satisfied"):
        table.add_column(col)
    for k, row in enumerate(dependence_rows(scop, deps, stmt), 1):
        d = row.dependence
        c = row.carried
        carried = ("-" if c is None else "β (text order)" if c == 0
                   else f"{c} ({row.carried_by})")
        if d.kind == "RAR":
            ok = Text("n/a", style="dim")
        else:
            ok = Text("yes", style="green") if row.holds else Text("NO", style="bold red")
        table.add_row(str(k), d.kind, d.source, d.sink, d.array, row.distance, carried, ok)
    return table


# --- what a step changed ------------------------------------------------------------------

#: The style of each role of a :class:`clayx.view.Changes` segment.
ROLE_STYLES = {"beta": "cyan", "label": "green", "new-label": "bold green",
               "stmt": "yellow", "added": "bold green", "removed": "red",
               "changed": "bold yellow", "marked": "bold magenta", "unmarked": "magenta"}


@dataclass
class StepChanges:
    """:class:`clayx.view.Changes` with its lines as coloured ``Text``."""

    lines: list[Text] = field(default_factory=list)
    focus: list[Beta] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.lines)


def changes(old: Scop, new: Scop) -> StepChanges:
    """What a step changed (:func:`clayx.view.changes`), coloured."""
    from clayx.view import changes as diff_schedules
    ch = diff_schedules(old, new)
    out = []
    for ln in ch.lines:
        t = Text("  ")
        for text, role in ln:
            t.append(text, style=ROLE_STYLES.get(role, ""))
        out.append(t)
    return StepChanges(out, list(ch.focus))



# --- code -------------------------------------------------------------------------------

#: SCoPs with more relations than this show, after a step, only the code of
#: the top-level nests that changed (generating all of deriche's 47
#: relations takes ~70 ms; the step must answer within 100 ms).
PARTIAL_RELATIONS = 12


@dataclass
class Region:
    """Generated code of a SCoP region with the line range of every loop;
    ``partial`` when only some top-level nests were generated."""

    lines: list[str]
    loops: dict[Beta, list[tuple[int, int]]]     # β-prefix -> [(first, last)] 0-based
    partial: bool = False


def step_region(scop: Scop, focus: Iterable[Beta]) -> Region:
    """The code shown after a step: the whole region, or for a large SCoP
    (more than :data:`PARTIAL_RELATIONS` relations) only the top-level nests
    holding the ``focus`` loops."""
    tops = {b[0] for b in focus if b}
    sched = scop.schedule
    if len(sched.relations) <= PARTIAL_RELATIONS or not tops \
            or len(tops) == len(sched.children(())):
        return region(scop)
    return region(scop, only=tops)


def region(scop: Scop, *, only: set[int] | None = None) -> Region:
    """Generate the SCoP's region with the ``omp`` target (marks show as
    pragmas) and take each loop's lines, pragmas included, from the loop
    spans of the result (:class:`~clayx.codegen.GeneratedRegion`); with
    ``only``, just the top-level nests whose β0 is in it (for display)."""
    from dataclasses import replace

    from clayx.codegen import generate
    if only is not None:
        sched = scop.schedule
        scop = replace(scop, schedule=ClaySchedule(
            tuple(r for r in sched.relations if r.beta[0] in only),
            tuple(m for m in sched.marks if m.loop and m.loop[0] in only)))
    gen = generate(scop, target="omp")
    loops: dict[Beta, list[tuple[int, int]]] = {}
    for span in gen.loops:
        if span.beta is not None:
            loops.setdefault(tuple(span.beta), []).append((span.first, span.last))
    return Region(list(gen.lines), loops, partial=only is not None)


def warm_up(session) -> None:
    """Do the one-time work of the first step before the first prompt:
    import the directive, legality and printer modules, compile the C
    highlighter's patterns, build the legality caches of the session's
    dependences, and print the original code once (about 0.1 s; without
    it the first step would take that much longer than the next ones)."""
    import importlib
    importlib.import_module("clayx.directives")
    from clayx.view import is_legal
    highlight_c("int x;")
    try:
        is_legal(session.original, session.deps)
        region(session.original)
    except ClayxError:
        pass


def highlight_c(code: str) -> Text:
    """C code as highlighted :class:`Text` (no background, no padding)."""
    syn = Syntax(code, "c", theme=THEME, background_color="default")
    t = syn.highlight(code)
    t.rstrip()
    return t


def code_window(reg: Region, focus: Iterable[Beta]) -> Text:
    """The region's code; the lines of the ``focus`` loops marked ``»`` in
    the gutter.  Long regions are cut to windows around those loops."""
    focus = list(focus)
    marked: set[int] = set()
    for p in focus:
        for a, b in reg.loops.get(tuple(p), []):
            marked.update(range(a, b + 1))
    n = len(reg.lines)
    if n <= FULL_CODE_LINES or not marked:
        show = list(range(min(n, max(FULL_CODE_LINES, MAX_WINDOW_LINES))))
    else:
        keep: set[int] = set()
        for i in marked:
            keep.update(range(max(0, i - CONTEXT_LINES), min(n, i + CONTEXT_LINES + 1)))
        show = sorted(keep)[:MAX_WINDOW_LINES]
    hl = highlight_c("\n".join(reg.lines)).split("\n", allow_blank=True)
    out = Text()
    prev = -1
    for i in show:
        if i != prev + 1:
            out.append(f"  ⋮ ({i - prev - 1} lines)\n" if prev >= 0 else
                       f"  ⋮ ({i} lines)\n", style="dim")
        out.append("» " if i in marked else "  ", style="bold yellow")
        if i < len(hl):
            out.append_text(hl[i])
        out.append("\n")
        prev = i
    if prev < n - 1:
        out.append(f"  ⋮ ({n - 1 - prev} more lines: :code)\n", style="dim")
    if reg.partial:
        out.append("  (only the nests that changed; :code shows the whole region)\n",
                   style="dim")
    return out


def scop_regions(text: str) -> str:
    """The parts of a whole generated file from each ``#pragma scop`` line
    to its ``#pragma endscop`` line (the whole text when it has none)."""
    lines = text.splitlines()
    out: list[str] = []
    inside = False
    for ln in lines:
        s = ln.strip()
        if re.match(r"#\s*pragma\s+scop\b", s):
            inside = True
        if inside:
            out.append(ln)
        if re.match(r"#\s*pragma\s+endscop\b", s):
            inside = False
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n" if out else text


def diff(original: str, current: str, a: str = "original", b: str = "current") -> Text:
    """A unified diff of two texts, highlighted."""
    lines = list(difflib.unified_diff(original.splitlines(), current.splitlines(),
                                      a, b, lineterm=""))
    out = Text()
    for ln in lines:
        style = ("bold" if ln.startswith(("---", "+++")) else
                 "cyan" if ln.startswith("@@") else
                 "green" if ln.startswith("+") else
                 "red" if ln.startswith("-") else "")
        out.append(ln + "\n", style=style)
    return out


# --- errors ---------------------------------------------------------------------------------

def _caret(text: str, line: int, column: int) -> Text:
    src = text.splitlines()[line - 1] if 0 < line <= len(text.splitlines()) else ""
    out = Text("  " + src + "\n")
    out.append("  " + " " * (column - 1) + "^\n", style="bold red")
    return out


#: Broken dependences detailed in a refusal (the count says how many more).
MAX_VIOLATIONS = 3


def _instance(stmt: str, st, values) -> str:
    if st is not None and len(st.iterators) == len(values):
        return f"{stmt}[{', '.join(f'{n}={v}' for n, v in zip(st.iterators, values))}]"
    return f"{stmt}[{', '.join(str(v) for v in values)}]"


def violation(v) -> Text:
    """One broken dependence of a refusal: kind, array, statements, the date
    dimension where the order breaks, and the witness pair with its dates."""
    d = v.dependence
    out = Text("  ")
    out.append(f"{d.kind} on {d.array}", style="bold")
    out.append(": ")
    out.append(d.source, style="yellow")
    out.append(" → ")
    out.append(d.sink, style="yellow")
    out.append(" (same statement)\n" if d.sink == d.source else "\n")
    for name, st in ((d.source, v.source_statement), (d.sink, v.sink_statement)):
        if st is not None and st.body:
            out.append(f"      {name}: {short(st.body, 70)}\n", style="dim")
        if d.sink == d.source:
            break
    where = f"{v.dimension_name} (dimension {v.dimension})"
    if v.kind == CARRIED:
        what = f"the loop at {where} carries it: two of its iterations conflict"
    elif v.kind == TIED:
        what = f"at {where} the sink would run at the same date as the source"
    else:
        what = f"at {where} the sink would run before the source"
    out.append("    " + what + "\n")
    w = v.witness
    params = ", ".join(f"{k} = {x}" for k, x in w.get("params", {}).items())
    out.append("    witness", style="bold")
    out.append(f" ({params})" if params else "")
    out.append(": ")
    out.append(_instance(d.source, v.source_statement, w["source"]), style="cyan")
    out.append(" → ")
    out.append(_instance(d.sink, v.sink_statement, w["sink"]), style="cyan")
    out.append(f", dates {list(v.source_date)} → {list(v.sink_date)}\n")
    return out


def refusal_code(e: LegalityError) -> Text:
    """Where a refusal breaks: ``loop [0, 1] (j)`` and the code the step
    would make around it, the loop's ``for`` line marked ``>`` (from
    :attr:`LegalityError.excerpt <clayx.errors.LegalityError.excerpt>`)."""
    out = Text()
    if e.where is None:
        return out
    out.append("  it breaks at ")
    out.append(e.where, style="bold")
    if not e.excerpt:
        out.append("\n")
        return out
    out.append(" (marked > in the code the step would make):\n")
    hl = highlight_c("\n".join(ln[2:] for ln in e.excerpt)).split("\n", allow_blank=True)
    for ln, code in zip(e.excerpt, hl):
        out.append("    ")
        out.append(ln[:2], style="bold red" if ln[0] == ">" else "dim")
        out.append_text(code)
        out.append("\n")
    return out


def error(e: ClayxError, text: str | None = None, *, steps: int | None = None) -> Text:
    """A user error as shown at the prompt: legality refusals with their
    explanation (dependence, dimension, witness) and a note that nothing
    changed; syntax and argument errors with a caret at the column."""
    out = Text()
    if isinstance(e, LegalityError):
        head, *rest = e.message.split("\n")
        out.append("refused: ", style="bold red")
        out.append(head + "\n")
        if e.violations:
            shown = e.violations[:MAX_VIOLATIONS]
            for v in shown:
                out.append_text(violation(v))
            more = max(e.total, len(e.violations)) - len(shown)
            if more > 0:
                out.append(f"  … and {more} more\n", style="dim")
        else:
            for ln in rest:
                out.append(ln + "\n")
        out.append_text(refusal_code(e))
        note = "nothing changed"
        if steps is not None:
            note += f" ({steps} step{'s' * (steps != 1)} applied)"
        out.append("  " + note + "\n", style="dim")
        return out
    if isinstance(e, ScriptSyntaxError):
        out.append("syntax error", style="bold red")
        out.append(f" (line {e.line}, column {e.column}): {e.message}\n")
        src = text if text is not None else e.source_line
        if src is not None:
            if text is None:
                out.append_text(_caret(src, 1, e.column))
            else:
                out.append_text(_caret(text, e.line, e.column))
        return out
    if isinstance(e, DirectiveError):
        out.append("error", style="bold red")
        if e.directive:
            out.append(f" in {e.directive}")
        where = None
        if e.line is not None and e.column is not None and text is not None:
            where = (e.line, e.column)
            if e.argument is not None:
                where = argument_position(text, e.line, e.column, e.argument)
        arg = f", argument {e.argument}" if e.argument is not None else ""
        if where:
            out.append(f" (line {where[0]}, column {where[1]}{arg})")
        elif arg:
            out.append(f" ({arg[2:]})")
        out.append(f": {e.message}\n")
        if where:
            out.append_text(_caret(text, *where))
        m = re.match(r"unknown function `(\w+)'", e.message)
        if m:
            from clayx.directives import names
            near = difflib.get_close_matches(m.group(1), names(), n=3)
            if near:
                out.append(f"  did you mean {' or '.join(near)}?\n", style="dim")
        return out
    out.append("error: ", style="bold red")
    out.append(str(e) + "\n")
    return out


# --- help ----------------------------------------------------------------------------------

def directive_help(d) -> Text:
    """A directive's help: signature, aliases, docstring (arguments,
    before/after sketch, legality)."""
    import inspect
    out = Text()
    out.append(d.signature + "\n", style="bold")
    if d.aliases:
        out.append("aliases: " + ", ".join(d.aliases) + "\n", style="dim")
    out.append("\n" + inspect.cleandoc(d.doc or "(no documentation)") + "\n")
    return out
