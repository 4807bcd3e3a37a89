"""A symbolic Clay schedule for whiteboxing: relations as integer affine
forms, directives as exact rewrites of them.

Recovering a directive sequence needs to know, after every step it
decides, what the schedule has become; doing that with isl maps would cost
milliseconds a step.  Here a relation is a β-vector and a list of α
dimensions, each an :class:`Aff` (an integer affine form over the
statement's iterators, the parameters, and *divs* ``floor(e / s)`` that
strip-mining creates), plus the constraints of an index-set split part.
Every directive whitebox emits has an exact rewrite on that form
(:class:`Sched` methods), with Clay's semantics as clayx implements them
(β normalization included); the sequence is replayed by the real engine
afterwards anyway.

:func:`from_relation` reads an isl relation ``S[i] -> [β0, α1, …]`` into
that form through isl's quasi-affine functions (``PwMultiAff``).
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd
from typing import Iterable, Iterator, Sequence

import islpy as isl

from ..analysis.isl_util import pieces
from ..directives.unroll import lowered_domain, translated
from ..errors import ClayxError

__all__ = ["SECOND_READING", "READINGS", "Aff", "Divs", "Rel", "Sched", "WhiteboxError", "dates",
           "densify_factor", "note_reading",
           "equalities", "exact_quotient", "form_map", "from_relation", "constraints",
           "instances", "multiples", "on_alphas", "read_form", "same_on", "shifted", "to_map",
           "unroll_domains", "unroll_main"]

_dt = isl.dim_type

#: Key of the constant term of an :class:`Aff`.
ONE = ("1",)


class WhiteboxError(ClayxError):
    """A schedule could not be whiteboxed (says which part could not be
    expressed with Clay's directives)."""


#: Whitebox's second reading of a target: where the recovery may read a
#: target two ways that both replay and neither is always shorter, the
#: first reading takes one (True: the other).  :func:`clayx.whitebox.whitebox`
#: recovers with the second reading too when the first noted that it would
#: differ (:data:`READINGS`), and keeps the second's sequence when it is
#: shorter.  The choices (first reading, then second): the order of a
#: statement's index-set splits (:func:`.core._split_tree`: the first split
#: that separates the parts, then the one that follows the target's loops),
#: the loop an ``iss`` splits (:class:`.core.Core`: the innermost or
#: outermost that holds only the relations split, then the one as deep as
#: the target's halves share), whether a loop split by one shared ``iss``
#: is distributed between its halves (:meth:`.core.Core._part_halves`:
#: not, then where the target does) and the rests of a ``grain`` then shifts
#: (:func:`.tiling._grain_shift`: to the nearest multiple, then in the order
#: of the rests first).  The target's loops mislead the second reading
#: where it fused or reordered parts again.
SECOND_READING: ContextVar[bool] = ContextVar("second_reading", default=False)

#: A list while :func:`clayx.whitebox.whitebox` wants to know whether the
#: second reading would differ (:func:`note_reading`).
READINGS: ContextVar[list | None] = ContextVar("readings", default=None)


def note_reading(what: str) -> None:
    """Note (in :data:`READINGS`, when it is a list) that the second
    reading would take another way at ``what``."""
    seen = READINGS.get()
    if seen is not None:
        seen.append(what)


def it(k: int) -> tuple:
    """Key of iterator ``k`` (0-based)."""
    return ("i", k)


def par(name: str) -> tuple:
    """Key of parameter ``name``."""
    return ("p", name)


def div(k: int) -> tuple:
    """Key of div ``k`` (see :class:`Divs`)."""
    return ("d", k)


class Aff:
    """An affine form ``Σ c_k · x_k + c`` over keys (iterators ``('i', k)``,
    parameters ``('p', name)``, divs ``('d', k)``, the constant :data:`ONE`);
    coefficients are ``int`` or ``Fraction``.  Immutable; zero coefficients
    are not stored."""

    __slots__ = ("c", "_h")

    def __init__(self, coeffs: dict | None = None):
        self.c = {k: v for k, v in (coeffs or {}).items() if v}
        self._h = None

    @staticmethod
    def const(v) -> "Aff":
        """The constant ``v``."""
        return Aff({ONE: v})

    @staticmethod
    def var(key) -> "Aff":
        """The variable ``key`` with coefficient 1."""
        return Aff({key: 1})

    def __getitem__(self, key):
        return self.c.get(key, 0)

    def __add__(self, o: "Aff") -> "Aff":
        out = dict(self.c)
        for k, v in o.c.items():
            out[k] = out.get(k, 0) + v
        return Aff(out)

    def __sub__(self, o: "Aff") -> "Aff":
        out = dict(self.c)
        for k, v in o.c.items():
            out[k] = out.get(k, 0) - v
        return Aff(out)

    def __neg__(self) -> "Aff":
        return Aff({k: -v for k, v in self.c.items()})

    def scale(self, f) -> "Aff":
        """``f`` times this form."""
        return Aff({k: v * f for k, v in self.c.items()})

    def __eq__(self, o) -> bool:
        return isinstance(o, Aff) and self.c == o.c

    def __hash__(self) -> int:
        if self._h is None:
            self._h = hash(frozenset(self.c.items()))
        return self._h

    def keys(self, kind: str) -> list:
        """The keys of one kind (``'i'``, ``'p'``, ``'d'``) with a non-zero
        coefficient, sorted."""
        return sorted(k for k in self.c if k[0] == kind)

    def part(self, *kinds: str) -> "Aff":
        """The terms of the given kinds (``'1'`` for the constant)."""
        return Aff({k: v for k, v in self.c.items() if k[0] in kinds})

    @property
    def is_zero(self) -> bool:
        """True when every coefficient is zero."""
        return not self.c

    @property
    def is_integral(self) -> bool:
        """True when every coefficient is an integer."""
        return all(Fraction(v).denominator == 1 for v in self.c.values())

    def integral(self) -> "Aff":
        """The same form with ``int`` coefficients (they must be integers)."""
        return Aff({k: int(v) for k, v in self.c.items()})

    def substitute(self, key, value: "Aff") -> "Aff":
        """``key`` replaced by ``value``."""
        v = self.c.get(key, 0)
        if not v:
            return self
        rest = dict(self.c)
        del rest[key]
        return Aff(rest) + value.scale(v)

    def __repr__(self) -> str:
        return f"Aff({self.text()})"

    def text(self, names=None) -> str:
        """Readable text (``2*i1 - N + 3``); ``names`` maps keys to names."""
        def name(k):
            if names is not None and k in names:
                return names[k]
            return {"i": lambda: f"i{k[1]}", "p": lambda: k[1],
                    "d": lambda: f"d{k[1]}"}[k[0]]()
        parts = []
        for k in sorted((k for k in self.c if k != ONE), key=str):
            v = self.c[k]
            n = name(k)
            parts.append((v, n if abs(v) == 1 else f"{abs(v)}*{n}"))
        if ONE in self.c:
            parts.append((self.c[ONE], str(abs(self.c[ONE]))))
        if not parts:
            return "0"
        out = ("-" if parts[0][0] < 0 else "") + parts[0][1]
        for v, t in parts[1:]:
            out += (" - " if v < 0 else " + ") + t
        return out


class Divs:
    """The divs ``floor(num / den)`` met while whiteboxing, numbered; equal
    divs (after normalization) get one number."""

    def __init__(self):
        self.defs: list[tuple[Aff, int]] = []
        self._index: dict[tuple[Aff, int], int] = {}

    def get(self, num: Aff, den: int) -> Aff:
        """The affine form of ``floor(num / den)``: the div itself, or
        ``num / den`` when that is an integer form."""
        num = num.integral() if num.is_integral else num
        if den < 0:
            num, den = -num, -den
        # floor((g·a + r) / (g·b)) = floor(a / b) for 0 <= r < g
        g = den
        for k, v in num.c.items():
            if k != ONE:
                g = gcd(g, int(v))
        if g > 1:
            c = int(num[ONE])
            num = Aff({k: (int(v) // g if k != ONE else c // g) for k, v in num.c.items()})
            den //= g
        if den == 1:
            return num
        key = (num, den)
        if key not in self._index:
            self._index[key] = len(self.defs)
            self.defs.append(key)
        return Aff.var(div(self._index[key]))

    def of(self, key) -> tuple[Aff, int]:
        """``(num, den)`` of a div key."""
        return self.defs[key[1]]


@dataclass
class Rel:
    """A symbolic relation: statement ``stmt`` (with ``dim`` iterators), its
    β-vector, its α dimensions and the constraints ``c ≥ 0`` of its
    index-set split part (empty: all the statement's instances).  ``tag``
    identifies the relation across a whitebox run (the target relation it
    will become)."""

    stmt: str
    dim: int
    beta: tuple[int, ...]
    alphas: list[Aff]
    cons: list[Aff] = field(default_factory=list)
    tag: int = -1
    #: iterators fixed by equalities of the domain, as forms of the others
    #: (``S[i, j] : j = i + 1``: ``{j: i + 1}``); every form is kept with
    #: them substituted, so forms equal on the domain are equal
    elim: dict = field(default_factory=dict)
    #: the part schedules no instance (an empty half of an index-set split,
    #: which Clay keeps): its α dimensions are as written, and any value
    #: of them gives the same dates
    empty: bool = False
    #: the statement's domain (and the context), as isl reads it: what
    #: :meth:`Sched.unroll` computes its parts from (None: not known)
    stdom: object = None
    #: the instances of a part that ``cons`` cannot say (an ``unroll``'s
    #: main part, copies and epilog: strides and unions), as an exact isl
    #: set of the statement's instances; None: no such restriction
    dom: object = None

    def copy(self) -> "Rel":
        """A copy that shares nothing mutable (``elim``, ``stdom`` and
        ``dom`` are shared: constant)."""
        return Rel(self.stmt, self.dim, tuple(self.beta), list(self.alphas),
                   list(self.cons), self.tag, self.elim, self.empty, self.stdom, self.dom)

    @property
    def free(self) -> list[int]:
        """The iterators not fixed by the domain's equalities (0-based)."""
        return [k for k in range(self.dim) if it(k) not in self.elim]

    def canon(self, a: Aff) -> Aff:
        """``a`` with the eliminated iterators substituted."""
        for k, v in self.elim.items():
            a = a.substitute(k, v)
        return a

    @property
    def depth(self) -> int:
        """Number of α dimensions."""
        return len(self.alphas)


class Sched:
    """A symbolic Clay schedule: relations (kept sorted by β) and marks
    ``(kind, loop, arg)``.  Mutating methods apply one directive each, with
    clayx's semantics, and return nothing."""

    def __init__(self, rels: Iterable[Rel], params: Sequence[str], divs: Divs,
                 marks: Iterable[tuple] = ()):
        self.rels = sorted(rels, key=lambda r: r.beta)
        self.params = tuple(params)
        self.divs = divs
        self.marks = list(marks)

    def copy(self) -> "Sched":
        """A deep copy (the divs registry is shared)."""
        return Sched([r.copy() for r in self.rels], self.params, self.divs, list(self.marks))

    # -- the β-tree ----------------------------------------------------------------
    def under(self, prefix: Sequence[int]) -> list[Rel]:
        """Relations whose β-vector starts with ``prefix``."""
        p = tuple(prefix)
        n = len(p)
        return [r for r in self.rels if r.beta[:n] == p]

    def children(self, prefix: Sequence[int]) -> list[tuple[int, ...]]:
        """Direct children (loops or statements) of ``prefix``, in order."""
        p = tuple(prefix)
        n = len(p)
        out: list[tuple[int, ...]] = []
        for r in self.rels:
            if r.beta[:n] == p and len(r.beta) > n:
                k = r.beta[:n + 1]
                if not out or out[-1] != k:
                    out.append(k)
        return out

    def is_loop(self, prefix: Sequence[int]) -> bool:
        """True when ``prefix`` is a strict prefix of some β-vector."""
        p = tuple(prefix)
        return bool(p) and any(len(r.beta) > len(p) and r.beta[:len(p)] == p
                               for r in self.rels)

    def by_tag(self, tag: int) -> Rel:
        """The relation with ``tag``."""
        for r in self.rels:
            if r.tag == tag:
                return r
        raise KeyError(tag)

    def normalize(self) -> None:
        """Clay's β normalization: dense, 0-based values per level."""
        self.rels.sort(key=lambda r: r.beta)
        # one pass in β order: each prefix met first gets the next number
        # under its (renumbered) parent
        mapping: dict[tuple, tuple] = {(): ()}
        count: dict[tuple, int] = {}
        for r in self.rels:
            b = r.beta
            for n in range(1, len(b) + 1):
                if b[:n] not in mapping:
                    parent = mapping[b[:n - 1]]
                    idx = count.get(parent, 0)
                    count[parent] = idx + 1
                    mapping[b[:n]] = parent + (idx,)
        for r in self.rels:
            r.beta = mapping[r.beta]
        self.marks = [(k, mapping.get(tuple(lp), tuple(lp)), a) for k, lp, a in self.marks]
        self.rels.sort(key=lambda r: r.beta)

    def _resort(self) -> None:
        self.rels.sort(key=lambda r: r.beta)

    # -- β directives ------------------------------------------------------------
    def reorder(self, loop: Sequence[int], order: Sequence[int]) -> None:
        """``reorder(loop, order)``: child k goes to position ``order[k]``."""
        loop = tuple(loop)
        d = len(loop)
        kids = self.children(loop)
        index = {k: n for n, k in enumerate(kids)}
        for r in self.rels:
            if r.beta[:d] == loop and len(r.beta) > d:
                b = list(r.beta)
                b[d] = order[index[r.beta[:d + 1]]]
                r.beta = tuple(b)
        self.normalize()

    def fuse(self, loop: Sequence[int]) -> None:
        """``fuse(loop)``: the next sibling loop's children follow ``loop``'s."""
        loop = tuple(loop)
        d = len(loop)
        sibs = self.children(loop[:-1])
        nxt = sibs[sibs.index(loop) + 1]
        shift = max(r.beta[d] for r in self.under(loop)) + 1
        for r in self.rels:
            if r.beta[:d] == nxt:
                r.beta = loop + (r.beta[d] + shift,) + r.beta[d + 1:]
        self.normalize()

    def split(self, beta: Sequence[int], depth: int) -> None:
        """``split(beta, depth)``: cut the loop ``beta[:depth]`` after ``beta``."""
        beta = tuple(beta)
        n = len(beta)
        pre = beta[:depth - 1]
        for r in self.rels:
            moved = r.beta[:depth] == beta[:depth] and r.beta[depth:n] > beta[depth:]
            later = (r.beta[:depth - 1] == pre and len(r.beta) >= depth
                     and r.beta[depth - 1] > beta[depth - 1])
            if moved or later:
                b = list(r.beta)
                b[depth - 1] += 1
                r.beta = tuple(b)
        self.normalize()

    def iss(self, loop: Sequence[int], ineq: Aff, new_tag) -> None:
        """``iss(loop, ineq ≥ 0)`` on every relation under ``loop`` (an
        inequality over iterators and parameters); the copies with ``ineq <
        0`` get ``new_tag(relation)`` as tag."""
        loop = tuple(loop)
        d = len(loop)
        under = self.under(loop)
        shift = max(r.beta[d] for r in under) + 1
        neg = -ineq - Aff.const(1)
        for r in under:
            c = r.copy()
            r.cons = r.cons + [ineq]
            c.cons = c.cons + [neg]
            b = list(c.beta)
            b[d] += shift
            c.beta = tuple(b)
            c.tag = new_tag(r)
            self.rels.append(c)
        self.normalize()

    def unroll(self, loop: Sequence[int], f: int, new_tag, epilog: bool = True) -> None:
        """``unroll(loop, f)`` (``unroll_noepilog`` when not ``epilog``), as
        :mod:`clayx.directives.unroll` does it: every relation under
        ``loop`` (depth k, its k-th iterator ``it``) keeps the instances of
        the lowered domain whose α_k is a multiple of ``f`` (the main part);
        copy m (1 ≤ m < f) runs ``it + m`` at the main instance's date, as
        child ``β_k + m·(number of children)``; the epilog, the loop right
        after ``loop``, runs the rest.  The copies get ``new_tag(r, m)``,
        the epilog ``new_tag(r, f)``.  Needs the relations' ``stdom``."""
        loop = tuple(loop)
        k = len(loop)
        under = self.under(loop)
        nb = len(self.children(loop))
        if epilog:
            for r in self.rels:
                if (r.beta[:k - 1] == loop[:-1] and len(r.beta) >= k
                        and r.beta[k - 1] > loop[-1]):
                    r.beta = r.beta[:k - 1] + (r.beta[k - 1] + 1,) + r.beta[k:]
        for r in under:
            doms = unroll_domains(r, k, f, epilog, self.divs)
            old = r.copy()
            r.dom = doms[0]
            for m in range(1, f):
                c = old.copy()
                c.alphas = [shifted(a, it(k - 1), -m, self.divs) for a in old.alphas]
                c.beta = loop + (old.beta[k] + nb * m,) + old.beta[k + 1:]
                c.dom = doms[m]
                c.tag = new_tag(old, m)
                self.rels.append(c)
            if epilog:
                e = old.copy()
                e.beta = loop[:-1] + (loop[-1] + 1,) + old.beta[k:]
                e.dom = doms[f]
                e.tag = new_tag(old, f)
                self.rels.append(e)
        self.normalize()

    def embed(self, stmt: Sequence[int]) -> None:
        """``embed(stmt)``: a one-iteration loop (α = 0) around the statement."""
        r = self._stmt(stmt)
        r.alphas = r.alphas + [Aff()]
        r.beta = r.beta + (0,)

    def unembed(self, stmt: Sequence[int]) -> None:
        """``unembed(stmt)``: drop the statement's innermost loop."""
        r = self._stmt(stmt)
        r.alphas = r.alphas[:-1]
        r.beta = r.beta[:-1]
        self.normalize()

    def _stmt(self, stmt) -> Rel:
        stmt = tuple(stmt)
        for r in self.rels:
            if r.beta == stmt:
                return r
        raise WhiteboxError(f"internal: no statement at {list(stmt)}")

    # -- α directives ------------------------------------------------------------
    def _alpha(self, beta, fn, depth: int = 0) -> None:
        """``fn`` on every relation under ``beta``, each of which must have
        ``depth`` α dimensions: Clay refuses an α directive on a loop that
        holds a shallower statement (an empty half of a split, one level
        short: trmm fuzz seed 92255), so the recovery must not count on it."""
        under = self.under(beta)
        short = [r for r in under if len(r.alphas) < depth]
        if short:
            raise WhiteboxError(f"the loop {list(beta)} holds {short[0].stmt} at "
                                f"{list(short[0].beta)}, with fewer than {depth} loops: "
                                f"no α step at depth {depth} there")
        for r in under:
            fn(r)

    def interchange(self, beta, d1: int, d2: int) -> None:
        """``interchange(beta, d1, d2)``."""
        def f(r: Rel) -> None:
            a = r.alphas
            a[d1 - 1], a[d2 - 1] = a[d2 - 1], a[d1 - 1]
        self._alpha(beta, f, max(d1, d2))

    def reverse(self, beta, d: int) -> None:
        """``reverse(beta, d)``: α_d ↦ -α_d."""
        def f(r: Rel) -> None:
            r.alphas[d - 1] = -r.alphas[d - 1]
        self._alpha(beta, f, d)

    def skew(self, beta, d: int, o: int, c: int) -> None:
        """``skew(beta, d, o, c)``: new α_d = α_d − c·α_o."""
        def f(r: Rel) -> None:
            r.alphas[d - 1] = r.alphas[d - 1] - r.alphas[o - 1].scale(c)
        self._alpha(beta, f, max(d, o))

    def reshape(self, beta, d: int, iterator: int, amount: int) -> None:
        """``reshape(beta, d, iterator, amount)``: new α_d = α_d − amount·i."""
        def f(r: Rel) -> None:
            r.alphas[d - 1] = r.canon(r.alphas[d - 1]
                                      - Aff.var(it(iterator - 1)).scale(amount))
        self._alpha(beta, f, d)

    def shift(self, beta, d: int, amount: Aff) -> None:
        """``shift(beta, d, P, c)``: new α_d = α_d − (P·p + c) (``amount``)."""
        def f(r: Rel) -> None:
            r.alphas[d - 1] = r.alphas[d - 1] - amount
        self._alpha(beta, f, d)

    def grain(self, beta, d: int, g: int) -> None:
        """``grain(beta, d, g)``: new α_d = g·α_d."""
        def f(r: Rel) -> None:
            r.alphas[d - 1] = r.alphas[d - 1].scale(g)
        self._alpha(beta, f, d)

    def densify(self, beta, d: int, g: int | None = None) -> None:
        """``densify(beta, d)``: every α_d divided by ``g`` (by default the
        factor clayx's densify finds, :func:`densify_factor`): ``g`` times
        an affine form becomes that form; on an unroll's part whose α_d
        takes only multiples of ``g`` (strides), ``floor(α_d / g)``."""
        if g is None:
            g = densify_factor(self.under(beta), d, self.divs)
            if g <= 1:
                raise WhiteboxError(f"internal: cannot densify {list(beta)} at depth {d}")

        def f(r: Rel) -> None:
            r.alphas[d - 1] = exact_quotient(r.alphas[d - 1], g, self.divs)
        self._alpha(beta, f, d)

    def stripmine(self, beta, d: int, size: int) -> None:
        """``stripmine(beta, d, size)``: a chunk loop floor(α_d / size) before α_d."""
        for r in self.under(beta):
            t = self.divs.get(r.alphas[d - 1], size)
            r.alphas.insert(d - 1, t)
            r.beta = r.beta[:d] + (0,) + r.beta[d:]
        self.normalize()

    def tile(self, beta, d: int, o: int, size: int) -> None:
        """``tile(beta, d, o, size)``: stripmine at ``d``, then the chunk
        loop swapped with the loop at ``o`` (Clay's swap, not a rotation)."""
        under = self.under(beta)
        self.stripmine(beta, d, size)
        for r in under:
            r.alphas[o - 1], r.alphas[d - 1] = r.alphas[d - 1], r.alphas[o - 1]

    def linearize(self, beta, d: int) -> None:
        """``linearize(beta, d)``: drop the chunk loop at ``d``."""
        for r in self.under(beta):
            del r.alphas[d - 1]
            r.beta = r.beta[:d] + r.beta[d + 1:]
        self.normalize()

    def mark(self, kind: str, loop, arg=None) -> None:
        """A ``parallelize``/``vectorize``/``unroll`` mark on ``loop``."""
        loop = tuple(loop)
        self.marks = [m for m in self.marks if (m[0], m[1]) != (kind, loop)] + [(kind, loop, arg)]

    def __iter__(self) -> Iterator[Rel]:
        return iter(self.rels)

    def __str__(self) -> str:
        return "\n".join(f"{r.stmt}#{r.tag} β={list(r.beta)} α=({', '.join(a.text() for a in r.alphas)})"
                         + (f" : {' and '.join(c.text() + ' >= 0' for c in r.cons)}" if r.cons else "")
                         for r in self.rels)


# --- back to isl ---------------------------------------------------------------------

def isl_text(a: Aff, names: dict, divs: Divs) -> str:
    """``a`` as isl affine text (divs as ``floor((…)/s)``)."""
    out = ""
    for k in sorted(a.c, key=str):
        v = a.c[k]
        if k == ONE:
            term = str(abs(v))
        elif k[0] == "d":
            num, den = divs.of(k)
            term = f"{abs(v)}*floor(({isl_text(num, names, divs)})/{den})"
        else:
            term = f"{abs(v)}*{names[k]}"
        out += (" - " if v < 0 else " + ") + term if out else ("-" if v < 0 else "") + term
    return out or "0"


def to_map(r: Rel, iterators: Sequence[str], params: Sequence[str], divs: Divs,
           ctx: isl.Context) -> isl.Map:
    """The isl relation ``S[i] -> [β0, α1, …]`` of a symbolic relation."""
    names = {it(k): n for k, n in enumerate(iterators)}
    names.update({par(p): p for p in params})
    outs = [str(r.beta[0])]
    for a, b in zip(r.alphas, r.beta[1:]):
        outs += [isl_text(a, names, divs), str(b)]
    cons = " and ".join(f"{isl_text(c, names, divs)} >= 0" for c in r.cons)
    text = (f"[{', '.join(params)}] -> {{ {r.stmt}[{', '.join(iterators)}] -> "
            f"[{', '.join(outs)}]{' : ' + cons if cons else ''} }}")
    m = isl.Map(text, context=ctx)
    if r.dom is not None:
        m = m.intersect_domain(r.dom.align_params(m.get_space()))
    return m


def _names(s: isl.Set) -> tuple[list[str], list[str]]:
    """The iterator and parameter names of a statement's set."""
    return ([s.get_dim_name(_dt.set, k) for k in range(s.dim(_dt.set))],
            [s.get_dim_name(_dt.param, k) for k in range(s.dim(_dt.param))])


def _set(s: isl.Set, cond: str) -> isl.Set:
    """The points of ``s``'s space where the isl condition ``cond`` holds."""
    its, ps = _names(s)
    text = f"[{', '.join(ps)}] -> {{ {s.get_tuple_name()}[{', '.join(its)}] : {cond} }}"
    return isl.Set(text, context=s.get_ctx()).align_params(s.get_space())


def _form_names(s: isl.Set) -> dict:
    its, ps = _names(s)
    names = {it(k): n for k, n in enumerate(its)}
    names.update({par(p): p for p in ps})
    return names


def instances(r: Rel, divs: Divs) -> isl.Set:
    """The instances of ``r`` (its statement's domain, ``cons`` and
    ``dom``) as an isl set; needs ``r.stdom``."""
    s = r.stdom
    if r.cons:
        names = _form_names(s)
        s = s.intersect(_set(s, " and ".join(f"{isl_text(c, names, divs)} >= 0"
                                              for c in r.cons)))
    if r.dom is not None:
        s = s.intersect(r.dom)
    return s


def exact_quotient(a: Aff, g: int, divs: Divs) -> Aff:
    """``a / g`` where ``a`` takes only multiples of ``g``: an affine form
    when ``g`` divides every coefficient, else ``floor((a - c + c') / g) +
    (c - c') / g`` (``c`` the constant of ``a``, ``c' = c mod g``: the div
    with the constant in ``[0, g)``, as isl writes it)."""
    q = a.scale(Fraction(1, g))
    if q.is_integral:
        return q.integral()
    c = int(a[ONE]) if Fraction(a[ONE]).denominator == 1 else 0
    c0 = c % g
    return divs.get(a - Aff.const(c - c0), g) + Aff.const((c - c0) // g)


def dates(r: Rel, d: int, divs: Divs) -> isl.Set:
    """The values α ``d`` of ``r`` takes on its instances (an isl set of
    one dimension); needs ``r.stdom``."""
    inst = instances(r, divs)
    its, ps = _names(inst)
    names = _form_names(inst)
    m = isl.Map(f"[{', '.join(ps)}] -> {{ {inst.get_tuple_name()}[{', '.join(its)}] -> "
                f"[{isl_text(r.alphas[d - 1], names, divs)}] }}",
                context=inst.get_ctx()).align_params(inst.get_space())
    return m.intersect_domain(inst).range()


def densify_factor(rels: Sequence[Rel], d: int, divs: Divs) -> int:
    """The factor clayx's ``densify`` divides α ``d`` of ``rels`` by (see
    :func:`clayx.directives.affine.densify`): the largest divisor of the
    dates' common stride that divides every date (1: none).  Relations
    without a known domain count by the gcd of their coefficients."""
    sets = []
    g = 0
    for r in rels:
        if r.stdom is None or r.empty and r.dom is None:
            for v in r.alphas[d - 1].c.values():
                g = gcd(g, int(v) if Fraction(v).denominator == 1 else 1)
            continue
        s = dates(r, d, divs)
        if s.is_empty():
            continue
        sets.append(s)
        try:
            g = gcd(g, int(s.get_stride(0).to_python()))
        except (isl.Error, ValueError):
            g = gcd(g, 1)
    for cand in range(g, 1, -1):
        if g % cand:
            continue
        if all(s.is_subset(_multiples(s, cand)) for s in sets):
            return cand
    return 1


def _multiples(s: isl.Set, g: int) -> isl.Set:
    ps = [s.get_dim_name(_dt.param, k) for k in range(s.dim(_dt.param))]
    return isl.Set(f"[{', '.join(ps)}] -> {{ [x] : exists (e: x = {g}e) }}",
                   context=s.get_ctx()).align_params(s.get_space())


def shifted(a: Aff, key, m: int, divs: Divs) -> Aff:
    """``a`` with the variable ``key`` replaced by ``key + m``, inside its
    divs too."""
    out = Aff()
    for k, v in a.c.items():
        if k == key:
            out = out + Aff({k: v, ONE: v * m})
        elif k[0] == "d":
            num, den = divs.of(k)
            new = shifted(num, key, m, divs)
            out = out + (divs.get(new, den).scale(v) if new != num else Aff({k: v}))
        else:
            out = out + Aff({k: v})
    return out


def unroll_main(r: Rel, k: int, f: int, epilog: bool, divs: Divs,
                alpha: Aff | None = None) -> isl.Set:
    """The main part of :func:`unroll_domains` alone."""
    if r.stdom is None:
        raise WhiteboxError(f"internal: the domain of {r.stmt} is not known")
    part = instances(r, divs)
    a = r.alphas[k - 1] if alpha is None else alpha
    return part.intersect(lowered_domain(r.stdom, k - 1, f if epilog else f - 1)) \
        .intersect(multiples(r.stdom, a, f, divs)).coalesce()


def same_on(s: isl.Set, a: Aff, b: Aff, divs: Divs) -> bool:
    """Do the forms ``a`` and ``b`` take the same value at every point of
    ``s`` (a set of a statement's instances)?"""
    if a == b:
        return True
    names = _form_names(s)
    return s.is_subset(_set(s, f"{isl_text(a, names, divs)} = {isl_text(b, names, divs)}"))


def multiples(s: isl.Set, a: Aff, f: int, divs: Divs) -> isl.Set:
    """The points of ``s``'s space (a statement's) where ``a`` is a
    multiple of ``f``."""
    return _set(s, f"exists (e0: {isl_text(a, _form_names(s), divs)} = {f}*e0)")


def unroll_domains(r: Rel, k: int, f: int, epilog: bool, divs: Divs,
                   alpha: Aff | None = None, main: isl.Set | None = None) -> list[isl.Set]:
    """The instances of the parts ``unroll`` (``unroll_noepilog`` when not
    ``epilog``) of the loop at depth ``k`` makes of ``r``: the main part,
    copies 1 … f-1, and the epilog (when ``epilog``), each an isl set (see
    :meth:`Sched.unroll`).  ``alpha``: the form whose multiples the main
    part keeps (default ``r``'s α_k); ``main``: the main part when known."""
    if main is None:
        main = unroll_main(r, k, f, epilog, divs, alpha)
    part = instances(r, divs)
    out = [main]
    for m in range(1, f):
        out.append(translated(main, k - 1, -m).intersect(part).coalesce())
    if epilog:
        # what the copies leave: the main part moved by 0 … f-1, in one set
        its, ps = _names(main)
        name = main.get_tuple_name()
        outs = ["clayx_o" if j == k - 1 else n for j, n in enumerate(its)]
        spread = isl.Map(f"[{', '.join(ps)}] -> {{ {name}[{', '.join(its)}] -> "
                         f"{name}[{', '.join(outs)}] : {its[k - 1]} <= clayx_o < "
                         f"{its[k - 1]} + {f} }}",
                         context=main.get_ctx()).align_params(main.get_space())
        out.append(part.subtract(main.apply(spread)).coalesce())
    return out


# --- reading isl relations ---------------------------------------------------------

def _val(v: isl.Val):
    """An isl value as int or Fraction."""
    f = Fraction(v.to_python()) if v.is_int() else Fraction(str(v))
    return int(f) if f.denominator == 1 else f


def _aff(aff: isl.Aff, divs: Divs, params: Sequence[str], elim: dict | None = None) -> Aff:
    """An isl quasi-affine expression as an :class:`Aff` (divs registered;
    the iterators of ``elim`` substituted)."""
    out: dict = {}
    n_in = aff.dim(_dt.in_)
    for k in range(n_in):
        v = _val(aff.get_coefficient_val(_dt.in_, k))
        if v:
            out[it(k)] = v
    for k in range(aff.dim(_dt.param)):
        v = _val(aff.get_coefficient_val(_dt.param, k))
        if v:
            out[par(aff.get_dim_name(_dt.param, k))] = v
    c = _val(aff.get_constant_val())
    if c:
        out[ONE] = c
    form = _subst(Aff(out), elim)
    for k in range(aff.dim(_dt.div)):
        v = _val(aff.get_coefficient_val(_dt.div, k))
        if not v:
            continue
        inner = aff.get_div(k)      # floor of this (rational) affine expression
        num = _aff(inner, divs, params, elim)
        den = 1
        for x in num.c.values():
            den = den * Fraction(x).denominator // gcd(den, Fraction(x).denominator)
        form = form + divs.get(num.scale(den), den).scale(v)
    return form


def _subst(a: Aff, elim: dict | None) -> Aff:
    for k, v in (elim or {}).items():
        a = a.substitute(k, v)
    return a


def equalities(domain: isl.Set, params: Sequence[str]) -> dict:
    """The iterators the equalities of ``domain`` fix, each as an
    :class:`Aff` of the remaining iterators and the parameters (the last
    iterators are eliminated first; none for an empty set)."""
    if domain.is_empty():
        return {}
    hull = domain.affine_hull()
    rows = []
    for c in hull.get_constraints():
        if c.is_equality():
            rows.append(_aff(c.get_aff(), Divs(), params))
    elim: dict = {}
    for row in rows:
        row = _subst(row, elim)
        its = [k for k in row.keys("i") if abs(row[k]) == 1]
        if not its or row.keys("d"):
            continue
        k = max(its, key=lambda x: x[1])
        coef = row[k]
        expr = (row - Aff.var(k).scale(coef)).scale(-coef)     # k = -(rest)/coef
        elim = {kk: vv.substitute(k, expr) for kk, vv in elim.items()}
        elim[k] = expr
    return elim


def constraints(s: isl.Set, divs: Divs, params: Sequence[str],
                with_divs: bool = False) -> list[Aff]:
    """The constraints ``c ≥ 0`` of a convex part of a statement's domain
    (a :class:`WhiteboxError` for a union, or for strides unless
    ``with_divs``: then they are read as chunks)."""
    return _constraints(s, divs, params, with_divs=with_divs)


def read_form(aff: isl.Aff, params: Sequence[str]) -> Aff:
    """An isl affine expression without divs as an :class:`Aff`."""
    return _aff(aff, Divs(), params)


def _constraints(s: isl.Set, divs: Divs, params: Sequence[str],
                 elim: dict | None = None, with_divs: bool = False) -> list[Aff]:
    """The constraints ``c ≥ 0`` of a basic set (an equality gives two);
    ``with_divs``: its divs too (read as chunks, as in an empty part)."""
    bsets = s.get_basic_sets()
    if len(bsets) != 1 or bsets[0].dim(_dt.div) and not with_divs:
        raise WhiteboxError(
            f"the part {s} is not convex or has strides: Clay's index-set splitting "
            "makes convex parts")
    out = []
    for c in bsets[0].get_constraints():
        aff = _aff(c.get_aff(), divs, params, elim)
        out.append(aff)
        if c.is_equality():
            out.append(-aff)
    return out


def from_relation(m: isl.Map, beta: Sequence[int], dim: int, domain: isl.Set,
                  divs: Divs, params: Sequence[str], tag: int = -1,
                  elim: dict | None = None) -> Rel:
    """A :class:`Rel` from a Clay relation map ``S[i] -> [β0, α1, …]``.

    The α dimensions must be (quasi-)affine functions of the iterators on
    the relation's instances (``domain``: the statement's domain and the
    context); the relation's own constraints (an index-set split part) are
    simplified against ``domain``.  A relation with no instance in
    ``domain`` (an empty index-set split half) is read as written, with its
    constraints as written, and marked ``empty``."""
    stmt = m.get_tuple_name(_dt.in_)
    if m.domain().intersect(domain).is_empty():
        return _empty_relation(m, beta, dim, domain, divs, params, tag)
    n_out = m.dim(_dt.out)
    alphas_map = m
    for pos in range(n_out - 1, -1, -2):           # drop β dimensions
        alphas_map = alphas_map.project_out(_dt.out, pos, 1)
    inst = alphas_map.intersect_domain(domain)
    if not inst.is_single_valued():
        raise WhiteboxError(f"a relation of {stmt} gives an instance several dates "
                            "(its α dimensions are not functions of the iterators)")
    part = m.domain().gist(domain).coalesce()
    if _strided(part):
        # an unroll's part: kept as an isl set (the recovery finds the
        # unroll); its α dimensions as affine forms where they are (isl
        # writes ``i - 1`` as ``4*floor(i/4)`` on ``i = 4e + 1``)
        elim = dict(elim or {})
        alphas = _plain_alphas(inst, divs, params, elim)
        return Rel(stmt, dim, tuple(beta), alphas, [], tag, elim, stdom=domain,
                   dom=m.domain().intersect(domain).coalesce())
    pma = isl.PwMultiAff.from_map(inst).gist(domain).coalesce()
    parts = pieces(pma)
    if len(parts) == 1:
        affs = [parts[0][1].get_at(k) for k in range(parts[0][1].dim(_dt.out))]
    else:
        affs = _unpieced(inst, domain)
        if affs is None:
            raise WhiteboxError(f"a relation of {stmt} is piecewise ({len(parts)} pieces): "
                                "Clay schedules one part of a statement by one affine "
                                "function (index-set split it first)")
    elim = dict(elim or {})
    alphas = [_aff(a, divs, params, elim) for a in affs]
    cons = [] if part.plain_is_universe() else _constraints(part, divs, params)
    return Rel(stmt, dim, tuple(beta), alphas, cons, tag, elim, stdom=domain)


def _dim(m: isl.Map, k: int) -> isl.Map:
    """The output dimension ``k`` of ``m`` alone."""
    n = m.dim(_dt.out)
    return m.project_out(_dt.out, k + 1, n - k - 1).project_out(_dt.out, 0, k)


def _one_piece(m: isl.Map, domain: isl.Set):
    """The quasi-affine function (an isl ``Aff``) the one-dimensional,
    single-valued ``m`` is on ``domain`` when isl finds one piece; else
    None."""
    ps = pieces(isl.PwMultiAff.from_map(m).gist(domain).coalesce())
    return ps[0][1].get_at(0) if len(ps) == 1 else None


def _unpieced(inst: isl.Map, domain: isl.Set) -> list | None:
    """The dimensions of the single-valued ``inst`` as one quasi-affine
    function each (isl ``Aff`` s) when isl gives them in pieces: a dimension
    isl splits (``floor(j/5) - 2·floor(j/10)``: 0 or 1 by the residue of
    ``j``) is read as ``o_k + c·o_l - c·o_l`` with ``o_k + c·o_l`` and
    ``o_l`` of one piece each (``c`` from a constraint of the map that
    holds ``o_k + c·o_l``: a skew of a tile loop, ``floor(j/5)``); None
    when a dimension stays piecewise."""
    n = inst.dim(_dt.out)
    got = {}
    for k in range(n):
        a = _one_piece(_dim(inst, k), domain)
        if a is not None:
            got[k] = a
    changed = True
    while changed and len(got) < n:
        changed = False
        for k in (k for k in range(n) if k not in got):
            for m, c in ((m, c) for m in list(got) for c in _skews(inst, k, m)):
                a = _one_piece(_dim(inst.apply_range(_combination(inst, k, m, c)), 0), domain)
                if a is not None:
                    got[k] = a.sub(got[m].scale_val(isl.Val.int_from_si(a.get_ctx(), c)))
                    changed = True
                    break
    return [got[k] for k in range(n)] if len(got) == n else None


def _skews(m: isl.Map, k: int, l: int) -> list[int]:
    """The ``c`` for which a constraint of ``m`` holds ``o_k + c·o_l`` (up
    to a factor), smallest first."""
    out = set()
    for b in m.get_basic_maps():
        for con in b.get_constraints():
            a = int(con.get_coefficient_val(_dt.out, k).to_python())
            v = int(con.get_coefficient_val(_dt.out, l).to_python())
            if a and v and v % a == 0:
                out.add(v // a)
    return sorted(out, key=lambda c: (abs(c), c))


def _combination(m: isl.Map, k: int, l: int, c: int) -> isl.Map:
    """The map ``[o…] -> [o_k + c·o_l]`` on ``m``'s range."""
    os = [f"o{x}" for x in range(m.dim(_dt.out))]
    ps = [m.get_dim_name(_dt.param, x) for x in range(m.dim(_dt.param))]
    return isl.Map(f"[{', '.join(ps)}] -> {{ [{', '.join(os)}] -> [o{k} + {c}*o{l}] }}",
                   context=m.get_ctx()).align_params(m.get_space())


def _plain_alphas(inst: isl.Map, divs: Divs, params: Sequence[str], elim: dict) -> list[Aff]:
    """The α dimensions of ``inst`` (a map from a strided part), each the
    affine function that its graph's affine hull fixes when that is exact
    on the part, else a chunk (:func:`_chunk_on`), else the quasi-affine
    one isl gives; a dimension isl gives in pieces is read as
    ``(o_k + c·o_l) - c·o_l`` with ``o_l`` an earlier dimension and
    ``o_k + c·o_l`` read so (a skew by a reversed tile loop: jacobi-2d
    fuzz seed 90138)."""
    out: list[Aff] = []
    n = inst.dim(_dt.out)
    dom = inst.domain()
    known = list(divs.defs)
    for k in range(n):
        found = _chunk_on(_dim(inst, k), dom, known, divs, params, elim)
        if found is None:
            ps = pieces(isl.PwMultiAff.from_map(_dim(inst, k)).coalesce())
            if len(ps) == 1:
                found = _aff(ps[0][1].get_at(0), divs, params, elim)
        for l, c in ((l, c) for l in range(k) for c in _skews(inst, k, l)):
            if found is not None:
                break
            both = _dim(inst.apply_range(_combination(inst, k, l, c)), 0)
            sum_ = _chunk_on(both, dom, known, divs, params, elim)
            if sum_ is not None:
                found = sum_ - out[l].scale(c)
        if found is None:
            raise WhiteboxError(f"a relation of {inst.get_tuple_name(_dt.in_)} is "
                                f"piecewise ({len(ps)} pieces) on its part: Clay "
                                "schedules one part of a statement by one affine function")
        out.append(_rekeyed(found, out, dom, divs, params, elim))
    return out


def _rekeyed(a: Aff, earlier: Sequence[Aff], dom: isl.Set, divs: Divs,
             params: Sequence[str], elim: dict) -> Aff:
    """``a`` (a form on ``dom``) with each div that is not one of the
    ``earlier`` dimensions' written with one of them where it is that div
    (or its opposite) plus an affine form on ``dom``: isl writes a point
    loop skewed by its tile loop, ``i + 2·floor(i/2)``, as ``3i -
    2·floor((i + 1)/2)`` on a part with strides, and a split by that
    dimension is then not read as one on the tile loop ``floor(i/2)``
    (bicg fuzz seed 103024: ``tile``, ``skew`` by the tile loop, ``peel``).
    Equal on ``dom``."""
    mine = list(dict.fromkeys(k for e in earlier for k in e.keys("d")))
    names = _form_names(dom)
    for k in a.keys("d"):
        if k in mine:
            continue
        den = divs.of(k)[1]
        for p, sign in ((p, sign) for p in mine if divs.of(p)[1] == den for sign in (1, -1)):
            diff = Aff.var(k) - Aff.var(p).scale(sign)
            one = _text_map(dom, isl_text(diff, names, divs))
            rest = _affine_on(one.intersect_domain(dom), dom)
            if rest is not None:
                a = a.substitute(k, Aff.var(p).scale(sign) + _aff(rest, divs, params, elim))
                break
    return a


def _chunk_on(one: isl.Map, dom: isl.Set, known: Sequence, divs: Divs,
              params: Sequence[str], elim: dict) -> Aff | None:
    """The one-dimensional ``one`` on ``dom`` as an affine form
    (:func:`_affine_on`) or as a chunk (a tile loop) of the part: one of
    the ``known`` divs plus an affine form (isl writes ``floor(i/2)`` as
    ``i - floor((i+1)/2)`` on some parts); None when it is neither."""
    form = _affine_on(one, dom)
    if form is not None:
        return _aff(form, divs, params, elim)
    names = _form_names(dom)
    for num, den in known:
        for sign in (1, -1):
            text = f"{sign}*floor(({isl_text(num, names, divs)})/{den})"
            d = _text_map(dom, text).align_params(one.get_space())
            rest = _affine_on(one.sum(d.neg()).intersect_domain(dom), dom)
            if rest is not None:
                return divs.get(num, den).scale(sign) + _aff(rest, divs, params, elim)
    return None


def _text_map(dom: isl.Set, text: str) -> isl.Map:
    """The map from ``dom``'s space to the one-dimensional isl expression
    ``text`` (over its iterator and parameter names)."""
    its, ps = _names(dom)
    return isl.Map(f"[{', '.join(ps)}] -> {{ {dom.get_tuple_name()}[{', '.join(its)}] "
                   f"-> [{text}] }}", context=dom.get_ctx()).align_params(dom.get_space())


def _affine_on(one: isl.Map, dom: isl.Set):
    """The affine function (an isl ``Aff`` without divs) equal to the
    one-dimensional map ``one`` on ``dom``, when its graph's affine hull
    fixes one; else None."""
    hull = isl.Map.from_basic_map(one.affine_hull())
    if not hull.is_single_valued():
        return None
    on = hull.intersect_domain(dom)
    ps = pieces(isl.PwMultiAff.from_map(on).coalesce())
    if len(ps) == 1 and not ps[0][1].get_at(0).dim(_dt.div) and on.is_equal(one):
        return ps[0][1].get_at(0)
    return None


def _strided(part: isl.Set) -> bool:
    """Is ``part`` (a part of a statement's domain) not a conjunction of
    affine inequalities (a union, or strides: what ``unroll`` makes)?"""
    bsets = part.get_basic_sets()
    return len(bsets) > 1 or any(b.dim(_dt.div) for b in bsets)


def _empty_relation(m: isl.Map, beta: Sequence[int], dim: int, domain: isl.Set, divs: Divs,
                    params: Sequence[str], tag: int) -> Rel:
    """The :class:`Rel` of a relation that schedules no instance (see
    :func:`from_relation`)."""
    stmt = m.get_tuple_name(_dt.in_)
    alphas_map = m
    for pos in range(m.dim(_dt.out) - 1, -1, -2):
        alphas_map = alphas_map.project_out(_dt.out, pos, 1)
    parts: list = []
    part = m.domain().coalesce()
    if alphas_map.is_single_valued() and not part.is_empty():
        parts = pieces(isl.PwMultiAff.from_map(alphas_map).coalesce())
    if len(parts) == 1:
        alphas = [_aff(parts[0][1].get_at(k), divs, params) for k in range(len(beta) - 1)]
    else:                                  # no instance anywhere: any α will do
        alphas = [Aff() for _ in range(len(beta) - 1)]
    dom = None
    if part.is_empty():
        cons = [Aff.const(-1)]             # false: ``-1 >= 0``
    elif len(part.get_basic_sets()) == 1:
        # no instance, so no unroll's part: its chunks read as divs (an
        # empty half of an index-set split of tile loops, fuzz seed 16114)
        cons = [] if part.plain_is_universe() else _constraints(part, divs, params,
                                                                 with_divs=True)
    elif _strided(part):
        cons, dom = [], part
    else:
        cons = [] if part.plain_is_universe() else _constraints(part, divs, params)
    return Rel(stmt, dim, tuple(beta), alphas, cons, tag, {}, True, domain, dom)


def form_map(r: Rel, a: Aff, divs):
    """The isl map from the instances of ``r`` (which needs its ``stdom``)
    to the value of the form ``a``."""
    s = instances(r, divs)
    its, ps = _names(s)
    head = f"[{', '.join(ps)}] -> {{ {s.get_tuple_name()}[{', '.join(its)}] -> "
    return isl.Map(head + f"[{isl_text(a, _form_names(s), divs)}] }}", context=s.get_ctx()) \
        .align_params(s.get_space()).intersect_domain(s)


def on_alphas(r: Rel, form: tuple) -> Aff:
    """The form ``(α coefficients, rest)`` on ``r``'s α dimensions."""
    coef, rest = form
    out = rest
    for l, v in enumerate(coef):
        out = out + r.alphas[l].scale(v)
    return out
