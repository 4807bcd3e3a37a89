"""Integer types of generated code: what every printed value can be.

Generated loops used to be ``int`` whatever their dates, so a shift by
``2**32`` or a ``grain`` of ``2**32`` gave loops that never ran or never
stopped.  The printer (:class:`~clayx.codegen.c.CPrinter`) now gives every
value it prints a :class:`Value`: an interval and the C type C computes it
in, under this rule:

- **Which values.**  Parameters take the values the file's integer macros
  give them (``Scop.param_values``); the others are taken at 0, i.e. the
  constant parts of the bounds decide (a value that overflows only for huge
  parameters is the class of overflow the original program has itself, as
  in Pluto or PPCG).  Leaves are then intervals: a constant is itself, a
  parameter its value, a loop iterator the interval its loop runs over, and
  the AST's operations combine them (:func:`combine`, :func:`sum_value`).
  The loop bounds are the AST's own expressions, so the values counted are
  the ones the C code computes, including the value an iterator has when
  its loop exits (the last value plus the stride) and the values a loop
  over a hull of several pieces runs through under its guards; the dates
  isl scans are among them.
- **Iterator types** (:func:`loop_values`, :func:`wide_enough`).  A
  generated iterator is ``int`` when ``int`` holds every value it takes
  (initial value to exit value), else ``long long`` (not ``long``: C99
  guarantees ``long long`` 64 bits on every platform, ``long`` is 32 bits
  on LLP64 Windows), else code generation refuses with a
  :class:`~clayx.errors.CodegenError`.  The printer reuses an original
  iterator's name and declared type only when that type holds them and is
  signed.
- **Expressions** (:func:`arith`, :func:`sum_value`, :func:`floord_cast`).
  C computes ``a * b`` and ``a + b`` in the operands' common type: an
  ``int`` product or sum that leaves ``int`` while its operands do not
  gets its left operand cast to ``long long`` (``(long long)100 * c1``;
  in a sum the printer flattens, ``-(a + b)``, the products and partial
  sums left to right as printed); one that leaves 64 bits, or a constant
  beyond them, is refused.  The ``floord`` macro computes ``-n + d - 1``
  for a negative ``n``: the operand is cast when that leaves its type.

Every function here is pure; the printer resolves leaves (its scope of
iterators, the parameters) and prints the casts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import islpy as isl

from ..errors import CodegenError
from ..model.inttypes import INT, INT64_MAX, LONG_LONG, IntType, common_type, literal_type

_O = isl.ast_expr_op_type


@dataclass(frozen=True)
class Value:
    """What a printed expression can evaluate to: every value lies in
    ``[lo, hi]``, and C computes it in ``ctype``."""

    lo: int
    hi: int
    ctype: IntType

    def fits(self) -> bool:
        """Whether ``ctype`` holds every value."""
        return self.ctype.holds(self.lo, self.hi)

    def negated(self) -> "Value":
        """``-self``."""
        return Value(-self.hi, -self.lo, self.ctype)

    def widened(self) -> "Value":
        """The same values computed in ``long long``."""
        return Value(self.lo, self.hi, LONG_LONG)


def constant(v: int, where: str = "the generated code") -> Value:
    """A printed integer constant (refused beyond 64 bits: C cannot write it)."""
    if abs(v) > INT64_MAX:
        raise CodegenError(f"{where} would need the constant {v}, beyond 64 bits "
                           f"(the widest integer type clayx generates is {LONG_LONG})")
    return Value(v, v, literal_type(v))


def wide_enough(lo: int, hi: int, what: str) -> IntType:
    """``int`` when it holds ``[lo, hi]``, else ``long long``; a
    :class:`CodegenError` naming ``what`` beyond 64 bits."""
    if INT.holds(lo, hi):
        return INT
    if LONG_LONG.holds(lo, hi):
        return LONG_LONG
    bad = hi if hi > LONG_LONG.hi else lo
    raise CodegenError(f"{what} would compute the value {bad}, beyond 64 bits (the widest "
                       f"integer type clayx generates is {LONG_LONG}); use smaller "
                       "amounts or parameter values")


def _product(a: Value, k: int) -> Value:
    ends = (a.lo * k, a.hi * k)
    return Value(min(ends), max(ends), a.ctype)


def _checked(v: Value, what: str) -> Value:
    if not LONG_LONG.holds(v.lo, v.hi):
        wide_enough(v.lo, v.hi, what)
    return v


@dataclass(frozen=True)
class SumPlan:
    """How to print a sum ``Σ c_k·x_k`` (terms in printed order): which
    terms get a ``(long long)`` cast, and the value of the whole sum."""

    casts: frozenset[int]
    value: Value | None


def sum_value(terms: Sequence[tuple[int, Value | None]],
              what: str = "the generated code") -> SumPlan:
    """The :class:`SumPlan` of a printed sum of ``(coefficient, value)``
    terms (value None for a term that is the constant ``coefficient``
    itself, or the unknown value of an atom; the plan's value is then None
    and no cast is asked for).

    A product ``c·x`` that leaves its type (``int`` times ``int``) gets a
    cast on that term; when a partial sum leaves its type, the first term
    gets one, which makes every later addition ``long long``.  Anything
    beyond 64 bits raises :class:`CodegenError`.
    """
    vals: list[Value] = []
    casts: set[int] = set()
    for k, (c, x) in enumerate(terms):
        if x is None:
            vals.append(constant(c, what))
            continue
        ctype = x.ctype if abs(c) == 1 else common_type(constant(abs(c), what).ctype, x.ctype)
        v = _checked(Value(*sorted((x.lo * c, x.hi * c)), ctype), what)
        if not v.fits():
            casts.add(k)
            v = v.widened()
        vals.append(v)
    if not vals:
        return SumPlan(frozenset(), constant(0, what))

    def partials(first: Value) -> tuple[Value, bool]:
        acc, ok = first, True
        for v in vals[1:]:
            acc = _checked(Value(acc.lo + v.lo, acc.hi + v.hi,
                                 common_type(acc.ctype, v.ctype)), what)
            ok = ok and acc.fits()
        return acc, ok

    total, ok = partials(vals[0])
    if not ok:
        casts.add(0)
        total, _ = partials(vals[0].widened())
    return SumPlan(frozenset(casts), total)


def arith(op, a: Value | None, b: Value | None,
          what: str = "the generated code") -> tuple[Value | None, bool]:
    """The value of ``a + b``, ``a - b`` or ``a * b`` (``op``) as C computes
    it, and whether the left operand must be cast to ``long long`` because
    the result leaves the operands' common type; (None, False) when an
    operand is unknown."""
    if a is None or b is None:
        return None, False
    if op == _O.add:
        lo, hi = a.lo + b.lo, a.hi + b.hi
    elif op == _O.sub:
        lo, hi = a.lo - b.hi, a.hi - b.lo
    else:
        ends = (a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)
        lo, hi = min(ends), max(ends)
    v = _checked(Value(lo, hi, common_type(a.ctype, b.ctype)), what)
    return (v, False) if v.fits() else (v.widened(), True)


def combine(op, args: Sequence[Value | None]) -> Value | None:
    """The value of an AST operation other than a sum (``min``, ``max``,
    ``/``, ``%``, ``floord``, ``?:``, comparisons); None when unknown (an
    unknown operand, a non-constant divisor, an operation with no integer
    value to speak of)."""
    if op in (_O.le, _O.lt, _O.ge, _O.gt, _O.eq, _O.and_, _O.and_then, _O.or_, _O.or_else):
        return Value(0, 1, INT)
    if op in (_O.cond, _O.select):
        args = args[1:]
    if not args or any(a is None for a in args):
        return None
    ctype = args[0].ctype
    for a in args[1:]:
        ctype = common_type(ctype, a.ctype)
    if op == _O.min:
        return Value(min(a.lo for a in args), min(a.hi for a in args), ctype)
    if op in (_O.max, _O.cond, _O.select):
        if op == _O.max:
            return Value(max(a.lo for a in args), max(a.hi for a in args), ctype)
        return Value(min(a.lo for a in args), max(a.hi for a in args), ctype)
    if op in (_O.div, _O.pdiv_q, _O.fdiv_q, _O.pdiv_r, _O.zdiv_r) and len(args) == 2:
        n, d = args
        if d.lo != d.hi or d.lo == 0:
            return None
        d = d.lo
        if op == _O.fdiv_q:
            ends = (n.lo // d, n.hi // d)
        elif op in (_O.div, _O.pdiv_q):
            ends = (_tdiv(n.lo, d), _tdiv(n.hi, d))
        else:
            m = abs(d) - 1
            ends = (0 if n.lo >= 0 else -m, 0 if n.hi <= 0 else m)
        return Value(min(ends), max(ends), ctype)
    return None


def _tdiv(n: int, d: int) -> int:
    """C's truncating division."""
    q = abs(n) // abs(d)
    return q if (n >= 0) == (d > 0) else -q


def floord_cast(n: Value | None, d: Value | None, what: str = "the generated code") -> bool:
    """Whether the ``floord(n, d)`` macro's operand ``n`` needs a ``(long
    long)`` cast: for ``n < 0`` it computes ``-n + d - 1``."""
    if n is None or d is None or n.lo >= 0:
        return False
    worst = -n.lo + d.hi - 1
    ctype = common_type(n.ctype, d.ctype)
    if ctype.holds(-worst, worst):
        return False
    wide_enough(-worst, worst, what)
    return True


@dataclass(frozen=True)
class LoopValues:
    """The values of a loop iterator: ``every`` from its initial value to
    its exit value (what its type must hold), ``body`` while the body runs
    (what expressions inside see)."""

    every: tuple[int, int]
    body: tuple[int, int]

    def negated(self) -> "LoopValues":
        """The values of ``-c`` (a loop printed counting down)."""
        return LoopValues((-self.every[1], -self.every[0]), (-self.body[1], -self.body[0]))


def loop_values(init: Value, uppers: Sequence[Value], stride: int) -> LoopValues:
    """The values of ``for (c = init; c <= u1 && c <= u2 …; c += stride)``
    (``uppers`` the values of the upper bounds, an ``c < u`` given as
    ``u - 1``; ``stride`` > 0): the body sees ``init`` up to the smallest
    upper bound, the exit value is at most that plus the stride."""
    top = min(u.hi for u in uppers)
    last = max(init.lo, top)
    return LoopValues((init.lo, max(init.hi, top + stride)), (init.lo, last))
