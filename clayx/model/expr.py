"""Statement bodies as expression trees.

The C front end keeps, beside each statement's text, the tree of its
expression statement (:attr:`Statement.body_expr
<clayx.model.Statement.body_expr>`), made of the small immutable nodes
below.  Code generation prints it again with the loop iterators substituted
and every array reference's subscripts written from its access relation by
isl, so ``A[i][j - 1]`` reads as written after an interchange and as
``A[i][c2 - i - 1]`` after a skew, and a reshaped array's new subscripts
need no text rewriting.

- :class:`Ref` is an array reference or an accessed scalar: the refs
  (:attr:`Access.ref <clayx.model.Access.ref>`) of the accesses it stands
  for (a compound assignment reads and writes one reference), the array
  name and subscripts as written;
- :class:`Name` any other identifier (an iterator, a parameter, a
  function, a macro), :class:`Lit` a literal as written, :class:`Paren`
  parentheses the source has;
- :class:`Unary`, :class:`Binary`, :class:`Assign`, :class:`Cond`,
  :class:`Call`, :class:`Cast`, :class:`Index` (a subscript that is no
  access: of a macro), :class:`Comma` the C operators;
- :class:`Raw` a piece the tree does not model (``sizeof``, a compound
  literal), kept as text; it never contains an access.

Nodes are frozen dataclasses; ``children`` gives the sub-expressions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Union


@dataclass(frozen=True)
class Lit:
    """A number, character or string literal, as written (``0.5``,
    ``"%d"``)."""

    text: str


@dataclass(frozen=True)
class Name:
    """An identifier that is no access: a loop iterator, a parameter, a
    function or macro name."""

    text: str


@dataclass(frozen=True)
class Ref:
    """An access: ``refs`` of the :class:`~clayx.model.Access` es it stands
    for, the ``array`` and the ``subscripts`` as written (empty for a
    scalar), and ``text`` the reference as written (equal to the access's
    :attr:`~clayx.model.Access.text` until a layout step rewrites it)."""

    refs: tuple[str, ...]
    array: str
    subscripts: tuple["Expr", ...] = ()
    text: str = ""


@dataclass(frozen=True)
class Index:
    """``base[s0][s1]…`` that is no access of the model (the base is a
    macro)."""

    base: "Expr"
    subscripts: tuple["Expr", ...]


@dataclass(frozen=True)
class Paren:
    """Parentheses written in the source."""

    inner: "Expr"


@dataclass(frozen=True)
class Unary:
    """A prefix (``-x``, ``!x``, ``++x``) or ``postfix`` (``x++``)
    operator."""

    op: str
    arg: "Expr"
    postfix: bool = False


@dataclass(frozen=True)
class Binary:
    """``left op right`` (arithmetic, comparison, logic, bitwise);
    ``newline`` when the source breaks the line between the operands (the
    printed body breaks it before the operator)."""

    op: str
    left: "Expr"
    right: "Expr"
    newline: bool = False


@dataclass(frozen=True)
class Assign:
    """``target op value`` with ``op`` ``=``, ``+=``, …"""

    op: str
    target: "Expr"
    value: "Expr"


@dataclass(frozen=True)
class Cond:
    """``test ? then : other``."""

    test: "Expr"
    then: "Expr"
    other: "Expr"


@dataclass(frozen=True)
class Call:
    """``fn(args…)``; ``fn`` the function or macro name."""

    fn: str
    args: tuple["Expr", ...]


@dataclass(frozen=True)
class Cast:
    """``(ctype)arg``."""

    ctype: str
    arg: "Expr"


@dataclass(frozen=True)
class Comma:
    """``a, b, …``."""

    items: tuple["Expr", ...]


@dataclass(frozen=True)
class Raw:
    """A piece kept as text (no access inside): ``sizeof(double)``."""

    text: str


Expr = Union[Lit, Name, Ref, Index, Paren, Unary, Binary, Assign, Cond, Call, Cast,
             Comma, Raw]


def children(e: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of a node, left to right."""
    if isinstance(e, Ref):
        return e.subscripts
    if isinstance(e, Index):
        return (e.base,) + e.subscripts
    if isinstance(e, Paren):
        return (e.inner,)
    if isinstance(e, (Unary, Cast)):
        return (e.arg,)
    if isinstance(e, Binary):
        return (e.left, e.right)
    if isinstance(e, Assign):
        return (e.target, e.value)
    if isinstance(e, Cond):
        return (e.test, e.then, e.other)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Comma):
        return e.items
    return ()


def walk(e: Expr) -> Iterator[Expr]:
    """Every node of a tree, pre-order."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))


def refs_of(e: Expr) -> set[str]:
    """The access refs a tree prints."""
    return {r for n in walk(e) if isinstance(n, Ref) for r in n.refs}
