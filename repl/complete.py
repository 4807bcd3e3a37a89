"""Tab completion at the prompt, driven by the directive registry.

- at the start of a statement: directive names and aliases (with their
  signature as the hint), queries, and the ``:commands``;
- in a β argument: the β-prefixes that exist in the current schedule, loops
  for a loop parameter, statements for a statement parameter, both
  otherwise, each with a hint (``[0,1]  loop j (S1, S2)``,
  ``[0,0,0]  S0: C[i][j] *= beta;``); the root ``[]`` for an unrestricted
  parameter called ``loop`` (``reorder``);
- in a depth argument (an integer parameter whose name starts with
  ``depth``) once the β argument is typed: ``1 … n`` with the loop at each
  depth; in an ``access`` argument (layout directives) the statement's
  accesses (``2  write t``); in ``reorder``'s order: the current order of
  the children;
- after a command: what the command takes (directive names for ``:help``,
  targets for ``:code``/``:emit``, statements for ``:deps``, file names for
  ``:load``/``:save``).

Nothing is hard-coded about directives: names, parameter kinds and aliases
come from :mod:`clayx.directives.registry`, so directives registered later
complete too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Mapping

from prompt_toolkit.completion import (CompleteEvent, Completer, Completion,
                                       PathCompleter)
from prompt_toolkit.document import Document

from clayx.model import Scop

from clayx.view import fmt_beta, loop_hint, loop_label, short, statement_hint

__all__ = ["CallContext", "ClayCompleter", "call_context", "mask_script"]

_IDENT_TAIL = re.compile(r"[A-Za-z_]\w*\Z")


def mask_script(text: str) -> tuple[str, bool]:
    """``text`` with its strings and comments (``#``, ``//``, ``/* */``)
    blanked out, same length, so a scan for brackets and separators can
    ignore them; and whether a string or ``/*`` comment is left open."""
    out = list(text)
    i, n, open_ = 0, len(text), False
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            open_ = open_ or j >= n
            j = min(j + 1, n)
        elif ch == "#" or text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            open_ = open_ or j < 0
            j = n if j < 0 else j + 2
        else:
            i += 1
            continue
        out[i:j] = " " * (j - i)
        i = j
    return "".join(out), open_


@dataclass
class CallContext:
    """Where the cursor is in a script: ``call`` the innermost open call's
    name (None outside any call), ``arg`` the 0-based argument index in it,
    ``arg_start`` the offset where that argument's text starts,
    ``args`` the texts of the earlier arguments, ``array_start`` the offset
    of an open ``[`` of the current argument (None if none), and ``word``
    the identifier being typed at the cursor."""

    call: str | None = None
    arg: int = 0
    arg_start: int = 0
    args: list[str] = field(default_factory=list)
    array_start: int | None = None
    nested: bool = False
    word: str = ""
    statement_start: bool = True


def call_context(text: str) -> CallContext:
    """Scan ``text`` (what is before the cursor) and say where the cursor is
    (strings and comments skipped; ``;`` starts a new statement)."""
    stack: list[list] = []      # ['(', name, argidx, argstart, [args]] / ['[', pos] / ['{', pos]
    code, _ = mask_script(text)     # structure from the masked text, slices from ``text``
    i, n = 0, len(code)
    last_ident = ""
    last_ident_end = -1
    while i < n:
        ch = code[i]
        if ch.isalpha() or ch == "_":
            j = i
            while j < n and (code[j].isalnum() or code[j] == "_"):
                j += 1
            last_ident, last_ident_end = code[i:j], j
            i = j
            continue
        if ch == "(":
            name = last_ident if code[last_ident_end:i].strip() == "" and last_ident_end >= 0 else ""
            stack.append(["(", name, 0, i + 1, []])
        elif ch in "[{":
            stack.append([ch, i])
        elif ch in ")]}":
            if stack:
                stack.pop()
        elif ch == "," and stack and stack[-1][0] == "(":
            top = stack[-1]
            top[4].append(text[top[3]:i].strip())
            top[2] += 1
            top[3] = i + 1
        elif ch == ";":
            stack.clear()
        i += 1
    ctx = CallContext()
    m = _IDENT_TAIL.search(text)
    ctx.word = m.group(0) if m else ""
    calls = [e for e in stack if e[0] == "("]
    if not calls:
        before = text[:len(text) - len(ctx.word)].rstrip()
        ctx.statement_start = (not stack and (before == "" or before.endswith((";", "="))
                                              or re.search(r"(^|[;\s])unchecked\Z", before)
                                              is not None))
        return ctx
    top = calls[-1]
    ctx.statement_start = False
    ctx.call, ctx.arg, ctx.arg_start, ctx.args = top[1], top[2], top[3], list(top[4])
    after = stack[stack.index(top) + 1:]
    if after:
        if after[0][0] == "[" and len(after) == 1:
            ctx.array_start = after[0][1]
        else:
            ctx.nested = True
    return ctx


def _int_list(text: str) -> tuple[int, ...] | None:
    m = re.fullmatch(r"\[\s*(-?\d+(\s*,\s*-?\d+)*)?\s*\]", text.strip())
    if not m:
        return None
    inner = text.strip()[1:-1].strip()
    return tuple(int(x) for x in inner.split(",")) if inner else ()


class ClayCompleter(Completer):
    """Completion from the registry and the current schedule.

    ``scop`` returns the current :class:`Scop`; ``env`` the script
    variables; ``commands`` maps command names (without ``:``) to what
    their argument completes to (``directive``, ``target``, ``statement``,
    ``path`` or None), ``summaries`` to their one-line description.
    """

    def __init__(self, scop: Callable[[], Scop], *,
                 env: Callable[[], Mapping[str, object]] = dict,
                 commands: Mapping[str, str | None] | None = None,
                 summaries: Mapping[str, str] | None = None,
                 targets: Iterable[str] = ("c", "omp", "scop")):
        self.scop = scop
        self.env = env
        self.commands = dict(commands or {})
        self.summaries = dict(summaries or {})
        self.targets = tuple(targets)
        self._paths = PathCompleter(expanduser=True)

    # -- entry point -------------------------------------------------------------
    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterator[Completion]:
        """Completions for the text before the cursor."""
        text = document.text_before_cursor
        stripped = text.lstrip()
        if stripped.startswith(":") or re.match(r"help\s", stripped):
            yield from self._command(stripped, complete_event)
            return
        ctx = call_context(text)
        if ctx.call is None:
            if ctx.statement_start:
                yield from self._names(ctx.word, commands=text.strip() == ctx.word)
            return
        yield from self._argument(text, ctx)

    # -- names -------------------------------------------------------------------
    def _names(self, word: str, *, commands: bool = False) -> Iterator[Completion]:
        from clayx.directives import lookup, names
        for n in names():
            if n.startswith(word):
                d = lookup(n)
                meta = (f"alias of {d.name}" if n != d.name else
                        f"query: {d.signature}" if d.kind == "query" else d.signature)
                yield Completion(n, -len(word), display_meta=meta)
        if commands and (word == "" or ":".startswith(word)):
            for c in sorted(self.commands):
                yield Completion(":" + c, -len(word),
                                 display_meta=self.summaries.get(c, ""))

    # -- commands ----------------------------------------------------------------
    def _command(self, text: str, event: CompleteEvent) -> Iterator[Completion]:
        m = re.match(r":?(\w*)(\s+)?(.*)\Z", text, re.S)
        name, space, rest = m.group(1), m.group(2), m.group(3)
        if not space:
            for c in sorted(self.commands):
                if c.startswith(name):
                    yield Completion(":" + c, -len(text),
                                     display_meta=self.summaries.get(c, ""))
            return
        kind = self.commands.get(name)
        word = rest.split()[-1] if rest and not rest[-1].isspace() else ""
        if len(rest.split()) > (1 if word else 0) and kind != "target":
            return
        if kind == "directive":
            from clayx.directives import names
            for n in [*names(), *sorted(self.commands)]:
                if n.startswith(word):
                    yield Completion(n, -len(word))
        elif kind == "target":
            if len(rest.split()) > (1 if word else 0):
                opts = ["-o"] if name == "emit" else ["all"]
                for o in opts:
                    if o.startswith(word):
                        yield Completion(o, -len(word))
                return
            for t in self.targets:
                if t.startswith(word):
                    yield Completion(t, -len(word))
        elif kind == "statement":
            scop = self.scop()
            for st in scop.statements:
                if st.name.startswith(word):
                    yield Completion(st.name, -len(word), display_meta=short(st.body, 40))
        elif kind == "path":
            yield from self._paths.get_completions(Document(word, len(word)), event)

    # -- arguments ---------------------------------------------------------------
    def _argument(self, text: str, ctx: CallContext) -> Iterator[Completion]:
        from clayx.directives import lookup, names
        from clayx.errors import DirectiveError
        if ctx.nested or not ctx.call:
            return
        try:
            d = lookup(ctx.call)
        except DirectiveError:
            return
        if ctx.arg >= len(d.params):
            return
        p = d.params[ctx.arg]
        typed = text[ctx.arg_start:]
        partial = typed.lstrip()
        scop = self.scop()
        if p.kind == "beta":
            if ctx.array_start is not None:
                partial = text[ctx.array_start:]
            if re.fullmatch(r"[A-Za-z_]\w*", partial or "x"):
                # a variable or a query call in place of the β
                for v in sorted(self.env()):
                    if v.startswith(partial):
                        yield Completion(v, -len(partial), display_meta="variable")
                for q in names("query"):
                    if q.startswith(partial) and partial:
                        yield Completion(q + "(", -len(partial),
                                         display=q, display_meta=lookup(q).signature)
            if partial and not partial.startswith("["):
                return
            yield from self._betas(scop, p, partial)
            return
        if p.kind == "int" and p.name.startswith("depth") and re.fullmatch(r"\d*", partial):
            beta = _int_list(ctx.args[0]) if ctx.args else None
            if beta is None:
                return
            yield from self._depths(scop, beta, partial)
            return
        if p.kind == "int" and p.name == "access" and re.fullmatch(r"\d*", partial):
            beta = _int_list(ctx.args[0]) if ctx.args else None
            if beta is None or not scop.schedule.is_statement(beta):
                return
            st = scop.statement(scop.schedule.relation(beta).stmt)
            for k, a in enumerate(st.accesses, 1):
                if str(k).startswith(partial):
                    yield Completion(str(k), -len(partial),
                                     display_meta=f"{a.kind} {a.text or a.array}")
            return
        if p.kind == "int" and p.name == "array" and re.fullmatch(r"\d*", partial):
            # Clay's dim* forms: array ids, those accessed under the β first
            from clayx.directives import array_ids, clay_matching
            beta = _int_list(ctx.args[0]) if ctx.args else None
            under = set() if beta is None else {
                a.array for r in clay_matching(scop, beta)
                for a in scop.statement(r.stmt).accesses}
            ids = sorted(array_ids(scop).items(), key=lambda kv: (kv[0] not in under, kv[1]))
            for name, k in ids:
                if str(k).startswith(partial):
                    where = "accessed under the β" if name in under else "not under the β"
                    yield Completion(str(k), -len(partial), display_meta=f"{name} ({where})")
            return
        if p.kind == "ints" and p.name == "order" and d.kind == "transform" \
                and partial in ("", "["):
            beta = _int_list(ctx.args[0]) if ctx.args else None
            if beta is None or not (beta == () or scop.schedule.is_loop(beta)):
                return
            n = len(scop.schedule.children(beta))
            ident = fmt_beta(range(n))
            yield Completion(ident, -len(partial),
                             display_meta=f"current order of the {n} children of {fmt_beta(beta)}")
        if p.kind == "bool":
            for v in ("true", "false"):
                if v.startswith(partial):
                    yield Completion(v, -len(partial))

    def _betas(self, scop: Scop, p, partial: str) -> Iterator[Completion]:
        sched = scop.schedule
        want = re.sub(r"\s+", "", partial)
        cands: list[tuple[tuple[int, ...], str]] = []
        if not p.statement:
            if getattr(p, "root", False):
                cands.append(((), "root: the whole SCoP"))
            cands += [(b, loop_hint(scop, b)) for b in sched.loops()]
        if not p.loop:
            cands += [(b, statement_hint(scop, b)) for b in sched.betas]
        cands.sort(key=lambda c: c[0])
        for beta, hint in cands:
            compact = "[" + ",".join(str(x) for x in beta) + "]"
            if compact.startswith(want) or not want:
                yield Completion(fmt_beta(beta), -len(partial), display=compact,
                                 display_meta=hint)

    def _depths(self, scop: Scop, beta: tuple[int, ...], partial: str) -> Iterator[Completion]:
        sched = scop.schedule
        rels = sched.relations_under(beta)
        if not rels:
            return
        n = min(r.depth for r in rels)
        rel = rels[0]
        for k in range(1, n + 1):
            if str(k).startswith(partial):
                yield Completion(str(k), -len(partial),
                                 display_meta=f"loop {fmt_beta(rel.beta[:k])} "
                                              f"{loop_label(scop, rel.beta[:k])}")
