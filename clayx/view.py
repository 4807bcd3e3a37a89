"""What a person sees of a SCoP and of a session, as data: the public face
the prompt and the command line (``clayx_repl``) read, so neither reaches
into :mod:`clayx.analysis` or :mod:`clayx.frontend`.

- **α labels** (:func:`alpha_labels`, :func:`loop_label`): each loop's α
  expression in the statement's original iterators (``i``, ``i + j`` after
  a skew, ``floor(j/8)`` for a strip-mined tile loop), written from the
  coefficients of isl's :class:`islpy.Aff` (never from printed text);
- **the β-tree** (:func:`tree_lines`, :func:`tree_text`): one line per loop
  and per statement; the command line prints :func:`tree_text`, the prompt
  colours the same :class:`TreeLine` records;
- **what a step changed** (:func:`changes`): the difference of two
  schedules in words, as :class:`Changes` (lines of ``(text, role)``
  segments, and the loops to show);
- **dependences as rows** (:func:`dependence_rows`): each dependence with
  its distance, the loop that carries it now and whether it holds;
- **where a refusal breaks** (:func:`refusal_loop`, :func:`code_excerpt`):
  the loop at the broken dimension by β-prefix and label, and the code with
  that loop marked, read from the loop spans of
  :class:`~clayx.codegen.GeneratedRegion`;
- **the script a file embeds** (:func:`embedded_script`): a ``/* Clay … */``
  comment in C, the ``<clay>`` extension of OpenScop;
- the front end and OpenScop output the command line needs
  (:func:`read_scops`, :func:`unchecked_steps`, :func:`write_openscop`,
  :func:`read_script`).

Nothing here changes a schedule.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import lcm
from pathlib import Path
from typing import Callable, Sequence

import islpy as isl

from .analysis import dependences as _dependences_of
from .analysis.legality import CARRIED, REVERSED, TIED, carried_depth, is_legal, violations
from .errors import ClayxError
from .model import Beta, ClaySchedule, Relation, Scop

__all__ = ["CARRIED", "REVERSED", "ROLES", "TIED", "Changes", "DependenceRow", "TreeLine",
           "alpha_labels", "changes", "code_excerpt", "dependence_rows", "dependences",
           "embedded_script", "fmt_beta", "is_legal", "loop_hint", "loop_label",
           "read_scops", "read_script", "refusal_loop", "short", "statement_hint",
           "tree_lines", "tree_text", "unchecked_steps", "write_openscop"]

Segment = tuple[str, "str | None"]
#: Roles of the segments of a :class:`Changes` line: ``beta`` (a β-vector),
#: ``label`` (a loop's α label), ``new-label``, ``stmt`` (a statement name),
#: ``added``/``removed``/``changed`` (the verb), ``marked``/``unmarked``,
#: None (plain words).
ROLES = ("beta", "label", "new-label", "stmt", "added", "removed", "changed",
         "marked", "unmarked")


def fmt_beta(beta: Sequence[int]) -> str:
    """``[0, 1]`` (``[]`` for the root)."""
    return "[" + ", ".join(str(b) for b in beta) + "]"


def short(text: str, width: int = 48) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


def dependences(scop: Scop):
    """The dependences of the program ``scop`` schedules (its origin's,
    computed once: :func:`clayx.analysis.dependences`)."""
    return _dependences_of(scop)


# --- α labels -------------------------------------------------------------------------

_labels_cache: dict[int, tuple[isl.Map, tuple[str, ...]]] = {}


def _frac(v: isl.Val) -> Fraction:
    return Fraction(v.get_num_si(), v.get_den_val().to_python())


def _linear(terms: list[tuple[Fraction, str]], const: Fraction) -> str:
    """``ax + by + c`` with integer coefficients (isl's ``2t``), positive
    terms first (``j - i``, ``1 - j``, not ``-i + j``)."""
    pos = [t for t in terms if t[0] > 0]
    neg = [t for t in terms if t[0] < 0]
    c = [(const, "")] if const else []
    if pos:
        terms = pos + neg + c
    elif const > 0:
        terms = c + neg
    else:
        terms = neg + c
    if not terms:
        return "0"
    out = ""
    for k, (c, name) in enumerate(terms):
        mag = abs(c)
        word = str(mag) if not name else name if mag == 1 else f"{mag}{name}"
        if k == 0:
            out = ("-" if c < 0 else "") + word
        else:
            out += (" - " if c < 0 else " + ") + word
    return out


def _aff_text(aff: isl.Aff, depth: int = 0) -> str:
    """An affine expression from its coefficients: iterators (the input
    dimensions' names), parameters, integer divisions (``floor(e/d)``),
    constant; rational coefficients over their common denominator."""
    if depth > 8:
        raise ValueError("nested divisions")
    dt = isl.dim_type
    terms: list[tuple[Fraction, str]] = []
    for kind in (dt.in_, dt.param):
        for k in range(aff.dim(kind)):
            c = _frac(aff.get_coefficient_val(kind, k))
            if c:
                terms.append((c, aff.get_dim_name(kind, k) or f"x{k}"))
    for k in range(aff.dim(dt.div)):
        c = _frac(aff.get_coefficient_val(dt.div, k))
        if c:
            inner = aff.get_div(k)
            terms.append((c, _floor_text(inner, depth + 1)))
    const = _frac(aff.get_constant_val())
    den = lcm(*(t[0].denominator for t in terms), const.denominator)
    if den == 1:
        return _linear(terms, const)
    num = _linear([(c * den, n) for c, n in terms], const * den)
    return f"({num})/{den}"


def _floor_text(div: isl.Aff, depth: int) -> str:
    """``floor(j/8)``, ``floor((i + j)/8)`` for an integer division."""
    text = _aff_text(div, depth)
    if ")/" in text and text.startswith("("):
        num, den = text[1:].rsplit(")/", 1)
        if " " not in num:
            text = f"{num}/{den}"
    return f"floor({text})"


def alpha_labels(rel: Relation) -> tuple[str, ...]:
    """The α expressions ``α1 … αn`` of a relation in its statement's
    iterators (``("i", "i + j")``, ``floor(j/8)``), from the coefficients of
    each α's isl ``Aff``; ``c<k>`` where isl gives no single expression
    (a piecewise α)."""
    key = id(rel.map)
    hit = _labels_cache.get(key)
    if hit is not None and hit[0] is rel.map:
        return hit[1]
    n = rel.depth
    out = [f"c{k}" for k in range(1, n + 1)]
    try:
        pma = isl.PwMultiAff.from_map(rel.map)
        for k in range(1, n + 1):
            pieces = pma.get_pw_aff(2 * k - 1).get_pieces()
            if len(pieces) == 1:
                out[k - 1] = _aff_text(pieces[0][1])
    except (isl.Error, ValueError):
        pass
    labels = tuple(out)
    if len(_labels_cache) > 4096:
        _labels_cache.clear()
    _labels_cache[key] = (rel.map, labels)
    return labels


def loop_label(scop: Scop, loop: Beta) -> str:
    """The α expression(s) of the loop at ``loop`` over the relations under
    it (``i``, or ``i / c2`` when they differ)."""
    d = len(loop)
    names: list[str] = []
    for r in scop.schedule.relations_under(tuple(loop)):
        if r.depth >= d:
            lab = alpha_labels(r)[d - 1]
            if lab not in names:
                names.append(lab)
    return " / ".join(names) or "?"


def loop_hint(scop: Scop, loop: Beta) -> str:
    """``loop j (S1, S2)``: the label and the statements under a loop."""
    stmts = ", ".join(scop.schedule.statements_under(tuple(loop)))
    marks = [m.kind for m in scop.schedule.marks if m.loop == tuple(loop)]
    mk = f" [{', '.join(marks)}]" if marks else ""
    return f"loop {loop_label(scop, loop)} ({stmts}){mk}"


def statement_hint(scop: Scop, beta: Beta, width: int = 40) -> str:
    """``S0: C[i][j] *= beta;`` for a statement's β-vector."""
    r = scop.schedule.relation(tuple(beta))
    body = scop.statement(r.stmt).body
    return f"{r.stmt}: {short(body, width)}"


# --- the β-tree -------------------------------------------------------------------------

@dataclass(frozen=True)
class TreeLine:
    """One line of the β-tree: a loop (``label``, ``marks`` as ``kind`` or
    ``kind arg`` texts) or a statement (``stmt``, ``body``, and ``part`` of
    ``parts`` when the statement runs in several relations); ``level`` is
    the nesting depth (1 for the top level)."""

    level: int
    beta: Beta
    is_loop: bool
    label: str = ""
    marks: tuple[str, ...] = ()
    stmt: str = ""
    body: str = ""
    part: int = 1
    parts: int = 1


def tree_lines(scop: Scop) -> list[TreeLine]:
    """The β-tree of ``scop`` in order: every loop, then what it holds."""
    sched = scop.schedule
    nparts = {s.name: len(sched.of(s.name)) for s in scop.statements}
    out: list[TreeLine] = []

    def walk(prefix: Beta, level: int) -> None:
        for kid in sched.children(prefix):
            if sched.is_loop(kid):
                marks = tuple(m.kind + ("" if m.arg is None else f" {m.arg}")
                              for m in sched.marks if m.loop == kid)
                out.append(TreeLine(level, kid, True, label=loop_label(scop, kid), marks=marks))
                walk(kid, level + 1)
            else:
                r = sched.relation(kid)
                n = nparts.get(r.stmt, 1)
                k = [x.beta for x in sched.of(r.stmt)].index(kid) + 1 if n > 1 else 1
                out.append(TreeLine(level, kid, False, stmt=r.stmt,
                                    body=scop.statement(r.stmt).body, part=k, parts=n))

    walk((), 1)
    return out


def tree_text(scop: Scop, *, marks: bool = True, indent: str = "  ",
              width: int = 60) -> str:
    """The β-tree as plain text, one line per :class:`TreeLine`::

        [0]      loop i
          [0, 0]   loop j  [parallel]
            [0, 0, 0]  S0  A[i][j] = …
    """
    lines = tree_lines(scop)
    col = max((len(fmt_beta(t.beta)) + 2 * len(t.beta) for t in lines), default=4)
    out = []
    for t in lines:
        pad = indent * t.level
        b = fmt_beta(t.beta)
        head = pad + b + " " * max(1, col - len(b) - len(pad) + 2)
        if t.is_loop:
            mk = "".join(f"  [{m}]" for m in t.marks) if marks else ""
            out.append(f"{head}loop {t.label}{mk}")
        else:
            part = f" (part {t.part}/{t.parts})" if t.parts > 1 else ""
            out.append(f"{head}{t.stmt}{part}  {short(t.body, width)}")
    return "\n".join(out) + ("\n" if out else "")


# --- what a step changed ------------------------------------------------------------------

@dataclass
class Changes:
    """The differences between two schedules of one SCoP, in words, and the
    β-prefixes (in the new schedule) of the loops to show.  Each line is a
    tuple of ``(text, role)`` segments (:data:`ROLES`); :meth:`text` gives
    them as plain lines."""

    lines: list[tuple[Segment, ...]] = field(default_factory=list)
    focus: list[Beta] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.lines)

    def text(self) -> list[str]:
        """The lines as plain text."""
        return ["".join(s for s, _ in ln) for ln in self.lines]


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
        ch.lines.append(tuple(p if isinstance(p, tuple) else (p, None) for p in parts))

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
                line(("split ", "changed"), "loop ", (fmt_beta(p), "beta"), " ",
                     (loop_label(old, p), "label"), " into " + desc)
                ch.focus += [q for _, q in pieces]
            else:
                told_new.add(p)
                told_old.update(q for _, q in pieces)
                desc = ", ".join(fmt_beta(q) for _, q in pieces)
                line(("fused ", "changed"), "loops " + desc + " into ", (fmt_beta(p), "beta"),
                     " ", (loop_label(new, p), "label"), f" ({_stmts(new, p)})")
                ch.focus.append(p)
    for ident, p in sorted(ol.items(), key=lambda kv: kv[1]):
        if p in removed and p[:-1] not in removed and p not in told_old:
            line(("removed ", "removed"), "loop ", (fmt_beta(p), "beta"), " ",
                 (loop_label(old, p), "label"), f" ({_stmts(old, p)})")
    for ident, p in sorted(nl.items(), key=lambda kv: kv[1]):
        parent_new = p[:-1] in created or p[:-1] in moved
        lab = loop_label(new, p)
        if p in told_new:
            continue
        if p in created and not parent_new:
            line(("created ", "added"), "loop ", (fmt_beta(p), "beta"), " ",
                 (lab, "label"), f" ({_stmts(new, p)})")
            ch.focus.append(p)
        elif p in moved and not parent_new:
            was = ol[ident]
            line(("moved ", "changed"), "loop ", (lab, "label"),
                 f" ({_stmts(new, p)}) ", (fmt_beta(was), "beta"), " → ",
                 (fmt_beta(p), "beta"))
            ch.focus.append(p)
        elif ident in ol:
            was_lab = loop_label(old, ol[ident])
            if was_lab != lab:
                line(("changed ", "changed"), "loop ", (fmt_beta(p), "beta"), " now runs ",
                     (lab, "new-label"), f" (was {was_lab})")
                if not parent_new:
                    ch.focus.append(p)
    # statements moved inside the same parent, split or merged relations
    old_of = {v: b for b, v in ok.items()}
    for b, key in sorted(nk.items()):
        ob = old_of.get(key)
        if ob is not None and ob != b and ob[:-1] == b[:-1] and b[:-1] not in created \
                and b[:-1] not in moved:
            line(("moved ", "changed"), (key[0], "stmt"), " ", (fmt_beta(ob), "beta"),
                 " → ", (fmt_beta(b), "beta"))
            if b[:-1]:
                ch.focus.append(b[:-1])
    # the program itself (layout steps): statements, bodies, arrays
    if old.statements is not new.statements:
        before = {st.name: st for st in old.statements}
        after = {st.name: st for st in new.statements}
        for st in new.statements:
            was = before.get(st.name)
            if was is None or was.body != st.body:
                line(("new statement " if was is None else "changed ", "changed"),
                     (st.name, "stmt"), ": " + short(st.body, 70))
                ch.focus += [r.beta[:-1] for r in new.schedule.of(st.name) if len(r.beta) > 1]
        for name in before:
            if name not in after:
                line(("removed statement ", "removed"), (name, "stmt"))
        gone = [a.name for a in old.arrays if a.name not in {x.name for x in new.arrays}]
        added = [a.name for a in new.arrays if a.name not in {x.name for x in old.arrays}]
        if added:
            line(("new array", "added"), "s " if len(added) > 1 else " ", ", ".join(added))
        if gone:
            line(("removed array", "removed"), "s " if len(gone) > 1 else " ", ", ".join(gone))
    for st in new.statements:
        if st.name not in {x.name for x in old.statements}:
            continue
        a, b = len(old.schedule.of(st.name)), len(new.schedule.of(st.name))
        if a != b:
            parts = ", ".join(fmt_beta(r.beta) for r in new.schedule.of(st.name))
            line((st.name, "stmt"), f" now runs in {b} part{'s' * (b != 1)} (was {a}): {parts}")
    # marks
    om, nm = set(old.schedule.marks), set(new.schedule.marks)
    for m in sorted(nm - om, key=lambda m: (m.loop, m.kind)):
        arg = f" {m.arg}" if m.arg is not None else ""
        line(("marked ", "marked"), f"{m.kind}{arg}: loop ", (fmt_beta(m.loop), "beta"),
             " ", (loop_label(new, m.loop), "label"))
        ch.focus.append(m.loop)
    for m in sorted(om - nm, key=lambda m: (m.loop, m.kind)):
        if (m.kind, m.loop) not in {(x.kind, x.loop) for x in nm}:
            line(("unmarked ", "unmarked"), f"{m.kind}: loop ", (fmt_beta(m.loop), "beta"))
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
            line(("changed ", "changed"), "dates of ", (r.stmt, "stmt"), " ",
                 (fmt_beta(r.beta), "beta"))
            if r.beta[:-1]:
                ch.focus.append(r.beta[:-1])
    # outermost focus loops only, in order, no duplicates
    focus = sorted(set(ch.focus))
    ch.focus = [p for p in focus if not any(q != p and p[:len(q)] == q for q in focus)]
    return ch



# --- dependences as rows ------------------------------------------------------------------

@dataclass(frozen=True)
class DependenceRow:
    """One dependence as the prompt's table shows it: ``distance`` (or the
    direction vector), ``carried`` (the α depth of the loop that carries it
    now, 0 for the text order, None when no pair is ordered forward),
    ``carried_by`` that loop's label, ``holds`` (None for RAR, which orders
    nothing; None too when the schedule could not be checked)."""

    dependence: object
    distance: str
    carried: int | None
    carried_by: str
    holds: bool | None


def dependence_rows(scop: Scop, deps, stmt: str | None = None) -> list[DependenceRow]:
    """Every dependence of ``deps`` (of statement ``stmt`` only, if given)
    under the schedule of ``scop``."""
    sched = scop.schedule
    try:
        broken = {id(v.dependence) for v in violations(scop, deps)}
    except ClayxError:
        broken = None
    rows = []
    for d in deps.all:
        if stmt is not None and stmt not in (d.source, d.sink):
            continue
        dist = d.distance()
        dist_s = ("(" + ", ".join(str(x) for x in dist) + ")" if dist is not None
                  else "(" + ", ".join(d.direction()) + ")")
        try:
            c = carried_depth(d, sched)
        except ClayxError:
            c = None
        by = ""
        if c:
            sink = sched.of(d.sink)
            by = loop_label(scop, sink[0].beta[:c]) if sink and sink[0].depth >= c else "?"
        holds = None if d.kind == "RAR" or broken is None else id(d) not in broken
        rows.append(DependenceRow(d, dist_s, c, by, holds))
    return rows


# --- where a refusal breaks ---------------------------------------------------------------

def _relation_of(scop: Scop, stmt: str, point: Sequence[int], params: dict) -> Relation | None:
    """The relation of ``stmt`` that schedules the instance ``point``."""
    rels = scop.schedule.of(stmt)
    if len(rels) <= 1:
        return rels[0] if rels else None
    for r in rels:
        dom = r.map.domain()
        for name, v in params.items():
            k = dom.find_dim_by_name(isl.dim_type.param, name)
            if k >= 0:
                dom = dom.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(dom.get_ctx(), v))
        for k, v in enumerate(point):
            if k < dom.dim(isl.dim_type.set):
                dom = dom.fix_val(isl.dim_type.set, k, isl.Val.int_from_si(dom.get_ctx(), v))
        if not dom.is_empty():
            return r
    return rels[0]


def refusal_loop(scop: Scop, violation) -> Beta | None:
    """The β-prefix, in ``scop`` (the refused schedule), of the loop at the
    dimension where ``violation`` breaks: the sink instance's loop at that
    α depth; for a β dimension (statement order) the loop holding the
    reordered statements; None at the top level."""
    v = violation
    w = v.witness or {}
    r = _relation_of(scop, v.dependence.sink, w.get("sink", ()), w.get("params", {}))
    if r is None:
        return None
    depth = v.depth if v.depth is not None else (v.dimension - 1) // 2
    depth = min(depth, len(r.beta) - 1)
    return tuple(r.beta[:depth]) or None


def code_excerpt(scop: Scop, loop: Beta, *, context: int = 2, max_lines: int = 14,
                 target: str = "c") -> tuple[list[str], str | None]:
    """The code of ``scop``'s top-level nest holding the loop at ``loop``
    (or, when the schedule has no such loop, its innermost enclosing one)
    around that loop, read from the
    loop spans of the generated region (:meth:`GeneratedRegion.spans
    <clayx.codegen.GeneratedRegion.spans>`), and the loop's printed
    iterator.  The lines: ``context`` lines before and after, the loop (cut
    to ``max_lines``), dedented, with a ``>`` gutter on the loop's ``for``
    line and ``|`` on the rest of the loop.  ``([], None)`` when the loop is
    not printed as a ``for``."""
    from .codegen import generate
    loops = set(scop.schedule.loops())
    loop = tuple(loop)
    while loop and loop not in loops:
        loop = loop[:-1]
    if not loop:
        return [], None
    sched = scop.schedule
    if len(sched.children(())) > 1:         # only the top-level nest of the loop
        scop = replace(scop, schedule=ClaySchedule(
            tuple(r for r in sched.relations if r.beta[0] == loop[0]),
            tuple(m for m in sched.marks if m.loop[:1] == loop[:1])))
    gen = generate(scop, target=target)
    spans = gen.spans(loop)
    if not spans:
        return [], None
    sp = spans[0]
    lo = max(0, sp.first - context)
    hi = min(len(gen.lines) - 1, sp.last + context, sp.header + max_lines - 1)
    shown = gen.lines[lo:hi + 1]
    cut = min((len(ln) - len(ln.lstrip()) for ln in shown if ln.strip()), default=0)
    out = []
    for i, ln in zip(range(lo, hi + 1), shown):
        gutter = ">" if i == sp.header else "|" if sp.first <= i <= sp.last else " "
        out.append(f"{gutter} {ln[cut:]}".rstrip())
    if hi < sp.last:
        out.append(f"| … ({sp.last - hi} more lines of the loop)")
    return out, sp.name


# --- files ------------------------------------------------------------------------------------

def read_scops(path: str | Path) -> list[Scop]:
    """Every SCoP of a C or OpenScop file (:func:`clayx.frontend.load`)."""
    from .frontend import load
    return load(path)


def unchecked_steps(scop: Scop) -> tuple[str, ...] | None:
    """The steps recorded with ``scop`` as applied without the legality
    check (``<clayx_unchecked>``), None when it has no such record."""
    from .frontend.openscop import unchecked_steps as steps
    return steps(scop)


def write_openscop(scops: Sequence[Scop], *, banner: bool = True) -> str:
    """OpenScop text of ``scops`` as read (``# NULL scop`` for none)."""
    from .frontend.openscop import NULL_SCOP, write_all
    return write_all(scops, banner=banner) if scops else NULL_SCOP


def read_script(source, name: str, error: Callable[[str], ClayxError]) -> str:
    """Script text from a path or from bytes (standard input), decoded as
    the front end decodes C files; a bad byte is a
    :class:`~clayx.errors.ScriptSyntaxError` at its position in ``name``,
    an unreadable file ``error(why)``."""
    from .errors import ScriptSyntaxError
    from .frontend.text import decode, read_text

    def bad(m, line, col):
        return ScriptSyntaxError(m, line=line, column=col, path=name)

    if isinstance(source, bytes):
        return decode(source, bad)
    return read_text(source, bad, error)


def embedded_script(scop: Scop, path: str | Path | None = None) -> tuple[str, str] | None:
    """The Clay script a file embeds and a name for it: the ``<clay>``
    extension of an OpenScop SCoP (``"f.scop <clay>"``), a ``/* Clay … */``
    comment in the C source (``"f.c /* Clay */"``); None when there is
    none."""
    where = str(path) if path is not None else "<input>"
    if scop.source is None:
        from .frontend.openscop import scop_clay_script
        text = scop_clay_script(scop)
        name = f"{where} <clay>"
    else:
        from .script import extract_embedded
        text = extract_embedded(scop.source)
        name = f"{where} /* Clay */"
    return (text, name) if text is not None else None
