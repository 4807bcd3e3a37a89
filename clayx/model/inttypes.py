"""C integer types as clayx reads and writes them.

The front end records the declared type of every loop iterator
(``Statement.iterator_types``, ``Scop.declared_iterator_types``) and code
generation chooses the type of every generated iterator; both need the
value range of a C integer type and C's usual arithmetic conversions.  The
data model is gcc's on 64-bit Linux (LP64): ``int`` is 32 bits, ``long``,
``long long``, ``size_t`` and ``ptrdiff_t`` are 64 bits.  Plain ``char`` is
signed on x86-64 and unsigned on aarch64, so its range is taken as the
values both hold (0 to 127).

Integers clayx handles anywhere (directive arguments, C constants, dates)
lie within :data:`INT64_MAX` in magnitude: the widest type generated code
uses is ``long long`` (64 bits), and keeping the range symmetric means a
negated value is still in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The largest magnitude of an integer clayx accepts: ``2**63 - 1``.
INT64_MAX = 2 ** 63 - 1


@dataclass(frozen=True)
class IntType:
    """A C integer type: its text as written (``"unsigned long"``), its
    width in bits, its signedness.  Two types with the same width and
    signedness (``long`` and ``long long`` on LP64) hold the same values and
    compare :meth:`same` ."""

    name: str
    bits: int
    signed: bool

    @property
    def lo(self) -> int:
        """The smallest value (0 for an unsigned type)."""
        if self.name == "char":
            return 0
        return -(2 ** (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        """The largest value."""
        if self.name == "char":
            return 127
        return 2 ** (self.bits - 1) - 1 if self.signed else 2 ** self.bits - 1

    def holds(self, lo: int, hi: int) -> bool:
        """Whether every integer of ``[lo, hi]`` is a value of this type."""
        return self.lo <= lo and hi <= self.hi

    def same(self, other: "IntType") -> bool:
        """Same width and signedness (the same values, the same arithmetic)."""
        return self.bits == other.bits and self.signed == other.signed

    def __str__(self) -> str:
        return self.name


INT = IntType("int", 32, True)
LONG_LONG = IntType("long long", 64, True)

_FIXED = {"size_t": (64, False), "ptrdiff_t": (64, True), "ssize_t": (64, True),
          "intptr_t": (64, True), "uintptr_t": (64, False),
          "intmax_t": (64, True), "uintmax_t": (64, False)}
_WORDS = {"unsigned", "signed", "int", "long", "short", "char"}


def int_type(text: str | None) -> IntType | None:
    """The :class:`IntType` of a C type as written (``"long"``, ``"unsigned
    int"``, ``"int64_t"``, ``"size_t"``), None when it is not an integer type
    this module knows (``double``, a typedef)."""
    if not text:
        return None
    words = text.split()
    name = " ".join(words)
    if len(words) == 1 and words[0] in _FIXED:
        bits, signed = _FIXED[words[0]]
        return IntType(name, bits, signed)
    m = re.fullmatch(r"(u?)int(8|16|32|64)_t", name)
    if m:
        return IntType(name, int(m.group(2)), not m.group(1))
    if not words or any(w not in _WORDS for w in words):
        return None
    signed = "unsigned" not in words
    if "char" in words:
        bits = 8
        if "signed" not in words and "unsigned" not in words:
            return IntType("char", 8, True)      # plain char: see the module doc
    elif "short" in words:
        bits = 16
    elif "long" in words:
        bits = 64
    else:
        bits = 32
    return IntType(name, bits, signed)


def literal_type(value: int) -> IntType:
    """The type of an unsuffixed decimal constant of this magnitude: ``int``
    when it fits, else ``long`` (64 bits on LP64).  A negative constant is
    a negated literal, so its magnitude decides."""
    return INT if abs(value) <= INT.hi else IntType("long", 64, True)


def common_type(a: IntType, b: IntType) -> IntType:
    """The type C computes ``a op b`` in (integer promotions, then the usual
    arithmetic conversions, LP64)."""
    a, b = _promoted(a), _promoted(b)
    if a.same(b):
        return a
    if a.signed == b.signed:
        return a if a.bits > b.bits else b
    u, s = (a, b) if not a.signed else (b, a)
    if s.bits > u.bits:
        return s
    return u if u.bits >= s.bits else s


def _promoted(t: IntType) -> IntType:
    """Integer promotion: types narrower than ``int`` compute as ``int``."""
    return INT if t.bits < 32 else t
