"""Clay's script language: parse and print, round-trip exact.

A script is a sequence of statements, as Clay reads them (Clay reference
§3)::

    # comment to end of line
    reorder([0], [1, 0]);
    iss([0], {1 || -3});             # a list: parts separated by |, empty ones too
    i = get_beta_loop(1);            # a variable holds a value
    interchange(i, 1, 2, 0);         # an integer where a boolean is expected
    a = [0, 0];                      # a variable holding a literal
    split(a, true);                  # true/false are the integers 1/0
    break();                         # stop here: the rest is not even parsed

Grammar (Clay's, with clayx's extensions marked ``+``)::

    script    = statement*
    statement = ';'                                   + empty statements
              | ['unchecked'] [NAME '='] expr ';'     + 'unchecked'
    expr      = call | NAME | INT | STRING | array | list
    call      = NAME '(' [arg (',' arg)*] ')'
    arg       = expr                                  + a query call nested in an argument
    array     = '[' ints ']'
    list      = '{' part ('|' part)* '}'
    part      = ints | array                          + a bracketed part
    ints      = ε | [','] INT (',' INT)*              (Clay accepts [,1] as [1])

``INT`` is ``-?[0-9]+`` (the sign glued) or ``true``/``false``; ``NAME`` is
``[A-Za-z_][A-Za-z0-9_]*``; ``STRING`` is one identifier between double
quotes, blanks around it skipped (``" a_b "`` is ``a_b``).  Blanks are
spaces, tabs and U+00A0 (and, in clayx, carriage returns, so CRLF scripts
read); comments are ``#`` to the end of the line (clayx also takes them
without a final newline, between any two tokens, and ``//``, ``/* */``).
``unchecked`` is a keyword only when a name follows it.

What the parser resolves, so that the session sees only calls:

- a statement that is not a call (``[1, 2];``, ``x;``) does nothing and is
  dropped (reading an undefined variable is still an error);
- a variable assigned a literal (``a = [0, 0];``) is replaced by the
  literal where it is used later in the same script;
- ``break()`` ends the script: what follows is not parsed (as in Clay);
- a call nested in an argument must be a query (``get_beta_loop`` …), a
  call whose result is assigned must return a value, and calls nest at
  most :data:`MAX_NESTING` deep.

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

__all__ = ["Arg", "Array", "ArrayValue", "Call", "ClayList", "ListValue", "MAX_NESTING",
           "Script", "Step", "Str", "Var", "argument_position", "clay_print", "extract_embedded", "format_arg", "to_python"]

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = frozenset({"true", "false"})
#: How deep calls may nest in arguments (``f(g(h(…)))``).
MAX_NESTING = 32


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
    """A Clay list ``{a | b | …}``: its parts, each an integer (a part
    written as one bare integer) or an :class:`Array` (``1, 2``, an empty
    part, or clayx's bracketed ``[1, 2]``).

    Clay's list always has a part: ``{}`` is one empty part, written here
    with no items (a single empty :class:`Array` part is the same list).
    ``{1||-3}`` is ``(1, Array(()), -3)``.
    """

    items: tuple

    def __post_init__(self) -> None:
        items = tuple(_coerce_part(a) for a in self.items)
        if items == (Array(()),):
            items = ()
        object.__setattr__(self, "items", items)

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
    """A string argument (``get_array_id("A")``): one identifier, as Clay
    reads strings."""

    value: str

    def __post_init__(self) -> None:
        if not isinstance(self.value, str) or not _NAME_RE.match(self.value):
            raise ValueError(f"a script string is one identifier, got {self.value!r}")

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


def _coerce_part(a: object) -> int | Array:
    """A list part: an integer (booleans are 1/0 there, as in Clay) or an
    :class:`Array` (a list/tuple of integers becomes one)."""
    if isinstance(a, bool):
        return int(a)
    if isinstance(a, (int, Array)):
        return a
    if isinstance(a, (list, tuple)) and all(_is_int(v) for v in a):
        return Array(tuple(a))
    raise TypeError(f"a list part is an integer or an integer Array, got {a!r}")


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

def format_arg(a: Arg) -> str:
    """The canonical text of one argument."""
    if isinstance(a, bool):
        return "true" if a else "false"
    if isinstance(a, int):
        return str(a)
    if isinstance(a, Array):
        return "[" + ", ".join(str(v) for v in a.values) + "]"
    if isinstance(a, ClayList):
        # Clay's own form where it has one: a part of 0 or 2+ integers is
        # written bare (``{1, 0 | | -3}``), a one-integer Array bracketed
        parts = [str(x) if isinstance(x, int) else
                 format_arg(x) if len(x) == 1 else ", ".join(map(str, x.values))
                 for x in a.items]
        return "{" + "|".join(f" {t} " if t else " " for t in parts).strip() + "}"
    if isinstance(a, Str):
        return f'"{a.value}"'
    if isinstance(a, Var):
        return a.name
    if isinstance(a, Call):
        return a.name + "(" + ", ".join(format_arg(x) for x in a.args) + ")"
    raise TypeError(f"not a script argument: {a!r}")


def clay_print(call: Call, env: dict[str, object]) -> str | None:
    """What Clay's ``print`` writes for ``call`` (a ``print(…)`` call) with
    the variables ``env`` it was run with: ``int 5``, ``array [1,-2]``,
    ``list {[1],[],[-3]}``, ``string abc``, ``ref `` before a variable's;
    None when an argument is a nested call (no text of Clay's for it)."""
    words = []
    for a in call.args:
        ref = ""
        if isinstance(a, Var):
            if a.name not in env:
                return None
            ref, a = "ref ", env[a.name]
        text = _clay_value(a)
        if text is None:
            return None
        words.append(ref + text)
    return " ".join(words)


def _clay_value(v: object) -> str | None:
    """Clay's ``type value`` text of one value (a script literal or a value
    a query returned)."""
    if isinstance(v, (bool, int)):
        return f"int {int(v)}"
    if isinstance(v, Array):
        v = v.values
    if isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
        return "array [" + ",".join(str(int(x)) for x in v) + "]"
    if isinstance(v, ClayList):
        parts = v.items or (Array(()),)
        return "list {" + ",".join(
            "[" + ",".join(map(str, (x,) if isinstance(x, int) else x.values)) + "]"
            for x in parts) + "}"
    if isinstance(v, Str):
        v = v.value
    if isinstance(v, str):
        return f"string {v}"
    return None


# --------------------------------------------------------------------------- values given to directives

class ArrayValue(tuple):
    """The value of an array literal ``[…]`` given to a directive: a tuple
    of integers, marked (``clay_type``) so that a parameter taking a list
    refuses it: Clay has no coercion between arrays and lists (reference
    3.3: ``[1]`` where a list is expected is a type error)."""

    clay_type = "array"

    def __repr__(self) -> str:
        return "[" + ", ".join(map(repr, self)) + "]"


class ListValue(tuple):
    """The value of a Clay list ``{…}`` given to a directive: a tuple of its
    parts, marked (``clay_type``) so that a parameter taking an array or an
    integer refuses it (reference 3.3: ``{1}`` where an array is expected
    is a type error)."""

    clay_type = "list"

    def __repr__(self) -> str:
        return "{" + " | ".join(", ".join(map(repr, x)) if isinstance(x, tuple) else repr(x)
                                for x in self) + "}"


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
        return ArrayValue(arg.values)
    if isinstance(arg, ClayList):
        return ListValue(to_python(x, env) for x in arg.items)
    if isinstance(arg, Str):
        return arg.value
    if isinstance(arg, Var):
        if arg.name not in env:
            raise DirectiveError(f"the variable was not defined: '{arg.name}'")
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
#: Blanks: Clay's (space, tab, U+00A0), and clayx's (CR, so CRLF scripts
#: read; form feed, vertical tab).
_BLANKS = " \t\u00a0\r\f\v"
_STRING_RE = re.compile(r'"[ \t\u00a0\r\n]*([A-Za-z_][A-Za-z0-9_]*)[ \t\u00a0\r\n]*"')


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
            elif c in _BLANKS:
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
            m = _STRING_RE.match(t, start)
            if m is None:
                end = t.find('"', start + 1)
                what = ("is never closed" if end < 0 else
                        f"holds {t[start:end + 1]!r}")
                raise self.error(f"a string is one identifier between double quotes "
                                 f"(\"A\"); this one {what}", line, col)
            for i in range(start, m.end()):
                if t[i] == "\n":
                    self._newline(i)
            self.pos = m.end()
            kind, value = "string", m.group(1)
        else:
            raise self.error(f"unexpected character {c!r}", line, col)
        tok = _Tok(kind, value, line, col, self.line, self._col(self.pos))
        self.last_end = (tok.end_line, tok.end_column)
        return tok

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


#: Clay's message for a call inside an argument (clayx allows queries there).
NESTED_CALL = ("sorry you can't at the moment call a function in an other function. "
               "Please use a temp variable.")


def _value_kind(name: str) -> str:
    """``query`` (returns a value, may be nested), ``value`` (a directive
    that returns a value: ``add_array``), ``void``, or ``unknown``."""
    from .directives import lookup
    try:
        d = lookup(name)
    except DirectiveError:
        return "unknown"
    if d.kind == "query":
        return "query"
    return "value" if d.result is not None else "void"


@dataclass(frozen=True)
class _Stale:
    """A variable copied from ``name`` before ``name`` was assigned again."""

    name: str


class _Parser:
    def __init__(self, text: str, path: str | None):
        self.lx = _Lexer(text, path)
        #: variables bound by the script so far: name -> the literal they
        #: hold (or the variable they copy), None for a value a call computes
        self.bound: dict[str, object] = {}
        self.depth = 0

    def fail(self, message: str, tok: _Tok) -> ScriptSyntaxError:
        return self.lx.error(message, tok.line, tok.column)

    def script(self) -> tuple[Step, ...]:
        steps = []
        lx = self.lx
        while lx.peek().kind != "eof":
            if lx.peek().kind == ";":
                lx.take()
                continue
            step = self.statement()
            if step is None:
                continue
            steps.append(step)
            if step.call.name == "break" and not step.call.args:
                break                   # Clay stops here; the rest is not parsed
        return tuple(steps)

    def statement(self) -> Step | None:
        lx = self.lx
        first = lx.peek()
        unchecked = False
        if (first.kind == "name" and first.value == "unchecked"
                and lx.peek(1).kind == "name"):
            lx.take()
            unchecked = True
        target, target_tok = None, None
        tok = lx.peek()
        if tok.kind == "name" and lx.peek(1).kind == "=":
            if tok.value in _KEYWORDS:
                raise self.fail(f"cannot assign to '{tok.value}'", tok)
            target, target_tok = tok.value, tok
            lx.take()
            lx.take()
            tok = lx.peek()
        if tok.kind == "name" and tok.value not in _KEYWORDS and lx.peek(1).kind == "(":
            value = self.call(top=True)
        elif tok.kind == "name" and tok.value not in _KEYWORDS and target is None \
                and tok.value not in self.bound and lx.peek(1).kind == ";":
            raise self.fail(f"the variable was not defined: '{tok.value};' (a call needs "
                            f"parentheses: {tok.value}(…);)", tok)
        elif tok.kind in ("int", "string", "name", "[", "{"):
            value = self.arg()
        else:
            what = (f"expected a value after '{target} ='" if target is not None
                    else "expected a directive call or a value")
            raise self.fail(f"{what}, found {_describe(tok)}", tok)
        if isinstance(value, Call) and value.name == "break" and not value.args:
            # Clay stops when break() is reached: no ';' needed, nothing after read
            return Step(value, target, unchecked, line=first.line, column=first.column)
        semi = lx.peek()
        if semi.kind != ";":
            after = f"{value.name}(...)" if isinstance(value, Call) else format_arg(value)
            raise self.fail(f"expected ';' after {after}, found {_describe(semi)}", semi)
        lx.take()
        if not isinstance(value, Call):
            if unchecked:
                raise self.fail("'unchecked' goes before a directive call", first)
            if target is not None:
                self._bind(target, value)       # substituted where used
            return None                         # Clay: a value alone does nothing
        if target is not None:
            kind = _value_kind(value.name)
            if kind == "void":
                raise self.fail(f"{value.name}(...) returns no value: it cannot be "
                                f"assigned to '{target}'", target_tok)
            self._bind(target, None)
        return Step(value, target, unchecked, line=first.line, column=first.column)

    def _bind(self, name: str, value: Arg | None) -> None:
        """``name`` now holds ``value`` (None: what its call computes).  A
        variable copied from ``name`` earlier (``x = name;``) held its old
        value, which clayx no longer has: it may not be used any more."""
        for other, v in self.bound.items():
            if v == Var(name) and other != name:
                self.bound[other] = _Stale(name)
        self.bound[name] = value

    def call(self, top: bool = False) -> Call:
        lx = self.lx
        name = lx.take()
        if not top:
            kind = _value_kind(name.value)
            if kind != "query":
                from .directives import REGISTRY
                what = "unknown function" if kind == "unknown" else "a directive"
                queries = ", ".join(sorted(d.name for d in REGISTRY.values()
                                           if d.kind == "query"))
                raise self.fail(f"{NESTED_CALL} ({name.value}(...) is {what}: only a query "
                                f"can be called inside an argument: {queries})", name)
            if self.depth >= MAX_NESTING:
                raise self.fail(f"calls nested more than {MAX_NESTING} deep", name)
        opening = lx.take()                     # '(' (checked by the caller)
        args = []
        self.depth += 1
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
        self.depth -= 1
        if name.value == "break" and args:
            raise self.fail(f"`break' takes 0 arguments, got {len(args)}", opening)
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
            value = self.bound.get(tok.value)
            if isinstance(value, _Stale):
                raise self.fail(f"{tok.value} was copied from {value.name}, which has been "
                                f"assigned since: clayx keeps only the new value of "
                                f"{value.name}", tok)
            return Var(tok.value) if value is None else value
        if tok.kind == "[":
            return self.array()
        if tok.kind == "{":
            return self.clay_list()
        raise self.fail(f"{_ARG_EXPECTED}, found {_describe(tok)}", tok)

    def ints(self, closers: str) -> list[int]:
        """Clay's ``ints``: empty, or integers separated by commas, maybe
        after one leading comma; stops before a token in ``closers``."""
        lx = self.lx
        values: list[int] = []
        if lx.peek().kind in closers:
            return values
        if lx.peek().kind == "," and lx.peek(1).kind in ("int", "name"):
            lx.take()                           # Clay's quirk: [,1] is [1]
        while True:
            tok = lx.peek()
            if tok.kind == "int":
                values.append(lx.take().value)
            elif tok.kind == "name" and tok.value in _KEYWORDS:
                values.append(int(lx.take().value == "true"))
            else:
                raise self.fail(f"expected an integer, found {_describe(tok)}", tok)
            if lx.peek().kind != ",":
                return values
            lx.take()

    def array(self) -> Array:
        lx = self.lx
        opening = lx.take()
        values = self.ints("]")
        tok = lx.peek()
        if tok.kind == "]":
            lx.take()
            return Array(tuple(values))
        if tok.kind in ("eof", ";"):
            raise self.fail("unterminated array: '[' is never closed", opening)
        raise self.fail(f"expected ',' or ']' in array, found {_describe(tok)}", tok)

    def clay_list(self) -> ClayList:
        lx = self.lx
        opening = lx.take()
        items: list[int | Array] = []
        while True:
            tok = lx.peek()
            if tok.kind == "[":
                items.append(self.array())
            else:
                values = self.ints("|}")
                items.append(values[0] if len(values) == 1 else Array(tuple(values)))
            tok = lx.peek()
            if tok.kind == "}":
                lx.take()
                return ClayList(tuple(items))
            if tok.kind in ("eof", ";"):
                raise self.fail("unterminated list: '{' is never closed", opening)
            if tok.kind != "|":
                raise self.fail(f"expected ',', '|' or '}}' in list, found {_describe(tok)}",
                                tok)
            lx.take()


# --------------------------------------------------------------------------- C files

_C_SCAN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/'
                     r'|^[ \t]*#[ \t]*pragma(?:[ \t]|/\*.*?\*/)+(scop|endscop)\b', re.S | re.M)
_CLAY_HEAD = re.compile(r"\s*Clay\b")


def argument_position(text: str, line: int, column: int, argument: int) -> tuple[int, int]:
    """The (line, column) of the ``argument``-th (1-based) argument of the
    call whose name starts at (``line``, ``column``) of ``text``; the call's
    own position when it cannot be found.  The prompt and batch mode put
    their caret under it."""
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
