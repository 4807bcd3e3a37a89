"""Clay's script language: parse and print, round-trip exact.

A script is a sequence of directive calls, as Clay (Bagnères et al.) reads them::

    # comment to end of line (also // ... and /* ... */)
    reorder([0], [1, 0]);
    iss([0], {1 | 0 | -1 | 3});      # a list: items separated by |
    i = get_beta_loop(1);            # a variable holds a value
    interchange(i, 1, 2, true);
    reorder(get_beta_loop(1), [1, 0]);   # nested calls are arguments too
    unchecked fuse([0]);             # clayx: apply without the legality check

Grammar::

    script    = statement*
    statement = ['unchecked'] [NAME '='] call ';'  |  ';'
    call      = NAME '(' [arg (',' arg)*] ')'
    arg       = INT | '[' [INT (',' INT)*] ']' | '{' [arg ('|' arg)*] '}'
              | STRING | 'true' | 'false' | NAME | call

``INT`` is ``-?[0-9]+``, ``NAME`` is ``[A-Za-z_][A-Za-z0-9_]*`` other than
``true``/``false``; ``STRING`` is double-quoted on one line with the escapes
``\\\\ \\" \\n \\t \\r \\0 \\'`` and ``\\u{hex}``.  ``unchecked`` is a keyword
only when a name follows it, so it stays usable as a name.  List items may be
any argument (Clay itself puts integers and integer arrays there); the
directive registry checks the types.

Values are plain Python where that loses nothing: ``int``, ``bool``; the rest
are small frozen classes -- :class:`Array` (``[...]``), :class:`ClayList`
(``{...}``), :class:`Str`, :class:`Var`, :class:`Call`.  Equality ignores
source positions and tells ``true`` from ``1``.  ``str(script)`` is the
canonical text and ``Script.parse(str(s)) == s`` for every script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Union

from .errors import DirectiveError, ScriptSyntaxError

__all__ = ["Arg", "Array", "Call", "ClayList", "Script", "Step", "Str", "Var",
           "extract_embedded", "format_arg", "to_python"]

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = frozenset({"true", "false"})


def _check_name(name: object, what: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name) or name in _KEYWORDS:
        raise ValueError(f"{what} must be an identifier other than true/false, got {name!r}")
    return name


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# --------------------------------------------------------------------------- values

@dataclass(frozen=True)
class Array:
    """An integer array ``[a, b, …]`` (β-vectors, orders, coefficients)."""

    values: tuple[int, ...]

    def __post_init__(self) -> None:
        values = tuple(self.values)
        if not all(_is_int(v) for v in values):
            raise TypeError(f"Array holds integers only, got {values!r}")
        object.__setattr__(self, "values", values)

    def __iter__(self) -> Iterator[int]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __str__(self) -> str:
        return format_arg(self)


@dataclass(frozen=True, eq=False)
class ClayList:
    """A Clay list ``{a | b | …}``; items are arguments (ints, arrays, …)."""

    items: tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "items", tuple(_coerce_arg(a) for a in self.items))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClayList):
            return NotImplemented
        return _key(self) == _key(other)

    def __hash__(self) -> int:
        return hash(_key(self))

    def __iter__(self) -> Iterator:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __str__(self) -> str:
        return format_arg(self)


@dataclass(frozen=True)
class Str:
    """A double-quoted string argument (``get_array_id("A")``)."""

    value: str

    def __post_init__(self) -> None:
        if not isinstance(self.value, str):
            raise TypeError(f"Str holds a str, got {self.value!r}")

    def __str__(self) -> str:
        return format_arg(self)


@dataclass(frozen=True)
class Var:
    """A reference to a script variable (``i`` in ``interchange(i, 1, 2)``)."""

    name: str

    def __post_init__(self) -> None:
        _check_name(self.name, "a variable name")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, eq=False)
class Call:
    """A directive call ``name(arg, …)``; also a nested-call argument.

    ``line``/``column`` (1-based, of the name) do not take part in equality.
    """

    name: str
    args: tuple = ()
    line: int | None = field(default=None, compare=False)
    column: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        _check_name(self.name, "a directive name")
        object.__setattr__(self, "args", tuple(_coerce_arg(a) for a in self.args))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Call):
            return NotImplemented
        return _key(self) == _key(other)

    def __hash__(self) -> int:
        return hash(_key(self))

    def __str__(self) -> str:
        return format_arg(self)


Arg = Union[int, bool, Array, ClayList, Str, Var, Call]


def _coerce_arg(a: object) -> Arg:
    """Accept the argument kinds; a list/tuple of ints becomes an :class:`Array`."""
    if isinstance(a, (int, Array, ClayList, Str, Var, Call)):  # int covers bool
        return a
    if isinstance(a, (list, tuple)) and all(_is_int(v) for v in a):
        return Array(tuple(a))
    raise TypeError(f"not a script argument: {a!r} (use Array, ClayList, Str, Var, Call, "
                    f"int or bool)")


def _key(a: object) -> tuple:
    """A type-tagged, position-free key: ``true`` differs from ``1``."""
    if isinstance(a, bool):
        return ("bool", a)
    if isinstance(a, int):
        return ("int", a)
    if isinstance(a, Array):
        return ("array", a.values)
    if isinstance(a, ClayList):
        return ("list", tuple(_key(x) for x in a.items))
    if isinstance(a, Str):
        return ("str", a.value)
    if isinstance(a, Var):
        return ("var", a.name)
    if isinstance(a, Call):
        return ("call", a.name, tuple(_key(x) for x in a.args))
    raise TypeError(f"not a script argument: {a!r}")


# --------------------------------------------------------------------------- printing

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def _quote(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif not ch.isprintable():
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def format_arg(a: Arg) -> str:
    """The canonical text of one argument."""
    if isinstance(a, bool):
        return "true" if a else "false"
    if isinstance(a, int):
        return str(a)
    if isinstance(a, Array):
        return "[" + ", ".join(str(v) for v in a.values) + "]"
    if isinstance(a, ClayList):
        return "{" + " | ".join(format_arg(x) for x in a.items) + "}"
    if isinstance(a, Str):
        return _quote(a.value)
    if isinstance(a, Var):
        return a.name
    if isinstance(a, Call):
        return a.name + "(" + ", ".join(format_arg(x) for x in a.args) + ")"
    raise TypeError(f"not a script argument: {a!r}")


# --------------------------------------------------------------------------- steps

@dataclass(frozen=True)
class Step:
    """One statement: ``[unchecked] [target =] call;``.

    ``target`` is the variable assigned (``i = get_beta_loop(1);``);
    ``unchecked`` (a clayx extension) records that the step was applied
    without the legality check.  Positions do not take part in equality.
    """

    call: Call
    target: str | None = None
    unchecked: bool = False
    line: int | None = field(default=None, compare=False)
    column: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.call, Call):
            raise TypeError(f"Step.call must be a Call, got {self.call!r}")
        if self.target is not None:
            _check_name(self.target, "a target variable")
        if not isinstance(self.unchecked, bool):
            raise TypeError("Step.unchecked must be a bool")

    def __str__(self) -> str:
        prefix = "unchecked " if self.unchecked else ""
        target = f"{self.target} = " if self.target is not None else ""
        return f"{prefix}{target}{format_arg(self.call)};"


@dataclass(frozen=True)
class Script:
    """A sequence of :class:`Step`; ``str()`` gives the canonical text."""

    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        steps = tuple(self.steps)
        if not all(isinstance(s, Step) for s in steps):
            raise TypeError("Script.steps must hold Step objects")
        object.__setattr__(self, "steps", steps)

    @classmethod
    def parse(cls, text: str, path: str | None = None) -> Script:
        """Parse Clay script text; raises :class:`ScriptSyntaxError` (1-based
        line and column of the offending token) and nothing else."""
        return cls(_Parser(text, path).script())

    @classmethod
    def from_steps(cls, steps: Iterable[Step | Call]) -> Script:
        """A script from steps; a bare :class:`Call` becomes a plain step."""
        return cls(tuple(s if isinstance(s, Step) else Step(s) for s in steps))

    def calls(self) -> Iterator[Call]:
        """Every call, nested ones included (outer before inner, left to right)."""
        def walk(a: object) -> Iterator[Call]:
            if isinstance(a, Call):
                yield a
                for x in a.args:
                    yield from walk(x)
            elif isinstance(a, ClayList):
                for x in a.items:
                    yield from walk(x)
        for s in self.steps:
            yield from walk(s.call)

    def __add__(self, other: object) -> Script:
        if isinstance(other, Script):
            return Script(self.steps + other.steps)
        if isinstance(other, (Step, Call)):
            return Script(self.steps + Script.from_steps([other]).steps)
        return NotImplemented

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Script(self.steps[i])
        return self.steps[i]

    def __str__(self) -> str:
        return "".join(f"{s}\n" for s in self.steps)


def to_python(arg: Arg, env: dict[str, object]) -> object:
    """An argument as plain Python for the directive registry.

    Array -> tuple of ints, ClayList -> tuple of converted items, Str -> str,
    bool/int unchanged, Var -> ``env[name]`` (:class:`DirectiveError` if
    undefined).  A nested :class:`Call` raises :class:`DirectiveError`: the
    session evaluates nested calls (innermost first) and substitutes values
    before calling this.
    """
    if isinstance(arg, (bool, int)):
        return arg
    if isinstance(arg, Array):
        return arg.values
    if isinstance(arg, ClayList):
        return tuple(to_python(x, env) for x in arg.items)
    if isinstance(arg, Str):
        return arg.value
    if isinstance(arg, Var):
        if arg.name not in env:
            raise DirectiveError(f"undefined variable '{arg.name}'")
        return env[arg.name]
    if isinstance(arg, Call):
        raise DirectiveError(f"nested call {arg.name}(...) must be evaluated by the session",
                             line=arg.line, column=arg.column)
    raise DirectiveError(f"not a script argument: {arg!r}")


# --------------------------------------------------------------------------- lexing

@dataclass(frozen=True)
class _Tok:
    kind: str           # "name", "int", "string", "eof" or the punctuation itself
    value: object
    line: int
    column: int
    end_line: int       # position just after the token
    end_column: int


_PUNCT = frozenset("()[]{},|;=")
_IDENT_TAIL = re.compile(r"[A-Za-z0-9_]*")
_INT_RE = re.compile(r"-?[0-9]+")
_UNICODE_ESC = re.compile(r"\{([0-9A-Fa-f]{1,6})\}")
_SIMPLE_ESC = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "r": "\r", "0": "\0"}


class _Lexer:
    """Lazy: a bad character is reported only when the parser reaches it."""

    def __init__(self, text: str, path: str | None):
        self.text = text
        self.path = path
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.buf: list[_Tok] = []
        self.last_end = (1, 1)

    def error(self, message: str, line: int, column: int) -> ScriptSyntaxError:
        lines = self.text.split("\n")
        src = lines[line - 1].rstrip("\r") if 0 < line <= len(lines) else None
        return ScriptSyntaxError(message, line=line, column=column, source_line=src,
                                 path=self.path)

    def _col(self, pos: int) -> int:
        return pos - self.line_start + 1

    def _newline(self, pos: int) -> None:  # text[pos] == "\n"
        self.line += 1
        self.line_start = pos + 1

    def _skip(self) -> None:
        t, n = self.text, len(self.text)
        while self.pos < n:
            c = t[self.pos]
            if c == "\n":
                self._newline(self.pos)
                self.pos += 1
            elif c in " \t\r\f\v":
                self.pos += 1
            elif c == "#" or t.startswith("//", self.pos):
                end = t.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif t.startswith("/*", self.pos):
                line, col = self.line, self._col(self.pos)
                end = t.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unterminated comment", line, col)
                for i in range(self.pos, end):
                    if t[i] == "\n":
                        self._newline(i)
                self.pos = end + 2
            else:
                return

    def _next(self) -> _Tok:
        self._skip()
        t, n = self.text, len(self.text)
        if self.pos >= n:
            line, col = self.last_end
            return _Tok("eof", None, line, col, line, col)
        start, line, col = self.pos, self.line, self._col(self.pos)
        c = t[start]
        if c in _PUNCT:
            self.pos += 1
            kind, value = c, c
        elif c.isascii() and (c.isalpha() or c == "_"):
            m = _IDENT_TAIL.match(t, start + 1)
            self.pos = m.end()
            kind, value = "name", t[start:self.pos]
        elif c.isascii() and c.isdigit() or (c == "-" and start + 1 < n
                                             and t[start + 1].isascii()
                                             and t[start + 1].isdigit()):
            m = _INT_RE.match(t, start)
            self.pos = m.end()
            try:
                kind, value = "int", int(t[start:self.pos])
            except ValueError:  # beyond Python's int-from-text digit limit
                raise self.error("integer literal too long", line, col) from None
        elif c == '"':
            kind, value = "string", self._string(line, col)
        else:
            raise self.error(f"unexpected character {c!r}", line, col)
        tok = _Tok(kind, value, line, col, self.line, self._col(self.pos))
        self.last_end = (tok.end_line, tok.end_column)
        return tok

    def _string(self, line: int, col: int) -> str:
        t, n = self.text, len(self.text)
        i = self.pos + 1
        out = []
        while True:
            if i >= n or t[i] == "\n":
                raise self.error("unterminated string", line, col)
            c = t[i]
            if c == '"':
                self.pos = i + 1
                return "".join(out)
            if c != "\\":
                out.append(c)
                i += 1
                continue
            e = t[i + 1] if i + 1 < n else ""
            if e in _SIMPLE_ESC and e:
                out.append(_SIMPLE_ESC[e])
                i += 2
                continue
            if e == "u":
                m = _UNICODE_ESC.match(t, i + 2)
                if m and int(m.group(1), 16) <= 0x10FFFF:
                    out.append(chr(int(m.group(1), 16)))
                    i = m.end()
                    continue
            if i + 1 >= n or e == "\n":
                raise self.error("unterminated string", line, col)
            raise self.error(f"unknown escape '\\{e}' in string "
                             f"(use \\\\ \\\" \\n \\t \\r \\0 or \\u{{hex}})",
                             line, self._col(i))

    def peek(self, k: int = 0) -> _Tok:
        while len(self.buf) <= k:
            self.buf.append(self._next())
        return self.buf[k]

    def take(self) -> _Tok:
        tok = self.peek()
        self.buf.pop(0)
        return tok


# --------------------------------------------------------------------------- parsing

_ARG_EXPECTED = "expected an integer, '[', '{', a string, true/false or a name"


def _describe(tok: _Tok) -> str:
    if tok.kind == "eof":
        return "end of script"
    if tok.kind == "string":
        return "a string"
    return f"'{tok.value}'"


class _Parser:
    def __init__(self, text: str, path: str | None):
        self.lx = _Lexer(text, path)

    def fail(self, message: str, tok: _Tok) -> ScriptSyntaxError:
        return self.lx.error(message, tok.line, tok.column)

    def script(self) -> tuple[Step, ...]:
        steps = []
        lx = self.lx
        while lx.peek().kind != "eof":
            if lx.peek().kind == ";":
                lx.take()
                continue
            steps.append(self.statement())
        return tuple(steps)

    def statement(self) -> Step:
        lx = self.lx
        first = lx.peek()
        unchecked = False
        if (first.kind == "name" and first.value == "unchecked"
                and lx.peek(1).kind == "name"):
            lx.take()
            unchecked = True
        target = None
        tok = lx.peek()
        if tok.kind == "name" and lx.peek(1).kind == "=":
            if tok.value in _KEYWORDS:
                raise self.fail(f"cannot assign to '{tok.value}'", tok)
            target = tok.value
            lx.take()
            lx.take()
            tok = lx.peek()
            if tok.kind != "name" or tok.value in _KEYWORDS:
                raise self.fail(f"expected a directive call after '{target} =', "
                                f"found {_describe(tok)}", tok)
        elif tok.kind != "name" or tok.value in _KEYWORDS:
            raise self.fail(f"expected a directive name, found {_describe(tok)}", tok)
        call = self.call()
        semi = lx.peek()
        if semi.kind != ";":
            raise self.fail(f"expected ';' after {call.name}(...), found {_describe(semi)}",
                            semi)
        lx.take()
        return Step(call, target, unchecked, line=first.line, column=first.column)

    def call(self) -> Call:
        lx = self.lx
        name = lx.take()
        opening = lx.peek()
        if opening.kind != "(":
            raise self.fail(f"expected '(' after {name.value}, found {_describe(opening)}",
                            opening)
        lx.take()
        args = []
        if lx.peek().kind == ")":
            lx.take()
        else:
            while True:
                args.append(self.arg())
                tok = lx.peek()
                if tok.kind == ")":
                    lx.take()
                    break
                if tok.kind in ("eof", ";"):
                    raise self.fail(f"unterminated argument list of {name.value}(...): "
                                    f"expected ',' or ')', found {_describe(tok)}", tok)
                if tok.kind != ",":
                    raise self.fail(f"expected ',' or ')' in {name.value}(...), "
                                    f"found {_describe(tok)}", tok)
                lx.take()
        return Call(name.value, tuple(args), line=name.line, column=name.column)

    def arg(self) -> Arg:
        lx = self.lx
        tok = lx.peek()
        if tok.kind == "int":
            lx.take()
            return tok.value
        if tok.kind == "string":
            lx.take()
            return Str(tok.value)
        if tok.kind == "name":
            if tok.value in _KEYWORDS:
                lx.take()
                return tok.value == "true"
            if lx.peek(1).kind == "(":
                return self.call()
            lx.take()
            return Var(tok.value)
        if tok.kind == "[":
            return self.array()
        if tok.kind == "{":
            return self.clay_list()
        raise self.fail(f"{_ARG_EXPECTED}, found {_describe(tok)}", tok)

    def array(self) -> Array:
        lx = self.lx
        opening = lx.take()
        values = []
        if lx.peek().kind == "]":
            lx.take()
            return Array(())
        while True:
            tok = lx.peek()
            if tok.kind == "eof":
                raise self.fail("unterminated array: '[' is never closed", opening)
            if tok.kind != "int":
                raise self.fail(f"expected an integer in array, found {_describe(tok)}", tok)
            values.append(lx.take().value)
            tok = lx.peek()
            if tok.kind == "]":
                lx.take()
                return Array(tuple(values))
            if tok.kind in ("eof", ";"):
                raise self.fail("unterminated array: '[' is never closed", opening)
            if tok.kind != ",":
                raise self.fail(f"expected ',' or ']' in array, found {_describe(tok)}", tok)
            lx.take()

    def clay_list(self) -> ClayList:
        lx = self.lx
        opening = lx.take()
        items = []
        if lx.peek().kind == "}":
            lx.take()
            return ClayList(())
        while True:
            if lx.peek().kind == "eof":
                raise self.fail("unterminated list: '{' is never closed", opening)
            items.append(self.arg())
            tok = lx.peek()
            if tok.kind == "}":
                lx.take()
                return ClayList(tuple(items))
            if tok.kind in ("eof", ";"):
                raise self.fail("unterminated list: '{' is never closed", opening)
            if tok.kind != "|":
                raise self.fail(f"expected '|' or '}}' in list, found {_describe(tok)}", tok)
            lx.take()


# --------------------------------------------------------------------------- C files

_C_SCAN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/'
                     r'|^[ \t]*#[ \t]*pragma[ \t]+(scop|endscop)\b', re.S | re.M)
_CLAY_HEAD = re.compile(r"\s*Clay\b")


def extract_embedded(c_source: str) -> str | None:
    """The Clay script embedded in C source as a ``/* Clay … */`` comment.

    Clay's convention: a C comment whose text starts with the word ``Clay``,
    placed inside or just before the ``#pragma scop`` region.  Returns the
    comment body after ``Clay`` (``*`` line decorations blanked out, columns
    kept), or None.  Comments that merely mention Clay, and string literals,
    are ignored.  Preference: the first such comment inside the first SCoP,
    else the last one before it, else the first one in the file.
    """
    found: list[tuple[int, str]] = []
    scop_start = scop_end = None
    for m in _C_SCAN.finditer(c_source):
        s = m.group(0)
        if m.group(1) == "scop":
            if scop_start is None:
                scop_start = m.start()
        elif m.group(1) == "endscop":
            if scop_start is not None and scop_end is None:
                scop_end = m.end()
        elif s.startswith("/*"):
            body = s[2:-2]
            head = _CLAY_HEAD.match(body)
            if head:
                found.append((m.start(), _undecorate(body[head.end():])))
    if not found:
        return None
    if scop_start is not None:
        end = scop_end if scop_end is not None else len(c_source)
        inside = [b for p, b in found if scop_start <= p < end]
        if inside:
            return inside[0]
        before = [b for p, b in found if p < scop_start]
        if before:
            return before[-1]
    return found[0][1]


def _undecorate(body: str) -> str:
    """Blank the leading ``*`` of every continuation line when all have one."""
    lines = body.split("\n")
    rest = [ln for ln in lines[1:] if ln.strip()]
    if rest and all(ln.lstrip().startswith("*") for ln in rest):
        lines = [lines[0]] + [ln.replace("*", " ", 1) if ln.strip() else ln
                              for ln in lines[1:]]
    return "\n".join(lines)
