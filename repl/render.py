"""What the prompt shows: β-trees, schedules, dependence tables, the changes a
step made, code windows, errors and directive help.

Everything here reads the model (:class:`~clayx.model.Scop`, its
:class:`~clayx.model.ClaySchedule`, the session's dependences) and returns
:class:`rich.text.Text` or other rich renderables; nothing transforms a
schedule.  Statement bodies and code are always put into ``Text`` objects,
never parsed as rich markup (C subscripts look like markup tags).

The label of a loop is its α expression in the original iterators
(``i``, ``i + j`` after a skew, ``floor((j)/8)`` for a strip-mined tile
loop), found from each relation under it with isl
(``PwMultiAff.from_map``); the initial schedule's labels are the original
iterator names.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import islpy as isl
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from clayx.errors import (ClayxError, DirectiveError, LegalityError,
                          ScriptSyntaxError)
from clayx.model import ClaySchedule, Relation, Scop

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


def fmt_beta(beta: Sequence[int]) -> str:
    """``[0, 1]`` (``[]`` for the root)."""
    return "[" + ", ".join(str(b) for b in beta) + "]"


def short(text: str, width: int = 48) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


# --- α labels -------------------------------------------------------------------

_labels_cache: dict[int, tuple[isl.Map, tuple[str, ...]]] = {}
_AFF_RE = re.compile(r"->\s*\[\((.*)\)\]\s*\}\s*$", re.S)


def alpha_labels(rel: Relation) -> tuple[str, ...]:
    """The α expressions ``α1 … αn`` of a relation in its statement's
    iterators (``("i", "i + j")``); ``c<k>`` where isl gives no single
    expression."""
    key = id(rel.map)
    hit = _labels_cache.get(key)
    if hit is not None and hit[0] is rel.map:
        return hit[1]
    n = rel.depth
    out = [f"c{k}" for k in range(1, n + 1)]
    try:
        pma = isl.PwMultiAff.from_map(rel.map)
        for k in range(1, n + 1):
            pa = pma.get_pw_aff(2 * k - 1)
            pieces = pa.get_pieces()
            if len(pieces) == 1:
                m = _AFF_RE.search(str(pieces[0][1]))
                if m:
                    out[k - 1] = _tidy(m.group(1))
    except isl.Error:
        pass
    labels = tuple(out)
    if len(_labels_cache) > 4096:
        _labels_cache.clear()
    _labels_cache[key] = (rel.map, labels)
    return labels


def _tidy(expr: str) -> str:
    expr = expr.strip()
    while expr.startswith("(") and expr.endswith(")") and _balanced(expr[1:-1]):
        expr = expr[1:-1].strip()
    return expr


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def loop_label(scop: Scop, loop: Beta) -> str:
    """The α expression(s) of the loop at ``loop`` over the relations under
    it (``i``, or ``i / c2`` when they differ)."""
    d = len(loop)
    names: list[str] = []
    for r in scop.schedule.relations_under(loop):
        if r.depth >= d:
            lab = alpha_labels(r)[d - 1]
            if lab not in names:
                names.append(lab)
    return " / ".join(names) or "?"


def loop_hint(scop: Scop, loop: Beta) -> str:
    """``loop j (S1, S2)``: the label and the statements under a loop."""
    stmts = ", ".join(scop.schedule.statements_under(loop))
    marks = [m.kind for m in scop.schedule.marks if m.loop == tuple(loop)]
    mk = f" [{', '.join(marks)}]" if marks else ""
    return f"loop {loop_label(scop, loop)} ({stmts}){mk}"


def statement_hint(scop: Scop, beta: Beta, width: int = 40) -> str:
    """``S0: C[i][j] *= beta;`` for a statement's β-vector."""
    r = scop.schedule.relation(beta)
    body = scop.statement(r.stmt).body
    return f"{r.stmt}: {short(body, width)}"


# --- the β-tree ---------------------------------------------------------------------

def tree(scop: Scop, *, marks: bool = True, indent: str = "  ") -> Text:
    """The β-tree: one line per loop (β-prefix, ``loop`` label, marks) and
    per statement (β-vector, name, body), nested by indentation."""
    sched = scop.schedule
    out = Text()
    nparts = {s.name: len(sched.of(s.name)) for s in scop.statements}
    width = max((len(fmt_beta(b)) + 2 * len(b) for b in sched.betas), default=4)

    def walk(prefix: Beta, level: int) -> None:
        for kid in sched.children(prefix):
            pad = indent * level
            b = fmt_beta(kid)
            out.append(pad)
            out.append(b, style="cyan")
            out.append(" " * max(1, width - len(b) - len(pad) + 2))
            if sched.is_loop(kid):
                out.append("loop ", style="bold")
                out.append(loop_label(scop, kid), style="bold green")
                if marks:
                    for m in sched.marks:
                        if m.loop == kid:
                            arg = f" {m.arg}" if m.arg is not None else ""
                            out.append(f"  [{m.kind}{arg}]", style="magenta")
                out.append("\n")
                walk(kid, level + 1)
            else:
                r = sched.relation(kid)
                out.append(r.stmt, style="yellow")
                if nparts.get(r.stmt, 1) > 1:
                    k = [x.beta for x in sched.of(r.stmt)].index(kid) + 1
                    out.append(f" (part {k}/{nparts[r.stmt]})", style="dim")
                out.append("  " + short(scop.statement(r.stmt).body, 60) + "\n")

    walk((), 1)
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
    """The dependences (all kinds, RAR included) as a table: kind, source,
    sink, array, distance (or direction), the depth that carries it under the
    current schedule, and whether the current schedule satisfies it."""
    from clayx.analysis.legality import carried_depth, violations
    sched = scop.schedule
    try:
        broken = {id(v.dependence) for v in violations(scop, deps)}
    except ClayxError:
        broken = None
    table = Table(box=None, pad_edge=False, header_style="bold")
    for col in ("#", "kind", "source", "sink", "array", "distance", "carried (now)",
                "satisfied"):
        table.add_column(col)
    rows = [d for d in deps.all if stmt is None or stmt in (d.source, d.sink)]
    for k, d in enumerate(rows, 1):
        dist = d.distance()
        dist_s = ("(" + ", ".join(str(x) for x in dist) + ")" if dist is not None
                  else "(" + ", ".join(d.direction()) + ")")
        try:
            c = carried_depth(d, sched)
        except ClayxError:
            c = None
        if c is None:
            carried = "-"
        elif c == 0:
            carried = "β (text order)"
        else:
            sink = sched.of(d.sink)
            lab = loop_label(scop, sink[0].beta[:c]) if sink and sink[0].depth >= c else "?"
            carried = f"{c} ({lab})"
        if d.kind == "RAR":
            ok = Text("n/a", style="dim")
        else:
            good = broken is not None and id(d) not in broken
            ok = Text("yes", style="green") if good else Text("NO", style="bold red")
        table.add_row(str(k), d.kind, d.source, d.sink, d.array, dist_s, carried, ok)
    return table


# --- what a step changed ------------------------------------------------------------------

@dataclass
class Changes:
    """The differences between two schedules of one SCoP, in words, and the
    β-prefixes (in the new schedule) of the loops to show."""

    lines: list[Text] = field(default_factory=list)
    focus: list[Beta] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.lines)


def _keys(sched: ClaySchedule) -> dict[Beta, tuple[str, int]]:
    """β-vector -> (statement, index among the statement's relations)."""
    seen: dict[str, int] = {}
    out = {}
    for r in sched.relations:
        k = seen.get(r.stmt, 0)
        seen[r.stmt] = k + 1
        out[r.beta] = (r.stmt, k)
    return out


def _loops(scop: Scop, common: set) -> dict[tuple, Beta]:
    """Loop identity -> β-prefix.  A loop is known by the relations under it
    that both schedules have (so a statement added to a loop keeps the loop
    the same) and its depth; a loop over new relations only is new."""
    sched = scop.schedule
    keys = _keys(sched)
    out = {}
    for p in sched.loops():
        under = [keys[r.beta] for r in sched.relations_under(p)]
        kept = tuple(sorted(k for k in under if k in common))
        out[(kept or ("new", p), len(p))] = p
    return out


def _stmts(scop: Scop, loop: Beta) -> str:
    return ", ".join(scop.schedule.statements_under(loop))


def changes(old: Scop, new: Scop) -> Changes:
    """Compare the β-trees of ``old`` and ``new``: loops created, removed,
    moved (with their β-prefixes) or running a new α expression, statements
    moved within a loop, statements split in several relations, marks added
    or removed.  Loops identify by the set of relations under them and
    their depth."""
    ch = Changes()
    if old is new:
        return ch
    ok, nk = _keys(old.schedule), _keys(new.schedule)
    common = set(ok.values()) & set(nk.values())
    ol, nl = _loops(old, common), _loops(new, common)
    created = {p for ident, p in nl.items() if ident not in ol}
    moved = {p for ident, p in nl.items() if ident in ol and ol[ident] != p}
    removed = {p for ident, p in ol.items() if ident not in nl}

    def line(*parts) -> None:
        t = Text("  ")
        for p in parts:
            if isinstance(p, tuple):
                t.append(*p)
            else:
                t.append(p)
        ch.lines.append(t)

    # a loop split in several, or several loops fused in one, is said so
    # (instead of "removed …" and "created …" lines for each)
    top_removed = {ident: p for ident, p in ol.items()
                   if p in removed and p[:-1] not in removed}
    top_created = {ident: p for ident, p in nl.items()
                   if p in created and p[:-1] not in created and p[:-1] not in moved}
    told_old, told_new = set(), set()
    for whole, parts, verb in ((top_removed, top_created, "split"),
                               (top_created, top_removed, "fused")):
        for ident, p in sorted(whole.items(), key=lambda kv: kv[1]):
            keys = set(ident[0])
            pieces = [(i, q) for i, q in parts.items()
                      if i[1] == ident[1] and set(i[0]) and set(i[0]) <= keys]
            if len(pieces) < 2 or set().union(*(set(i[0]) for i, _ in pieces)) != keys:
                continue
            pieces.sort(key=lambda iq: iq[1])
            if verb == "split":
                told_old.add(p)
                told_new.update(q for _, q in pieces)
                desc = " and ".join(f"{fmt_beta(q)} ({_stmts(new, q)})" for _, q in pieces)
                line(("split ", "bold yellow"), "loop ", (fmt_beta(p), "cyan"), " ",
                     (loop_label(old, p), "green"), " into " + desc)
                ch.focus += [q for _, q in pieces]
            else:
                told_new.add(p)
                told_old.update(q for _, q in pieces)
                desc = ", ".join(fmt_beta(q) for _, q in pieces)
                line(("fused ", "bold yellow"), "loops " + desc + " into ", (fmt_beta(p), "cyan"),
                     " ", (loop_label(new, p), "green"), f" ({_stmts(new, p)})")
                ch.focus.append(p)
    for ident, p in sorted(ol.items(), key=lambda kv: kv[1]):
        if p in removed and p[:-1] not in removed and p not in told_old:
            line(("removed ", "red"), "loop ", (fmt_beta(p), "cyan"), " ",
                 (loop_label(old, p), "green"), f" ({_stmts(old, p)})")
    for ident, p in sorted(nl.items(), key=lambda kv: kv[1]):
        parent_new = p[:-1] in created or p[:-1] in moved
        lab = loop_label(new, p)
        if p in told_new:
            continue
        if p in created and not parent_new:
            line(("created ", "bold green"), "loop ", (fmt_beta(p), "cyan"), " ",
                 (lab, "green"), f" ({_stmts(new, p)})")
            ch.focus.append(p)
        elif p in moved and not parent_new:
            was = ol[ident]
            line(("moved ", "bold yellow"), "loop ", (lab, "green"),
                 f" ({_stmts(new, p)}) ", (fmt_beta(was), "cyan"), " → ",
                 (fmt_beta(p), "cyan"))
            ch.focus.append(p)
        elif ident in ol:
            was_lab = loop_label(old, ol[ident])
            if was_lab != lab:
                line(("changed ", "bold yellow"), "loop ", (fmt_beta(p), "cyan"), " now runs ",
                     (lab, "bold green"), f" (was {was_lab})")
                if not parent_new:
                    ch.focus.append(p)
    # statements moved inside the same parent, split or merged relations
    old_of = {v: b for b, v in ok.items()}
    for b, key in sorted(nk.items()):
        ob = old_of.get(key)
        if ob is not None and ob != b and ob[:-1] == b[:-1] and b[:-1] not in created \
                and b[:-1] not in moved:
            line(("moved ", "bold yellow"), (key[0], "yellow"), " ", (fmt_beta(ob), "cyan"),
                 " → ", (fmt_beta(b), "cyan"))
            if b[:-1]:
                ch.focus.append(b[:-1])
    # the program itself (layout steps): statements, bodies, arrays
    if old.statements is not new.statements:
        before = {st.name: st for st in old.statements}
        after = {st.name: st for st in new.statements}
        for st in new.statements:
            was = before.get(st.name)
            if was is None or was.body != st.body:
                line(("new statement " if was is None else "changed ", "bold yellow"),
                     (st.name, "yellow"), ": " + short(st.body, 70))
                ch.focus += [r.beta[:-1] for r in new.schedule.of(st.name) if len(r.beta) > 1]
        for name in before:
            if name not in after:
                line(("removed statement ", "red"), (name, "yellow"))
        gone = [a.name for a in old.arrays if a.name not in {x.name for x in new.arrays}]
        added = [a.name for a in new.arrays if a.name not in {x.name for x in old.arrays}]
        if added:
            line(("new array", "bold green"), "s " if len(added) > 1 else " ", ", ".join(added))
        if gone:
            line(("removed array", "red"), "s " if len(gone) > 1 else " ", ", ".join(gone))
    for st in new.statements:
        if st.name not in {x.name for x in old.statements}:
            continue
        a, b = len(old.schedule.of(st.name)), len(new.schedule.of(st.name))
        if a != b:
            parts = ", ".join(fmt_beta(r.beta) for r in new.schedule.of(st.name))
            line((st.name, "yellow"), f" now runs in {b} part{'s' * (b != 1)} (was {a}): {parts}")
    # marks
    om, nm = set(old.schedule.marks), set(new.schedule.marks)
    for m in sorted(nm - om, key=lambda m: (m.loop, m.kind)):
        arg = f" {m.arg}" if m.arg is not None else ""
        line(("marked ", "bold magenta"), f"{m.kind}{arg}: loop ", (fmt_beta(m.loop), "cyan"),
             " ", (loop_label(new, m.loop), "green"))
        ch.focus.append(m.loop)
    for m in sorted(om - nm, key=lambda m: (m.loop, m.kind)):
        if (m.kind, m.loop) not in {(x.kind, x.loop) for x in nm}:
            line(("unmarked ", "magenta"), f"{m.kind}: loop ", (fmt_beta(m.loop), "cyan"))
    if not ch.lines:
        # same tree and labels: did any date change at all?
        changed = []
        for r in new.schedule.relations:
            try:
                same = [q for q in old.schedule.of(r.stmt) if q.beta == r.beta]
                if not same or not same[0].map.is_equal(r.map):
                    changed.append(r)
            except isl.Error:
                changed.append(r)
        for r in changed:
            line(("changed ", "bold yellow"), "dates of ", (r.stmt, "yellow"), " ",
                 (fmt_beta(r.beta), "cyan"))
            if r.beta[:-1]:
                ch.focus.append(r.beta[:-1])
    # outermost focus loops only, in order, no duplicates
    focus = sorted(set(ch.focus))
    ch.focus = [p for p in focus if not any(q != p and p[:len(q)] == q for q in focus)]
    return ch


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
    from clayx.analysis.legality import is_legal
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


def argument_position(text: str, line: int, column: int, argument: int) -> tuple[int, int]:
    """The (line, column) of the ``argument``-th (1-based) argument of the
    call whose name starts at (``line``, ``column``) of ``text``; the call's
    own position when it cannot be found."""
    lines = text.split("\n")
    if not (0 < line <= len(lines)):
        return line, column
    i = text.find("(", sum(len(ln) + 1 for ln in lines[:line - 1]) + column - 1)
    if i < 0:
        return line, column
    starts, depth, i = [i + 1], 0, i + 1
    while i < len(text):
        ch = text[i]
        if ch == '"':                      # skip a string
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            starts.append(i + 1)
        i += 1
    if not 0 < argument <= len(starts):
        return line, column
    j = starts[argument - 1]
    while j < len(text) and text[j] in " \t\n":
        j += 1
    return _line_col(text, j)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    ln = before.count("\n") + 1
    col = offset - (before.rfind("\n") + 1) + 1
    return ln, col


#: Broken dependences detailed in a refusal (the count says how many more).
MAX_VIOLATIONS = 3


def _instance(stmt: str, st, values) -> str:
    if st is not None and len(st.iterators) == len(values):
        return f"{stmt}[{', '.join(f'{n}={v}' for n, v in zip(st.iterators, values))}]"
    return f"{stmt}[{', '.join(str(v) for v in values)}]"


def violation(v) -> Text:
    """One broken dependence of a refusal: kind, array, statements, the date
    dimension where the order breaks, and the witness pair with its dates."""
    from clayx.analysis.legality import CARRIED, TIED
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
