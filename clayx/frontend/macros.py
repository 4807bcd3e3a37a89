"""Preprocessor definitions by position, without running a preprocessor.

The C front end reads a file with tree-sitter, where ``#define`` and
``#undef`` lines are nodes of the tree, wherever they are (file level,
inside a function, inside a SCoP).  This module answers "which definitions
of a macro may be in force at this point of the file", in textual order as
the C preprocessor sees them:

- a ``#define`` replaces the definition in force, an ``#undef`` removes it;
- a conditional group (``#if``/``#ifdef``/``#ifndef`` … ``#elif``/``#else``
  … ``#endif``) is not evaluated: after it, what any of its branches leaves
  may be in force, and what was in force before it when it has no
  ``#else``; a point inside one of its branches sees that branch taken;
- a name defined only on the command line (``-DN=…``) is unknown here.

So ``#ifndef N`` / ``# define N 36`` / ``#endif`` leaves ``N`` possibly 36
(the front end takes 36), and ``#undef N`` / ``#define N 20`` inside a
function changes ``N`` from that line on, for that function and the rest of
the file.

:func:`substitute` expands a function-like macro call as text, the
arguments marked as copied from the source, so the front end can analyse
what a macro really reads and writes (and tell an access written in the
statement from one hidden in a macro definition).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter as ts

__all__ = ["Macro", "Undef", "Conditional", "directive", "directives", "state_at",
           "apply", "in_force", "substitute", "Piece", "normalized"]

#: A piece of an expansion: its text, and the byte range of the source it is
#: copied from (None for text from a macro definition).
Piece = tuple[str, "tuple[int, int] | None"]

_INT = re.compile(r"([+-]?\d+)[uUlL]*")
_PP_TOKEN = re.compile(r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'"""
                       r"""|##|#|[A-Za-z_]\w*|\d[\w.]*(?:[eEpP][+-][\w.]*)?|\s+|.""", re.S)
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _text(node: ts.Node) -> str:
    return node.text.decode("utf8", errors="replace")


def _position(node: ts.Node, src: bytes) -> tuple[int, int]:
    """1-based (line, column in characters) of ``node``."""
    line_start = src.rfind(b"\n", 0, node.start_byte) + 1
    col = len(src[line_start:node.start_byte].decode("utf8", errors="replace"))
    return node.start_point[0] + 1, col + 1


def normalized(text: str) -> str:
    """``text`` with every run of white space made one space, trimmed."""
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class Macro:
    """One ``#define``: ``params`` is None for an object-like macro, else the
    parameter names (``...`` last for a variadic one); ``body`` the
    replacement text; ``line``/``column`` (1-based) and ``start``/``end``
    (bytes) where the directive is; ``text`` the directive as written."""

    name: str
    params: tuple[str, ...] | None
    body: str
    line: int
    column: int
    start: int
    end: int
    text: str

    @property
    def key(self) -> tuple:
        """What makes two definitions the same (C's "identical" redefinition)."""
        return (self.params, normalized(self.body))

    @property
    def function_like(self) -> bool:
        """True for ``#define F(x) …``."""
        return self.params is not None

    def int_value(self) -> int | None:
        """The value of an object-like macro whose body is a decimal integer
        (in parentheses, signed, with a suffix: ``(-4L)``), else None."""
        if self.params is not None:
            return None
        v = self.body.strip()
        while v.startswith("(") and v.endswith(")"):
            v = v[1:-1].strip()
        m = _INT.fullmatch(v)
        return int(m.group(1)) if m else None

    def identifiers(self) -> set[str]:
        """The identifiers of the body, parameters excluded."""
        params = set(self.params or ()) | {"__VA_ARGS__"}
        return {t for t in _tokens(self.body) if _IDENT.fullmatch(t) and t not in params}


@dataclass(frozen=True)
class Undef:
    """One ``#undef name`` line (positions as in :class:`Macro`)."""

    name: str
    line: int
    column: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Conditional:
    """A conditional group: its branches as ``(start, end, events)``, and
    whether it ends with an ``#else`` (one branch is always taken)."""

    start: int
    end: int
    branches: tuple[tuple[int, int, tuple], ...]
    exhaustive: bool


#: name -> the definitions that may be in force (None: not defined).
State = dict[str, frozenset]


def _line_end(src: bytes, pos: int) -> int:
    """The end of the logical line at byte ``pos`` (the newline that is not
    escaped by a backslash nor inside a comment or a literal)."""
    n, i = len(src), pos
    while i < n:
        if src.startswith(b"/*", i):
            j = src.find(b"*/", i + 2)
            i = n if j < 0 else j + 2
        elif src.startswith(b"//", i):
            j = src.find(b"\n", i)
            return n if j < 0 else j
        elif src[i] in b"\"'":
            j = i + 1
            while j < n and src[j] != src[i] and src[j] != 10:
                j += 2 if src[j] == 92 else 1
            i = j + 1
        elif src[i] == 92 and src[i + 1:i + 2] in (b"\n", b"\r"):
            i += 2 if src[i + 1:i + 2] == b"\n" else 3
        elif src[i] == 10:
            return i
        else:
            i += 1
    return n


def _clean(text: str) -> str:
    """A directive's text as the preprocessor reads it: continuation lines
    joined, comments made spaces, trimmed."""
    text = re.sub(r"\\\r?\n", "", text)
    return "".join(" " if t.startswith(("//", "/*")) else t for t in _tokens(text)).strip()


def directive(node: ts.Node, src: bytes) -> Macro | Undef | None:
    """The ``#define``/``#undef`` of ``node``, else None.  The body is read
    from the source up to the end of the logical line (tree-sitter cuts a
    definition at a comment)."""
    t = node.type
    if t in ("preproc_def", "preproc_function_def"):
        name = node.child_by_field_name("name")
        if name is None:
            return None
        params, after = None, name.end_byte
        if t == "preproc_function_def":
            pnode = node.child_by_field_name("parameters")
            params = tuple(_text(c) for c in (pnode.children if pnode is not None else ())
                           if c.type in ("identifier", "..."))
            after = pnode.end_byte if pnode is not None else after
        end = _line_end(src, after)
        body = _clean(src[after:end].decode("utf8", errors="replace"))
        line, col = _position(node, src)
        return Macro(_text(name), params, body, line, col, node.start_byte, end,
                     src[node.start_byte:end].decode("utf8", errors="replace"))
    if t == "preproc_call":
        line, col = _position(node, src)
        text = _text(node).rstrip("\n")
        d = node.child_by_field_name("directive")
        arg = node.child_by_field_name("argument")
        if d is not None and re.fullmatch(r"#\s*undef", _text(d)) and arg is not None:
            m = _IDENT.match(_text(arg).strip())
            if m:
                return Undef(m.group(0), line, col, node.start_byte, node.end_byte, text)
    return None


def directives(root: ts.Node, src: bytes) -> tuple:
    """Every ``#define``/``#undef``/conditional group under ``root``, in
    textual order (:class:`Macro`, :class:`Undef`, :class:`Conditional`)."""
    return _events(root.children, src)


def _events(nodes, src: bytes) -> tuple:
    out: list = []
    for n in nodes:
        ev = directive(n, src)
        if ev is not None:
            out.append(ev)
        elif n.type in ("preproc_if", "preproc_ifdef"):
            out.append(_conditional(n, src))
        elif n.child_count:
            out.extend(_events(n.children, src))
    return tuple(out)


def _conditional(node: ts.Node, src: bytes) -> Conditional:
    branches = []
    cur, exhaustive = node, False
    while cur is not None:
        alt = cur.child_by_field_name("alternative")
        items = [c for c in cur.children if alt is None or c != alt]
        end = alt.start_byte if alt is not None else cur.end_byte
        branches.append((cur.start_byte, end, _events(items, src)))
        exhaustive = cur.type == "preproc_else"
        cur = alt
    return Conditional(node.start_byte, node.end_byte, tuple(branches), exhaustive)


def apply(state: State, event: Macro | Undef) -> None:
    """Update ``state`` with one ``#define``/``#undef``."""
    state[event.name] = frozenset([event if isinstance(event, Macro) else None])


def state_at(events: tuple, pos: int) -> State:
    """The definitions that may be in force at byte ``pos``."""
    state: State = {}
    _run(events, state, pos)
    return state


def _run(events: tuple, state: State, pos: int) -> bool:
    """Apply ``events`` before ``pos`` to ``state``; True once ``pos`` is met."""
    for ev in events:
        if ev.start >= pos:
            return True
        if not isinstance(ev, Conditional):
            apply(state, ev)
            continue
        if ev.end > pos:  # pos is inside this group: its branch is taken
            for a, b, evs in ev.branches:
                if a <= pos < b:
                    _run(evs, state, pos)
            return True
        outs = []
        for _, _, evs in ev.branches:
            s = dict(state)
            _run(evs, s, pos)
            outs.append(s)
        if not ev.exhaustive:
            outs.append(dict(state))
        none = frozenset([None])
        for name in {k for s in outs for k in s}:
            state[name] = frozenset().union(*(s.get(name, none) for s in outs))
    return False


def in_force(state: State) -> dict[str, tuple[Macro, ...]]:
    """name -> the distinct definitions that may be in force (names that
    may only be undefined are left out)."""
    out: dict[str, tuple[Macro, ...]] = {}
    for name, defs in state.items():
        seen: dict[tuple, Macro] = {}
        for m in sorted((d for d in defs if d is not None), key=lambda d: d.start):
            seen.setdefault(m.key, m)
        if seen:
            out[name] = tuple(seen.values())
    return out


def _tokens(text: str) -> list[str]:
    return _PP_TOKEN.findall(text)


def substitute(macro: Macro, args: list[Piece]) -> list[Piece]:
    """The body of the function-like ``macro`` with its parameters replaced
    by ``args`` (as the preprocessor does: no parentheses added; ``#x``
    makes a string, ``a ## b`` pastes); an argument keeps its source range
    unless it is stringified or pasted.  Raises ValueError on a wrong number
    of arguments."""
    params = list(macro.params or ())
    variadic = bool(params) and params[-1] == "..."
    named = params[:-1] if variadic else params
    if len(args) == 0 and len(named) == 1 and not variadic:
        args = [("", None)]
    if len(args) < len(named) or (not variadic and len(args) > len(named)):
        raise ValueError(f"macro '{macro.name}' takes {len(named)} argument"
                         f"{'s' if len(named) != 1 else ''}{' or more' if variadic else ''}, "
                         f"got {len(args)}")
    value = {p: (a[0].strip(), a[1]) for p, a in zip(named, args)}
    if variadic:
        rest = args[len(named):]
        span = (rest[0][1][0], rest[-1][1][1]) if rest and rest[0][1] and rest[-1][1] else None
        value["__VA_ARGS__"] = (", ".join(a[0].strip() for a in rest), span)
    toks = _tokens(macro.body)
    out: list[Piece] = []
    k = 0

    def next_tok(j: int) -> int:
        while j < len(toks) and toks[j].isspace():
            j += 1
        return j

    while k < len(toks):
        tok = toks[k]
        if tok == "#" and next_tok(k + 1) < len(toks) and toks[next_tok(k + 1)] in value:
            k = next_tok(k + 1)
            s = value[toks[k]][0].replace("\\", "\\\\").replace('"', '\\"')
            out.append((f'"{s}"', None))
        elif tok == "##":
            while out and out[-1][0].isspace():
                out.pop()
            if out:
                out[-1] = (out[-1][0], None)
            k = next_tok(k + 1)
            if k < len(toks):
                nxt = toks[k]
                out.append((value[nxt][0] if nxt in value else nxt, None))
        elif tok in value:
            pasted = next_tok(k + 1) < len(toks) and toks[next_tok(k + 1)] == "##"
            out.append((value[tok][0], None if pasted else value[tok][1]))
        else:
            out.append((tok, None))
        k += 1
    return out
