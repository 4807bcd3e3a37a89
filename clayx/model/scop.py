"""The static control part: parameters, statements, arrays, schedule, source.

All objects are frozen values; a transformation returns a new :class:`Scop`
(``dataclasses.replace(scop, schedule=...)``), keeping the same
``statements`` tuple and so the same :class:`Origin`: the program it
reorders, on which the analyses of that program are remembered.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import islpy as isl

from ..errors import ModelError
from .expr import Expr, refs_of
from .schedule import ClaySchedule

READ, WRITE, MAY_WRITE = "read", "write", "may_write"


@dataclass(frozen=True)
class Array:
    """An array (or a scalar, ``ndim == 0``) accessed in the SCoP.

    ``ctype`` is the element type when the front end found a declaration
    (``"double"``, ``"DATA_TYPE"``), else None; ``extents`` the C texts of the
    declared sizes when known.

    ``live_out`` is False when the values the SCoP leaves in the array cannot
    matter after it: the C front end finds a local variable of the function
    around the region (not ``static``/``extern``, declared once there, before
    the region) whose name occurs nowhere else in that function and in no
    macro of the file.  True otherwise, and for every array read from
    OpenScop (no source to tell).
    """

    name: str
    ndim: int
    ctype: str | None = None
    extents: tuple[str, ...] = ()
    live_out: bool = True

    @property
    def is_scalar(self) -> bool:
        """True for a 0-dimensional array (a scalar variable)."""
        return self.ndim == 0


@dataclass(frozen=True)
class Access:
    """One array reference of a statement.

    ``kind`` is ``read``, ``write`` (a must-write) or ``may_write`` (a write
    that happens only under a data-dependent condition, e.g. inside a
    ternary).  ``relation`` maps statement instances to array elements:
    ``[N] -> { S0[i, j] -> A[i, j + 1] }``.  ``text`` is the reference as
    written (``A[i][j+1]``), ``ref`` a SCoP-unique id (``S0_r2``).
    """

    kind: str
    array: str
    relation: isl.Map
    text: str = ""
    ref: str = ""

    @property
    def is_write(self) -> bool:
        """True for must- and may-writes."""
        return self.kind in (WRITE, MAY_WRITE)


@dataclass(frozen=True)
class Statement:
    """A polyhedral statement.

    ``domain`` is an ``isl.Set`` named after the statement (``S0``) whose set
    dimensions are named ``iterators`` (the original loop iterators, outermost
    first).  ``body`` is the C text of the statement (``C[i][j] += A[i][k];``);
    :func:`substitute_iterators` replaces its iterators by expressions.
    ``line`` is the 1-based source line (0 if unknown).
    ``iterator_types`` are the C types the iterators are declared with
    (``"int"``, ``"long"``…, one per iterator; empty when unknown, as from
    OpenScop): generated code gives the body each iterator in that type.
    ``body_expr`` is the body's expression tree (:mod:`clayx.model.expr`)
    when the front end could build one; code generation prints it with the
    iterators substituted and the subscripts written from the access
    relations, and prints ``body`` (the text) where :meth:`printable_expr`
    says the tree no longer describes the statement.
    """

    name: str
    domain: isl.Set
    iterators: tuple[str, ...]
    body: str
    accesses: tuple[Access, ...] = ()
    line: int = 0
    iterator_types: tuple[str, ...] = ()
    body_expr: Expr | None = None

    def printable_expr(self) -> Expr | None:
        """:attr:`body_expr` when it still describes the statement: every
        access it prints exists, and every access with text is one it
        prints (a step that merged bodies or added accesses without
        updating the tree makes it stale); else None (print the text)."""
        e = self.body_expr
        if e is None:
            return None
        printed = refs_of(e)
        own = {a.ref for a in self.accesses}
        if not printed <= own:
            return None
        if any(a.text and a.ref not in printed for a in self.accesses):
            return None
        return e

    def iterator_type(self, k: int) -> str | None:
        """The declared C type of iterator ``k`` (None when unknown)."""
        return self.iterator_types[k] if k < len(self.iterator_types) else None

    @property
    def dim(self) -> int:
        """Number of iterators."""
        return len(self.iterators)

    @property
    def reads(self) -> tuple[Access, ...]:
        """The read accesses."""
        return tuple(a for a in self.accesses if a.kind == READ)

    @property
    def writes(self) -> tuple[Access, ...]:
        """The must- and may-write accesses."""
        return tuple(a for a in self.accesses if a.is_write)


class Origin:
    """The program a :class:`Scop` schedules: its ``statements``, ``context``
    and the ``schedule`` that is their original order (the one the front end
    gave them, or the one in force when a layout step made the statements
    anew).

    Every SCoP derived from the one it was made for shares it by identity
    (``dataclasses.replace`` copies it), so what is computed about the
    original program -- its dependences -- is remembered here
    (:meth:`memo`): once per program, from its own order, never from the
    schedule of whichever SCoP happens to be asked about first.  Pickling
    keeps the program and drops what was remembered.
    """

    __slots__ = ("statements", "context", "schedule", "_memo", "_lock")

    def __init__(self, statements: tuple[Statement, ...], context: isl.Set,
                 schedule: ClaySchedule):
        self.statements = statements
        self.context = context
        self.schedule = schedule
        self._memo: dict[str, Any] = {}
        self._lock = threading.RLock()

    def memo(self, key: str, build: Callable[[], Any]) -> Any:
        """The value remembered under ``key``: ``build()`` on the first
        call (one thread builds it; the others wait for it)."""
        with self._lock:
            if key not in self._memo:
                self._memo[key] = build()
            return self._memo[key]

    def __getstate__(self):
        return (self.statements, self.context, self.schedule)

    def __setstate__(self, state) -> None:
        self.statements, self.context, self.schedule = state
        self._memo = {}
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"<Origin of {len(self.statements)} statements>"


@dataclass(frozen=True)
class Scop:
    """A SCoP: what the front end extracted, plus the current schedule.

    - ``params``: parameter names, in the order of every isl object's
      parameter space; ``context`` a parameter-only set of assumptions.
    - ``statements``, ``arrays``, ``schedule`` (a :class:`ClaySchedule`).
    - ``source``/``path``: the whole file text when read from C, and
      ``region``: the (start, end) character offsets of the text *between*
      the ``#pragma scop`` and ``#pragma endscop`` lines, which code
      generation replaces (everything else is kept byte for byte).
    - ``param_values``: default values of parameters defined as integer
      macros in the file (``#define N 100``), for choosing test sizes.
    - ``declared_iterators``: loop iterators declared outside their loop
      (``int i; … for (i = 0; …)``), which generated code must use, not
      redeclare; ``declared_iterator_types`` their declared C types (a name
      missing there is taken for ``int``): generated code assigns such a
      variable only when its type holds every value of the loop.
    - ``extensions``: OpenScop extensions kept verbatim as (tag, text).
    - ``macro_lines``: the ``#define``/``#undef`` lines written inside the
      region (clayx's own helpers excepted), in order; generated code
      repeats them at the top of the region, before any statement.  The
      front end only accepts them when no statement of the region sees a
      definition other than the last one, so their place does not matter.
    - ``origin``: the :class:`Origin`, the program this SCoP's schedule
      reorders.  Leave it out: a new SCoP gets one made of its own
      statements, context and schedule, a SCoP made with
      ``dataclasses.replace`` keeps its source's -- unless its
      ``statements`` tuple is another one (a layout step changed the
      program), which makes it a new program in its current order.
    """

    params: tuple[str, ...]
    context: isl.Set
    statements: tuple[Statement, ...]
    arrays: tuple[Array, ...]
    schedule: ClaySchedule
    source: str | None = None
    path: str | None = None
    region: tuple[int, int] | None = None
    param_values: dict[str, int] = field(default_factory=dict, compare=False, hash=False)
    declared_iterators: frozenset[str] = frozenset()
    declared_iterator_types: dict[str, str] = field(default_factory=dict, compare=False,
                                                    hash=False)
    extensions: tuple[tuple[str, str], ...] = ()
    language: str = "C"
    macro_lines: tuple[str, ...] = ()
    origin: Origin | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        o = self.origin
        if o is None or o.statements is not self.statements:
            object.__setattr__(self, "origin",
                               Origin(self.statements, self.context, self.schedule))

    def statement(self, name: str) -> Statement:
        """The statement called ``name`` (``ModelError`` if none)."""
        for s in self.statements:
            if s.name == name:
                return s
        raise ModelError(f"no statement named {name!r}")

    def array(self, name: str) -> Array:
        """The array called ``name`` (``ModelError`` if none)."""
        for a in self.arrays:
            if a.name == name:
                return a
        raise ModelError(f"no array named {name!r}")

    def domains(self) -> isl.UnionSet:
        """Union of all statement domains."""
        us = isl.UnionSet.empty(self.context.get_space())
        for s in self.statements:
            us = us.union(isl.UnionSet.from_set(s.domain))
        return us

    def accesses(self, *kinds: str) -> isl.UnionMap:
        """Union of the access relations of the given kinds (all if none)."""
        um = isl.UnionMap.empty(self.context.get_space())
        for s in self.statements:
            for a in s.accesses:
                if not kinds or a.kind in kinds:
                    um = um.union(isl.UnionMap.from_map(a.relation))
        return um

    def scheduled(self) -> isl.UnionMap:
        """The current schedule as one union map, restricted to the domains."""
        return self.schedule.union_map().intersect_domain(self.domains())

    def iterator_names(self, beta_prefix: Sequence[int]) -> list[str]:
        """Original iterator names of the loop at ``beta_prefix`` (one per
        statement under it, deduplicated): the iterator at that depth."""
        depth = len(beta_prefix)
        names: list[str] = []
        for r in self.schedule.relations_under(tuple(beta_prefix)):
            st = self.statement(r.stmt)
            if depth <= st.dim:
                n = st.iterators[depth - 1]
                if n not in names:
                    names.append(n)
        return names


# --- statement bodies --------------------------------------------------------

_TOKEN = re.compile(
    r"""(?P<comment>//[^\n]*|/\*.*?\*/)"""
    r"""|(?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')"""
    r"""|(?P<member>(?:\.|->)\s*[A-Za-z_]\w*)"""
    r"""|(?P<num>\b\d[\w.]*(?:[eEpP][+-]\d+)?)"""
    r"""|(?P<id>[A-Za-z_]\w*)""", re.S)


def substitute_iterators(body: str, mapping: dict[str, str]) -> str:
    """Replace identifier tokens of ``body`` by text, C-token aware.

    Identifiers inside comments, string/char literals, after ``.``/``->``
    and inside numbers are left alone.  Replacements are parenthesized unless they are a
    plain identifier or a non-negative integer:

    >>> substitute_iterators("A[i][j] = B[i+1];", {"i": "c1 - 1", "j": "c2"})
    'A[(c1 - 1)][c2] = B[(c1 - 1)+1];'
    """
    def repl(m: re.Match) -> str:
        name = m.group("id")
        if name is None or name not in mapping:
            return m.group(0)
        text = mapping[name]
        if re.fullmatch(r"[A-Za-z_]\w*|\d+", text.strip()):
            return text.strip()
        return f"({text})"

    return _TOKEN.sub(repl, body)


def bracket_subscripts(text: str, pos: int = 0) -> tuple[list[str], int]:
    """The bracketed subscripts ``[a][b]…`` of ``text`` from ``pos`` on
    (spaces allowed before each), brackets and parentheses nested: their
    texts, stripped, and the offset after the last ``]``.  The list ends at
    anything else, or at a bracket that does not close.

    >>> bracket_subscripts("A[i][ j + (k) ] = 0", 1)
    (['i', 'j + (k)'], 15)
    """
    subs: list[str] = []
    n = len(text)
    while True:
        k = pos
        while k < n and text[k].isspace():
            k += 1
        if k >= n or text[k] != "[":
            return subs, pos
        depth, j = 0, k
        while j < n:
            depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        if j >= n or text[j] != "]":
            return subs, pos
        subs.append(text[k + 1:j].strip())
        pos = j + 1


def identifiers(text: str) -> set[str]:
    """All identifier tokens of a piece of C text (not in literals, not
    member names)."""
    return {m.group("id") for m in _TOKEN.finditer(text) if m.group("id")}
